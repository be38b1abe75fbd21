// notifications: readability kept on the rows (plugins/notifications/service.ts). A user never sees — in lists,
// X-Total-Count, `/notifications/new` or one thread — a notification about a repository they can no longer read, and
// sees them again once they can, through every way access is lost or gained: team membership, a team's repositories,
// team deletion and includes_all_repositories, leaving the organization, collaborators, private ↔ public, the
// organization's visibility, the site-admin flag. Pages are one ranked index walk (explained) whose JSON text equals
// what GET of each thread serialises, and a process killed between an access change and the flags' recompute is
// repaired at the next start.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crashDuring } from '../helpers/crash.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

/** What a user sees of their notifications, by every route that shows or counts them. */
async function seen(f: TestForge, u: TestUser): Promise<{ titles: string[]; total: number; inbox: number; unread: number }> {
  const all = await f.request('GET', '/notifications?all=true&limit=50', { token: u.token });
  const inbox = await f.request('GET', '/notifications', { token: u.token });
  const unread = await f.request('GET', '/notifications/new', { token: u.token });
  if (all.status !== 200 || inbox.status !== 200 || unread.status !== 200) throw new Error(`${all.status} ${inbox.status} ${unread.status}`);
  return {
    titles: (all.json as any[]).map((x) => x.subject.title).sort(),
    total: Number(all.headers.get('x-total-count')),
    inbox: Number(inbox.headers.get('x-total-count')),
    unread: unread.json.new,
  };
}

/** Every view agrees: exactly `titles` (all unread), counted exactly. */
async function sees(t: Test, f: TestForge, u: TestUser, titles: string[], what: string): Promise<void> {
  const s = await seen(f, u);
  t.same(s, { titles: [...titles].sort(), total: titles.length, inbox: titles.length, unread: titles.length }, what);
}

t.test('losing and regaining access hides and shows threads, counts exact', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const carol = await f.createUser();
  const eve = await f.createUser();
  const ok = async (method: string, p: string, json?: unknown, status = [200, 201, 204]) => {
    const res = await f.request(method, p, { token: alice.token, json });
    if (!status.includes(res.status)) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
    return res.json;
  };
  await ok('POST', '/orgs', { username: 'acme-notif' });
  await ok('POST', '/orgs/acme-notif/repos', { name: 'vault', private: true });
  await ok('POST', '/orgs/acme-notif/repos', { name: 'lobby', private: false });
  await ok('POST', '/user/repos', { name: 'open' });
  const team = await ok('POST', '/orgs/acme-notif/teams', { name: 'readers', permission: 'read', includes_all_repositories: false });
  await ok('PUT', `/teams/${team.id}/members/${carol.username}`);
  await ok('PUT', `/teams/${team.id}/repos/acme-notif/vault`);
  for (const [u, repo] of [[carol, 'acme-notif/vault'], [carol, `${alice.username}/open`], [eve, `${alice.username}/open`], [eve, 'acme-notif/lobby']] as const) {
    t.equal((await f.request('PUT', `/repos/${repo}/subscription`, { token: u.token })).status, 200, `${u.username} watches ${repo}`);
  }
  const vaultIssue = await ok('POST', '/repos/acme-notif/vault/issues', { title: 'Vault issue' });
  await ok('POST', `/repos/${alice.username}/open/issues`, { title: 'Open issue' });
  await ok('POST', '/repos/acme-notif/lobby/issues', { title: 'Lobby issue' });
  const both = ['Vault issue', 'Open issue'];
  await sees(t, f, carol, both, 'carol reads both repositories');
  await sees(t, f, eve, ['Open issue', 'Lobby issue'], 'eve reads the public ones');
  const vaultThread = (await f.request('GET', '/notifications?all=true', { token: carol.token })).json.find((x: any) => x.subject.title === 'Vault issue').id;
  const thread = async () => (await f.request('GET', `/notifications/threads/${vaultThread}`, { token: carol.token })).status;
  t.equal(await thread(), 200);

  t.test('team member removed, added again', async (t) => {
    await ok('DELETE', `/teams/${team.id}/members/${carol.username}`);
    await sees(t, f, carol, ['Open issue'], 'out of the team: the vault thread is gone everywhere');
    t.equal(await thread(), 404, 'one thread: 404');
    t.equal((await f.request('PATCH', `/notifications/threads/${vaultThread}`, { token: carol.token })).status, 404);
    t.equal((await f.request('PUT', '/notifications', { token: carol.token })).headers.get('x-total-count'), '1', 'marking all read touches only what she reads');
    t.equal((await f.request('PUT', '/notifications?all=true&to-status=unread', { token: carol.token })).status, 205);
    await ok('PUT', `/teams/${team.id}/members/${carol.username}`);
    await sees(t, f, carol, both, 'back in the team: back, still unread');
    t.equal(await thread(), 200);
  });

  t.test('team repository removed, added again', async (t) => {
    await ok('DELETE', `/teams/${team.id}/repos/acme-notif/vault`);
    await sees(t, f, carol, ['Open issue'], 'the team no longer has the repository');
    t.equal(await thread(), 404);
    await ok('PUT', `/teams/${team.id}/repos/acme-notif/vault`);
    await sees(t, f, carol, both, 'the team has it again');
  });

  t.test('leaving the organization; a team with every repository; deleting that team', async (t) => {
    await ok('DELETE', `/orgs/acme-notif/members/${carol.username}`);
    await sees(t, f, carol, ['Open issue'], 'removed from the organization');
    const every = await ok('POST', '/orgs/acme-notif/teams', { name: 'everyone', permission: 'read', includes_all_repositories: true });
    await ok('PUT', `/teams/${every.id}/members/${carol.username}`);
    await sees(t, f, carol, both, 'a team with includes_all_repositories gives it back');
    await ok('PATCH', `/teams/${every.id}`, { name: 'everyone', permission: 'read', includes_all_repositories: false });
    await sees(t, f, carol, ['Open issue'], 'that team no longer includes every repository');
    await ok('PATCH', `/teams/${every.id}`, { name: 'everyone', permission: 'read', includes_all_repositories: true });
    await sees(t, f, carol, both, 'and includes them again');
    await ok('DELETE', `/teams/${every.id}`);
    await sees(t, f, carol, ['Open issue'], 'the team deleted');
    await ok('PUT', `/teams/${team.id}/members/${carol.username}`);
    await sees(t, f, carol, both, 'added to the old team again');
  });

  t.test('private → public → private, and collaborators', async (t) => {
    await ok('PATCH', `/repos/${alice.username}/open`, { private: true });
    await sees(t, f, eve, ['Lobby issue'], 'made private: gone');
    await sees(t, f, carol, ['Vault issue'], 'for every reader without a grant');
    await ok('PATCH', `/repos/${alice.username}/open`, { private: false });
    await sees(t, f, eve, ['Open issue', 'Lobby issue'], 'public again: back');
    await ok('PATCH', `/repos/${alice.username}/open`, { private: true });
    await sees(t, f, eve, ['Lobby issue'], 'private again: gone again');
    await ok('PUT', `/repos/${alice.username}/open/collaborators/${eve.username}`, { permission: 'read' });
    await sees(t, f, eve, ['Open issue', 'Lobby issue'], 'a collaborator reads it');
    await ok('PUT', `/repos/${alice.username}/open/collaborators/${eve.username}`, { permission: 'write' });
    await sees(t, f, eve, ['Open issue', 'Lobby issue'], 'a permission change that keeps read');
    await ok('DELETE', `/repos/${alice.username}/open/collaborators/${eve.username}`);
    await sees(t, f, eve, ['Lobby issue'], 'collaborator removed');
  });

  t.test('site admin flag', async (t) => {
    const edit = async (admin: boolean) => {
      const res = await f.request('PATCH', `/admin/users/${eve.username}`, { token: f.admin.token, json: { admin, login_name: eve.username, source_id: 0 } });
      t.equal(res.status, 200, `admin: ${admin}`);
    };
    await edit(true);
    await sees(t, f, eve, ['Open issue', 'Lobby issue'], 'a site admin reads every repository');
    await edit(false);
    await sees(t, f, eve, ['Lobby issue'], 'not any more');
  });

  t.test("the organization's visibility", async (t) => {
    await ok('PATCH', '/orgs/acme-notif', { visibility: 'private' });
    await sees(t, f, eve, [], "a private organization's public repository is not readable by non-members");
    await sees(t, f, carol, ['Vault issue'], 'members still read what their team gives');
    await ok('PATCH', '/orgs/acme-notif', { visibility: 'public' });
    await sees(t, f, eve, ['Lobby issue'], 'public again');
  });

  t.test('a page is one ranked index walk past threads the user cannot read', async (t) => {
    const rows = f.forge.store.collection('notifications');
    const user = (await f.request('GET', `/users/${eve.username}`)).json.id;
    t.ok((await rows.count({ userId: user, hidden: true })) > 0, 'eve has threads she cannot read');
    const plan = await rows.explain({ userId: user, hidden: false }, { sort: { updatedAt: -1, id: -1 }, limit: 1 });
    t.match(plan, { index: /hidden/, examined: 1, returned: 1 });
    const inbox = await rows.explain({ userId: user, hidden: false, inbox: true }, { sort: { updatedAt: -1, id: -1 }, skip: 0, limit: 30 });
    t.match(inbox, { index: /inbox/, examined: 1, returned: 1 });
  });

  t.test('a new notification about a repository the user reads again', async (t) => {
    await ok('PATCH', `/repos/${alice.username}/open`, { private: false });
    await ok('POST', `/repos/acme-notif/vault/issues/${vaultIssue.number}/comments`, { body: 'still there' });
    await sees(t, f, carol, both, 'one thread per issue, no duplicate');
  });

  t.test('a list (JSON text from cached repository pieces) shows each thread as GET of that thread does', async (t) => {
    for (const u of [carol, eve]) {
      const list = (await f.request('GET', '/notifications?all=true', { token: u.token })).json as any[];
      t.ok(list.length > 0);
      for (const item of list) {
        const one = await f.request('GET', `/notifications/threads/${item.id}`, { token: u.token });
        t.same(item, one.json, `${u.username}: thread ${item.subject.title}`);
      }
    }
  });
});

t.test('a process killed between an access change and the recompute is repaired at the next start', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-crash-notif-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let f = await startForge({ dataDir });
  const dave = await f.createUser({ username: 'dave' });
  t.equal((await f.request('POST', '/user/repos', { token: f.admin.token, json: { name: 'secret', private: true } })).status, 201);
  t.equal((await f.request('PUT', '/repos/root/secret/collaborators/dave', { token: f.admin.token, json: { permission: 'read' } })).status, 204);
  t.equal((await f.request('PUT', '/repos/root/secret/subscription', { token: dave.token })).status, 200);
  t.equal((await f.request('POST', '/repos/root/secret/issues', { token: f.admin.token, json: { title: 'Secret issue' } })).status, 201);
  await sees(t, f, dave, ['Secret issue'], 'a collaborator hears about it');
  await f.close();

  await crashDuring(dataDir, 'notifications.settle:before', async (api, token) =>
    fetch(`${api}/repos/root/secret/collaborators/dave`, { method: 'DELETE', headers: { Authorization: `token ${token}` } }));

  f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const res = await f.request('POST', '/users/dave/tokens', { basic: ['dave', dave.password], json: { name: 'after-crash', scopes: ['all'] } });
  t.equal(res.status, 201);
  const again: TestUser = { ...dave, token: res.json.sha1 };
  t.equal((await f.request('GET', '/repos/root/secret/collaborators/dave', { token: f.admin.token })).status, 404, 'the removal was stored before the crash');
  await sees(t, f, again, [], 'the start repair hid the thread');
  t.equal((await f.forge.store.collection('notification_state').findOne({ id: 1 }))?.running, true, 'this process runs on the data');
});
