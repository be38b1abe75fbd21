// The embedded adapter: the shared contract plus what only a file-backed store has (files, compaction, scans).
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { Store } from '../../core/store/port.js';
import { createStore } from '../../core/store/index.js';
import { EmbeddedStore } from '../../core/store/embedded/index.js';
import { storeContract } from './contract.js';
import { openEmbedded, recordingLogger, removeDir, tempDir } from './helpers.js';

const dirs = new Map<Store, string>();

storeContract('embedded store: contract', {
  async create() {
    const dir = await tempDir();
    const store = await openEmbedded(dir);
    dirs.set(store, dir);
    return store;
  },
  async reopen(store) {
    const dir = dirs.get(store)!;
    await store.close();
    const again = await openEmbedded(dir);
    dirs.set(again, dir);
    return again;
  },
  async cleanup(store) {
    const dir = dirs.get(store);
    dirs.delete(store);
    if (dir) await removeDir(dir);
  },
});

const lines = async (file: string): Promise<string[]> => (await readFile(file, 'utf8')).split('\n').filter(Boolean);

t.test('embedded store: files, compaction, scans', async (t) => {
  let dir: string;
  t.beforeEach(async () => {
    dir = await tempDir();
  });
  t.afterEach(async () => {
    await removeDir(dir);
  });

  t.test('createStore picks the embedded adapter without a MongoDB URI', async (t) => {
    const log = recordingLogger();
    const store = createStore({ dataDir: dir, mongodbUri: '', compactIntervalMs: 0 }, log);
    t.equal(store.kind, 'embedded');
    await store.open();
    await store.close();
    const mongo = createStore({ dataDir: dir, mongodbUri: 'mongodb://127.0.0.1:1/x', compactIntervalMs: 0 }, log);
    t.equal(mongo.kind, 'mongodb', 'a URI selects MongoDB (not opened here)');
  });

  t.test('one file per collection under <dataDir>/store, compacted on close', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'repos', indexes: [{ fields: { id: 1 }, unique: true }] });
    const repos = store.collection('repos');
    await repos.insertOne({ id: 1, name: 'a' });
    for (let i = 0; i < 20; i++) await repos.updateOne({ id: 1 }, { $inc: { stars: 1 } });
    const file = path.join(dir, 'store', 'repos.db');
    t.ok((await lines(file)).length >= 21, 'every write appended a line');
    // Every acknowledged write is in the file already, before any close or compaction.
    t.same(JSON.parse((await lines(file)).at(-1)!).stars, 20, 'the last acknowledged state is the last line');
    await store.close();
    const after = await lines(file);
    t.equal(after.length, 2, 'one line per document plus the index after close');
    t.match(after.join('\n'), /"\$\$indexCreated":\{"fieldName":"id","unique":true,"sparse":false\}/);
    await t.rejects(repos.findOne({ id: 1 }), /closed/, 'a closed store refuses work');
  });

  t.test('background compaction rewrites changed files', async (t) => {
    const store = await openEmbedded(dir, recordingLogger(), 40);
    const c = store.collection('counters_test');
    await c.insertOne({ id: 1, n: 0 });
    for (let i = 0; i < 30; i++) await c.updateOne({ id: 1 }, { $inc: { n: 1 } });
    const file = path.join(dir, 'store', 'counters_test.db');
    t.ok((await lines(file)).length >= 31);
    await new Promise((r) => setTimeout(r, 150));
    t.equal((await lines(file)).length, 1, 'compacted in the background to one line');
    t.equal((await c.findOne({ id: 1 }))!.n, 30);
    await c.updateOne({ id: 1 }, { $inc: { n: 1 } });
    t.equal((await lines(file)).length, 2, 'appends continue after a rewrite');
    await store.close();
    const again = await openEmbedded(dir);
    t.equal((await again.collection('counters_test').findOne({ id: 1 }))!.n, 31, 'nothing lost across rewrites');
    await again.close();
  });

  t.test('concurrent writes are group-committed and each is in the file when acknowledged', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'bulk', indexes: [{ fields: { id: 1 }, unique: true }] });
    const bulk = store.collection('bulk');
    await Promise.all(Array.from({ length: 2000 }, (_, i) => bulk.insertOne({ id: i, v: `value ${i}` })));
    const ids = new Set((await lines(path.join(dir, 'store', 'bulk.db'))).map((l) => JSON.parse(l).id));
    t.equal([...Array(2000).keys()].filter((i) => !ids.has(i)).length, 0, 'all 2000 acknowledged inserts are in the file');
    await store.close();
  });

  t.test('compaction is not starved by a steady stream of writes', async (t) => {
    const store = await openEmbedded(dir);
    const c = store.collection('busy');
    await c.insertOne({ id: 0, n: 0 });
    let stop = false;
    let writes = 0;
    const writers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        await c.updateOne({ id: 0 }, { $inc: { n: 1 } });
        writes++;
      }
    });
    await new Promise((r) => setTimeout(r, 50));
    const before = writes;
    await store.compactAll();
    const during = writes - before;
    stop = true;
    await Promise.all(writers);
    t.ok(writes > before, `writes kept flowing (${during} while compacting)`);
    t.equal((await c.findOne({ id: 0 }))!.n, writes, 'no update lost across the rewrite');
    await store.close();
    const again = await openEmbedded(dir);
    t.equal((await again.collection('busy').findOne({ id: 0 }))!.n, writes, 'and none lost on disk');
    await again.close();
  });

  t.test('only the port operators are accepted', async (t) => {
    const store = await openEmbedded(dir);
    const c = store.collection('ops');
    await c.insertOne({ a: 'x' });
    await t.rejects(c.find({ a: { $regex: 'x' } }), /unsupported filter operator \$regex/);
    await t.rejects(c.find({ $where: 'true' }), /unsupported filter operator \$where/);
    await t.rejects(c.find({ a: { $gt: 1, b: 2 } }), /cannot mix operators and fields/);
    await t.rejects(c.find({}, { skip: -1 }), /skip/);
    await t.rejects(c.find({}, { projection: { a: 1, b: 0 } }), /mix inclusion and exclusion/);
    await store.close();
  });

  t.test('reads are served from an index without scanning', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'r', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { owner_id: 1 } }] });
    const r = store.collection('r');
    await r.insertMany(Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, owner_id: i % 4, private: i % 2 === 0 })));
    const newest = await r.explain({}, { sort: { id: -1 }, limit: 5 });
    t.same(newest, { index: 'id_1', examined: 5, returned: 5 }, 'a sorted page with no filter walks the sort index and stops');
    const page = await r.explain({ owner_id: 2 }, { sort: { id: -1 }, skip: 10, limit: 10 });
    t.equal(page.returned, 10);
    t.ok(page.examined <= 250, `an indexed filter + sort examines at most its matches (${page.examined})`);
    const broad = await r.explain({ private: false }, { sort: { id: 1 }, limit: 3 });
    t.same(broad, { index: 'id_1', examined: 6, returned: 3 }, 'an unindexed filter with an indexed sort stops early');
    t.equal(await r.count({ owner_id: 1 }), 250, 'count through an index');
    t.same((await r.find({ owner_id: 1 }, { sort: { id: -1 }, limit: 2 })).map((d) => d.id), [998, 994]);
    await store.close();
  });

  t.test('indexes over arrays never hide documents', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'plain' });
    await store.ensureCollection({ name: 'indexed', indexes: [{ fields: { tags: 1 } }, { fields: { owner: 1, labels: 1 } }, { fields: { n: 1 } }] });
    const docs = [
      { id: 1, tags: [], owner: 1, labels: ['x', 'y'], n: 3 },
      { id: 2, tags: ['b', 'a'], owner: 1, labels: 'x', n: 1 },
      { id: 3, tags: 'c', owner: 2, labels: ['x'], n: 2 },
      { id: 4, owner: 1, n: 4 },
      { id: 5, tags: ['z'], owner: 1, labels: [], n: 0 },
    ];
    await store.collection('plain').insertMany(docs);
    await store.collection('indexed').insertMany(docs);
    const queries: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{}, { sort: { tags: 1 }, limit: 3 }],
      [{}, { sort: { tags: -1 }, limit: 3 }],
      [{ owner: 1, labels: 'x' }, {}],
      [{ tags: 'a' }, {}],
      [{}, { sort: { n: -1 }, limit: 2 }],
    ];
    for (const [filter, options] of queries) {
      const want = (await store.collection('plain').find(filter, options)).map((d) => d.id);
      const got = (await store.collection('indexed').find(filter, options)).map((d) => d.id);
      t.same(got, want, `${JSON.stringify(filter)} ${JSON.stringify(options)} → ${JSON.stringify(want)}`);
    }
    t.same((await store.collection('indexed').find({ owner: 1, labels: 'x' })).map((d) => d.id).sort(), [1, 2], 'compound lookup with an array value');
    t.equal((await store.collection('indexed').explain({}, { sort: { n: -1 }, limit: 2 })).examined, 2, 'a scalar-only index is still walked in order');
    await store.close();
  });

  t.test('one store per data directory (LOCK file)', async (t) => {
    const store = await openEmbedded(dir);
    await t.rejects(openEmbedded(dir), /already open in this process/, 'a second store in this process is refused');
    await store.close();
    // A live process holding the lock: refused, with its pid.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    t.teardown(() => {
      holder.kill('SIGKILL');
    });
    await writeFile(path.join(dir, 'store', 'LOCK'), `${holder.pid}\n`);
    await t.rejects(openEmbedded(dir), new RegExp(`in use by process ${holder.pid}`), 'another live process holds it');
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    // Its process is gone (a crash): the stale lock is taken over.
    const again = await openEmbedded(dir);
    t.equal((await readFile(path.join(dir, 'store', 'LOCK'), 'utf8')).trim(), String(process.pid), 'the lock now names this process');
    await again.close();
    await t.rejects(readFile(path.join(dir, 'store', 'LOCK')), { code: 'ENOENT' }, 'close releases it');
  });

  t.test('a corrupt line that is not the last one stops the load', async (t) => {
    const store = await openEmbedded(dir);
    const c = store.collection('c');
    await c.insertMany([{ id: 1 }, { id: 2 }, { id: 3 }]);
    await store.close();
    const file = path.join(dir, 'store', 'c.db');
    const content = await lines(file);
    content.splice(1, 0, '{"_id":"broken","id":');
    await writeFile(file, content.join('\n') + '\n');
    const again = new EmbeddedStore({ dataDir: dir, compactIntervalMs: 0, log: recordingLogger() });
    await t.rejects(again.open(), /c\.db line 2 is corrupt/, 'refuses to start and names the line');
  });
});
