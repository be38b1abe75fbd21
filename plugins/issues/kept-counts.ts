// Counts of a collection kept while it is unchanged (`writeGeneration`). A signed-in or anonymous issue search
// subtracts the public rows of the owners hidden from the caller, one index range per owner (~100 on a site with many
// limited organizations): the same answer for every such caller and page until an issue changes. A deep page asks the
// same with an id bound, several times (`pivotedPage`): those rows' ids are kept, sorted, and counted by a search.
import type { Collection, Filter } from '../../core/store/port.js';

/** Distinct counts (or id lists) kept at once; past this, the kept ones are dropped (a new generation drops them too). */
const KEPT_MAX = 256;
/** Ids kept per list at most: more, and a bounded count asks the store each time. */
const KEPT_IDS_MAX = 200_000;

/** An id bound of a count: `id > gt` or `id <= lte`. */
export type IdBound = { gt: number } | { lte: number };

export class KeptCounts {
  private readonly counts = new Map<string, number>();
  private readonly ids = new Map<string, Int32Array | null>();
  private generation = -1;

  constructor(private readonly collection: Pick<Collection<{ id: number }>, 'count' | 'find' | 'writeGeneration'>) {}

  /** The generation now, with what was kept under an older one dropped; null: nothing may be kept. */
  private current(): number | null {
    const at = this.collection.writeGeneration();
    if (at !== null && at !== this.generation) {
      this.counts.clear();
      this.ids.clear();
      this.generation = at;
    }
    return at;
  }

  /** True when a result computed since `at` may be kept: no write while it ran (it awaited the store). */
  private unchanged(at: number): boolean {
    return this.collection.writeGeneration() === at && this.generation === at;
  }

  /**
   * `collection.count(filter)`, kept under `key` (which must say everything the filter does) while the collection is
   * unchanged. Where the store cannot tell (null generation), every call counts.
   */
  async count(key: string, filter: Filter): Promise<number> {
    const at = this.current();
    if (at === null) return this.collection.count(filter);
    const hit = this.counts.get(key);
    if (hit !== undefined) return hit;
    const n = await this.collection.count(filter);
    if (this.unchanged(at)) {
      if (this.counts.size >= KEPT_MAX) this.counts.clear();
      this.counts.set(key, n);
    }
    return n;
  }

  /**
   * The count of `filter` (which has no `id` condition; `key` says everything it does) with `bound` on the id: from
   * the matching ids, kept sorted while the collection is unchanged. More than KEPT_IDS_MAX of them: the store counts.
   */
  async countBounded(key: string, filter: Filter, bound: IdBound): Promise<number> {
    const bounded = (): Filter => ({ ...filter, id: 'gt' in bound ? { $gt: bound.gt } : { $lte: bound.lte } });
    const at = this.current();
    if (at === null) return this.collection.count(bounded());
    let ids = this.ids.get(key);
    if (ids === undefined) {
      const total = await this.count(key, filter);
      ids = null;
      if (total <= KEPT_IDS_MAX) {
        const rows = await this.collection.find(filter, { projection: { id: 1 } });
        if (this.unchanged(at)) ids = Int32Array.from(rows, (r) => r.id).sort();
        else return this.collection.count(bounded());
      }
      if (this.unchanged(at)) {
        if (this.ids.size >= KEPT_MAX) this.ids.clear();
        this.ids.set(key, ids);
      }
    }
    if (ids === null) return this.collection.count(bounded());
    // The first position past the bound's id: ids at or below it come before.
    const limit = 'gt' in bound ? bound.gt : bound.lte;
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! <= limit) lo = mid + 1;
      else hi = mid;
    }
    return 'gt' in bound ? ids.length - lo : lo;
  }
}
