// The entry of every scalar key of a single-field index. Most such indexes are over ids: numbers from 1 up, nearly
// every one taken. A Map spent 28–56 bytes per key on them (its hash table), 22 MiB for the ids of the bench's
// 560,000 documents; an array indexed by the key spends 8 (its slot). Other keys (strings, negative or sparse numbers,
// booleans, null) stay in a Map.

/**
 * How far past the array's end a new key may land and still go in the array. The gap is filled with `undefined`, not
 * left as holes, so V8 keeps the array packed.
 */
const MAX_GAP = 1024;
/** Keys from here on always go in the Map. */
const MAX_INDEX = 2 ** 30;

function isIndex(key: unknown): key is number {
  return typeof key === 'number' && (key >>> 0) === key && key < MAX_INDEX;
}

export class KeyMap<V> {
  /** Entries of integer keys near the ones before them; `undefined` where there is none. */
  private readonly dense: Array<V | undefined> = [];
  /** Every other key's entry. A key is in one of the two, never both. */
  private readonly sparse = new Map<unknown, V>();

  get(key: unknown): V | undefined {
    if (isIndex(key) && key < this.dense.length) {
      const v = this.dense[key];
      if (v !== undefined) return v;
    }
    return this.sparse.get(key);
  }

  set(key: unknown, value: V): void {
    if (isIndex(key)) {
      if (key < this.dense.length && this.dense[key] !== undefined) {
        this.dense[key] = value;
        return;
      }
      if (key < this.dense.length + MAX_GAP) {
        // A key that went in the Map while the array was shorter moves over.
        if (this.sparse.size) this.sparse.delete(key);
        while (this.dense.length < key) this.dense.push(undefined);
        this.dense[key] = value;
        return;
      }
    }
    this.sparse.set(key, value);
  }

  delete(key: unknown): void {
    if (isIndex(key) && key < this.dense.length && this.dense[key] !== undefined) {
      // Cleared, not deleted: a hole punched into the array could make V8 turn it into a dictionary.
      this.dense[key] = undefined;
      return;
    }
    this.sparse.delete(key);
  }

  /** Keys held in the Map (the others are integers, listed by `keyList` in ascending order). */
  get sparseSize(): number {
    return this.sparse.size;
  }

  /**
   * Every key in an array: the array's integers in ascending order, then the Map's keys in insertion order. (A
   * generator spread into an array was ~0.15 s of a start's index builds.)
   */
  keyList(): unknown[] {
    const out: unknown[] = [];
    const dense = this.dense;
    for (let i = 0; i < dense.length; i++) if (dense[i] !== undefined) out.push(i);
    for (const k of this.sparse.keys()) out.push(k);
    return out;
  }
}
