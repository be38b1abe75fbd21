// A bounded map that keeps what is used: the caches of search postings, commits, diffs and git answers.
//
// Recency is kept the "second chance" (clock) way: a hit only marks its entry; when the map is full, the oldest
// entries are looked at in insertion order — a marked one is unmarked and moved to the back, the first unmarked one
// is dropped. Why not the usual delete-and-set on every hit: a long-lived Map's table sits in V8's old generation,
// and deleting from it makes V8 rehash the table into a new old-generation table (a shrink or a compaction of the
// deleted slots). Under load that was most of what a search promoted into the old generation (80% of the surviving
// bytes of a repeated user search, sampled), and a full collection — half a second of marking on one core — every
// few seconds. Here a hit writes one field; the Map changes only when an entry comes or goes.

interface Slot<V> {
  value: V;
  used: boolean;
}

export class Lru<K, V> {
  private readonly map = new Map<K, Slot<V>>();

  /** `max` entries at most (at least 1). */
  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new RangeError(`an Lru holds at least one entry (got ${max})`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const slot = this.map.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Adds or replaces; a replaced entry counts as used. */
  set(key: K, value: V): void {
    const slot = this.map.get(key);
    if (slot !== undefined) {
      slot.value = value;
      slot.used = true;
      return;
    }
    // Room is made first: a new entry is never the one dropped to make room for itself.
    if (this.map.size >= this.max) this.evict();
    this.map.set(key, { value, used: false });
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  /** Every kept value, oldest first (for caches whose values are maintained in place on changes). */
  *values(): IterableIterator<V> {
    for (const slot of this.map.values()) yield slot.value;
  }

  /** Drops one entry: the oldest not used since it was last looked at here. Ends: a moved entry comes back unmarked. */
  private evict(): void {
    for (const [key, slot] of this.map) {
      this.map.delete(key);
      if (!slot.used) return;
      slot.used = false;
      this.map.set(key, slot);
    }
  }
}
