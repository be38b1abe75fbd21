// A signed-in caller's complete grants are kept between requests (RepoAccess) and so are the search scopes made from
// them (RepoSearch), and single repositories are checked with them: every change that moves access must show at
// once in the next search, list and read by name — collaborations, team repository lists, team memberships, a team's
// all-repositories switch, team deletion, an organization's visibility, a repository's visibility, creation and
// deletion, the site-admin flag — and unchanged grants must really be reused.
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

async function names(f: TestForge, path: string, who: TestUser): Promise<string[]> {
  const res = await f.request('GET', path, { token: who.token });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  const list = Array.isArray(res.json) ? res.json : res.json.data;
  return list.map((r: any) => r.full_name);
}

/** What `who` finds for `q` in the search, and in its own repository list, as full names. */
async function seen(f: TestForge, who: TestUser, q: string): Promise<{ search: string[]; mine: string[] }> {
  return {
    search: await names(f, `/repos/search?q=${q}&limit=50`, who),
    mine: (await names(f, '/user/repos?limit=50', who)).filter((n) => n.includes(q)),
  };
}

t.test('kept grants follow every change of access', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'kg-alice' });
  const bob = await f.createUser({ username: 'kg-bob' });
  const ok = async (method: string, path: string, json: unknown, status: number, as: TestUser = alice) => {
    const res = await f.request(method, path, { token: as.token, json });
    t.equal(res.status, status, `${method} ${path}: ${res.text.slice(0, 200)}`);
    return res.json;
  };

  await ok('POST', '/user/repos', { name: 'kgx-secret', private: true }, 201);
  await ok('POST', '/user/repos', { name: 'kgx-open', private: false }, 201);
  await ok('POST', '/orgs', { username: 'kg-org' }, 201);
  await ok('POST', '/org/kg-org/repos', { name: 'kgy-inside', private: true }, 201);
  await ok('POST', '/org/kg-org/repos', { name: 'kgy-public', private: false }, 201);

  t.test('collaborations: added, permission changed, removed', async (t) => {
    const single = async () => (await f.request('GET', '/repos/kg-alice/kgx-secret', { token: bob.token })).status;
    t.same(await seen(f, bob, 'kgx'), { search: ['kg-alice/kgx-open'], mine: [] }, 'before: the public one only');
    t.equal(await single(), 404, 'and not by name');
    await ok('PUT', '/repos/kg-alice/kgx-secret/collaborators/kg-bob', { permission: 'read' }, 204);
    t.equal(await single(), 200, 'a collaborator reads it by name');
    t.same(await seen(f, bob, 'kgx'), { search: ['kg-alice/kgx-open', 'kg-alice/kgx-secret'], mine: ['kg-alice/kgx-secret'] }, 'a collaborator sees it');
    const read = (await f.request('GET', '/repos/search?q=kgx-secret', { token: bob.token })).json.data[0];
    t.same([read.permissions.pull, read.permissions.push], [true, false], 'read');
    await ok('PUT', '/repos/kg-alice/kgx-secret/collaborators/kg-bob', { permission: 'write' }, 204);
    const write = (await f.request('GET', '/repos/search?q=kgx-secret', { token: bob.token })).json.data[0];
    t.same([write.permissions.pull, write.permissions.push], [true, true], 'write, at once');
    await ok('DELETE', '/repos/kg-alice/kgx-secret/collaborators/kg-bob', undefined, 204);
    t.equal(await single(), 404, 'removed: not by name either');
    t.same(await seen(f, bob, 'kgx'), { search: ['kg-alice/kgx-open'], mine: [] }, 'removed: gone at once');
  });

  t.test('team repository lists and memberships, all repositories, team deletion', async (t) => {
    const team = await ok('POST', '/orgs/kg-org/teams', { name: 'listed', permission: 'read', includes_all_repositories: false }, 201);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'not a member: the public one');
    await ok('PUT', `/teams/${team.id}/members/kg-bob`, undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'a member of a team without the repository');
    await ok('PUT', `/teams/${team.id}/repos/kg-org/kgy-inside`, undefined, 204);
    t.same(await seen(f, bob, 'kgy'), { search: ['kg-org/kgy-inside', 'kg-org/kgy-public'], mine: ['kg-org/kgy-inside'] }, 'the team got it');
    await ok('POST', '/org/kg-org/repos', { name: 'kgy-unlisted', private: true }, 201);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-public'], 'a new private repository off the list');
    await ok('PATCH', `/teams/${team.id}`, { name: 'listed', permission: 'read', includes_all_repositories: true }, 200);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-public', 'kg-org/kgy-unlisted'], 'the team edited to all repositories');
    // The grants stay the same (the whole organization): the kept private scope follows the repositories.
    await ok('POST', '/org/kg-org/repos', { name: 'kgy-later', private: true }, 201);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-later', 'kg-org/kgy-public', 'kg-org/kgy-unlisted'], 'a new private one');
    await ok('DELETE', '/repos/kg-org/kgy-later', undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-public', 'kg-org/kgy-unlisted'], 'deleted again');
    await ok('PATCH', `/teams/${team.id}`, { name: 'listed', permission: 'read', includes_all_repositories: false }, 200);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-public'], 'and back to its list');
    await ok('DELETE', `/teams/${team.id}/repos/kg-org/kgy-inside`, undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'taken off the team list');
    await ok('PUT', `/teams/${team.id}/repos/kg-org/kgy-inside`, undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-public'], 'listed again');
    await ok('DELETE', `/teams/${team.id}/members/kg-bob`, undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'left the team');
    await ok('PUT', `/teams/${team.id}/members/kg-bob`, undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-inside', 'kg-org/kgy-public'], 'back in the team');
    await ok('DELETE', `/teams/${team.id}`, undefined, 204);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'the team is gone');
  });

  t.test("an organization's visibility", async (t) => {
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'public: its public repository shows');
    await ok('PATCH', '/orgs/kg-org', { visibility: 'private' }, 200);
    t.same((await seen(f, bob, 'kgy')).search, [], 'private: a non-member sees none of it');
    await ok('PATCH', '/orgs/kg-org', { visibility: 'public' }, 200);
    t.same((await seen(f, bob, 'kgy')).search, ['kg-org/kgy-public'], 'public again');
  });

  t.test("repositories made, deleted, made private or public (the kept private scope and its order)", async (t) => {
    await ok('POST', '/user/repos', { name: 'kgz-b', private: true }, 201);
    await ok('POST', '/user/repos', { name: 'kgz-c', private: true }, 201);
    // Granted in the other order: the kept private scope is in name order all the same.
    await ok('PUT', '/repos/kg-alice/kgz-c/collaborators/kg-bob', { permission: 'read' }, 204);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-c']);
    await ok('PUT', '/repos/kg-alice/kgz-b/collaborators/kg-bob', { permission: 'read' }, 204);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-b', 'kg-alice/kgz-c'], 'in name order');
    await ok('POST', '/user/repos', { name: 'kgz-a', private: true }, 201);
    await ok('PUT', '/repos/kg-alice/kgz-a/collaborators/kg-bob', { permission: 'read' }, 204);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-a', 'kg-alice/kgz-b', 'kg-alice/kgz-c'], 'a third, first in order');
    await ok('POST', '/user/repos', { name: 'kgz-d', private: false }, 201);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-a', 'kg-alice/kgz-b', 'kg-alice/kgz-c', 'kg-alice/kgz-d'], 'a new public one');
    await ok('PATCH', '/repos/kg-alice/kgz-d', { private: true }, 200);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-a', 'kg-alice/kgz-b', 'kg-alice/kgz-c'], 'made private: gone for a non-collaborator');
    await ok('PATCH', '/repos/kg-alice/kgz-b', { private: false }, 200);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-a', 'kg-alice/kgz-b', 'kg-alice/kgz-c'], 'made public: still there');
    await ok('DELETE', '/repos/kg-alice/kgz-a', undefined, 204);
    t.same((await seen(f, bob, 'kgz')).search, ['kg-alice/kgz-b', 'kg-alice/kgz-c'], 'deleted: gone');
  });

  t.test('the site-admin flag', async (t) => {
    t.same((await seen(f, bob, 'kgx')).search, ['kg-alice/kgx-open']);
    await ok('PATCH', '/admin/users/kg-bob', { login_name: 'kg-bob', admin: true }, 200, f.admin);
    t.same((await seen(f, bob, 'kgx')).search, ['kg-alice/kgx-open', 'kg-alice/kgx-secret'], 'an admin reads every repository');
    await ok('PATCH', '/admin/users/kg-bob', { login_name: 'kg-bob', admin: false }, 200, f.admin);
    t.same((await seen(f, bob, 'kgx')).search, ['kg-alice/kgx-open'], 'no longer');
  });

  t.test('unchanged grants are reused, a change loads them once more', async (t) => {
    const access = (f.forge.service('repos') as unknown as { access: { completeLoads: number } }).access;
    await seen(f, bob, 'kgx');
    const loads = access.completeLoads;
    for (let i = 0; i < 5; i++) await seen(f, bob, 'kgx');
    t.equal(access.completeLoads, loads, 'ten searches and lists, no load');
    await ok('PUT', '/repos/kg-alice/kgx-secret/collaborators/kg-bob', { permission: 'read' }, 204);
    await seen(f, bob, 'kgx');
    const after = access.completeLoads;
    t.ok(after > loads, 'loaded again after the change (by the change itself or the next search)');
    await seen(f, bob, 'kgx');
    t.equal(access.completeLoads, after, 'then kept again');
  });
});
