// orgs plugin through HTTP: organizations, the Owners team, teams and membership, every status code.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { userListAsSingles } from '../helpers/user-lists.js';

t.test('organizations and teams', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'olga' });
  const member = await f.createUser({ username: 'mike' });
  const stranger = await f.createUser({ username: 'sam' });
  const other = await f.createUser({ username: 'otto' });
  const ownersTeamOf = async (org: string, token: string) =>
    (await f.request('GET', `/orgs/${org}/teams`, { token })).json.find((x: any) => x.name === 'Owners');

  t.test('POST /orgs', async (t) => {
    const res = await f.request('POST', '/orgs', {
      token: owner.token,
      json: { username: 'Acme', full_name: 'Acme Inc.', description: 'We make things', website: 'https://acme.example', location: 'Earth' },
    });
    t.equal(res.status, 201);
    t.match(res.json, {
      id: Number, username: 'Acme', full_name: 'Acme Inc.', description: 'We make things',
      website: 'https://acme.example', location: 'Earth', avatar_url: String,
    });
    t.equal((await f.request('POST', '/orgs', { json: { username: 'anon-org' } })).status, 401, 'anonymous');
    const missing = await f.request('POST', '/orgs', { token: owner.token, json: { full_name: 'x' } });
    t.equal(missing.status, 422, 'username is required');
    t.match(missing.json.message, /username/);
    t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'bad name' } })).status, 422, 'name rules');
    t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'repos' } })).status, 422, 'reserved name');
    t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'ACME' } })).status, 422, 'taken, case-insensitive');
    t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'MIKE' } })).status, 422, 'one namespace with users');
    t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'x', description: 'd'.repeat(256) } })).status, 422);
    t.equal((await f.request('POST', '/orgs', { token: owner.token, body: '{"username":' , headers: { 'Content-Type': 'application/json' } })).status, 400);

    const owners = await ownersTeamOf('acme', owner.token);
    t.match(owners, { name: 'Owners', permission: 'owner', includes_all_repositories: true }, 'the Owners team exists');
    const members = await f.request('GET', `/teams/${owners.id}/members`, { token: owner.token });
    t.same(members.json.map((u: any) => u.login), ['olga'], 'the creator is in the Owners team');
  });

  t.test('POST /admin/users/{username}/orgs', async (t) => {
    const res = await f.request('POST', `/admin/users/${other.username}/orgs`, { token: f.admin.token, json: { username: 'OttoCorp' } });
    t.equal(res.status, 201);
    t.equal(res.json.username, 'OttoCorp');
    const owners = await ownersTeamOf('ottocorp', other.token);
    const members = await f.request('GET', `/teams/${owners.id}/members`, { token: other.token });
    t.same(members.json.map((u: any) => u.login), ['otto'], 'owned by that user, not by the admin');
    t.equal((await f.request('GET', '/orgs/ottocorp/members/root', { token: f.admin.token })).status, 404, 'the admin is not a member');
    t.equal((await f.request('POST', `/admin/users/${other.username}/orgs`, { token: owner.token, json: { username: 'nope' } })).status, 403, 'not an admin');
    t.equal((await f.request('POST', `/admin/users/${other.username}/orgs`, { json: { username: 'nope' } })).status, 401);
    t.equal((await f.request('POST', '/admin/users/nobody-here/orgs', { token: f.admin.token, json: { username: 'nope' } })).status, 404);
    t.equal((await f.request('POST', '/admin/users/acme/orgs', { token: f.admin.token, json: { username: 'nope' } })).status, 422, 'an org cannot own an org');
  });

  t.test('GET /orgs/{org}', async (t) => {
    const res = await f.request('GET', '/orgs/ACME');
    t.equal(res.status, 200, 'anonymous, case-insensitive');
    t.equal(res.json.username, 'Acme');
    const missing = await f.request('GET', '/orgs/no-such-org');
    t.equal(missing.status, 404);
    t.match(missing.json, { message: "The target couldn't be found.", url: String });
    t.equal((await f.request('GET', '/orgs/olga')).status, 404, 'a user is not an organization');
  });

  t.test('teams: create, list, read', async (t) => {
    const create = await f.request('POST', '/orgs/acme/teams', {
      token: owner.token, json: { name: 'Devs', description: 'developers', permission: 'write' },
    });
    t.equal(create.status, 201);
    t.match(create.json, { id: Number, name: 'Devs', description: 'developers', permission: 'write', includes_all_repositories: false });
    const readers = await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: 'Readers' } });
    t.equal(readers.json.permission, 'read', 'permission defaults to read');
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: 'devs' } })).status, 409, 'duplicate, case-insensitive');
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: 'owners' } })).status, 409);
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: 'x', permission: 'owner' } })).status, 422, 'owner is reserved');
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: 'x', permission: 'god' } })).status, 422);
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: 'a b' } })).status, 422, 'team name rules');
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: {} })).status, 422, 'name required');
    t.equal((await f.request('POST', '/orgs/acme/teams', { token: stranger.token, json: { name: 'Mine' } })).status, 403, 'not an owner');
    t.equal((await f.request('POST', '/orgs/acme/teams', { json: { name: 'Mine' } })).status, 401);
    t.equal((await f.request('POST', '/orgs/nope-org/teams', { token: owner.token, json: { name: 'Mine' } })).status, 404);
    const byAdmin = await f.request('POST', '/orgs/acme/teams', { token: f.admin.token, json: { name: 'AdminMade', includes_all_repositories: true } });
    t.equal(byAdmin.status, 201, 'site admins manage every organization');
    t.equal(byAdmin.json.includes_all_repositories, true);

    const list = await f.request('GET', '/orgs/acme/teams', { token: owner.token });
    t.equal(list.status, 200);
    t.same(list.json.map((x: any) => x.name), ['AdminMade', 'Devs', 'Owners', 'Readers'], 'name order');
    t.equal(list.headers.get('x-total-count'), '4');
    const paged = await f.request('GET', '/orgs/acme/teams?limit=1&page=2', { token: owner.token });
    t.same(paged.json.map((x: any) => x.name), ['Devs']);
    t.match(paged.headers.get('link'), /rel="next"/);
    t.equal((await f.request('GET', '/orgs/acme/teams', { token: stranger.token })).status, 403, 'non-members');
    t.equal((await f.request('GET', '/orgs/acme/teams')).status, 401);
    t.equal((await f.request('GET', '/orgs/nope-org/teams', { token: owner.token })).status, 404);

    const one = await f.request('GET', `/teams/${create.json.id}`, { token: owner.token });
    t.equal(one.status, 200);
    t.equal(one.json.name, 'Devs');
    t.equal((await f.request('GET', `/teams/${create.json.id}`, { token: stranger.token })).status, 404, 'teams are private to members');
    t.equal((await f.request('GET', '/teams/999999', { token: owner.token })).status, 404);
    t.equal((await f.request('GET', `/teams/${create.json.id}`, { token: f.admin.token })).status, 200, 'site admin');
  });

  t.test('team membership', async (t) => {
    const teams = (await f.request('GET', '/orgs/acme/teams', { token: owner.token })).json;
    const devs = teams.find((x: any) => x.name === 'Devs');
    const owners = teams.find((x: any) => x.name === 'Owners');
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/${member.username}`, { token: owner.token })).status, 204);
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/MIKE`, { token: owner.token })).status, 204, 'idempotent, case-insensitive');
    const list = await f.request('GET', `/teams/${devs.id}/members`, { token: member.token });
    t.equal(list.status, 200, 'members see their team');
    t.same(list.json.map((u: any) => u.login), ['mike']);
    t.equal(list.headers.get('x-total-count'), '1');
    t.equal((await f.request('GET', `/teams/${devs.id}/members`, { token: stranger.token })).status, 404);
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/${stranger.username}`, { token: member.token })).status, 403, 'members do not manage teams');
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/${stranger.username}`, { token: stranger.token })).status, 404, 'non-members do not see the team');
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/${stranger.username}`)).status, 401);
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/nobody-here`, { token: owner.token })).status, 404, 'unknown user');
    t.equal((await f.request('PUT', `/teams/${devs.id}/members/ottocorp`, { token: owner.token })).status, 422, 'an organization cannot be a member');
    t.equal((await f.request('PUT', `/teams/999999/members/${stranger.username}`, { token: owner.token })).status, 404);

    // The last owner stays.
    const last = await f.request('DELETE', `/teams/${owners.id}/members/olga`, { token: owner.token });
    t.equal(last.status, 422);
    t.match(last.json.message, /last owner/);
    t.equal((await f.request('PUT', `/teams/${owners.id}/members/${member.username}`, { token: owner.token })).status, 204, 'a second owner');
    t.equal((await f.request('DELETE', `/teams/${owners.id}/members/${member.username}`, { token: member.token })).status, 204, 'owners manage the Owners team');
    t.equal((await f.request('DELETE', `/teams/${owners.id}/members/${member.username}`, { token: owner.token })).status, 204, 'idempotent');
    t.equal((await f.request('DELETE', `/teams/${devs.id}/members/${member.username}`, { token: member.token })).status, 403, 'mike is no owner any more');
    t.equal((await f.request('DELETE', `/teams/${devs.id}/members/nobody-here`, { token: owner.token })).status, 404);
  });

  t.test('organization members', async (t) => {
    const members = await f.request('GET', '/orgs/acme/members', { token: member.token });
    t.equal(members.status, 200);
    t.same(members.json.map((u: any) => u.login), ['mike', 'olga'], 'every member of every team, once');
    t.equal(members.headers.get('x-total-count'), '2');
    t.same((await f.request('GET', '/orgs/acme/members', { token: f.admin.token })).json.length, 2, 'site admin');
    const concealed = await f.request('GET', '/orgs/acme/members', { token: stranger.token });
    t.equal(concealed.status, 200);
    t.same(concealed.json, [], 'memberships are concealed from non-members');
    t.equal(concealed.headers.get('x-total-count'), '0');
    t.same((await f.request('GET', '/orgs/acme/members')).json, [], 'anonymous');
    t.equal((await f.request('GET', '/orgs/nope-org/members')).status, 404);

    t.equal((await f.request('GET', '/orgs/acme/members/MIKE', { token: owner.token })).status, 204);
    t.equal((await f.request('GET', '/orgs/acme/members/sam', { token: owner.token })).status, 404, 'not a member');
    t.equal((await f.request('GET', '/orgs/acme/members/mike', { token: stranger.token })).status, 404, 'concealed');
    t.equal((await f.request('GET', '/orgs/acme/members/mike')).status, 404);
    t.equal((await f.request('GET', '/orgs/acme/members/nobody-here', { token: owner.token })).status, 404);
  });

  t.test('GET /user/orgs and /users/{username}/orgs', async (t) => {
    await f.request('POST', '/orgs', { token: owner.token, json: { username: 'Beta' } });
    const mine = await f.request('GET', '/user/orgs', { token: owner.token });
    t.equal(mine.status, 200);
    t.same(mine.json.map((o: any) => o.username), ['Acme', 'Beta']);
    t.equal(mine.headers.get('x-total-count'), '2');
    const page = await f.request('GET', '/user/orgs?limit=1&page=2', { token: owner.token });
    t.same(page.json.map((o: any) => o.username), ['Beta']);
    t.equal((await f.request('GET', '/user/orgs')).status, 401);

    t.same((await f.request('GET', '/users/olga/orgs', { token: owner.token })).json.map((o: any) => o.username), ['Acme', 'Beta'], 'self');
    t.same((await f.request('GET', '/users/olga/orgs', { token: f.admin.token })).json.length, 2, 'site admin');
    // Gitea's rule: others see only the memberships the user made public (a fellow member too).
    t.same((await f.request('GET', '/users/olga/orgs', { token: member.token })).json, [], 'concealed from a fellow member');
    t.same((await f.request('GET', '/users/olga/orgs', { token: stranger.token })).json, [], 'concealed');
    t.same((await f.request('GET', '/users/olga/orgs')).json, []);
    t.equal((await f.request('PUT', '/orgs/Acme/public_members/olga', { token: owner.token })).status, 204);
    t.same((await f.request('GET', '/users/olga/orgs')).json.map((o: any) => o.username), ['Acme'], 'a public membership');
    t.equal((await f.request('DELETE', '/orgs/Acme/public_members/olga', { token: owner.token })).status, 204);
    t.equal((await f.request('GET', '/users/nobody-here/orgs')).status, 404);
  });

  t.test('DELETE /orgs/{org}/members/{username}', async (t) => {
    const teams = (await f.request('GET', '/orgs/acme/teams', { token: owner.token })).json;
    const readers = teams.find((x: any) => x.name === 'Readers');
    await f.request('PUT', `/teams/${readers.id}/members/${stranger.username}`, { token: owner.token });
    t.equal((await f.request('DELETE', '/orgs/acme/members/sam', { token: member.token })).status, 403, 'members do not remove others');
    t.equal((await f.request('DELETE', '/orgs/acme/members/sam')).status, 401);
    t.equal((await f.request('DELETE', '/orgs/acme/members/sam', { token: owner.token })).status, 204);
    t.equal((await f.request('GET', '/orgs/acme/members/sam', { token: owner.token })).status, 404, 'gone from every team');
    t.equal((await f.request('DELETE', '/orgs/acme/members/sam', { token: owner.token })).status, 204, 'idempotent');
    const lastOwner = await f.request('DELETE', '/orgs/acme/members/olga', { token: owner.token });
    t.equal(lastOwner.status, 422, 'the last owner cannot leave');
    t.equal((await f.request('GET', '/orgs/acme/members/olga', { token: owner.token })).status, 204, 'still a member after the refusal');
    t.equal((await f.request('DELETE', '/orgs/acme/members/mike', { token: member.token })).status, 204, 'a member may leave');
    t.equal((await f.request('GET', '/orgs/acme/members/mike', { token: owner.token })).status, 404);
    t.equal((await f.request('DELETE', '/orgs/acme/members/nobody-here', { token: owner.token })).status, 404);
    t.equal((await f.request('DELETE', '/orgs/nope-org/members/sam', { token: owner.token })).status, 404);
  });

  t.test('DELETE /teams/{id}', async (t) => {
    const teams = (await f.request('GET', '/orgs/acme/teams', { token: owner.token })).json;
    const devs = teams.find((x: any) => x.name === 'Devs');
    const owners = teams.find((x: any) => x.name === 'Owners');
    await f.request('PUT', `/teams/${devs.id}/members/${member.username}`, { token: owner.token });
    t.equal((await f.request('DELETE', `/teams/${devs.id}`, { token: member.token })).status, 403);
    t.equal((await f.request('DELETE', `/teams/${devs.id}`, { token: stranger.token })).status, 404);
    t.equal((await f.request('DELETE', `/teams/${owners.id}`, { token: owner.token })).status, 422, 'the Owners team stays');
    t.equal((await f.request('DELETE', `/teams/${devs.id}`, { token: owner.token })).status, 204);
    t.equal((await f.request('GET', `/teams/${devs.id}`, { token: owner.token })).status, 404);
    t.equal((await f.request('GET', '/orgs/acme/members/mike', { token: owner.token })).status, 404, 'its members left with it');
  });

  t.test('DELETE /orgs/{org}', async (t) => {
    const repo = await f.request('POST', '/org/beta/repos', { token: owner.token, json: { name: 'code' } });
    t.equal(repo.status, 201);
    const betaOwners = await ownersTeamOf('beta', owner.token);
    await f.request('PUT', `/teams/${betaOwners.id}/members/${member.username}`, { token: owner.token });
    const devs = await f.request('POST', '/orgs/beta/teams', { token: owner.token, json: { name: 'Devs' } });
    await f.request('PUT', `/teams/${devs.json.id}/members/${stranger.username}`, { token: owner.token });
    t.equal((await f.request('DELETE', '/orgs/beta', { token: stranger.token })).status, 403, 'a member who is no owner');
    t.equal((await f.request('DELETE', '/orgs/beta', { token: other.token })).status, 403, 'a stranger');
    t.equal((await f.request('DELETE', '/orgs/beta')).status, 401);
    t.equal((await f.request('DELETE', '/orgs/nope-org', { token: owner.token })).status, 404);
    t.equal((await f.request('DELETE', '/orgs/olga', { token: owner.token })).status, 404, 'a user is not an organization');
    const blocked = await f.request('DELETE', '/orgs/BETA', { token: member.token });
    t.equal(blocked.status, 422, 'an organization that owns repositories is not deleted');
    t.match(blocked.json.message, /beta\/code/i, 'the message names them');
    t.equal((await f.request('GET', '/repos/beta/code', { token: f.admin.token })).status, 200, 'nothing went');
    t.equal((await f.request('DELETE', '/repos/beta/code', { token: member.token })).status, 204);
    t.equal((await f.request('DELETE', '/orgs/BETA', { token: member.token })).status, 204, 'any owner');
    t.equal((await f.request('GET', '/orgs/beta')).status, 404);
    t.equal((await f.request('GET', `/teams/${devs.json.id}`, { token: f.admin.token })).status, 404, 'and its teams');
    t.same((await f.request('GET', '/user/orgs', { token: stranger.token })).json, []);
    const again = await f.request('POST', '/orgs', { token: stranger.token, json: { username: 'beta' } });
    t.equal(again.status, 201, 'the name is free again');
    t.same((await f.request('GET', '/orgs/beta/repos', { token: stranger.token })).json, [], 'nothing inherited');
    t.equal((await f.request('DELETE', '/orgs/ottocorp', { token: f.admin.token })).status, 204, 'site admins delete any organization');
  });

  t.test('member lists are the single-user answers of each viewer, and a changed account shows at once', async (t) => {
    const boss = await f.createUser({ username: 'lboss' });
    const aide = await f.createUser({ username: 'laide' });
    const outsider = await f.createUser({ username: 'lout' });
    t.equal((await f.request('POST', '/orgs', { token: boss.token, json: { username: 'listorg' } })).status, 201);
    const owners = await ownersTeamOf('listorg', boss.token);
    t.equal((await f.request('PUT', `/teams/${owners.id}/members/laide`, { token: boss.token })).status, 204);
    // [viewer, token, whether they see the members]
    const viewers: Array<[string, string | undefined, boolean]> = [
      ['anonymous', undefined, false], ['an outsider', outsider.token, false],
      ['the owner', boss.token, true], ['a member', aide.token, true], ['a site admin', f.admin.token, true],
    ];
    const check = async (round: string) => {
      for (const [viewer, token, sees] of viewers) {
        const members = await f.request('GET', '/orgs/listorg/members', { token });
        t.equal(members.status, 200);
        t.equal(members.text, await userListAsSingles(f, sees ? ['laide', 'lboss'] : [], token), `${round}: org members as ${viewer}`);
        if (!token || !sees) continue;
        const team = await f.request('GET', `/teams/${owners.id}/members`, { token });
        t.equal(team.status, 200);
        t.equal(team.headers.get('content-type'), 'application/json; charset=utf-8');
        t.equal(team.text, await userListAsSingles(f, ['laide', 'lboss'], token), `${round}: team members as ${viewer}`);
      }
    };
    await check('first');
    await check('again');
    t.equal((await f.request('GET', '/orgs/listorg/members', { token: aide.token })).json[0].email, aide.email, 'a member sees their own email');
    await f.forge.store.collection('users').updateOne({ id: aide.id }, { $set: { fullName: 'Aide "Changed" Ü' } });
    await check('after a change');
    t.equal((await f.request('GET', `/teams/${owners.id}/members`, { token: boss.token })).json[0].full_name, 'Aide "Changed" Ü', 'the new version of the account');
  });

  t.test('deleting a user removes their memberships', async (t) => {
    const gone = await f.createUser({ username: 'leaver' });
    const teams = (await f.request('GET', '/orgs/acme/teams', { token: owner.token })).json;
    const readers = teams.find((x: any) => x.name === 'Readers');
    await f.request('PUT', `/teams/${readers.id}/members/leaver`, { token: owner.token });
    t.equal((await f.request('GET', '/orgs/acme/members/leaver', { token: owner.token })).status, 204);
    t.equal((await f.request('DELETE', `/admin/users/${gone.username}`, { token: f.admin.token })).status, 204);
    const list = await f.request('GET', `/teams/${readers.id}/members`, { token: owner.token });
    t.notOk(list.json.some((u: any) => u.login === 'leaver'));
  });
});

// Organization lists are serialised once per stored version and view (anonymous: no email; signed in: email): each
// list shows the view of its caller and the organization as last written.
t.test('organization lists: the caller\'s view, and edits seen at once', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'lena' });
  const viewer = await f.createUser({ username: 'vic' });
  t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'Listed', email: 'team@listed.example', full_name: 'Listed Ltd' } })).status, 201);
  t.equal((await f.request('PUT', '/orgs/listed/public_members/lena', { token: owner.token })).status, 204);
  const one = (res: { json: any }) => res.json.find((o: any) => o.username === 'Listed');
  const expected = (full_name: string, email: string) => ({ username: 'Listed', name: 'Listed', full_name, email, visibility: 'public', repo_admin_change_team_access: false, avatar_url: String });

  for (let round = 0; round < 2; round++) {
    // Twice: the second time from what was kept.
    t.match(one(await f.request('GET', '/users/lena/orgs')), expected('Listed Ltd', ''), 'anonymous: no email');
    t.match(one(await f.request('GET', '/users/lena/orgs', { token: viewer.token })), expected('Listed Ltd', 'team@listed.example'), 'signed in: the email');
    t.match(one(await f.request('GET', '/user/orgs', { token: owner.token })), expected('Listed Ltd', 'team@listed.example'));
    t.match(one(await f.request('GET', '/orgs')), expected('Listed Ltd', ''));
    t.match(one(await f.request('GET', '/orgs', { token: viewer.token })), expected('Listed Ltd', 'team@listed.example'));
    t.match(one(await f.request('GET', '/admin/orgs', { token: f.admin.token })), expected('Listed Ltd', 'team@listed.example'));
  }
  t.equal((await f.request('PATCH', '/orgs/listed', { token: owner.token, json: { full_name: 'Listed Group', email: 'hq@listed.example' } })).status, 200);
  t.match(one(await f.request('GET', '/user/orgs', { token: owner.token })), expected('Listed Group', 'hq@listed.example'), 'the edit, at once');
  t.match(one(await f.request('GET', '/users/lena/orgs')), expected('Listed Group', ''));
  t.match(one(await f.request('GET', '/orgs', { token: viewer.token })), expected('Listed Group', 'hq@listed.example'));
  t.match(one(await f.request('GET', '/admin/orgs', { token: f.admin.token })), expected('Listed Group', 'hq@listed.example'));
  const single = await f.request('GET', '/orgs/listed', { token: viewer.token });
  t.same(one(await f.request('GET', '/users/lena/orgs', { token: viewer.token })), single.json, 'a list item is the same object GET /orgs/{org} gives');
});
