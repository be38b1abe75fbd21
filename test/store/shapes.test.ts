// The embedded adapter's query shapes: a filter compiled and planned once per shape must never answer a query of
// another shape, nor miss an index change.
import t from 'tap';
import { compileFilter } from '../../core/store/embedded/filter.js';
import { queryTokens, sameQuery } from '../../core/store/embedded/shape.js';
import { compileSort, sortWindow } from '../../core/store/embedded/query.js';
import { isPlainObject } from '../../core/store/documents.js';
import type { Doc, Filter, FindOptions, Projection, SortSpec } from '../../core/store/port.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

/** A small deterministic PRNG so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(random: () => number, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

/** The structure of a filter as the reference sees it: names, operators, nesting, and a value's kind. */
function structure(filter: Record<string, unknown>): unknown {
  const kind = (v: unknown): string => {
    if (v === null) return 'null';
    if (Array.isArray(v)) {
      const keys = v.every((e) => typeof e === 'string' || typeof e === 'boolean' || (typeof e === 'number' && Number.isFinite(e)));
      return keys ? (v.length === 1 ? 'one-key array' : 'key array') : 'array';
    }
    if (typeof v === 'number') return Number.isFinite(v) ? 'number' : 'non-finite';
    return typeof v;
  };
  return Object.entries(filter).map(([name, cond]) => {
    if ((name === '$and' || name === '$or') && Array.isArray(cond)) return [name, 'list', cond.map((c) => (isPlainObject(c) ? structure(c) : kind(c)))];
    if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))) return [name, 'ops', Object.entries(cond).map(([op, q]) => [op, kind(q)])];
    return [name, 'value', kind(cond)];
  });
}

/** Names chosen to collide if the key were not length-prefixed and bracketed. */
const NAMES = ['a', 'b', 'a.b', '1:a', 'a=n', 'a}', '{a', 'a(', ')', '[', ']', '$and', '$or', '$eq', '$in', '$gt', 'n', 'z', ''];
const VALUES: unknown[] = [0, 1, -2.5, NaN, Infinity, 'x', '', '1:a', true, false, null, undefined, [1], ['a', 2], [], [null], [{ a: 1 }], { a: 1 }, {}];

function randomFilter(random: () => number, depth = 0): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  const n = Math.floor(random() * 3) + (depth === 0 ? 0 : 1);
  for (let i = 0; i < n; i++) {
    const name = pick(random, NAMES);
    const r = random();
    if ((name === '$and' || name === '$or') && depth < 2) {
      filter[name] = Array.from({ length: 1 + Math.floor(random() * 2) }, () => (random() < 0.9 ? randomFilter(random, depth + 1) : pick(random, VALUES)));
    } else if (r < 0.4) {
      const ops: Record<string, unknown> = {};
      for (let j = 0; j <= Math.floor(random() * 2); j++) ops[pick(random, ['$eq', '$ne', '$in', '$nin', '$gt', '$lte', '$exists', 'b', '1:a'])] = pick(random, VALUES);
      filter[name] = ops;
    } else filter[name] = pick(random, VALUES);
  }
  return filter;
}

function randomSort(random: () => number): SortSpec | undefined {
  if (random() < 0.5) return undefined;
  const sort: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(random() * 3); i++) sort[pick(random, NAMES)] = pick(random, [1, -1, 0, '1']);
  return sort as SortSpec;
}

function randomProjection(random: () => number): Projection | undefined {
  if (random() < 0.5) return undefined;
  const projection: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(random() * 3); i++) projection[pick(random, NAMES)] = pick(random, [1, 0, true, false]);
  return projection as Projection;
}

t.test('queries have the same tokens exactly when they have the same shape', async (t) => {
  const random = rng(7);
  const byTokens = new Map<string, string>();
  const byStructure = new Map<string, string>();
  const seen: Array<{ tokens: ReturnType<typeof queryTokens>; key: string }> = [];
  let compared = 0;
  for (let i = 0; i < 20_000; i++) {
    const filter = randomFilter(random);
    const sort = randomSort(random);
    const projection = randomProjection(random);
    const values: unknown[] = [];
    const tokens = queryTokens(filter, sort, projection, values);
    const key = JSON.stringify(tokens);
    const shape = JSON.stringify([
      structure(filter),
      Object.entries(sort ?? {}).map(([p, d]) => [p, d === 1 ? 'asc' : d === -1 ? 'desc' : 'bad']),
      Object.entries(projection ?? {}).map(([p, f]) => [p, (f as unknown) === 1 || (f as unknown) === true]),
    ]);
    if (byTokens.has(key) && byTokens.get(key) !== shape) t.fail(`one shape for two structures: ${key}\n${byTokens.get(key)}\n${shape}`);
    if (byStructure.has(shape) && byStructure.get(shape) !== key) t.fail(`two shapes for one structure: ${shape}`);
    byTokens.set(key, shape);
    byStructure.set(shape, key);
    // Walking the query against earlier shapes: a match exactly for the same tokens, with the same values.
    const others = [seen[Math.floor(random() * seen.length)], seen.find((s) => s.key === key)];
    for (const other of others) {
      if (!other) continue;
      const walked: unknown[] = [];
      const same = sameQuery(other.tokens, filter, sort, projection, walked);
      if (same !== (other.key === key)) t.fail(`sameQuery ${same} for ${key} against ${other.key}`);
      if (same && JSON.stringify(walked) !== JSON.stringify(values)) t.fail(`values differ: ${key}`);
      compared++;
    }
    seen.push({ tokens, key });
  }
  t.ok(byTokens.size > 1000, `${seen.length} random queries, ${byTokens.size} distinct shapes, ${compared} walked against another`);
  const values: unknown[] = [];
  queryTokens({ a: 1, $or: [{ b: 'x' }, { c: { $in: [1, 2], $gt: null } }] }, { a: 1 }, undefined, values);
  t.same(values, [1, 'x', [1, 2], null], 'values are collected in the order the filter gives them');
});

// ---------------------------------------------------------------------------------------------- against a reference

interface Row extends Doc {
  id: number;
  a?: unknown;
  b?: unknown;
  c?: unknown;
  s?: unknown;
  tags?: unknown;
  o?: unknown;
}

function randomRow(random: () => number, id: number): Row {
  const row: Row = { id };
  if (random() < 0.9) row.a = Math.floor(random() * 8);
  if (random() < 0.8) row.b = pick(random, ['x', 'y', 'z', 3, null, true]);
  row.c = Math.floor(random() * 5);
  if (random() < 0.3) row.s = Math.floor(random() * 4);
  if (random() < 0.7) row.tags = random() < 0.5 ? [pick(random, ['p', 'q', 'r']), pick(random, ['q', 's'])] : pick(random, ['p', 'q', []]);
  if (random() < 0.6) row.o = { x: Math.floor(random() * 3), y: random() < 0.5 ? [1, 2] : 'w' };
  return row;
}

/** A filter over the rows' fields; the structure comes from `shapeSeed`, the values from `valueSeed`. */
function rowFilter(shapeSeed: number, valueSeed: number): Filter {
  const shape = rng(shapeSeed);
  const value = rng(valueSeed);
  const num = (): number => Math.floor(value() * 8);
  const condition = (field: string): unknown => {
    switch (Math.floor(shape() * 10)) {
      // Values of other kinds for one structure (null for a number, an `$in` of one or of several): other shapes.
      case 0: return value() < 0.25 ? null : field === 'b' ? pick(value, ['x', 'y', 'z']) : num();
      case 1: return { $in: Array.from({ length: 1 + Math.floor(value() * 3) }, num) };
      case 2: return { $nin: [num(), num()] };
      case 3: return { $gt: value() < 0.2 ? null : num() };
      case 4: return { $gte: num(), $lt: num() + 3 };
      case 5: return { $ne: num() };
      case 6: return { $exists: value() < 0.5 };
      case 7: return { $eq: num(), $in: [num(), num()] };
      case 8: return null;
      default: return { $lte: num() };
    }
  };
  const clause = (): Filter => {
    const f: Filter = {};
    const n = 1 + Math.floor(shape() * 2);
    for (let i = 0; i < n; i++) {
      const field = pick(shape, ['a', 'b', 'c', 's', 'tags', 'o.x', 'a']);
      f[field] = field === 'tags' ? pick(value, ['p', 'q', 'r', 's']) : condition(field);
    }
    return f;
  };
  const r = shape();
  if (r < 0.15) return { $or: [clause(), clause()] };
  if (r < 0.25) return { $and: [clause()], ...clause() };
  if (r < 0.3) return {};
  return clause();
}

const SORTS = [undefined, { id: 1 }, { id: -1 }, { a: 1, id: -1 }, { c: -1, id: 1 }, { s: 1, id: 1 }] as const;

t.test('cached shapes answer like a fresh compilation, for any values', async (t) => {
  const dir = await tempDir();
  const store = await openEmbedded(dir);
  t.teardown(async () => {
    await store.close();
    await removeDir(dir);
  });
  await store.ensureCollection({
    name: 'rows',
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { a: 1 } },
      { fields: { b: 1 } },
      { fields: { tags: 1 } },
      { fields: { 'o.x': 1 } },
      { fields: { s: 1 }, sparse: true },
      { fields: { a: 1, id: -1 } },
      { fields: { a: 1, c: 1 } },
      { fields: { c: -1, id: 1 } },
    ],
  });
  const rows = store.collection<Row>('rows');
  const random = rng(99);
  const data = Array.from({ length: 400 }, (_, i) => randomRow(random, i + 1));
  await rows.insertMany(data);
  const stored = await rows.find({});

  let queries = 0;
  for (let shapeSeed = 1; shapeSeed <= 150; shapeSeed++) {
    for (let valueSeed = 1; valueSeed <= 5; valueSeed++) {
      const filter = rowFilter(shapeSeed, valueSeed * 1000 + shapeSeed);
      const sort = SORTS[shapeSeed % SORTS.length];
      const skip = valueSeed % 3 === 0 ? 5 : 0;
      const limit = valueSeed % 2 === 0 ? 10 : 0;
      const match = compileFilter(filter);
      const matching = stored.filter((d) => match(d));
      const label = `${JSON.stringify(filter)} ${JSON.stringify({ sort, skip, limit })}`;
      if (sort) {
        const want = sortWindow(matching, compileSort(sort)!, skip, limit).map((d) => d.id);
        const got = (await rows.find(filter, { sort, skip, limit } as FindOptions)).map((d) => d.id);
        if (JSON.stringify(got) !== JSON.stringify(want)) t.same(got, want, label);
      } else {
        // Without a sort the order is the access's: compare as sets, unwindowed.
        const want = matching.map((d) => d.id).sort((x, y) => x - y);
        const got = (await rows.find(filter)).map((d) => d.id).sort((x, y) => x - y);
        if (JSON.stringify(got) !== JSON.stringify(want)) t.same(got, want, label);
      }
      const count = await rows.count(filter);
      if (count !== matching.length) t.equal(count, matching.length, `count ${label}`);
      queries++;
    }
  }
  t.pass(`${queries} queries of 150 shapes matched the reference`);
});

// ---------------------------------------------------------------------------------------------- index changes, bounds

t.test('shapes follow the indexes and the data', async (t) => {
  let dir: string;
  t.beforeEach(async () => {
    dir = await tempDir();
  });
  t.afterEach(async () => {
    await removeDir(dir);
  });

  t.test('an index declared after a shape was cached is used by that shape', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'c' });
    const c = store.collection('c');
    await c.insertMany(Array.from({ length: 200 }, (_, i) => ({ id: i + 1, x: i % 10 })));
    t.same(await c.explain({ x: 3 }), { index: null, examined: 200, returned: 20 }, 'a scan before the index');
    t.same(await c.explain({ x: 4 }, { sort: { id: -1 }, limit: 5 }), { index: null, examined: 200, returned: 5 }, 'sorted: a scan too');
    await store.ensureCollection({ name: 'c', indexes: [{ fields: { x: 1 } }, { fields: { x: 1, id: -1 } }] });
    t.same(await c.explain({ x: 5 }), { index: 'x_1', examined: 20, returned: 20 }, 'the same shape now uses the new index');
    t.same(await c.explain({ x: 4 }, { sort: { id: -1 }, limit: 5 }), { index: 'x_1_id_-1', examined: 5, returned: 5 }, 'and the sorted shape walks the new compound one');
    t.same((await c.find({ x: 4 }, { sort: { id: -1 }, limit: 3 })).map((d) => d.id), [195, 185, 175]);
    await store.close();
  });

  t.test('an index that turns multikey stops serving ordered walks of cached shapes', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'c', indexes: [{ fields: { t: 1 } }] });
    const c = store.collection('c');
    await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ id: i + 1, t: `k${String(i).padStart(2, '0')}` })));
    t.same(await c.explain({}, { sort: { t: 1 }, limit: 3 }), { index: 't_1', examined: 3, returned: 3 }, 'walked while every key is a scalar');
    await c.insertOne({ id: 51, t: ['k00', 'k25'] });
    // A walk over the index would meet document 51 twice (under k00 and k25).
    const all = (await c.find({}, { sort: { t: 1 }, skip: 1, limit: 50 })).map((d) => d.id);
    t.same(all, [51, ...Array.from({ length: 49 }, (_, i) => i + 2)], 'a document under two keys is returned once, sorted by its smallest element');
    t.equal((await c.explain({}, { sort: { t: 1 }, limit: 3 })).index, null, 'the walk is no longer planned');
    t.same((await c.find({ t: 'k25' })).map((d) => d.id), [26, 51], 'lookups still use the index');
    await store.close();
  });

  t.test('cached shapes see every write', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'repos', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { ownerId: 1, lowerName: 1 } }, { fields: { ownerId: 1 } }] });
    const repos = store.collection('repos');
    await repos.insertMany(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, ownerId: i % 3, lowerName: `r${String(i).padStart(2, '0')}`, private: false })));
    const publicOf = async (ownerId: number) => (await repos.find({ ownerId, private: false }, { sort: { lowerName: 1 }, limit: 3, projection: { id: 1 } })).map((d) => d.id);
    t.same(await publicOf(1), [2, 5, 8]);
    await repos.updateOne({ id: 5 }, { $set: { private: true } });
    t.same(await publicOf(1), [2, 8, 11], 'a repository made private leaves at once');
    t.equal(await repos.count({ ownerId: 1, private: false }), 9, 'and leaves the count');
    await repos.updateOne({ id: 5 }, { $set: { private: false } });
    await repos.deleteOne({ id: 2 });
    t.same(await publicOf(1), [5, 8, 11], 'deleted, made public again');
    await repos.updateOne({ id: 8 }, { $set: { lowerName: 'a-first' } });
    t.same(await publicOf(1), [8, 5, 11], 'renamed');
    await repos.insertOne({ id: 99, ownerId: 1, lowerName: 'a-0', private: false });
    t.same(await publicOf(1), [99, 8, 5], 'inserted');
    await store.close();
  });

  t.test('errors are not cached, and the cache is bounded', async (t) => {
    const store = await openEmbedded(dir);
    await store.ensureCollection({ name: 'c', indexes: [{ fields: { a: 1 } }] });
    const c = store.collection('c');
    await c.insertMany([{ a: 1 }, { a: 2 }, { a: [1, 3] }]);
    t.equal((await c.find({ a: { $in: [1] } })).length, 2);
    for (let i = 0; i < 2; i++) {
      await t.rejects(c.find({ a: { $in: 1 } }), /\$in needs an array/, `a malformed $in of the same field is refused (try ${i + 1})`);
      await t.rejects(c.find({ a: { $gt: {} } }), /\$gt needs/, `a range over an object is refused (try ${i + 1})`);
      await t.rejects(c.count({ a: { $gt: 1, b: 1 } }), /cannot mix/, `a mixed condition is refused (try ${i + 1})`);
      await t.rejects(c.find({ a: 1 }, { sort: { a: 2 as 1 } }), /sort direction/, `a bad sort direction is refused (try ${i + 1})`);
      await t.rejects(c.find({ a: 1 }, { projection: { a: 1, b: 0 } }), /mix inclusion/, `a mixed projection is refused (try ${i + 1})`);
    }
    t.same((await c.find({ a: { $gt: 1 } })).length, 2, 'a valid query of a refused one’s field still works');
    let counted = 0;
    for (let i = 0; i < 1500; i++) counted += await c.count({ [`f${i}`]: { $exists: false } });
    t.equal(counted, 1500 * 3, '1,500 shapes, each answered');
    const shapes = (c as unknown as { shapes: Map<string, unknown> }).shapes;
    t.ok(shapes.size <= 512, `at most 512 shapes kept (${shapes.size})`);
    t.equal((await c.find({ a: 3 })).length, 1, 'a forgotten shape is compiled again');
    await store.close();
  });
});
