// The embedded store's planner: a sorted find whose filter fixes a compound index's first field by an `$in` (and its
// next fields by one-valued equalities) while the sort continues the index — `{ownerId: {$in: owners}}` sorted by
// `lowerName` over `{ownerId, lowerName}` — reads each value's range from its start, at most up to the window's end,
// and merges them, instead of reading every match and sorting them all. `GET /user/repos` of a user in several
// organizations is this query.
import t from 'tap';
import { openEmbedded, removeDir, tempDir } from './helpers.js';
import { prng } from '../../bench/dataset.js';

type Doc = { id: number; ownerId: number; lowerName: string; private: boolean; stars: number };

t.test('a sorted window of an $in merged from its ranges', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection({
    name: 'repos',
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { ownerId: 1 } },
      { fields: { lowerName: 1 } },
      { fields: { ownerId: 1, lowerName: 1 } },
      { fields: { ownerId: 1, private: 1, stars: -1 } },
    ],
  });
  const repos = store.collection<Doc>('repos');
  const r = prng(20261206);
  // Owner o has 5·o repositories; names repeat across owners (ties between ranges) but not within one.
  const docs: Doc[] = [];
  for (let o = 1; o <= 60; o++) {
    for (let k = 0; k < 5 * o; k++) {
      docs.push({ id: docs.length + 1, ownerId: o, lowerName: `n${String(Math.floor(r() * 400)).padStart(3, '0')}-${k}`, private: r() < 0.2, stars: Math.floor(r() * 50) });
    }
  }
  await repos.insertMany(docs);
  const byName = (a: Doc, b: Doc) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : 0);
  const owners = [37, 2, 55, 2, 9, 999];

  // Covered: the ranges hold exactly the matches.
  const matches = docs.filter((d) => owners.includes(d.ownerId));
  for (const [skip, limit] of [[0, 10], [0, 1], [25, 30], [300, 50], [matches.length - 3, 10], [matches.length + 5, 10]] as const) {
    const page = await repos.find({ ownerId: { $in: owners } }, { sort: { lowerName: 1 }, skip, limit });
    const expected = [...matches].sort(byName).slice(skip, skip + limit);
    t.same(page.map((d) => d.lowerName), expected.map((d) => d.lowerName), `skip ${skip} limit ${limit}: the names in order`);
    t.ok(page.every((d) => owners.includes(d.ownerId)), 'only matches');
    t.equal(new Set(page.map((d) => d.id)).size, page.length, 'no document twice');
    const plan = await repos.explain({ ownerId: { $in: owners } }, { sort: { lowerName: 1 }, skip, limit });
    t.equal(plan.index, 'ownerId_1_lowerName_1', `the compound index serves it (${plan.index})`);
    // Four owners (37, 2, 55, 9; 999 has none): at most the window's end from each.
    t.ok(plan.examined <= 4 * (skip + limit), `at most the window's end per range (${plan.examined} of ${matches.length})`);
  }
  const down = await repos.find({ ownerId: { $in: owners } }, { sort: { lowerName: -1 }, skip: 7, limit: 20 });
  t.same(down.map((d) => d.lowerName), [...matches].sort(byName).reverse().slice(7, 27).map((d) => d.lowerName), 'descending: each range walked from its end');

  // Ties between ranges keep the $in's value order (as the candidates of an access kept theirs).
  const ties = [9, 55, 2].map((ownerId, k) => ({ id: 100_000 + k, ownerId, lowerName: 'zz-tie', private: false, stars: 0 }));
  await repos.insertMany(ties);
  docs.push(...ties);
  const three = docs.filter((d) => [9, 55, 2].includes(d.ownerId)).length;
  const last = await repos.find({ ownerId: { $in: [9, 55, 2] } }, { sort: { lowerName: 1 }, skip: three - 3, limit: 3 });
  t.same(last.map((d) => [d.lowerName, d.ownerId]), [['zz-tie', 9], ['zz-tie', 55], ['zz-tie', 2]], 'tied names: the owners in the $in\'s order');
  const lastDown = await repos.find({ ownerId: { $in: [2, 9, 55] } }, { sort: { lowerName: -1 }, limit: 3 });
  t.same(lastDown.map((d) => d.ownerId), [2, 9, 55], 'descending too');

  // Not covered: a condition outside the prefix is checked per document, each range read until it has enough.
  const visible = docs.filter((d) => owners.includes(d.ownerId) && !d.private);
  const pub = await repos.find({ ownerId: { $in: owners }, private: false }, { sort: { lowerName: 1 }, skip: 12, limit: 15 });
  t.same(pub.map((d) => d.lowerName), [...visible].sort(byName).slice(12, 27).map((d) => d.lowerName), 'with a residual: the names in order');
  t.ok(pub.every((d) => !d.private), 'the residual held');

  // Not covered, and the $in spans most documents: a walk of the sort's own index reads fewer than a merge of 60
  // ranges would (each up to the window's end of matches), so the walk serves it.
  const everyone = Array.from({ length: 60 }, (_, k) => k + 1);
  const wide = await repos.find({ ownerId: { $in: everyone }, stars: { $gte: 10 } }, { sort: { lowerName: 1 }, limit: 5 });
  t.same(wide.map((d) => d.lowerName), docs.filter((d) => d.stars >= 10).sort(byName).slice(0, 5).map((d) => d.lowerName), 'a wide $in with a residual: the names in order');
  const widePlan = await repos.explain({ ownerId: { $in: everyone }, stars: { $gte: 10 } }, { sort: { lowerName: 1 }, limit: 5 });
  t.equal(widePlan.index, 'lowerName_1', `the sort's index is walked (${widePlan.index}, ${widePlan.examined} examined)`);

  // A one-valued equality after the $in, and a sort on the field after it, descending in the index.
  const popular = await repos.find({ ownerId: { $in: owners }, private: true }, { sort: { stars: -1 }, limit: 8 });
  const hidden = docs.filter((d) => owners.includes(d.ownerId) && d.private).sort((a, b) => b.stars - a.stars);
  t.same(popular.map((d) => d.stars), hidden.slice(0, 8).map((d) => d.stars), 'stars, highest first, over {ownerId, private, stars: -1}');
  const popularPlan = await repos.explain({ ownerId: { $in: owners }, private: true }, { sort: { stars: -1 }, limit: 8 });
  t.equal(popularPlan.index, 'ownerId_1_private_1_stars_-1', `the index with the equality serves it (${popularPlan.index})`);
  t.ok(popularPlan.examined <= 4 * 8, `at most 8 per range (${popularPlan.examined})`);

  // Writes move documents between ranges and within one.
  await repos.updateMany({ ownerId: 37 }, { $set: { ownerId: 38 } });
  await repos.updateOne({ id: matches.find((d) => d.ownerId === 2)!.id }, { $set: { lowerName: 'a-first' } });
  for (const d of docs) if (d.ownerId === 37) d.ownerId = 38;
  docs.find((d) => d.id === matches.find((m) => m.ownerId === 2)!.id)!.lowerName = 'a-first';
  const after = await repos.find({ ownerId: { $in: owners } }, { sort: { lowerName: 1 }, limit: 10 });
  t.same(after.map((d) => d.lowerName), docs.filter((d) => owners.includes(d.ownerId)).sort(byName).slice(0, 10).map((d) => d.lowerName), 'after updates');
  t.equal(after[0]!.lowerName, 'a-first', 'a renamed document moved to the front');

  // Without a limit, or without a sort, the ranges are read as before (every match).
  t.equal((await repos.find({ ownerId: { $in: owners } }, { sort: { lowerName: 1 } })).length, docs.filter((d) => owners.includes(d.ownerId)).length, 'no limit: every match');
});
