// POST /admin/users/{username}/rename through HTTP: the account, its repositories (records keyed by id, directories
// moved), its sign-ins follow the new name; refusals change nothing; a SIGKILL between the steps leaves nothing
// half-renamed after a restart.
import t from 'tap';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crashDuring } from '../helpers/crash.js';
import { startForge, type TestForge } from '../helpers/forge.js';
import { exists, runGit } from '../helpers/git-client.js';
import { builtinPlugins, checkConsistency } from '../../plugins/index.js';

async function lsRemote(url: string, home: string): Promise<string> {
  const r = await runGit(['ls-remote', url], { home });
  return r.code === 0 ? r.stdout : `failed: ${r.stderr}`;
}

const rename = (f: TestForge, from: string, to: string, token = f.admin.token) =>
  f.request('POST', `/admin/users/${from}/rename`, { token, json: { new_username: to } });

t.test('rename a user', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const home = path.join(f.dataDir, 'client-home');
  await mkdir(home, { recursive: true });
  const root = path.join(f.dataDir, 'repositories');
  const ren = await f.createUser({ username: 'ren-old' });
  const other = await f.createUser({ username: 'ren-other' });
  t.equal((await f.request('POST', '/user/repos', { token: ren.token, json: { name: 'proj', auto_init: true } })).status, 201);
  t.equal((await f.request('POST', '/user/repos', { token: ren.token, json: { name: 'secret', private: true } })).status, 201);
  t.equal((await f.request('POST', '/orgs', { token: ren.token, json: { username: 'ren-org' } })).status, 201);
  const rule = await f.request('POST', '/repos/ren-old/proj/branch_protections', {
    token: ren.token,
    json: { rule_name: 'master', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['REN-OLD'], enable_merge_whitelist: true, merge_whitelist_usernames: ['ren-old'] },
  });
  t.equal(rule.status, 201, rule.text);
  const before = await lsRemote(`${f.url}/ren-old/proj.git`, home);
  t.match(before, /refs\/heads\/master/);

  t.test('refusals change nothing', async (t) => {
    t.equal((await rename(f, 'ren-old', 'ren-new', ren.token)).status, 403, 'site admins only');
    t.equal((await f.request('POST', '/admin/users/ren-old/rename', { json: { new_username: 'ren-new' } })).status, 401);
    t.equal((await rename(f, 'nobody-here', 'ren-new')).status, 404);
    const taken = await rename(f, 'ren-old', 'REN-OTHER');
    t.equal(taken.status, 422, 'a name in use, in any case');
    t.match(taken.json.message, /already taken/);
    t.equal((await rename(f, 'ren-old', 'ren-org')).status, 422, "an organization's name");
    t.equal((await rename(f, 'ren-old', 'bad name!')).status, 422, 'not a valid name');
    t.equal((await rename(f, 'ren-old', 'api')).status, 422, 'a reserved name');
    const org = await rename(f, 'ren-org', 'ren-org2');
    t.equal(org.status, 422, 'an organization is not renamed here');
    t.match(org.json.message, /is an organization not a user/);
    t.equal((await f.request('POST', '/admin/users/ren-old/rename', { token: f.admin.token, json: {} })).status, 422, 'new_username is required');
    // Files of some other install under the new name: refused before anything moves.
    await runGit(['init', '-q', '--bare', path.join(root, 'ren-squatted', 'x.git')], { home });
    const squatted = await rename(f, 'ren-old', 'ren-squatted');
    t.equal(squatted.status, 422);
    t.match(squatted.json.message, /repository files already exist/);
    await rm(path.join(root, 'ren-squatted'), { recursive: true, force: true });
    t.equal((await f.request('GET', '/users/ren-old')).status, 200, 'the account kept its name');
    t.equal(await lsRemote(`${f.url}/ren-old/proj.git`, home), before, 'and its repositories');
    t.equal((await rename(f, 'ren-old', 'ren-old')).status, 204, 'the same name: nothing to do');
  });

  t.test('the account, its repositories and its sign-ins follow the new name', async (t) => {
    t.equal((await rename(f, 'ren-old', 'ren-new')).status, 204);
    const user = await f.request('GET', '/users/ren-new');
    t.match(user.json, { id: ren.id, login: 'ren-new', username: 'ren-new' });
    t.equal((await f.request('GET', '/users/ren-old')).status, 404, 'the old name is free (forgekit keeps no redirects)');
    t.equal((await f.request('GET', '/user', { token: ren.token })).json.login, 'ren-new', 'its tokens keep working, as the new name');
    t.equal((await f.request('GET', '/user', { basic: ['ren-new', ren.password] })).status, 200, 'the password signs in with the new name');
    t.equal((await f.request('GET', '/user', { basic: ['ren-old', ren.password] })).status, 401, 'not the old one');
    const repo = await f.request('GET', '/repos/ren-new/proj');
    t.match(repo.json, { full_name: 'ren-new/proj', owner: { login: 'ren-new' }, clone_url: `${f.url}/ren-new/proj.git` });
    t.equal((await f.request('GET', '/repos/ren-old/proj')).status, 404);
    t.equal((await f.request('GET', '/repos/ren-new/secret', { token: ren.token })).status, 200, 'private ones too');
    t.equal(await lsRemote(`${f.url}/ren-new/proj.git`, home), before, 'git serves it from the moved directory');
    t.ok(await exists(path.join(root, 'ren-new', 'proj.git')));
    t.notOk(await exists(path.join(root, 'ren-old')), 'nothing left under the old name');
    const file = await f.request('GET', '/repos/ren-new/proj/contents/README.md');
    t.equal(file.status, 200, 'contents read through the new path');
    const search = await f.request('GET', '/users/search?q=ren-new');
    t.same(search.json.data.map((u: any) => u.login), ['ren-new'], 'the search index knows the new name');
    const protection = await f.request('GET', '/repos/ren-new/proj/branch_protections/master', { token: ren.token });
    t.match(protection.json, { push_whitelist_usernames: ['ren-new'], merge_whitelist_usernames: ['ren-new'] }, 'branch protection lists name the new login');
    const members = await f.request('GET', '/orgs/ren-org/members', { token: ren.token });
    t.same(members.json.map((m: any) => m.login), ['ren-new'], 'memberships are by id');
  });

  t.test('a change of case only', async (t) => {
    t.equal((await rename(f, 'ren-new', 'Ren-New')).status, 204);
    t.equal((await f.request('GET', '/users/ren-new')).json.login, 'Ren-New');
    t.ok(await exists(path.join(root, 'ren-new', 'proj.git')), 'directories are lower case: nothing moves');
    t.equal(await lsRemote(`${f.url}/Ren-New/proj.git`, home), before);
  });

  t.test('the old name can be taken by someone else, with separate repositories', async (t) => {
    const next = await f.createUser({ username: 'ren-old', email: 'ren-old-2@example.com' });
    t.not(next.id, ren.id);
    const made = await f.request('POST', '/user/repos', { token: next.token, json: { name: 'proj' } });
    t.equal(made.status, 201);
    t.equal(made.json.empty, true, 'a fresh repository, not the renamed account\'s');
    t.match(await lsRemote(`${f.url}/Ren-New/proj.git`, home), /refs\/heads\/master/, 'the renamed one is untouched');
    void other;
  });
});

t.test('SIGKILL between the steps of a rename leaves nothing half-renamed', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-crash-rename-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const setup = await startForge({ dataDir });
  const names = ['crash-a', 'crash-b', 'crash-c'];
  for (const name of names) {
    const u = await setup.createUser({ username: name });
    t.equal((await setup.request('POST', '/user/repos', { token: u.token, json: { name: 'r', auto_init: true } })).status, 201);
    const rule = await setup.request('POST', `/repos/${name}/r/branch_protections`, {
      token: u.token, json: { rule_name: 'master', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: [name] },
    });
    t.equal(rule.status, 201, `${name}: a rule naming the account`);
  }
  await setup.close();
  const post = async (api: string, token: string, from: string, to: string) =>
    fetch(`${api}/admin/users/${from}/rename`, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ new_username: to }) });
  // After the account row changed, before the directory moved; after it moved, before the move record went.
  await crashDuring(dataDir, 'account.rename:after-record', (api, token) => post(api, token, 'crash-a', 'crash-a2'));
  await crashDuring(dataDir, 'account.rename:after-move', (api, token) => post(api, token, 'crash-b', 'crash-b2'));
  // Prepared (the move recorded), before the account changed: the rename never happened.
  await crashDuring(dataDir, 'account.rename:after-prepare', (api, token) => post(api, token, 'crash-c', 'crash-c2'));

  const f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const home = path.join(dataDir, 'client-home');
  await mkdir(home, { recursive: true });
  for (const [from, to] of [['crash-a', 'crash-a2'], ['crash-b', 'crash-b2'], ['crash-c2', 'crash-c']] as const) {
    const now = await f.request('GET', `/users/${to}`);
    t.equal(now.status, 200, `${to}: the account row decides the name`);
    t.equal((await f.request('GET', `/users/${from}`)).status, 404);
    t.match(await lsRemote(`${f.url}/${to}/r.git`, home), /refs\/heads\/master/, `${to}/r is served from its new directory`);
    t.notOk(await exists(path.join(dataDir, 'repositories', from)), `no directory under ${from}`);
  }
  for (const [to] of [['crash-a2'], ['crash-b2'], ['crash-c']] as const) {
    const rule = await f.request('GET', `/repos/${to}/r/branch_protections/master`, { token: f.admin.token });
    t.same(rule.json.push_whitelist_usernames, [to], `${to}: the branch protection list names the account's login`);
  }
  t.equal(await f.forge.store.collection('branch_protection_renames').count({}), 0, 'no protection rename left recorded');
  t.equal(await f.forge.store.collection('git_owner_moves').count({}), 0, 'no move left recorded');
  const report = await checkConsistency({ store: f.forge.store, dataDir, collections: builtinPlugins.flatMap((p) => p.collections ?? []) });
  t.same(report.problems.map((p) => p.message), [], 'the consistency pass finds nothing');
});
