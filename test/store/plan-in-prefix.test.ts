// The embedded store's planner: an `$in` on the first field of a compound index, with one-valued equalities on the
// next fields, is one prefix range per value — counts are the ranges' sizes (no document read), finds read only those
// ranges. Issue search counts the caller's granted repositories' open issues this way (`{repoId: {$in}, isClosed}`
// over `{repoId, isClosed, isPull, id}`); before, the store walked every open issue checking the `$in`.
import t from 'tap';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

t.test('$in on a compound index\'s first field', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection({
    name: 'issues',
    indexes: [{ fields: { id: 1 }, unique: true }, { fields: { repoId: 1, isClosed: 1, isPull: 1, id: -1 } }, { fields: { isClosed: 1, id: -1 } }],
  });
  const issues = store.collection('issues');
  const n = 20_000;
  const docs = Array.from({ length: n }, (_, i) => ({ id: i + 1, repoId: i % 500, isClosed: i % 3 === 0, isPull: i % 7 === 0 }));
  await issues.insertMany(docs);
  const ids = [3, 17, 17, 250, 499, 9999];
  const expected = (f: (d: (typeof docs)[number]) => boolean) => docs.filter((d) => ids.includes(d.repoId) && f(d));

  const plan = await issues.explain({ repoId: { $in: ids }, isClosed: false });
  t.equal(plan.index, 'repoId_1_isClosed_1_isPull_1_id_-1', `the compound index serves it (${plan.index})`);
  t.equal(plan.returned, expected((d) => !d.isClosed).length);
  t.equal(plan.examined, plan.returned, `only the ranges are read (${plan.examined})`);
  t.equal(await issues.count({ repoId: { $in: ids }, isClosed: false }), expected((d) => !d.isClosed).length, 'count: open');
  t.equal(await issues.count({ repoId: { $in: ids }, isClosed: true, isPull: false }), expected((d) => d.isClosed && !d.isPull).length, 'count: closed issues');
  t.equal(await issues.count({ repoId: { $in: ids } }), expected(() => true).length, 'count: the first field alone');
  t.equal(await issues.count({ repoId: { $in: [] }, isClosed: false }), 0, 'an empty $in');
  t.equal(await issues.count({ repoId: { $in: [12345] }, isClosed: false }), 0, 'values without rows');

  // With a condition outside the prefix: the ranges, then the check per row.
  const filtered = await issues.find({ repoId: { $in: ids }, isClosed: false, id: { $gt: 10_000 } }, { sort: { id: -1 } });
  t.same(filtered.map((d) => d.id), expected((d) => !d.isClosed && d.id > 10_000).map((d) => d.id).sort((a, b) => b - a), 'find with a residual, sorted');
  t.equal(await issues.count({ repoId: { $in: ids }, isClosed: false, id: { $gt: 10_000 } }), filtered.length, 'count with a residual');
  const page = await issues.find({ repoId: { $in: ids }, isClosed: false }, { sort: { id: -1 }, skip: 5, limit: 10 });
  t.same(page.map((d) => d.id), expected((d) => !d.isClosed).map((d) => d.id).sort((a, b) => b - a).slice(5, 15), 'a sorted page');

  // Writes move rows between ranges.
  await issues.updateMany({ repoId: 17 }, { $set: { isClosed: true } });
  for (const d of docs) if (d.repoId === 17) d.isClosed = true;
  t.equal(await issues.count({ repoId: { $in: ids }, isClosed: false }), expected((d) => !d.isClosed).length, 'after an update');
  await issues.deleteMany({ repoId: 250 });
  const left = docs.filter((d) => d.repoId !== 250);
  t.equal(await issues.count({ repoId: { $in: ids }, isClosed: false }), left.filter((d) => ids.includes(d.repoId) && !d.isClosed).length, 'after a delete');
});
