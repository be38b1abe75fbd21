// issues plugin through HTTP: issues, comments, reactions, labels, milestones, assignees, subscriptions, lock, pin and
// search, the permission matrix (anonymous, reader, poster, writer, admin, stranger), exact counters and numbers under
// concurrency, and the events every change emits.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import type { IssueCommentEvent, IssueEvent } from '../../schemas/events.js';
import { startForge, jsonCaller, type TestForge, type TestUser } from '../helpers/forge.js';

const issueEvents: IssueEvent[] = [];
const commentEvents: IssueCommentEvent[] = [];
const recorder = definePlugin({
  name: 'issue-event-recorder',
  dependencies: ['issues'],
  start(ctx) {
    ctx.events.on('issue.changed', (e) => { issueEvents.push(e); });
    ctx.events.on('issue_comment.changed', (e) => { commentEvents.push(e); });
  },
});

const ok = (f: TestForge, ...call: Parameters<ReturnType<typeof jsonCaller>>) => jsonCaller(f)(...call);

t.test('issues', async (t) => {
  const f = await startForge({ extraPlugins: [recorder] });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' }); // owner
  const rita = await f.createUser({ username: 'rita' }); // reader (collaborator, read)
  const will = await f.createUser({ username: 'will' }); // writer (collaborator, write)
  const sam = await f.createUser({ username: 'sam' }); // stranger
  const admin = f.admin;
  await ok(f, 'POST', '/user/repos', alice.token, { name: 'pub' }, 201);
  await ok(f, 'POST', '/user/repos', alice.token, { name: 'priv', private: true }, 201);
  for (const repo of ['pub', 'priv']) {
    await ok(f, 'PUT', `/repos/alice/${repo}/collaborators/rita`, alice.token, { permission: 'read' }, 204);
    await ok(f, 'PUT', `/repos/alice/${repo}/collaborators/will`, alice.token, { permission: 'write' }, 204);
  }
  const openCount = async (repo: string) => (await ok(f, 'GET', `/repos/alice/${repo}`, admin.token)).open_issues_count;

  t.test('create, get, numbers per repository, open_issues_count', async (t) => {
    const a = await ok(f, 'POST', '/repos/alice/pub/issues', rita.token, { title: 'First', body: 'the body' }, 201);
    t.equal(a.number, 1);
    t.equal(a.state, 'open');
    t.equal(a.user.login, 'rita');
    t.equal(a.url, `${f.api}/repos/alice/pub/issues/1`);
    t.same(a.repository, { id: a.repository.id, name: 'pub', owner: 'alice', full_name: 'alice/pub' });
    t.equal(a.assignees, null, 'Gitea sends null for no assignees');
    t.same(a.labels, []);
    t.equal(a.milestone, null);
    t.equal(a.pull_request, null);
    const b = await ok(f, 'POST', '/repos/alice/priv/issues', will.token, { title: 'Private one' }, 201);
    t.equal(b.number, 1, 'numbers are per repository');
    t.equal((await ok(f, 'POST', '/repos/alice/pub/issues', alice.token, { title: 'Second' }, 201)).number, 2);
    t.equal(await openCount('pub'), 2);
    t.equal(await openCount('priv'), 1);
    const got = await ok(f, 'GET', '/repos/alice/pub/issues/1', undefined);
    t.equal(got.title, 'First');
    t.equal(got.user.email, '', 'emails hidden from anonymous callers');
    t.equal((await f.request('GET', '/repos/alice/pub/issues/99')).status, 404);
    t.equal((await f.request('POST', '/repos/alice/pub/issues', { json: { title: 'x' } })).status, 401, 'anonymous cannot open issues');
    t.equal((await f.request('POST', '/repos/alice/pub/issues', { token: rita.token, json: {} })).status, 422, 'title required');
    t.equal((await f.request('POST', '/repos/alice/pub/issues', { token: rita.token, json: { title: '' } })).status, 422);
    t.equal((await f.request('POST', '/repos/alice/pub/issues', { token: sam.token, json: { title: 'stranger on public' } })).status, 201,
      'anyone who can read opens issues');
    t.equal(await openCount('pub'), 3);
  });

  t.test('private repositories: 404 for strangers and anonymous everywhere', async (t) => {
    for (const [who, token] of [['anonymous', undefined], ['stranger', sam.token]] as const) {
      for (const [method, path, json] of [
        ['GET', '/repos/alice/priv/issues', undefined], ['GET', '/repos/alice/priv/issues/1', undefined],
        ['POST', '/repos/alice/priv/issues', { title: 'x' }], ['PATCH', '/repos/alice/priv/issues/1', { title: 'x' }],
        ['GET', '/repos/alice/priv/issues/1/comments', undefined], ['POST', '/repos/alice/priv/issues/1/comments', { body: 'x' }],
        ['GET', '/repos/alice/priv/labels', undefined], ['GET', '/repos/alice/priv/milestones', undefined],
        ['GET', '/repos/alice/priv/assignees', undefined], ['GET', '/repos/alice/priv/issues/comments', undefined],
        ['GET', '/repos/alice/priv/issues/1/reactions', undefined], ['GET', '/repos/alice/priv/issues/pinned', undefined],
      ] as const) {
        if (!token && method !== 'GET') continue;
        const res = await f.request(method, path, { token, ...(json ? { json } : {}) });
        t.equal(res.status, 404, `${who} ${method} ${path}`);
      }
    }
    const search = await f.request('GET', '/repos/issues/search?state=all', { token: sam.token });
    t.notOk(search.json.some((i: any) => i.repository.full_name === 'alice/priv'), 'search hides private issues');
    t.equal(Number(search.headers.get('x-total-count')), search.json.length, 'and does not count them');
    const reader = await f.request('GET', '/repos/issues/search?state=all', { token: rita.token });
    t.ok(reader.json.some((i: any) => i.repository.full_name === 'alice/priv'), 'a reader finds them');
    const adminSearch = await f.request('GET', '/repos/issues/search?state=all', { token: admin.token });
    t.ok(adminSearch.json.some((i: any) => i.repository.full_name === 'alice/priv'), 'site admins find them');
  });

  t.test('edit: poster edits text and state; writers everything; others 403', async (t) => {
    const edited = await ok(f, 'PATCH', '/repos/alice/pub/issues/1', rita.token, { title: 'First (edited)', body: 'new body' }, 201);
    t.equal(edited.title, 'First (edited)');
    t.equal(edited.body, 'new body');
    t.equal((await f.request('PATCH', '/repos/alice/pub/issues/1', { token: sam.token, json: { title: 'hijack' } })).status, 403, 'stranger');
    t.equal((await f.request('PATCH', '/repos/alice/pub/issues/2', { token: rita.token, json: { title: 'not mine' } })).status, 403, 'reader, not poster');
    t.equal((await f.request('PATCH', '/repos/alice/pub/issues/1', { token: rita.token, json: { assignees: ['will'] } })).status, 403,
      'a poster without write access cannot assign');
    t.equal((await f.request('PATCH', '/repos/alice/pub/issues/1', { json: { title: 'anon' } })).status, 401);
    const closed = await ok(f, 'PATCH', '/repos/alice/pub/issues/1', rita.token, { state: 'closed' }, 201);
    t.equal(closed.state, 'closed');
    t.match(closed.closed_at, /^\d{4}-/);
    t.equal(await openCount('pub'), 2);
    const byWriter = await ok(f, 'PATCH', '/repos/alice/pub/issues/1', will.token,
      { state: 'open', assignees: ['will', 'alice'], due_date: '2030-01-02T03:04:05Z', ref: 'refs/heads/main' }, 201);
    t.equal(byWriter.state, 'open');
    t.same(byWriter.assignees.map((u: any) => u.login).sort(), ['alice', 'will']);
    t.equal(byWriter.due_date, '2030-01-02T03:04:05Z');
    t.equal(byWriter.ref, 'refs/heads/main');
    t.equal(await openCount('pub'), 3);
    t.equal((await f.request('PATCH', '/repos/alice/pub/issues/1', { token: will.token, json: { assignees: ['sam'] } })).status, 422,
      'only writers can be assigned');
    const unset = await ok(f, 'PATCH', '/repos/alice/pub/issues/1', will.token, { unset_due_date: true }, 201);
    t.equal(unset.due_date, null);
    const moderated = await ok(f, 'PATCH', '/repos/alice/pub/issues/2', admin.token, { title: 'moderated' }, 201);
    t.equal(moderated.title, 'moderated', 'site admins moderate');
  });

  t.test('labels: CRUD, color validation, exclusive scopes, issue labels', async (t) => {
    t.equal((await f.request('POST', '/repos/alice/pub/labels', { token: rita.token, json: { name: 'bug', color: '#ff0000' } })).status, 403, 'reader');
    t.equal((await f.request('POST', '/repos/alice/pub/labels', { token: will.token, json: { name: 'bug', color: 'red' } })).status, 422, 'color');
    t.equal((await f.request('POST', '/repos/alice/pub/labels', { token: will.token, json: { name: 'bug', color: '#ff00000' } })).status, 422);
    const bug = await ok(f, 'POST', '/repos/alice/pub/labels', will.token, { name: 'bug', color: '#F00', description: 'broken' }, 201);
    t.same(bug, { id: bug.id, name: 'bug', exclusive: false, is_archived: false, color: 'ff0000', description: 'broken', url: `${f.api}/repos/alice/pub/labels/${bug.id}` });
    const high = await ok(f, 'POST', '/repos/alice/pub/labels', will.token, { name: 'prio/high', color: 'aa0000', exclusive: true }, 201);
    const low = await ok(f, 'POST', '/repos/alice/pub/labels', will.token, { name: 'prio/low', color: '00aa00', exclusive: true }, 201);
    t.same((await ok(f, 'GET', '/repos/alice/pub/labels', undefined)).map((l: any) => l.name), ['bug', 'prio/high', 'prio/low']);
    const edited = await ok(f, 'PATCH', `/repos/alice/pub/labels/${bug.id}`, will.token, { color: '#00ff00' });
    t.equal(edited.color, '00ff00');
    t.equal((await f.request('PATCH', `/repos/alice/pub/labels/${bug.id}`, { token: will.token, json: { color: 'nope' } })).status, 422);
    t.equal((await ok(f, 'GET', `/repos/alice/pub/labels/${bug.id}`, undefined)).name, 'bug');

    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/labels', { token: rita.token, json: { labels: [bug.id] } })).status, 403);
    let labels = await ok(f, 'POST', '/repos/alice/pub/issues/1/labels', will.token, { labels: [bug.id, high.id] });
    t.same(labels.map((l: any) => l.name), ['bug', 'prio/high']);
    labels = await ok(f, 'POST', '/repos/alice/pub/issues/1/labels', will.token, { labels: ['prio/low'] });
    t.same(labels.map((l: any) => l.name), ['bug', 'prio/low'], 'an exclusive label replaces its scope');
    labels = await ok(f, 'PUT', '/repos/alice/pub/issues/1/labels', will.token, { labels: [high.id, low.id] });
    t.same(labels.map((l: any) => l.name), ['prio/low'], 'replace keeps the last label of a scope');
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/labels', { token: will.token, json: { labels: [999999] } })).status, 422);
    await ok(f, 'DELETE', `/repos/alice/pub/issues/1/labels/${low.id}`, will.token, undefined, 204);
    t.same(await ok(f, 'GET', '/repos/alice/pub/issues/1/labels', undefined), []);
    t.equal((await f.request('DELETE', '/repos/alice/pub/issues/1/labels/999999', { token: will.token })).status, 422);
    await ok(f, 'PUT', '/repos/alice/pub/issues/1/labels', will.token, { labels: [bug.id] });
    await ok(f, 'PUT', '/repos/alice/pub/issues/2/labels', will.token, { labels: [bug.id, high.id] });
    const filtered = await f.request('GET', '/repos/alice/pub/issues?labels=bug,prio/high');
    t.same(filtered.json.map((i: any) => i.number), [2], 'labels filter: every label');
    t.equal(filtered.headers.get('x-total-count'), '1');
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues?labels=bug', undefined)).map((i: any) => i.number), [2, 1]);
    await ok(f, 'DELETE', '/repos/alice/pub/issues/2/labels', will.token, undefined, 204);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/2', undefined)).labels, []);
    await ok(f, 'DELETE', `/repos/alice/pub/labels/${high.id}`, will.token, undefined, 204);
    t.equal((await f.request('GET', `/repos/alice/pub/labels/${high.id}`)).status, 404);
  });

  t.test('organization labels', async (t) => {
    await ok(f, 'POST', '/orgs', alice.token, { username: 'acme' }, 201);
    await ok(f, 'POST', '/org/acme/repos', alice.token, { name: 'tool' }, 201);
    t.equal((await f.request('POST', '/orgs/acme/labels', { token: sam.token, json: { name: 'org', color: '#123456' } })).status, 403);
    const label = await ok(f, 'POST', '/orgs/acme/labels', alice.token, { name: 'org-wide', color: '#123456' }, 201);
    t.equal(label.url, `${f.api}/orgs/acme/labels/${label.id}`);
    t.same((await ok(f, 'GET', '/orgs/acme/labels', undefined)).map((l: any) => l.name), ['org-wide']);
    const issue = await ok(f, 'POST', '/repos/acme/tool/issues', alice.token, { title: 'uses org label', labels: [label.id] }, 201);
    t.same(issue.labels.map((l: any) => l.name), ['org-wide'], 'usable on the organization\'s repositories');
    t.equal((await f.request('POST', '/repos/alice/pub/issues', { token: alice.token, json: { title: 'x', labels: [label.id] } })).status, 422,
      'not on other repositories');
    t.equal((await ok(f, 'PATCH', `/orgs/acme/labels/${label.id}`, alice.token, { name: 'renamed' })).name, 'renamed');
    t.equal((await ok(f, 'GET', `/orgs/acme/labels/${label.id}`, undefined)).name, 'renamed');
    await ok(f, 'DELETE', `/orgs/acme/labels/${label.id}`, alice.token, undefined, 204);
    t.same((await ok(f, 'GET', '/repos/acme/tool/issues/1', undefined)).labels, [], 'deleting it takes it off issues');
  });

  t.test('milestones: CRUD by id and title, exact counts, filter', async (t) => {
    t.equal((await f.request('POST', '/repos/alice/pub/milestones', { token: rita.token, json: { title: 'v1' } })).status, 403);
    const v1 = await ok(f, 'POST', '/repos/alice/pub/milestones', will.token, { title: 'v1', due_on: '2031-05-06T07:08:09Z' }, 201);
    t.equal(v1.due_on, '2031-05-06T07:08:09Z');
    t.equal(v1.state, 'open');
    await ok(f, 'PATCH', '/repos/alice/pub/issues/1', will.token, { milestone: v1.id }, 201);
    await ok(f, 'PATCH', '/repos/alice/pub/issues/2', will.token, { milestone: v1.id, state: 'closed' }, 201);
    let got = await ok(f, 'GET', '/repos/alice/pub/milestones/v1', undefined);
    t.equal(got.open_issues, 1);
    t.equal(got.closed_issues, 1);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues?milestones=v1&state=all', undefined)).map((i: any) => i.number), [2, 1]);
    await ok(f, 'PATCH', '/repos/alice/pub/issues/1', will.token, { milestone: 0 }, 201);
    got = await ok(f, 'GET', `/repos/alice/pub/milestones/${v1.id}`, undefined);
    t.equal(got.open_issues, 0);
    t.equal(got.closed_issues, 1);
    const closed = await ok(f, 'PATCH', `/repos/alice/pub/milestones/${v1.id}`, will.token, { state: 'closed', title: 'v1.0' });
    t.equal(closed.state, 'closed');
    t.match(closed.closed_at, /^\d{4}-/);
    t.same(await ok(f, 'GET', '/repos/alice/pub/milestones', undefined), [], 'open milestones by default');
    t.same((await ok(f, 'GET', '/repos/alice/pub/milestones?state=all', undefined)).map((m: any) => m.title), ['v1.0']);
    t.equal((await f.request('GET', '/repos/alice/pub/milestones/nope')).status, 404);
    await ok(f, 'PATCH', '/repos/alice/pub/issues/2', will.token, { state: 'open' }, 201);
    await ok(f, 'DELETE', '/repos/alice/pub/milestones/v1.0', will.token, undefined, 204);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/2', undefined)).milestone, null);
  });

  t.test('comments: create, list, edit, delete, locked issues, exact counts', async (t) => {
    const c1 = await ok(f, 'POST', '/repos/alice/pub/issues/1/comments', sam.token, { body: 'hello @will' }, 201);
    t.equal(c1.user.login, 'sam');
    t.equal(c1.issue_url, `${f.url}/alice/pub/issues/1`);
    t.equal(c1.html_url, `${f.url}/alice/pub/issues/1#issuecomment-${c1.id}`);
    await ok(f, 'POST', '/repos/alice/pub/issues/1/comments', rita.token, { body: 'second' }, 201);
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/comments', { json: { body: 'x' } })).status, 401);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/1', undefined)).comments, 2);
    const list = await f.request('GET', '/repos/alice/pub/issues/1/comments');
    t.same(list.json.map((c: any) => c.body), ['hello @will', 'second']);
    t.equal(list.headers.get('x-total-count'), '2');
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/comments', undefined)).map((c: any) => c.body), ['hello @will', 'second']);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues?mentioned_by=will&state=all', undefined)).map((i: any) => i.number), [1], 'mentions recorded');
    t.equal((await f.request('PATCH', `/repos/alice/pub/issues/comments/${c1.id}`, { token: rita.token, json: { body: 'no' } })).status, 403);
    t.equal((await ok(f, 'PATCH', `/repos/alice/pub/issues/comments/${c1.id}`, sam.token, { body: 'edited' })).body, 'edited');
    t.equal((await ok(f, 'GET', `/repos/alice/pub/issues/comments/${c1.id}`, undefined)).body, 'edited');
    t.equal((await f.request('GET', `/repos/alice/priv/issues/comments/${c1.id}`, { token: alice.token })).status, 404, 'comment of another repository');
    t.equal((await f.request('PUT', '/repos/alice/pub/issues/1/lock', { token: rita.token, json: {} })).status, 403, 'readers cannot lock');
    await ok(f, 'PUT', '/repos/alice/pub/issues/1/lock', will.token, { lock_reason: 'heated' }, 204);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/1', undefined)).is_locked, true);
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/comments', { token: sam.token, json: { body: 'x' } })).status, 403, 'locked');
    await ok(f, 'POST', '/repos/alice/pub/issues/1/comments', will.token, { body: 'writers still comment' }, 201);
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/lock', will.token, undefined, 204);
    await ok(f, 'DELETE', `/repos/alice/pub/issues/comments/${c1.id}`, will.token, undefined, 204);
    t.equal((await f.request('GET', `/repos/alice/pub/issues/comments/${c1.id}`)).status, 404);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/1', undefined)).comments, 2);
  });

  t.test('reactions on issues and comments', async (t) => {
    const first = await f.request('POST', '/repos/alice/pub/issues/1/reactions', { token: sam.token, json: { content: 'heart' } });
    t.equal(first.status, 201);
    t.equal(first.json.content, 'heart');
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/reactions', { token: sam.token, json: { content: 'heart' } })).status, 200, 'already there');
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/reactions', { token: sam.token, json: { content: 'nope' } })).status, 403);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/1/reactions', undefined)).map((r: any) => [r.user.login, r.content]), [['sam', 'heart']]);
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/reactions', sam.token, { content: 'heart' });
    t.same(await ok(f, 'GET', '/repos/alice/pub/issues/1/reactions', undefined), []);
    const [comment] = await ok(f, 'GET', '/repos/alice/pub/issues/1/comments', undefined);
    t.equal((await f.request('POST', `/repos/alice/pub/issues/comments/${comment.id}/reactions`, { token: rita.token, json: { content: '+1' } })).status, 201);
    t.same((await ok(f, 'GET', `/repos/alice/pub/issues/comments/${comment.id}/reactions`, undefined)).map((r: any) => r.content), ['+1']);
    await ok(f, 'DELETE', `/repos/alice/pub/issues/comments/${comment.id}/reactions`, rita.token, { content: '+1' });
    t.same(await ok(f, 'GET', `/repos/alice/pub/issues/comments/${comment.id}/reactions`, undefined), []);
  });

  t.test('subscriptions, assignees, pins', async (t) => {
    const check = await ok(f, 'GET', '/repos/alice/pub/issues/1/subscriptions/check', rita.token);
    t.equal(check.subscribed, true, 'the poster is subscribed');
    t.equal((await f.request('PUT', '/repos/alice/pub/issues/1/subscriptions/sam', { token: rita.token })).status, 403, 'only oneself');
    t.equal((await f.request('PUT', '/repos/alice/pub/issues/2/subscriptions/sam', { token: sam.token })).status, 201);
    t.equal((await f.request('PUT', '/repos/alice/pub/issues/2/subscriptions/sam', { token: sam.token })).status, 200);
    t.ok((await ok(f, 'GET', '/repos/alice/pub/issues/2/subscriptions', undefined)).some((u: any) => u.login === 'sam'));
    t.equal((await f.request('DELETE', '/repos/alice/pub/issues/2/subscriptions/sam', { token: sam.token })).status, 201);
    t.equal((await f.request('DELETE', '/repos/alice/pub/issues/2/subscriptions/sam', { token: sam.token })).status, 200);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/2/subscriptions/check', sam.token)).subscribed, false);
    t.same((await ok(f, 'GET', '/repos/alice/pub/assignees', undefined)).map((u: any) => u.login).sort(), ['alice', 'will']);
    t.equal((await f.request('POST', '/repos/alice/pub/issues/2/pin', { token: rita.token })).status, 403);
    await ok(f, 'POST', '/repos/alice/pub/issues/2/pin', will.token, undefined, 204);
    await ok(f, 'POST', '/repos/alice/pub/issues/1/pin', will.token, undefined, 204);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/pinned', undefined)).map((i: any) => [i.number, i.pin_order]), [[2, 1], [1, 2]]);
    await ok(f, 'PATCH', '/repos/alice/pub/issues/1/pin/1', will.token, undefined, 204);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/pinned', undefined)).map((i: any) => [i.number, i.pin_order]), [[1, 1], [2, 2]]);
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/pin', will.token, undefined, 204);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/pinned', undefined)).map((i: any) => [i.number, i.pin_order]), [[2, 1]]);
    t.same(await ok(f, 'GET', '/repos/alice/pub/new_pin_allowed', undefined), { issues: true, pull_requests: true });
    const extra = await Promise.all([0, 1, 2].map((i) => ok(f, 'POST', '/repos/alice/pub/issues', will.token, { title: `pin ${i}` }, 201)));
    await ok(f, 'POST', `/repos/alice/pub/issues/${extra[0].number}/pin`, will.token, undefined, 204);
    await ok(f, 'POST', `/repos/alice/pub/issues/${extra[1].number}/pin`, will.token, undefined, 204);
    t.same(await ok(f, 'GET', '/repos/alice/pub/new_pin_allowed', undefined), { issues: false, pull_requests: true }, 'three pinned: the default maximum');
    t.equal((await f.request('POST', `/repos/alice/pub/issues/${extra[2].number}/pin`, { token: will.token })).status, 400);
    for (const issue of extra) await ok(f, 'DELETE', `/repos/alice/pub/issues/${issue.number}`, alice.token, undefined, 204);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues/pinned', undefined)).map((i: any) => [i.number, i.pin_order]), [[2, 1]],
      'deleting pinned issues leaves the others in order');
  });

  t.test('due date route and the deprecated comment paths', async (t) => {
    t.equal((await f.request('POST', '/repos/alice/pub/issues/2/deadline', { token: rita.token, json: { due_date: '2032-01-01T00:00:00Z' } })).status, 403);
    t.same(await ok(f, 'POST', '/repos/alice/pub/issues/2/deadline', will.token, { due_date: '2032-01-01T00:00:00Z' }, 201), { due_date: '2032-01-01T00:00:00Z' });
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/2', undefined)).due_date, '2032-01-01T00:00:00Z');
    t.same(await ok(f, 'POST', '/repos/alice/pub/issues/2/deadline', will.token, { due_date: null }, 201), { due_date: null });
    const comment = await ok(f, 'POST', '/repos/alice/pub/issues/2/comments', sam.token, { body: 'old path' }, 201);
    t.equal((await ok(f, 'PATCH', `/repos/alice/pub/issues/2/comments/${comment.id}`, sam.token, { body: 'edited on the old path' })).body, 'edited on the old path');
    await ok(f, 'DELETE', `/repos/alice/pub/issues/2/comments/${comment.id}`, sam.token, undefined, 204);
    t.equal((await f.request('GET', `/repos/alice/pub/issues/comments/${comment.id}`)).status, 404);
  });

  t.test('list filters: state, type, q, created_by, assigned_by, since/before, paging', async (t) => {
    for (let i = 0; i < 5; i++) await ok(f, 'POST', '/repos/alice/pub/issues', sam.token, { title: `Paged ${i}`, body: i === 3 ? 'needle [x] 100%' : 'hay' }, 201);
    const page = await f.request('GET', '/repos/alice/pub/issues?created_by=sam&limit=2&page=2');
    t.same(page.json.map((i: any) => i.title), ['Paged 2', 'Paged 1']);
    t.equal(page.headers.get('x-total-count'), '6', 'sam opened six open issues');
    t.match(page.headers.get('link'), /rel="next"/);
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues?q=NEEDLE%20[x]%20100%25', undefined)).map((i: any) => i.title), ['Paged 3'], 'q: literal, case-insensitive');
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues?q=edited&state=all', undefined)).map((i: any) => i.number), [1], 'q matches titles');
    t.same(await ok(f, 'GET', '/repos/alice/pub/issues?q=.*', undefined), [], 'no patterns');
    t.same((await ok(f, 'GET', '/repos/alice/pub/issues?assigned_by=will&state=all', undefined)).map((i: any) => i.number), [1]);
    t.equal((await f.request('GET', '/repos/alice/pub/issues?created_by=nobody')).status, 404);
    t.same(await ok(f, 'GET', '/repos/alice/pub/issues?type=pulls', undefined), []);
    t.equal((await f.request('GET', '/repos/alice/pub/issues?state=weird')).status, 422);
    const all = await f.request('GET', '/repos/alice/pub/issues?state=all&limit=50');
    const closedOnes = await ok(f, 'GET', '/repos/alice/pub/issues?state=closed', undefined);
    t.equal(Number(all.headers.get('x-total-count')), all.json.length);
    t.equal(all.json.length - closedOnes.length, await openCount('pub'), 'open_issues_count is exact');
    t.same(await ok(f, 'GET', '/repos/alice/pub/issues?since=2100-01-01T00:00:00Z', undefined), []);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues?before=2100-01-01T00:00:00Z&state=all&limit=50', undefined)).length, all.json.length);
    const search = await f.request('GET', '/repos/issues/search?q=needle&owner=alice');
    t.same(search.json.map((i: any) => i.title), ['Paged 3']);
    t.same((await ok(f, 'GET', '/repos/issues/search?created=true&state=all', rita.token)).map((i: any) => i.repository.full_name + '#' + i.number), ['alice/pub#1']);
    t.equal((await f.request('GET', '/repos/issues/search?created=true')).status, 401);
  });

  t.test('has_issues: false turns the routes off', async (t) => {
    await ok(f, 'POST', '/user/repos', alice.token, { name: 'noissues' }, 201);
    await f.forge.store.collection('repos').updateOne({ lowerName: 'noissues' }, { $set: { hasIssues: false } });
    t.equal((await f.request('GET', '/repos/alice/noissues/issues', { token: alice.token })).status, 404);
    t.equal((await f.request('POST', '/repos/alice/noissues/issues', { token: alice.token, json: { title: 'x' } })).status, 404);
  });

  t.test('delete: repository admins only; numbers never reused', async (t) => {
    const created = await ok(f, 'POST', '/repos/alice/pub/issues', will.token, { title: 'to delete' }, 201);
    t.equal((await f.request('DELETE', `/repos/alice/pub/issues/${created.number}`, { token: will.token })).status, 403, 'writers cannot');
    const before = await openCount('pub');
    await ok(f, 'DELETE', `/repos/alice/pub/issues/${created.number}`, alice.token, undefined, 204);
    t.equal(await openCount('pub'), before - 1);
    t.equal((await f.request('GET', `/repos/alice/pub/issues/${created.number}`)).status, 404);
    const next = await ok(f, 'POST', '/repos/alice/pub/issues', will.token, { title: 'after delete' }, 201);
    t.equal(next.number, created.number + 1, 'the deleted number is not reused');
  });

  t.test('events: issue.changed and issue_comment.changed', async (t) => {
    issueEvents.length = 0;
    commentEvents.length = 0;
    const created = await ok(f, 'POST', '/repos/alice/pub/issues', rita.token, { title: 'evented', body: 'cc @will' }, 201);
    t.equal(issueEvents.length, 1, 'recorded before the reply');
    t.equal(issueEvents[0]!.action, 'opened');
    t.equal(issueEvents[0]!.number, created.number);
    t.equal(issueEvents[0]!.senderId, rita.id);
    t.same(issueEvents[0]!.mentionedIds, [will.id]);
    t.equal(issueEvents[0]!.issue.title, 'evented');
    t.equal(issueEvents[0]!.repo.name, 'pub');
    await ok(f, 'PATCH', `/repos/alice/pub/issues/${created.number}`, rita.token, { title: 'evented 2' }, 201);
    t.equal(issueEvents[1]!.action, 'edited');
    t.same(issueEvents[1]!.changes, { title: { from: 'evented' } });
    await ok(f, 'PATCH', `/repos/alice/pub/issues/${created.number}`, will.token, { state: 'closed', assignees: ['will'] }, 201);
    t.same(issueEvents.slice(2).map((e) => e.action), ['assigned', 'closed']);
    t.equal(issueEvents[2]!.assigneeId, will.id);
    const comment = await ok(f, 'POST', `/repos/alice/pub/issues/${created.number}/comments`, sam.token, { body: 'c' }, 201);
    t.equal(commentEvents.length, 1);
    t.equal(commentEvents[0]!.action, 'created');
    t.equal(commentEvents[0]!.comment.id, comment.id);
    t.equal(commentEvents[0]!.isPull, false);
    await ok(f, 'PATCH', `/repos/alice/pub/issues/comments/${comment.id}`, sam.token, { body: 'd' });
    t.same(commentEvents[1]!.changes, { body: { from: 'c' } });
    await ok(f, 'DELETE', `/repos/alice/pub/issues/comments/${comment.id}`, sam.token, undefined, 204);
    t.equal(commentEvents[2]!.action, 'deleted');
  });

  t.test('concurrency: unique increasing numbers, exact counters', async (t) => {
    await ok(f, 'POST', '/user/repos', alice.token, { name: 'busy' }, 201);
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      ok(f, 'POST', '/repos/alice/busy/issues', [alice, will, rita][i % 3]!.token, { title: `c${i}` }, 201)));
    t.same(created.map((i) => i.number).sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1), 'numbers 1..40, each once');
    t.equal(await openCount('busy'), 40);
    const ms = await ok(f, 'POST', '/repos/alice/busy/milestones', alice.token, { title: 'm' }, 201);
    await Promise.all(created.map((i) => ok(f, 'PATCH', `/repos/alice/busy/issues/${i.number}`, alice.token, { milestone: ms.id }, 201)));
    // Everyone closes the same issues at once, and some reopen: each transition counts once.
    await Promise.all([
      ...created.slice(0, 20).flatMap((i) => [1, 2, 3].map(() => f.request('PATCH', `/repos/alice/busy/issues/${i.number}`, { token: alice.token, json: { state: 'closed' } }))),
      ...created.slice(20, 25).map((i) => f.request('PATCH', `/repos/alice/busy/issues/${i.number}`, { token: alice.token, json: { milestone: 0 } })),
    ]);
    t.equal(await openCount('busy'), 20);
    const m = await ok(f, 'GET', `/repos/alice/busy/milestones/${ms.id}`, undefined);
    t.equal(m.closed_issues, 20);
    t.equal(m.open_issues, 15);
    await Promise.all(Array.from({ length: 30 }, (_, i) => ok(f, 'POST', '/repos/alice/busy/issues/40/comments', [sam, rita][i % 2]!.token, { body: `n${i}` }, 201)));
    t.equal((await ok(f, 'GET', '/repos/alice/busy/issues/40', undefined)).comments, 30);
    const comments = await ok(f, 'GET', '/repos/alice/busy/issues/40/comments', undefined);
    await Promise.all(comments.slice(0, 10).flatMap((c: any) => [1, 2].map(() => f.request('DELETE', `/repos/alice/busy/issues/comments/${c.id}`, { token: alice.token }))));
    t.equal((await ok(f, 'GET', '/repos/alice/busy/issues/40', undefined)).comments, 20, 'each delete counted once');
  });

  t.test('deleting a repository removes its issues; numbers restart only for a new repository', async (t) => {
    await ok(f, 'DELETE', '/repos/alice/busy', alice.token, undefined, 204);
    await ok(f, 'POST', '/user/repos', alice.token, { name: 'busy' }, 201);
    t.equal((await ok(f, 'POST', '/repos/alice/busy/issues', alice.token, { title: 'new repo' }, 201)).number, 1);
    t.equal(await openCount('busy'), 1);
  });
});
