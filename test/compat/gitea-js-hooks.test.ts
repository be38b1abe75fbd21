// gitea-js (the generated Gitea client) against forgekit's webhooks and statuses plugins, unmodified: repository,
// organization, user and system hook CRUD, the test delivery (received by a real HTTP receiver), and commit statuses
// (create, list by sha and by ref, combined), each answer checked against gitea-js's declared type.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';
import { Receiver } from '../helpers/receiver.js';

t.test('gitea-js webhook and status methods', async (t) => {
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } as any });
  const rx = await new Receiver().start();
  t.teardown(async () => {
    await rx.close();
    await f.close();
  });
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const api = giteaClient(f, alice.token);
  const asBob = giteaClient(f, bob.token);
  const admin = giteaClient(f, f.admin.token);
  const repo = await api.user.createCurrentUserRepo({ name: 'app', auto_init: true, readme: 'Default', default_branch: 'main' });
  t.equal(repo.status, 201);
  t.equal((await api.orgs.orgCreate({ username: 'acme' })).status, 201);
  const option = (path: string) => ({
    type: 'gitea' as const, active: true, events: ['push', 'status'], branch_filter: '*',
    config: { url: `${rx.url}${path}`, content_type: 'json', secret: 'shh' },
  });

  // ---- repository hooks ----
  const created = await api.repos.repoCreateHook('alice', 'app', option('/repo'));
  t.equal(created.status, 201);
  assertConforms(t, 'repoCreateHook', created.data);
  t.equal(created.data.config!.url, `${rx.url}/repo`);
  t.notOk('secret' in created.data.config!, 'the secret is never returned');
  const id = created.data.id!;
  assertConforms(t, 'repoListHooks', (await api.repos.repoListHooks('alice', 'app')).data);
  assertConforms(t, 'repoGetHook', (await api.repos.repoGetHook('alice', 'app', id)).data);
  const edited = await api.repos.repoEditHook('alice', 'app', id, { events: ['push'], branch_filter: 'main' });
  t.same(edited.data.events, ['push']);
  assertConforms(t, 'repoEditHook', edited.data);
  const before = rx.received.length;
  t.equal((await settle(api.repos.repoTestHook('alice', 'app', id))).status, 204);
  const [delivery] = (await rx.count(before + 1)).slice(before);
  t.equal(delivery!.headers['x-gitea-event'], 'push');
  t.match(JSON.parse(delivery!.body), { ref: 'refs/heads/main', commits: [{ message: /\S/, author: { username: 'alice' } }] });
  t.equal((await settle(asBob.repos.repoListHooks('alice', 'app'))).status, 403, 'a reader may not see the hooks');
  t.equal((await settle(api.repos.repoDeleteHook('alice', 'app', id))).status, 204);
  t.equal((await settle(api.repos.repoGetHook('alice', 'app', id))).status, 404);

  // ---- organization hooks ----
  const org = await api.orgs.orgCreateHook('acme', option('/org'));
  t.equal(org.status, 201);
  assertConforms(t, 'orgCreateHook', org.data);
  assertConforms(t, 'orgListHooks', (await api.orgs.orgListHooks('acme')).data);
  assertConforms(t, 'orgGetHook', (await api.orgs.orgGetHook('acme', org.data.id!)).data);
  assertConforms(t, 'orgEditHook', (await api.orgs.orgEditHook('acme', org.data.id!, { active: false })).data);
  t.equal((await settle(asBob.orgs.orgListHooks('acme'))).status, 403, 'only owners');
  t.equal((await settle(api.orgs.orgDeleteHook('acme', org.data.id!))).status, 204);

  // ---- the user's hooks ----
  const mine = await api.user.userCreateHook(option('/user'));
  t.equal(mine.status, 201);
  assertConforms(t, 'userCreateHook', mine.data);
  assertConforms(t, 'userListHooks', (await api.user.userListHooks()).data);
  assertConforms(t, 'userGetHook', (await api.user.userGetHook(mine.data.id!)).data);
  assertConforms(t, 'userEditHook', (await api.user.userEditHook(mine.data.id!, { events: ['repository'] })).data);
  t.equal((await settle(asBob.user.userGetHook(mine.data.id!))).status, 404, "another user's hook is not found");
  t.equal((await settle(api.user.userDeleteHook(mine.data.id!))).status, 204);

  // ---- system hooks ----
  const sys = await admin.admin.adminCreateHook(option('/system'));
  t.equal(sys.status, 201);
  assertConforms(t, 'adminCreateHook', sys.data);
  assertConforms(t, 'adminListHooks', (await admin.admin.adminListHooks()).data);
  assertConforms(t, 'adminGetHook', (await admin.admin.adminGetHook(sys.data.id!)).data);
  assertConforms(t, 'adminEditHook', (await admin.admin.adminEditHook(sys.data.id!, { active: false })).data);
  t.equal((await settle(api.admin.adminListHooks())).status, 403, 'site admins only');
  t.equal((await settle(admin.admin.adminDeleteHook(sys.data.id!))).status, 204);

  // ---- commit statuses ----
  const head = (await api.repos.repoGetBranch('alice', 'app', 'main')).data.commit!.id!;
  const pending = await api.repos.repoCreateStatus('alice', 'app', head, { state: 'pending', context: 'ci/build', target_url: 'https://ci.example.com/1', description: 'running' });
  t.equal(pending.status, 201);
  assertConforms(t, 'repoCreateStatus', pending.data);
  const failed = await api.repos.repoCreateStatus('alice', 'app', head, { state: 'failure', context: 'ci/lint' });
  assertConforms(t, 'repoCreateStatus', failed.data);
  t.equal((await settle(asBob.repos.repoCreateStatus('alice', 'app', head, { state: 'success' }))).status, 403, 'readers may not post');
  const bySha = await api.repos.repoListStatuses('alice', 'app', head, { sort: 'oldest' });
  t.same(bySha.data.map((s) => s.context), ['ci/build', 'ci/lint']);
  assertConforms(t, 'repoListStatuses', bySha.data);
  const byRef = await api.repos.repoListStatusesByRef('alice', 'app', 'main', { state: 'failure' });
  t.same(byRef.data.map((s) => s.context), ['ci/lint']);
  assertConforms(t, 'repoListStatusesByRef', byRef.data);
  const combined = await api.repos.repoGetCombinedStatusByRef('alice', 'app', 'main');
  t.equal(combined.data.state, 'failure', 'the worst state wins');
  t.equal(combined.data.total_count, 2);
  t.equal(combined.data.sha, head);
  assertConforms(t, 'repoGetCombinedStatusByRef', combined.data);
  t.equal((await settle(api.repos.repoGetCombinedStatusByRef('alice', 'app', 'no-such-branch'))).status, 404);

  // A private repository's statuses and hooks are 404 to strangers.
  t.equal((await settle(api.repos.repoEdit('alice', 'app', { private: true }))).status, 200);
  t.equal((await settle(asBob.repos.repoListStatuses('alice', 'app', head))).status, 404);
  t.equal((await settle(asBob.repos.repoGetCombinedStatusByRef('alice', 'app', 'main'))).status, 404);
  t.equal((await settle(asBob.repos.repoListHooks('alice', 'app'))).status, 404);
});
