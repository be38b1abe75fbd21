// The embedded adapter: the shared contract plus what only a file-backed store has (files, compaction, scans).
import t from 'tap';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { Store } from '../../core/store/port.js';
import { createStore } from '../../core/store/index.js';
import { EmbeddedStore } from '../../core/store/embedded/index.js';
import { storeContract } from './contract.js';
import { openEmbedded, recordingLogger, removeDir, tempDir } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { nodeCommand } from '../helpers/child-env.js';

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
    t.match(after.join('\n'), /"\$\$indexCreated":\{"fieldName":"id","unique":true,"sparse":false,"fields":\{"id":1\}\}/);
    await t.rejects(repos.findOne({ id: 1 }), /closed/, 'a closed store refuses work');
  });

  t.test('background compaction rewrites changed files', async (t) => {
    const store = await openEmbedded(dir, recordingLogger(), 40);
    const c = store.collection('counters_test');
    await c.insertOne({ id: 1, n: 0 });
    for (let i = 0; i < 30; i++) await c.updateOne({ id: 1 }, { $inc: { n: 1 } });
    const file = path.join(dir, 'store', 'counters_test.db');
    t.ok((await lines(file)).length >= 31);
    // The timer fires after 40 ms; the rewrite itself may take longer on a loaded machine: wait for it.
    await waitFor('the background compaction', async () => (await lines(file)).length === 1);
    t.pass('compacted in the background to one line');
    t.equal((await c.findOne({ id: 1 }))!.n, 30);
    await c.updateOne({ id: 1 }, { $inc: { n: 1 } });
    t.equal((await lines(file)).length, 2, 'appends continue after a rewrite');
    await store.close();
    const again = await openEmbedded(dir);
    t.equal((await again.collection('counters_test').findOne({ id: 1 }))!.n, 31, 'nothing lost across rewrites');
    await again.close();
  });

  t.test('a file loaded with superseded lines is rewritten by the next compaction, not at load', async (t) => {
    const file = path.join(dir, 'store', 'stale_test.db');
    await mkdir(path.dirname(file), { recursive: true });
    const versions = [1, 2, 3].map((n) => JSON.stringify({ _id: 'a1', id: 1, n }));
    await writeFile(file, [...versions, JSON.stringify({ _id: 'b2', id: 2, n: 0 }), JSON.stringify({ $$deleted: true, _id: 'b2' })].join('\n') + '\n');
    const store = await openEmbedded(dir, recordingLogger(), 0);
    t.equal((await store.collection('stale_test').findOne({ id: 1 }))!.n, 3, 'the last version is loaded');
    t.equal(await store.collection('stale_test').count({}), 1, 'the deleted document is gone');
    t.equal((await lines(file)).length, 5, 'the load left the file as it was (no rewrite holds the start)');
    await store.compactAll(); // what the compaction timer runs
    t.same((await lines(file)).map((l) => JSON.parse(l)), [{ _id: 'a1', id: 1, n: 3 }], 'compacted without any write since the load');
    await store.close();
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
    await waitFor('the writers to be under way', () => writes >= 50);
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

  t.test('writes made while a large collection is rewritten are acknowledged meanwhile and kept', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'large', indexes: [{ fields: { id: 1 }, unique: true }] });
    const c = store.collection('large');
    const size = 20_000;
    for (let from = 0; from < size; from += 2000) {
      await c.insertMany(Array.from({ length: 2000 }, (_, i) => ({ id: from + i, v: 'x'.repeat(60), n: 0 })));
    }
    let compacted = false;
    const compacting = store.compactAll().then(() => (compacted = true));
    let acknowledgedDuring = 0;
    let next = size;
    // Updates spread over the whole file (before and after the rewrite's position), deletes and inserts.
    for (let round = 0; !compacted; round++) {
      const id = (round * 7919) % size;
      await Promise.all([
        c.updateOne({ id }, { $inc: { n: 1 } }),
        round % 3 === 0 ? c.deleteOne({ id: (id + 1) % size }) : c.insertOne({ id: next++, v: 'new', n: 0 }),
      ]);
      if (!compacted) acknowledgedDuring++;
    }
    await compacting;
    t.ok(acknowledgedDuring >= 3, `writes were acknowledged while the rewrite ran (${acknowledgedDuring} rounds)`);
    const byId = (docs: Array<Record<string, unknown>>) => [...docs].sort((a, b) => (a.id as number) - (b.id as number));
    const inMemory = byId(await c.find({}));
    // The rewritten file as a load reads it (a later line for an `_id` wins), before close() rewrites it again.
    const latest = new Map<string, Record<string, unknown>>();
    for (const line of await lines(path.join(dir, 'store', 'large.db'))) {
      const { _id, ...doc } = JSON.parse(line) as Record<string, unknown>;
      if (typeof _id !== 'string') continue; // the index line
      if (doc.$$deleted === true) latest.delete(_id);
      else latest.set(_id, doc);
    }
    const inFile = byId([...latest.values()]);
    t.equal(inFile.length, inMemory.length, `${inMemory.length} documents in the rewritten file`);
    t.same(inFile, inMemory, 'the rewritten file holds what memory holds');
    await store.close();
    const again = await openEmbedded(dir);
    t.same(byId(await again.collection('large').find({})), inMemory, 'and so does a reload after close');
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


  t.test('compound indexes over field names that need quoting in generated probes count and page like a scan', async (t) => {
    // Rank probes read fields through code generated per index (indexes.ts, generatedKeyField): a name with quotes,
    // a backslash, a line break or a non-ASCII letter must reach the document as the same name.
    const store = await openEmbedded(dir);
    const names = ['we"ird', 'back\\slash', 'line\nbreak', 'ünï', "it's"];
    await store.ensureCollection({ name: 'odd-plain' });
    await store.ensureCollection({
      name: 'odd',
      indexes: [{ fields: { [names[0]!]: 1, [names[1]!]: -1, id: 1 } }, { fields: { [names[2]!]: 1, [names[3]!]: 1, [names[4]!]: 1 } }],
    });
    const docs = Array.from({ length: 300 }, (_, i) => ({
      id: i + 1, [names[0]!]: i % 3, [names[1]!]: i % 7, [names[2]!]: `v${i % 4}`, [names[3]!]: i % 5 === 0, [names[4]!]: i,
    }));
    await store.collection('odd-plain').insertMany(docs);
    await store.collection('odd').insertMany(docs);
    const queries: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ [names[0]!]: 1 }, { sort: { [names[0]!]: 1, [names[1]!]: -1, id: 1 }, skip: 7, limit: 5 }],
      [{ [names[0]!]: 2, [names[1]!]: { $gte: 3 } }, { sort: { id: 1 } }],
      [{ [names[2]!]: 'v1', [names[3]!]: true }, { sort: { id: 1 } }],
      [{ [names[2]!]: 'v3', [names[3]!]: false, [names[4]!]: { $lt: 100 } }, { sort: { id: 1 } }],
    ];
    for (const [filter, options] of queries) {
      const want = (await store.collection('odd-plain').find(filter, options)).map((d) => d.id);
      t.ok(want.length > 0, `${JSON.stringify(filter)} matches something`);
      t.same((await store.collection('odd').find(filter, options)).map((d) => d.id), want, `${JSON.stringify(filter)} finds as a scan does`);
      t.equal(await store.collection('odd').count(filter), await store.collection('odd-plain').count(filter), `${JSON.stringify(filter)} counts as a scan does`);
    }
    const counted = await store.collection('odd').explain({ [names[0]!]: 1, [names[1]!]: 4 }, {});
    t.not(counted.index, null, `a prefix of the quoted names is served by their index (${counted.index})`);
    await store.close();
  });
  t.test('ordered walks over compound indexes examine about skip + limit (20,000 rows)', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({
      name: 'rel',
      indexes: [{ fields: { uid: 1, repoId: 1 }, unique: true }, { fields: { uid: 1, id: -1 } }, { fields: { uid: 1 } }, { fields: { uid: 1, repoPrivate: 1 } }, { fields: { repoId: 1 } }],
    });
    await store.ensureCollection({
      name: 'repos',
      indexes: [{ fields: { id: 1 }, unique: true }, { fields: { ownerId: 1 } }, { fields: { lowerName: 1 } }, { fields: { private: 1 } }, { fields: { ownerId: 1, lowerName: 1 } }],
    });
    const rel = store.collection('rel');
    const repos = store.collection('repos');
    const n = 20_000;
    await rel.insertMany(Array.from({ length: n }, (_, i) => ({ id: i + 1, uid: i % 4, repoId: i, repoPrivate: i % 10 === 0 })));
    await repos.insertMany(Array.from({ length: n }, (_, i) => ({ id: i + 1, ownerId: i % 20, lowerName: `name-${String(n - i).padStart(5, '0')}`, private: i % 10 === 0 })));
    const ofUid2 = Array.from({ length: n / 4 }, (_, j) => n - 2 - j * 4 + 1).filter((id) => id >= 1); // uid 2: ids 3, 7, … newest first

    const page50 = { sort: { id: -1 as const }, skip: 2450, limit: 50 };
    t.same(await rel.explain({ uid: 2 }, page50), { index: 'uid_1_id_-1', examined: 50, returned: 50 }, 'page 50 of a user: a jump to the page, then 50 rows');
    t.same((await rel.find({ uid: 2 }, page50)).map((r) => r.id), ofUid2.slice(2450, 2500), 'the right rows');
    const back = await rel.explain({ uid: 2 }, { sort: { id: 1 }, skip: 2450, limit: 50 });
    t.same(back, { index: 'uid_1_id_-1', examined: 50, returned: 50 }, 'the reversed sort walks the same index backwards');
    t.same((await rel.find({ uid: 2 }, { sort: { id: 1 }, skip: 2450, limit: 50 })).map((r) => r.id), [...ofUid2].reverse().slice(2450, 2500));
    const pub = await rel.explain({ uid: 2, repoPrivate: false }, { sort: { id: -1 }, limit: 50 });
    t.equal(pub.index, 'uid_1_id_-1', 'an extra condition is checked per row of the walk');
    t.ok(pub.examined <= 70, `and the walk stops after the page (${pub.examined} examined)`);
    const pubDeep = await rel.explain({ uid: 2, repoPrivate: false }, page50);
    t.ok(pubDeep.examined <= 3200, `page 50 of it examines about skip + limit (${pubDeep.examined})`);
    const nin = await rel.explain({ uid: 2, repoId: { $nin: [2, 6, 10] } }, { sort: { id: -1 }, limit: 50 });
    t.same([nin.index, nin.returned], ['uid_1_id_-1', 50], '$nin on top');
    t.ok(nin.examined <= 53, `(${nin.examined} examined)`);
    t.equal(await rel.count({ uid: 2 }), n / 4, 'count on the prefix');
    t.equal(await rel.count({ uid: 2, repoPrivate: false }), ofUid2.filter((id) => (id - 1) % 10 !== 0).length, 'count on a whole compound key');

    const names = await repos.explain({ ownerId: 5, private: false }, { sort: { lowerName: 1 }, limit: 90 });
    t.equal(names.index, 'ownerId_1_lowerName_1', "an owner's public repositories in name order");
    t.ok(names.examined <= 110 && names.returned === 90, `walk ${names.examined} rows for 90`);
    t.same(await repos.explain({ ownerId: 5 }, { sort: { lowerName: -1 }, skip: 60, limit: 30 }), { index: 'ownerId_1_lowerName_1', examined: 30, returned: 30 }, 'descending, with a skip');
    const ownerRows = (await repos.find({ ownerId: 5 }, { sort: { lowerName: 1 } })).map((r) => r.lowerName as string);
    t.same(ownerRows, [...ownerRows].sort(), 'in name order');
    t.equal(ownerRows.length, 1000);
    const inIds = Array.from({ length: 30 }, (_, i) => 1 + i * 613);
    t.same(await repos.explain({ id: { $in: inIds } }), { index: 'id_1', examined: 30, returned: 30 }, '$in on a unique index: one lookup per id');
    t.same(await repos.explain({}, { sort: { lowerName: 1 }, skip: 100, limit: 10 }), { index: 'lowerName_1', examined: 10, returned: 10 }, 'a single-field index with no filter');
    await store.close();
  });

  t.test('a sort-order walk that the filter makes long gives way to the index access (old rows of one user)', async (t) => {
    // The single-field `id` index invites walking every user's rows in id order for `{uid} sort {id: -1}`; the walk's
    // estimate assumes the user's rows are spread over the ids, but these are the oldest 2,000 of 22,000 rows.
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'rel', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { uid: 1 } }] });
    await store.ensureCollection({ name: 'natural', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { uid: 1, id: -1 } }, { fields: { uid: 1 } }] });
    const rows = Array.from({ length: 22_000 }, (_, i) => ({ id: i + 1, uid: i < 2000 ? 1 : 2 + (i % 50), repoId: i }));
    for (const name of ['rel', 'natural']) await store.collection(name).insertMany(rows);
    const rel = store.collection('rel');
    const page = { sort: { id: -1 as const }, skip: 20, limit: 10 };
    const plan = await rel.explain({ uid: 1 }, page);
    t.equal(plan.returned, 10);
    t.ok(plan.examined <= 2 * 2000, `at most twice the user's rows are examined, not the collection (${plan.examined})`);
    t.same((await rel.find({ uid: 1 }, page)).map((r) => r.id), Array.from({ length: 10 }, (_, i) => 1980 - i), 'the right rows');
    const residual = await rel.explain({ uid: 1, repoId: { $nin: [1999, 1998] } }, page);
    t.ok(residual.examined <= 2 * 2000, `the same with a condition left to check (${residual.examined})`);
    t.same((await rel.find({ uid: 1, repoId: { $nin: [1999, 1998] } }, page)).map((r) => r.id), Array.from({ length: 10 }, (_, i) => 1978 - i));
    const spread = await rel.explain({ uid: 7 }, { sort: { id: -1 }, limit: 10 });
    t.ok(spread.examined <= 600, `rows spread over the ids still take the walk, which stops early (${spread.examined})`);
    // With the compound index as well (the natural set), the page is a jump in it.
    t.same(await store.collection('natural').explain({ uid: 1 }, page), { index: 'uid_1_id_-1', examined: 10, returned: 10 });
    await store.close();
  });

  t.test('reads hand out frozen stored versions, the same object until the document changes', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'docs', indexes: [{ fields: { id: 1 }, unique: true }] });
    const c = store.collection('docs');
    const inserted = await c.insertOne({ id: 1, tags: ['a'], owner: { id: 2, name: 'o' }, n: 0 });
    const a = (await c.findOne({ id: 1 }))!;
    t.equal(a, inserted, 'the insert result is the stored version');
    t.equal((await c.find({}))[0], a, 'find and findOne return the same object');
    t.equal(await c.findOne({ id: 1 }), a, 'on every read');
    t.ok(Object.isFrozen(a) && Object.isFrozen(a.tags) && Object.isFrozen(a.owner), 'deep-frozen');
    t.throws(() => {
      (a.owner as { id: number }).id = 3;
    }, TypeError, 'writing into it throws');
    t.throws(() => (a.tags as string[]).push('x'), TypeError, 'so does changing an array');
    t.notOk('_id' in a, 'no _id');
    t.same(Object.keys(a), ['id', 'tags', 'owner', 'n']);
    t.equal(JSON.stringify(a), '{"id":1,"tags":["a"],"owner":{"id":2,"name":"o"},"n":0}', 'serialises without _id');
    t.same({ ...a }, { id: 1, tags: ['a'], owner: { id: 2, name: 'o' }, n: 0 }, 'a spread copy is plain');

    const p1 = await c.findOne({ id: 1 }, { projection: { owner: 1 } });
    const p2 = (await c.find({}, { projection: { owner: 1 } }))[0];
    t.equal(p1, p2, 'a projection is made once per version and shape');
    t.equal(p1!.owner, a.owner, 'and shares the stored values');
    t.ok(Object.isFrozen(p1), 'frozen too');
    const e1 = await c.findOne({ id: 1 }, { projection: { tags: 0, 'owner.name': 0 } });
    t.same(e1, { id: 1, owner: { id: 2 }, n: 0 }, 'exclusion with a dotted path');
    t.equal(a.owner && (a.owner as { name?: string }).name, 'o', 'leaves the stored version alone');
    t.equal(await c.findOne({ id: 1 }, { projection: { tags: 0, 'owner.name': 0 } }), e1, 'cached as well');
    t.same(await c.findOne({ id: 1 }, { projection: { owner: 1, 'owner.id': 1 } }), { owner: { id: 2, name: 'o' } }, 'a path inside an included one');
    t.equal(await c.findOne({ id: 1 }, { projection: { retired: 0 } }), a, 'excluding fields it lacks hands out the stored version itself');
    t.equal((await c.find({ id: 1 }, { projection: { retired: 0, gone: 0 } as const }))[0], a, 'from find as well');
    const t1 = await c.findOne({ id: 1 }, { projection: { retired: 0, tags: 0 } });
    t.not(t1, a, 'excluding a field it has makes a projection');
    t.same(t1, { id: 1, owner: { id: 2, name: 'o' }, n: 0 }, 'without that field');
    t.same(await c.findOne({ id: 1 }, { projection: { toString: 0 as const } }), { id: 1, tags: ['a'], owner: { id: 2, name: 'o' }, n: 0 }, 'an inherited name excluded: the document as stored');

    await c.updateOne({ id: 1 }, { $inc: { n: 1 } });
    const b = (await c.findOne({ id: 1 }))!;
    t.not(b, a, 'an update makes a new object');
    t.equal(a.n, 0, 'the old version is unchanged');
    t.equal(b.n, 1);
    t.not(await c.findOne({ id: 1 }, { projection: { owner: 1 } }), p1, 'projections of the new version are new objects');
    await c.updateOne({ id: 1 }, { $set: { n: 1 } });
    t.equal(await c.findOne({ id: 1 }), b, 'a no-op update keeps the version');
    const after = await c.findOneAndUpdate({ id: 1 }, { $push: { tags: 'b' } });
    t.equal(await c.findOne({ id: 1 }), after, 'findOneAndUpdate returns the new stored version');
    t.same(after!.tags, ['a', 'b']);
    t.same(b.tags, ['a'], 'older versions keep their arrays');
    const gone = await c.findOneAndDelete({ id: 1 });
    t.equal(gone, after, 'findOneAndDelete returns the last version');
    await store.close();
  });

  t.test('loading: unique clashes refuse the load; files without declared index order', async (t) => {
    const storeDir = path.join(dir, 'store');
    await (await openEmbedded(dir)).close();
    await writeFile(
      path.join(storeDir, 'twice.db'),
      ['{"id":1,"_id":"a"}', '{"id":1,"_id":"b"}', '{"$$indexCreated":{"fieldName":"id","unique":true,"sparse":false}}', ''].join('\n'),
    );
    const refused = new EmbeddedStore({ dataDir: dir, compactIntervalMs: 0, log: recordingLogger() });
    await t.rejects(refused.open(), /duplicate key in twice on id \(key 1\): .*twice\.db holds two documents with it; refusing to load it/, 'names the collection, index, key and file');
    await writeFile(path.join(storeDir, 'twice.db'), '');

    // A file as nedb (or an older forgekit) wrote it: `_id` anywhere in the line, index lines without `fields`.
    await writeFile(
      path.join(storeDir, 'old.db'),
      [
        '{"_id":"x1","id":1,"uid":7,"tags":["a"]}',
        '{"id":2,"uid":7,"_id":"x2"}',
        '{"uid":8,"id":3,"_id":"x3"}',
        '{"$$indexCreated":{"fieldName":"id,uid","unique":false,"sparse":false}}',
        '',
      ].join('\n'),
    );
    const store = await openEmbedded(dir);
    const old = store.collection('old');
    t.same(await old.find({}), [{ id: 1, uid: 7, tags: ['a'] }, { id: 2, uid: 7 }, { uid: 8, id: 3 }], 'documents load without their _id');
    t.ok((await old.find({})).every((d) => !('_id' in d)));
    await store.ensureCollection({ name: 'old', indexes: [{ fields: { uid: 1, id: -1 } }] });
    t.same(await old.explain({ uid: 7 }, { sort: { id: -1 }, limit: 1 }), { index: 'uid_1_id_-1', examined: 1, returned: 1 }, 'the declared order is used once declared');
    t.same((await old.find({ uid: 7 }, { sort: { id: -1 } })).map((d) => d.id), [2, 1]);
    await store.close();
    const file = await lines(path.join(storeDir, 'old.db'));
    t.match(file.join('\n'), /"fieldName":"id,uid","unique":false,"sparse":false,"fields":\{"uid":1,"id":-1\}/, 'and the file records it');
    t.ok(file.filter((l) => l.includes('"_id"') && !l.includes('$$')).every((l) => l.endsWith('}') && /,"_id":"x\d"\}$/.test(l)), 'documents are written with _id last');
    const again = await openEmbedded(dir);
    t.same(await again.collection('old').explain({ uid: 7 }, { sort: { id: 1 }, limit: 1 }), { index: 'uid_1_id_-1', examined: 1, returned: 1 }, 'the order survives a restart');
    await again.close();
  });

  t.test('one store per data directory (LOCK file)', async (t) => {
    const store = await openEmbedded(dir);
    await t.rejects(openEmbedded(dir), /already open in this process/, 'a second store in this process is refused');
    await store.close();
    // A live process holding the lock: refused, with its pid.
    const holder = spawn(...nodeCommand(['-e', 'setTimeout(() => {}, 30000)']), { stdio: 'ignore' });
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
