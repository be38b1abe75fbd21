// The first `n` items of a numeric order (a key, ties by id; ascending or descending) without sorting them all.
//
// Why: a sorted search page with a few hundred to a few thousand matches (too many to be cheap, too few for a walk of
// the whole kept order) sorted every match to keep 10–150 of them — a comparator call per comparison, ~80% of such a
// request's index time (1,222 matches: ~160 µs sorting, ~45 collecting). Keeping the best `n` in a binary heap reads
// each match once and touches the heap only for those that beat its worst.
//
// When keys and ids are integers whose spans multiply to at most 2^53 (the repository index's sort keys: seconds,
// sizes, counters, ids), each item's place in the order is one number, `key × idSpan + id` (both from their least):
// the heap and the final sort then compare plain numbers, and the final sort is the typed array's own (no comparator
// call per comparison). Measured on a search's 323 matches keeping 120: ~40 µs with a comparator, see RESULTS.md.

/** Spans whose product stays an exact integer in a double. */
const EXACT = 2 ** 53;

/**
 * The `n` items first in the order of `key` (ties by `id`, both in the same direction), in that order.
 * `items` is not changed; ids are distinct.
 */
export function topN<T>(items: readonly T[], key: (item: T) => number, id: (item: T) => number, desc: boolean, n: number): T[] {
  const m = items.length;
  if (n <= 0 || m === 0) return [];
  const keys = new Float64Array(m);
  const ids = new Float64Array(m);
  let keyMin = Infinity;
  let keyMax = -Infinity;
  let idMin = Infinity;
  let idMax = -Infinity;
  let integral = true;
  for (let i = 0; i < m; i++) {
    const k = key(items[i]!);
    const d = id(items[i]!);
    keys[i] = k;
    ids[i] = d;
    if (k < keyMin) keyMin = k;
    if (k > keyMax) keyMax = k;
    if (d < idMin) idMin = d;
    if (d > idMax) idMax = d;
    if (integral && !(Number.isInteger(k) && Number.isInteger(d))) integral = false;
  }
  if (integral && (keyMax - keyMin + 1) * (idMax - idMin + 1) <= EXACT) {
    const picked = packedTopN(items, keys, ids, desc, n, keyMin, keyMax, idMin, idMax);
    if (picked) return picked;
  }
  return comparedTopN(items, keys, ids, desc, n);
}

/**
 * `topN` over packed places (see the head of the file): ascending places are the asked order either way (a descending
 * order packs `max - key` and `max - id`). Null when two items share a place (ids not distinct).
 */
function packedTopN<T>(items: readonly T[], keys: Float64Array, ids: Float64Array, desc: boolean, n: number,
  keyMin: number, keyMax: number, idMin: number, idMax: number): T[] | null {
  const m = items.length;
  const idSpan = idMax - idMin + 1;
  const places = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    places[i] = desc ? (keyMax - keys[i]!) * idSpan + (idMax - ids[i]!) : (keys[i]! - keyMin) * idSpan + (ids[i]! - idMin);
  }
  const count = Math.min(n, m);
  let best: Float64Array;
  if (n * 4 >= m) {
    best = places.slice().sort().subarray(0, count);
  } else {
    // A max-heap of the `count` smallest places so far: its root is the worst of them.
    const heap = new Float64Array(count);
    let size = 0;
    for (let i = 0; i < m; i++) {
      const x = places[i]!;
      if (size < count) {
        let j = size++;
        while (j > 0) {
          const p = (j - 1) >> 1;
          if (heap[p]! >= x) break;
          heap[j] = heap[p]!;
          j = p;
        }
        heap[j] = x;
      } else if (x < heap[0]!) {
        let j = 0;
        for (;;) {
          const l = 2 * j + 1;
          if (l >= size) break;
          const r = l + 1;
          const c = r < size && heap[r]! > heap[l]! ? r : l;
          if (heap[c]! <= x) break;
          heap[j] = heap[c]!;
          j = c;
        }
        heap[j] = x;
      }
    }
    best = heap.sort();
  }
  // The items at the kept places (at most the worst kept one), put where their place sorts.
  const worst = best[count - 1]!;
  const at = new Map<number, number>();
  for (let i = 0; i < count; i++) at.set(best[i]!, i);
  if (at.size !== count) return null;
  const out = new Array<T>(count);
  let found = 0;
  for (let i = 0; i < m; i++) {
    if (places[i]! > worst) continue;
    const slot = at.get(places[i]!);
    if (slot === undefined) continue;
    if (out[slot] !== undefined) return null;
    out[slot] = items[i]!;
    found++;
  }
  return found === count ? out : null;
}

/** `topN` comparing keys, then ids (any finite numbers). */
function comparedTopN<T>(items: readonly T[], keys: Float64Array, ids: Float64Array, desc: boolean, n: number): T[] {
  const m = items.length;
  const dir = desc ? -1 : 1;
  /** Item `a` against item `b` in the asked order (negative: `a` first). Keys and ids are finite numbers. */
  const byOrder = (a: number, b: number): number => ((keys[a]! - keys[b]!) || (ids[a]! - ids[b]!)) * dir;
  const before = (a: number, b: number): boolean => byOrder(a, b) < 0;
  const pick = (order: ArrayLike<number>, count: number): T[] => {
    const out = new Array<T>(count);
    for (let i = 0; i < count; i++) out[i] = items[order[i]!]!;
    return out;
  };
  if (n * 4 >= m) {
    // Most of them are wanted: one sort of indexes.
    const all = new Uint32Array(m);
    for (let i = 0; i < m; i++) all[i] = i;
    all.sort(byOrder);
    return pick(all, Math.min(n, m));
  }
  // A heap of the best `n` so far whose root is the worst of them (the one a better item replaces).
  const heap = new Uint32Array(n);
  let size = 0;
  const siftDown = (from: number): void => {
    let i = from;
    const x = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      // The child that comes later in the order (the worse one) moves up.
      const c = r < size && before(heap[l]!, heap[r]!) ? r : l;
      if (!before(x, heap[c]!)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = x;
  };
  for (let i = 0; i < m; i++) {
    if (size < n) {
      // Sift up: the new item rises while it comes later than its parent.
      let j = size++;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (!before(heap[p]!, i)) break;
        heap[j] = heap[p]!;
        j = p;
      }
      heap[j] = i;
    } else if (before(i, heap[0]!)) {
      heap[0] = i;
      siftDown(0);
    }
  }
  heap.sort(byOrder);
  return pick(heap, size);
}
