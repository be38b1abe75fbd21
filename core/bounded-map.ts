// Bounded caches kept as Maps in insertion order: when full, the oldest entries go.

/**
 * Drops the oldest tenth of `capacity` entries (at least one), which is cheaper than keeping an exact LRU order on
 * every hit.
 */
export function dropOldestTenth(entries: Map<unknown, unknown>, capacity: number): void {
  let n = Math.max(1, Math.floor(capacity / 10));
  for (const key of entries.keys()) {
    entries.delete(key);
    if (--n === 0) break;
  }
}
