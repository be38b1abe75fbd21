// The first `n` of a numeric order (a key, ties by id; ascending or descending) without sorting them all.
//
// Why: a sorted search page with a few hundred to a few thousand matches (too many to be cheap, too few for a walk of
// the whole kept order) sorted every match to keep 10–150 of them — a comparator call per comparison, ~80% of such a
// request's index time (1,222 matches: ~160 µs sorting, ~45 collecting). Keeping the best `n` in a binary heap reads
// each match once and touches the heap only for those that beat its worst.
//
// When keys and ids are integers whose spans multiply to at most 2^53 (the repository index's sort keys: seconds,
// sizes, counters, ids), each item's place in the order is one number, `key × idSpan + id` (both from their least):
// the heap and the final sort then compare plain numbers, and the final sort is the typed array's own (no comparator
// call per comparison). Profiled on a sorted search keeping 120 of 323 matches, the comparator way was ~41 µs of the
// request's ~190 (bench/RESULTS.md, fifteenth session).

/** Spans whose product stays an exact integer in a double. */
const EXACT = 2 ** 53;

/**
 * Buffers reused from call to call (grow-only; the functions here run to completion, so one set serves every
 * caller): a page of a few thousand matches no longer allocates tens of kilobytes for the collector per request.
 */
const buffers: Float64Array[] = [new Float64Array(256), new Float64Array(256)];

/** The first `m` places of buffer `k` (contents undefined). */
function scratch(k: number, m: number): Float64Array {
  let b = buffers[k]!;
  if (b.length < m) buffers[k] = b = new Float64Array(Math.max(m, b.length * 2));
  return b.subarray(0, m);
}

/**
 * The first `n` of the first `m` (key, id) pairs of two arrays in the order of the key, ties by id in the same
 * direction (finite numbers, ids distinct): their positions, in that order. Callers gather keys and ids straight
 * from their own records (no item objects, no calls per comparison).
 */
export function topPositions(keys: Float64Array, ids: Float64Array, m: number, desc: boolean, n: number): ArrayLike<number> {
  if (n <= 0 || m <= 0) return [];
  let keyMin = Infinity;
  let keyMax = -Infinity;
  let idMin = Infinity;
  let idMax = -Infinity;
  let integral = true;
  for (let i = 0; i < m; i++) {
    const k = keys[i]!;
    const d = ids[i]!;
    if (k < keyMin) keyMin = k;
    if (k > keyMax) keyMax = k;
    if (d < idMin) idMin = d;
    if (d > idMax) idMax = d;
    if (integral && !(Number.isInteger(k) && Number.isInteger(d))) integral = false;
  }
  if (integral && (keyMax - keyMin + 1) * (idMax - idMin + 1) <= EXACT) {
    const picked = packedPositions(keys, ids, m, desc, n, keyMin, keyMax, idMin, idMax);
    if (picked) return picked;
  }
  return comparedPositions(keys, ids, m, desc, n);
}

/**
 * `topPositions` over packed places (see the head of the file): ascending places are the asked order either way (a
 * descending order packs `max - key` and `max - id`). Null when two pairs share a place (ids not distinct).
 */
function packedPositions(keys: Float64Array, ids: Float64Array, m: number, desc: boolean, n: number,
  keyMin: number, keyMax: number, idMin: number, idMax: number): Uint32Array | null {
  const idSpan = idMax - idMin + 1;
  const places = scratch(0, m);
  for (let i = 0; i < m; i++) {
    places[i] = desc ? (keyMax - keys[i]!) * idSpan + (idMax - ids[i]!) : (keys[i]! - keyMin) * idSpan + (ids[i]! - idMin);
  }
  const count = Math.min(n, m);
  let best: Float64Array;
  if (n * 4 >= m) {
    const sorted = scratch(1, m);
    sorted.set(places);
    best = sorted.sort().subarray(0, count);
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
  // The positions of the kept places (at most the worst kept one), each put where its place sorts (a binary search
  // of the kept places: they are doubles, which a Map would hash slowly).
  const worst = best[count - 1]!;
  const out = new Uint32Array(count);
  const filled = new Uint8Array(count);
  let found = 0;
  for (let i = 0; i < m; i++) {
    const x = places[i]!;
    if (x > worst) continue;
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (best[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    // Not kept (a tie with the worst kept place: ids not distinct), or a place taken twice: no packed answer.
    if (best[lo] !== x || filled[lo] === 1) return null;
    filled[lo] = 1;
    out[lo] = i;
    found++;
  }
  return found === count ? out : null;
}

/** `topPositions` comparing keys, then ids (any finite numbers). */
function comparedPositions(keys: Float64Array, ids: Float64Array, m: number, desc: boolean, n: number): Uint32Array {
  const dir = desc ? -1 : 1;
  /** Pair `a` against pair `b` in the asked order (negative: `a` first). */
  const byOrder = (a: number, b: number): number => ((keys[a]! - keys[b]!) || (ids[a]! - ids[b]!)) * dir;
  const before = (a: number, b: number): boolean => byOrder(a, b) < 0;
  if (n * 4 >= m) {
    // Most of them are wanted: one sort of positions.
    const all = new Uint32Array(m);
    for (let i = 0; i < m; i++) all[i] = i;
    all.sort(byOrder);
    return all.subarray(0, Math.min(n, m));
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
  return heap.subarray(0, size);
}
