// gitea-js, group "admin": every admin method forgekit serves, through the real client with a site admin's token;
// status and shape (every field gitea-js declares, with its type) checked, calls type-checked against gitea-js.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';

t.test('gitea-js admin methods', async (t) => {
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } });
  t.teardown(() => f.close());
  const api = giteaClient(f, f.admin.token);
  const someone = await f.createUser({ username: 'gjs-adm-user' });
  const asUser = giteaClient(f, someone.token);

  t.test('users', async (t) => {
    const made = await settle(api.admin.adminCreateUser({ username: 'gjs-adm-made', email: 'made@example.com', password: 'made-secret', must_change_password: false, visibility: 'public' }));
    t.equal(made.status, 201);
    assertConforms(t, 'adminCreateUser', made.data);
    const list = await settle(api.admin.adminSearchUsers({ limit: 50 }));
    t.equal(list.status, 200);
    t.same(list.data.map((u) => u.login), ['gjs-adm-made', 'gjs-adm-user', 'root']);
    t.equal(list.headers.get('x-total-count'), '3');
    assertConforms(t, 'adminSearchUsers', list.data);
    const edited = await settle(api.admin.adminEditUser('gjs-adm-made', { login_name: 'gjs-adm-made', source_id: 0, full_name: 'Made', prohibit_login: true, visibility: 'private' }));
    t.equal(edited.status, 200);
    t.match(edited.data, { full_name: 'Made', prohibit_login: true, visibility: 'private' });
    assertConforms(t, 'adminEditUser', edited.data);
    t.equal((await settle(asUser.admin.adminSearchUsers())).status, 403, 'site admins only');
    const refused = await settle(asUser.admin.adminEditUser('gjs-adm-made', { login_name: '', source_id: 0, admin: true }));
    t.equal(refused.status, 403);
    t.equal((await settle(api.admin.adminDeleteUser('gjs-adm-made'))).status, 204);
    t.equal((await settle(api.admin.adminDeleteUser('gjs-adm-made'))).status, 404);
  });

  t.test('organizations', async (t) => {
    const repo = await settle(api.admin.adminCreateRepo('gjs-adm-user', { name: 'by-admin' }));
    t.equal(repo.status, 201);
    assertConforms(t, 'adminCreateRepo', repo.data);
    t.equal(repo.data.full_name, 'gjs-adm-user/by-admin');
    const made = await settle(api.admin.adminCreateOrg('gjs-adm-user', { username: 'gjs-adm-org' }));
    t.equal(made.status, 201);
    assertConforms(t, 'adminCreateOrg', made.data);
    const all = await settle(api.admin.adminGetAllOrgs());
    t.equal(all.status, 200);
    t.same(all.data.map((o) => o.username), ['gjs-adm-org']);
    assertConforms(t, 'adminGetAllOrgs', all.data);
    t.equal((await settle(asUser.admin.adminGetAllOrgs())).status, 403);
  });

  t.test('system hooks', async (t) => {
    const made = await settle(api.admin.adminCreateHook({ type: 'gitea', config: { url: 'http://127.0.0.1:9/hook', content_type: 'json' }, events: ['push'], active: false }));
    t.equal(made.status, 201);
    assertConforms(t, 'adminCreateHook', made.data);
    const id = made.data.id!;
    const one = await settle(api.admin.adminGetHook(id));
    t.equal(one.status, 200);
    assertConforms(t, 'adminGetHook', one.data);
    const list = await settle(api.admin.adminListHooks());
    t.same(list.data.map((h) => h.id), [id]);
    assertConforms(t, 'adminListHooks', list.data);
    const edited = await settle(api.admin.adminEditHook(id, { events: ['push', 'create'] }));
    t.equal(edited.status, 200);
    t.same(edited.data.events?.sort(), ['create', 'push']);
    assertConforms(t, 'adminEditHook', edited.data);
    t.equal((await settle(asUser.admin.adminListHooks())).status, 403);
    t.equal((await settle(api.admin.adminDeleteHook(id))).status, 204);
  });
});
