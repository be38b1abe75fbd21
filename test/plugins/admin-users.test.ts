// Site administration through HTTP: GET/PATCH /admin/users, GET /admin/orgs, and the sign-in rights PATCH sets
// (prohibit_login, active) enforced at once for passwords and tokens; /user/settings.
import t from 'tap';
import { startForge } from '../helpers/forge.js';

const PROHIBITED = 'This account is prohibited from signing in, please contact your site administrator.';

t.test('admin users', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const carol = await f.createUser({ username: 'adm-carol' });
  const dave = await f.createUser({ username: 'adm-dave' });

  t.test('GET /admin/users: every individual, name order, paged', async (t) => {
    const page = await f.request('GET', '/admin/users?limit=2', { token: admin });
    t.equal(page.status, 200);
    t.same(page.json.map((u: any) => u.login), ['adm-carol', 'adm-dave']);
    t.equal(page.headers.get('x-total-count'), '3');
    t.match(page.headers.get('link'), /page=2/);
    t.equal(page.json[0].email, 'adm-carol@example.com', 'admins see addresses');
    const rest = await f.request('GET', '/admin/users?limit=2&page=2', { token: admin });
    t.same(rest.json.map((u: any) => u.login), ['root']);
    t.equal((await f.request('GET', '/admin/users', { token: carol.token })).status, 403, 'site admins only');
    t.equal((await f.request('GET', '/admin/users')).status, 401);
    t.same((await f.request('GET', '/admin/users?source_id=3', { token: admin })).json, [], 'no such authentication source');
  });

  t.test('PATCH /admin/users/{username}: profile fields', async (t) => {
    const res = await f.request('PATCH', '/admin/users/adm-carol', {
      token: admin,
      json: {
        login_name: 'carol', source_id: 0, full_name: 'Carol C', website: 'https://carol.example', location: 'Lyon',
        description: 'hi', visibility: 'limited', restricted: true, max_repo_creation: 3, allow_create_organization: false,
        allow_git_hook: false, allow_import_local: false, must_change_password: false,
      },
    });
    t.equal(res.status, 200);
    t.match(res.json, { login: 'adm-carol', login_name: 'carol', full_name: 'Carol C', website: 'https://carol.example', location: 'Lyon', description: 'hi', visibility: 'limited', restricted: true });
    const seen = await f.request('GET', '/users/adm-carol', { token: admin });
    t.match(seen.json, { full_name: 'Carol C', visibility: 'limited', restricted: true }, 'stored');
    const found = await f.request('GET', '/admin/users?login_name=carol', { token: admin });
    t.same(found.json.map((u: any) => u.login), ['adm-carol'], 'filter by login_name');
    t.equal((await f.request('PATCH', '/admin/users/adm-carol', { token: admin, json: { visibility: 'secret' } })).status, 422);
    t.equal((await f.request('PATCH', '/admin/users/adm-carol', { token: admin, json: { source_id: 7 } })).status, 422);
    t.equal((await f.request('PATCH', '/admin/users/nobody-here', { token: admin, json: {} })).status, 404);
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: carol.token, json: { admin: true } })).status, 403);
  });

  t.test('email: validated, unique, the new primary signs in', async (t) => {
    t.equal((await f.request('PATCH', '/admin/users/adm-carol', { token: admin, json: { email: 'not-an-address' } })).status, 422);
    t.equal((await f.request('PATCH', '/admin/users/adm-carol', { token: admin, json: { email: 'adm-dave@example.com' } })).status, 422, "another's address");
    const res = await f.request('PATCH', '/admin/users/adm-carol', { token: admin, json: { email: 'carol.new@example.com' } });
    t.equal(res.status, 200);
    t.equal(res.json.email, 'carol.new@example.com');
    t.equal((await f.request('GET', '/user', { basic: ['carol.new@example.com', carol.password] })).status, 200);
    t.equal((await f.request('GET', '/user', { basic: ['adm-carol@example.com', carol.password] })).status, 401, 'the old one no longer signs in');
  });

  t.test('a new password takes effect at once', async (t) => {
    t.equal((await f.request('GET', '/user', { basic: ['adm-dave', dave.password] })).status, 200, 'cached sign-in');
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { password: 'brand-new-secret' } })).status, 200);
    t.equal((await f.request('GET', '/user', { basic: ['adm-dave', dave.password] })).status, 401, 'the old password is refused at once');
    t.equal((await f.request('GET', '/user', { basic: ['adm-dave', 'brand-new-secret'] })).status, 200);
    dave.password = 'brand-new-secret';
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { password: 'short' } })).status, 422);
  });

  t.test('admin flag: promotion and demotion at once; never the last admin', async (t) => {
    t.equal((await f.request('GET', '/admin/users', { token: dave.token })).status, 403);
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { admin: true } })).json.is_admin, true);
    t.equal((await f.request('GET', '/admin/users', { token: dave.token })).status, 200, 'promoted at once (cached token)');
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { admin: false } })).status, 200);
    t.equal((await f.request('GET', '/admin/users', { token: dave.token })).status, 403, 'demoted at once');
    const last = await f.request('PATCH', '/admin/users/root', { token: admin, json: { admin: false } });
    t.equal(last.status, 400);
    t.match(last.json.message, /last admin/);
  });

  t.test('prohibit_login and active: refused at sign-in, passwords and tokens, at once', async (t) => {
    t.equal((await f.request('GET', '/user', { token: dave.token })).status, 200, 'token cached');
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { prohibit_login: true } })).json.prohibit_login, true);
    const byToken = await f.request('GET', '/user', { token: dave.token });
    t.equal(byToken.status, 403);
    t.equal(byToken.json.message, PROHIBITED);
    const byPassword = await f.request('GET', '/user', { basic: ['adm-dave', dave.password] });
    t.equal(byPassword.status, 403);
    t.equal(byPassword.json.message, PROHIBITED);
    t.equal((await f.request('GET', '/user', { basic: ['adm-dave', 'wrong-password'] })).status, 401, 'a wrong password reveals nothing');
    t.equal((await f.request('GET', '/users/adm-dave')).status, 200, 'the profile is still there');
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { prohibit_login: false } })).status, 200);
    t.equal((await f.request('GET', '/user', { token: dave.token })).status, 200, 'allowed again');
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { active: false } })).json.active, false);
    t.equal((await f.request('GET', '/user', { token: dave.token })).json.message, PROHIBITED, 'inactive accounts may not sign in either');
    t.equal((await f.request('GET', '/user', { basic: ['adm-dave', dave.password] })).status, 403);
    t.equal((await f.request('PATCH', '/admin/users/adm-dave', { token: admin, json: { active: true } })).status, 200);
    t.equal((await f.request('GET', '/user', { basic: ['adm-dave', dave.password] })).status, 200);
  });

  t.test('POST /admin/users takes CreateUserOption extras', async (t) => {
    const res = await f.request('POST', '/admin/users', {
      token: admin, json: { username: 'adm-erin', email: 'erin@example.com', password: 'erin-secret', restricted: true, visibility: 'private', login_name: 'erin', must_change_password: false },
    });
    t.equal(res.status, 201);
    t.match(res.json, { login: 'adm-erin', restricted: true, visibility: 'private', login_name: 'erin' });
  });

  t.test('max_repo_creation and allow_create_organization are enforced (Gitea\'s CanCreateRepo, CanCreateOrganization)', async (t) => {
    const erin = await f.createUser({ username: 'adm-quota' });
    t.equal((await f.request('PATCH', '/admin/users/adm-quota', { token: admin, json: { login_name: 'adm-quota', source_id: 0, max_repo_creation: 1, allow_create_organization: false } })).status, 200);
    t.equal((await f.request('POST', '/user/repos', { token: erin.token, json: { name: 'one' } })).status, 201);
    const second = await f.request('POST', '/user/repos', { token: erin.token, json: { name: 'two' } });
    t.equal(second.status, 403);
    t.equal(second.json.message, 'user has reached maximum limit of repositories [limit: 1]');
    t.equal((await f.request('POST', '/repos/adm-quota/one/forks', { token: erin.token, json: { name: 'one-copy' } })).status, 403, 'forks count too');
    t.equal((await f.request('POST', '/admin/users/adm-quota/repos', { token: admin, json: { name: 'by-admin' } })).status, 201, 'a site admin is not held to it');
    const org = await f.request('POST', '/orgs', { token: erin.token, json: { username: 'quota-org' } });
    t.equal(org.status, 403, 'allow_create_organization: false');
    t.equal((await f.request('PATCH', '/admin/users/adm-quota', { token: admin, json: { login_name: 'adm-quota', source_id: 0, max_repo_creation: -1, allow_create_organization: true } })).status, 200);
    t.equal((await f.request('POST', '/user/repos', { token: erin.token, json: { name: 'two' } })).status, 201, '-1: no limit of its own');
    t.equal((await f.request('POST', '/orgs', { token: erin.token, json: { username: 'quota-org' } })).status, 201);
    t.equal((await f.request('DELETE', '/orgs/quota-org', { token: erin.token })).status, 204);
  });

  t.test('GET /admin/orgs: every organization, whatever its visibility', async (t) => {
    // carol may not create organizations any more (allow_create_organization: false above): dave does.
    for (const name of ['adm-zorg', 'adm-aorg']) t.equal((await f.request('POST', '/orgs', { token: dave.token, json: { username: name } })).status, 201);
    const res = await f.request('GET', '/admin/orgs?limit=1', { token: admin });
    t.equal(res.status, 200);
    t.same(res.json.map((o: any) => o.username), ['adm-aorg']);
    t.equal(res.headers.get('x-total-count'), '2');
    t.equal((await f.request('GET', '/admin/orgs', { token: carol.token })).status, 403);
  });

  t.test('must_change_password: every signed-in request is refused until an admin clears it (Gitea\'s 403)', async (t) => {
    const frank = await f.createUser({ username: 'adm-frank' });
    t.equal((await f.request('GET', '/user', { token: frank.token })).status, 200, 'cached token sign-in');
    t.equal((await f.request('PATCH', '/admin/users/adm-frank', { token: admin, json: { login_name: 'adm-frank', source_id: 0, must_change_password: true } })).status, 200);
    const refused = await f.request('GET', '/user', { token: frank.token });
    t.equal(refused.status, 403, 'at once, cached or not');
    t.equal(refused.json.message, `You must change your password. Change it at: ${f.url}/user/change_password`);
    t.equal((await f.request('GET', '/user', { basic: ['adm-frank', frank.password] })).status, 403, 'passwords too');
    t.equal((await f.request('GET', '/users/adm-frank')).status, 200, 'anonymous reads of the profile are unaffected');
    t.equal((await f.request('PATCH', '/admin/users/adm-frank', { token: admin, json: { login_name: 'adm-frank', source_id: 0, must_change_password: false } })).status, 200);
    t.equal((await f.request('GET', '/user', { token: frank.token })).status, 200, 'cleared: the token works again');
  });
});

t.test('user settings', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const frank = await f.createUser({ username: 'set-frank' });
  const got = await f.request('GET', '/user/settings', { token: frank.token });
  t.equal(got.status, 200);
  t.same(got.json, {
    full_name: '', website: '', description: '', location: '', language: '', theme: '', diff_view_style: '', hide_email: true, hide_activity: false,
  });
  const patched = await f.request('PATCH', '/user/settings', {
    token: frank.token,
    json: { full_name: 'Frank F', website: 'https://frank.example', description: 'd', location: 'Oslo', language: 'nb-NO', theme: 'gitea-dark', diff_view_style: 'split', hide_email: false, hide_activity: true },
  });
  t.equal(patched.status, 200);
  t.same(patched.json, {
    full_name: 'Frank F', website: 'https://frank.example', description: 'd', location: 'Oslo', language: 'nb-NO', theme: 'gitea-dark', diff_view_style: 'split', hide_email: false, hide_activity: true,
  });
  t.same((await f.request('GET', '/user/settings', { token: frank.token })).json, patched.json, 'stored');
  const profile = await f.request('GET', '/users/set-frank');
  t.match(profile.json, { full_name: 'Frank F', website: 'https://frank.example', location: 'Oslo', description: 'd', email: '' }, 'the profile follows; the address stays hidden');
  t.equal((await f.request('GET', '/user', { token: frank.token })).json.language, 'nb-NO');
  t.equal((await f.request('PATCH', '/user/settings', { token: frank.token, json: { website: 'javascript:alert(1)' } })).status, 422);
  t.equal((await f.request('PATCH', '/user/settings', { token: frank.token, json: { diff_view_style: 'sideways' } })).status, 422);
  t.equal((await f.request('GET', '/user/settings')).status, 401);
  const readOnly = (await f.request('POST', '/users/set-frank/tokens', { basic: ['set-frank', frank.password], json: { name: 'ro', scopes: ['read:user'] } })).json.sha1;
  t.equal((await f.request('GET', '/user/settings', { token: readOnly })).status, 200);
  t.equal((await f.request('PATCH', '/user/settings', { token: readOnly, json: { theme: 'x' } })).status, 403, 'write:user needed');
});
