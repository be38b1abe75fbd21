// Organizations and accounts as modern Gitea shows them: the full Organization/Team shapes, PATCH /orgs and
// PATCH /teams, public and concealed membership, team units and can_create_org_repo, org permissions, and the
// visibility of limited/private organizations and users (404 to whoever may not see them, everywhere they appear).
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { definePlugin } from '../../core/plugin.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { paramsSchema, nameParam } from '../../schemas/common.js';

const gpgFixture = (name: string) => readFileSync(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'gpg', name), 'utf8');

/**
 * Test-only: sets a user's `visibility` (the admin/settings routes that store it belong to another capability; this
 * keeps these tests independent of them).
 */
const visibilitySetter = definePlugin({
  name: 'test-visibility-setter',
  dependencies: ['users'],
  routes: [{
    method: 'PUT', path: '/test-visibility/:username/:visibility', auth: 'admin',
    schema: { params: paramsSchema({ username: nameParam, visibility: { type: 'string', enum: ['public', 'limited', 'private'] } }) },
    async handler(rc) {
      const users = rc.app.services.get('users') as any;
      const account = await users.byName(rc.params.username);
      // Through the service: it keeps the in-memory account index (search, visibility) in step with the store.
      await users.editAccount(account, { visibility: rc.params.visibility });
      return { status: 204 };
    },
  }],
});

async function setUserVisibility(f: TestForge, user: TestUser, visibility: string): Promise<void> {
  const res = await f.request('PUT', `/test-visibility/${user.username}/${visibility}`, { token: f.admin.token });
  if (res.status !== 204) throw new Error(`setting visibility failed: ${res.status} ${res.text}`);
}

t.test('organizations: shape, PATCH, visibility, public members, teams, permissions', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'ov-owner' });
  const member = await f.createUser({ username: 'ov-member' });
  const stranger = await f.createUser({ username: 'ov-stranger' });
  const collab = await f.createUser({ username: 'ov-collab' });

  let res = await f.request('POST', '/orgs', {
    token: owner.token,
    json: { username: 'ov-org', full_name: 'OV Org', email: 'team@ov.example', website: 'https://ov.example', location: 'Here', description: 'd', visibility: 'public', repo_admin_change_team_access: true },
  });
  t.equal(res.status, 201);
  t.same(res.json, {
    id: res.json.id, name: 'ov-org', username: 'ov-org', full_name: 'OV Org', email: 'team@ov.example', avatar_url: `${f.url}/avatars/${res.json.id}`,
    description: 'd', website: 'https://ov.example', location: 'Here', visibility: 'public', repo_admin_change_team_access: true,
  }, 'the whole Organization shape, stored');
  res = await f.request('POST', '/orgs', { token: owner.token, json: { username: 'ov-bad', email: 'not-an-address' } });
  t.equal(res.status, 422, 'a malformed email');
  res = await f.request('POST', '/orgs', { token: owner.token, json: { username: 'ov-bad', visibility: 'secret' } });
  t.equal(res.status, 422, 'an unknown visibility');

  t.test('GET /orgs/{org}: email only for signed-in callers', async (t) => {
    t.equal((await f.request('GET', '/orgs/ov-org')).json.email, '');
    t.equal((await f.request('GET', '/orgs/OV-ORG', { token: stranger.token })).json.email, 'team@ov.example');
  });

  t.test('PATCH /orgs/{org}', async (t) => {
    let r = await f.request('PATCH', '/orgs/ov-org', { token: stranger.token, json: { full_name: 'x' } });
    t.equal(r.status, 403, 'not an owner');
    r = await f.request('PATCH', '/orgs/ov-org', { token: owner.token, json: { full_name: 'Renamed', location: '', repo_admin_change_team_access: false } });
    t.equal(r.status, 200);
    t.equal(r.json.full_name, 'Renamed');
    t.equal(r.json.location, '');
    t.equal(r.json.website, 'https://ov.example', 'fields not sent stay');
    t.equal(r.json.repo_admin_change_team_access, false);
    r = await f.request('PATCH', '/orgs/ov-org', { token: owner.token, json: { email: 'nope' } });
    t.equal(r.status, 422);
    r = await f.request('PATCH', '/orgs/ov-org', { token: owner.token, json: { location: 'x'.repeat(51) } });
    t.equal(r.status, 422);
    r = await f.request('PATCH', '/orgs/ov-org', { token: f.admin.token, json: { description: 'by admin' } });
    t.equal(r.status, 200, 'site admins edit any organization');
    t.equal((await f.request('GET', '/orgs/ov-org')).json.description, 'by admin', 'stored');
    t.equal((await f.request('PATCH', '/orgs/nobody-org', { token: owner.token, json: {} })).status, 404);
  });

  // A team with write on every repository, the member in it; a public and a private repository; a collaborator.
  res = await f.request('POST', '/orgs/ov-org/teams', { token: owner.token, json: { name: 'devs', permission: 'write', includes_all_repositories: true } });
  t.equal(res.status, 201);
  const devs = res.json;
  t.equal((await f.request('PUT', `/teams/${devs.id}/members/ov-member`, { token: owner.token })).status, 204);
  t.equal((await f.request('POST', '/orgs/ov-org/repos', { token: owner.token, json: { name: 'pub' } })).status, 201);
  res = await f.request('POST', '/orgs/ov-org/repos', { token: owner.token, json: { name: 'shared' } });
  const sharedId = res.json.id;
  t.equal((await f.request('PUT', '/repos/ov-org/shared/collaborators/ov-collab', { token: owner.token, json: { permission: 'read' } })).status, 204);

  t.test('teams: shape with units, PATCH, member, search, repository', async (t) => {
    t.same(Object.keys(devs).sort(), ['can_create_org_repo', 'description', 'id', 'includes_all_repositories', 'name', 'organization', 'permission', 'units', 'units_map'].sort());
    t.equal(devs.organization.name, 'ov-org');
    t.equal(devs.units_map['repo.code'], 'write');
    t.equal(devs.units_map['repo.ext_issues'], 'read', 'external units only read');
    t.equal(devs.can_create_org_repo, false);
    let r = await f.request('POST', '/orgs/ov-org/teams', { token: owner.token, json: { name: 'mixed', units_map: { 'repo.code': 'read', 'repo.issues': 'write' } } });
    t.equal(r.status, 201);
    t.equal(r.json.permission, 'read', 'the lowest unit access');
    t.same(r.json.units, ['repo.code', 'repo.issues']);
    t.same(r.json.units_map, { 'repo.code': 'read', 'repo.issues': 'write' });
    const mixed = r.json;
    r = await f.request('POST', '/orgs/ov-org/teams', { token: owner.token, json: { name: 'bad', units: ['repo.nonsense'] } });
    t.equal(r.status, 422, 'an unknown unit');
    r = await f.request('PATCH', `/teams/${mixed.id}`, { token: owner.token, json: { name: 'mixed2', description: 'about', permission: 'admin', can_create_org_repo: true } });
    t.equal(r.status, 200);
    t.equal(r.json.name, 'mixed2');
    t.equal(r.json.description, 'about');
    t.equal(r.json.permission, 'admin');
    t.equal(r.json.units_map['repo.issues'], 'admin', 'an admin team has every unit at admin');
    t.equal(r.json.can_create_org_repo, true);
    t.equal((await f.request('GET', `/teams/${mixed.id}`, { token: owner.token })).json.name, 'mixed2', 'stored');
    r = await f.request('PATCH', `/teams/${mixed.id}`, { token: member.token, json: { name: 'x' } });
    t.equal(r.status, 403, 'members do not manage teams');
    r = await f.request('PATCH', `/teams/${devs.id}`, { token: owner.token, json: { name: 'mixed2' } });
    t.equal(r.status, 409, 'a name taken in the organization');
    const teams = (await f.request('GET', '/orgs/ov-org/teams', { token: owner.token })).json;
    const owners = teams.find((x: any) => x.name === 'Owners');
    r = await f.request('PATCH', `/teams/${owners.id}`, { token: owner.token, json: { permission: 'read', can_create_org_repo: false } });
    t.equal(r.status, 200);
    t.equal(r.json.permission, 'owner', 'the Owners team keeps its permission');
    t.equal(r.json.can_create_org_repo, true);
    t.equal((await f.request('DELETE', `/teams/${mixed.id}`, { token: owner.token })).status, 204);

    r = await f.request('GET', `/teams/${devs.id}/members/ov-member`, { token: owner.token });
    t.equal(r.status, 200);
    t.equal(r.json.login, 'ov-member');
    t.equal((await f.request('GET', `/teams/${devs.id}/members/ov-stranger`, { token: owner.token })).status, 404);
    t.equal((await f.request('GET', `/teams/${devs.id}/members/ov-member`, { token: stranger.token })).status, 404, 'a stranger sees no team');

    r = await f.request('GET', '/orgs/ov-org/teams/search?q=DEV', { token: member.token });
    t.equal(r.status, 200);
    t.equal(r.json.ok, true);
    t.same(r.json.data.map((x: any) => x.name), ['devs']);
    t.equal((await f.request('GET', '/orgs/ov-org/teams/search?q=dev', { token: stranger.token })).status, 403);

    r = await f.request('GET', `/teams/${devs.id}/repos/ov-org/pub`, { token: member.token });
    t.equal(r.status, 200, 'an includes-all team reaches every repository');
    t.equal(r.json.full_name, 'ov-org/pub');
    const listed = (await f.request('POST', '/orgs/ov-org/teams', { token: owner.token, json: { name: 'listed' } })).json;
    t.equal((await f.request('GET', `/teams/${listed.id}/repos/ov-org/pub`, { token: owner.token })).status, 404, 'not in the list');
    t.equal((await f.request('PUT', `/teams/${listed.id}/repos/ov-org/pub`, { token: owner.token })).status, 204);
    t.equal((await f.request('GET', `/teams/${listed.id}/repos/ov-org/pub`, { token: owner.token })).status, 200);
  });

  t.test('can_create_org_repo and GET /users/{u}/orgs/{org}/permissions', async (t) => {
    let r = await f.request('GET', '/users/ov-member/orgs/ov-org/permissions', { token: stranger.token });
    t.equal(r.status, 200);
    t.same(r.json, { can_read: true, can_write: true, is_admin: false, is_owner: false, can_create_repository: false });
    r = await f.request('GET', '/users/ov-owner/orgs/ov-org/permissions');
    t.same(r.json, { can_read: true, can_write: true, is_admin: true, is_owner: true, can_create_repository: true });
    r = await f.request('GET', '/users/ov-stranger/orgs/ov-org/permissions');
    t.same(r.json, { can_read: false, can_write: false, is_admin: false, is_owner: false, can_create_repository: false });
    t.equal((await f.request('GET', '/users/ov-stranger/orgs/nobody-org/permissions')).status, 404);
    t.equal((await f.request('POST', '/orgs/ov-org/repos', { token: member.token, json: { name: 'by-member' } })).status, 403);
    t.equal((await f.request('PATCH', `/teams/${devs.id}`, { token: owner.token, json: { can_create_org_repo: true } })).status, 200);
    t.equal((await f.request('POST', '/orgs/ov-org/repos', { token: member.token, json: { name: 'by-member' } })).status, 201, 'a team with can_create_org_repo');
    r = await f.request('GET', '/users/ov-member/orgs/ov-org/permissions');
    t.equal(r.json.can_create_repository, true);
  });

  t.test('public and concealed membership', async (t) => {
    let r = await f.request('GET', '/orgs/ov-org/members');
    t.same(r.json, [], 'memberships are concealed by default');
    t.equal(r.headers.get('x-total-count'), '0');
    t.equal((await f.request('GET', '/orgs/ov-org/public_members/ov-member')).status, 404);
    t.equal((await f.request('PUT', '/orgs/ov-org/public_members/ov-member', { token: stranger.token })).status, 403, 'not yours');
    t.equal((await f.request('PUT', '/orgs/ov-org/public_members/ov-stranger', { token: stranger.token })).status, 404, 'not a member');
    t.equal((await f.request('PUT', '/orgs/ov-org/public_members/ov-member', { token: member.token })).status, 204, 'the member themself');
    t.equal((await f.request('PUT', '/orgs/ov-org/public_members/ov-member', { token: member.token })).status, 204, 'idempotent');
    t.equal((await f.request('GET', '/orgs/ov-org/public_members/ov-member')).status, 204);
    r = await f.request('GET', '/orgs/ov-org/public_members');
    t.same(r.json.map((u: any) => u.login), ['ov-member']);
    r = await f.request('GET', '/orgs/ov-org/members', { token: stranger.token });
    t.same(r.json.map((u: any) => u.login), ['ov-member'], 'non-members see the public members');
    r = await f.request('GET', '/orgs/ov-org/members', { token: member.token });
    t.same(r.json.map((u: any) => u.login), ['ov-member', 'ov-owner'], 'members see everyone');
    r = await f.request('GET', '/users/ov-member/orgs');
    t.same(r.json.map((o: any) => o.name), ['ov-org'], 'a public membership shows on the profile');
    t.same((await f.request('GET', '/users/ov-owner/orgs', { token: stranger.token })).json, [], 'a concealed one does not');
    t.same((await f.request('GET', '/users/ov-owner/orgs', { token: owner.token })).json.map((o: any) => o.name), ['ov-org'], 'the user sees all');

    // GET /orgs/{org}/members/{username}: members get the answer, others are sent to the public check.
    t.equal((await f.request('GET', '/orgs/ov-org/members/ov-owner', { token: member.token })).status, 204);
    t.equal((await f.request('GET', '/orgs/ov-org/members/ov-stranger', { token: member.token })).status, 404);
    t.equal((await f.request('GET', '/orgs/ov-org/members/ov-stranger', { token: stranger.token })).status, 404, 'asking about oneself');
    const redirected = await fetch(`${f.api}/orgs/ov-org/members/ov-owner`, { redirect: 'manual' });
    t.equal(redirected.status, 303);
    t.equal(redirected.headers.get('location'), `${f.api}/orgs/ov-org/public_members/ov-owner`);
    t.equal((await f.request('GET', '/orgs/ov-org/members/ov-member')).status, 204, 'followed: a public member');
    t.equal((await f.request('GET', '/orgs/ov-org/members/ov-owner')).status, 404, 'followed: concealed');

    t.equal((await f.request('PUT', '/orgs/ov-org/public_members/ov-owner', { token: owner.token })).status, 204);
    t.equal((await f.request('DELETE', '/orgs/ov-org/public_members/ov-member', { token: owner.token })).status, 204, 'an owner conceals a member');
    t.same((await f.request('GET', '/orgs/ov-org/public_members')).json.map((u: any) => u.login), ['ov-owner']);
    // Leaving the organization ends the public membership too.
    const leaver = await f.createUser({ username: 'ov-leaver' });
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/ov-leaver`, { token: owner.token })).status, 204);
    t.equal((await f.request('PUT', '/orgs/ov-org/public_members/ov-leaver', { token: leaver.token })).status, 204);
    t.equal((await f.request('DELETE', '/orgs/ov-org/members/ov-leaver', { token: leaver.token })).status, 204);
    t.equal((await f.request('GET', '/orgs/ov-org/public_members/ov-leaver')).status, 404);
  });

  t.test('GET /orgs and GET /repositories/{id}', async (t) => {
    await f.request('POST', '/orgs', { token: owner.token, json: { username: 'ov-limited', visibility: 'limited' } });
    await f.request('POST', '/orgs', { token: owner.token, json: { username: 'ov-private', visibility: 'private' } });
    const names = async (token?: string) => (await f.request('GET', '/orgs', { token })).json.map((o: any) => o.name);
    t.same(await names(), ['ov-org']);
    t.same(await names(stranger.token), ['ov-limited', 'ov-org']);
    t.same(await names(f.admin.token), ['ov-limited', 'ov-org', 'ov-private']);
    let r = await f.request('GET', `/repositories/${sharedId}`);
    t.equal(r.status, 200);
    t.equal(r.json.full_name, 'ov-org/shared');
    t.equal((await f.request('GET', '/repositories/999999')).status, 404);
    r = await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'hidden', private: true } });
    t.equal((await f.request('GET', `/repositories/${r.json.id}`, { token: stranger.token })).status, 404, 'private: as missing');
    t.equal((await f.request('GET', `/repositories/${r.json.id}`, { token: owner.token })).status, 200);
  });

  t.test('a limited, then private organization disappears for those who may not see it', async (t) => {
    t.equal((await f.request('PATCH', '/orgs/ov-org', { token: owner.token, json: { visibility: 'limited' } })).status, 200);
    t.equal((await f.request('GET', '/orgs/ov-org')).status, 404, 'anonymous: limited');
    t.equal((await f.request('GET', '/repos/ov-org/pub')).status, 404, 'its public repository too');
    t.equal((await f.request('GET', `/repositories/${sharedId}`)).status, 404);
    t.equal((await f.request('GET', '/orgs/ov-org/repos')).status, 404);
    t.equal((await f.request('GET', '/orgs/ov-org/public_members')).status, 404);
    let r = await f.request('GET', '/repos/search?q=pub');
    t.notOk(r.json.data.some((x: any) => x.owner.login === 'ov-org'), 'left out of anonymous search');
    r = await f.request('GET', '/repos/search');
    t.notOk(r.json.data.some((x: any) => x.owner.login === 'ov-org'), 'left out of the anonymous listing');
    t.equal((await f.request('GET', '/orgs/ov-org', { token: stranger.token })).status, 200, 'signed in: visible');
    t.equal((await f.request('GET', '/repos/ov-org/pub', { token: stranger.token })).status, 200);

    t.equal((await f.request('PATCH', '/orgs/ov-org', { token: owner.token, json: { visibility: 'private' } })).status, 200);
    for (const p of ['/orgs/ov-org', '/repos/ov-org/pub', `/repositories/${sharedId}`, '/orgs/ov-org/repos', '/orgs/ov-org/members', '/users/ov-org/repos']) {
      t.equal((await f.request('GET', p, { token: stranger.token })).status, 404, `stranger: ${p}`);
      t.equal((await f.request('GET', p, { token: member.token })).status, 200, `member: ${p}`);
      t.equal((await f.request('GET', p, { token: f.admin.token })).status, 200, `admin: ${p}`);
    }
    r = await f.request('GET', '/repos/search?q=pub', { token: stranger.token });
    t.notOk(r.json.data.some((x: any) => x.owner.login === 'ov-org'), 'left out of a stranger\'s search');
    r = await f.request('GET', '/repos/search?q=pub', { token: member.token });
    t.ok(r.json.data.some((x: any) => x.full_name === 'ov-org/pub'), 'a member finds it');
    t.same((await f.request('GET', '/users/ov-member/orgs', { token: stranger.token })).json, [], 'a private org is not listed on profiles');
    t.same((await f.request('GET', '/orgs', { token: stranger.token })).json.map((o: any) => o.name), ['ov-limited']);
    // A collaborator who is not a member still reaches the repository they collaborate on (Gitea).
    t.equal((await f.request('GET', '/repos/ov-org/shared', { token: collab.token })).status, 200, 'collaborator: their repository');
    t.equal((await f.request('GET', '/repos/ov-org/pub', { token: collab.token })).status, 404, 'collaborator: not the others');
    // Issue search leaves the hidden organization's public issues out.
    t.equal((await f.request('POST', '/repos/ov-org/pub/issues', { token: owner.token, json: { title: 'secret plans' } })).status, 201);
    r = await f.request('GET', '/repos/issues/search?q=secret', { token: stranger.token });
    t.same(r.json, [], 'a stranger finds no issue of it');
    t.equal(r.headers.get('x-total-count'), '0');
    r = await f.request('GET', '/repos/issues/search?q=secret', { token: member.token });
    t.equal(r.json.length, 1, 'a member does');
    t.equal((await f.request('PATCH', '/orgs/ov-org', { token: owner.token, json: { visibility: 'public' } })).status, 200);
    t.equal((await f.request('GET', '/repos/ov-org/pub')).status, 200, 'public again');
  });

  t.test('issues: the team filter of /repos/issues/search and team writers as assignees', async (t) => {
    const org = await f.request('POST', '/orgs', { token: owner.token, json: { username: 'ov-teams' } });
    t.equal(org.status, 201);
    await f.request('POST', '/orgs/ov-teams/repos', { token: owner.token, json: { name: 'alpha' } });
    await f.request('POST', '/orgs/ov-teams/repos', { token: owner.token, json: { name: 'beta' } });
    const writers = (await f.request('POST', '/orgs/ov-teams/teams', { token: owner.token, json: { name: 'writers', permission: 'write' } })).json;
    const readers = (await f.request('POST', '/orgs/ov-teams/teams', { token: owner.token, json: { name: 'readers', permission: 'read', includes_all_repositories: true } })).json;
    t.equal((await f.request('PUT', `/teams/${writers.id}/repos/ov-teams/alpha`, { token: owner.token })).status, 204);
    t.equal((await f.request('PUT', `/teams/${writers.id}/members/ov-member`, { token: owner.token })).status, 204);
    t.equal((await f.request('PUT', `/teams/${readers.id}/members/ov-stranger`, { token: owner.token })).status, 204);
    for (const repo of ['alpha', 'beta']) {
      t.equal((await f.request('POST', `/repos/ov-teams/${repo}/issues`, { token: owner.token, json: { title: `issue in ${repo}` } })).status, 201);
    }
    let r = await f.request('GET', '/repos/issues/search?owner=ov-teams&team=writers', { token: member.token });
    t.equal(r.status, 200);
    t.same(r.json.map((i: any) => i.title), ['issue in alpha'], 'the team\'s repositories only');
    t.equal(r.headers.get('x-total-count'), '1');
    r = await f.request('GET', '/repos/issues/search?owner=ov-teams&team=readers', { token: member.token });
    t.same(r.json.map((i: any) => i.title).sort(), ['issue in alpha', 'issue in beta'], 'includes_all: every repository');
    t.equal((await f.request('GET', '/repos/issues/search?owner=ov-teams&team=nobody', { token: member.token })).status, 404);
    r = await f.request('GET', '/repos/ov-teams/alpha/assignees', { token: owner.token });
    t.same(r.json.map((u: any) => u.login), ['ov-owner', 'ov-member'], 'the Owners team and a writing team\'s member');
    r = await f.request('GET', '/repos/ov-teams/beta/assignees', { token: owner.token });
    t.same(r.json.map((u: any) => u.login), ['ov-owner'], 'not the writers\' repository; readers never');
    r = await f.request('PATCH', '/repos/ov-teams/alpha/issues/1', { token: owner.token, json: { assignees: ['ov-member'] } });
    t.equal(r.status, 201);
    t.same(r.json.assignees.map((u: any) => u.login), ['ov-member']);
  });
});

t.test('user visibility: limited and private accounts', async (t) => {
  const f = await startForge({ extraPlugins: [visibilitySetter] });
  t.teardown(() => f.close());
  const hermit = await f.createUser({ username: 'uv-hermit' });
  const friend = await f.createUser({ username: 'uv-friend' });
  const mate = await f.createUser({ username: 'uv-mate' });
  const stranger = await f.createUser({ username: 'uv-stranger' });
  t.equal((await f.request('POST', '/user/repos', { token: hermit.token, json: { name: 'diary' } })).status, 201);
  t.equal((await f.request('PUT', '/user/starred/uv-hermit/diary', { token: hermit.token })).status, 204);
  t.equal((await f.request('PUT', '/user/following/uv-friend', { token: hermit.token })).status, 204, 'the hermit follows a friend');
  const org = await f.request('POST', '/orgs', { token: hermit.token, json: { username: 'uv-club' } });
  const owners = (await f.request('GET', '/orgs/uv-club/teams', { token: hermit.token })).json[0];
  t.equal((await f.request('PUT', `/teams/${owners.id}/members/uv-mate`, { token: hermit.token })).status, 204, 'a mate in the same org');
  t.equal(org.status, 201);
  const paths = ['/users/uv-hermit', '/users/uv-hermit/repos', '/users/uv-hermit/followers', '/users/uv-hermit/following', '/users/uv-hermit/starred',
    '/users/uv-hermit/subscriptions', '/users/uv-hermit/keys', '/users/uv-hermit/gpg_keys', '/users/uv-hermit/orgs', '/repos/uv-hermit/diary'];

  await setUserVisibility(f, hermit, 'limited');
  for (const p of paths) {
    t.equal((await f.request('GET', p)).status, 404, `limited, anonymous: ${p}`);
    t.equal((await f.request('GET', p, { token: stranger.token })).status, 200, `limited, signed in: ${p}`);
  }
  let r = await f.request('GET', '/users/search?q=uv-');
  t.notOk(r.json.data.some((u: any) => u.login === 'uv-hermit'), 'limited: not in anonymous user search');
  t.equal(r.headers.get('x-total-count'), String(r.json.data.length));
  r = await f.request('GET', '/users/search?q=uv-', { token: stranger.token });
  t.ok(r.json.data.some((u: any) => u.login === 'uv-hermit'), 'limited: in a signed-in search');

  await setUserVisibility(f, hermit, 'private');
  for (const p of paths) {
    t.equal((await f.request('GET', p, { token: stranger.token })).status, 404, `private, stranger: ${p}`);
    t.equal((await f.request('GET', p, { token: f.admin.token })).status, 200, `private, admin: ${p}`);
    t.equal((await f.request('GET', p, { token: hermit.token })).status, 200, `private, self: ${p}`);
  }
  t.equal((await f.request('GET', '/users/uv-hermit', { token: friend.token })).status, 200, 'someone the private user follows sees the profile');
  t.equal((await f.request('GET', '/users/uv-hermit', { token: mate.token })).status, 200, 'so does a member of a shared organization');
  t.equal((await f.request('GET', '/repos/uv-hermit/diary', { token: friend.token })).status, 404, 'but not the repositories (Gitea: owner, admins, collaborators)');
  for (const q of ['', '?q=uv-', '?q=uv-hermit']) {
    r = await f.request('GET', `/users/search${q}`, { token: stranger.token });
    t.notOk(r.json.data.some((u: any) => u.login === 'uv-hermit'), `private: not in a stranger's user search (${q || 'no q'})`);
  }
  r = await f.request('GET', '/users/uv-friend/followers', { token: stranger.token });
  t.same(r.json, [], 'a private follower is left out of a stranger\'s view of the list');
  t.equal(r.headers.get('x-total-count'), '0');
  r = await f.request('GET', '/users/uv-friend/followers', { token: friend.token });
  t.same(r.json.map((u: any) => u.login), ['uv-hermit'], 'the followed user sees them');
  r = await f.request('GET', '/users/search?q=uv-hermit', { token: friend.token });
  t.ok(r.json.data.some((u: any) => u.login === 'uv-hermit'), 'the friend finds them');
  r = await f.request('GET', '/repos/search?q=diary', { token: stranger.token });
  t.same(r.json.data, [], 'their public repository is left out of search');
  t.equal(r.headers.get('x-total-count'), '0');
  r = await f.request('GET', '/repos/search?q=diary', { token: hermit.token });
  t.equal(r.json.data.length, 1);
  r = await f.request('GET', '/users/uv-hermit/starred', { token: hermit.token });
  t.equal(r.json.length, 1, 'the owner still sees their starred repository');
  t.equal((await f.request('PUT', '/user/starred/uv-hermit/diary', { token: stranger.token })).status, 404, 'a stranger cannot star it');
  await setUserVisibility(f, hermit, 'public');
  t.equal((await f.request('GET', '/repos/uv-hermit/diary')).status, 200, 'public again');
});

t.test('GPG keys: verified when an identity is a verified address of the owner', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const bob = await f.createUser({ username: 'gv-bob', email: 'bob@example.net' });
  const other = await f.createUser({ username: 'gv-other' });
  let r = await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: gpgFixture('ed25519.asc') } });
  t.equal(r.status, 201);
  t.equal(r.json.verified, true, 'the primary address is verified');
  t.ok(r.json.subkeys.every((s: any) => s.verified === true), 'subkeys share it');
  t.match(r.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.equal((await f.request('DELETE', `/user/gpg_keys/${r.json.id}`, { token: bob.token })).status, 204);
  t.equal((await f.request('POST', '/user/emails', { token: other.token, json: { emails: ['bob@example.net'] } })).status, 422, 'bob\'s primary address is taken');
  const carol = await f.createUser({ username: 'gv-carol' });
  await f.request('DELETE', `/admin/users/gv-bob`, { token: f.admin.token });
  t.equal((await f.request('POST', '/user/emails', { token: carol.token, json: { emails: ['bob@example.net'] } })).status, 201);
  r = await f.request('POST', '/user/gpg_keys', { token: carol.token, json: { armored_public_key: gpgFixture('ed25519.asc') } });
  t.equal(r.status, 201);
  t.equal(r.json.verified, false, 'an unverified added address does not verify the key');
  r = await f.request('GET', '/users/gv-carol/gpg_keys');
  t.equal(r.json[0].verified, false);
});

// Lists of stars and watches leave out the public repositories of owners the caller may not see. The repos service
// answers only the hidden owners that own public repositories (kept per shared set): a hidden account's first public
// repository, created or made public after that answer was kept, must still be left out.
t.test('starred and subscription lists hide public repositories of hidden owners, also ones that became public later', async (t) => {
  const f = await startForge({ extraPlugins: [visibilitySetter] });
  t.teardown(() => f.close());
  const fan = await f.createUser({ username: 'sv-fan' });
  const open = await f.createUser({ username: 'sv-open' });
  const shy = await f.createUser({ username: 'sv-shy' });
  const late = await f.createUser({ username: 'sv-late' });
  for (const [u, name] of [[open, 'plaza'], [shy, 'den']] as const) {
    t.equal((await f.request('POST', '/user/repos', { token: u.token, json: { name } })).status, 201);
  }
  await setUserVisibility(f, shy, 'limited');
  await setUserVisibility(f, late, 'private');
  const lists = ['/users/sv-fan/starred', '/users/sv-fan/subscriptions'];
  const check = async (want: { anon: string[]; fan: string[] }, what: string) => {
    for (const list of lists) {
      const anon = await f.request('GET', list);
      t.same(anon.json.map((r: any) => r.full_name).sort(), want.anon, `${what}: ${list} anonymous`);
      t.equal(anon.headers.get('x-total-count'), String(want.anon.length), `${what}: ${list} anonymous total`);
      const own = await f.request('GET', list, { token: fan.token });
      t.same(own.json.map((r: any) => r.full_name).sort(), want.fan, `${what}: ${list} as the fan`);
      t.equal(own.headers.get('x-total-count'), String(want.fan.length), `${what}: ${list} fan total`);
    }
  };
  for (const repo of ['sv-open/plaza', 'sv-shy/den']) {
    t.equal((await f.request('PUT', `/user/starred/${repo}`, { token: fan.token })).status, 204);
    t.equal((await f.request('PUT', `/repos/${repo}/subscription`, { token: fan.token })).status, 200);
  }
  // Anonymous callers cannot see the limited owner; the fan (signed in) can.
  await check({ anon: ['sv-open/plaza'], fan: ['sv-open/plaza', 'sv-shy/den'] }, 'before');
  // The private account's first repository: private, with the fan as a collaborator, then made public.
  t.equal((await f.request('POST', '/user/repos', { token: late.token, json: { name: 'attic', private: true } })).status, 201);
  t.equal((await f.request('PUT', '/repos/sv-late/attic/collaborators/sv-fan', { token: late.token, json: { permission: 'read' } })).status, 204);
  t.equal((await f.request('PUT', '/user/starred/sv-late/attic', { token: fan.token })).status, 204);
  t.equal((await f.request('PUT', '/repos/sv-late/attic/subscription', { token: fan.token })).status, 200);
  await check({ anon: ['sv-open/plaza'], fan: ['sv-late/attic', 'sv-open/plaza', 'sv-shy/den'] }, 'private repository of a private owner');
  t.equal((await f.request('PATCH', '/repos/sv-late/attic', { token: late.token, json: { private: false } })).status, 200);
  await check({ anon: ['sv-open/plaza'], fan: ['sv-late/attic', 'sv-open/plaza', 'sv-shy/den'] }, 'made public, owner still private');
  // A third account, seen by nobody but itself: the fan sees the private owner's repository only as a collaborator.
  const other = await f.createUser({ username: 'sv-other' });
  t.equal((await f.request('GET', '/users/sv-fan/starred', { token: other.token })).json.map((r: any) => r.full_name).sort().join(),
    'sv-open/plaza,sv-shy/den', 'another signed-in user sees the limited owner, not the private one');
  await setUserVisibility(f, late, 'public');
  await check({ anon: ['sv-late/attic', 'sv-open/plaza'], fan: ['sv-late/attic', 'sv-open/plaza', 'sv-shy/den'] }, 'owner made public');
});
