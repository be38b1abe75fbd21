// gitea-js, group "admin" (site administration beyond users): emails, keys on behalf of a user, badges, rename, cron,
// unadopted repositories — through the real client with a site admin's token; status and shape checked.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';
import { runGit } from '../helpers/git-client.js';
import { waitFor } from '../helpers/wait.js';

t.test('gitea-js admin site methods', async (t) => {
  const f = await startForge({ config: { plugins: { admin: { badges: [{ slug: 'gjs-star', description: 'Star', image_url: 'https://b.example/s.png' }] } } } as any });
  t.teardown(() => f.close());
  const api = giteaClient(f, f.admin.token);
  const someone = await f.createUser({ username: 'gjs-site-user' });
  const asUser = giteaClient(f, someone.token);

  t.test('emails', async (t) => {
    const all = await settle(api.admin.adminGetAllEmails({ limit: 50 }));
    t.equal(all.status, 200);
    t.same(all.data.map((e) => e.email), ['gjs-site-user@example.com', 'root@example.com']);
    assertConforms(t, 'adminGetAllEmails', all.data);
    t.match(all.data[0], { user_id: someone.id, username: 'gjs-site-user', primary: true, verified: true });
    const found = await settle(api.admin.adminSearchEmails({ q: 'site-user' }));
    t.equal(found.status, 200);
    t.same(found.data.map((e) => e.username), ['gjs-site-user']);
    assertConforms(t, 'adminSearchEmails', found.data);
    t.equal((await settle(asUser.admin.adminGetAllEmails())).status, 403);
    t.equal((await settle(asUser.admin.adminSearchEmails({ q: 'x' }))).status, 403);
  });

  t.test('public keys on behalf of a user', async (t) => {
    const key = (await readFile(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'ssh', 'ed25519.pub'), 'utf8')).trim();
    const made = await settle(api.admin.adminCreatePublicKey('gjs-site-user', { title: 'by admin', key, read_only: false }));
    t.equal(made.status, 201);
    assertConforms(t, 'adminCreatePublicKey', made.data);
    t.equal(made.data.user?.login, 'gjs-site-user');
    t.equal((await settle(asUser.admin.adminCreatePublicKey('gjs-site-user', { title: 'x', key }))).status, 403);
    t.equal((await settle(asUser.admin.adminDeleteUserPublicKey('gjs-site-user', made.data.id!))).status, 403);
    t.equal((await settle(api.admin.adminDeleteUserPublicKey('gjs-site-user', made.data.id!))).status, 204);
    t.equal((await settle(api.admin.adminDeleteUserPublicKey('gjs-site-user', made.data.id!))).status, 404);
  });

  t.test('badges', async (t) => {
    t.equal((await settle(api.admin.adminAddUserBadges('gjs-site-user', { badge_slugs: ['gjs-star'] }))).status, 204);
    const list = await settle(api.admin.adminListUserBadges('gjs-site-user'));
    t.equal(list.status, 200);
    t.same(list.data, [{ id: 1, slug: 'gjs-star', description: 'Star', image_url: 'https://b.example/s.png' }]);
    assertConforms(t, 'adminListUserBadges', list.data);
    t.equal((await settle(api.admin.adminAddUserBadges('gjs-site-user', { badge_slugs: ['unknown'] }))).status, 422);
    t.equal((await settle(api.admin.adminDeleteUserBadges('gjs-site-user', { badge_slugs: ['gjs-star'] }))).status, 204);
    t.same((await settle(api.admin.adminListUserBadges('gjs-site-user'))).data, []);
    t.equal((await settle(asUser.admin.adminListUserBadges('gjs-site-user'))).status, 403);
  });

  t.test('rename', async (t) => {
    const renamed = await f.createUser({ username: 'gjs-before' });
    t.equal((await settle(api.admin.adminRenameUser('gjs-before', { new_username: 'gjs-after' }))).status, 204);
    t.equal((await settle(api.users.userGet('gjs-after'))).data.id, renamed.id);
    t.equal((await settle(api.admin.adminRenameUser('gjs-after', { new_username: 'root' }))).status, 422);
    t.equal((await settle(asUser.admin.adminRenameUser('gjs-after', { new_username: 'gjs-x' }))).status, 403);
  });

  t.test('cron', async (t) => {
    const list = await settle(api.admin.adminCronList());
    t.equal(list.status, 200);
    t.same(list.data.map((c) => c.name), ['update_mirrors']);
    assertConforms(t, 'adminCronList', list.data);
    t.equal((await settle(api.admin.adminCronRun('update_mirrors'))).status, 204);
    await waitFor('the run', async () => (await settle(api.admin.adminCronList())).data[0]!.exec_times === 1);
    const after = await settle(api.admin.adminCronList());
    assertConforms(t, 'adminCronList', after.data);
    t.type(after.data[0]!.prev, 'string', 'once it ran: prev is set');
    t.equal((await settle(api.admin.adminCronRun('nothing'))).status, 404);
    t.equal((await settle(asUser.admin.adminCronList())).status, 403);
  });

  t.test('git hooks: none run here, refused as Gitea does with hooks disabled', async (t) => {
    t.equal((await settle(api.repos.repoMigrate({ clone_addr: '/nowhere', repo_name: 'x' }))).status, 422, 'local paths refused by default');
    t.equal((await settle(api.admin.adminCreateRepo('gjs-site-user', { name: 'hooked' }))).status, 201);
    t.equal((await settle(api.repos.repoListGitHooks('gjs-site-user', 'hooked'))).status, 403);
    t.equal((await settle(api.repos.repoGetGitHook('gjs-site-user', 'hooked', 'pre-receive'))).status, 403);
    t.equal((await settle(api.repos.repoEditGitHook('gjs-site-user', 'hooked', 'pre-receive', { content: 'exit 0' }))).status, 403);
    t.equal((await settle(api.repos.repoDeleteGitHook('gjs-site-user', 'hooked', 'pre-receive'))).status, 403);
  });

  t.test('unadopted repositories', async (t) => {
    const root = path.join(f.dataDir, 'repositories');
    for (const name of ['keep', 'drop']) {
      t.equal((await runGit(['init', '-q', '--bare', path.join(root, 'gjs-site-user', `${name}.git`)], { home: f.dataDir })).code, 0);
    }
    const list = await settle(api.admin.adminUnadoptedList({ pattern: 'gjs-site-user/*' }));
    t.equal(list.status, 200);
    t.same(list.data, ['gjs-site-user/drop', 'gjs-site-user/keep']);
    t.equal((await settle(api.admin.adminAdoptRepository('gjs-site-user', 'keep'))).status, 204);
    t.equal((await settle(api.repos.repoGet('gjs-site-user', 'keep'))).data.private, true);
    t.equal((await settle(api.admin.adminDeleteUnadoptedRepository('gjs-site-user', 'drop'))).status, 204);
    t.same((await settle(api.admin.adminUnadoptedList())).data, []);
    t.equal((await settle(asUser.admin.adminUnadoptedList())).status, 403);
    t.equal((await settle(asUser.admin.adminAdoptRepository('gjs-site-user', 'x'))).status, 403);
    t.equal((await settle(asUser.admin.adminDeleteUnadoptedRepository('gjs-site-user', 'x'))).status, 403);
  });
});
