// The embedded store's planner over multikey indexes: a range whose multikey fields are each fixed to one value holds
// every document at most once, so it is counted from its size (exact), read without a dedupe set and walked in a
// sort's order with the skip as a rank jump — `{repoId, labelIds: 5}` over `{repoId, labelIds, id}`, the issue list
// with a label. A field after the fixed ones that holds arrays (or a multi-valued `$in`, or a range) still dedupes.
// Every fast answer is compared with the reference plans' (a collection scan, a two-valued `$in`) on generated data.
import t from 'tap';
import { OrderedIndex, definitionOf } from '../../core/store/embedded/indexes.js';
import { accessOf, planFor } from '../../core/store/embedded/plan.js';
import { compileTemplate } from '../../core/store/embedded/filter.js';
import { queryTokens, type Values } from '../../core/store/embedded/shape.js';
import { withId, type Stored } from '../../core/store/embedded/stored.js';
import type { Doc, Filter, IndexSpec, Update } from '../../core/store/port.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
}

/** The access the planner picks for `filter` over one index built from `docs`. */
function accessFor(spec: IndexSpec, docs: Doc[], filter: Filter) {
  const stored = docs.map((d, i) => withId({ ...d } as Stored, String(i).padStart(8, '0')));
  const index = OrderedIndex.build(definitionOf(spec), stored, 'c');
  const v: Values = [];
  queryTokens(filter, undefined, undefined, v);
  const plan = planFor(compileTemplate(filter, v), [index], null);
  return { index, access: accessOf(plan, v)! };
}

t.test('one value on a multikey field: exact counts, no dedupe, by construction', async (t) => {
  // Document 1 holds 5 twice, document 2 once, document 3 under 5 and 7; document 4 has no 5.
  const docs = [
    { repoId: 1, labelIds: [5, 5], id: 1 },
    { repoId: 1, labelIds: [5], id: 2 },
    { repoId: 1, labelIds: [7, 5], id: 3 },
    { repoId: 1, labelIds: [7], id: 4 },
    { repoId: 2, labelIds: [5, 5, 5], id: 5 },
  ];
  const spec: IndexSpec = { fields: { repoId: 1, labelIds: 1, id: -1 } };
  const { index, access } = accessFor(spec, docs, { repoId: 1, labelIds: 5 });
  t.ok(index.multikey, 'the index is multikey');
  t.equal(index.entries, 6, 'a repeated value adds no entry: (1,5,1) (1,5,2) (1,5,3) (1,7,3) (1,7,4) (2,5,5)');
  t.equal(access.size, 3, 'the range holds documents 1, 2, 3');
  t.ok(access.exact, 'and is exact: the count is its size');
  const met: number[] = [];
  access.each((d) => {
    met.push(d.id as number);
    return false;
  });
  t.same(met, [3, 2, 1], 'each document once, in index order');
  t.ok(accessFor(spec, docs, { repoId: 1, labelIds: { $in: [5] } }).access.exact, 'an $in of one value too');
  t.notOk(accessFor(spec, docs, { repoId: 1, labelIds: { $in: [5, 7] } }).access.exact, 'an $in of two values is not (document 3 under both)');

  // A field after the fixed ones holding arrays: a document sits under several tuples of one range.
  const later = [{ a: 1, b: [2, 3] }, { a: 1, b: 4 }];
  const { access: dup } = accessFor({ fields: { a: 1, b: 1 } }, later, { a: 1 });
  t.notOk(dup.exact, 'a multikey field after the prefix: not exact');
  t.equal(dup.size, 3, 'its size is an upper bound (3 entries)');
  const seen: Doc[] = [];
  dup.each((d) => {
    seen.push(d);
    return false;
  });
  t.equal(seen.length, 2, 'and it dedupes');
});

t.test('the store: plans and answers', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());

  t.test('covered walks and rank skips through a multikey prefix', async (t) => {
    await store.ensureCollection({ name: 'issues', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { repoId: 1, labelIds: 1, id: -1 } }, { fields: { repoId: 1, id: -1 } }] });
    const issues = store.collection('issues');
    const docs = Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, repoId: i % 2, labelIds: i % 3 === 0 ? [7, 7, 9] : i % 5 === 0 ? [9] : [] }));
    await issues.insertMany(docs);
    const want = docs.filter((d) => d.repoId === 0 && d.labelIds.includes(7)).map((d) => d.id).reverse();
    t.equal(await issues.count({ repoId: 0, labelIds: 7 }), want.length, 'count');
    const skip = want.length - 20;
    const last = await issues.explain({ repoId: 0, labelIds: 7 }, { sort: { id: -1 }, skip, limit: 50 });
    t.same(last, { index: 'repoId_1_labelIds_1_id_-1', examined: 20, returned: 20 }, 'the last page examines only its rows');
    t.same((await issues.find({ repoId: 0, labelIds: 7 }, { sort: { id: -1 }, skip, limit: 50 })).map((d) => d.id), want.slice(skip), 'and holds them');
    t.same((await issues.find({ repoId: 0, labelIds: 7 }, { sort: { id: 1 }, skip: 10, limit: 5 })).map((d) => d.id), [...want].reverse().slice(10, 15), 'oldest first');
    const counted = await issues.findAndCount({ repoId: 0, labelIds: 7 }, { sort: { id: -1 }, skip: 10, limit: 5 });
    t.same([counted.docs.map((d) => d.id), counted.total], [want.slice(10, 15), want.length], 'a covered walk\'s range is its count: each document once');
    const both = want.length + docs.filter((d) => d.repoId === 0 && !d.labelIds.includes(7) && d.labelIds.includes(9)).length;
    const twoCounted = await issues.findAndCount({ repoId: 0, labelIds: { $in: [7, 9] } }, { sort: { id: -1 }, skip: 100, limit: 10 });
    t.equal(twoCounted.total, both, 'two values: a document under both counted once');
    const two = await issues.explain({ repoId: 0, labelIds: { $in: [7, 9] } }, { sort: { id: -1 }, skip: 100, limit: 10 });
    t.ok(two.examined > 100, `two values: read and deduplicated, not jumped (${two.examined} examined)`);
  });

  t.test('a later field turning multikey stops the walk of a cached shape', async (t) => {
    await store.ensureCollection({ name: 'later', indexes: [{ fields: { a: 1, b: 1 } }] });
    const later = store.collection('later');
    await later.insertMany(Array.from({ length: 40 }, (_, i) => ({ id: i + 1, a: [i % 2, 10], b: 100 - i })));
    t.same(await later.explain({ a: 1 }, { sort: { b: 1 }, limit: 3 }), { index: 'a_1_b_1', examined: 3, returned: 3 }, 'walked while only a is multikey');
    await later.insertOne({ id: 41, a: 1, b: [1000, 0] });
    const page = (await later.find({ a: 1 }, { sort: { b: 1 }, limit: 3 })).map((d) => d.id);
    t.same(page, [41, 40, 38], 'document 41 sorts by its smallest b, once');
    t.same((await later.find({ a: 1 }, { sort: { b: -1 }, limit: 2 })).map((d) => d.id), [41, 2], 'and by its largest b backwards');
    t.not((await later.explain({ a: 1 }, { sort: { b: 1 }, limit: 3 })).examined, 3, 'the walk is no longer planned');
    t.equal(await later.count({ a: 1 }), 21, 'counts dedupe again');
    t.equal((await later.findAndCount({ a: 1 }, { sort: { b: 1 }, limit: 3 })).total, 21, 'and so does findAndCount');
  });

  t.test('a sort on the multikey field itself is not a walk', async (t) => {
    await store.ensureCollection({ name: 'self', indexes: [{ fields: { a: 1, b: 1 } }] });
    const self = store.collection('self');
    // Holding 5, an array sorts by its smallest element ascending: [1, 5] before [5].
    await self.insertMany([{ id: 1, a: [5], b: 1 }, { id: 2, a: [1, 5], b: 2 }, { id: 3, a: [5, 9], b: 3 }, { id: 4, a: [3], b: 0 }]);
    t.same((await self.find({ a: 5 }, { sort: { a: 1, b: 1 } })).map((d) => d.id), [2, 1, 3], 'ascending: by the smallest element, then b');
    t.same((await self.find({ a: 5 }, { sort: { a: -1, b: 1 } })).map((d) => d.id), [3, 1, 2], 'descending: by the largest element, then b');
    t.same((await self.find({ a: 5 }, { sort: { b: -1 } })).map((d) => d.id), [3, 2, 1], 'a sort on b alone walks the range backwards');
  });

  t.test('$in of several values on the first field, the multikey field fixed to one', async (t) => {
    await store.ensureCollection({ name: 'inp', indexes: [{ fields: { repoId: 1, labelIds: 1, id: -1 } }] });
    const inp = store.collection('inp');
    const docs = Array.from({ length: 600 }, (_, i) => ({ id: i + 1, repoId: i % 6, labelIds: [i % 4, i % 4, (i >> 2) % 3] }));
    await inp.insertMany(docs);
    const filter = { repoId: { $in: [1, 3, 3, 4] }, labelIds: 2 };
    const want = docs.filter((d) => [1, 3, 4].includes(d.repoId) && d.labelIds.includes(2));
    t.equal(await inp.count(filter), want.length, 'count: the ranges\' sizes');
    const plan = await inp.explain(filter);
    t.same(plan, { index: 'repoId_1_labelIds_1_id_-1', examined: want.length, returned: want.length }, 'one range per repository, each document once');
  });

  t.test('generated data: the fast plans agree with a scan and with the deduplicating plan', async (t) => {
    const indexes: IndexSpec[] = [
      { fields: { id: 1 }, unique: true },
      { fields: { repoId: 1, labelIds: 1, id: -1 } },
      { fields: { repoId: 1, labelIds: 1, isClosed: 1, id: -1 } },
      { fields: { labelIds: 1, isClosed: 1 } },
      { fields: { repoId: 1, id: -1 } },
    ];
    await store.ensureCollection({ name: 'fast', indexes });
    await store.ensureCollection({ name: 'scan', indexes: [] });
    const fast = store.collection('fast');
    const scan = store.collection('scan');
    const random = lcg(7);
    const labels = () => {
      const r = random();
      if (r < 0.1) return undefined;
      if (r < 0.15) return Math.floor(random() * 8);
      return Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * 8));
    };
    const docs: Doc[] = [];
    for (let i = 0; i < 2500; i++) {
      const d: Doc = { id: i + 1, repoId: Math.floor(random() * random() * 6), isClosed: random() < 0.3 };
      const l = labels();
      if (l !== undefined) d.labelIds = l;
      docs.push(d);
    }
    await fast.insertMany(docs.map((d) => ({ ...d })));
    await scan.insertMany(docs.map((d) => ({ ...d })));
    const ids = (rows: Doc[]) => rows.map((d) => d.id);
    let compared = 0;
    let mismatches = 0;
    const round = async () => {
      for (let q = 0; q < 120; q++) {
        const repoId = Math.floor(random() * 6);
        const label = Math.floor(random() * 9);
        const state = random();
        const filter: Filter = { repoId, labelIds: label };
        if (state < 0.33) filter.isClosed = false;
        else if (state < 0.66) filter.isClosed = true;
        const total = await scan.count(filter);
        const limit = [0, 1, 10, 50][Math.floor(random() * 4)]!;
        const skip = random() < 0.3 ? Math.max(0, total - Math.floor(random() * 12)) : Math.floor(random() * (total + 3));
        const sort = random() < 0.8 ? { id: -1 as const } : { id: 1 as const };
        const reference = ids(await scan.find(filter, { sort, skip, limit }));
        const dedupe = { ...filter, labelIds: { $in: [label, 99] } };
        const answers = [
          [await fast.count(filter), total],
          [await fast.count(dedupe), total],
          [ids(await fast.find(filter, { sort, skip, limit })), reference],
          [ids(await fast.find(dedupe, { sort, skip, limit })), reference],
          [ids(await fast.find(filter, { skip, limit: limit || undefined })).length, reference.length],
        ];
        for (const [got, want] of answers) {
          compared++;
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            mismatches++;
            t.fail(`${JSON.stringify(filter)} sort ${JSON.stringify(sort)} skip ${skip} limit ${limit}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
          }
        }
      }
    };
    await round();
    // Updates that add values (repeats too), remove them, replace and drop the array, close issues, delete some.
    for (let k = 0; k < 400; k++) {
      const id = 1 + Math.floor(random() * docs.length);
      const v = Math.floor(random() * 8);
      const cur = docs[id - 1]!;
      const arr = Array.isArray(cur.labelIds) || cur.labelIds === undefined;
      const op = Math.floor(random() * 6);
      const update: Update = op === 0 && arr ? { $push: { labelIds: v } }
        : op === 1 && arr ? { $addToSet: { labelIds: v } }
        : op === 2 && arr ? { $pull: { labelIds: v } }
        : op === 3 ? { $set: { labelIds: [v, v, (v + 1) % 8] } }
        : op === 4 ? { $set: { isClosed: !cur.isClosed, repoId: Math.floor(random() * 6) } }
        : { $unset: { labelIds: 1 as const } };
      await fast.updateOne({ id }, update);
      await scan.updateOne({ id }, update);
      docs[id - 1] = (await scan.findOne({ id }))!;
    }
    await fast.deleteMany({ id: { $gt: 2400 } });
    await scan.deleteMany({ id: { $gt: 2400 } });
    await round();
    t.equal(mismatches, 0, `${compared} answers compared, all equal`);
    t.ok(await fast.count({ labelIds: { $exists: true } }) > 2000, 'most documents still carry labels');
  });
});
