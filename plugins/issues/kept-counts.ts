// Counts of a collection kept while it is unchanged (`writeGeneration`). A signed-in issue search subtracts the public
// rows of the owners hidden from the caller, one index range per owner (~100 on a site with many limited accounts):
// the same answer for every such caller and page until an issue changes.
import type { Collection, Filter } from '../../core/store/port.js';

/** Distinct counts kept at once; past this, the kept ones are dropped (a new generation drops them too). */
const KEPT_MAX = 256;

export class KeptCounts {
  private readonly kept = new Map<string, number>();
  private generation = -1;

  constructor(private readonly collection: Pick<Collection, 'count' | 'writeGeneration'>) {}

  /**
   * `collection.count(filter)`, kept under `key` (which must say everything the filter does) while the collection is
   * unchanged. Where the store cannot tell (null generation), every call counts.
   */
  async count(key: string, filter: Filter): Promise<number> {
    const at = this.collection.writeGeneration();
    if (at === null) return this.collection.count(filter);
    if (at !== this.generation) {
      this.kept.clear();
      this.generation = at;
    }
    const hit = this.kept.get(key);
    if (hit !== undefined) return hit;
    const n = await this.collection.count(filter);
    // A write while the count ran (it awaits the store): its answer may be either side of it, so it is not kept.
    if (this.collection.writeGeneration() === at && this.generation === at) {
      if (this.kept.size >= KEPT_MAX) this.kept.clear();
      this.kept.set(key, n);
    }
    return n;
  }
}
