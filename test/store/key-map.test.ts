// The single-field index's key map: the same answers as a Map for every kind of scalar key, whichever of its two
// homes (array slot or Map) a key lands in, as keys come, go and come back.
import t from 'tap';
import { KeyMap } from '../../core/store/embedded/key-map.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

t.test('KeyMap answers as a Map does, through sets, overwrites and deletes', async (t) => {
  const random = rng(99);
  const pool: unknown[] = [
    0, -0, 1, 2, 7, 1023, 1024, 1025, 5000, 2 ** 30 - 1, 2 ** 30, 2 ** 31, 4294967295, -1, -5, 1.5, NaN, Infinity,
    '0', '1', '', 'abc', true, false, null,
  ];
  // Ids growing from 1, as documents arrive: they fill the array.
  for (let i = 1; i <= 3000; i++) pool.push(i);
  // A far id that first lands in the Map and moves to the array once the ids reach it.
  pool.push(3500);
  const map = new KeyMap<string>();
  const ref = new Map<unknown, string>();
  for (let step = 0; step < 40_000; step++) {
    const key = step < 3000 ? step + 1 : pool[Math.floor(random() * pool.length)];
    const r = random();
    if (step < 3000 || r < 0.55) {
      const v = `v${step}`;
      map.set(key, v);
      ref.set(key, v);
    } else {
      map.delete(key);
      ref.delete(key);
    }
    if (step === 10) {
      map.set(3500, 'early');
      ref.set(3500, 'early');
    }
  }
  let wrong = 0;
  for (const key of pool) if (map.get(key) !== ref.get(key)) wrong++;
  t.equal(wrong, 0, `every one of ${pool.length} keys answers as the Map does`);
  const keys = map.keyList();
  t.equal(keys.length, ref.size, 'each key listed once');
  t.same(new Set(keys), new Set(ref.keys()), 'the same keys');
  const leading = keys.slice(0, keys.length - map.sparseSize);
  t.ok(leading.every((k, i) => typeof k === 'number' && (i === 0 || k > (leading[i - 1] as number))), 'the array\'s integers first, ascending');
  t.equal(map.get(-0), ref.get(0), '-0 and 0 are one key, as in a Map');
  t.equal(map.get('1'), ref.get('1'), 'a string stays apart from the number');
});

t.test('KeyMap: an overwritten and a deleted key, in either home', async (t) => {
  const map = new KeyMap<number>();
  map.set(5, 1);
  map.set(10_000, 2); // far past the array's end: the Map
  map.set('5', 3);
  t.equal(map.get(5), 1);
  t.equal(map.get(10_000), 2);
  t.equal(map.get('5'), 3);
  map.set(5, 4);
  map.delete(10_000);
  t.equal(map.get(5), 4, 'overwritten in place');
  t.equal(map.get(10_000), undefined, 'deleted from the Map');
  map.delete(5);
  t.equal(map.get(5), undefined, 'deleted from the array');
  t.same(map.keyList(), ['5']);
  map.set(5, 6);
  t.equal(map.get(5), 6, 'and back');
});
