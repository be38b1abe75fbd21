// The embedded store's planner: a range on the field right after an equality prefix of a compound index narrows the
// prefix's range (MongoDB's index bounds). `{isClosed: false, id: {$lt: X}}` over `{isClosed, id}` is counted without
// reading a document, and a page sorted by `id` starts its walk at X instead of at the top of the prefix: issue
// search reaches a deep page this way (bounded by its answer, not by the rows above it).
import t from 'tap';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

interface Row { [key: string]: unknown; id: number; repoId: number; isClosed: boolean; tag?: unknown; labels?: number[] }

const byIdDesc = (a: Row, b: Row) => b.id - a.id;

t.test('a range after an equality prefix', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection({
    name: 'rows',
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { isClosed: 1, id: -1 } },
      { fields: { repoId: 1, isClosed: 1, id: -1 } },
      { fields: { repoId: 1, tag: 1 } },
      { fields: { repoId: 1, labels: 1 } },
    ],
  });
  const rows = store.collection<Row>('rows');
  const n = 20_000;
  const docs: Row[] = Array.from({ length: n }, (_, i) => ({ id: i + 1, repoId: i % 50, isClosed: i % 3 === 0 }));
  // Mixed types under one field: a numeric range keeps to the numbers (type bracketing), as MongoDB does.
  docs.forEach((d, i) => { if (d.repoId === 7) d.tag = i % 4 === 0 ? `s${i}` : i % 4 === 1 ? null : i % 4 === 2 ? i : undefined; });
  for (const d of docs) if (d.tag === undefined) delete d.tag;
  docs.forEach((d, i) => { if (d.repoId === 9) d.labels = [i % 5, (i % 5) + 10]; });
  await rows.insertMany(docs);
  const scan = (f: (d: Row) => boolean) => docs.filter(f).sort(byIdDesc);

  await t.test('counts are exact range sizes over an ascending prefix and a descending field', async (t) => {
    for (const [bound, pred] of [
      [{ $lt: 9_000 }, (d: Row) => d.id < 9_000],
      [{ $lte: 9_000 }, (d: Row) => d.id <= 9_000],
      [{ $gt: 9_000 }, (d: Row) => d.id > 9_000],
      [{ $gte: 9_000 }, (d: Row) => d.id >= 9_000],
      [{ $gt: 100, $lte: 9_001 }, (d: Row) => d.id > 100 && d.id <= 9_001],
      [{ $gt: 9_000, $lt: 100 }, () => false],
    ] as const) {
      const filter = { isClosed: false, id: bound };
      const want = scan((d) => !d.isClosed && pred(d)).length;
      t.equal(await rows.count(filter), want, `count ${JSON.stringify(bound)}`);
      const plan = await rows.explain(filter);
      t.equal(plan.index, 'isClosed_1_id_-1', `served by {isClosed, id} (${plan.index})`);
      t.equal(plan.examined, plan.returned, `exact: only the range is read (${plan.examined} for ${plan.returned})`);
      t.equal(await rows.count({ repoId: 4, isClosed: true, id: bound }), scan((d) => d.repoId === 4 && d.isClosed && pred(d)).length, 'two-field prefix');
    }
  });

  await t.test('a sorted page walks from the bound: its rows only', async (t) => {
    for (const [skip, limit] of [[0, 30], [40, 10], [7_000, 20]] as const) {
      const filter = { isClosed: false, id: { $lt: 15_000 } };
      const got = await rows.find(filter, { sort: { id: -1 }, skip, limit });
      t.same(got.map((d) => d.id), scan((d) => !d.isClosed && d.id < 15_000).slice(skip, skip + limit).map((d) => d.id), `page ${skip}+${limit}`);
      const plan = await rows.explain(filter, { sort: { id: -1 }, skip, limit });
      t.ok(plan.examined <= limit, `a covered walk reads its window only (${plan.examined})`);
      const up = await rows.find({ isClosed: false, id: { $gt: 15_000 } }, { sort: { id: 1 }, limit: 5 });
      t.same(up.map((d) => d.id), scan((d) => !d.isClosed && d.id > 15_000).reverse().slice(0, 5).map((d) => d.id), 'ascending from the bound');
    }
    // With another condition: the walk still starts at the bound and checks each row.
    const filter = { isClosed: false, id: { $lte: 12_000 }, repoId: { $in: [1, 2, 3] } };
    const got = await rows.find(filter, { sort: { id: -1 }, limit: 10, skip: 3 });
    t.same(got.map((d) => d.id), scan((d) => !d.isClosed && d.id <= 12_000 && [1, 2, 3].includes(d.repoId)).slice(3, 13).map((d) => d.id));
  });

  await t.test('an $in on the first field with a range after the one-valued fields', async (t) => {
    const filter = { repoId: { $in: [2, 5, 5, 40] }, isClosed: false, id: { $gte: 3_000, $lt: 18_000 } };
    const want = scan((d) => [2, 5, 40].includes(d.repoId) && !d.isClosed && d.id >= 3_000 && d.id < 18_000);
    t.equal(await rows.count(filter), want.length);
    const plan = await rows.explain(filter);
    t.equal(plan.examined, want.length, `only the ranges (${plan.examined})`);
    t.same((await rows.find(filter, { sort: { id: -1 }, limit: 7 })).map((d) => d.id), want.slice(0, 7).map((d) => d.id));
  });

  await t.test('type bracketing and missing fields', async (t) => {
    const tagged = docs.filter((d) => d.repoId === 7);
    t.equal(await rows.count({ repoId: 7, tag: { $gte: 0 } }), tagged.filter((d) => typeof d.tag === 'number').length, 'numbers only');
    t.equal(await rows.count({ repoId: 7, tag: { $gt: 's' } }), tagged.filter((d) => typeof d.tag === 'string').length, 'strings only');
    t.equal(await rows.count({ repoId: 7, tag: { $lt: 1_000 } }), tagged.filter((d) => typeof d.tag === 'number' && d.tag < 1_000).length);
    t.equal(await rows.count({ repoId: 7, tag: { $gte: null } }), tagged.filter((d) => d.tag === null || d.tag === undefined).length, '$gte null: null and missing');
  });

  await t.test('not over a multikey field: the answer is still right', async (t) => {
    // labels [x, x + 10]: {$gt: 3, $lt: 12} matches [4, 14] by one element each side; a range over the keys would not.
    const filter = { repoId: 9, labels: { $gt: 3, $lt: 12 } };
    const want = scan((d) => d.repoId === 9 && d.labels!.some((l) => l > 3) && d.labels!.some((l) => l < 12));
    t.equal(await rows.count(filter), want.length);
    t.same((await rows.find(filter, { sort: { id: -1 } })).map((d) => d.id), want.map((d) => d.id));
  });

  await t.test('writes move rows in and out of a range', async (t) => {
    await rows.updateMany({ repoId: 4, id: { $lt: 5_000 } }, { $set: { isClosed: true } });
    for (const d of docs) if (d.repoId === 4 && d.id < 5_000) d.isClosed = true;
    await rows.deleteMany({ repoId: 6, id: { $gt: 10_000 } });
    const left = docs.filter((d) => !(d.repoId === 6 && d.id > 10_000));
    const want = left.filter((d) => !d.isClosed && d.id < 12_000).sort(byIdDesc);
    t.equal(await rows.count({ isClosed: false, id: { $lt: 12_000 } }), want.length);
    t.same((await rows.find({ isClosed: false, id: { $lt: 12_000 } }, { sort: { id: -1 }, skip: 100, limit: 5 })).map((d) => d.id), want.slice(100, 105).map((d) => d.id));
  });
});
