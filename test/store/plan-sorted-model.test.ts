// Sorted windows against a model, over compound indexes: random documents (numbers, strings, null and missing values
// in the sorted fields, several documents per owner value), random `$in` and equality filters with and without a
// residual, both sort directions, random skips and limits. Whatever the planner picks (a covered or checked walk, an
// `$in`'s merged ranges, an access and a window), the store must return the window the model gives: the filter's
// matches (the store's own matcher, checked against mingo elsewhere) ordered by the sort (`sortWindow`, idem). Ties
// are unspecified, so the windows are compared by their sort keys and checked to hold matches only, each once.
import t from 'tap';
import type { Doc, Filter } from '../../core/store/port.js';
import { compileFilter } from '../../core/store/embedded/filter.js';
import { compileSort, sortWindow } from '../../core/store/embedded/query.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';
import { prng } from '../../bench/dataset.js';

const SEED = 20261206;
const NAMES: unknown[] = ['a', 'b', 'b', 'c', 'd', 'e', 'ab', 'B', '', 1, 2, 2.5, -1, null];

function randomDoc(r: () => number, id: number): Doc {
  const doc: Doc = { id, owner: 1 + Math.floor(r() * 12), flag: r() < 0.5 };
  if (r() < 0.92) doc.name = NAMES[Math.floor(r() * NAMES.length)];
  if (r() < 0.9) doc.stars = Math.floor(r() * 6);
  return doc;
}

function randomFilter(r: () => number): Filter {
  const owners = Array.from({ length: 1 + Math.floor(r() * 5) }, () => 1 + Math.floor(r() * 14));
  const filter: Filter = { owner: r() < 0.85 ? { $in: owners } : owners[0] };
  if (r() < 0.4) filter.flag = r() < 0.5;
  if (r() < 0.25) filter.stars = { $gte: Math.floor(r() * 4) };
  if (r() < 0.1) filter.name = { $in: ['b', 2, null] };
  return filter;
}

const SORTS: Array<Record<string, 1 | -1>> = [{ name: 1 }, { name: -1 }, { stars: -1 }, { stars: 1 }, { name: 1, stars: -1 }, { id: -1 }];

t.test('sorted windows over compound indexes agree with the model', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection({
    name: 'items',
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { owner: 1 } },
      { fields: { name: 1 } },
      { fields: { owner: 1, name: 1 } },
      { fields: { owner: 1, flag: 1, stars: -1 } },
      { fields: { owner: 1, name: 1, stars: -1 } },
    ],
  });
  const items = store.collection('items');
  const r = prng(SEED);
  const docs = Array.from({ length: 600 }, (_, i) => randomDoc(r, i + 1));
  await items.insertMany(structuredClone(docs));
  let merged = 0;
  let failures = 0;
  for (let k = 0; k < 400 && failures < 5; k++) {
    const filter = randomFilter(r);
    const sort = SORTS[Math.floor(r() * SORTS.length)]!;
    const skip = r() < 0.5 ? 0 : Math.floor(r() * 40);
    const limit = 1 + Math.floor(r() * 25);
    const match = compileFilter(filter);
    const fields = compileSort(sort)!;
    const expected = sortWindow(docs.filter((d) => match(d)), fields, skip, limit);
    const got = await items.find(filter, { sort, skip, limit });
    const keys = (list: Doc[]) => list.map((d) => JSON.stringify(Object.keys(sort).map((f) => d[f] ?? null)));
    const label = `case ${k} (seed ${SEED}): ${JSON.stringify(filter)} sort ${JSON.stringify(sort)} skip ${skip} limit ${limit}`;
    const ok = JSON.stringify(keys(got)) === JSON.stringify(keys(expected))
      && got.every((d) => match(d))
      && new Set(got.map((d) => d.id)).size === got.length;
    if (!ok) {
      failures++;
      t.same(keys(got), keys(expected), label);
    }
    // The page and the whole count at once: the same page, and every match counted once whatever served it.
    const both = await items.findAndCount(filter, { sort, skip, limit });
    const total = docs.filter((d) => match(d)).length;
    if (JSON.stringify(both.docs.map((d) => d.id)) !== JSON.stringify(got.map((d) => d.id)) || both.total !== total) {
      failures++;
      t.same([both.docs.map((d) => d.id), both.total], [got.map((d) => d.id), total], `findAndCount ${label}`);
    }
    const plan = await items.explain(filter, { sort, skip, limit });
    if (Array.isArray((filter.owner as { $in?: unknown[] })?.$in) && plan.index?.startsWith('owner_1_')) merged++;
  }
  t.equal(failures, 0, '400 random sorted windows agree with the model, and findAndCount with them and the count');
  t.ok(merged > 20, `many of them were served by a compound index on the $in (${merged})`);
});
