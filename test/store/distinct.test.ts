// distinctNumbers: the `$in` dedupe check against a Set, on random lists.
import t from 'tap';
import { distinctNumbers } from '../../core/store/embedded/distinct.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The answer a Set gives: numbers only (NaN excluded), no two SameValueZero-equal. */
function expected(values: unknown[]): boolean {
  return values.every((v) => typeof v === 'number' && !Number.isNaN(v)) && new Set(values).size === values.length;
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
  let distinct = 0;
  for (let round = 0; round < 4000; round++) {
    const n = Math.floor(random() * (round % 10 === 0 ? 3000 : 80));
    const pool = pools[round % pools.length]!;
    const values: unknown[] = Array.from({ length: n }, pool);
    if (round % 7 === 0 && n > 1) values[Math.floor(random() * n)] = values[Math.floor(random() * n)];
    if (round % 13 === 0 && n > 0) values[Math.floor(random() * n)] = [NaN, '5', null, true][round % 4];
    const want = expected(values);
    if (distinctNumbers(values) !== want) {
      t.fail(`round ${round}: ${JSON.stringify(values.slice(0, 20))}… expected ${want}`);
      break;
    }
    checked++;
    if (want) distinct++;
  }
  t.equal(checked, 4000, `4,000 lists answered as a Set would (${distinct} of them distinct)`);
});

t.test('edge cases', async (t) => {
  t.equal(distinctNumbers([]), true, 'an empty list');
  t.equal(distinctNumbers([7]), true, 'one value');
  t.equal(distinctNumbers([0, -0]), false, '0 and -0 are one key');
  t.equal(distinctNumbers([NaN]), false, 'NaN goes to the Set');
  t.equal(distinctNumbers([1, '1']), false, 'a string goes to the Set');
  t.equal(distinctNumbers([3, 1, 2, 3]), false, 'a repeat');
  // After a long list grew the table, short lists still answer right (stale slots belong to older calls).
  t.equal(distinctNumbers(Array.from({ length: 10_000 }, (_, i) => i * 3)), true, 'a long distinct list');
  t.equal(distinctNumbers([9, 3]), true, 'a short one after it');
  t.equal(distinctNumbers([3, 9, 3]), false, 'and a repeat after it');
  t.equal(distinctNumbers(Array.from({ length: 70_000 }, (_, i) => i)), false, 'past the limit: the Set decides');
});
