// gitea-js, group "organization": every organization method forgekit serves, called through the real client; status
// and shape (every field gitea-js declares, with its type) checked. Calls are type-checked against gitea-js.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';

t.test('gitea-js organization methods', async (t) => {
  // Hooks aim at a loopback address that is never called (no hook event fires here).
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } as any });
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'gjo-owner' });
  const member = await f.createUser({ username: 'gjo-member' });
  const api = giteaClient(f, owner.token);
  const asMember = giteaClient(f, member.token);
  const anonymous = giteaClient(f);

  t.test('organizations', async (t) => {
    const made = await settle(api.orgs.orgCreate({ username: 'gjo-org', full_name: 'GJO', email: 'org@gjo.example', visibility: 'public', repo_admin_change_team_access: true }));
    t.equal(made.status, 201);
    t.equal(made.data.name, 'gjo-org');
    assertConforms(t, 'orgCreate', made.data);
    const got = await settle(anonymous.orgs.orgGet('GJO-ORG'));
    t.equal(got.status, 200);
    t.equal(got.data.email, '', 'no contact address for anonymous callers');
    assertConforms(t, 'orgGet', got.data);
    const edited = await settle(api.orgs.orgEdit('gjo-org', { description: 'edited', location: 'Earth', visibility: 'limited' }));
    t.equal(edited.status, 200);
    t.equal(edited.data.visibility, 'limited');
    assertConforms(t, 'orgEdit', edited.data);
    t.equal((await settle(anonymous.orgs.orgGet('gjo-org'))).status, 404, 'limited: hidden from anonymous callers');
    t.equal((await settle(api.orgs.orgEdit('gjo-org', { visibility: 'public' }))).status, 200);
    const all = await settle(anonymous.orgs.orgGetAll());
    t.equal(all.status, 200);
    t.same(all.data.map((o) => o.name), ['gjo-org']);
    assertConforms(t, 'orgGetAll', all.data);
    const mine = await settle(api.user.orgListCurrentUserOrgs());
    t.same(mine.data.map((o) => o.name), ['gjo-org']);
    assertConforms(t, 'orgListCurrentUserOrgs', mine.data);
    const theirs = await settle(api.users.orgListUserOrgs('gjo-owner'));
    t.same(theirs.data.map((o) => o.name), ['gjo-org']);
    assertConforms(t, 'orgListUserOrgs', theirs.data);
    const perms = await settle(anonymous.users.orgGetUserPermissions('gjo-owner', 'gjo-org'));
    t.equal(perms.status, 200);
    t.same(perms.data, { can_read: true, can_write: true, is_admin: true, is_owner: true, can_create_repository: true });
    assertConforms(t, 'orgGetUserPermissions', perms.data);
    // A 1×1 PNG as the organization's avatar, served at its avatar_url; deleting goes back to the identicon.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    t.equal((await settle(api.orgs.orgUpdateAvatar('gjo-org', { image: png }))).status, 204);
    let image = await fetch(got.data.avatar_url!);
    t.equal(image.headers.get('content-type'), 'image/png');
    t.equal((await settle(asMember.orgs.orgUpdateAvatar('gjo-org', { image: png }))).status, 403, 'owners only');
    t.equal((await settle(api.orgs.orgUpdateAvatar('gjo-org', { image: 'bm90IGFuIGltYWdl' }))).status, 422, 'not an image');
    t.equal((await settle(api.orgs.orgDeleteAvatar('gjo-org'))).status, 204);
    image = await fetch(got.data.avatar_url!);
    t.equal(image.headers.get('content-type'), 'image/svg+xml');
    const throwaway = await settle(api.orgs.orgCreate({ username: 'gjo-gone' }));
    t.equal(throwaway.status, 201);
    t.equal((await settle(api.orgs.orgDelete('gjo-gone'))).status, 204);
    t.equal((await settle(anonymous.orgs.orgGet('gjo-gone'))).status, 404);
  });

  t.test('repositories', async (t) => {
    const one = await settle(api.org.createOrgRepoDeprecated('gjo-org', { name: 'old-path' }));
    t.equal(one.status, 201);
    assertConforms(t, 'createOrgRepoDeprecated', one.data);
    const two = await settle(api.orgs.createOrgRepo('gjo-org', { name: 'new-path' }));
    t.equal(two.status, 201);
    assertConforms(t, 'createOrgRepo', two.data);
    const list = await settle(anonymous.orgs.orgListRepos('gjo-org'));
    t.same(list.data.map((r) => r.name), ['new-path', 'old-path']);
    assertConforms(t, 'orgListRepos', list.data);
  });

  t.test('teams', async (t) => {
    const made = await settle(api.orgs.orgCreateTeam('gjo-org', { name: 'devs', permission: 'write', units: ['repo.code', 'repo.issues'], can_create_org_repo: true }));
    t.equal(made.status, 201);
    t.same(made.data.units_map, { 'repo.code': 'write', 'repo.issues': 'write' });
    assertConforms(t, 'orgCreateTeam', made.data);
    const id = made.data.id!;
    const list = await settle(api.orgs.orgListTeams('gjo-org'));
    t.same(list.data.map((x) => x.name), ['devs', 'Owners']);
    assertConforms(t, 'orgListTeams', list.data);
    const found = await settle(api.orgs.teamSearch('gjo-org', { q: 'dev' }));
    t.equal(found.status, 200);
    t.equal(found.data.ok, true);
    t.same(found.data.data?.map((x) => x.name), ['devs']);
    assertConforms(t, 'teamSearch', found.data);
    const got = await settle(api.teams.orgGetTeam(id));
    t.equal(got.data.organization?.name, 'gjo-org');
    assertConforms(t, 'orgGetTeam', got.data);
    const edited = await settle(api.teams.orgEditTeam(id, { name: 'developers', description: 'they write', units_map: { 'repo.code': 'read', 'repo.issues': 'write' }, permission: 'write' }));
    t.equal(edited.status, 200);
    t.equal(edited.data.permission, 'read', 'the lowest unit access');
    assertConforms(t, 'orgEditTeam', edited.data);
    t.equal((await settle(api.teams.orgAddTeamMember(id, 'gjo-member'))).status, 204);
    // The caller's own teams across its organizations (GET /user/teams), with each team's organization, paged.
    const myTeams = await settle(asMember.user.userListTeams());
    t.equal(myTeams.status, 200);
    t.same(myTeams.data.map((x) => [x.name, x.organization?.name]), [['developers', 'gjo-org']]);
    t.equal(myTeams.headers.get('x-total-count'), '1');
    assertConforms(t, 'userListTeams', myTeams.data);
    const ownerTeams = await settle(api.user.userListTeams({ limit: 1 }));
    t.same(ownerTeams.data.map((x) => x.name), ['Owners'], 'by id: the Owners team came first');
    t.equal(ownerTeams.headers.get('x-total-count'), '1', 'the owner is in the Owners team only');
    t.equal((await settle(anonymous.user.userListTeams())).status, 401, 'signed-in callers only');
    const members = await settle(asMember.teams.orgListTeamMembers(id));
    t.same(members.data.map((u) => u.login), ['gjo-member']);
    assertConforms(t, 'orgListTeamMembers', members.data);
    const one = await settle(asMember.teams.orgListTeamMember(id, 'gjo-member'));
    t.equal(one.status, 200);
    assertConforms(t, 'orgListTeamMember', one.data);
    t.equal((await settle(api.teams.orgAddTeamRepository(id, 'gjo-org', 'new-path'))).status, 204);
    const repos = await settle(asMember.teams.orgListTeamRepos(id));
    t.same(repos.data.map((r) => r.name), ['new-path']);
    assertConforms(t, 'orgListTeamRepos', repos.data);
    const repo = await settle(asMember.teams.orgListTeamRepo(id, 'gjo-org', 'new-path'));
    t.equal(repo.status, 200);
    assertConforms(t, 'orgListTeamRepo', repo.data);
    t.equal((await settle(asMember.teams.orgListTeamRepo(id, 'gjo-org', 'old-path'))).status, 404);
    t.equal((await settle(api.teams.orgRemoveTeamRepository(id, 'gjo-org', 'new-path'))).status, 204);
    t.equal((await settle(asMember.teams.orgListTeamRepo(id, 'gjo-org', 'new-path'))).status, 404);

    // Membership, public and concealed.
    const everyone = await settle(asMember.orgs.orgListMembers('gjo-org'));
    t.same(everyone.data.map((u) => u.login), ['gjo-member', 'gjo-owner']);
    assertConforms(t, 'orgListMembers', everyone.data);
    t.equal((await settle(asMember.orgs.orgIsMember('gjo-org', 'gjo-owner'))).status, 204);
    t.equal((await settle(asMember.orgs.orgPublicizeMember('gjo-org', 'gjo-member'))).status, 204);
    t.equal((await settle(anonymous.orgs.orgIsPublicMember('gjo-org', 'gjo-member'))).status, 204);
    t.equal((await settle(anonymous.orgs.orgIsMember('gjo-org', 'gjo-member'))).status, 204, 'anonymous: redirected to the public check');
    const pub = await settle(anonymous.orgs.orgListPublicMembers('gjo-org'));
    t.same(pub.data.map((u) => u.login), ['gjo-member']);
    assertConforms(t, 'orgListPublicMembers', pub.data);
    t.equal((await settle(asMember.orgs.orgConcealMember('gjo-org', 'gjo-member'))).status, 204);
    t.equal((await settle(anonymous.orgs.orgIsPublicMember('gjo-org', 'gjo-member'))).status, 404);
    t.equal((await settle(api.teams.orgRemoveTeamMember(id, 'gjo-member'))).status, 204);
    t.equal((await settle(api.teams.orgAddTeamMember(id, 'gjo-member'))).status, 204);
    t.equal((await settle(api.orgs.orgDeleteMember('gjo-org', 'gjo-member'))).status, 204);
    t.equal((await settle(api.orgs.orgIsMember('gjo-org', 'gjo-member'))).status, 404);
    t.equal((await settle(api.teams.orgDeleteTeam(id))).status, 204);
    t.equal((await settle(api.teams.orgGetTeam(id))).status, 404);
  });

  t.test('labels', async (t) => {
    const made = await settle(api.orgs.orgCreateLabel('gjo-org', { name: 'kind/bug', color: '#ee0701' }));
    t.equal(made.status, 201);
    assertConforms(t, 'orgCreateLabel', made.data);
    const id = made.data.id!;
    const list = await settle(anonymous.orgs.orgListLabels('gjo-org'));
    t.same(list.data.map((l) => l.name), ['kind/bug']);
    assertConforms(t, 'orgListLabels', list.data);
    const got = await settle(anonymous.orgs.orgGetLabel('gjo-org', id));
    assertConforms(t, 'orgGetLabel', got.data);
    const edited = await settle(api.orgs.orgEditLabel('gjo-org', id, { description: 'broken' }));
    t.equal(edited.status, 200);
    assertConforms(t, 'orgEditLabel', edited.data);
    t.equal((await settle(api.orgs.orgDeleteLabel('gjo-org', id))).status, 204);
  });

  t.test('hooks', async (t) => {
    const made = await settle(api.orgs.orgCreateHook('gjo-org', { type: 'gitea', config: { url: 'http://127.0.0.1:9/never', content_type: 'json' }, events: ['issues'] }));
    t.equal(made.status, 201);
    assertConforms(t, 'orgCreateHook', made.data);
    const id = made.data.id!;
    const list = await settle(api.orgs.orgListHooks('gjo-org'));
    t.equal(list.data.length, 1);
    assertConforms(t, 'orgListHooks', list.data);
    const got = await settle(api.orgs.orgGetHook('gjo-org', id));
    assertConforms(t, 'orgGetHook', got.data);
    const edited = await settle(api.orgs.orgEditHook('gjo-org', id, { active: false }));
    t.equal(edited.status, 200);
    t.equal(edited.data.active, false);
    assertConforms(t, 'orgEditHook', edited.data);
    t.equal((await settle(api.orgs.orgDeleteHook('gjo-org', id))).status, 204);
  });
});
