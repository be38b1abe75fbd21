// Failed sign-in throttling: per account and per client address, a fixed window of failures, then a lock with Retry-After.

export interface ThrottleRule {
  /** Failures allowed within `windowSeconds` before the key is locked. */
  maxFailures: number;
  windowSeconds: number;
  /** How long a key stays locked once it crossed `maxFailures`. */
  lockSeconds: number;
}

interface Entry {
  failures: number;
  windowEnds: number;
  lockedUntil: number;
}

/** Bounds the table: an attacker cycling addresses cannot grow it without limit (oldest entries go first). */
const MAX_KEYS = 50_000;

export class FailureThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly rule: ThrottleRule, private readonly now: () => number = Date.now) {}

  /** Seconds until `key` may try again, or 0 when it is not locked. */
  retryAfter(key: string): number {
    const entry = this.entries.get(key);
    if (!entry) return 0;
    const now = this.now();
    if (entry.lockedUntil > now) return Math.max(1, Math.ceil((entry.lockedUntil - now) / 1000));
    return 0;
  }

  fail(key: string): void {
    if (this.rule.maxFailures <= 0) return;
    const now = this.now();
    let entry = this.entries.get(key);
    if (!entry || (entry.windowEnds <= now && entry.lockedUntil <= now)) {
      if (entry) this.entries.delete(key);
      entry = { failures: 0, windowEnds: now + this.rule.windowSeconds * 1000, lockedUntil: 0 };
      if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, entry);
    }
    entry.failures++;
    if (entry.failures >= this.rule.maxFailures) entry.lockedUntil = now + this.rule.lockSeconds * 1000;
  }

  /** A success forgets the key's failures (an account's owner who finally typed it right). */
  succeed(key: string): void {
    this.entries.delete(key);
  }
}
