// The store contract: one suite every adapter must pass (run by embedded.test.ts and mongodb.test.ts).
import tap from 'tap';
import { isDuplicateKeyError, type CollectionSpec, type Doc, type IndexSpec, type Store } from '../../core/store/port.js';

export interface StoreHarness {
  /** A fresh, opened store over empty storage. */
  create(): Promise<Store>;
  /** Closes the store and opens a new one over the same storage (persistence checks). */
  reopen?(store: Store): Promise<Store>;
  /** Releases whatever `create` made (temp dirs, test databases). */
  cleanup?(store: Store): Promise<void>;
}

interface Item extends Doc {
  id: number;
  name: string;
  n?: number;
  tags?: string[];
  owner?: { id: number; name?: string };
  members?: Array<{ id: number; role: string }>;
  flag?: boolean;
  note?: string | null;
}

export const SEED: Item[] = [
  { id: 1, name: 'alpha', n: 5, tags: ['a', 'b'], owner: { id: 10, name: 'o1' }, flag: true, note: null },
  { id: 2, name: 'beta', n: 10, tags: ['b'], owner: { id: 11 }, flag: false },
  { id: 3, name: 'gamma', n: 15, tags: [], members: [{ id: 7, role: 'admin' }, { id: 8, role: 'read' }] },
  { id: 4, name: 'delta', n: 20, owner: { id: 10 }, flag: true, note: 'x' },
];

/** Filters over `SEED` and the ids they match (MongoDB's answers): every adapter must give them. */
export const FILTER_CASES: Array<[string, Record<string, unknown>, number[]]> = [
  ['empty filter', {}, [1, 2, 3, 4]],
  ['equality', { name: 'beta' }, [2]],
  ['$eq', { n: { $eq: 10 } }, [2]],
  ['$ne', { n: { $ne: 10 } }, [1, 3, 4]],
  ['$gt', { n: { $gt: 5 } }, [2, 3, 4]],
  ['$gte', { n: { $gte: 5 } }, [1, 2, 3, 4]],
  ['$lt', { n: { $lt: 15 } }, [1, 2]],
  ['$lte', { n: { $lte: 15 } }, [1, 2, 3]],
  ['range', { n: { $gt: 5, $lt: 20 } }, [2, 3]],
  ['string range', { name: { $gt: 'b' } }, [2, 3, 4]],
  ['range is type-bracketed', { n: { $gt: 'a' } }, []],
  ['$in', { n: { $in: [5, 20] } }, [1, 4]],
  ['$in with repeated values', { n: { $in: [20, 5, 20, 5] } }, [1, 4]],
  ['$in of ids, repeated and out of order', { id: { $in: [3, 1, 3, 1, 3] } }, [1, 3]],
  ['$in empty', { name: { $in: [] } }, []],
  ['$nin', { n: { $nin: [5, 20] } }, [2, 3]],
  ['array contains', { tags: 'b' }, [1, 2]],
  ['array exact', { tags: ['b'] }, [2]],
  ['$ne on an array: no element equals', { tags: { $ne: 'a' } }, [2, 3, 4]],
  ['$nin on an array', { tags: { $nin: ['a'] } }, [2, 3, 4]],
  ['$in on an array', { tags: { $in: ['a', 'zzz'] } }, [1]],
  ['$exists true (empty array exists)', { tags: { $exists: true } }, [1, 2, 3]],
  ['null matches null and missing', { note: null }, [1, 2, 3]],
  ['$exists false', { note: { $exists: false } }, [2, 3]],
  ['$exists true', { note: { $exists: true } }, [1, 4]],
  ['$ne null', { note: { $ne: null } }, [4]],
  ['$in with null', { note: { $in: [null, 'x'] } }, [1, 2, 3, 4]],
  ['dotted path', { 'owner.id': 10 }, [1, 4]],
  ['dotted $exists', { 'owner.name': { $exists: true } }, [1]],
  ['dotted path into an array of documents', { 'members.role': 'admin' }, [3]],
  ['dotted range into an array', { 'members.id': { $gt: 7 } }, [3]],
  ['whole sub-document', { owner: { id: 11 } }, [2]],
  ['$or', { $or: [{ name: 'alpha' }, { n: 20 }] }, [1, 4]],
  ['$or on indexed fields', { $or: [{ id: 2 }, { 'owner.id': 10 }] }, [1, 2, 4]],
  ['$and', { $and: [{ flag: true }, { n: { $gt: 5 } }] }, [4]],
  ['several fields', { flag: true, 'owner.id': 10 }, [1, 4]],
  ['boolean', { flag: false }, [2]],
  ['no match', { id: 42 }, []],
];

/** Filters of few shapes with changing values, run in this order (an adapter caching compiled shapes must still answer each). */
export const REPEATED_FILTER_CASES: Array<[string, Record<string, unknown>, number[]]> = [
  ['equality', { n: 10 }, [2]],
  ['the same shape, another value', { n: 20 }, [4]],
  ['a value no document has', { n: 11 }, []],
  ['null in place of a number', { n: null }, []],
  ['a string in place of a number', { name: 'gamma' }, [3]],
  ['$gt', { n: { $gt: 10 } }, [3, 4]],
  ['$gte on the same field and value', { n: { $gte: 10 } }, [2, 3, 4]],
  ['$lt', { n: { $lt: 10 } }, [1]],
  ['$lte', { n: { $lte: 10 } }, [1, 2]],
  ['$ne', { n: { $ne: 10 } }, [1, 3, 4]],
  ['$eq', { n: { $eq: 10 } }, [2]],
  ['$in of one', { n: { $in: [10] } }, [2]],
  ['$in of two', { n: { $in: [10, 15] } }, [2, 3]],
  ['$in of another two', { n: { $in: [5, 20] } }, [1, 4]],
  ['$nin of two', { n: { $nin: [5, 20] } }, [2, 3]],
  ['$exists true', { note: { $exists: true } }, [1, 4]],
  ['$exists false (same kind of value)', { note: { $exists: false } }, [2, 3]],
  ['$exists 1', { note: { $exists: 1 } }, [1, 4]],
  ['$exists 0', { note: { $exists: 0 } }, [2, 3]],
  ['two fields', { flag: true, n: 5 }, [1]],
  ['the same values under $and', { $and: [{ flag: true }, { n: 5 }] }, [1]],
  ['the same values under $or', { $or: [{ flag: true }, { n: 5 }] }, [1, 4]],
  ['the same values, fields swapped', { n: 20, flag: true }, [4]],
  ['a range and an equality on one field', { n: { $gt: 5, $eq: 10 } }, [2]],
  ['$eq and $in on one field', { n: { $eq: 10, $in: [10, 20] } }, [2]],
  ['$eq and $in that disagree', { n: { $eq: 5, $in: [10, 20] } }, []],
  ['an $and clause and a top-level condition on one field', { $and: [{ n: 10 }], n: { $gt: 15 } }, []],
  ['a top-level condition and an $and clause on one field', { n: { $gt: 5 }, $and: [{ n: 10 }] }, [2]],
  ['a sub-document value', { owner: { id: 10, name: 'o1' } }, [1]],
  ['a dotted path with the same value', { 'owner.id': 10 }, [1, 4]],
  ['a dotted path with another value', { 'owner.id': 11 }, [2]],
  ['an array value', { tags: ['a', 'b'] }, [1]],
  ['an array element', { tags: 'a' }, [1]],
  ['a range on strings', { name: { $gt: 'beta' } }, [3, 4]],
  ['a range on numbers, same field name', { n: { $gt: 15 } }, [4]],
  // An `$in` answered by looking each value up, with another condition (the membership is not tested again).
  ['$in of ids and another field', { id: { $in: [4, 3, 2, 1] }, flag: true }, [1, 4]],
  ['a long $in of ids (some absent) and a range', { id: { $in: Array.from({ length: 40 }, (_, i) => 40 - i) }, n: { $gt: 5 } }, [2, 3, 4]],
  ['$in on an array field and another field', { tags: { $in: ['a', 'b', 'zzz'] }, flag: false }, [2]],
  ['a long $in on an array field and a range', { tags: { $in: ['b', ...Array.from({ length: 19 }, (_, i) => `t${i}`)] }, n: { $lt: 15 } }, [1, 2]],
  ['$in with null on a path some documents lack, and a range', { 'owner.id': { $in: [null, 11] }, name: { $gt: 'b' } }, [2, 3]],
  ['$in with repeated values and another field', { n: { $in: [20, 5, 20, 5] }, flag: true }, [1, 4]],
];

const ids = (docs: Doc[]): number[] => docs.map((d) => d.id as number);

/** Writes into a returned document: a frozen one (embedded adapter) throws TypeError, a copy (MongoDB) takes it. */
function readOnly(write: () => unknown): void {
  try {
    write();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
}
const sorted = (docs: Doc[]): number[] => ids(docs).sort((a, b) => a - b);

/** Registers the whole suite under one tap test. */
export function storeContract(name: string, harness: StoreHarness): void {
  tap.test(name, async (t) => {
    let store: Store;
    t.beforeEach(async () => {
      store = await harness.create();
    });
    t.afterEach(async () => {
      await store.close();
      await harness.cleanup?.(store);
    });

    const seeded = async (indexed = false) => {
      await store.ensureCollection({
        name: 'items',
        indexes: indexed ? [{ fields: { id: 1 }, unique: true }, { fields: { n: 1 } }, { fields: { 'owner.id': 1 } }] : [],
      });
      const items = store.collection<Item>('items');
      await items.insertMany(SEED);
      return items;
    };

    t.test('insertOne returns the stored document; _id never reaches plugins', async (t) => {
      await store.ensureCollection({ name: 'items' });
      const items = store.collection<Item>('items');
      const input: Item = { id: 1, name: 'one', tags: ['x'], owner: { id: 2 }, note: undefined as unknown as string };
      const stored = await items.insertOne(input);
      t.same(stored, { id: 1, name: 'one', tags: ['x'], owner: { id: 2 } }, 'stored document, undefined dropped');
      t.notOk('_id' in stored, 'no _id in the insert result');
      t.not(stored, input, 'a copy, not the caller object');
      // Mutating the caller's object or the returned one does not reach the store. Returned documents are
      // read-only: the embedded adapter hands out frozen stored versions (writing throws), MongoDB fresh copies.
      input.tags!.push('mutated');
      readOnly(() => {
        stored.owner!.id = 99;
      });
      const found = await items.findOne({ id: 1 });
      t.same(found, { id: 1, name: 'one', tags: ['x'], owner: { id: 2 } });
      t.notOk(found && '_id' in found, 'no _id in findOne');
      readOnly(() => found!.tags!.push('again'));
      t.same((await items.find({}))[0], { id: 1, name: 'one', tags: ['x'], owner: { id: 2 } }, 'a returned document cannot change the store');
      t.notOk('_id' in (await items.find({}))[0]!, 'no _id in find');
      const withId = await items.insertOne({ _id: 'mine', id: 2, name: 'two' } as unknown as Item);
      t.same(withId, { id: 2, name: 'two' }, 'an incoming _id is ignored');
    });

    t.test('documents must be plain JSON', async (t) => {
      const items = store.collection('items');
      await t.rejects(items.insertOne({ id: 1, at: new Date() }), TypeError, 'Date refused');
      await t.rejects(items.insertOne({ id: 1, n: NaN }), TypeError, 'NaN refused');
      await t.rejects(items.insertOne({ id: 1, f: () => 1 }), TypeError, 'function refused');
      await t.rejects(items.insertOne({ id: 1, $bad: 1 }), TypeError, '$ field refused');
      await t.rejects(items.insertOne({ id: 1, 'a.b': 1 }), TypeError, 'dotted field refused');
      await t.rejects(items.insertOne({ id: 1, nested: { $x: 1 } }), TypeError, 'nested $ field refused');
      t.equal(await items.count({}), 0, 'nothing was stored');
      await t.rejects(items.updateOne({ id: 1 }, { $set: { at: new Date() } }), TypeError, 'Date refused in updates');
      t.throws(() => store.collection('../escape'), TypeError, 'path-like collection names refused');
    });

    t.test('filter operators', async (t) => {
      for (const indexed of [false, true]) {
        if (indexed) {
          await store.drop('items');
          await store.ensureCollection({ name: 'items', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { n: 1 } }, { fields: { 'owner.id': 1 } }, { fields: { tags: 1 } }, { fields: { name: 1 } }] });
        }
        const items = indexed ? store.collection<Item>('items') : await seeded(false);
        if (indexed) await items.insertMany(SEED);
        const cases = FILTER_CASES;
        for (const [label, filter, expected] of cases) {
          const what = `${label}${indexed ? ' (indexed)' : ''}`;
          t.same(sorted(await items.find(filter)), expected, `find: ${what}`);
          t.equal(await items.count(filter), expected.length, `count: ${what}`);
          const both = await items.findAndCount(filter);
          t.same([sorted(both.docs), both.total], [expected, expected.length], `findAndCount: ${what}`);
        }
      }
    });

    t.test('repeated queries: one shape with other values, other operators, other structures', async (t) => {
      // Run in this order on one collection: an adapter that reuses what it compiled for a query of the same shape
      // (the embedded one does) must still answer each query for itself.
      const items = await seeded(true);
      const cases = REPEATED_FILTER_CASES;
      for (const pass of [1, 2]) {
        for (const [label, filter, expected] of cases) {
          t.same(sorted(await items.find(filter)), expected, `find: ${label} (pass ${pass})`);
          t.equal(await items.count(filter), expected.length, `count: ${label} (pass ${pass})`);
          const both = await items.findAndCount(filter);
          t.same([sorted(both.docs), both.total], [expected, expected.length], `findAndCount: ${label} (pass ${pass})`);
        }
      }
      // One shape sorted, windowed and projected with other values.
      for (const [owner, want] of [[10, [4, 1]], [11, [2]], [12, []]] as const) {
        const docs = await items.find({ 'owner.id': owner }, { sort: { n: -1 }, projection: { id: 1 } });
        t.same(docs, want.map((id) => ({ id })), `sorted and projected, owner ${owner}`);
      }
      t.same(ids(await items.find({ n: { $gte: 5 } }, { sort: { n: 1 }, skip: 1, limit: 2 })), [2, 3], 'a window');
      t.same(ids(await items.find({ n: { $gte: 10 } }, { sort: { n: 1 }, skip: 2, limit: 2 })), [4], 'the same shape, other values');
      t.same(ids(await items.find({ n: { $gte: 10 } }, { sort: { n: -1 }, skip: 2, limit: 2 })), [2], 'the other direction');
    });

    t.test('sort, skip, limit, projection', async (t) => {
      const items = await seeded(true);
      t.same(ids(await items.find({}, { sort: { n: -1 } })), [4, 3, 2, 1], 'sort descending');
      t.same(ids(await items.find({}, { sort: { name: 1 } })), [1, 2, 4, 3], 'sort by string');
      t.same(ids(await items.find({}, { sort: { n: 1 }, skip: 1, limit: 2 })), [2, 3], 'skip + limit');
      t.same(ids(await items.find({}, { sort: { n: 1 }, limit: 0 })), [1, 2, 3, 4], 'limit 0 = no limit');
      t.same(ids(await items.find({}, { sort: { n: 1 }, skip: 10 })), [], 'skip past the end');
      t.same(ids(await items.find({}, { sort: { flag: -1, n: 1 } })), [1, 4, 2, 3], 'compound sort, missing last descending');
      const byNote = ids(await items.find({}, { sort: { note: 1 } }));
      t.equal(byNote[3], 4, 'missing and null sort before strings');
      t.same(ids(await items.find({ flag: true }, { sort: { 'owner.id': 1, n: -1 } })), [4, 1], 'sort by a dotted path');
      t.same(ids(await items.find({}, { sort: { id: -1 }, limit: 3 })), [4, 3, 2], 'sort on an indexed field with limit');
      t.same(ids(await items.find({ n: { $gte: 10 } }, { sort: { id: 1 }, skip: 1, limit: 1 })), [3], 'filter + sort + window');
      t.equal((await items.findOne({}, { sort: { n: -1 } }))?.id, 4, 'findOne honours sort');
      t.same(await items.findOne({ id: 1 }, { projection: { name: 1 } }), { name: 'alpha' }, 'findOne projection');
      t.same(await items.find({ id: { $in: [1, 3] } }, { projection: { name: 1, 'owner.id': 1 }, sort: { id: 1 } }), [
        { name: 'alpha', owner: { id: 10 } },
        { name: 'gamma' },
      ], 'inclusion projection with a dotted path');
      const excluded = await items.find({}, { projection: { tags: 0, owner: 0, members: 0 }, sort: { id: 1 } });
      t.same(excluded[0], { id: 1, name: 'alpha', n: 5, flag: true, note: null }, 'exclusion projection');
      t.ok(excluded.every((d) => !('_id' in d) && !('tags' in d)), 'no _id, no excluded field');
      t.same(await items.find({ id: 2 }, { projection: { _id: 1, name: 1 } as Record<string, 0 | 1> }), [{ name: 'beta' }], '_id stays hidden even when asked for');
    });

    t.test('updateOne / updateMany with every update operator', async (t) => {
      const items = await seeded(true);
      t.same(await items.updateOne({ id: 1 }, { $set: { name: 'ALPHA', 'owner.name': 'renamed', 'extra.deep': 1 } }), { matched: 1, modified: 1, upserted: false }, '$set');
      t.same(await items.findOne({ id: 1 }, { projection: { name: 1, owner: 1, extra: 1 } }), { name: 'ALPHA', owner: { id: 10, name: 'renamed' }, extra: { deep: 1 } });
      t.same(await items.updateOne({ id: 1 }, { $set: { name: 'ALPHA' } }), { matched: 1, modified: 0, upserted: false }, 'no-op update: matched, not modified');
      await items.updateOne({ id: 1 }, { $unset: { note: true, 'owner.name': 1, missing: '' } });
      const one = await items.findOne({ id: 1 });
      t.notOk('note' in one!, '$unset removes a field');
      t.same(one!.owner, { id: 10 }, '$unset on a dotted path');
      await items.updateOne({ id: 1 }, { $inc: { n: 2, counter: 1 } });
      t.same(await items.findOne({ id: 1 }, { projection: { n: 1, counter: 1 } }), { n: 7, counter: 1 }, '$inc existing and missing');
      await items.updateOne({ id: 1 }, { $inc: { n: -7 } });
      t.equal((await items.findOne({ id: 1 }))!.n, 0, '$inc negative');
      await items.updateOne({ id: 1 }, { $addToSet: { tags: 'b' } });
      t.same((await items.findOne({ id: 1 }))!.tags, ['a', 'b'], '$addToSet of a present value');
      await items.updateOne({ id: 1 }, { $addToSet: { tags: { $each: ['c', 'a', 'd'] } } });
      t.same((await items.findOne({ id: 1 }))!.tags, ['a', 'b', 'c', 'd'], '$addToSet $each');
      await items.updateOne({ id: 4 }, { $addToSet: { tags: 'new' } });
      t.same((await items.findOne({ id: 4 }))!.tags, ['new'], '$addToSet creates the array');
      await items.updateOne({ id: 1 }, { $pull: { tags: 'c' } });
      t.same((await items.findOne({ id: 1 }))!.tags, ['a', 'b', 'd'], '$pull a value');
      await items.updateOne({ id: 1 }, { $pull: { tags: { $in: ['a', 'd'] } } });
      t.same((await items.findOne({ id: 1 }))!.tags, ['b'], '$pull with $in');
      await items.updateOne({ id: 3 }, { $pull: { members: { role: 'read' } } });
      t.same((await items.findOne({ id: 3 }))!.members, [{ id: 7, role: 'admin' }], '$pull sub-documents matching a query');
      t.same(await items.updateOne({ id: 2 }, { $pull: { nothing: 'x' } }), { matched: 1, modified: 0, upserted: false }, '$pull on a missing field is a no-op');
      await items.updateOne({ id: 2 }, { $push: { tags: 'b' } });
      t.same((await items.findOne({ id: 2 }))!.tags, ['b', 'b'], '$push appends even duplicates');
      await items.updateOne({ id: 2 }, { $push: { tags: { $each: ['c', 'd'] }, log: 'first' } });
      t.same(await items.findOne({ id: 2 }, { projection: { tags: 1, log: 1 } }), { tags: ['b', 'b', 'c', 'd'], log: ['first'] }, '$push $each and creating the array');

      t.same(await items.updateOne({ id: 99 }, { $set: { name: 'x' } }), { matched: 0, modified: 0, upserted: false }, 'no match');
      t.same(await items.updateMany({ flag: true }, { $set: { flagged: 'yes' } }), { matched: 2, modified: 2, upserted: false }, 'updateMany');
      t.same(sorted(await items.find({ flagged: 'yes' })), [1, 4]);
      t.same(await items.updateMany({ flag: true }, { $set: { flagged: 'yes' } }), { matched: 2, modified: 0, upserted: false }, 'updateMany no-op');
      t.same(await items.updateMany({ n: { $gte: 10 } }, { $inc: { n: 1 } }), { matched: 3, modified: 3, upserted: false });
      t.same(ids(await items.find({ n: { $gte: 11 } }, { sort: { n: 1 } })), [2, 3, 4], 'indexed field updated in place is found by its index');
      t.same(sorted(await items.find({ n: 10 })), [], 'old index key gone');

      // Upsert: the new document starts from the filter's equality conditions.
      t.same(await items.updateOne({ id: 5, 'owner.id': 12 }, { $set: { name: 'epsilon' }, $inc: { n: 1 } }, { upsert: true }), { matched: 0, modified: 0, upserted: true }, 'upsert inserts');
      t.same(await items.findOne({ id: 5 }), { id: 5, owner: { id: 12 }, name: 'epsilon', n: 1 }, 'upserted document');
      t.same(await items.updateOne({ id: 5 }, { $inc: { n: 1 } }, { upsert: true }), { matched: 1, modified: 1, upserted: false }, 'upsert of an existing document updates');
      t.equal(await items.count({}), 5);

      // Bad updates change nothing.
      await t.rejects(items.updateOne({ id: 1 }, { $inc: { name: 1 } }), 'inc of a string');
      t.equal((await items.findOne({ id: 1 }))!.name, 'ALPHA', 'unchanged after a failed update');
      await t.rejects(items.updateOne({ id: 1 }, { $rename: { name: 'x' } } as never), TypeError, 'unsupported operator');
      await t.rejects(items.updateOne({ id: 1 }, {}), TypeError, 'empty update');
      await t.rejects(items.updateOne({ id: 1 }, { $set: { _id: 'x' } }), TypeError, '_id cannot be set');
    });

    t.test('findOneAndUpdate / findOneAndDelete', async (t) => {
      const items = await seeded(true);
      const after = await items.findOneAndUpdate({ id: 2 }, { $inc: { n: 5 }, $set: { name: 'BETA' } });
      t.same(after, { id: 2, name: 'BETA', n: 15, tags: ['b'], owner: { id: 11 }, flag: false }, 'returns the document after the update, no _id');
      t.equal(await items.findOneAndUpdate({ id: 42 }, { $set: { name: 'x' } }), null, 'null when nothing matches');
      const up = await items.findOneAndUpdate({ id: 7 }, { $set: { name: 'seven' } }, { upsert: true });
      t.same(up, { id: 7, name: 'seven' }, 'upsert returns the new document');
      const unchanged = await items.findOneAndUpdate({ id: 7 }, { $set: { name: 'seven' } });
      t.same(unchanged, { id: 7, name: 'seven' }, 'a no-op update still returns the document');
      // Atomic counters: concurrent increments never lose one.
      await Promise.all(Array.from({ length: 50 }, () => items.findOneAndUpdate({ id: 7 }, { $inc: { hits: 1 } })));
      t.equal((await items.findOne({ id: 7 }))!.hits, 50, '50 concurrent $inc');

      const deleted = await items.findOneAndDelete({ id: 3 });
      t.same(deleted, SEED[2], 'returns the deleted document');
      t.equal(await items.findOne({ id: 3 }), null, 'gone');
      t.equal(await items.findOneAndDelete({ id: 3 }), null, 'null when nothing matches');
    });

    t.test('deleteOne / deleteMany', async (t) => {
      const items = await seeded(true);
      t.equal(await items.deleteOne({ flag: true }), 1, 'deleteOne deletes one');
      t.equal(await items.count({ flag: true }), 1);
      t.equal(await items.deleteOne({ id: 42 }), 0, 'deleteOne without a match');
      t.equal(await items.deleteMany({ n: { $gte: 10, $lt: 20 } }), 2, 'deleteMany returns the count');
      t.equal(await items.deleteMany({}), 1, 'deleteMany({}) empties the collection');
      t.equal(await items.count({}), 0);
      t.same(await items.find({ id: 2 }), [], 'a deleted document is not found through an index');
    });

    t.test('unique and compound unique indexes raise DuplicateKeyError without a partial write', async (t) => {
      const spec: CollectionSpec = {
        name: 'repos',
        indexes: [
          { fields: { id: 1 }, unique: true },
          { fields: { owner_id: 1, lower_name: 1 }, unique: true },
          { fields: { topic: 1 } },
        ],
      };
      await store.ensureCollection(spec);
      await store.ensureCollection(spec); // idempotent
      const repos = store.collection('repos');
      await repos.insertOne({ id: 1, owner_id: 1, lower_name: 'a', topic: 't' });
      await repos.insertOne({ id: 2, owner_id: 2, lower_name: 'a', topic: 't' });
      await repos.insertOne({ id: 3, owner_id: 1, lower_name: 'b', topic: 't' });

      const dupId = await repos.insertOne({ id: 1, owner_id: 9, lower_name: 'z', topic: 'ghost' }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(dupId), 'unique clash → DuplicateKeyError');
      t.same((dupId as { fields: string[] }).fields, ['id'], 'names the field');
      t.equal((dupId as { collection: string }).collection, 'repos', 'names the collection');
      t.equal(await repos.count({ topic: 'ghost' }), 0, 'the refused document is in no index');
      t.equal(await repos.count({ owner_id: 9 }), 0, 'and nowhere else');

      const dupPair = await repos.insertOne({ id: 4, owner_id: 2, lower_name: 'a' }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(dupPair), 'compound clash → DuplicateKeyError');
      t.same((dupPair as { fields: string[] }).fields, ['owner_id', 'lower_name'], 'names the compound fields in order');
      t.equal(await repos.count({}), 3, 'no partial write');
      t.equal(await repos.count({ id: 4 }), 0);

      const upd = await repos.updateOne({ id: 3 }, { $set: { lower_name: 'a', topic: 'moved' } }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(upd), 'an update that clashes → DuplicateKeyError');
      t.same(await repos.findOne({ id: 3 }, { projection: { lower_name: 1, topic: 1 } }), { lower_name: 'b', topic: 't' }, 'the document is unchanged');
      t.equal(await repos.count({ topic: 'moved' }), 0, 'other indexes are unchanged');
      t.equal(await repos.count({ topic: 't' }), 3);

      const fou = await repos.findOneAndUpdate({ id: 2 }, { $set: { owner_id: 1 } }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(fou), 'findOneAndUpdate clash → DuplicateKeyError');
      t.same(sorted(await repos.find({ owner_id: 2 })), [2], 'unchanged');

      const ups = await repos.updateOne({ id: 9 }, { $set: { owner_id: 1, lower_name: 'a' } }, { upsert: true }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(ups), 'an upsert that clashes → DuplicateKeyError');
      t.equal(await repos.count({ id: 9 }), 0);

      const many = await repos
        .insertMany([
          { id: 10, owner_id: 3, lower_name: 'x' },
          { id: 1, owner_id: 3, lower_name: 'y' },
          { id: 12, owner_id: 3, lower_name: 'z' },
        ])
        .catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(many), 'insertMany with a clash → DuplicateKeyError');
      t.same(sorted(await repos.find({ owner_id: 3 })), [10], 'documents before the clash are in, the clash and later ones are not');

      const swap = await repos.updateMany({ owner_id: 1 }, { $set: { lower_name: 'same' } }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(swap), 'updateMany that would make two documents clash');
      t.ok((await repos.count({ lower_name: 'same' })) <= 1, 'never two documents with the same unique key');
    });

    t.test('sparse indexes', async (t) => {
      await store.ensureCollection({
        name: 'users',
        indexes: [{ fields: { email: 1 }, unique: true, sparse: true }, { fields: { login: 1 }, unique: true }],
      });
      const users = store.collection('users');
      await users.insertOne({ id: 1, login: 'a' });
      await users.insertOne({ id: 2, login: 'b' });
      await users.insertOne({ id: 3, login: 'c', email: 'c@x' });
      t.equal(await users.count({}), 3, 'documents without the sparse field do not clash');
      const dup = await users.insertOne({ id: 4, login: 'd', email: 'c@x' }).catch((e: unknown) => e);
      t.ok(isDuplicateKeyError(dup), 'a present value still has to be unique');
      t.same((dup as { fields: string[] }).fields, ['email']);
      t.same(sorted(await users.find({ email: { $exists: false } })), [1, 2], 'documents left out of a sparse index are still found');
      t.same(sorted(await users.find({ email: null })), [1, 2], 'null matches missing despite the sparse index');
      t.same(sorted(await users.find({ email: 'c@x' })), [3]);
      await users.updateOne({ id: 1 }, { $set: { email: 'a@x' } });
      t.same(sorted(await users.find({ email: 'a@x' })), [1], 'a field added later enters the sparse index');
      await users.updateOne({ id: 1 }, { $unset: { email: 1 } });
      t.same(sorted(await users.find({ email: 'a@x' })), [], 'and leaves it when removed');
      const nonSparse = await users.insertOne({ id: 5 }).catch((e: unknown) => e);
      await users.insertOne({ id: 6 }).catch((e: unknown) => e);
      t.ok(!isDuplicateKeyError(nonSparse), 'the first document without a non-sparse unique field is accepted');
      t.equal(await users.count({ login: { $exists: false } }), 1, 'a second one clashes on the missing (null) value, as in MongoDB');
    });

    t.test('nextId is atomic and strictly increasing', async (t) => {
      const values = await Promise.all(Array.from({ length: 200 }, () => store.nextId('repo')));
      t.equal(new Set(values).size, 200, '200 concurrent calls, 200 distinct ids');
      t.same([...values].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i + 1), 'exactly 1..200');
      t.ok(values.every(Number.isInteger), 'integers');
      t.equal(await store.nextId('repo'), 201, 'the next one continues');
      t.equal(await store.nextId('user'), 1, 'sequences are independent');
      await t.rejects(store.nextId(''), TypeError, 'a sequence needs a name');
    });

    t.test('explain reports the index used and the documents examined', async (t) => {
      await store.ensureCollection({
        name: 'big',
        indexes: [{ fields: { id: 1 }, unique: true }, { fields: { owner_id: 1 } }, { fields: { owner_id: 1, name: 1 }, unique: true }],
      });
      const big = store.collection('big');
      await big.insertMany(Array.from({ length: 500 }, (_, i) => ({ id: i + 1, owner_id: i % 10, name: `r${i}`, free: i })));
      const eq = await big.explain({ id: 250 });
      t.equal(eq.index, 'id_1', 'unique equality uses its index');
      t.equal(eq.examined, 1, 'and examines one document');
      t.equal(eq.returned, 1);
      const owner = await big.explain({ owner_id: 3 });
      t.ok(owner.index === 'owner_id_1' || owner.index === 'owner_id_1_name_1', `owner lookup uses an index (${owner.index})`);
      t.equal(owner.examined, 50, 'examines only the matches');
      t.equal(owner.returned, 50);
      const compound = await big.explain({ owner_id: 3, name: 'r13' });
      t.ok(compound.index !== null && compound.examined <= 1, `compound equality (${compound.index}, ${compound.examined} examined)`);
      const range = await big.explain({ id: { $gt: 490 } });
      t.equal(range.index, 'id_1', 'a range uses the index');
      t.equal(range.examined, 10);
      const inList = await big.explain({ id: { $in: [1, 2, 3] } });
      t.equal(inList.index, 'id_1', '$in uses the index');
      t.equal(inList.examined, 3);
      // Each document once, whatever the order or repetition of the list's values.
      const ids = async (list: unknown[]) => (await big.find({ id: { $in: list } }, { sort: { id: 1 } })).map((d) => d.id);
      t.same(await ids([3, 2, 1]), [1, 2, 3], '$in descending');
      t.same(await ids([1, 2, 2, 3]), [1, 2, 3], '$in with a repeated value');
      t.same(await ids([5, 4, 5, 1]), [1, 4, 5], '$in unordered with a repeated value');
      t.same(await ids([7, 7]), [7], '$in of one value twice');
      t.same(await ids([1, '2', 3, 600]), [1, 3], '$in of mixed types');
      const page = await big.explain({ owner_id: 3 }, { sort: { id: -1 }, skip: 5, limit: 10 });
      t.not(page.index, null, 'a sorted page over an indexed filter uses an index');
      t.ok(page.examined < 500, `and never scans the collection (${page.examined} examined)`);
      t.equal(page.returned, 10);
      const scan = await big.explain({ free: 7 });
      t.equal(scan.index, null, 'an unindexed field is a collection scan');
      t.equal(scan.examined, 500, 'that examines every document');
    });

    t.test('pages in the order of a compound index (equality prefix, then the sort)', async (t) => {
      await store.ensureCollection({
        name: 'rel',
        indexes: [{ fields: { uid: 1, repoId: 1 }, unique: true }, { fields: { uid: 1, id: -1 } }, { fields: { uid: 1 } }, { fields: { uid: 1, repoPrivate: 1 } }],
      });
      await store.ensureCollection({ name: 'named', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { ownerId: 1 } }, { fields: { ownerId: 1, lowerName: 1 } }] });
      const rel = store.collection('rel');
      const named = store.collection('named');
      const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i + 1, uid: (i * 7) % 10, repoId: 5000 - i, repoPrivate: i % 7 === 0 }));
      await rel.insertMany(rows);
      const words = ['kit', 'app', 'core', 'web', 'api', 'lib', 'Zed', 'data'];
      const repos = Array.from({ length: 800 }, (_, i) => ({ id: i + 1, ownerId: i % 4, lowerName: `${words[i % words.length]}-${String((i * 37) % 800).padStart(3, '0')}`, private: i % 5 === 0 }));
      await named.insertMany(repos);

      type Row = (typeof rows)[number];
      // The cases' filters: equalities and one `$nin`.
      const matchesRow = (r: Row, filter: Record<string, unknown>) =>
        Object.entries(filter).every(([k, want]) => {
          const have = r[k as keyof Row];
          return want !== null && typeof want === 'object' ? !(want as { $nin: unknown[] }).$nin.includes(have) : have === want;
        });
      const page = (docs: Row[], skip: number, limit: number) => docs.slice(skip, limit ? skip + limit : undefined).map((r) => r.id);
      const byIdDesc = (a: Row, b: Row) => b.id - a.id;
      const of3 = rows.filter((r) => r.uid === 3);
      const cases: Array<[string, Record<string, unknown>, Record<string, 1 | -1>, number, number, number[]]> = [
        ['first page, newest first', { uid: 3 }, { id: -1 }, 0, 20, page([...of3].sort(byIdDesc), 0, 20)],
        ['a later page', { uid: 3 }, { id: -1 }, 100, 20, page([...of3].sort(byIdDesc), 100, 20)],
        ['the last, partial page', { uid: 3 }, { id: -1 }, 190, 20, page([...of3].sort(byIdDesc), 190, 20)],
        ['reversed sort', { uid: 3 }, { id: 1 }, 5, 10, page([...of3].sort((a, b) => a.id - b.id), 5, 10)],
        ['no limit', { uid: 3 }, { id: -1 }, 0, 0, page([...of3].sort(byIdDesc), 0, 0)],
        ['sort naming the equality field too', { uid: 3 }, { uid: 1, id: -1 }, 0, 5, page([...of3].sort(byIdDesc), 0, 5)],
        ['plus a condition the index does not hold', { uid: 3, repoPrivate: false }, { id: -1 }, 10, 15, page(of3.filter((r) => !r.repoPrivate).sort(byIdDesc), 10, 15)],
        ['plus $nin', { uid: 3, repoId: { $nin: [5000 - 3, 5000 - 13, 5000 - 23] } }, { id: -1 }, 0, 12, page(of3.filter((r) => ![3, 13, 23].includes(5000 - r.repoId)).sort(byIdDesc), 0, 12)],
        ['no such user', { uid: 42 }, { id: -1 }, 0, 20, []],
        ['skip past the end', { uid: 3 }, { id: -1 }, 5000, 20, []],
      ];
      for (const [label, filter, sort, skip, limit, want] of cases) {
        t.same(ids(await rel.find(filter, { sort, skip, limit })), want, label);
        const both = await rel.findAndCount(filter, { sort, skip, limit });
        t.same([ids(both.docs), both.total], [want, await rel.count(filter)], `${label}: findAndCount`);
        t.equal(both.total, rows.filter((r) => matchesRow(r, filter)).length, `${label}: the whole count`);
      }
      t.equal(await rel.count({ uid: 3 }), of3.length, 'count on the equality prefix');
      t.equal(await rel.count({ uid: 3, repoPrivate: true }), of3.filter((r) => r.repoPrivate).length, 'count on a whole compound key');
      t.equal(await rel.count({ uid: 3, repoPrivate: false, id: { $gt: 1000 } }), of3.filter((r) => !r.repoPrivate && r.id > 1000).length, 'count with more conditions');

      type Repo = (typeof repos)[number];
      const names = (docs: Doc[]) => docs.map((d) => d.lowerName);
      const byName = (a: Repo, b: Repo) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : 0);
      const owner2 = repos.filter((r) => r.ownerId === 2).sort(byName);
      t.same(names(await named.find({ ownerId: 2 }, { sort: { lowerName: 1 }, limit: 30 })), owner2.slice(0, 30).map((r) => r.lowerName), 'name order within an owner');
      t.same(names(await named.find({ ownerId: 2 }, { sort: { lowerName: -1 }, skip: 60, limit: 30 })), [...owner2].reverse().slice(60, 90).map((r) => r.lowerName), 'reverse name order');
      t.same(
        names(await named.find({ ownerId: 2, private: false }, { sort: { lowerName: 1 }, skip: 20, limit: 25, projection: { lowerName: 1 } })),
        owner2.filter((r) => !r.private).slice(20, 45).map((r) => r.lowerName),
        'public ones only, projected',
      );
      t.equal(await named.count({ ownerId: 2, private: false }), owner2.filter((r) => !r.private).length, 'their count');

      // Writes move rows between and within ranges.
      await rel.updateOne({ id: of3[0]!.id }, { $set: { uid: 4 } });
      await rel.deleteOne({ id: of3[1]!.id });
      await rel.insertOne({ id: 9999, uid: 3, repoId: 1, repoPrivate: false });
      const now = [...of3.slice(2), { id: 9999, uid: 3, repoId: 1, repoPrivate: false }].sort(byIdDesc);
      t.same(ids(await rel.find({ uid: 3 }, { sort: { id: -1 }, limit: 10 })), page(now, 0, 10), 'pages follow inserts, updates and deletes');
      t.same(ids(await rel.find({ uid: 3 }, { sort: { id: 1 }, skip: 3, limit: 10 })), page([...now].reverse(), 3, 10), 'in both directions');
      t.equal(await rel.count({ uid: 3 }), now.length, 'and counts too');
      await named.updateOne({ id: 3 }, { $set: { lowerName: 'AAA-first' } });
      t.equal((await named.findOne({ ownerId: 2 }, { sort: { lowerName: 1 } }))!.lowerName, 'AAA-first', 'a renamed document moves in name order');
    });

    t.test('an array field fixed to one value in a compound index: repeated values, counts, pages, skips, updates', async (t) => {
      // `{g, tags: v}` over `{g, tags, id}`: each document at most once in the range, whatever its array holds.
      await store.ensureCollection({
        name: 'tagged',
        indexes: [{ fields: { id: 1 }, unique: true }, { fields: { g: 1, tags: 1, id: -1 } }, { fields: { g: 1, tags: 1, open: 1, id: -1 } }],
      });
      const tagged = store.collection('tagged');
      let seed = 20261128;
      const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
      type Row = { id: number; g: number; open: boolean; tags?: number[] | number };
      const rows: Row[] = [];
      for (let i = 0; i < 900; i++) {
        const row: Row = { id: i + 1, g: i % 3, open: random() < 0.7 };
        const kind = random();
        // Arrays with repeated values, empty ones, a scalar, and no field at all.
        if (kind < 0.8) row.tags = Array.from({ length: Math.floor(random() * 5) }, () => Math.floor(random() * 6));
        else if (kind < 0.9) row.tags = Math.floor(random() * 6);
        rows.push(row);
      }
      await tagged.insertMany(rows.map((r) => ({ ...r })));
      t.ok(rows.some((r) => Array.isArray(r.tags) && new Set(r.tags).size < r.tags.length), 'some arrays repeat a value');
      const has = (r: Row, v: number) => (Array.isArray(r.tags) ? r.tags.includes(v) : r.tags === v);
      const check = async (label: string) => {
        for (const g of [0, 2]) {
          for (const v of [0, 3, 5, 9]) {
            for (const open of [undefined, true, false]) {
              const filter: Record<string, unknown> = open === undefined ? { g, tags: v } : { g, open, tags: v };
              const want = rows.filter((r) => r.g === g && has(r, v) && (open === undefined || r.open === open)).map((r) => r.id).sort((a, b) => b - a);
              const name = `${label}: ${JSON.stringify(filter)}`;
              t.equal(await tagged.count(filter), want.length, `${name} count`);
              // The same matches through a two-valued $in (a document may be met under both values: deduplicated).
              t.equal(await tagged.count({ ...filter, tags: { $in: [v, 99] } }), want.length, `${name} count, as an $in of two`);
              const last = Math.max(0, want.length - 7);
              for (const [skip, limit] of [[0, 10], [13, 10], [last, 10], [want.length, 10], [0, 0]] as const) {
                const page = want.slice(skip, limit ? skip + limit : undefined);
                t.same(ids(await tagged.find(filter, { sort: { id: -1 }, skip, limit })), page, `${name} skip ${skip} limit ${limit}`);
                const both = await tagged.findAndCount(filter, { sort: { id: -1 }, skip, limit });
                t.same([ids(both.docs), both.total], [page, want.length], `${name} skip ${skip} limit ${limit}: findAndCount`);
                t.same(ids(await tagged.find({ ...filter, tags: { $in: [v, 99] } }, { sort: { id: -1 }, skip, limit })), page, `${name} skip ${skip}, as an $in of two`);
              }
              t.same(ids(await tagged.find(filter, { sort: { id: 1 }, skip: 3, limit: 8 })), [...want].reverse().slice(3, 11), `${name} oldest first`);
              t.same(sorted(await tagged.find(filter)), [...want].sort((a, b) => a - b), `${name} unsorted`);
            }
          }
        }
      };
      await check('as inserted');

      // Updates that add and remove values (repeats included), replace the array, make it a scalar or remove it.
      const set = async (id: number, update: Record<string, unknown>, apply: (r: Row) => void) => {
        await tagged.updateOne({ id }, update);
        apply(rows[id - 1]!);
      };
      const arr = (r: Row) => (Array.isArray(r.tags) ? r.tags : r.tags === undefined ? [] : [r.tags]);
      for (let k = 0; k < 60; k++) {
        const id = 1 + Math.floor(random() * rows.length);
        const v = Math.floor(random() * 6);
        const cur = rows[id - 1]!;
        const op = k % 6;
        if (op === 0 && Array.isArray(cur.tags)) await set(id, { $push: { tags: v } }, (r) => void (r.tags = [...arr(r), v]));
        else if (op === 1 && cur.tags !== undefined && !Array.isArray(cur.tags)) await set(id, { $set: { tags: [cur.tags, cur.tags, v] } }, (r) => void (r.tags = [r.tags as number, r.tags as number, v]));
        else if ((op === 1 || op === 2) && (Array.isArray(cur.tags) || cur.tags === undefined)) await set(id, { $addToSet: { tags: v } }, (r) => void (r.tags = arr(r).includes(v) ? arr(r) : [...arr(r), v]));
        else if (op === 3 && Array.isArray(cur.tags)) await set(id, { $pull: { tags: v } }, (r) => void (r.tags = arr(r).filter((x) => x !== v)));
        else if (op === 4) await set(id, { $set: { tags: [v, v], open: !cur.open } }, (r) => { r.tags = [v, v]; r.open = !r.open; });
        else await set(id, { $unset: { tags: 1 } }, (r) => void delete r.tags);
      }
      await tagged.deleteMany({ id: { $in: [5, 6, 7, 8] } });
      rows.splice(4, 4);
      await check('after updates');
    });

    t.test('drop removes every document and keeps the indexes', async (t) => {
      const items = await seeded(true);
      await store.nextId('keep');
      await store.drop('items');
      t.equal(await items.count({}), 0, 'empty');
      await items.insertOne({ id: 1, name: 'again' });
      t.ok(isDuplicateKeyError(await items.insertOne({ id: 1, name: 'twice' }).catch((e: unknown) => e)), 'unique index still enforced');
      t.equal((await items.explain({ id: 1 })).index, 'id_1', 'indexes still used');
      t.equal(await store.nextId('keep'), 2, 'sequences are not touched');
    });

    t.test('writeGeneration: changes with every write, never with a read (or is null: nothing may be kept)', async (t) => {
      const items = await seeded(true);
      const first = items.writeGeneration();
      if (first === null) {
        await items.insertOne({ id: 90, name: 'n' });
        t.equal(items.writeGeneration(), null, 'null stays null: the adapter cannot see every write');
        return;
      }
      let last = first;
      const changed = async (what: string, write: () => Promise<unknown>) => {
        await write();
        const now = items.writeGeneration()!;
        t.not(now, last, `${what} changes it`);
        last = now;
      };
      const unchanged = async (what: string, read: () => Promise<unknown>) => {
        await read();
        t.equal(items.writeGeneration(), last, `${what} leaves it`);
      };
      await unchanged('find', () => items.find({ n: { $gt: 5 } }, { sort: { n: -1 }, limit: 2 }));
      await unchanged('count', () => items.count({ flag: true }));
      await unchanged('findAndCount', () => items.findAndCount({}, { limit: 1 }));
      await unchanged('an update that matches nothing', () => items.updateOne({ id: 999 }, { $set: { n: 1 } }));
      await unchanged('a delete that matches nothing', () => items.deleteMany({ id: 999 }));
      await changed('insertOne', () => items.insertOne({ id: 91, name: 'x' }));
      await changed('insertMany', () => items.insertMany([{ id: 92, name: 'y' }, { id: 93, name: 'z' }]));
      await changed('updateOne', () => items.updateOne({ id: 91 }, { $set: { n: 7 } }));
      await changed('updateMany', () => items.updateMany({ id: { $in: [92, 93] } }, { $inc: { n: 1 } }));
      await changed('findOneAndUpdate', () => items.findOneAndUpdate({ id: 91 }, { $set: { flag: true } }));
      await changed('an upsert that inserts', () => items.updateOne({ id: 94 }, { $set: { name: 'u' } }, { upsert: true }));
      await changed('findOneAndDelete', () => items.findOneAndDelete({ id: 94 }));
      await changed('deleteOne', () => items.deleteOne({ id: 93 }));
      await changed('deleteMany', () => items.deleteMany({ id: { $in: [91, 92] } }));
      const before = last;
      await t.rejects(items.insertOne({ id: 1, name: 'clash' }), 'a unique clash is refused');
      t.same(sorted(await items.find({ id: 1 })), [1], 'and writes nothing');
      last = items.writeGeneration()!;
      t.ok(last >= before, 'a refused write may change it (harmless), never goes back');
      await changed('drop', () => store.drop('items'));
      // Counts kept against a generation are exact: a count at a generation equals a fresh count at the same one.
      await items.insertMany(SEED.map((d) => ({ ...d })));
      const g = items.writeGeneration();
      const c = await items.count({ flag: true });
      t.equal(items.writeGeneration(), g, 'unchanged across the count');
      t.equal(c, 2, 'the count at that generation');
    });

    t.test('retired indexes are dropped where they exist, and stay dropped', async (t) => {
      const wanted: IndexSpec[] = [{ fields: { id: 1 }, unique: true }, { fields: { n: 1 } }];
      const retired: IndexSpec[] = [{ fields: { tags: 1 } }, { fields: { name: 1, n: -1 } }];
      await store.ensureCollection({ name: 'retiring', indexes: [...wanted, ...retired] });
      const rows = store.collection<Item>('retiring');
      await rows.insertMany(SEED.map((d) => ({ ...d })));
      t.equal((await rows.explain({ tags: 'b' })).index, 'tags_1', 'declared: used');
      await store.ensureCollection({ name: 'retiring', indexes: wanted, retiredIndexes: retired });
      await store.ensureCollection({ name: 'retiring', indexes: wanted, retiredIndexes: retired }); // idempotent
      t.equal((await rows.explain({ tags: 'b' })).index, null, 'retired: no longer answers a query');
      t.equal((await rows.explain({ name: 'beta', n: 10 })).index === 'name_1_n_-1', false, 'the compound one is gone too');
      t.same(sorted(await rows.find({ tags: 'b' })), [1, 2], 'the data is untouched');
      t.equal((await rows.explain({ n: 10 })).index, 'n_1', 'the others stay');
      await store.ensureCollection({ name: 'never-indexed', retiredIndexes: retired });
      t.pass('retiring an index that never existed is a no-op');
      if (harness.reopen) {
        store = await harness.reopen(store);
        await store.ensureCollection({ name: 'retiring', indexes: wanted, retiredIndexes: retired });
        const again = store.collection<Item>('retiring');
        t.equal((await again.explain({ tags: 'b' })).index, null, 'still gone after a restart');
        t.same(sorted(await again.find({ tags: 'b' })), [1, 2]);
      }
    });

    if (harness.reopen) {
      t.test('data, indexes and sequences persist across a restart', async (t) => {
        const items = await seeded(true);
        await items.updateOne({ id: 1 }, { $set: { name: 'changed' }, $push: { tags: 'z' } });
        await items.deleteOne({ id: 2 });
        await items.insertOne({ id: 5, name: 'line\u2028sep\u2029and\u0085nel\nnewline' });
        const last = await Promise.all([store.nextId('seq'), store.nextId('seq'), store.nextId('seq')]);
        store = await harness.reopen!(store);
        await store.ensureCollection({ name: 'items', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { n: 1 } }, { fields: { 'owner.id': 1 } }] });
        const again = store.collection<Item>('items');
        t.same(sorted(await again.find({})), [1, 3, 4, 5], 'insert and delete persisted');
        t.same(await again.findOne({ id: 1 }, { projection: { name: 1, tags: 1 } }), { name: 'changed', tags: ['a', 'b', 'z'] }, 'update persisted');
        t.equal((await again.findOne({ id: 5 }))!.name, 'line\u2028sep\u2029and\u0085nel\nnewline', 'line separators inside strings survive');
        t.ok(isDuplicateKeyError(await again.insertOne({ id: 1, name: 'dup' }).catch((e: unknown) => e)), 'unique index enforced after restart');
        t.equal(await store.nextId('seq'), Math.max(...last) + 1, 'the sequence continues, no value reused');
      });
    }
  });
}
