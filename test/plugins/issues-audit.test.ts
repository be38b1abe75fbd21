// issues plugin, audit of issue 17: the requirements the main issues test does not prove on its own — `has_issues`
// switched through the repository API, comments' since/before, reactions on locked issues, the label/milestone/lock/pin
// events, and /repos/issues/search's filters (labels, milestones, type, since/before, assigned/mentioned) without
// private-repository leaks in rows or X-Total-Count.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { UNITS_OFF } from '../../plugins/issues/service.js';
import type { IssueEvent } from '../../schemas/events.js';
import { startForge, jsonCaller, type TestForge } from '../helpers/forge.js';

const issueEvents: IssueEvent[] = [];
const recorder = definePlugin({
  name: 'issue-audit-recorder',
  dependencies: ['issues'],
  start(ctx) {
    ctx.events.on('issue.changed', (e) => { issueEvents.push(e); });
  },
});

const ok = (f: TestForge, ...call: Parameters<ReturnType<typeof jsonCaller>>) => jsonCaller(f)(...call);

t.test('issues audit', async (t) => {
  const f = await startForge({ extraPlugins: [recorder] });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' }); // owner
  const will = await f.createUser({ username: 'will' }); // writer
  const sam = await f.createUser({ username: 'sam' }); // stranger
  await ok(f, 'POST', '/user/repos', alice.token, { name: 'pub' }, 201);
  await ok(f, 'POST', '/user/repos', alice.token, { name: 'secret', private: true }, 201);
  await ok(f, 'PUT', '/repos/alice/pub/collaborators/will', alice.token, { permission: 'write' }, 204);
  const names = (list: any[]) => list.map((i: any) => `${i.repository.full_name}#${i.number}`);

  t.test('has_issues switched through PATCH /repos turns every issue route off and on', async (t) => {
    await ok(f, 'POST', '/user/repos', alice.token, { name: 'toggle' }, 201);
    await ok(f, 'POST', '/repos/alice/toggle/issues', alice.token, { title: 'before the switch' }, 201);
    const off = await ok(f, 'PATCH', '/repos/alice/toggle', alice.token, { has_issues: false });
    t.equal(off.has_issues, false);
    for (const [method, path] of [['GET', '/repos/alice/toggle/issues'], ['GET', '/repos/alice/toggle/issues/1'],
      ['GET', '/repos/alice/toggle/labels'], ['GET', '/repos/alice/toggle/milestones'], ['GET', '/repos/alice/toggle/issues/1/comments']] as const) {
      t.equal((await f.request(method, path, { token: alice.token })).status, 404, `${method} ${path}`);
    }
    t.equal((await f.request('POST', '/repos/alice/toggle/issues', { token: alice.token, json: { title: 'x' } })).status, 404);
    const on = await ok(f, 'PATCH', '/repos/alice/toggle', alice.token, { has_issues: true });
    t.equal(on.has_issues, true);
    t.equal((await ok(f, 'GET', '/repos/alice/toggle/issues/1', undefined)).title, 'before the switch', 'issues kept while off');
  });

  t.test('comments: since/before per issue and per repository', async (t) => {
    await ok(f, 'POST', '/repos/alice/pub/issues', alice.token, { title: 'commented' }, 201);
    const c = await ok(f, 'POST', '/repos/alice/pub/issues/1/comments', sam.token, { body: 'one' }, 201);
    for (const path of ['/repos/alice/pub/issues/1/comments', '/repos/alice/pub/issues/comments']) {
      t.same(await ok(f, 'GET', `${path}?since=2100-01-01T00:00:00Z`, undefined), [], `${path} since the future`);
      t.same(await ok(f, 'GET', `${path}?before=2000-01-01T00:00:00Z`, undefined), [], `${path} before the past`);
      const window = await f.request('GET', `${path}?since=2000-01-01T00:00:00Z&before=2100-01-01T00:00:00Z`);
      t.same(window.json.map((x: any) => x.id), [c.id], `${path} inside the window`);
      t.equal(window.headers.get('x-total-count'), '1');
      t.equal((await f.request('GET', `${path}?since=yesterday`)).status, 422, 'a date-time or nothing');
    }
  });

  t.test('reactions on a locked issue: writers only', async (t) => {
    await ok(f, 'PUT', '/repos/alice/pub/issues/1/lock', will.token, { lock_reason: 'spam' }, 204);
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/reactions', { token: sam.token, json: { content: 'laugh' } })).status, 403);
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/reactions', { token: will.token, json: { content: 'laugh' } })).status, 201);
    t.equal((await f.request('PUT', '/repos/alice/pub/issues/1/lock', { token: sam.token, json: {} })).status, 403, 'strangers cannot lock');
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/lock', will.token, undefined, 204);
    t.equal((await ok(f, 'GET', '/repos/alice/pub/issues/1', undefined)).is_locked, false);
    t.equal((await f.request('POST', '/repos/alice/pub/issues/1/reactions', { token: sam.token, json: { content: 'laugh' } })).status, 201);
  });

  t.test('label, milestone, lock and pin changes are events', async (t) => {
    const label = await ok(f, 'POST', '/repos/alice/pub/labels', will.token, { name: 'ev', color: '#abcdef' }, 201);
    const ms = await ok(f, 'POST', '/repos/alice/pub/milestones', will.token, { title: 'evm' }, 201);
    issueEvents.length = 0;
    await ok(f, 'POST', '/repos/alice/pub/issues/1/labels', will.token, { labels: [label.id] });
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/labels', will.token, undefined, 204);
    await ok(f, 'PATCH', '/repos/alice/pub/issues/1', will.token, { milestone: ms.id }, 201);
    await ok(f, 'PATCH', '/repos/alice/pub/issues/1', will.token, { milestone: 0 }, 201);
    await ok(f, 'PUT', '/repos/alice/pub/issues/1/lock', will.token, {}, 204);
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/lock', will.token, undefined, 204);
    await ok(f, 'POST', '/repos/alice/pub/issues/1/pin', will.token, undefined, 204);
    await ok(f, 'DELETE', '/repos/alice/pub/issues/1/pin', will.token, undefined, 204);
    t.same(issueEvents.map((e) => e.action),
      ['label_updated', 'label_cleared', 'milestoned', 'demilestoned', 'locked', 'unlocked', 'pinned', 'unpinned']);
    t.ok(issueEvents.every((e) => e.number === 1 && e.senderId === will.id), 'each names the issue and the sender');
  });

  t.test('/repos/issues/search: filters and no private leaks', async (t) => {
    // Private issues whose text matches everything a stranger could ask for.
    await ok(f, 'POST', '/repos/alice/secret/issues', alice.token, { title: 'zebra secret @sam', body: 'zebra' }, 201);
    const secretLabel = await ok(f, 'POST', '/repos/alice/secret/labels', alice.token, { name: 'shared', color: '#111111' }, 201);
    await ok(f, 'POST', '/repos/alice/secret/milestones', alice.token, { title: 'shared-ms' }, 201);
    await ok(f, 'PATCH', '/repos/alice/secret/issues/1', alice.token, { assignees: ['alice'] }, 201);
    await ok(f, 'POST', '/repos/alice/secret/issues/1/labels', alice.token, { labels: [secretLabel.id] });
    const pubLabel = await ok(f, 'POST', '/repos/alice/pub/labels', will.token, { name: 'shared', color: '#222222' }, 201);
    const pubMs = await ok(f, 'POST', '/repos/alice/pub/milestones', will.token, { title: 'shared-ms' }, 201);
    const zebra = await ok(f, 'POST', '/repos/alice/pub/issues', will.token, { title: 'zebra public', body: 'ping @sam' }, 201);
    await ok(f, 'POST', `/repos/alice/pub/issues/${zebra.number}/labels`, will.token, { labels: [pubLabel.id] });
    await ok(f, 'PATCH', `/repos/alice/pub/issues/${zebra.number}`, will.token, { milestone: pubMs.id, assignees: ['will'] }, 201);
    const secretMs = (await ok(f, 'GET', '/repos/alice/secret/milestones', alice.token))[0];
    await ok(f, 'PATCH', '/repos/alice/secret/issues/1', alice.token, { milestone: secretMs.id }, 201);

    const pub = `alice/pub#${zebra.number}`;
    for (const [who, token] of [['anonymous', undefined], ['stranger', sam.token]] as const) {
      for (const query of ['q=zebra', 'labels=shared', 'milestones=shared-ms', 'owner=alice&q=zebra', 'q=secret', 'state=all&limit=50']) {
        const res = await f.request('GET', `/repos/issues/search?${query}`, { token });
        t.equal(res.status, 200);
        t.notOk(names(res.json).some((n) => n.startsWith('alice/secret')), `${who} ${query}: no private rows`);
        t.equal(Number(res.headers.get('x-total-count')), res.json.length, `${who} ${query}: not counted either`);
      }
    }
    t.same(names(await ok(f, 'GET', '/repos/issues/search?q=zebra', sam.token)), [pub]);
    t.same(names(await ok(f, 'GET', '/repos/issues/search?q=zebra', alice.token)).sort(), [pub, 'alice/secret#1'].sort(), 'the owner sees both');
    t.same(names(await ok(f, 'GET', '/repos/issues/search?labels=shared', alice.token)).sort(), [pub, 'alice/secret#1'].sort(), 'labels by name');
    t.same(names(await ok(f, 'GET', '/repos/issues/search?milestones=shared-ms', alice.token)).sort(), [pub, 'alice/secret#1'].sort(), 'milestones by name');
    t.same(names(await ok(f, 'GET', '/repos/issues/search?mentioned=true', sam.token)), [pub], 'mentioned: only what sam can read');
    t.same(names(await ok(f, 'GET', '/repos/issues/search?assigned=true', will.token)), [pub]);
    t.same(await ok(f, 'GET', '/repos/issues/search?type=pulls&q=zebra', alice.token), [], 'type=pulls: no issues');
    t.same(names(await ok(f, 'GET', '/repos/issues/search?type=issues&q=zebra&owner=alice', sam.token)), [pub]);
    t.same(await ok(f, 'GET', '/repos/issues/search?q=zebra&since=2100-01-01T00:00:00Z', alice.token), [], 'since');
    t.same(await ok(f, 'GET', '/repos/issues/search?q=zebra&before=2000-01-01T00:00:00Z', alice.token), [], 'before');
    t.equal((await ok(f, 'GET', '/repos/issues/search?q=zebra&since=2000-01-01T00:00:00Z&before=2100-01-01T00:00:00Z', alice.token)).length, 2);
    t.equal((await f.request('GET', '/repos/issues/search?mentioned=true')).status, 401, 'mentioned needs a caller');
  });

  t.test('private repository: the remaining routes answer 404 to strangers; site admins moderate', async (t) => {
    const issue = await ok(f, 'POST', '/repos/alice/secret/issues', alice.token, { title: 'private routes' }, 201);
    const n = issue.number;
    const comment = await ok(f, 'POST', `/repos/alice/secret/issues/${n}/comments`, alice.token, { body: 'private comment' }, 201);
    const label = await ok(f, 'POST', '/repos/alice/secret/labels', alice.token, { name: 'p', color: '#333333' }, 201);
    const ms = await ok(f, 'POST', '/repos/alice/secret/milestones', alice.token, { title: 'pm' }, 201);
    for (const [method, path, json] of [
      ['GET', `/repos/alice/secret/issues/comments/${comment.id}`, undefined],
      ['PATCH', `/repos/alice/secret/issues/comments/${comment.id}`, { body: 'x' }],
      ['DELETE', `/repos/alice/secret/issues/comments/${comment.id}`, undefined],
      ['GET', `/repos/alice/secret/issues/comments/${comment.id}/reactions`, undefined],
      ['POST', `/repos/alice/secret/issues/comments/${comment.id}/reactions`, { content: '+1' }],
      ['POST', `/repos/alice/secret/issues/${n}/reactions`, { content: '+1' }],
      ['GET', `/repos/alice/secret/issues/${n}/labels`, undefined],
      ['POST', `/repos/alice/secret/issues/${n}/labels`, { labels: [label.id] }],
      ['GET', `/repos/alice/secret/labels/${label.id}`, undefined],
      ['GET', `/repos/alice/secret/milestones/${ms.id}`, undefined],
      ['GET', '/repos/alice/secret/milestones/pm', undefined],
      ['GET', `/repos/alice/secret/issues/${n}/subscriptions`, undefined],
      ['GET', `/repos/alice/secret/issues/${n}/subscriptions/check`, undefined],
      ['PUT', `/repos/alice/secret/issues/${n}/subscriptions/sam`, undefined],
      ['PUT', `/repos/alice/secret/issues/${n}/lock`, {}],
      ['POST', `/repos/alice/secret/issues/${n}/pin`, undefined],
      ['POST', `/repos/alice/secret/issues/${n}/deadline`, { due_date: null }],
      ['GET', '/repos/alice/secret/new_pin_allowed', undefined],
    ] as const) {
      const res = await f.request(method, path, { token: sam.token, ...(json ? { json } : {}) });
      t.equal(res.status, 404, `stranger ${method} ${path}`);
      // Anonymous: 404, or 401 where the route needs a signed-in caller before anything else (subscriptions/check).
      if (method === 'GET') t.ok([401, 404].includes((await f.request(method, path)).status), `anonymous ${method} ${path}`);
    }
    // Site admins moderate: edit and delete anyone's comment, comment on a locked issue.
    await ok(f, 'PUT', `/repos/alice/secret/issues/${n}/lock`, alice.token, {}, 204);
    const admin = f.admin;
    await ok(f, 'POST', `/repos/alice/secret/issues/${n}/comments`, admin.token, { body: 'moderator here' }, 201);
    t.equal((await ok(f, 'PATCH', `/repos/alice/secret/issues/comments/${comment.id}`, admin.token, { body: 'moderated' })).body, 'moderated');
    await ok(f, 'DELETE', `/repos/alice/secret/issues/comments/${comment.id}`, admin.token, undefined, 204);
    t.equal((await ok(f, 'GET', `/repos/alice/secret/issues/${n}`, alice.token)).comments, 1);
  });

  t.test('has_issues: false repositories drop out of /repos/issues/search', async (t) => {
    await ok(f, 'POST', '/repos/alice/toggle/issues', alice.token, { title: 'quagga hidden' }, 201);
    t.equal((await ok(f, 'GET', '/repos/issues/search?q=quagga', alice.token)).length, 1);
    await ok(f, 'PATCH', '/repos/alice/toggle', alice.token, { has_issues: false });
    const res = await f.request('GET', '/repos/issues/search?q=quagga', { token: alice.token });
    t.same(res.json, []);
    t.equal(res.headers.get('x-total-count'), '0');
    await ok(f, 'PATCH', '/repos/alice/toggle', alice.token, { has_issues: true });
    const back = await f.request('GET', '/repos/issues/search?q=quagga', { token: alice.token });
    t.equal(back.json.length, 1, 'switched on again: its issues are searched again');
    t.equal(back.headers.get('x-total-count'), '1');
    await ok(f, 'PATCH', '/repos/alice/toggle', alice.token, { has_issues: false });
    t.same(await ok(f, 'GET', '/repos/issues/search?q=quagga', alice.token), [], 'and off again');
  });
});

t.test('a repository switched off before issue_units_off existed is recorded at the next start', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-issues-units-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let f = await startForge({ dataDir });
  const alice = await f.createUser({ username: 'alice' });
  await ok(f, 'POST', '/user/repos', alice.token, { name: 'old' }, 201);
  await ok(f, 'POST', '/repos/alice/old/issues', alice.token, { title: 'okapi' }, 201);
  // What a store written before the collection existed holds: the flag on the repository, no record, no marker.
  await f.forge.store.collection('repos').updateOne({ lowerName: 'old' }, { $set: { hasIssues: false } });
  await f.forge.store.collection(UNITS_OFF).deleteMany({});
  t.equal((await ok(f, 'GET', '/repos/issues/search?q=okapi', alice.token)).length, 1, 'not known yet');
  await f.close();
  f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const res = await f.request('GET', '/repos/issues/search?q=okapi', { token: alice.token });
  t.same(res.json, [], 'recorded at start');
  t.equal(res.headers.get('x-total-count'), '0');
});
