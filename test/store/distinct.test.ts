// uniqueNumbers: the `$in` dedupe against a Set, on random lists.
import t from 'tap';
import { uniqueNumbers } from '../../core/store/embedded/distinct.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** What a Set gives: null for a non-number (or NaN), else the first occurrences in order (SameValueZero). */
function expected(values: unknown[]): unknown[] | null {
  if (!values.every((v) => typeof v === 'number' && !Number.isNaN(v))) return null;
  return [...new Set(values)];
}

t.test('agrees with a Set on random lists of every kind of number', async (t) => {
  const random = rng(5);
  const pools: Array<() => unknown> = [
    () => 1 + Math.floor(random() * 100_000), // ids
    () => Math.floor(random() * 64) - 32, // small, negative, zero
    () => (random() < 0.5 ? 0 : -0),
    () => random() * 1e6, // fractions
    () => (random() < 0.5 ? 2 ** 31 + Math.floor(random() * 10) : -(2 ** 53) + Math.floor(random() * 10)), // beyond int32
    () => [Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2][Math.floor(random() * 5)],
  ];
  let checked = 0;
  let kept = 0;
  let deduped = 0;
  for (let round = 0; round < 4000; round++) {
    const n = Math.floor(random() * (round % 10 === 0 ? 3000 : 80));
    const pool = pools[round % pools.length]!;
    const values: unknown[] = Array.from({ length: n }, pool);
    if (round % 7 === 0 && n > 1) values[Math.floor(random() * n)] = values[Math.floor(random() * n)];
    if (round % 13 === 0 && n > 0) values[Math.floor(random() * n)] = [NaN, '5', null, true][round % 4];
    const want = expected(values);
    const got = uniqueNumbers(values);
    // Compared with ===, so -0 and 0 are one value here, as in the Set.
    const same = want === null ? got === null : got !== null && got.length === want.length && got.every((v, i) => v === want[i]);
    if (!same) {
      t.fail(`round ${round}: ${JSON.stringify(values.slice(0, 20))}… expected ${JSON.stringify(want?.slice(0, 20))}`);
      break;
    }
    if (got === values) kept++;
    else if (got !== null) deduped++;
    checked++;
  }
  t.equal(checked, 4000, `4,000 lists deduped as a Set does (${kept} kept as they were, ${deduped} deduped)`);
  t.ok(kept > 100 && deduped > 100, 'both kinds were met');
});

t.test('edge cases', async (t) => {
  const list = [4, 9, 2];
  t.equal(uniqueNumbers(list), list, 'a distinct list is handed back as it is');
  t.same(uniqueNumbers([]), [], 'an empty list');
  t.same(uniqueNumbers([3, 1, 3, 2, 1]), [3, 1, 2], 'repeats dropped, first occurrences in order');
  t.equal(uniqueNumbers([0, -0])!.length, 1, '0 and -0 are one key');
  t.equal(uniqueNumbers([NaN]), null, 'NaN goes to the Set');
  t.equal(uniqueNumbers([1, '1']), null, 'a string goes to the Set');
  // After a long list grew the table, short lists still answer right (stale slots belong to older calls).
  t.equal(uniqueNumbers(Array.from({ length: 10_000 }, (_, i) => i * 3))!.length, 10_000, 'a long distinct list');
  t.same(uniqueNumbers([9, 3]), [9, 3], 'a short one after it');
  t.same(uniqueNumbers([3, 9, 3]), [3, 9], 'and a repeat after it');
  t.equal(uniqueNumbers(Array.from({ length: 70_000 }, (_, i) => i)), null, 'past the limit: the Set decides');
});
