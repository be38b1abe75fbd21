// The background mirror-sync queue: a few syncs at a time, never two of one repository at once; a request that
// arrives while its repository is syncing runs once more afterwards (requests in between coalesce).
import type { Logger } from 'pino';

export class SyncQueue {
  private readonly pending = new Set<number>();
  private readonly running = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();
  private stopped = false;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly worker: (id: number) => Promise<void>,
    private readonly concurrency: number,
    private readonly log: Logger,
  ) {}

  enqueue(id: number): void {
    if (this.stopped) return;
    if (this.running.has(id)) this.again.add(id);
    else this.pending.add(id);
    this.pump();
  }

  /** Drops a repository's queued work (it was deleted). A running sync finishes on its own. */
  forget(id: number): void {
    this.pending.delete(id);
    this.again.delete(id);
  }

  /** Syncs waiting or running. */
  get size(): number {
    return this.pending.size + this.running.size;
  }

  isQueued(id: number): boolean {
    return this.pending.has(id) || this.running.has(id);
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (this.pending.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** No new work; queued work is dropped; resolves when the running syncs have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.clear();
    this.again.clear();
    await Promise.allSettled([...this.running.values()]);
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.concurrency) {
      const next = [...this.pending].find((id) => !this.running.has(id));
      if (next === undefined) break;
      this.pending.delete(next);
      const job = this.run(next);
      this.running.set(next, job);
    }
    if (this.pending.size === 0 && this.running.size === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(id: number): Promise<void> {
    try {
      await this.worker(id);
    } catch (err) {
      this.log.error({ err, repoId: id }, 'mirror sync crashed');
    } finally {
      this.running.delete(id);
      if (this.again.delete(id)) this.pending.add(id);
      // Let the caller's stack unwind before the next job starts.
      queueMicrotask(() => this.pump());
    }
  }
}
