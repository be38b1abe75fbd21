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

// A long `$in` on the compound index's first field costs a prefix range (two tree descents) per value, however few
// documents they hold; when another index's posting is small next to that — `{followerId: {$in: 500 ids},
// followingId}` where the one followed has 12 followers — the posting is read and checked instead. A short `$in`, or
// a posting too large to check, keeps the exact compound access.
t.test('a long $in on a compound index against a small posting', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection({
    name: 'follows',
    indexes: [{ fields: { id: 1 }, unique: true }, { fields: { followerId: 1, followingId: 1 }, unique: true }, { fields: { followingId: 1 } }],
  });
  const follows = store.collection('follows');
  // User 1 has 12 followers (2, 4, … 24); user 2 has 3,000 (100 … 3,099); everyone else's follows fill the index.
  const docs: Array<{ id: number; followerId: number; followingId: number }> = [];
  const add = (followerId: number, followingId: number) => docs.push({ id: docs.length + 1, followerId, followingId });
  for (let i = 1; i <= 12; i++) add(2 * i, 1);
  for (let i = 0; i < 3000; i++) add(100 + i, 2);
  for (let i = 0; i < 20_000; i++) add(5000 + i, 3 + (i % 4000));
  await follows.insertMany(docs);
  const many = Array.from({ length: 500 }, (_, i) => i * 3); // 0, 3, … 1,497
  const want = (ids: number[], followingId: number) => docs.filter((d) => ids.includes(d.followerId) && d.followingId === followingId).map((d) => d.followerId).sort((a, b) => a - b);
  const found = async (ids: number[], followingId: number) => (await follows.find({ followerId: { $in: ids }, followingId })).map((d) => d.followerId as number).sort((a, b) => a - b);

  const small = await follows.explain({ followerId: { $in: many }, followingId: 1 });
  t.equal(small.index, 'followingId_1', `500 values against a posting of 12: the posting (${small.index})`);
  t.equal(small.examined, 12, 'the 12 followers are checked, nothing else');
  t.same(await found(many, 1), want(many, 1), 'the same answer: followers among the 500');
  t.equal(await follows.count({ followerId: { $in: many }, followingId: 1 }), want(many, 1).length, 'count the same way');

  const large = await follows.explain({ followerId: { $in: many }, followingId: 2 });
  t.equal(large.index, 'followingId_1', `500 values against a posting of 3,000 (under 500 searches × 8): the posting (${large.index})`);
  t.same(await found(many, 2), want(many, 2), 'the same answer over the posting');

  const few = [2, 4, 6];
  const short = await follows.explain({ followerId: { $in: few }, followingId: 2 });
  t.equal(short.index, 'followerId_1_followingId_1', `3 values: the exact compound access at once (${short.index})`);
  t.equal(short.examined, short.returned, 'reading only the matches');
  t.same(await found(few, 1), want(few, 1));

  const huge = Array.from({ length: 100 }, (_, i) => 100 + i * 7);
  const exact = await follows.explain({ followerId: { $in: huge }, followingId: 2 });
  t.equal(exact.index, 'followerId_1_followingId_1', `100 values against a posting of 3,000 (> 800): the compound ranges (${exact.index})`);
  t.equal(exact.examined, exact.returned, 'reading only the matches');
  t.same(await found(huge, 2), want(huge, 2));
});
