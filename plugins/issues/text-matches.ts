// The verified matches of recent `q` searches: per lower-cased query, the issues whose title, body or comments
// contain it literally (every issue, whoever may see it: the caller's visibility is the store filter's job). The
// trigram index (text-index.ts) gives candidates; checking each candidate's text is most of a `q` search's work, and
// a page of a repeated query needs none of it again.
//
// Kept exact without rebuilding: an issue enters or leaves a query's matches only when a text of it changes (its
// title or body, or one of its comments), and then the old or the new text holds the query — so a change drops the
// entries of the queries its texts hold. Issues that go (deleted, with their repository) need nothing: ids are never
// reused and a search reads its rows from the store, which no longer has them. While a change is under way (from
// before its store write until the trigram index has it too) the cache is not read, and a search that started before
// a change stores nothing when it ends.

/** Queries kept at most, and ids held at most over all of them (a query matching most issues holds many). */
const MAX_QUERIES = 256;
const MAX_IDS = 4_000_000;

export class TextMatches {
  /** Query → its matching issue ids, ascending; Map order is use order (least recently used first). */
  private readonly entries = new Map<string, Int32Array>();
  private ids = 0;
  /** Changes under way. */
  private pending = 0;
  /** Counts changes begun and ended: a search's result is kept only if none happened while it ran. */
  private changes = 0;
  /** Searches answered from the cache (tests and the benchmark read it). */
  hits = 0;

  /** The generation a search reads before it computes matches (`put` takes it back). */
  get generation(): number {
    return this.changes;
  }

  /** The matches of `lowerQuery`, when known and no change is under way. */
  get(lowerQuery: string): Int32Array | undefined {
    if (this.pending > 0) return undefined;
    const ids = this.entries.get(lowerQuery);
    if (ids === undefined) return undefined;
    this.entries.delete(lowerQuery);
    this.entries.set(lowerQuery, ids);
    this.hits++;
    return ids;
  }

  /** Keeps the matches a search computed, unless a change began or ended since `generation` was read. */
  put(lowerQuery: string, ids: Int32Array, generation: number): void {
    if (this.pending > 0 || generation !== this.changes || ids.length > MAX_IDS / 4) return;
    const old = this.entries.get(lowerQuery);
    if (old) {
      this.entries.delete(lowerQuery);
      this.ids -= old.length;
    }
    this.entries.set(lowerQuery, ids);
    this.ids += ids.length;
    for (const [q, held] of this.entries) {
      if (this.entries.size <= MAX_QUERIES && this.ids <= MAX_IDS) break;
      this.entries.delete(q);
      this.ids -= held.length;
    }
  }

  /** A change of issue texts is about to be written: the cache is not read until it ends. */
  begin(): void {
    this.pending++;
    this.changes++;
  }

  /** The change is written and indexed: drops the queries that any of its texts (old and new) hold. */
  end(texts: readonly string[]): void {
    const lower = texts.map((text) => text.toLowerCase());
    for (const [q, held] of this.entries) {
      if (lower.some((text) => text.includes(q))) {
        this.entries.delete(q);
        this.ids -= held.length;
      }
    }
    this.changes++;
    this.pending--;
  }

  /** Runs a change of issue texts between `begin` and `end`; `texts` are read when it is done (old and new ones). */
  async around<T>(change: () => Promise<T>, texts: () => readonly string[]): Promise<T> {
    this.begin();
    try {
      return await change();
    } finally {
      this.end(texts());
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
