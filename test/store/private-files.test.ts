// Files at rest: the data dir, the store and the repositories are private (0700 dirs, 0600 store files) whatever the
// umask, and the LOCK file is taken atomically (an empty LOCK is never taken for a stale one).
import t from 'tap';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openEmbedded, removeDir, tempDir } from './helpers.js';
import { startForge } from '../helpers/forge.js';

const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

t.test('store files and dirs are private under a permissive umask', async (t) => {
  const old = process.umask(0o000);
  t.teardown(() => { process.umask(old); });
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  // An existing install made under a normal umask: 0755 dirs, 0644 files.
  await mkdir(path.join(dir, 'store'), { recursive: true });
  await chmod(dir, 0o755);
  await chmod(path.join(dir, 'store'), 0o755);
  await writeFile(path.join(dir, 'store', 'old.db'), '', { mode: 0o644 });
  const store = await openEmbedded(dir);
  await store.collection('things').insertMany([{ id: 1 }, { id: 2 }]);
  t.equal(await modeOf(dir), 0o700, 'the data dir');
  t.equal(await modeOf(path.join(dir, 'store')), 0o700, 'the store dir');
  for (const f of await readdir(path.join(dir, 'store'))) t.equal(await modeOf(path.join(dir, 'store', f)), 0o600, f);
  await store.close();
  const again = await openEmbedded(dir); // reload rewrites (compacts) the files
  for (const f of await readdir(path.join(dir, 'store'))) t.equal(await modeOf(path.join(dir, 'store', f)), 0o600, `${f} after a rewrite`);
  await again.close();
});

t.test('an empty LOCK is never taken for a stale one', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  await (await openEmbedded(dir)).close();
  // What a starting server's LOCK looked like between create and write: empty.
  await writeFile(path.join(dir, 'store', 'LOCK'), '');
  await t.rejects(openEmbedded(dir), /exists without a process id/);
  t.equal(await readFile(path.join(dir, 'store', 'LOCK'), 'utf8'), '', 'left as it was');
});

t.test('a whole forge keeps its data dir private', async (t) => {
  const old = process.umask(0o002);
  t.teardown(() => { process.umask(old); });
  const f = await startForge();
  t.teardown(() => f.close());
  const u = await f.createUser();
  t.equal((await f.request('POST', '/user/repos', { token: u.token, json: { name: 'private-files', auto_init: true } })).status, 201);
  t.equal(await modeOf(f.dataDir), 0o700, 'data dir');
  t.equal(await modeOf(path.join(f.dataDir, 'store')), 0o700, 'store');
  t.equal(await modeOf(path.join(f.dataDir, 'repositories')), 0o700, 'repositories root');
  t.equal(await modeOf(path.join(f.dataDir, 'repositories', u.username.toLowerCase())), 0o700, 'an owner dir');
  for (const file of await readdir(path.join(f.dataDir, 'store'))) {
    t.equal(await modeOf(path.join(f.dataDir, 'store', file)), 0o600, `store/${file}`);
  }
});
