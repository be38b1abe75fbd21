// The embedded store's indexes after a load: built later (the store's background work once the server listens), or
// when a query's plan could use one, or before any write. Whichever way an index comes to be built, every query answers
// as over indexes built at once, with the same plan.
import t, { type Test } from 'tap';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EmbeddedCollection } from '../../core/store/embedded/collection.js';
import type { EmbeddedStore } from '../../core/store/embedded/index.js';
import type { CollectionSpec, Doc, ExplainResult, Filter, FindOptions } from '../../core/store/port.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

const SPEC: CollectionSpec = {
  name: 'rows',
  indexes: [
    { fields: { id: 1 }, unique: true },
    { fields: { owner: 1, id: -1 } },
    { fields: { tags: 1 } },
    { fields: { name: 1 } },
    { fields: { state: 1, n: 1 } },
  ],
};

/** nedb's names of the indexes above that are not unique (built after a load). */
const DEFERRED = ['id,owner', 'tags', 'name', 'n,state'];

function row(i: number): Doc {
  return {
    id: i,
    owner: i % 17,
    name: `r${i % 101}`,
    tags: i % 5 === 0 ? [] : ['a', 'b', 'c', 'd'].slice(i % 3, 1 + (i % 4)),
    state: i % 7 === 0 ? 'closed' : 'open',
    n: (i * 7919) % 503,
  };
}

/** Queries of every kind of plan: equality, compound prefix walked in order, multikey, `$or`, range, sort-only walks. */
const QUERIES: Array<[Filter, FindOptions]> = [
  [{ owner: 3 }, { sort: { id: -1 }, limit: 5 }],
  [{ owner: 3 }, { sort: { id: -1 }, skip: 20, limit: 10 }],
  [{ owner: { $in: [1, 2, 16] } }, { sort: { id: -1 }, limit: 12 }],
  [{ tags: 'b' }, { sort: { id: 1 }, limit: 30 }],
  [{ $or: [{ name: 'r7' }, { tags: 'd' }] }, { sort: { id: 1 } }],
  [{ state: 'closed', n: { $gt: 100, $lte: 300 } }, { sort: { n: 1, id: 1 } }],
  [{}, { sort: { state: 1, n: 1 }, limit: 15 }],
  [{ id: { $gte: 1000, $lt: 1040 } }, {}],
  [{ name: 'r55', state: 'open' }, { sort: { id: 1 } }],
];

function collectionOf(store: EmbeddedStore): EmbeddedCollection {
  return store.collection('rows') as unknown as EmbeddedCollection;
}

t.test('indexes of a loaded collection: built when needed, by a write, or in the background', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const built = await openEmbedded(dir);
  await built.ensureCollection(SPEC);
  const rows = built.collection('rows');
  const all = Array.from({ length: 3000 }, (_, i) => row(i + 1));
  await rows.insertMany(all);
  t.same(collectionOf(built).unbuiltIndexes, [], 'indexes declared on a new collection are built at once');
  // What indexes built at once answer: the reference for every other way below.
  const reference: Array<{ docs: Doc[]; plan: ExplainResult; total: number }> = [];
  for (const [filter, options] of QUERIES) {
    reference.push({ docs: await rows.find(filter, options), plan: await rows.explain(filter, options), total: await rows.count(filter) });
  }
  t.ok(reference.every((r) => r.plan.index !== null), 'every query is served by an index');
  await built.close();

  const reopen = async (): Promise<EmbeddedStore> => {
    const store = await openEmbedded(dir);
    await store.ensureCollection(SPEC);
    return store;
  };
  const answersAsBuilt = async (t: Test, store: EmbeddedStore, what: string): Promise<void> => {
    const c = store.collection('rows');
    for (const [i, [filter, options]] of QUERIES.entries()) {
      t.same(await c.find(filter, options), reference[i]!.docs, `${what}: query ${i} finds the same documents`);
      t.same(await c.explain(filter, options), reference[i]!.plan, `${what}: query ${i} has the same plan`);
      t.equal(await c.count(filter), reference[i]!.total, `${what}: query ${i} counts the same`);
    }
  };

  t.test('a load builds the unique indexes only; a query builds the indexes its plan could use', async (t) => {
    const store = await reopen();
    t.teardown(() => store.close());
    const c = collectionOf(store);
    t.same(c.unbuiltIndexes.sort(), [...DEFERRED].sort(), 'after the load only the unique index is built');

    t.same(await store.collection('rows').find({ owner: 3 }, { sort: { id: -1 }, limit: 5 }), reference[0]!.docs);
    t.same(c.unbuiltIndexes.sort(), ['n,state', 'name', 'tags'], 'a query on owner built the index starting with owner, no other');
    t.same(await store.collection('rows').find({ $or: [{ name: 'r7' }, { tags: 'd' }] }, { sort: { id: 1 } }), reference[4]!.docs);
    t.same(c.unbuiltIndexes, ['n,state'], 'an $or builds the indexes of its branches');
    t.same(await store.collection('rows').find({}, { sort: { state: 1, n: 1 }, limit: 15 }), reference[6]!.docs);
    t.same(c.unbuiltIndexes, [], 'a sort builds the index that can be walked for it');
    await answersAsBuilt(t, store, 'built by queries');
  });

  t.test('a load and a close without writes leave the file as it was', async (t) => {
    const file = path.join(dir, 'store', 'rows.db');
    const before = await stat(file);
    const store = await reopen();
    await store.collection('rows').find({ owner: 3 }, { limit: 1 });
    await store.close();
    const after = await stat(file);
    t.same([after.ino, after.mtimeMs, after.size], [before.ino, before.mtimeMs, before.size], 'not rewritten');
  });

  t.test('a write leaves unbuilt indexes be; they are built with it', async (t) => {
    const store = await reopen();
    t.teardown(() => store.close());
    const c = store.collection('rows');
    const extra = row(5000);
    await c.insertOne(extra);
    await t.rejects(c.insertOne({ ...row(6000), id: 5000 }), { name: 'DuplicateKeyError' }, 'uniqueness is checked (the unique index is built)');
    await c.updateOne({ id: 20 }, { $set: { owner: 3, tags: ['d'] } });
    await c.deleteOne({ id: 21 });
    t.same(collectionOf(store).unbuiltIndexes.sort(), [...DEFERRED].sort(), 'the writes built nothing');
    t.same(await c.find({ owner: extra.owner as number }, { sort: { id: -1 }, limit: 1 }), [extra], 'the new document is in an index built after it');
    t.same((await c.find({ owner: 3 }, { sort: { id: 1 } })).map((d) => d.id).slice(0, 2), [3, 20], 'so is the updated one');
    const now = [...all.filter((d) => d.id !== 21).map((d) => (d.id === 20 ? { ...d, owner: 3, tags: ['d'] } : d)), extra];
    const tagged = now.filter((d) => (d.tags as string[]).includes('d')).map((d) => d.id as number).sort((a, b) => a - b);
    t.same((await c.find({ tags: 'd' }, { sort: { id: 1 } })).map((d) => d.id), tagged, 'a multikey index built after the writes');
    t.equal(await c.count({ name: row(21).name as string }), all.filter((d) => d.name === row(21).name && d.id !== 21).length, 'the deleted one is in none');
    await c.deleteOne({ id: 5000 });
    await c.updateOne({ id: 20 }, { $set: { owner: row(20).owner, tags: row(20).tags } });
    await c.insertOne(row(21));
    await answersAsBuilt(t, store, 'built after writes');
  });

  t.test('the background work builds the rest, one index a turn; writes meanwhile are kept', async (t) => {
    const store = await reopen();
    t.teardown(() => store.close());
    const c = store.collection('rows');
    await c.find({ owner: 3 }, { limit: 1 });
    const left = collectionOf(store).unbuiltIndexes.length;
    const work = store.finishOpen();
    t.ok(work, 'work is left');
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const between = collectionOf(store).unbuiltIndexes.length;
    t.ok(between < left && between > 0, `one index a turn (${left} unbuilt, then ${between})`);
    // A write between the turns: built first, and the background work then has nothing left.
    await c.updateOne({ id: 10 }, { $set: { n: 1 } });
    await c.updateOne({ id: 10 }, { $set: { n: row(10).n } });
    await work;
    t.same(collectionOf(store).unbuiltIndexes, []);
    t.equal(store.finishOpen(), null, 'nothing left: no work');
    await answersAsBuilt(t, store, 'built in the background');
  });

  t.test('while the background work runs, a query builds only the index it needs most', async (t) => {
    const store = await reopen();
    const c = store.collection('rows');
    const work = store.finishOpen();
    // Before the work's first turn (each find plans synchronously): `owner,id` fixes owner and walks id, `tags` only
    // fixes tags; the built unique `id` does as much for `{id, state}` as `state,n` would; an `$or` gets its branches'.
    const page = c.find({ owner: 3, tags: 'b' }, { sort: { id: -1 }, limit: 5 });
    const afterPage = collectionOf(store).unbuiltIndexes.sort();
    const byId = c.find({ id: 8, state: 'open' });
    const afterById = collectionOf(store).unbuiltIndexes.sort();
    const either = c.find({ $or: [{ name: 'r7' }, { tags: 'd' }] }, { sort: { id: 1 } });
    const afterEither = collectionOf(store).unbuiltIndexes.sort();
    t.same(afterPage, ['n,state', 'name', 'tags'], 'only owner,id was built for the page');
    t.same(afterById, ['n,state', 'name', 'tags'], 'none for a lookup a built index serves as well');
    t.same(afterEither, ['n,state'], "an $or's branches' indexes");
    t.same(await byId, [row(8)]);
    t.same(await either, reference[4]!.docs);
    const expected = all.filter((d) => d.owner === 3 && (d.tags as string[]).includes('b')).sort((a, b) => (b.id as number) - (a.id as number)).slice(0, 5);
    t.same(await page, expected, 'and it answers');
    t.equal((await c.explain({ owner: 3, tags: 'b' }, { sort: { id: -1 }, limit: 5 })).index, 'owner_1_id_-1', 'through the index built for it');
    await work;
    await answersAsBuilt(t, store, 'built by the background work after narrowed queries');
    await store.close();
    // Without the background work a query builds every index it could use (nothing would build the others).
    const again = await reopen();
    t.teardown(() => again.close());
    await again.collection('rows').find({ owner: 3, tags: 'b' }, { sort: { id: -1 }, limit: 5 });
    t.same(collectionOf(again).unbuiltIndexes.sort(), ['n,state', 'name'], 'no background work: owner,id and tags both built');
  });

  t.test('unbuilt indexes stay declared through a rewrite of the file, a retirement and a redefinition', async (t) => {
    let store = await reopen();
    await collectionOf(store).compact(true);
    const file = await readFile(path.join(dir, 'store', 'rows.db'), 'utf8');
    const declared = file.split('\n').filter((l) => l.includes('$$indexCreated')).map((l) => JSON.parse(l).$$indexCreated.fieldName);
    t.same(declared.sort(), ['id', ...DEFERRED].sort(), 'the rewritten file declares every index, built or not');
    await store.close();

    store = await openEmbedded(dir);
    await store.ensureCollection({ ...SPEC, indexes: SPEC.indexes!.filter((i) => !('name' in i.fields)), retiredIndexes: [{ fields: { name: 1 } }] });
    t.notOk(collectionOf(store).unbuiltIndexes.includes('name'), 'a retired index is dropped unbuilt');
    t.equal((await store.collection('rows').explain({ name: 'r7' })).index, null, 'and no query uses it');
    const redefined = [...SPEC.indexes!.filter((i) => !('state' in i.fields) && !('name' in i.fields)), { fields: { state: 1, n: -1 } }];
    await store.ensureCollection({ ...SPEC, indexes: redefined as CollectionSpec['indexes'] });
    t.notOk(collectionOf(store).unbuiltIndexes.includes('n,state'), 'a redefined index is built at once');
    t.equal((await store.collection('rows').explain({ state: 'open' }, { sort: { n: -1 } })).index, 'state_1_n_-1');
    await store.close();

    store = await openEmbedded(dir);
    t.teardown(() => store.close());
    t.notOk(collectionOf(store).unbuiltIndexes.includes('name'), 'still retired after a restart');
    t.equal((await store.collection('rows').explain({ state: 'open' }, { sort: { n: -1 } })).index, 'state_1_n_-1', 'the redefinition kept');
  });
});

t.test('a tie between two indexes goes to the one declared first, however late it was built', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  // `a,d` is unique, so a load builds it first; `a,b` is declared first, so it wins a tie (both hold `{a}`'s range).
  const spec: CollectionSpec = { name: 'ties', indexes: [{ fields: { a: 1, b: 1 } }, { fields: { a: 1, d: 1 }, unique: true }] };
  let store = await openEmbedded(dir);
  await store.ensureCollection(spec);
  await store.collection('ties').insertMany(Array.from({ length: 200 }, (_, i) => ({ a: i % 10, b: i % 7, d: i })));
  const eager = await store.collection('ties').explain({ a: 3 });
  t.equal(eager.index, 'a_1_b_1', 'built at once: the first declared');
  await store.close();
  store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection(spec);
  t.same(await store.collection('ties').explain({ a: 3 }), eager, 'built after the unique one: the same plan');
});
