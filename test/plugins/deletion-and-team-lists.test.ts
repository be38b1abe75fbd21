// Deleting never cascades silently (422 naming what blocks it, purge=true for the admin delete, the last owner
// stays), and a team's repository list shows only what its viewer reads.
import t from 'tap';
import { startForge } from '../helpers/forge.js';

t.test('team repository lists are filtered by what the caller reads', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser();
  const reader = await f.createUser();
  t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'acme-lists' } })).status, 201);
  for (const [name, priv] of [['secret-a', true], ['secret-b', true], ['open', false]] as const) {
    t.equal((await f.request('POST', '/org/acme-lists/repos', { token: owner.token, json: { name, private: priv } })).status, 201);
  }
  const readers = await f.request('POST', '/orgs/acme-lists/teams', { token: owner.token, json: { name: 'readers', permission: 'read', includes_all_repositories: false } });
  t.equal(readers.status, 201);
  t.equal((await f.request('PUT', `/teams/${readers.json.id}/members/${reader.username}`, { token: owner.token })).status, 204);
  const teams = await f.request('GET', '/orgs/acme-lists/teams', { token: owner.token });
  const ownersTeam = teams.json.find((x: any) => x.name === 'Owners');

  t.test('the Owners team (all repositories) as seen by a member of an empty team', async (t) => {
    const res = await f.request('GET', `/teams/${ownersTeam.id}/repos`, { token: reader.token });
    t.equal(res.status, 200);
    t.same(res.json.map((r: any) => r.name), ['open'], 'no private repository');
    t.equal(res.headers.get('x-total-count'), '1', 'nor in the count');
    const all = await f.request('GET', `/teams/${ownersTeam.id}/repos`, { token: owner.token });
    t.same(all.json.map((r: any) => r.name), ['open', 'secret-a', 'secret-b'], 'an owner sees all');
  });

  t.test('a listed team with a private repository the viewer cannot read', async (t) => {
    const other = await f.request('POST', '/orgs/acme-lists/teams', { token: owner.token, json: { name: 'devs', permission: 'write', includes_all_repositories: false } });
    t.equal((await f.request('PUT', `/teams/${other.json.id}/repos/acme-lists/secret-a`, { token: owner.token })).status, 204);
    t.equal((await f.request('PUT', `/teams/${other.json.id}/repos/acme-lists/open`, { token: owner.token })).status, 204);
    const res = await f.request('GET', `/teams/${other.json.id}/repos`, { token: reader.token });
    t.same(res.json.map((r: any) => r.name), ['open']);
    t.equal(res.headers.get('x-total-count'), '1');
    // Once the reader's own team is granted the repository, it shows.
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/acme-lists/secret-a`, { token: owner.token })).status, 204);
    const after = await f.request('GET', `/teams/${other.json.id}/repos`, { token: reader.token });
    t.same(after.json.map((r: any) => r.name), ['open', 'secret-a']);
  });
});

t.test('deleting never cascades silently', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());

  t.test('DELETE /orgs/{org} with repositories: 422 naming them', async (t) => {
    const o = await f.createUser();
    await f.request('POST', '/orgs', { token: o.token, json: { username: 'org-with-repos' } });
    await f.request('POST', '/org/org-with-repos/repos', { token: o.token, json: { name: 'keep-me', private: true } });
    const res = await f.request('DELETE', '/orgs/org-with-repos', { token: o.token });
    t.equal(res.status, 422);
    t.match(res.json.message, /org-with-repos\/keep-me/);
    t.equal((await f.request('GET', '/repos/org-with-repos/keep-me', { token: o.token })).status, 200, 'the repository is still there');
    t.equal((await f.request('DELETE', '/repos/org-with-repos/keep-me', { token: o.token })).status, 204);
    t.equal((await f.request('DELETE', '/orgs/org-with-repos', { token: o.token })).status, 204, 'empty: it goes');
  });

  t.test('DELETE /admin/users/{u} of an owner of repositories: 422 unless purge=true', async (t) => {
    const u = await f.createUser();
    await f.request('POST', '/user/repos', { token: u.token, json: { name: 'mine' } });
    const res = await f.request('DELETE', `/admin/users/${u.username}`, { token: f.admin.token });
    t.equal(res.status, 422);
    t.match(res.json.message, new RegExp(`${u.username}/mine`));
    t.equal((await f.request('GET', `/users/${u.username}`)).status, 200, 'the account is still there');
    t.equal((await f.request('DELETE', `/admin/users/${u.username}?purge=true`, { token: f.admin.token })).status, 204);
    t.equal((await f.request('GET', `/users/${u.username}`)).status, 404);
    t.equal((await f.request('GET', `/repos/${u.username}/mine`, { token: f.admin.token })).status, 404, 'its repositories went first');
  });

  t.test('the last owner of an organization: not deleted, even with purge; cannot leave', async (t) => {
    const u = await f.createUser();
    const second = await f.createUser();
    await f.request('POST', '/orgs', { token: u.token, json: { username: 'lonely-org' } });
    await f.request('POST', '/user/repos', { token: u.token, json: { name: 'purgeable' } });
    for (const q of ['', '?purge=true']) {
      const res = await f.request('DELETE', `/admin/users/${u.username}${q}`, { token: f.admin.token });
      t.equal(res.status, 422, `delete${q}`);
      t.match(res.json.message, /last owner of organization lonely-org/);
    }
    t.equal((await f.request('GET', `/repos/${u.username}/purgeable`, { token: u.token })).status, 200, 'a refused purge removed nothing');
    t.equal((await f.request('DELETE', `/orgs/lonely-org/members/${u.username}`, { token: u.token })).status, 422, 'cannot leave');
    // With a second owner the first may go (with purge, as it owns a repository).
    const teams = await f.request('GET', '/orgs/lonely-org/teams', { token: u.token });
    const ownersTeam = teams.json.find((x: any) => x.name === 'Owners');
    t.equal((await f.request('PUT', `/teams/${ownersTeam.id}/members/${second.username}`, { token: u.token })).status, 204);
    t.equal((await f.request('DELETE', `/admin/users/${u.username}?purge=true`, { token: f.admin.token })).status, 204);
    const members = await f.request('GET', '/orgs/lonely-org/members', { token: second.token });
    t.same(members.json.map((m: any) => m.login), [second.username], 'the organization keeps an owner');
  });
});
