// Posting lists kept in result order: a sorted array of document ids (an Int32Array that grows), ordered by a
// caller-given comparison of ids (e.g. name order with ties by id). A page is a walk that stops after `limit`
// matches, a count is the list's size, and an insert or a removal is a binary search plus one memmove.

export type IdOrder = (a: number, b: number) => number;

export class Posting {
  protected ids: Int32Array;
  protected n = 0;
  /** Changes made (each insert, push and removal): what a reader kept of the ids is current while this is unchanged. */
  changes = 0;

  constructor(private readonly order: IdOrder, capacity = 4) {
    this.ids = new Int32Array(capacity);
  }

  /** A list over `ids`, already sorted by `order` and distinct (taken over, not copied). */
  static of(order: IdOrder, ids: Int32Array): Posting {
    const posting = new Posting(order, 0);
    posting.ids = ids;
    posting.n = ids.length;
    return posting;
  }

  get size(): number {
    return this.n;
  }

  at(i: number): number {
    return this.ids[i]!;
  }

  /** The first position whose id sorts at or after `id` (by the list's order). */
  protected lowerBound(id: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order(this.ids[mid]!, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(id: number): boolean {
    const at = this.lowerBound(id);
    return at < this.n && this.ids[at] === id;
  }

  /** Inserts `id` at its place; a no-op (false) when present. */
  insert(id: number): boolean {
    const at = this.lowerBound(id);
    if (at < this.n && this.ids[at] === id) return false;
    this.insertAt(at, id);
    return true;
  }

  /** Makes room for one more id (the array doubles when full). */
  private room(): void {
    if (this.n < this.ids.length) return;
    const grown = new Int32Array(Math.max(4, this.ids.length * 2));
    grown.set(this.ids);
    this.ids = grown;
  }

  /** Puts `id` at position `at` (its place by the order). */
  protected insertAt(at: number, id: number): void {
    this.room();
    this.ids.copyWithin(at + 1, at, this.n);
    this.ids[at] = id;
    this.n++;
    this.changes++;
  }

  /** Where `id` is (by the order as it stands: ask before its sort key changes), or -1 when absent. */
  indexOf(id: number): number {
    const at = this.lowerBound(id);
    return at < this.n && this.ids[at] === id ? at : -1;
  }

  /**
   * Moves the id at position `at`, whose sort key just changed, to its new place; returns that place. Only the ids
   * between the old and the new place shift (a removal and an insert would move the whole tail twice: a megabyte
   * copy per counter change in an order of a million ids).
   */
  settle(at: number): number {
    const ids = this.ids;
    const id = ids[at]!;
    const n = this.n;
    let to = at;
    if (at + 1 < n && this.order(id, ids[at + 1]!) > 0) {
      // Later: the first position past `at + 1` whose id sorts at or after `id`, less the place `id` leaves.
      let lo = at + 2;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.order(ids[mid]!, id) < 0) lo = mid + 1;
        else hi = mid;
      }
      to = lo - 1;
      ids.copyWithin(at, at + 1, lo);
    } else if (at > 0 && this.order(ids[at - 1]!, id) > 0) {
      // Earlier: the first position before `at - 1` whose id sorts after `id`.
      let lo = 0;
      let hi = at - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.order(ids[mid]!, id) < 0) lo = mid + 1;
        else hi = mid;
      }
      to = lo;
      ids.copyWithin(lo + 1, lo, at);
    } else return at;
    ids[to] = id;
    this.changes++;
    return to;
  }

  /** Appends an id known to sort after every id present (bulk loading in order). */
  push(id: number): void {
    this.room();
    this.ids[this.n++] = id;
    this.changes++;
  }

  /** Removes `id` (which must still sort where it was inserted); false when absent. */
  remove(id: number): boolean {
    const at = this.lowerBound(id);
    if (at >= this.n || this.ids[at] !== id) return false;
    this.removeAt(at);
    return true;
  }

  protected removeAt(at: number): void {
    this.ids.copyWithin(at, at + 1, this.n);
    this.n--;
    this.changes++;
  }

  /** Removes the given ids (sorted by the list's order) in one pass from the first of them; returns how many were held. */
  removeSorted(ids: ArrayLike<number>): number {
    if (ids.length === 0) return 0;
    let w = this.lowerBound(ids[0]!);
    let j = 0;
    for (let r = w; r < this.n; r++) {
      const id = this.ids[r]!;
      while (j < ids.length && this.order(ids[j]!, id) < 0) j++;
      if (j < ids.length && ids[j] === id) j++;
      else this.ids[w++] = id;
    }
    const removed = this.n - w;
    this.n = w;
    if (removed > 0) this.changes++;
    return removed;
  }

  /** The ids in order, without a copy: valid until the next change of the posting (read it synchronously). */
  view(): Int32Array {
    return this.ids.subarray(0, this.n);
  }

  /** Gives memory back after a bulk load. */
  trim(): void {
    if (this.ids.length > this.n + 8) this.ids = this.ids.slice(0, this.n);
  }

  /** Bytes held (reporting). */
  get bytes(): number {
    return this.ids.byteLength;
  }
}

/**
 * A kept order of every id (a sort key's, ties by id) that knows whether it is also the ids' own ascending order — a
 * repository's creation time follows its id, for one. Then a walk of that order is a walk of the ids, which callers
 * holding per-id arrays read in memory order instead of through the list. It counts adjacent pairs whose ids
 * descend, kept at each insert and removal from the neighbours of the place changed.
 */
export class KeptOrder extends Posting {
  private descents = 0;

  /** Whether the order is the ids' ascending order. */
  get followsIds(): boolean {
    return this.descents === 0;
  }

  override insert(id: number): boolean {
    const at = this.lowerBound(id);
    if (at < this.n && this.ids[at] === id) return false;
    const before = at > 0 ? this.ids[at - 1]! : -Infinity;
    const after = at < this.n ? this.ids[at]! : Infinity;
    if (before > after) this.descents--;
    if (before > id) this.descents++;
    if (id > after) this.descents++;
    this.insertAt(at, id);
    return true;
  }

  override push(id: number): void {
    if (this.n > 0 && this.ids[this.n - 1]! > id) this.descents++;
    super.push(id);
  }

  override remove(id: number): boolean {
    const at = this.lowerBound(id);
    if (at >= this.n || this.ids[at] !== id) return false;
    const before = at > 0 ? this.ids[at - 1]! : -Infinity;
    const after = at + 1 < this.n ? this.ids[at + 1]! : Infinity;
    if (before > id) this.descents--;
    if (id > after) this.descents--;
    if (before > after) this.descents++;
    this.removeAt(at);
    return true;
  }

  override settle(at: number): number {
    const ids = this.ids;
    const id = ids[at]!;
    // The pairs around the old place, as a removal counts them (counted only when the id moves).
    const before = at > 0 ? ids[at - 1]! : -Infinity;
    const after = at + 1 < this.n ? ids[at + 1]! : Infinity;
    const to = super.settle(at);
    if (to === at) return at;
    if (before > id) this.descents--;
    if (id > after) this.descents--;
    if (before > after) this.descents++;
    // The pairs around the new place, as an insert counts them.
    const prev = to > 0 ? ids[to - 1]! : -Infinity;
    const next = to + 1 < this.n ? ids[to + 1]! : Infinity;
    if (prev > next) this.descents--;
    if (prev > id) this.descents++;
    if (id > next) this.descents++;
    return to;
  }

  override removeSorted(ids: ArrayLike<number>): number {
    const removed = super.removeSorted(ids);
    this.descents = 0;
    for (let i = 1; i < this.n; i++) if (this.ids[i - 1]! > this.ids[i]!) this.descents++;
    return removed;
  }
}

/** How a tagged posting learns an id's tag (a small number below `tags`, e.g. a repository's flag bits). */
export interface Tagging {
  readonly tags: number;
  tagOf(id: number): number;
}

/** Below this many ids a tagged posting counts by a walk (no counters allocated: most postings are small). */
const TAG_COUNTS_MIN = 32;

/**
 * A posting that also counts its ids per tag, kept on every change: how many of its ids carry a tag that passes a
 * test is a sum over the few tags, not a walk. An id's tag must not change while the id is in the posting (remove it
 * first, change the tag, insert it again).
 */
export class TaggedPosting extends Posting {
  private counts: Int32Array | null = null;

  constructor(order: IdOrder, private readonly tagging: Tagging, capacity?: number) {
    super(order, capacity);
  }

  override insert(id: number): boolean {
    if (!super.insert(id)) return false;
    this.counted(id, 1);
    return true;
  }

  override push(id: number): void {
    super.push(id);
    this.counted(id, 1);
  }

  override remove(id: number): boolean {
    if (!super.remove(id)) return false;
    this.counted(id, -1);
    return true;
  }

  private counted(id: number, delta: number): void {
    if (this.counts) this.counts[this.tagging.tagOf(id)]! += delta;
    else if (this.size >= TAG_COUNTS_MIN) {
      this.counts = new Int32Array(this.tagging.tags);
      for (let i = 0; i < this.size; i++) this.counts[this.tagging.tagOf(this.at(i))]!++;
    }
  }

  /** How many ids carry a tag that `accept` takes. */
  count(accept: (tag: number) => boolean): number {
    let n = 0;
    if (this.counts) {
      for (let t = 0; t < this.counts.length; t++) if (this.counts[t] !== 0 && accept(t)) n += this.counts[t]!;
    } else {
      for (let i = 0; i < this.size; i++) if (accept(this.tagging.tagOf(this.at(i)))) n++;
    }
    return n;
  }

  override get bytes(): number {
    return super.bytes + (this.counts?.byteLength ?? 0);
  }
}

/** A read-only ordered id source: a posting, or a small list sorted by the same order. */
export interface OrderedIds {
  readonly size: number;
  at(i: number): number;
}

export function arraySource(ids: readonly number[]): OrderedIds {
  return { size: ids.length, at: (i) => ids[i]! };
}

export const EMPTY_SOURCE: OrderedIds = { size: 0, at: () => { throw new RangeError('empty'); } };

/** An ordered source with its own filter: the merge below takes each source's accepted ids only. */
export interface FilteredSource {
  size: number;
  at(i: number): number;
  accept(id: number): boolean;
}

/**
 * The first `n` ids of the union of disjoint ordered sources that pass `accept`, in order: a k-way merge that stops
 * after `n` accepted ids. Each source is read from its start only as far as the merge needs.
 */
export function mergeHead(sources: readonly OrderedIds[], order: IdOrder, n: number, accept: (id: number) => boolean): number[] {
  return mergeFiltered(sources.map((src) => ({ size: src.size, at: (i: number) => src.at(i), accept })), order, n);
}

/** mergeHead with a filter per source (e.g. a different visibility rule for each side of the index). */
export function mergeFiltered(sources: readonly FilteredSource[], order: IdOrder, n: number): number[] {
  const out: number[] = [];
  if (n <= 0) return out;
  const pos = sources.map(() => 0);
  for (;;) {
    let best = -1;
    let bestId = 0;
    for (let s = 0; s < sources.length; s++) {
      // Advance this source to its next accepted id.
      const src = sources[s]!;
      let i = pos[s]!;
      while (i < src.size && !src.accept(src.at(i))) i++;
      pos[s] = i;
      if (i >= src.size) continue;
      const id = src.at(i);
      if (best < 0 || order(id, bestId) < 0) {
        best = s;
        bestId = id;
      }
    }
    if (best < 0) return out;
    out.push(bestId);
    pos[best] = pos[best]! + 1;
    if (out.length >= n) return out;
  }
}

/** The ids of the source that pass `accept`, in its order (a full walk). */
export function acceptedOf(src: OrderedIds, accept: (id: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < src.size; i++) {
    const id = src.at(i);
    if (accept(id)) out.push(id);
  }
  return out;
}
