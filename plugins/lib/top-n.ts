// The first `n` items of a numeric order (a key, ties by id; ascending or descending) without sorting them all.
//
// Why: a sorted search page with a few hundred to a few thousand matches (too many to be cheap, too few for a walk of
// the whole kept order) sorted every match to keep 10–150 of them — a comparator call per comparison, ~80% of such a
// request's index time (1,222 matches: ~160 µs sorting, ~45 collecting). Keeping the best `n` in a binary heap reads
// each match once and touches the heap only for those that beat its worst.

/**
 * The `n` items first in the order of `key` (ties by `id`, both in the same direction), in that order.
 * `items` is not changed.
 */
export function topN<T>(items: readonly T[], key: (item: T) => number, id: (item: T) => number, desc: boolean, n: number): T[] {
  const m = items.length;
  if (n <= 0 || m === 0) return [];
  const keys = new Float64Array(m);
  const ids = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    keys[i] = key(items[i]!);
    ids[i] = id(items[i]!);
  }
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
