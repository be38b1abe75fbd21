// The embedded adapter's in-memory query pieces checked against simple reference implementations.
import t from 'tap';
import { compareValues, compileSort, mergeRuns, sortWindow } from '../../core/store/embedded/query.js';
import type { SortSpec } from '../../core/store/port.js';

/** A small deterministic PRNG so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Doc = Record<string, unknown>;

function reference(docs: Doc[], sort: SortSpec, skip: number, limit: number): Doc[] {
  const fields = Object.entries(sort).map(([p, dir]) => ({ parts: p.split('.'), dir }));
  const keyOf = (d: Doc, parts: string[], dir: number): unknown => {
    let v: unknown = d;
    for (const p of parts) v = typeof v === 'object' && v !== null ? (v as Doc)[p] : undefined;
    if (Array.isArray(v)) {
      if (v.length === 0) return undefined;
      return [...v].sort((a, b) => compareValues(a, b) * dir)[0];
    }
    return v;
  };
  const decorated = docs.map((d, i) => ({ d, i, keys: fields.map((f) => keyOf(d, f.parts, f.dir)) }));
  decorated.sort((a, b) => {
    for (let j = 0; j < fields.length; j++) {
      const c = compareValues(a.keys[j], b.keys[j]);
      if (c !== 0) return c * fields[j]!.dir;
    }
    return a.i - b.i;
  });
  const sorted = decorated.map((x) => x.d);
  return sorted.slice(skip, limit > 0 ? skip + limit : undefined);
}

t.test('sortWindow equals a full stable sort for any window', async (t) => {
  const random = rng(20261122);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  const values: Array<() => unknown> = [
    () => Math.floor(random() * 50),
    () => Math.floor(random() * 2 ** 31),
    () => -Math.floor(random() * 50),
    () => random() * 10,
    () => pick(['a', 'b', 'B', 'ab', '', 'zz']),
    () => null,
    () => undefined,
    () => pick([true, false]),
    () => [Math.floor(random() * 20), Math.floor(random() * 20)],
    () => ({ k: Math.floor(random() * 3) }),
  ];
  let checks = 0;
  for (let round = 0; round < 300; round++) {
    const n = 1 + Math.floor(random() * 400);
    // Some rounds use only small integers (the packed fast path), others mix every type.
    const kinds = round % 2 === 0 ? [values[0]!, values[1]!] : values;
    const docs: Doc[] = Array.from({ length: n }, (_, i) => {
      const d: Doc = { i, a: pick(kinds)(), b: Math.floor(random() * 4), nested: { x: pick(kinds)() } };
      if (d.a === undefined) delete d.a;
      return d;
    });
    const sort: SortSpec = pick<SortSpec>([{ a: 1 }, { a: -1 }, { 'nested.x': 1 }, { b: 1, a: -1 }, { b: -1, 'nested.x': 1 }, { i: -1 }]);
    const skip = pick([0, 0, 1, Math.floor(random() * n), n, n + 3]);
    const limit = pick([0, 1, 5, 30, Math.floor(random() * n) + 1]);
    const got = sortWindow(docs, compileSort(sort)!, skip, limit).map((d) => d.i);
    const want = reference(docs, sort, skip, limit).map((d) => d.i);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      t.same(got, want, `round ${round}: n=${n} sort=${JSON.stringify(sort)} skip=${skip} limit=${limit}`);
      return;
    }
    checks++;
  }
  t.equal(checks, 300, '300 random windows matched the reference');
});

t.test('mergeRuns of sorted runs equals the reference over the runs laid end to end', async (t) => {
  const random = rng(20261206);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  const values: Array<() => unknown> = [
    () => Math.floor(random() * 8),
    () => pick(['a', 'b', 'B', 'ab', '', 'zz']),
    () => null,
    () => undefined,
    () => random() * 3,
    () => pick([true, false]),
  ];
  let checks = 0;
  let tiesAcrossRuns = 0;
  for (let round = 0; round < 400; round++) {
    const kinds = round % 3 === 0 ? [values[0]!] : round % 3 === 1 ? [values[1]!] : values;
    const sort: SortSpec = pick<SortSpec>([{ a: 1 }, { a: -1 }, { a: 1, b: -1 }, { b: -1, a: 1 }]);
    const fields = compileSort(sort)!;
    // Runs as a merged walk yields them: each in the sort's order (ties in position order), some empty.
    let next = 0;
    const runs = Array.from({ length: 1 + Math.floor(random() * 7) }, () => {
      const docs = Array.from({ length: Math.floor(random() * 40) }, () => {
        const d: Doc = { i: next++, a: pick(kinds)(), b: Math.floor(random() * 3) };
        if (d.a === undefined) delete d.a;
        return d;
      });
      return reference(docs, sort, 0, 0);
    });
    const all = runs.flat();
    const skip = pick([0, 0, 1, Math.floor(random() * (all.length + 1)), all.length, all.length + 2]);
    const limit = pick([1, 5, 30, Math.floor(random() * (all.length + 1)) + 1]);
    const got = mergeRuns(runs, fields, skip, limit).map((d) => d.i);
    const want = reference(all, sort, skip, limit).map((d) => d.i);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      t.same(got, want, `round ${round}: runs=${runs.map((r) => r.length).join(',')} sort=${JSON.stringify(sort)} skip=${skip} limit=${limit}`);
      return;
    }
    const firstKeys = runs.filter((r) => r.length > 0).map((r) => JSON.stringify([r[0]!.a, r[0]!.b]));
    if (new Set(firstKeys).size < firstKeys.length) tiesAcrossRuns++;
    checks++;
  }
  t.equal(checks, 400, '400 random merges matched the reference (a stable sort of the runs laid end to end)');
  t.ok(tiesAcrossRuns > 20, `runs whose heads tie occurred (${tiesAcrossRuns}): the tie order was exercised`);
});

t.test('compareValues follows MongoDB type order', async (t) => {
  const ordered = [undefined, -1, 0, 2.5, 10, '', 'A', 'a', { a: 1 }, [1], false, true];
  for (let i = 0; i < ordered.length - 1; i++) {
    t.ok(compareValues(ordered[i], ordered[i + 1]) <= 0, `${JSON.stringify(ordered[i])} sorts before ${JSON.stringify(ordered[i + 1])}`);
  }
  t.equal(compareValues(null, undefined), 0, 'null and missing sort together');
});
