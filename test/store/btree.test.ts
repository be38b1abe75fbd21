// The embedded adapter's counted B+tree and ordered indexes checked against a sorted array.
import t, { type Test } from 'tap';
import { asPosting, BTree } from '../../core/store/embedded/btree.js';
import { ColumnCache, compareKey, OrderedIndex, type IndexDefinition } from '../../core/store/embedded/indexes.js';
import { idOf, withId, type Stored } from '../../core/store/embedded/stored.js';
import { isDuplicateKeyError } from '../../core/store/port.js';

/** A small deterministic PRNG so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

let ids = 0;
const doc = (fields: Record<string, unknown>): Stored => withId({ ...fields }, `id${String(ids++).padStart(8, '0')}`);

interface Entry {
  key: number;
  doc: Stored;
}

/** The reference: entries sorted by key, then by `_id` (the order of a posting). */
function sortedEntries(entries: Entry[]): Entry[] {
  return [...entries].sort((a, b) => a.key - b.key || (idOf(a.doc) < idOf(b.doc) ? -1 : idOf(a.doc) > idOf(b.doc) ? 1 : 0));
}

/** Keys descending, each key's documents still in `_id` order (what a descending walk yields). */
function descending(entries: Entry[]): Entry[] {
  const asc = sortedEntries(entries);
  const out: Entry[] = [];
  for (let i = asc.length; i > 0; ) {
    let j = i - 1;
    while (j > 0 && asc[j - 1]!.key === asc[i - 1]!.key) j--;
    out.push(...asc.slice(j, i));
    i = j;
  }
  return out;
}

function walked(tree: BTree<number>, dir: 1 | -1, rank: number, n: number): Stored[] {
  const out: Stored[] = [];
  tree.walk(dir, rank, n, (d) => {
    out.push(d);
    return false;
  });
  return out;
}

t.test('BTree: inserts, removals, swaps, ranks and walks match a sorted array', async (t) => {
  const random = rng(7);
  const compare = (a: number, b: number): number => a - b;
  // Key spaces: most keys shared (postings everywhere), a few shared (leaves that turn all-singleton and back), none
  // shared (every leaf all-singleton: ranks and locates read positions, no entry).
  for (const [space, build] of [500, 20_000, 2 ** 40].flatMap((n) => [[n, false], [n, true]] as const)) {
    const keyOf = (spread: number): number => Math.floor(random() * space * spread);
    let entries: Entry[] = [];
    const seed = Array.from({ length: 3000 }, () => ({ key: keyOf(1), doc: doc({}) }));
    let tree: BTree<number>;
    if (build) {
      const asc = sortedEntries(seed);
      const keys: number[] = [];
      const vals: Stored[][] = [];
      for (const e of asc) {
        if (keys.length && keys[keys.length - 1] === e.key) vals[vals.length - 1]!.push(e.doc);
        else {
          keys.push(e.key);
          vals.push([e.doc]);
        }
      }
      // As the indexes build: a key with one document holds it inline.
      tree = BTree.build(compare, keys, vals.map((v) => (v.length === 1 ? v[0]! : v)));
    } else {
      tree = new BTree<number>(compare);
      for (const e of seed) tree.insert(e.key, e.doc);
    }
    entries = [...seed];
    for (let round = 0; round < 6000; round++) {
      const r = random();
      if (r < 0.45 || entries.length === 0) {
        const e = { key: keyOf(1.2), doc: doc({}) };
        tree.insert(e.key, e.doc);
        entries.push(e);
      } else if (r < 0.9) {
        const at = Math.floor(random() * entries.length);
        const e = entries[at]!;
        if (!tree.remove(e.key, e.doc).removed) t.fail(`remove ${e.key}`);
        entries.splice(at, 1);
      } else {
        const at = Math.floor(random() * entries.length);
        const e = entries[at]!;
        const twin = withId({ twin: true }, idOf(e.doc));
        if (!tree.swap(e.key, e.doc, twin)) t.fail('swap');
        entries[at] = { key: e.key, doc: twin };
      }
      if (round % 500 === 0 && !tree.countsAgree()) t.fail(`counts after round ${round} (key space ${space})`);
    }
    const asc = sortedEntries(entries);
    const what = `${build ? 'bulk built' : 'inserted'}, key space ${space}`;
    t.ok(tree.countsAgree(), `every node's counts agree with what lies below it (${what})`);
    t.equal(tree.size, entries.length, `size (${what})`);
    t.same(walked(tree, 1, 0, Infinity), asc.map((e) => e.doc), 'ascending walk');
    t.same(walked(tree, -1, 0, Infinity), descending(entries).map((e) => e.doc), 'descending walk');
    let checks = 0;
    for (let i = 0; i < 200; i++) {
      // Half the probes at held keys (ranks inside postings and singleton runs), half anywhere around them.
      const key = i % 2 === 0 && entries.length ? entries[Math.floor(random() * entries.length)]!.key : keyOf(1.25) - Math.floor(space / 50);
      const lt = asc.filter((e) => e.key < key).length;
      const le = asc.filter((e) => e.key <= key).length;
      if (tree.rank((k) => compare(k, key), false) !== lt || tree.rank((k) => compare(k, key), true) !== le) {
        t.fail(`rank of ${key}`);
        break;
      }
      // Both bounds of a boundary at once: a point, and a band of keys as wide as a few to thousands of entries
      // (the bounds part at a leaf, or high up in the tree).
      const width = [0, 1, 3, 40, 700][i % 5]!;
      const band = (k: number) => (k < key ? -1 : k > key + width ? 1 : 0);
      const bandRanks = [lt, asc.filter((e) => e.key <= key + width).length];
      if (JSON.stringify(tree.rankRange(band)) !== JSON.stringify(bandRanks)) {
        t.fail(`rankRange of [${key}, ${key + width}]: ${JSON.stringify(tree.rankRange(band))} against ${JSON.stringify(bandRanks)}`);
        break;
      }
      const rank = Math.floor(random() * (entries.length + 5));
      const n = Math.floor(random() * 40);
      const want = asc.slice(rank, rank + n).map((e) => e.doc);
      const wantDesc = descending(entries).slice(rank, rank + n).map((e) => e.doc);
      if (JSON.stringify(walked(tree, 1, rank, n).map(idOf)) !== JSON.stringify(want.map(idOf))) t.fail(`walk from ${rank}`);
      else if (JSON.stringify(walked(tree, -1, rank, n).map(idOf)) !== JSON.stringify(wantDesc.map(idOf))) t.fail(`walk back from ${rank}`);
      else checks++;
      const entry = tree.get(key);
      const posting = entry === undefined ? [] : asPosting(entry);
      const expected = asc.filter((e) => e.key === key).map((e) => e.doc);
      if (posting.length !== expected.length || posting.some((d, j) => d !== expected[j])) t.fail(`get ${key}`);
      if (expected.length === 1 && entry !== expected[0]) t.fail(`a key with one document holds it inline (${key})`);
      if (tree.getBy((k) => compare(k, key)) !== entry) t.fail(`getBy ${key} finds what get finds`);
    }
    t.equal(checks, 200, `200 random ranks and windows (${what})`);
    // Empty it completely: the tree shrinks back to an empty leaf.
    for (const e of entries) tree.remove(e.key, e.doc);
    t.ok(tree.countsAgree(), 'counts agree when emptied');
    t.equal(tree.size, 0, 'empty after removing everything');
    t.same(walked(tree, 1, 0, 10), [], 'nothing to walk');
    tree.insert(1, doc({}));
    t.equal(tree.size, 1, 'usable again');
  }
});

t.test('a key holds its one document inline, a posting from the second on, and back', async (t) => {
  const tree = new BTree<number>((a, b) => a - b);
  const [a, b, c] = [doc({ n: 1 }), doc({ n: 2 }), doc({ n: 3 })];
  tree.insert(7, b);
  t.equal(tree.get(7), b, 'one document: the document itself');
  t.equal(tree.insert(7, b).posting, b, 'adding it again changes nothing');
  const grown = tree.insert(7, a).posting;
  t.ok(Array.isArray(grown), 'two: a posting');
  t.same((grown as Stored[]).map(idOf), [a, b].map(idOf).sort(), 'in _id order');
  tree.insert(7, c);
  t.equal(tree.size, 3);
  const copy = withId({ n: 22 }, idOf(b));
  t.ok(tree.swap(7, b, copy), 'a swap inside a posting');
  t.equal(tree.remove(7, a).entry !== null, true);
  const left = tree.remove(7, c);
  t.equal(left.entry, copy, 'a posting left with one document becomes it');
  t.equal(tree.get(7), copy);
  const back = withId({ n: 2 }, idOf(b));
  t.equal(tree.swap(7, copy, back), back, 'a swap of a singleton replaces it');
  t.equal(tree.swap(7, copy, back), null, 'not there: nothing swapped');
  t.same(tree.remove(7, back), { removed: true, emptied: true, entry: null }, 'the last one takes the key with it');
  t.equal(tree.size, 0);
});

t.test('compareKey: MongoDB type order, null and missing alike', async (t) => {
  const ordered = [null, -1, 0, 2.5, '', 'B', 'a', { a: 1 }, [1], false, true];
  for (let i = 0; i < ordered.length - 1; i++) t.ok(compareKey(ordered[i], ordered[i + 1]) < 0, `${JSON.stringify(ordered[i])} < ${JSON.stringify(ordered[i + 1])}`);
  t.equal(compareKey(null, undefined), 0);
  t.equal(compareKey(1, '1') < 0, true, 'numbers before strings');
});

t.test('OrderedIndex: compound keys in declared order, bulk build equals inserts, uniqueness at build', async (t) => {
  const random = rng(11);
  const docs = Array.from({ length: 2000 }, (_, i) => doc({ uid: Math.floor(random() * 30), id: i + 1, flag: random() < 0.5 }));
  const def = { fields: ['uid', 'id'], dirs: [1, -1] as Array<1 | -1>, unique: true, sparse: false };
  const built = OrderedIndex.build(def, docs, 'rows');
  const inserted = new OrderedIndex(def);
  for (const d of [...docs].reverse()) inserted.add(d, inserted.keysOf(d));
  const all = (index: OrderedIndex): Stored[] => {
    const out: Stored[] = [];
    index.walk(1, 0, index.entries, (d) => {
      out.push(d);
      return false;
    });
    return out;
  };
  const expected = [...docs].sort((a, b) => (a.uid as number) - (b.uid as number) || (b.id as number) - (a.id as number));
  t.same(all(built).map((d) => d.id), expected.map((d) => d.id), 'uid ascending, then id descending');
  t.same(all(inserted).map((d) => d.id), expected.map((d) => d.id), 'the same when inserted one by one');
  const [start, end] = built.prefixRange([7]);
  t.equal(end - start, docs.filter((d) => d.uid === 7).length, 'a prefix range counts the prefix');
  t.same(asPosting(built.lookupTuple([7, expected.find((d) => d.uid === 7)!.id])!).length, 1, 'a full key is a point lookup');

  const dup = [doc({ a: 1, b: 2 }), doc({ a: 1, b: 3 }), doc({ a: 1, b: 2 })];
  const err = (() => {
    try {
      OrderedIndex.build({ fields: ['a', 'b'], dirs: [1, 1], unique: true, sparse: false }, dup, 'pairs');
      return null;
    } catch (e) {
      return e;
    }
  })();
  t.ok(isDuplicateKeyError(err), 'a unique clash at build is a DuplicateKeyError');
  t.match((err as Error).message, /pairs on a,b \(key \[1,2\]\)/, 'naming the collection, fields and key');

  const tags = OrderedIndex.build({ fields: ['tags'], dirs: [1], unique: false, sparse: false }, [doc({ tags: ['x', 'y', 'x'] }), doc({ tags: [] }), doc({})], 'tagged');
  t.ok(tags.multikey, 'an array makes the index multikey');
  t.equal(asPosting(tags.lookup('x')!).length, 1, 'a repeated element indexes the document once');
  t.equal(tags.entries, 4, 'x, y, and the empty array and the missing field under null');
});

interface ChangeOptions {
  /** A draw below this adds a document (as does a live set under `minLive`), below `removeBelow` removes one. */
  addBelow: number;
  removeBelow: number;
  minLive: number;
  /** A new document to add. */
  added: () => Stored;
  /** New key fields for a new version that moves (given the old version's `_id`). */
  moved: () => Stored;
  step: number;
}

/**
 * One random change of `index` over the live set: a document added, one removed, or a new version of one (half the
 * time with the same keys: swapped in place; else removed and added). Returns whether a version was swapped.
 */
function randomChange(index: OrderedIndex, live: Map<string, Stored>, random: () => number, o: ChangeOptions): boolean {
  const ids = [...live.keys()];
  const r = random();
  if (r < o.addBelow || ids.length < o.minLive) {
    const d = o.added();
    index.add(d, index.keysOf(d));
    live.set(idOf(d), d);
    return false;
  }
  if (r < o.removeBelow) {
    const d = live.get(ids[Math.floor(random() * ids.length)]!)!;
    index.remove(d, index.keysOf(d));
    live.delete(idOf(d));
    return false;
  }
  const old = live.get(ids[Math.floor(random() * ids.length)]!)!;
  const fresh = random() < 0.5 ? withId({ ...old, other: o.step }, idOf(old)) : withId({ ...o.moved(), other: o.step }, idOf(old));
  const before = index.keysOf(old);
  const after = index.keysOf(fresh);
  const swapped = index.sameKeys(before, after);
  if (swapped) index.swap(before, old, fresh);
  else {
    index.remove(old, before);
    index.add(fresh, after);
  }
  live.set(idOf(fresh), fresh);
  return swapped;
}

/**
 * An index of 1,500 made documents, then 6,000 random changes (a quarter adds, a quarter removals, the rest updates);
 * returns it with the live set and the same set built afresh, after checking that enough updates kept their keys.
 */
function churned(t: Test, def: IndexDefinition, make: (id: string) => Stored, random: () => number) {
  const live = new Map<string, Stored>();
  for (let i = 0; i < 1500; i++) {
    const d = make(`k${String(i).padStart(6, '0')}`);
    live.set(idOf(d), d);
  }
  const index = OrderedIndex.build(def, [...live.values()], 'rows');
  let next = 1500;
  let swaps = 0;
  for (let step = 0; step < 6000; step++) {
    const added = (): Stored => make(`k${String(next++).padStart(6, '0')}`);
    if (randomChange(index, live, random, { addBelow: 0.25, removeBelow: 0.5, minLive: 50, added, moved: () => make('x'), step })) swaps++;
  }
  t.ok(swaps > 500, `same-key updates swapped in place (${swaps})`);
  const rebuilt = OrderedIndex.build(def, [...live.values()].sort((a, b) => (idOf(a) < idOf(b) ? -1 : 1)), 'rows');
  return { index, live, rebuilt };
}

/** Every document of an index in its order (or backwards), as `_id:other`. */
function walkAll(ix: OrderedIndex, dir: 1 | -1 = 1): string[] {
  const out: string[] = [];
  ix.walk(dir, 0, ix.entries, (d) => {
    out.push(`${idOf(d)}:${String(d.other)}`);
    return false;
  });
  return out;
}

t.test('OrderedIndex: documents standing for their own compound keys stay exact through every kind of change', async (t) => {
  // Fields: a small group, an array field (0, 1 or 2 values: 2 means several keys, tuples), a field sometimes missing.
  const random = rng(23);
  const def = { fields: ['g', 'tags', 'n'], dirs: [1, 1, -1] as Array<1 | -1>, unique: false, sparse: false };
  const make = (id: string): Stored => {
    const r = random();
    const tags = r < 0.3 ? [] : r < 0.7 ? [Math.floor(random() * 3)] : [Math.floor(random() * 3), 3 + Math.floor(random() * 2)];
    const fields: Record<string, unknown> = { g: Math.floor(random() * 6), tags };
    if (random() < 0.8) fields.n = Math.floor(random() * 40);
    return withId(fields, id);
  };
  const { index, live, rebuilt } = churned(t, def, make, random);
  t.ok(index.docKeys, 'top-level fields: documents are keys');
  t.same(walkAll(index), walkAll(rebuilt), 'the same documents in the same order as an index built from the live set');
  const count = (ix: OrderedIndex, prefix: unknown[]): number => {
    const [start, end] = ix.prefixRange(prefix);
    return end - start;
  };
  let ranges = 0;
  for (let g = 0; g < 6; g++) {
    for (let tag = 0; tag < 5; tag++) {
      for (const n of [null, 0, 7, 39]) {
        if (count(index, [g, tag, n]) !== count(rebuilt, [g, tag, n])) t.fail(`range g=${g} tag=${tag} n=${n}`);
        ranges++;
      }
      if (count(index, [g, tag]) !== count(rebuilt, [g, tag])) t.fail(`range g=${g} tag=${tag}`);
    }
  }
  t.pass(`${ranges} prefix ranges count as the rebuilt index's`);
  const current = new Set(live.values());
  const held = index.heldKeys();
  const stale = held.filter((k) => !Array.isArray(k) && !current.has(k as Stored));
  t.equal(stale.length, 0, 'no key, separators included, holds a version that left the index');
  const inline = held.filter((k) => !Array.isArray(k)).length;
  t.ok(inline > held.length / 5, `documents are keys (${inline} of ${held.length} keys held)`);
  t.ok(held.some((k) => Array.isArray(k)), 'a document with several keys (and a key its document left) is a tuple');
});

t.test('OrderedIndex: a single-field index stays exact through every kind of change', async (t) => {
  // `g`: a few values held by many documents (postings), many held by one (inline), now and then an array (several
  // keys) or missing. Lookups go through the key map, which must follow the tree's entry through every change.
  const random = rng(41);
  const def = { fields: ['g'], dirs: [1] as Array<1 | -1>, unique: false, sparse: false };
  const make = (id: string): Stored => {
    const r = random();
    const fields: Record<string, unknown> = {};
    if (r < 0.5) fields.g = Math.floor(random() * 4);
    else if (r < 0.85) fields.g = `s${Math.floor(random() * 5000)}`;
    else if (r < 0.95) fields.g = [Math.floor(random() * 4), `s${Math.floor(random() * 5000)}`];
    return withId(fields, id);
  };
  const { index, live, rebuilt } = churned(t, def, make, random);
  t.same(walkAll(index), walkAll(rebuilt), 'the same documents in the same order as an index built from the live set');
  t.same(walkAll(index, -1), walkAll(rebuilt, -1), 'and backwards');
  const current = new Set(live.values());
  let looked = 0;
  for (const key of [0, 1, 2, 3, null, ...Array.from({ length: 200 }, (_, i) => `s${i * 25}`)]) {
    const mine = index.lookup(key as never);
    const theirs = rebuilt.lookup(key as never);
    const ids = (e: unknown): string[] => (e === undefined ? [] : Array.isArray(e) ? e : [e]).map((d) => `${idOf(d as Stored)}:${String((d as Stored).other)}`);
    if (JSON.stringify(ids(mine)) !== JSON.stringify(ids(theirs))) t.fail(`lookup ${String(key)}`);
    const held = mine === undefined ? [] : Array.isArray(mine) ? mine : [mine];
    if (held.some((d) => !current.has(d as Stored))) t.fail(`lookup ${String(key)} holds a version that left the index`);
    looked++;
  }
  t.equal(looked, 205, 'every lookup holds the current versions, as the rebuilt index does');
  t.ok(index.lookup(0 as never) !== undefined && Array.isArray(index.lookup(0 as never)), 'a shared value is a posting');
});

t.test('OrderedIndex: leaves whose keys are their documents hold one array, through every kind of change', async (t) => {
  // `{g, n}` with n mostly distinct: keys are documents, a rare duplicate makes a posting (and splits its leaf's
  // arrays); with `unique` no leaf ever needs two.
  for (const unique of [true, false]) {
    const random = rng(unique ? 41 : 43);
    const def = { fields: ['g', 'n'], dirs: [1, -1] as Array<1 | -1>, unique, sparse: false };
    let serial = 0;
    const make = (id: string): Stored => withId({ g: Math.floor(random() * 4), n: unique ? serial++ : Math.floor(random() * 200000) }, id);
    const live = new Map<string, Stored>();
    for (let i = 0; i < 3000; i++) {
      const d = make(`s${String(i).padStart(6, '0')}`);
      live.set(idOf(d), d);
    }
    const index = OrderedIndex.build(def, [...live.values()], 'rows');
    const built = index.leafStats();
    if (unique) t.equal(built.shared, built.leaves, `every built leaf holds one array (${built.leaves})`);
    else t.ok(built.shared > built.leaves / 2, `most built leaves hold one array (${built.shared} of ${built.leaves})`);
    let next = 3000;
    for (let step = 0; step < 8000; step++) {
      const added = (): Stored => make(`s${String(next++).padStart(6, '0')}`);
      randomChange(index, live, random, { addBelow: 0.35, removeBelow: 0.6, minLive: 100, added, moved: () => make('x'), step });
    }
    const rebuilt = OrderedIndex.build(def, [...live.values()].sort((a, b) => (idOf(a) < idOf(b) ? -1 : 1)), 'rows');
    t.same(walkAll(index, 1), walkAll(rebuilt, 1), `${unique ? 'unique' : 'rare duplicates'}: the documents in the order of an index built from the live set`);
    t.same(walkAll(index, -1), walkAll(rebuilt, -1), 'and backwards');
    for (const d of [...live.values()].slice(0, 300)) {
      const [start, end] = index.prefixRange([d.g, d.n]);
      const [s2, e2] = rebuilt.prefixRange([d.g, d.n]);
      if (end - start !== e2 - s2 || end - start < 1) t.fail(`range of ${String(d.g)},${String(d.n)}`);
    }
    const current = new Set(live.values());
    t.equal(index.heldKeys().filter((k) => !Array.isArray(k) && !current.has(k as Stored)).length, 0, 'no key holds a version that left');
    const after = index.leafStats();
    if (unique) t.equal(after.shared, after.leaves, `after inserts, splits, removals and swaps every leaf still holds one array (${after.leaves})`);
    else t.ok(after.shared < after.leaves, `a posting gave its leaf a key array of its own (${after.shared} of ${after.leaves} still one)`);
  }
});

/** The `_id`s of an index's documents in its order. */
function walk(ix: OrderedIndex): string[] {
  const out: string[] = [];
  ix.walk(1, 0, ix.entries, (d) => {
    out.push(idOf(d));
    return false;
  });
  return out;
}

t.test('OrderedIndex: a bulk build orders every kind of first field as inserts one by one do', async (t) => {
  const random = rng(31);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  const firsts: Record<string, () => unknown> = {
    'small integers': () => Math.floor(random() * 50),
    'large integers': () => Math.floor(random() * 1e9),
    'negative and fractional numbers': () => pick([-3, -1, 0, 0.5, 2, 7.25]),
    'zeros of both signs and extreme doubles': () => pick([-0, 0, 1e-9, -1e300, 1e300, 2 ** 53, -(2 ** 53), 4 * 400 + 1024, 4 * 400 + 1025]),
    strings: () => pick(['a', 'b', 'B', 'ab', '']),
    'booleans, null and missing': () => pick([true, false, null, undefined]),
    'mixed types with objects': () => pick([1, 'x', null, { o: 1 }, { o: 2 }, true]),
    'arrays (several keys)': () => pick([[1, 2], [2], [], 3, [3, 3]]),
    'arrays of one value or none': () => pick([[2], [], 3, [0], null]),
    'strings and integers': () => pick(['2026-01-02', '2025-12-31', 7, 0]),
  };
  for (const [kind, first] of Object.entries(firsts)) {
    for (const dir of [1, -1] as Array<1 | -1>) {
      const docs = Array.from({ length: 400 }, (_, i) => {
        const fields: Record<string, unknown> = { b: Math.floor(random() * 5), id: i };
        const v = first();
        if (v !== undefined) fields.a = v;
        return doc(fields);
      });
      const def = { fields: ['a', 'b', 'id'], dirs: [dir, -1, 1] as Array<1 | -1>, unique: false, sparse: false };
      const built = OrderedIndex.build(def, docs, 'rows');
      // As a collection's load builds it: columns read once for all its indexes (a second index shares them).
      const columns = new ColumnCache(docs);
      OrderedIndex.build({ ...def, fields: ['b', 'a'], dirs: [1, 1] }, docs, 'rows', columns);
      const fromColumns = OrderedIndex.build(def, docs, 'rows', columns);
      // Columns read together in one pass before any build (as a load does), a sparse and a nested index's fields left out.
      const prefetched = new ColumnCache(docs);
      prefetched.prefetch([def, { ...def, fields: ['id', 'c'], sparse: true }, { ...def, fields: ['b', 'x.y'] }]);
      const fromPrefetched = OrderedIndex.build(def, docs, 'rows', prefetched);
      const inserted = new OrderedIndex(def);
      for (const d of [...docs].reverse()) inserted.add(d, inserted.keysOf(d));
      t.equal(built.entries, inserted.entries, `${kind}, first field ${dir === 1 ? 'ascending' : 'descending'}: entries`);
      t.same(walk(built), walk(inserted), `${kind}, first field ${dir === 1 ? 'ascending' : 'descending'}: order`);
      t.same(walk(fromColumns), walk(inserted), `${kind}, first field ${dir === 1 ? 'ascending' : 'descending'}: order, from shared columns`);
      t.same(walk(fromPrefetched), walk(inserted), `${kind}, first field ${dir === 1 ? 'ascending' : 'descending'}: order, from prefetched columns`);
      t.equal(fromColumns.multikey, inserted.multikey, `${kind}: multikey as inserts find it`);
      t.equal(fromPrefetched.multikey, inserted.multikey, `${kind}: multikey as inserts find it, prefetched`);
    }
  }
});

t.test('OrderedIndex: a bulk build without a field of distinct values groups equal keys as inserts do', async (t) => {
  const random = rng(37);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  const values: Record<string, () => unknown> = {
    'few small integers': () => Math.floor(random() * 4),
    'timestamps, some equal, some null': () => pick(['2025-01-02T00:00:00Z', '2025-01-01T00:00:00Z', '2024-12-31T23:59:59Z', null, undefined]),
    'strings, numbers, booleans and null': () => pick(['b', 'a', 'a', 3, 1.5, -2, true, false, null]),
    // Ranked by sorting positions (mostly in order), not by hashing: equal neighbours, a few out of place, some null.
    'timestamps in order, some repeated, a few out of place': (() => {
      let at = 0;
      return () => {
        const x = random();
        if (x < 0.3) return `2025-01-01T00:${String(at).padStart(4, '0')}Z`;
        if (x < 0.33) return `2025-01-01T00:${String(Math.floor(random() * 600)).padStart(4, '0')}Z`;
        if (x < 0.35) return null;
        return `2025-01-01T00:${String(++at).padStart(4, '0')}Z`;
      };
    })(),
    'strings in order only': (() => {
      let at = 0;
      return () => `s${String(Math.floor(at++ / 2)).padStart(4, '0')}`;
    })(),
    // Nine fields, every other row a copy of the one before.
    'large integers in every field': () => Math.floor(random() * 1000) * 1e6,
  };
  for (const [kind, value] of Object.entries(values)) {
    const wide = kind === 'large integers in every field';
    const fields = wide ? ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] : ['a', 'b'];
    for (const first of [1, -1] as Array<1 | -1>) {
      let last: Record<string, unknown> = {};
      const docs = Array.from({ length: 300 }, (_, i) => {
        // Wide keys: every other row repeats the one before (equal keys to group).
        const row: Record<string, unknown> = wide && i % 2 === 1 ? { ...last, id: i } : { id: i };
        last = row;
        if (wide && i % 2 === 1) return doc(row);
        for (const f of fields) {
          const v = f === 'b' && !wide ? Math.floor(random() * 3) : value();
          if (v !== undefined) row[f] = v;
        }
        return doc(row);
      });
      const def = { fields, dirs: fields.map((_, i) => (i === 0 ? first : i % 2 ? -1 : 1)) as Array<1 | -1>, unique: false, sparse: false };
      const columns = new ColumnCache(docs);
      const fromColumns = OrderedIndex.build(def, docs, 'rows', columns);
      const built = OrderedIndex.build(def, docs, 'rows');
      const inserted = new OrderedIndex(def);
      for (const d of [...docs].reverse()) inserted.add(d, inserted.keysOf(d));
      const label = `${kind}, first field ${first === 1 ? 'ascending' : 'descending'}`;
      t.same(walk(fromColumns), walk(inserted), `${label}: order, from shared columns`);
      t.same(walk(built), walk(inserted), `${label}: order`);
      // Every document's full key finds exactly the documents with that key (equal keys grouped in one posting).
      let grouped = 0;
      for (const d of docs) {
        const key = fields.map((f) => d[f] ?? null);
        const same = docs.filter((o) => fields.every((f) => compareKey(o[f] ?? null, d[f] ?? null) === 0)).length;
        const found = fromColumns.lookupTuple(key);
        if (found !== undefined && asPosting(found).length === same) grouped++;
      }
      t.equal(grouped, docs.length, `${label}: each full key holds every document with it`);
    }
  }
  const dup = [doc({ a: 'x', b: 2 }), doc({ a: 'y', b: 3 }), doc({ a: 'x', b: 2 })];
  const clash = (() => {
    try {
      OrderedIndex.build({ fields: ['a', 'b'], dirs: [1, 1], unique: true, sparse: false }, dup, 'pairs', new ColumnCache(dup));
      return null;
    } catch (e) {
      return e;
    }
  })();
  t.ok(isDuplicateKeyError(clash), 'a unique clash between string keys built from columns is a DuplicateKeyError');
});

t.test('OrderedIndex: a single-field bulk build equals inserts (scalars, arrays, sub-documents, missing), uniqueness at build', async (t) => {
  const random = rng(23);
  const value = (): unknown => {
    const k = random();
    if (k < 0.45) return Math.floor(random() * 40);
    if (k < 0.6) return `s${Math.floor(random() * 10)}`;
    if (k < 0.75) return Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * 12));
    if (k < 0.85) return { id: Math.floor(random() * 5) };
    if (k < 0.92) return null;
    return undefined;
  };
  const docs = Array.from({ length: 3000 }, (_, i) => {
    const v = value();
    return doc(v === undefined ? { n: i } : { v, n: i });
  });
  const def = { fields: ['v'], dirs: [1] as Array<1 | -1>, unique: false, sparse: false };
  const built = OrderedIndex.build(def, docs, 'rows');
  const inserted = new OrderedIndex(def);
  for (const d of [...docs].reverse()) inserted.add(d, inserted.keysOf(d));
  const walked = (index: OrderedIndex): number[] => {
    const out: number[] = [];
    index.walk(1, 0, index.entries, (d) => {
      out.push(d.n as number);
      return false;
    });
    return out;
  };
  t.equal(built.entries, inserted.entries, 'as many entries');
  t.same(walked(built), walked(inserted), 'the same walk: keys in order, each key\'s documents in _id order');
  for (const key of [0, 7, 11, 39, 's3', null, { id: 2 }]) {
    const ids = (e: ReturnType<OrderedIndex['lookup']>) => (e === undefined ? [] : asPosting(e).map((d) => d.n));
    t.same(ids(built.lookup(key as never)), ids(inserted.lookup(key as never)), `the documents under ${JSON.stringify(key)}`);
  }
  const seven = asPosting(built.lookup(7)!).map((d) => d.n as number);
  const expected = docs.filter((d) => d.v === 7 || (Array.isArray(d.v) && d.v.includes(7))).map((d) => d.n as number);
  t.same(seven, expected, 'a key held by scalars and array elements alike, each document once');

  // Numbers only (the map's keys then sorted as numbers): small integers in its array, the rest in its Map.
  for (const [kind, number] of [
    ['small integers', () => Math.floor(random() * 500)],
    ['integers near and far, negative and fractional', () => [Math.floor(random() * 50), 1e6 + Math.floor(random() * 50), -Math.floor(random() * 50), random() * 100, 2 ** 31 + 1][Math.floor(random() * 5)]!],
  ] as Array<[string, () => number]>) {
    const rows = Array.from({ length: 2000 }, (_, i) => doc({ v: number(), n: i }));
    const bulk = OrderedIndex.build(def, rows, 'rows');
    const oneByOne = new OrderedIndex(def);
    for (const d of rows) oneByOne.add(d, oneByOne.keysOf(d));
    t.same(walked(bulk), walked(oneByOne), `numbers only (${kind}): the same walk`);
  }

  const uniqueDef = { fields: ['v'], dirs: [1] as Array<1 | -1>, unique: true, sparse: true };
  t.doesNotThrow(() => OrderedIndex.build(uniqueDef, [doc({ v: [1, 1] }), doc({ v: 2 }), doc({})], 'u'), 'a value repeated in one document is no clash');
  for (const pair of [[doc({ v: 1 }), doc({ v: 1 })], [doc({ v: 1 }), doc({ v: [2, 1] })], [doc({ v: { a: 1 } }), doc({ v: { a: 1 } })], [doc({ v: 5 }), doc({ v: 6 }), doc({ v: 5 })]]) {
    let err: unknown = null;
    try {
      OrderedIndex.build(uniqueDef, pair, 'u');
    } catch (e) {
      err = e;
    }
    t.ok(isDuplicateKeyError(err), `a clash: ${JSON.stringify(pair.map((d) => d.v))}`);
  }
});
