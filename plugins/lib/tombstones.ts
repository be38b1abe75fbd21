// Shared by plugins that cannot import each other (follow, stars, watch): remembers recently deleted accounts.

/**
 * How long a deleted account is remembered. `account.deleted` runs before the account document goes, so a request
 * that authenticated just before can still insert a row after the cleanup swept; the row's post-insert check looks
 * here. Account ids are never reused, so forgetting only bounds memory (no request lives this long).
 */
export const TOMBSTONE_MS = 10 * 60_000;

/** Accounts deleted recently: account id → when. */
export class RecentlyDeleted {
  private readonly at = new Map<number, number>();

  has(id: number): boolean {
    return this.at.has(id);
  }

  /** Remembers an account being deleted (see TOMBSTONE_MS); old entries are dropped in insertion order. */
  mark(id: number): void {
    const now = Date.now();
    for (const [key, at] of this.at) {
      if (now - at < TOMBSTONE_MS) break;
      this.at.delete(key);
    }
    this.at.set(id, now);
  }
}
