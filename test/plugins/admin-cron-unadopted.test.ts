// Site administration through HTTP: the periodic tasks forgekit really runs (/admin/cron: the mirror sync) and git
// directories without a repository record (/admin/unadopted: list, adopt, delete); site admins only.
import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startForge } from '../helpers/forge.js';
import { waitFor } from '../helpers/wait.js';
import { exists, runGit } from '../helpers/git-client.js';

async function git(args: string[], home: string): Promise<void> {
  const r = await runGit(args, { home });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

t.test('GET/POST /admin/cron: the mirror sync, listed and run on request', async (t) => {
  const f = await startForge({ config: { plugins: { git: { mirrorIntervalMs: 600_000 } } } as any });
  t.teardown(() => f.close());
  const someone = await f.createUser({ username: 'cron-user' });
  const list = await f.request('GET', '/admin/cron', { token: f.admin.token });
  t.equal(list.status, 200);
  t.equal(list.headers.get('x-total-count'), '1');
  t.match(list.json, [{ name: 'update_mirrors', schedule: '@every 1m', prev: null, exec_times: 0 }]);
  t.match(list.json[0].next, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.equal((await f.request('POST', '/admin/cron/update_mirrors', { token: f.admin.token })).status, 204);
  const ran = await waitFor('the run to be counted', async () => {
    const after = (await f.request('GET', '/admin/cron', { token: f.admin.token })).json[0];
    return after.exec_times === 1 ? after : null;
  });
  t.match(ran.prev, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'prev is set once it ran');
  t.equal((await f.request('POST', '/admin/cron/no_such_task', { token: f.admin.token })).status, 404, 'no made-up tasks');
  t.equal((await f.request('GET', '/admin/cron', { token: someone.token })).status, 403);
  t.equal((await f.request('POST', '/admin/cron/update_mirrors', { token: someone.token })).status, 403);
  t.equal((await f.request('GET', '/admin/cron')).status, 401);
  t.equal((await f.request('POST', '/admin/cron/update_mirrors')).status, 401);
  t.same((await f.request('GET', '/admin/cron?page=2', { token: f.admin.token })).json, []);
});

t.test('GET /admin/cron: no periodic mirror sync configured, no task', async (t) => {
  const f = await startForge({ config: { plugins: { git: { mirrorIntervalMs: 0 } } } as any });
  t.teardown(() => f.close());
  t.same((await f.request('GET', '/admin/cron', { token: f.admin.token })).json, []);
  t.equal((await f.request('POST', '/admin/cron/update_mirrors', { token: f.admin.token })).status, 404);
});

t.test('/admin/unadopted: list, adopt, delete', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const una = await f.createUser({ username: 'una' });
  const root = path.join(f.dataDir, 'repositories');
  t.equal((await f.request('POST', '/user/repos', { token: una.token, json: { name: 'kept', auto_init: true } })).status, 201);
  // Directories nobody claims: a real repository with a commit, an empty one, a non-repository, an unknown owner's.
  const work = path.join(f.dataDir, 'work');
  const home = path.join(f.dataDir, 'client-home');
  await mkdir(home, { recursive: true });
  await git(['init', '-q', work], home);
  await git(['-C', work, 'checkout', '-q', '-b', 'trunk'], home);
  await writeFile(path.join(work, 'a.txt'), 'adopt me\n');
  await git(['-C', work, 'add', '.'], home);
  await git(['-C', work, 'commit', '-qm', 'one'], home);
  await git(['clone', '-q', '--bare', work, path.join(root, 'una', 'orphan.git')], home);
  await git(['init', '-q', '--bare', path.join(root, 'una', 'blank.git')], home);
  await mkdir(path.join(root, 'una', 'junk.git'), { recursive: true });
  await git(['init', '-q', '--bare', path.join(root, 'ghost-owner', 'lost.git')], home);

  t.test('list: directories of existing owners without a record, in name order', async (t) => {
    const all = await f.request('GET', '/admin/unadopted', { token: admin });
    t.equal(all.status, 200);
    t.same(all.json, ['una/blank', 'una/junk', 'una/orphan'], 'records and unknown owners are left out');
    t.equal(all.headers.get('x-total-count'), '3');
    t.same((await f.request('GET', '/admin/unadopted?limit=1&page=3', { token: admin })).json, ['una/orphan']);
    t.same((await f.request('GET', '/admin/unadopted?pattern=una/o*', { token: admin })).json, ['una/orphan'], 'glob per part');
    t.same((await f.request('GET', '/admin/unadopted?pattern=u?a', { token: admin })).json, ['una/blank', 'una/junk', 'una/orphan']);
    t.same((await f.request('GET', '/admin/unadopted?pattern=nobody', { token: admin })).json, []);
    t.equal((await f.request('GET', '/admin/unadopted', { token: una.token })).status, 403);
    t.equal((await f.request('GET', '/admin/unadopted')).status, 401);
  });

  t.test('adopt: a private repository record with what is on disk', async (t) => {
    t.equal((await f.request('POST', '/admin/unadopted/una/orphan', { token: una.token })).status, 403);
    t.equal((await f.request('POST', '/admin/unadopted/una/orphan')).status, 401);
    t.equal((await f.request('POST', '/admin/unadopted/una/orphan', { token: admin })).status, 204);
    const repo = await f.request('GET', '/repos/una/orphan', { token: una.token });
    t.equal(repo.status, 200);
    t.match(repo.json, { full_name: 'una/orphan', private: true, empty: false, default_branch: 'trunk' });
    t.equal((await f.request('GET', '/repos/una/orphan')).status, 404, 'private: hidden from strangers');
    const file = await f.request('GET', '/repos/una/orphan/contents/a.txt', { token: una.token });
    t.equal(Buffer.from(file.json.content, 'base64').toString(), 'adopt me\n', 'its content is served');
    t.equal((await f.request('POST', '/admin/unadopted/una/orphan', { token: admin })).status, 404, 'adopted: no longer unadopted');
    t.equal((await f.request('POST', '/admin/unadopted/una/kept', { token: admin })).status, 404, 'a record exists');
    t.equal((await f.request('POST', '/admin/unadopted/una/nothing', { token: admin })).status, 404, 'no directory');
    t.equal((await f.request('POST', '/admin/unadopted/ghost-owner/lost', { token: admin })).status, 404, 'no such owner');
    const junk = await f.request('POST', '/admin/unadopted/una/junk', { token: admin });
    t.equal(junk.status, 422, 'not a git repository');
    t.ok(await exists(path.join(root, 'una', 'junk.git')), 'left where it was');
    t.equal((await f.request('GET', '/repos/una/junk', { token: admin })).status, 404, 'no record');
    t.equal((await f.request('POST', '/admin/unadopted/una/blank', { token: admin })).status, 204);
    t.match((await f.request('GET', '/repos/una/blank', { token: admin })).json, { empty: true });
    t.same((await f.request('GET', '/admin/unadopted', { token: admin })).json, ['una/junk']);
  });

  t.test('delete: the directory goes; records are never touched', async (t) => {
    t.equal((await f.request('DELETE', '/admin/unadopted/una/junk', { token: una.token })).status, 403);
    t.equal((await f.request('DELETE', '/admin/unadopted/una/junk')).status, 401);
    t.equal((await f.request('DELETE', '/admin/unadopted/una/kept', { token: admin })).status, 404, 'a repository with a record');
    t.ok(await exists(path.join(root, 'una', 'kept.git')));
    t.equal((await f.request('DELETE', '/admin/unadopted/una/junk', { token: admin })).status, 204);
    t.notOk(await exists(path.join(root, 'una', 'junk.git')));
    t.equal((await f.request('DELETE', '/admin/unadopted/una/junk', { token: admin })).status, 404, 'gone');
    t.same((await f.request('GET', '/admin/unadopted', { token: admin })).json, []);
  });
});
