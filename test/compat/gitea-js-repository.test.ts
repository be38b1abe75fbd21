// gitea-js, group "repository": the repository methods forgekit serves that are about repositories themselves
// (create, get by name and id, edit, delete, search, collaborators, forks, migration and mirror sync, deploy keys,
// watching, branches, branch protections, tags), called through the real client with status and shape checked.
// Contents, commits and git objects, pulls, releases and hooks have their own compatibility files.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';

const sshKey = readFileSync(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'ssh', 'ed25519.pub'), 'utf8');

t.test('gitea-js repository methods', async (t) => {
  const f = await startForge({ config: { plugins: { git: { migrateAllowLocal: true } } } as any });
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'gjr-owner' });
  const friend = await f.createUser({ username: 'gjr-friend' });
  const api = giteaClient(f, owner.token);
  const asFriend = giteaClient(f, friend.token);
  const anonymous = giteaClient(f);

  const made = await settle(api.user.createCurrentUserRepo({ name: 'src', auto_init: true, readme: 'Default', default_branch: 'main' }));
  t.equal(made.status, 201);
  assertConforms(t, 'createCurrentUserRepo', made.data);
  const id = made.data.id!;

  t.test('get, by id, edit, search', async (t) => {
    const got = await settle(anonymous.repos.repoGet('gjr-owner', 'src'));
    t.equal(got.status, 200);
    assertConforms(t, 'repoGet', got.data);
    const byId = await settle(anonymous.repositories.repoGetById(id));
    t.equal(byId.status, 200);
    t.equal(byId.data.full_name, 'gjr-owner/src');
    assertConforms(t, 'repoGetById', byId.data);
    t.equal((await settle(anonymous.repositories.repoGetById(987654))).status, 404);
    const edited = await settle(api.repos.repoEdit('gjr-owner', 'src', { description: 'the source', has_wiki: false }));
    t.equal(edited.status, 200);
    t.equal(edited.data.description, 'the source');
    t.equal(edited.data.has_wiki, false);
    assertConforms(t, 'repoEdit', edited.data);
    const found = await settle(anonymous.repos.repoSearch({ q: 'src' }));
    t.equal(found.status, 200);
    t.equal(found.data.ok, true);
    t.same(found.data.data?.map((r) => r.full_name), ['gjr-owner/src']);
    assertConforms(t, 'repoSearch', found.data);
  });

  t.test('collaborators', async (t) => {
    t.equal((await settle(api.repos.repoAddCollaborator('gjr-owner', 'src', 'gjr-friend', { permission: 'write' }))).status, 204);
    const list = await settle(api.repos.repoListCollaborators('gjr-owner', 'src'));
    t.same(list.data.map((u) => u.login), ['gjr-friend']);
    assertConforms(t, 'repoListCollaborators', list.data);
    t.equal((await settle(api.repos.repoCheckCollaborator('gjr-owner', 'src', 'gjr-friend'))).status, 204);
    t.equal((await settle(api.repos.repoDeleteCollaborator('gjr-owner', 'src', 'gjr-friend'))).status, 204);
    t.equal((await settle(api.repos.repoCheckCollaborator('gjr-owner', 'src', 'gjr-friend'))).status, 404);
  });

  t.test('forks', async (t) => {
    const fork = await settle(asFriend.repos.createFork('gjr-owner', 'src', {}));
    t.equal(fork.status, 202);
    t.equal(fork.data.fork, true);
    assertConforms(t, 'createFork', fork.data);
    const forks = await settle(anonymous.repos.listForks('gjr-owner', 'src'));
    t.same(forks.data.map((r) => r.full_name), ['gjr-friend/src']);
    assertConforms(t, 'listForks', forks.data);
    t.equal((await settle(asFriend.repos.repoDelete('gjr-friend', 'src'))).status, 204);
    t.equal((await settle(anonymous.repos.repoGet('gjr-friend', 'src'))).status, 404);
  });

  t.test('migration and mirror sync', async (t) => {
    const migrated = await settle(api.repos.repoMigrate({ clone_addr: `${f.url}/gjr-owner/src.git`, repo_name: 'copy', mirror: true }));
    t.equal(migrated.status, 201);
    t.equal(migrated.data.mirror, true);
    assertConforms(t, 'repoMigrate', migrated.data);
    t.equal((await settle(api.repos.repoMirrorSync('gjr-owner', 'copy'))).status, 200);
    t.equal((await settle(api.repos.repoMirrorSync('gjr-owner', 'src'))).status, 400, 'not a mirror');
  });


  t.test('deploy keys', async (t) => {
    const key = await settle(api.repos.repoCreateKey('gjr-owner', 'src', { title: 'ci', key: sshKey, read_only: true }));
    t.equal(key.status, 201);
    assertConforms(t, 'repoCreateKey', key.data);
    t.equal(key.data.repository?.full_name, 'gjr-owner/src', 'the owner sees the repository embedded');
    const list = await settle(api.repos.repoListKeys('gjr-owner', 'src'));
    t.equal(list.data.length, 1);
    assertConforms(t, 'repoListKeys', list.data);
    const got = await settle(api.repos.repoGetKey('gjr-owner', 'src', key.data.id!));
    t.equal(got.status, 200);
    assertConforms(t, 'repoGetKey', got.data);
    t.equal((await settle(api.repos.repoDeleteKey('gjr-owner', 'src', key.data.id!))).status, 204);
  });

  t.test('watching', async (t) => {
    const watched = await settle(asFriend.repos.userCurrentPutSubscription('gjr-owner', 'src'));
    t.equal(watched.status, 200);
    assertConforms(t, 'userCurrentPutSubscription', watched.data);
    const check = await settle(asFriend.repos.userCurrentCheckSubscription('gjr-owner', 'src'));
    t.equal(check.status, 200);
    assertConforms(t, 'userCurrentCheckSubscription', check.data);
    t.equal((await settle(asFriend.repos.userCurrentDeleteSubscription('gjr-owner', 'src'))).status, 204);
    t.equal((await settle(asFriend.repos.userCurrentCheckSubscription('gjr-owner', 'src'))).status, 404);
  });

  t.test('branches and branch protections', async (t) => {
    const branch = await settle(api.repos.repoCreateBranch('gjr-owner', 'src', { new_branch_name: 'dev', old_ref_name: 'main' }));
    t.equal(branch.status, 201);
    assertConforms(t, 'repoCreateBranch', branch.data);
    const list = await settle(anonymous.repos.repoListBranches('gjr-owner', 'src'));
    t.same(list.data.map((b) => b.name).sort(), ['dev', 'main']);
    assertConforms(t, 'repoListBranches', list.data);
    const got = await settle(anonymous.repos.repoGetBranch('gjr-owner', 'src', 'dev'));
    assertConforms(t, 'repoGetBranch', got.data);
    t.equal((await settle(api.repos.repoUpdateBranch('gjr-owner', 'src', 'dev', { name: 'develop' }))).status, 204);
    t.equal((await settle(anonymous.repos.repoGetBranch('gjr-owner', 'src', 'develop'))).status, 200, 'renamed');
    t.equal((await settle(api.repos.repoDeleteBranch('gjr-owner', 'src', 'develop'))).status, 204);

    const rule = await settle(api.repos.repoCreateBranchProtection('gjr-owner', 'src', { rule_name: 'main', enable_push: false }));
    t.equal(rule.status, 201);
    assertConforms(t, 'repoCreateBranchProtection', rule.data);
    const rules = await settle(api.repos.repoListBranchProtection('gjr-owner', 'src'));
    t.same(rules.data.map((r) => r.rule_name), ['main']);
    assertConforms(t, 'repoListBranchProtection', rules.data);
    const one = await settle(api.repos.repoGetBranchProtection('gjr-owner', 'src', 'main'));
    assertConforms(t, 'repoGetBranchProtection', one.data);
    const edited = await settle(api.repos.repoEditBranchProtection('gjr-owner', 'src', 'main', { enable_push: true }));
    t.equal(edited.status, 200);
    assertConforms(t, 'repoEditBranchProtection', edited.data);
    t.equal((await settle(api.repos.repoDeleteBranchProtection('gjr-owner', 'src', 'main'))).status, 204);
  });

  t.test('tags', async (t) => {
    const tag = await settle(api.repos.repoCreateTag('gjr-owner', 'src', { tag_name: 'v1.0.0', message: 'first', target: 'main' }));
    t.equal(tag.status, 201);
    assertConforms(t, 'repoCreateTag', tag.data);
    const list = await settle(anonymous.repos.repoListTags('gjr-owner', 'src'));
    t.same(list.data.map((x) => x.name), ['v1.0.0']);
    assertConforms(t, 'repoListTags', list.data);
    const got = await settle(anonymous.repos.repoGetTag('gjr-owner', 'src', 'v1.0.0'));
    assertConforms(t, 'repoGetTag', got.data);
    t.equal((await settle(api.repos.repoDeleteTag('gjr-owner', 'src', 'v1.0.0'))).status, 204);
  });

  t.test('delete', async (t) => {
    t.equal((await settle(api.repos.repoDelete('gjr-owner', 'copy'))).status, 204);
    t.equal((await settle(anonymous.repos.repoGet('gjr-owner', 'copy'))).status, 404);
  });
});
