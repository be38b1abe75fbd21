// plugins/lib/top-n.ts: the first n items of a key order (ties by id, same direction) must be exactly the first n of
// a full sort — for any n (none, fewer than all, all, more than all), either direction, keys with many ties, and both
// of its ways (a heap when few are wanted, one sort when most are), each over packed places (integer keys and ids of
// spans that multiply within 2^53) and over compared keys (fractional keys, or spans too wide to pack).
import t from 'tap';
import { prng } from '../../bench/dataset.js';
import { topPositions } from '../../plugins/lib/top-n.js';

interface Item { id: number; key: number }

/** The first `n` items through `topPositions` (keys and ids gathered as its callers do). */
function topN<T>(items: readonly T[], key: (item: T) => number, id: (item: T) => number, desc: boolean, n: number): T[] {
  const keys = Float64Array.from(items, key);
  const ids = Float64Array.from(items, id);
  return Array.from(topPositions(keys, ids, items.length, desc, n), (at) => items[at]!);
}

function reference(items: Item[], desc: boolean, n: number): number[] {
  const dir = desc ? -1 : 1;
  return [...items].sort((a, b) => ((a.key - b.key) || (a.id - b.id)) * dir).slice(0, Math.max(0, n)).map((x) => x.id);
}

t.test('agrees with a full sort on random inputs', async (t) => {
  let checked = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const r = prng(seed);
    const m = Math.floor(r() * 300);
    // Keys from a narrow range (many ties), a wide one, one too wide to pack, negative ones or fractional ones; ids
    // distinct, in no order, small or far apart.
    const kind = Math.floor(r() * 5);
    const spread = [5, 1e12, 1e15, 40, 1e6][kind]!;
    const key = () => (kind === 3 ? Math.floor(r() * spread) - 20 : kind === 4 ? r() * spread : Math.floor(r() * spread));
    const idStep = r() < 0.2 ? 1e6 : 1;
    const ids = Array.from({ length: m }, (_, i) => (i + 1) * idStep).sort(() => r() - 0.5);
    const items = ids.map((id) => ({ id, key: key() }));
    const before = JSON.stringify(items);
    for (const desc of [false, true]) {
      for (const n of [0, 1, 2, Math.floor(m / 8), Math.floor(m / 4) + 1, Math.floor(m / 2), m - 1, m, m + 5]) {
        const got = topN(items, (x) => x.key, (x) => x.id, desc, n).map((x) => x.id);
        const want = reference(items, desc, n);
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          t.fail(`seed ${seed}, m ${m}, n ${n}, desc ${desc}: ${JSON.stringify(got.slice(0, 10))} ≠ ${JSON.stringify(want.slice(0, 10))}`);
          return;
        }
        checked++;
      }
    }
    t.equal(JSON.stringify(items), before, `seed ${seed}: the input is left as it was`);
  }
  t.ok(checked > 7000, `${checked} comparisons made`);
});

t.test('packed and compared ways give the same order at their border', async (t) => {
  // Keys spanning 2^33 with ids spanning 2^20 fit in 2^53; one more id bit does not (the compared way).
  for (const idMax of [2 ** 20, 2 ** 21]) {
    const items: Item[] = [];
    for (let i = 0; i < 200; i++) items.push({ id: i === 0 ? idMax : i + 1, key: (i % 7) * 2 ** 30 });
    items.push({ id: 1, key: 2 ** 33 - 1 });
    for (const desc of [false, true]) {
      for (const n of [3, 150]) {
        t.same(topN(items, (x) => x.key, (x) => x.id, desc, n).map((x) => x.id), reference(items, desc, n), `ids up to ${idMax}, desc ${desc}, n ${n}`);
      }
    }
  }
});

t.test('hand-picked: ties resolved by id in the order\'s direction', async (t) => {
  const items: Item[] = [{ id: 5, key: 1 }, { id: 2, key: 1 }, { id: 9, key: 0 }, { id: 1, key: 3 }, { id: 7, key: 1 },
    { id: 3, key: 2 }, { id: 4, key: 2 }, { id: 8, key: 0 }, { id: 6, key: 5 }, { id: 10, key: 4 }, { id: 11, key: 1 }, { id: 12, key: 9 }];
  const ids = (desc: boolean, n: number) => topN(items, (x) => x.key, (x) => x.id, desc, n).map((x) => x.id);
  t.same(ids(false, 2), [8, 9], 'ascending: key 0 first, ids ascending (the heap way: 2 of 12)');
  t.same(ids(false, 5), [8, 9, 2, 5, 7], 'ascending across a tie group (the sort way: 5 of 12)');
  t.same(ids(true, 2), [12, 6], 'descending');
  t.same(ids(true, 8), [12, 6, 10, 1, 4, 3, 11, 7], 'descending: ties by id descending');
  t.same(ids(false, 0), []);
  t.same(topN([] as Item[], (x) => x.key, (x) => x.id, false, 3), []);
});
