// `$in` / `$nin` checked row by row (no index), hundreds of checks per query: every answer equals a Set's
// (SameValueZero), whatever the stored value: fractions next to members, strings of members, -0, negatives, large
// numbers, arrays, missing fields.
import t from 'tap';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

type Row = { n: number; v?: unknown };

/** MongoDB's `$in` for scalars and arrays of scalars: the value, or one of its elements, is in the set. */
function inSet(v: unknown, set: unknown[]): boolean {
  const has = (x: unknown) => set.some((q) => q === x || (q === 0 && x === 0));
  return has(v) || (Array.isArray(v) && v.some(has));
}

t.test('$in and $nin over scanned rows answer as a Set does', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  const values: unknown[] = [0, -0, 3, 3.5, '3', -3, 31, 32, 33, 1000, 2 ** 20, 2 ** 21, 2 ** 31, 7, '7', true, null, [3, 500], [4.5, 8], []];
  const rows: Row[] = [];
  for (let n = 0; n < 600; n++) rows.push(n % 23 === 22 ? { n } : { n, v: values[n % values.length] });
  const c = store.collection<Row>('rows');
  await c.insertMany(rows);
  const sets: unknown[][] = [
    [0, 3, 31, 32, 33, 1000, 500],
    [3, 2 ** 21],
    ['3', 7],
    [8, 2 ** 19, 2 ** 20 - 1],
    [],
  ];
  for (const set of sets) {
    const found = (await c.find({ v: { $in: set } }, { sort: { n: 1 } })).map((r) => r.n);
    t.same(found, rows.filter((r) => inSet(r.v, set)).map((r) => r.n), `$in ${JSON.stringify(set)}`);
    const left = (await c.find({ v: { $nin: set } }, { sort: { n: 1 } })).map((r) => r.n);
    t.same(left, rows.filter((r) => !inSet(r.v, set)).map((r) => r.n), `$nin ${JSON.stringify(set)}`);
  }
});
