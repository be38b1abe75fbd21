// The bounded cache of plugins/lib/lru.ts: its bound, which entry goes (second chance), and that a hit leaves no
// garbage in V8's old generation (the reason it exists).
import t from 'tap';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Lru } from '../../plugins/lib/lru.js';

t.test('bounded, and the oldest entry not used since goes first', async (t) => {
  const lru = new Lru<string, number>(3);
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('c', 3);
  t.equal(lru.get('a'), 1, 'a used');
  lru.set('d', 4); // full: a is used (moved back, unmarked), b is not: b goes
  t.equal(lru.size, 3);
  t.equal(lru.get('b'), undefined, 'the oldest unused entry was dropped');
  t.same([...lru.values()], [3, 1, 4], 'oldest first: c, then a (given its second chance), then d');
  lru.set('e', 5); // c is the oldest and unused
  t.notOk(lru.has('c'));
  t.same([...lru.values()], [1, 4, 5]);
});

t.test('when every entry was used, each gets its second chance and the oldest still goes', async (t) => {
  const lru = new Lru<number, string>(4);
  for (let i = 0; i < 4; i++) lru.set(i, `v${i}`);
  for (let i = 0; i < 4; i++) lru.get(i);
  lru.set(4, 'v4');
  t.same([...lru.values()], ['v1', 'v2', 'v3', 'v4'], '0 went after all four were unmarked');
  lru.set(5, 'v5');
  t.same([...lru.values()], ['v2', 'v3', 'v4', 'v5'], 'the marks were cleared: plain insertion order again');
});

t.test('replacing, deleting, clearing', async (t) => {
  const lru = new Lru<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('a', 10); // replaced: counts as used
  lru.set('c', 3);
  t.same([...lru.values()], [10, 3], 'b went, a stayed with its new value');
  t.equal(lru.delete('a'), true);
  t.equal(lru.delete('a'), false);
  t.equal(lru.size, 1);
  lru.clear();
  t.equal(lru.size, 0);
  t.throws(() => new Lru(0), RangeError);
});

t.test('a hit adds nothing to the old generation', async (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
  for (const size of [1, 3, 1000]) {
    const lru = new Lru<string, { n: number }>(1000);
    const keys = Array.from({ length: size }, (_, i) => `query ${i}`);
    for (const k of keys) lru.set(k, { n: k.length });
    gc();
    gc(); // the cache and its Map's table are now in the old generation
    const before = oldSpace();
    let sum = 0;
    for (let i = 0; i < 200_000; i++) sum += lru.get(keys[i % size]!)!.n;
    const grown = oldSpace() - before;
    // Deleting and re-adding each hit's key grew the old space by 11–30 MB here (V8 rehashes an old Map's table into
    // a new old-generation table); marking an entry grows it by nothing but what the test itself allocates.
    t.ok(grown < 1_000_000, `${size} entries: 200,000 hits grew the old space by ${grown} bytes`);
    t.ok(sum > 0);
  }
});
