// Credential generations: a logical clock that makes a cached or in-flight credential check stale once its account
// (or token) changed. A check takes `stamp()` before it reads; a result is kept or used only while `current(key, stamp)`.

/** Above this many remembered changes the table is folded into a floor: every older stamp becomes stale at once. */
const MAX_CHANGES = 100_000;

export class Generations {
  private clock = 0;
  /** Stamps below the floor are stale whatever their key (set when the change table is folded). */
  private floor = 0;
  private readonly changed = new Map<number, number>();

  /** The current generation; take it before reading what a check depends on. */
  stamp(): number {
    return this.clock;
  }

  /** Marks `key` changed: every stamp taken before now is stale for it. */
  bump(key: number): void {
    this.changed.set(key, ++this.clock);
    if (this.changed.size > MAX_CHANGES) {
      this.floor = this.clock;
      this.changed.clear();
    }
  }

  /** True while nothing about `key` changed since `stamp` was taken. */
  current(key: number, stamp: number): boolean {
    return stamp >= this.floor && (this.changed.get(key) ?? 0) <= stamp;
  }
}
