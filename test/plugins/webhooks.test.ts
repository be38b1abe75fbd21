// webhooks plugin through HTTP with a real receiver on 127.0.0.1: hook CRUD in the four scopes and who may use them,
// Gitea's headers and signatures, every event type's payload against Gitea's structures, branch filters, retries in
// order, delivery history and redelivery, refused targets, and secrets that never come back.
import { createHmac } from 'node:crypto';
import { rm } from 'node:fs/promises';
import t, { type Test } from 'tap';
import { definePlugin, type PluginContext } from '../../core/plugin.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { WebhooksService } from '../../schemas/contracts/webhooks.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { Receiver, type Received } from '../helpers/receiver.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Gitea's payload fields (modules/structs/hook.go), per event type. */
const FIELDS: Record<string, string[]> = {
  push: ['ref', 'before', 'after', 'compare_url', 'commits', 'total_commits', 'head_commit', 'repository', 'pusher', 'sender'],
  create: ['sha', 'ref', 'ref_type', 'repository', 'sender'],
  delete: ['ref', 'ref_type', 'pusher_type', 'repository', 'sender'],
  fork: ['forkee', 'repository', 'sender'],
  repository: ['action', 'repository', 'organization', 'sender'],
  issues: ['action', 'number', 'issue', 'repository', 'sender', 'commit_id'],
  issue_comment: ['action', 'issue', 'comment', 'repository', 'sender', 'is_pull'],
  pull_request: ['action', 'number', 'pull_request', 'requested_reviewer', 'repository', 'sender', 'commit_id', 'review'],
  release: ['action', 'release', 'repository', 'sender'],
  status: ['commit', 'context', 'created_at', 'description', 'id', 'repository', 'sender', 'sha', 'state', 'target_url', 'updated_at'],
};
const COMMIT_FIELDS = ['id', 'message', 'url', 'author', 'committer', 'verification', 'timestamp', 'added', 'removed', 'modified'];
const USER_FIELDS = ['id', 'login', 'full_name', 'email', 'avatar_url', 'username'];

let probe: PluginContext | undefined;
const probePlugin = definePlugin({ name: 'webhook-probe', dependencies: ['users', 'repos'], start(ctx) { probe = ctx; } });

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv, auto_init: true, readme: 'Default' } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

function hookBody(url: string, extra: Record<string, unknown> = {}, config: Record<string, string> = {}) {
  return { type: 'gitea', active: true, config: { url, content_type: 'json', secret: 'shh-secret', ...config }, ...extra };
}

/** Checks Gitea's delivery headers and both signatures; returns the parsed payload. */
function checkDelivery(t: Test, r: Received, event: string, eventType: string, secret = 'shh-secret'): any {
  const h = r.headers;
  t.equal(r.method, 'POST');
  t.equal(h['content-type'], 'application/json');
  t.equal(h['x-gitea-event'], event, `X-Gitea-Event ${event}`);
  t.equal(h['x-gitea-event-type'], eventType);
  t.match(h['x-gitea-delivery'], UUID);
  for (const p of ['gogs', 'github']) {
    t.equal(h[`x-${p}-event`], event);
    t.equal(h[`x-${p}-event-type`], eventType);
    t.equal(h[`x-${p}-delivery`], h['x-gitea-delivery']);
  }
  const sha256 = createHmac('sha256', secret).update(r.body).digest('hex');
  t.equal(h['x-gitea-signature'], sha256, 'HMAC-SHA256 of the body');
  t.equal(h['x-gogs-signature'], sha256);
  t.equal(h['x-hub-signature-256'], `sha256=${sha256}`);
  t.equal(h['x-hub-signature'], `sha1=${createHmac('sha1', secret).update(r.body).digest('hex')}`);
  const payload = JSON.parse(r.body);
  const base = FIELDS[event === 'issue_comment' ? 'issue_comment' : eventType.startsWith('pull_request') && event !== 'issue_comment' ? 'pull_request' : eventType.startsWith('issue') ? 'issues' : eventType]!;
  for (const k of base) t.ok(k in payload, `${eventType} payload has ${k}`);
  t.same(Object.keys(payload).filter((k) => !base.includes(k) && k !== 'changes'), [], `${eventType} payload has no field Gitea lacks`);
  if (payload.repository) t.type(payload.repository.full_name, 'string');
  if (payload.sender) for (const k of USER_FIELDS) t.ok(k in payload.sender, `sender.${k}`);
  return payload;
}

t.test('webhooks', async (t) => {
  const rx = await new Receiver().start();
  const f = await startForge({ extraPlugins: [probePlugin], config: { plugins: { webhooks: { allowedHostList: 'loopback', retryBaseMs: 1, retryMaxMs: 5 } } } as any });
  t.teardown(async () => {
    await f.close();
    await rx.close();
  });
  const alice = await createUser(f);
  const bob = await createUser(f);
  const repo = await createRepo(f, alice, 'app');
  const base = `/repos/${repo.full_name}/hooks`;
  const webhooks = f.forge.service<WebhooksService>('webhooks');
  const repoRecord = async (): Promise<RepoRecord> => (await f.forge.service<any>('repos').byId(repo.id))!;
  const aliceAccount = async (): Promise<Account> => (await f.forge.service<any>('users').byId(alice.id))!;

  t.test('repository hooks: create (Gitea defaults), get, list, edit, delete; secrets never come back', async (t) => {
    const res = await f.request('POST', base, {
      token: alice.token,
      json: { type: 'gitea', config: { url: `${rx.url}/crud`, content_type: 'json', secret: 'topsecret' }, authorization_header: 'Bearer abc.def' },
    });
    t.equal(res.status, 201);
    t.match(res.json, {
      id: Number, type: 'gitea', branch_filter: '', events: ['push'], active: false,
      config: { url: `${rx.url}/crud`, content_type: 'json', http_method: 'POST' }, authorization_header: 'Bearer ********',
      created_at: String, updated_at: String,
    });
    t.notOk('secret' in res.json.config);
    t.notOk(res.text.includes('topsecret'));
    t.notOk(res.text.includes('abc.def'));
    const id = res.json.id;
    const stored = await f.forge.store.collection('webhooks').findOne({ id });
    t.notOk(JSON.stringify(stored).includes('topsecret'), 'the secret is sealed in the store');
    t.notOk(JSON.stringify(stored).includes('abc.def'), 'the authorization header is sealed in the store');
    t.equal((await f.request('GET', `${base}/${id}`, { token: alice.token })).json.id, id);
    const list = await f.request('GET', base, { token: alice.token });
    t.equal(list.status, 200);
    t.same(list.json.map((h: any) => h.id), [id]);
    t.equal(list.headers.get('x-total-count'), '1');
    const edited = await f.request('PATCH', `${base}/${id}`, { token: alice.token, json: { events: ['issues', 'pull_request_review'], active: true, branch_filter: '{main,release/*}' } });
    t.equal(edited.status, 200);
    t.same(edited.json.events, ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment',
      'pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment']);
    t.equal(edited.json.active, true);
    t.equal(edited.json.branch_filter, '{main,release/*}');
    t.equal(edited.json.authorization_header, 'Bearer ********', 'an edit without authorization_header keeps it');
    t.equal((await f.request('DELETE', `${base}/${id}`, { token: alice.token })).status, 204);
    t.equal((await f.request('GET', `${base}/${id}`, { token: alice.token })).status, 404);
    t.equal((await f.request('DELETE', `${base}/${id}`, { token: alice.token })).status, 404);
  });

  t.test('validation: type, config, content type, method, branch filter (422)', async (t) => {
    const post = async (json: unknown) => (await f.request('POST', base, { token: alice.token, json })).status;
    t.equal(await post({ type: 'slack', config: { url: rx.url, content_type: 'json' } }), 422);
    t.equal(await post({ type: 'gitea', config: { content_type: 'json' } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: rx.url } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: rx.url, content_type: 'xml' } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: rx.url, content_type: 'json', http_method: 'DELETE' } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: 'ftp://127.0.0.1/x', content_type: 'json' } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: 'http://user:pw@127.0.0.1/x', content_type: 'json' } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: rx.url, content_type: 'json' }, branch_filter: '{main' }), 422);
    t.equal(await post({ config: { url: rx.url, content_type: 'json' } }), 422);
    t.equal(await post({ type: 'gitea', config: { url: 'http://10.1.2.3/x', content_type: 'json' } }), 422, 'private addresses are refused under "loopback"');
  });

  t.test('who may manage hooks: repo admins; readers 403; private repos 404; org owners; users; site admins', async (t) => {
    const body = hookBody(rx.url);
    t.equal((await f.request('GET', base)).status, 401);
    t.equal((await f.request('GET', base, { token: bob.token })).status, 403);
    t.equal((await f.request('POST', base, { token: bob.token, json: body })).status, 403);
    const priv = await createRepo(f, alice, 'hidden', true);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/hooks`, { token: bob.token })).status, 404);
    t.equal((await f.request('POST', `/repos/${priv.full_name}/hooks`, { token: bob.token, json: body })).status, 404);
    t.equal((await f.request('GET', `/repos/${alice.username}/nope/hooks`, { token: alice.token })).status, 404);
    // A collaborator with admin access may.
    t.equal((await f.request('PUT', `/repos/${priv.full_name}/collaborators/${bob.username}`, { token: alice.token, json: { permission: 'admin' } })).status, 204);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/hooks`, { token: bob.token })).status, 200);
    // Organizations: owners only.
    const org = await f.request('POST', '/orgs', { token: alice.token, json: { username: `hooks-org-${process.pid}` } });
    t.equal(org.status, 201);
    const orgBase = `/orgs/${org.json.username}/hooks`;
    t.equal((await f.request('POST', orgBase, { token: bob.token, json: body })).status, 403);
    const created = await f.request('POST', orgBase, { token: alice.token, json: body });
    t.equal(created.status, 201);
    t.equal((await f.request('GET', `${orgBase}/${created.json.id}`, { token: alice.token })).status, 200);
    t.equal((await f.request('GET', `/orgs/nope-${process.pid}/hooks`, { token: alice.token })).status, 404);
    t.equal((await f.request('GET', `/orgs/${alice.username}/hooks`, { token: alice.token })).status, 404, 'a user is no organization');
    // An org hook is not reachable through another scope.
    t.equal((await f.request('GET', `/user/hooks/${created.json.id}`, { token: alice.token })).status, 404);
    t.equal((await f.request('DELETE', `${orgBase}/${created.json.id}`, { token: alice.token })).status, 204);
    // The user's own hooks.
    const mine = await f.request('POST', '/user/hooks', { token: bob.token, json: body });
    t.equal(mine.status, 201);
    t.equal((await f.request('GET', `/user/hooks/${mine.json.id}`, { token: alice.token })).status, 404, "another user's hook is not found");
    t.same((await f.request('GET', '/user/hooks', { token: bob.token })).json.map((h: any) => h.id), [mine.json.id]);
    t.equal((await f.request('DELETE', `/user/hooks/${mine.json.id}`, { token: bob.token })).status, 204);
    // System hooks: site admins only.
    t.equal((await f.request('GET', '/admin/hooks', { token: bob.token })).status, 403);
    const sys = await f.request('POST', '/admin/hooks', { token: f.admin.token, json: { ...body, active: false } });
    t.equal(sys.status, 201);
    t.equal((await f.request('PATCH', `/admin/hooks/${sys.json.id}`, { token: f.admin.token, json: { active: false, events: ['push'] } })).status, 200);
    t.equal((await f.request('DELETE', `/admin/hooks/${sys.json.id}`, { token: f.admin.token })).status, 204);
  });

  t.test('real events: status, fork, repository created/deleted, with headers, signatures and payloads', async (t) => {
    const hook = await f.request('POST', base, { token: alice.token, json: hookBody(`${rx.url}/real`, { events: ['status', 'fork', 'repository'] }) });
    t.equal(hook.status, 201);
    const userHook = await f.request('POST', '/user/hooks', { token: alice.token, json: hookBody(`${rx.url}/user`, { events: ['repository'] }) });
    t.equal(userHook.status, 201);
    const seen = rx.received.length;
    const status = await f.request('POST', `/repos/${repo.full_name}/statuses/master`, { token: alice.token, json: { state: 'success', context: 'ci', target_url: 'https://ci.example.com/9', description: 'ok' } });
    t.equal(status.status, 201);
    const [r1] = (await rx.count(seen + 1)).slice(seen);
    const s = checkDelivery(t, r1!, 'status', 'status');
    t.match(s, { id: status.json.id, state: 'success', context: 'ci', target_url: 'https://ci.example.com/9', description: 'ok', sha: /^[0-9a-f]{40}$/ });
    for (const k of COMMIT_FIELDS) t.ok(k in s.commit, `status commit.${k}`);
    // The commit as Gitea's ToAPIPayloadCommit reads it: message, author and committer (the account behind the no-reply
    // address of the auto-init commit), the files it added.
    t.match(s.commit, { id: s.sha, message: /\S/, author: { username: alice.username }, committer: { username: alice.username }, added: ['README.md'], removed: [], modified: [] });
    t.equal(s.commit.url, `${f.url}/${repo.full_name}/commit/${s.sha}`);
    t.equal(s.repository.full_name, repo.full_name);
    t.equal(s.sender.login, alice.username);

    // bob forks: the parent's hook gets Gitea's ForkPayload (forkee = the parent, repository = the fork).
    const fork = await f.request('POST', `/repos/${repo.full_name}/forks`, { token: bob.token, json: {} });
    t.equal(fork.status, 202);
    const forkDelivery = (await rx.until((all) => all.some((r) => r.headers['x-gitea-event'] === 'fork'))).find((r) => r.headers['x-gitea-event'] === 'fork')!;
    const fp = checkDelivery(t, forkDelivery, 'fork', 'fork');
    t.equal(fp.forkee.full_name, repo.full_name);
    t.equal(fp.repository.full_name, `${bob.username}/app`);
    t.equal(fp.sender.login, bob.username);

    // alice's own hook hears of her new and deleted repositories.
    await createRepo(f, alice, 'fresh');
    const created = (await rx.until((all) => all.some((r) => r.url === '/user' && JSON.parse(r.body).action === 'created'))).find((r) => r.url === '/user' && JSON.parse(r.body).action === 'created')!;
    const cp = checkDelivery(t, created, 'repository', 'repository');
    t.equal(cp.repository.full_name, `${alice.username}/fresh`);
    t.equal(cp.organization.login, alice.username);
    t.equal((await f.request('DELETE', `/repos/${alice.username}/fresh`, { token: alice.token })).status, 204);
    const deleted = (await rx.until((all) => all.some((r) => r.url === '/user' && JSON.parse(r.body).action === 'deleted'))).find((r) => r.url === '/user' && JSON.parse(r.body).action === 'deleted')!;
    t.equal(checkDelivery(t, deleted, 'repository', 'repository').repository.full_name, `${alice.username}/fresh`);
    await f.request('DELETE', `${base}/${hook.json.id}`, { token: alice.token });
    await f.request('DELETE', `/user/hooks/${userHook.json.id}`, { token: alice.token });
    await webhooks.idle();
  });

  t.test("a deleted repository's own hooks still hear of the deletion, then go with their history", async (t) => {
    const doomed = await createRepo(f, alice, 'doomed');
    const hook = await f.request('POST', `/repos/${doomed.full_name}/hooks`, { token: alice.token, json: hookBody(`${rx.url}/doomed`, { events: ['repository', 'status'] }) });
    t.equal(hook.status, 201);
    t.equal((await f.request('POST', `/repos/${doomed.full_name}/statuses/master`, { token: alice.token, json: { state: 'success' } })).status, 201);
    await webhooks.idle();
    t.equal((await f.request('DELETE', `/repos/${doomed.full_name}`, { token: alice.token })).status, 204);
    const got = await rx.until((all) => all.some((r) => r.url === '/doomed' && JSON.parse(r.body).action === 'deleted'));
    const p = checkDelivery(t, got.find((r) => r.url === '/doomed' && JSON.parse(r.body).action === 'deleted')!, 'repository', 'repository');
    t.equal(p.repository.full_name, doomed.full_name);
    await webhooks.idle();
    t.equal(await f.forge.store.collection('webhooks').count({ id: hook.json.id }), 0);
    t.equal(await f.forge.store.collection('webhook_deliveries').count({ hookId: hook.json.id }), 0);
  });

  t.test('emitted events: push, create, delete, issues and their variants, comments, pull requests, reviews, release', async (t) => {
    const hook = await f.request('POST', base, { token: alice.token, json: hookBody(`${rx.url}/all`, { events: ['*'] }) });
    t.equal(hook.status, 201);
    const r = await repoRecord();
    const owner = await aliceAccount();
    const sha = 'a'.repeat(40);
    const person = { name: 'Alice', email: 'alice@example.com', username: alice.username };
    const commit = { id: sha, message: 'add things\n', timestamp: '2026-11-24T10:00:00Z', author: person, committer: person, added: ['a.txt'], removed: [], modified: ['README.md'] };
    const issue = { id: 7, number: 1, title: 'bug', body: 'it breaks' };
    const pr = { id: 8, number: 2, title: 'fix', merged: false };
    const events = probe!.events;
    const expect: Array<[string, string, () => Promise<void>, (p: any) => void]> = [
      ['push', 'push', () => events.emit('git.push', { repo: r, owner, pusherId: alice.id, via: 'http', ref: 'refs/heads/master', before: 'b'.repeat(40), after: sha, commits: [commit], totalCommits: 1 }),
        (p) => {
          t.equal(p.ref, 'refs/heads/master');
          t.equal(p.compare_url, `${f.url}/${repo.full_name}/compare/${'b'.repeat(40)}...${sha}`);
          t.equal(p.total_commits, 1);
          for (const k of COMMIT_FIELDS) t.ok(k in p.commits[0], `commit.${k}`);
          t.equal(p.commits[0].url, `${f.url}/${repo.full_name}/commit/${sha}`);
          t.same(p.head_commit, p.commits[0]);
          t.equal(p.pusher.login, alice.username);
        }],
      ['create', 'create', () => events.emit('git.ref.created', { repo: r, owner, senderId: alice.id, ref: 'v1.0', refType: 'tag', sha, via: 'http' }),
        (p) => t.match(p, { sha, ref: 'v1.0', ref_type: 'tag' })],
      ['delete', 'delete', () => events.emit('git.ref.deleted', { repo: r, owner, senderId: alice.id, ref: 'old', refType: 'branch', sha, via: 'http' }),
        (p) => t.match(p, { ref: 'old', ref_type: 'branch', pusher_type: 'user' })],
      ['issues', 'issues', () => events.emit('issue.changed', { action: 'edited', repo: r, owner, senderId: alice.id, number: 1, issueId: 7, issue, changes: { title: { from: 'bg' } } }),
        (p) => t.match(p, { action: 'edited', number: 1, issue, changes: { title: { from: 'bg' } }, commit_id: '' })],
      ['issues', 'issue_assign', () => events.emit('issue.changed', { action: 'assigned', repo: r, owner, senderId: alice.id, number: 1, issueId: 7, issue, assigneeId: bob.id }),
        (p) => t.equal(p.action, 'assigned')],
      ['issues', 'issue_label', () => events.emit('issue.changed', { action: 'label_updated', repo: r, owner, senderId: alice.id, number: 1, issueId: 7, issue }),
        (p) => t.equal(p.action, 'label_updated')],
      ['issues', 'issue_milestone', () => events.emit('issue.changed', { action: 'milestoned', repo: r, owner, senderId: alice.id, number: 1, issueId: 7, issue }),
        (p) => t.equal(p.action, 'milestoned')],
      ['issue_comment', 'issue_comment', () => events.emit('issue_comment.changed', { action: 'created', repo: r, owner, senderId: alice.id, number: 1, issueId: 7, isPull: false, issue, comment: { id: 3, body: 'hi' } }),
        (p) => t.match(p, { action: 'created', comment: { id: 3, body: 'hi' }, is_pull: false })],
      ['issue_comment', 'pull_request_comment', () => events.emit('issue_comment.changed', { action: 'edited', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, isPull: true, issue, comment: { id: 4, body: 'lgtm' }, changes: { body: { from: 'lg' } } }),
        (p) => t.match(p, { action: 'edited', is_pull: true, changes: { body: { from: 'lg' } } })],
      ['pull_request', 'pull_request', () => events.emit('pull_request.changed', { action: 'opened', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, pullRequest: pr }),
        (p) => t.match(p, { action: 'opened', number: 2, pull_request: pr, requested_reviewer: null, review: null })],
      ['pull_request', 'pull_request_sync', () => events.emit('pull_request.changed', { action: 'synchronized', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, pullRequest: pr }),
        (p) => t.equal(p.action, 'synchronized')],
      ['pull_request', 'pull_request_review_request', () => events.emit('pull_request.changed', { action: 'review_requested', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, pullRequest: pr, requestedReviewerId: bob.id }),
        (p) => t.equal(p.requested_reviewer.login, bob.username)],
      ['pull_request', 'pull_request_assign', () => events.emit('pull_request.changed', { action: 'unassigned', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, pullRequest: pr }),
        (p) => t.equal(p.action, 'unassigned')],
      ['pull_request', 'pull_request_label', () => events.emit('pull_request.changed', { action: 'label_cleared', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, pullRequest: pr }),
        (p) => t.equal(p.action, 'label_cleared')],
      ['pull_request', 'pull_request_milestone', () => events.emit('pull_request.changed', { action: 'demilestoned', repo: r, owner, senderId: alice.id, number: 2, issueId: 8, pullRequest: pr }),
        (p) => t.equal(p.action, 'demilestoned')],
      ['pull_request_approved', 'pull_request_review_approved', () => events.emit('pull_request.reviewed', { kind: 'approved', repo: r, owner, senderId: bob.id, number: 2, issueId: 8, pullRequest: pr, review: { id: 1, body: 'ship it' } }),
        (p) => t.match(p, { action: 'reviewed', review: { type: 'pull_request_review_approved', content: 'ship it' } })],
      ['pull_request_rejected', 'pull_request_review_rejected', () => events.emit('pull_request.reviewed', { kind: 'rejected', repo: r, owner, senderId: bob.id, number: 2, issueId: 8, pullRequest: pr, review: { id: 2, body: 'no' } }),
        (p) => t.equal(p.review.type, 'pull_request_review_rejected')],
      ['pull_request_comment', 'pull_request_review_comment', () => events.emit('pull_request.reviewed', { kind: 'comment', repo: r, owner, senderId: bob.id, number: 2, issueId: 8, pullRequest: pr, review: { id: 3, body: 'hmm' } }),
        (p) => t.equal(p.review.type, 'pull_request_review_comment')],
      ['release', 'release', () => events.emit('release.changed', { action: 'published', repo: r, owner, senderId: alice.id, release: { id: 5, tag_name: 'v1.0' } }),
        (p) => t.match(p, { action: 'published', release: { id: 5, tag_name: 'v1.0' } })],
    ];
    for (const [event, type, emit, check] of expect) {
      const before = rx.received.length;
      await emit();
      // The delivery row exists as soon as emit returned (recorded inside the handler).
      t.ok(webhooks.stats().pending + webhooks.stats().inFlight >= 0);
      const [got] = (await rx.count(before + 1)).slice(before);
      t.equal(got!.url, '/all');
      check(checkDelivery(t, got!, event, type));
    }
    // Pins and locks: Gitea has no webhook for them.
    const before = await f.forge.store.collection('webhook_deliveries').count({ hookId: hook.json.id });
    await events.emit('issue.changed', { action: 'locked', repo: r, owner, senderId: alice.id, number: 1, issueId: 7, issue });
    t.equal(await f.forge.store.collection('webhook_deliveries').count({ hookId: hook.json.id }), before);
    await f.request('DELETE', `${base}/${hook.json.id}`, { token: alice.token });
    await webhooks.idle();
  });

  t.test('branch filter, form content type, GET method, authorization header, inactive hooks', async (t) => {
    const mk = async (url: string, extra: Record<string, unknown>, config: Record<string, string> = {}) =>
      (await f.request('POST', base, { token: alice.token, json: hookBody(`${rx.url}${url}`, extra, config) })).json.id as number;
    const ids = [
      await mk('/only-release', { events: ['push', 'create'], branch_filter: 'release/*' }),
      await mk('/form', { events: ['push'] }, { content_type: 'form' }),
      await mk('/get', { events: ['push'] }, { http_method: 'GET' }),
      await mk('/auth', { events: ['push'], authorization_header: 'Bearer s3cr3t' }),
      await mk('/inactive', { events: ['push'], active: false }),
    ];
    const r = await repoRecord();
    const owner = await aliceAccount();
    const push = (ref: string) => probe!.events.emit('git.push', { repo: r, owner, pusherId: alice.id, via: 'http', ref, before: 'b'.repeat(40), after: 'c'.repeat(40), commits: [], totalCommits: 0 });
    const before = rx.received.length;
    await push('refs/heads/master');
    await push('refs/heads/release/1.0');
    await push('refs/tags/v2'); // tags pass any branch filter
    await webhooks.idle();
    const got = rx.received.slice(before);
    const refsAt = (url: string) => got.filter((g) => g.url.split('?')[0] === url).map((g) => g.method === 'GET'
      ? JSON.parse(new URL(`http://x${g.url}`).searchParams.get('payload')!).ref
      : g.headers['content-type'] === 'application/x-www-form-urlencoded' ? JSON.parse(new URLSearchParams(g.body).get('payload')!).ref : JSON.parse(g.body).ref);
    t.same(refsAt('/only-release'), ['refs/heads/release/1.0', 'refs/tags/v2']);
    t.same(refsAt('/form'), ['refs/heads/master', 'refs/heads/release/1.0', 'refs/tags/v2']);
    t.same(refsAt('/get'), ['refs/heads/master', 'refs/heads/release/1.0', 'refs/tags/v2']);
    t.same(refsAt('/inactive'), []);
    const form = got.find((g) => g.url === '/form')!;
    const formPayload = new URLSearchParams(form.body).get('payload')!;
    t.equal(form.headers['x-gitea-signature'], createHmac('sha256', 'shh-secret').update(formPayload).digest('hex'), 'form: the JSON payload is signed');
    t.equal(got.find((g) => g.url === '/auth')!.headers.authorization, 'Bearer s3cr3t', 'the authorization header is sent in full');
    // …and shown masked in the history.
    const authHistory = await f.request('GET', `${base}/${ids[3]}/deliveries`, { token: alice.token });
    t.equal(authHistory.json[0].request.headers.Authorization, 'Bearer ********');
    t.notOk(authHistory.text.includes('s3cr3t'));
    for (const id of ids) await f.request('DELETE', `${base}/${id}`, { token: alice.token });
  });

  t.test('failures are retried with backoff, in order per hook; history lists attempts; redelivery', async (t) => {
    let failuresLeft = 2;
    const order: string[] = [];
    rx.respond = (r) => {
      if (!r.url.startsWith('/flaky')) return 200;
      if (failuresLeft > 0) {
        failuresLeft--;
        return 503;
      }
      order.push(JSON.parse(r.body).ref);
      return 200;
    };
    t.teardown(() => { rx.respond = () => 200; });
    const id = (await f.request('POST', base, { token: alice.token, json: hookBody(`${rx.url}/flaky`, { events: ['push'] }) })).json.id;
    const r = await repoRecord();
    const owner = await aliceAccount();
    for (const n of [1, 2, 3]) {
      await probe!.events.emit('git.push', { repo: r, owner, pusherId: alice.id, via: 'http', ref: `refs/heads/b${n}`, before: 'b'.repeat(40), after: 'c'.repeat(40), commits: [], totalCommits: 0 });
    }
    await webhooks.idle();
    t.same(order, ['refs/heads/b1', 'refs/heads/b2', 'refs/heads/b3'], 'a failing delivery holds back the later ones of its hook');
    const history = await f.request('GET', `${base}/${id}/deliveries`, { token: alice.token });
    t.equal(history.status, 200);
    t.equal(history.json.length, 3);
    const first = history.json[2];
    t.match(first, { state: 'delivered', is_succeed: true, attempts: 3, event: 'push', event_type: 'push', uuid: UUID, response: { status: 200, body: 'answer 200' } });
    t.equal(first.response.headers['x-receiver'], 'yes');
    t.match(first.request.headers, { 'X-Gitea-Event': 'push', 'Content-Type': 'application/json' });
    t.equal(JSON.parse(first.request.body).ref, 'refs/heads/b1');
    t.type(first.duration_ms, 'number');
    const one = await f.request('GET', `${base}/${id}/deliveries/${first.id}`, { token: alice.token });
    t.equal(one.json.uuid, first.uuid);
    // Redelivery: a new delivery (new UUID) with the same payload.
    const before = rx.received.length;
    const again = await f.request('POST', `${base}/${id}/deliveries/${first.id}/attempts`, { token: alice.token });
    t.equal(again.status, 201);
    t.equal(again.json.redelivery_of, first.id);
    t.not(again.json.uuid, first.uuid);
    const [re] = (await rx.count(before + 1)).slice(before);
    t.equal(re!.body, first.request.body);
    t.equal(re!.headers['x-gitea-delivery'], again.json.uuid);
    t.equal((await f.request('GET', `${base}/${id}/deliveries/999999`, { token: alice.token })).status, 404);
    t.equal((await f.request('GET', `${base}/${id}/deliveries`, { token: bob.token })).status, 403);
    // A receiver that keeps failing: the delivery ends as failed after maxAttempts, with the reason.
    rx.respond = (q) => (q.url.startsWith('/down') ? 500 : 200);
    const down = (await f.request('POST', base, { token: alice.token, json: hookBody(`${rx.url}/down`, { events: ['push'] }) })).json.id;
    await probe!.events.emit('git.push', { repo: r, owner, pusherId: alice.id, via: 'http', ref: 'refs/heads/x', before: 'b'.repeat(40), after: 'c'.repeat(40), commits: [], totalCommits: 0 });
    await webhooks.idle();
    const failed = (await f.request('GET', `${base}/${down}/deliveries`, { token: alice.token })).json[0];
    t.match(failed, { state: 'failed', is_succeed: false, attempts: 6, error: 'HTTP 500', response: { status: 500 } });
    await f.request('DELETE', `${base}/${id}`, { token: alice.token });
    await f.request('DELETE', `${base}/${down}`, { token: alice.token });
  });

  t.test('POST /hooks/{id}/tests sends a push of the latest commit, whatever the events', async (t) => {
    const id = (await f.request('POST', base, { token: alice.token, json: hookBody(`${rx.url}/test`, { events: ['issues'] }) })).json.id;
    const before = rx.received.length;
    t.equal((await f.request('POST', `${base}/${id}/tests`, { token: alice.token })).status, 204);
    const [got] = (await rx.count(before + 1)).slice(before);
    const p = checkDelivery(t, got!, 'push', 'push');
    t.equal(p.ref, 'refs/heads/master');
    t.match(p.after, /^[0-9a-f]{40}$/);
    t.not(p.after, '0'.repeat(40));
    t.match(p.commits[0], { id: p.after, message: /\S/, author: { username: alice.username } }, 'the real head commit, read through git');
    t.equal((await f.request('POST', `${base}/${id}/tests`, { token: bob.token })).status, 403);
    t.equal((await f.request('POST', `${base}/999999/tests`, { token: alice.token })).status, 404);
    await f.request('DELETE', `${base}/${id}`, { token: alice.token });
  });

  async function createUser(forge: TestForge): Promise<TestUser> {
    return forge.createUser();
  }
});

t.test('targets the operator does not allow: refused at creation (422) or never sent, with the reason', async (t) => {
  const rx = await new Receiver().start();
  t.teardown(() => rx.close());
  const allowing = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } as any });
  const user = await allowing.createUser();
  const repo = await createRepo(allowing, user, 'guarded');
  const hook = await allowing.request('POST', `/repos/${repo.full_name}/hooks`, { token: user.token, json: hookBody(`${rx.url}/never`, { events: ['status'] }) });
  t.equal(hook.status, 201);
  const dataDir = allowing.dataDir;
  await allowing.forge.close();
  // The same data under the default list (`external`): loopback is refused.
  const strict = await startForge({ dataDir });
  t.teardown(async () => {
    await strict.close();
    await rm(dataDir, { recursive: true, force: true }); // the first forge's data dir: its close() left it
  });
  const refused = await strict.request('POST', `/repos/${repo.full_name}/hooks`, { token: user.token, json: hookBody(`${rx.url}/x`) });
  t.equal(refused.status, 422);
  t.match(refused.json.message, /config\.url/);
  t.equal((await strict.request('POST', `/repos/${repo.full_name}/hooks`, { token: user.token, json: hookBody('http://localhost:9/x') })).status, 422);
  t.equal((await strict.request('POST', `/repos/${repo.full_name}/hooks`, { token: user.token, json: hookBody('http://[::ffff:127.0.0.1]:9/x') })).status, 422);
  t.equal((await strict.request('POST', `/repos/${repo.full_name}/hooks`, { token: user.token, json: hookBody('http://169.254.169.254/latest') })).status, 422);
  const status = await strict.request('POST', `/repos/${repo.full_name}/statuses/master`, { token: user.token, json: { state: 'success' } });
  t.equal(status.status, 201);
  await strict.forge.service<WebhooksService>('webhooks').idle();
  const history = await strict.request('GET', `/repos/${repo.full_name}/hooks/${hook.json.id}/deliveries`, { token: user.token });
  t.match(history.json[0], { state: 'failed', attempts: 1, error: /target refused: .*does not allow/ });
  t.equal(rx.received.length, 0, 'nothing reached the receiver');
});
