// `forgekit dump` → wipe → `forgekit restore` → compare: files, records, privacy and git history come back.
import t from 'tap';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, startForge } from '../helpers/forge.js';
import { cli, exec, serve, tree } from './operator-helpers.js';

// Each command is a fresh process that boots every plugin: slow on a loaded machine, so a longer limit than tap's default.
t.setTimeout(600_000);

t.test('dump, wipe, restore, compare', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'forgekit-op-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dataDir = path.join(root, 'data');
  const f = await startForge({ dataDir });
  const alice = await f.createUser({ username: 'alice' });
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'kept', auto_init: true, readme: 'Default', private: true } })).status, 201);
  t.equal((await f.request('PUT', '/user/starred/alice/kept', { token: alice.token })).status, 204);
  const repoBefore = (await f.request('GET', '/repos/alice/kept', { token: alice.token })).json;
  await f.forge.close();
  const env = { FORGEKIT_DATA_DIR: dataDir };
  const archive = path.join(root, 'backup', 'forgekit.tgz');

  const dumped = await cli(['dump', '--file', archive, '--json'], env);
  t.equal(dumped.code, 0, dumped.stderr);
  t.match(JSON.parse(dumped.stdout), { format: 1, file: archive });
  t.equal((await cli(['dump'], env)).code, 2, '--file is required');
  const before = await tree(dataDir);
  t.ok(Object.keys(before).some((p) => p.startsWith('repositories/alice/kept.git/')), 'the repositories are in the data dir');

  t.equal((await cli(['restore', '--file', archive], env)).code, 1, 'restore refuses a non-empty data dir');
  await rm(dataDir, { recursive: true, force: true });
  await writeFile(path.join(root, 'not-a-dump.tgz'), 'hello');
  const bad = await cli(['restore', '--file', path.join(root, 'not-a-dump.tgz')], env);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /not a forgekit dump/);
  const restored = await cli(['restore', '--file', archive], env);
  t.equal(restored.code, 0, restored.stderr);
  t.match(restored.stdout, /restored \d+ files into/);

  const after = await tree(dataDir);
  for (const [file, hash] of Object.entries(before)) {
    if (file.startsWith('store/')) continue; // the store files are compared through what they hold, below
    t.equal(after[file], hash, `${file} is restored byte for byte`);
  }
  const g = await startForge({ dataDir });
  t.teardown(() => g.close());
  const token = (await g.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], json: { name: 'again', scopes: ['all'] } })).json.sha1;
  const repoAfter = (await g.request('GET', '/repos/alice/kept', { token })).json;
  // Same record; only the URLs differ, by the port of this server.
  t.same(JSON.parse(JSON.stringify(repoAfter).replaceAll(g.url, f.url)), repoBefore, 'the repository record is back, counters included');
  t.equal((await g.request('GET', '/repos/alice/kept')).status, 404, 'still private');
  const readme = await g.request('GET', '/user/starred/alice/kept', { token });
  t.equal(readme.status, 204, 'the star is back');
  const port = new URL(g.url).port;
  const { stdout } = await exec('git', ['ls-remote', `http://alice:${encodeURIComponent(alice.password)}@127.0.0.1:${port}/alice/kept.git`]);
  t.match(stdout, /refs\/heads\//, 'the git repository serves its history');
});
