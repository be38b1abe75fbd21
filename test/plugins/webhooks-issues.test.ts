// Webhooks driven by the real issues plugin: a repository hook on a real receiver, then issues, edits, state changes,
// labels, milestones, assignees and comments through the HTTP API. Every delivery is checked against Gitea's headers,
// signatures and payloads (modules/structs/hook.go IssuePayload / IssueCommentPayload; services/webhook/notifier.go
// for which event type and action each change is sent under). A hook subscribed to `issues_only` gets nothing else;
// a pull request's events and comments go to a `pull_request` hook only.
import { createHmac } from 'node:crypto';
import t, { type Test } from 'tap';
import type { WebhooksService } from '../../schemas/contracts/webhooks.js';
import { startForge, checkStatus } from '../helpers/forge.js';
import { Receiver, type Received } from '../helpers/receiver.js';

const SECRET = 'issue-secret';
const ISSUE_FIELDS = ['action', 'number', 'issue', 'repository', 'sender', 'commit_id'];
const COMMENT_FIELDS = ['action', 'issue', 'comment', 'repository', 'sender', 'is_pull'];
const PULL_FIELDS = ['action', 'number', 'pull_request', 'requested_reviewer', 'repository', 'sender', 'commit_id', 'review'];
const USER_FIELDS = ['id', 'login', 'full_name', 'email', 'avatar_url', 'username'];

/** Gitea's headers (X-Gitea-*, X-Gogs-*, X-GitHub-*) and signatures for one delivery; returns the parsed payload. */
function check(t: Test, r: Received, event: string, eventType: string): any {
  const h = r.headers;
  t.equal(r.method, 'POST');
  t.equal(h['content-type'], 'application/json');
  t.equal(h['x-gitea-event'], event, `X-Gitea-Event ${event}`);
  t.equal(h['x-gitea-event-type'], eventType, `X-Gitea-Event-Type ${eventType}`);
  t.equal(h['x-github-event'], event, 'X-GitHub-Event');
  t.equal(h['x-github-event-type'], eventType);
  t.equal(h['x-gogs-event'], event);
  const sha256 = createHmac('sha256', SECRET).update(r.body).digest('hex');
  t.equal(h['x-gitea-signature'], sha256, 'HMAC-SHA256 of the body');
  t.equal(h['x-hub-signature-256'], `sha256=${sha256}`);
  t.equal(h['x-hub-signature'], `sha1=${createHmac('sha1', SECRET).update(r.body).digest('hex')}`);
  const p = JSON.parse(r.body);
  const fields = event === 'issue_comment' ? COMMENT_FIELDS : event === 'pull_request' ? PULL_FIELDS : ISSUE_FIELDS;
  for (const k of fields) t.ok(k in p, `${eventType} payload has ${k}`);
  t.same(Object.keys(p).filter((k) => !fields.includes(k) && k !== 'changes'), [], `${eventType} payload has no field Gitea lacks`);
  for (const k of USER_FIELDS) t.ok(k in p.sender, `sender.${k}`);
  for (const k of ['labels', 'milestone', 'assignees', 'assignee', 'state', 'title', 'body', 'number', 'user']) {
    t.ok(k in (p.issue ?? p.pull_request), `issue.${k}`);
  }
  if (p.issue) t.ok('repository' in p.issue, 'issue.repository');
  return p;
}

t.test('webhooks from the issues plugin', async (t) => {
  const rx = await new Receiver().start();
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } as any });
  t.teardown(async () => {
    await f.close();
    await rx.close();
  });
  const alice = await f.createUser();
  const bob = await f.createUser();
  const repo = (await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'tracker', auto_init: true, readme: 'Default' } })).json;
  const api = `/repos/${repo.full_name}`;
  t.equal((await f.request('PUT', `${api}/collaborators/${bob.username}`, { token: alice.token, json: { permission: 'write' } })).status, 204);
  const mkHook = async (path: string, events: string[]) => {
    const res = await f.request('POST', `${api}/hooks`, {
      token: alice.token, json: { type: 'gitea', active: true, events, config: { url: `${rx.url}/${path}`, content_type: 'json', secret: SECRET } },
    });
    t.equal(res.status, 201, res.text);
    return res.json;
  };
  const all = await mkHook('all', ['issues', 'issue_comment', 'issue_label', 'issue_milestone', 'issue_assign']);
  t.same(all.events, ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment']);
  const only = await mkHook('only', ['issues_only']);
  t.same(only.events, ['issues']);
  const webhooks = f.forge.service<WebhooksService>('webhooks');

  /**
   * Runs `action` and returns the deliveries it caused: `n` to the full hook and `m` to the issues-only hook (all
   * queued deliveries are sent before the counts are checked, so an extra one fails loudly).
   */
  const deliveries = async (action: () => Promise<unknown>, n: number, m: number, k = 0): Promise<{ all: Received[]; only: Received[]; prs: Received[] }> => {
    const start = rx.received.length;
    await action();
    await rx.count(start + n + m + k);
    await webhooks.idle();
    const got = rx.received.slice(start);
    t.equal(got.length, n + m + k, `exactly ${n + m + k} deliveries`);
    const to = (url: string) => got.filter((r) => r.url === url);
    t.same([to('/all').length, to('/only').length, to('/prs').length], [n, m, k], 'per hook');
    return { all: to('/all'), only: to('/only'), prs: to('/prs') };
  };
  const ok = checkStatus;

  let number = 0;
  let issueId = 0;

  t.test('open: issues/opened to both hooks', async (t) => {
    let created: any;
    const d = await deliveries(async () => {
      created = ok(await f.request('POST', `${api}/issues`, { token: alice.token, json: { title: 'it breaks', body: 'steps' } }), 201).json;
    }, 1, 1);
    number = created.number;
    issueId = created.id;
    const p = check(t, d.all[0]!, 'issues', 'issues');
    t.match(p, { action: 'opened', number, commit_id: '', issue: { id: issueId, number, title: 'it breaks', body: 'steps', state: 'open', labels: [], milestone: null, assignees: null } });
    t.notOk('changes' in p, 'no changes on open');
    t.equal(p.repository.full_name, repo.full_name);
    t.equal(p.sender.login, alice.username);
    t.equal(p.issue.user.login, alice.username);
    t.same(JSON.parse(d.only[0]!.body), p, 'the issues-only hook gets the same payload');
    t.same(p.issue, ok(await f.request('GET', `${api}/issues/${number}`), 200).json, 'the issue is the API Issue as an anonymous reader sees it');
  });

  t.test('edit title, then body: edited with changes.*.from', async (t) => {
    const d1 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: bob.token, json: { title: 'it really breaks' } }).then((r) => ok(r, 201)), 1, 1);
    const p1 = check(t, d1.all[0]!, 'issues', 'issues');
    t.match(p1, { action: 'edited', number, changes: { title: { from: 'it breaks' } }, issue: { title: 'it really breaks' } });
    t.notOk('body' in p1.changes, 'only the title changed');
    t.equal(p1.sender.login, bob.username, 'the sender is the editor');
    const d2 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { body: 'more steps' } }).then((r) => ok(r, 201)), 1, 1);
    const p2 = check(t, d2.all[0]!, 'issues', 'issues');
    t.match(p2, { action: 'edited', changes: { body: { from: 'steps' } }, issue: { body: 'more steps' } });
    t.notOk('title' in p2.changes);
    await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { body: 'more steps' } }).then((r) => ok(r, 201)), 0, 0);
    // Title and body at once: two deliveries, title first, each with its own changes (Gitea's EditIssue order).
    const d3 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { title: 'it breaks badly', body: 'all steps' } }).then((r) => ok(r, 201)), 2, 2);
    const [t3, b3] = d3.all.map((r) => check(t, r, 'issues', 'issues'));
    t.same(t3.changes, { title: { from: 'it really breaks' } });
    t.same(b3.changes, { body: { from: 'more steps' } });
    t.match(b3.issue, { title: 'it breaks badly', body: 'all steps' });
    t.same(d3.only.map((r) => JSON.parse(r.body).changes), [t3.changes, b3.changes], 'same order on the other hook');
    // A ref change alone: Gitea sends no webhook for it.
    await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { ref: 'refs/heads/fix' } }).then((r) => ok(r, 201)), 0, 0);
  });

  t.test('close and reopen', async (t) => {
    const d1 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { state: 'closed' } }).then((r) => ok(r, 201)), 1, 1);
    t.match(check(t, d1.all[0]!, 'issues', 'issues'), { action: 'closed', number, issue: { state: 'closed', closed_at: /^\d{4}-/ } });
    const d2 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { state: 'open' } }).then((r) => ok(r, 201)), 1, 1);
    t.match(check(t, d2.all[0]!, 'issues', 'issues'), { action: 'reopened', number, issue: { state: 'open', closed_at: null } });
  });

  t.test('labels: issues/issue_label, label_updated and label_cleared, not to the issues-only hook', async (t) => {
    const bug = ok(await f.request('POST', `${api}/labels`, { token: alice.token, json: { name: 'bug', color: '#ee0701' } }), 201).json;
    const ui = ok(await f.request('POST', `${api}/labels`, { token: alice.token, json: { name: 'ui', color: '00aabb' } }), 201).json;
    const d1 = await deliveries(() => f.request('POST', `${api}/issues/${number}/labels`, { token: alice.token, json: { labels: [bug.id, ui.id] } }).then((r) => ok(r, 200)), 1, 0);
    const p1 = check(t, d1.all[0]!, 'issues', 'issue_label');
    t.match(p1, { action: 'label_updated', number });
    t.same(p1.issue.labels.map((l: any) => l.name), ['bug', 'ui']);
    t.match(p1.issue.labels[0], { id: bug.id, name: 'bug', color: 'ee0701' });
    const d2 = await deliveries(() => f.request('DELETE', `${api}/issues/${number}/labels/${ui.id}`, { token: alice.token }).then((r) => ok(r, 204)), 1, 0);
    const p2 = check(t, d2.all[0]!, 'issues', 'issue_label');
    t.match(p2, { action: 'label_updated' });
    t.same(p2.issue.labels.map((l: any) => l.name), ['bug']);
    // Removing the last label one by one is still label_updated (Gitea's IssueChangeLabels); only the clear route
    // (DELETE …/labels) is label_cleared (IssueClearLabels).
    const d2b = await deliveries(() => f.request('PUT', `${api}/issues/${number}/labels`, { token: alice.token, json: { labels: [] } }).then((r) => ok(r, 200)), 1, 0);
    const p2b = check(t, d2b.all[0]!, 'issues', 'issue_label');
    t.match(p2b, { action: 'label_updated' });
    t.same(p2b.issue.labels, []);
    await deliveries(() => f.request('PUT', `${api}/issues/${number}/labels`, { token: alice.token, json: { labels: [bug.id] } }).then((r) => ok(r, 200)), 1, 0);
    const d3 = await deliveries(() => f.request('DELETE', `${api}/issues/${number}/labels`, { token: alice.token }).then((r) => ok(r, 204)), 1, 0);
    const p3 = check(t, d3.all[0]!, 'issues', 'issue_label');
    t.match(p3, { action: 'label_cleared' });
    t.same(p3.issue.labels, []);
  });

  t.test('milestone: issue_milestone milestoned / demilestoned', async (t) => {
    const ms = ok(await f.request('POST', `${api}/milestones`, { token: alice.token, json: { title: 'v1', description: 'first' } }), 201).json;
    const d1 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { milestone: ms.id } }).then((r) => ok(r, 201)), 1, 0);
    const p1 = check(t, d1.all[0]!, 'issues', 'issue_milestone');
    t.match(p1, { action: 'milestoned', number, issue: { milestone: { id: ms.id, title: 'v1', description: 'first', state: 'open' } } });
    const d2 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { milestone: 0 } }).then((r) => ok(r, 201)), 1, 0);
    const p2 = check(t, d2.all[0]!, 'issues', 'issue_milestone');
    t.match(p2, { action: 'demilestoned', number });
    t.equal(p2.issue.milestone, null);
  });

  t.test('assignees: issue_assign assigned / unassigned', async (t) => {
    const d1 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { assignees: [bob.username] } }).then((r) => ok(r, 201)), 1, 0);
    const p1 = check(t, d1.all[0]!, 'issues', 'issue_assign');
    t.match(p1, { action: 'assigned', number, issue: { assignee: { login: bob.username } } });
    t.same(p1.issue.assignees.map((u: any) => u.login), [bob.username]);
    const d2 = await deliveries(() => f.request('PATCH', `${api}/issues/${number}`, { token: alice.token, json: { assignees: [] } }).then((r) => ok(r, 201)), 1, 0);
    const p2 = check(t, d2.all[0]!, 'issues', 'issue_assign');
    t.match(p2, { action: 'unassigned', number });
    t.notOk(p2.issue.assignees?.length, 'no assignees left');
    t.equal(p2.issue.assignee, null);
  });

  t.test('comments: issue_comment created / edited / deleted, none to the issues-only hook', async (t) => {
    let comment: any;
    const d1 = await deliveries(async () => {
      comment = ok(await f.request('POST', `${api}/issues/${number}/comments`, { token: bob.token, json: { body: 'me too' } }), 201).json;
    }, 1, 0);
    const p1 = check(t, d1.all[0]!, 'issue_comment', 'issue_comment');
    t.match(p1, { action: 'created', is_pull: false, issue: { number, id: issueId }, comment: { id: comment.id, body: 'me too', user: { login: bob.username } } });
    t.notOk('changes' in p1);
    t.equal(p1.sender.login, bob.username);
    t.equal(comment.user.email, bob.email, 'the poster sees their own email in the reply');
    t.same(p1.comment, ok(await f.request('GET', `${api}/issues/comments/${comment.id}`), 200).json, 'the comment is the API Comment as an anonymous reader sees it (no email)');
    const d2 = await deliveries(() => f.request('PATCH', `${api}/issues/comments/${comment.id}`, { token: bob.token, json: { body: 'me too, on Linux' } }).then((r) => ok(r, 200)), 1, 0);
    const p2 = check(t, d2.all[0]!, 'issue_comment', 'issue_comment');
    t.match(p2, { action: 'edited', is_pull: false, changes: { body: { from: 'me too' } }, comment: { id: comment.id, body: 'me too, on Linux' } });
    const d3 = await deliveries(() => f.request('DELETE', `${api}/issues/comments/${comment.id}`, { token: alice.token }).then((r) => ok(r, 204)), 1, 0);
    const p3 = check(t, d3.all[0]!, 'issue_comment', 'issue_comment');
    t.match(p3, { action: 'deleted', is_pull: false, comment: { id: comment.id, body: 'me too, on Linux' } });
    t.equal(p3.sender.login, alice.username);
  });

  t.test('a pull request: pull_request opened/edited, pull_request_comment with is_pull, nothing to the issue hooks', async (t) => {
    await mkHook('prs', ['pull_request']);
    ok(await f.request('POST', `${api}/contents/feature.txt`, {
      token: alice.token, json: { content: Buffer.from('feature\n').toString('base64'), message: 'feature', new_branch: 'feature' },
    }), 201);
    let pr: any;
    const d1 = await deliveries(async () => {
      pr = ok(await f.request('POST', `${api}/pulls`, { token: alice.token, json: { head: 'feature', base: 'master', title: 'Add feature' } }), 201).json;
    }, 0, 0, 1);
    const p1 = check(t, d1.prs[0]!, 'pull_request', 'pull_request');
    t.match(p1, { action: 'opened', number: pr.number, pull_request: { number: pr.number, title: 'Add feature', head: { ref: 'feature' }, base: { ref: 'master' } } });
    const d2 = await deliveries(() => f.request('PATCH', `${api}/pulls/${pr.number}`, { token: alice.token, json: { title: 'Add the feature' } }).then((r) => ok(r, 201)), 0, 0, 1);
    t.match(check(t, d2.prs[0]!, 'pull_request', 'pull_request'), { action: 'edited', changes: { title: { from: 'Add feature' } }, pull_request: { title: 'Add the feature' } });
    const d2b = await deliveries(() => f.request('PATCH', `${api}/pulls/${pr.number}`, { token: alice.token, json: { title: 'Add a feature', body: 'why' } }).then((r) => ok(r, 201)), 0, 0, 2);
    t.same(d2b.prs.map((r) => check(t, r, 'pull_request', 'pull_request').changes), [{ title: { from: 'Add the feature' } }, { body: { from: '' } }], 'title and body: two deliveries');
    let comment: any;
    const d3 = await deliveries(async () => {
      comment = ok(await f.request('POST', `${api}/issues/${pr.number}/comments`, { token: bob.token, json: { body: 'looks good' } }), 201).json;
    }, 0, 0, 1);
    const p3 = check(t, d3.prs[0]!, 'issue_comment', 'pull_request_comment');
    t.match(p3, { action: 'created', is_pull: true, issue: { number: pr.number, pull_request: { merged: false } }, comment: { id: comment.id, body: 'looks good' } });

    // The issue half of a pull request, changed through the issue routes: pull_request_label/_milestone/_assign and
    // pull_request closed (Gitea's notifier sends IssueChange* of a pull as pull_request_*), never an issues event.
    const label = ok(await f.request('POST', `${api}/labels`, { token: alice.token, json: { name: 'review-me', color: '#00aabb' } }), 201).json;
    const ms = ok(await f.request('POST', `${api}/milestones`, { token: alice.token, json: { title: 'v2' } }), 201).json;
    const d4 = await deliveries(() => f.request('POST', `${api}/issues/${pr.number}/labels`, { token: alice.token, json: { labels: [label.id] } }).then((r) => ok(r, 200)), 0, 0, 1);
    const p4 = check(t, d4.prs[0]!, 'pull_request', 'pull_request_label');
    t.match(p4, { action: 'label_updated', number: pr.number, pull_request: { number: pr.number, labels: [{ id: label.id, name: 'review-me' }] } });
    const d5 = await deliveries(() => f.request('DELETE', `${api}/issues/${pr.number}/labels`, { token: alice.token }).then((r) => ok(r, 204)), 0, 0, 1);
    t.match(check(t, d5.prs[0]!, 'pull_request', 'pull_request_label'), { action: 'label_cleared', pull_request: { labels: [] } });
    const d6 = await deliveries(() => f.request('PATCH', `${api}/issues/${pr.number}`, { token: alice.token, json: { milestone: ms.id, assignees: [bob.username] } }).then((r) => ok(r, 201)), 0, 0, 2);
    t.same(d6.prs.map((r) => r.headers['x-gitea-event-type']), ['pull_request_assign', 'pull_request_milestone'], 'assignees, then milestone (Gitea EditIssue order)');
    t.match(JSON.parse(d6.prs[0]!.body), { action: 'assigned', pull_request: { assignees: [{ login: bob.username }] } });
    t.match(JSON.parse(d6.prs[1]!.body), { action: 'milestoned', pull_request: { milestone: { id: ms.id, title: 'v2' } } });
    const d7 = await deliveries(() => f.request('PATCH', `${api}/issues/${pr.number}`, { token: alice.token, json: { state: 'closed' } }).then((r) => ok(r, 201)), 0, 0, 1);
    t.match(check(t, d7.prs[0]!, 'pull_request', 'pull_request'), { action: 'closed', pull_request: { state: 'closed', merged: false } });

    // One PATCH /pulls changing everything: one delivery per change, in Gitea's EditPullRequest order (title, body,
    // assignees, milestone, labels, state).
    const d8 = await deliveries(() => f.request('PATCH', `${api}/pulls/${pr.number}`, {
      token: alice.token, json: { state: 'open', labels: [label.id], milestone: 0, assignees: [], body: 'why not', title: 'Add features' },
    }).then((r) => ok(r, 201)), 0, 0, 6);
    t.same(d8.prs.map((r) => `${r.headers['x-gitea-event-type']}:${JSON.parse(r.body).action}`), [
      'pull_request:edited', 'pull_request:edited', 'pull_request_assign:unassigned', 'pull_request_milestone:demilestoned',
      'pull_request_label:label_updated', 'pull_request:reopened',
    ], 'Gitea order');
    t.same(d8.prs.slice(0, 2).map((r) => JSON.parse(r.body).changes), [{ title: { from: 'Add a feature' } }, { body: { from: 'why' } }]);
    for (const r of d8.prs) check(t, r, 'pull_request', String(r.headers['x-gitea-event-type']));
    t.match(JSON.parse(d8.prs[5]!.body), { action: 'reopened', pull_request: { state: 'open', title: 'Add features', body: 'why not', milestone: null, assignees: null } });
  });

  t.test('deliveries are recorded per hook, none pending', async (t) => {
    const store = f.forge.store.collection('webhook_deliveries');
    t.equal(await store.count({ hookId: all.id, state: 'pending' }), 0);
    t.equal(await store.count({ hookId: only.id, state: 'pending' }), 0);
    t.equal(await store.count({ hookId: only.id }), 7, 'issues-only: opened, four edits, closed, reopened, nothing else');
  });
});
