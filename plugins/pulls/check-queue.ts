// The background mergeability queue: pull requests whose branches moved wait here for their `merge-tree` check. The
// store is the durable queue (a queued pull request is persisted as status `checking` before it enters, Gitea's
// AddToTaskQueue), this class only the memory of what to run next: a pull request is queued once however many pushes
// arrive (the check reads the branches when it runs: the latest heads), a repository's pull requests take turns with
// other repositories', at most `concurrency` checks — each a sequence of git processes — run at once, and at most
// `limit` ids are held in memory: beyond that the store's `checking` rows are read again once the queue drains.
import type { Logger } from 'pino';

export interface CheckQueueOptions {
  /** Runs one check (never throws: the service records a failure as status `error`). */
  worker: (pullId: number) => Promise<void>;
  /** Ids of the pull requests persisted as `checking` (at most `limit`): the start scan and the overflow rescan. */
  scan: (limit: number) => Promise<Array<{ id: number; repoId: number }>>;
  /** Checks running at once; 0 runs none (they stay `checking` in the store until a start with workers). */
  concurrency: number;
  /** Pull request ids held in memory. */
  limit: number;
  log: Logger;
}

export interface CheckQueueStats {
  queued: number;
  running: number;
  checked: number;
  overflowed: boolean;
}

export class CheckQueue {
  /** Waiting pull requests per repository (insertion order: a repository's rotation). */
  private readonly waiting = new Map<number, Set<number>>();
  private queuedCount = 0;
  private readonly running = new Map<number, Promise<void>>();
  /** Queued again while running: they run once more afterwards. */
  private readonly again = new Map<number, number>();
  private overflow = false;
  private scanning = false;
  private stopped = false;
  private checked = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly o: CheckQueueOptions) {}

  /** Loads the pull requests an earlier process left `checking` (it died or stopped before their check). */
  async start(): Promise<void> {
    await this.rescan();
  }

  /** Queues checks (their `checking` status is already persisted). */
  enqueue(items: Array<{ id: number; repoId: number }>): void {
    if (this.stopped) return;
    for (const { id, repoId } of items) {
      if (this.running.has(id)) {
        this.again.set(id, repoId);
        continue;
      }
      let set = this.waiting.get(repoId);
      if (set?.has(id)) continue;
      if (this.queuedCount >= this.o.limit) {
        // Still `checking` in the store: the rescan after the queue drains picks it up.
        this.overflow = true;
        continue;
      }
      if (!set) this.waiting.set(repoId, (set = new Set()));
      set.add(id);
      this.queuedCount++;
    }
    this.pump();
  }

  stats(): CheckQueueStats {
    return { queued: this.queuedCount, running: this.running.size, checked: this.checked, overflowed: this.overflow };
  }

  /** Resolves when nothing is queued or running (with workers; with none it resolves at once). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Takes no new work; waits up to `graceMs` for running checks. Queued ones stay `checking` in the store. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.waiting.clear();
    this.again.clear();
    this.queuedCount = 0;
    let t: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running.values()]),
      new Promise<void>((resolve) => { t = setTimeout(resolve, graceMs); t.unref(); }),
    ]);
    if (t) clearTimeout(t);
    this.wakeIdle();
  }

  private isIdle(): boolean {
    return this.o.concurrency === 0 || this.stopped || (this.queuedCount === 0 && this.running.size === 0 && !this.overflow && !this.scanning);
  }

  private wakeIdle(): void {
    if (!this.isIdle() || !this.idleWaiters.length) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** The next pull request: the first repository in rotation gives one and goes to the back. */
  private next(): number | undefined {
    for (const [repoId, set] of this.waiting) {
      for (const id of set) {
        if (this.running.has(id)) continue;
        set.delete(id);
        this.queuedCount--;
        this.waiting.delete(repoId);
        if (set.size) this.waiting.set(repoId, set);
        return id;
      }
    }
    return undefined;
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.o.concurrency) {
      const id = this.next();
      if (id === undefined) break;
      this.running.set(id, this.run(id));
    }
    if (!this.stopped && this.overflow && this.queuedCount === 0 && this.running.size === 0 && !this.scanning && this.o.concurrency > 0) {
      void this.rescan();
    }
    this.wakeIdle();
  }

  private async rescan(): Promise<void> {
    if (this.stopped || this.o.concurrency === 0) return;
    this.scanning = true;
    this.overflow = false;
    try {
      const rows = await this.o.scan(this.o.limit);
      this.scanning = false;
      // A full page: more may wait in the store, read once these are done.
      if (rows.length >= this.o.limit) this.overflow = true;
      this.enqueue(rows);
    } catch (err) {
      this.scanning = false;
      this.o.log.error({ err }, 'pulls: reading the queued mergeability checks failed');
      this.pump();
    }
  }

  private async run(id: number): Promise<void> {
    try {
      await this.o.worker(id);
    } catch (err) {
      this.o.log.error({ err, pullId: id }, 'pulls: a mergeability check crashed');
    } finally {
      this.checked++;
      this.running.delete(id);
      const repoId = this.again.get(id);
      if (repoId !== undefined) {
        this.again.delete(id);
        this.enqueue([{ id, repoId }]);
      }
      // Let the caller's stack unwind before the next check starts.
      queueMicrotask(() => this.pump());
    }
  }
}
