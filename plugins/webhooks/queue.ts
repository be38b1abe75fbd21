// The delivery queue: pending rows in the store are the queue, so nothing is lost across a restart (SIGKILL
// included: a row in flight when the process died is still pending and is sent again — at least once). One delivery
// per hook at a time in id order (a hook's receiver sees its events in order), at most `concurrency` hooks at once,
// failures retried with exponential backoff up to `maxAttempts`.
import type { Logger } from 'pino';
import type { WebhookQueueStats } from '../../schemas/contracts/webhooks.js';
import { send } from './sender.js';
import type { DeliveryRecord, HookRecord, Webhooks } from './service.js';

/** Pending rows read per page of a scan (the oldest first), and the most pages one scan reads. */
const SCAN_BATCH = 500;
const SCAN_PAGES = 20;

export class DeliveryQueue {
  private pending = 0;
  private delivered = 0;
  private failed = 0;
  private readonly busyHooks = new Set<number>();
  private scanning = false;
  private rescan = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly running = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly service: Webhooks, private readonly log: Logger) {}

  async start(): Promise<void> {
    // Rows left pending by an earlier process (a crash mid-send included) are resumed.
    this.pending = await this.service.deliveries.count({ state: 'pending' });
    this.kick();
  }

  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const all = Promise.all([...this.running]);
    let t: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((r) => { t = setTimeout(r, graceMs); t.unref(); })]);
    if (t) clearTimeout(t);
  }

  stats(): WebhookQueueStats {
    return { pending: this.pending, inFlight: this.busyHooks.size, delivered: this.delivered, failed: this.failed };
  }

  idle(): Promise<void> {
    if (this.pending === 0 && this.busyHooks.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  added(n: number): void {
    this.pending += n;
    this.kick();
  }

  /** Rows of a deleted hook: no longer pending. */
  forget(_hookId: number, droppedPending: number): void {
    this.pending = Math.max(0, this.pending - droppedPending);
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.pending === 0 && this.busyHooks.size === 0 && this.idleWaiters.length) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Looks for sendable rows now (after the current scan, if one runs). */
  kick(): void {
    if (this.stopping) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    void this.scan().catch((err) => this.log.error({ err }, 'webhook queue scan failed')).finally(() => {
      this.scanning = false;
      if (this.rescan) {
        this.rescan = false;
        this.kick();
      }
    });
  }

  private async scan(): Promise<void> {
    const { concurrency } = this.service.settings;
    const now = Date.now();
    const seen = new Set<number>();
    let wake = Infinity;
    let after = 0;
    // Pages of pending rows, oldest first, until every slot is taken: hooks blocked by a retrying delivery cannot
    // starve hooks whose rows come later.
    for (let page = 0; page < SCAN_PAGES && this.busyHooks.size < concurrency; page++) {
      const rows = await this.service.deliveries.find({ state: 'pending', id: { $gt: after } }, { sort: { id: 1 }, limit: SCAN_BATCH });
      for (const row of rows) {
        if (this.stopping) return;
        after = row.id;
        // Only the oldest pending row of a hook may go; a busy hook waits for its current one.
        if (seen.has(row.hookId)) continue;
        seen.add(row.hookId);
        if (this.busyHooks.has(row.hookId)) continue;
        if (row.nextAttemptAt > now) {
          wake = Math.min(wake, row.nextAttemptAt);
          continue;
        }
        if (this.busyHooks.size >= concurrency) break;
        this.begin(row);
      }
      if (rows.length < SCAN_BATCH) break;
    }
    if (wake !== Infinity) this.wakeAt(wake);
  }

  private wakeAt(at: number): void {
    if (this.stopping || at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.kick();
    }, Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private begin(row: DeliveryRecord): void {
    this.busyHooks.add(row.hookId);
    const job = this.attempt(row)
      .catch((err) => this.log.error({ err, deliveryId: row.id }, 'webhook delivery attempt failed'))
      .finally(() => {
        this.busyHooks.delete(row.hookId);
        this.running.delete(job);
        this.checkIdle();
        this.kick();
      });
    this.running.add(job);
  }

  private async attempt(row: DeliveryRecord): Promise<void> {
    const s = this.service.settings;
    const hook: HookRecord | null = await this.service.hooks.findOne({ id: row.hookId });
    const target = hook ? this.service.targetOf(hook) : row.target;
    const result = await send(
      {
        uuid: row.uuid,
        type: row.type,
        payload: row.payload,
        target: { ...target, secret: this.service.unseal(target.secret), authorization: this.service.unseal(target.authorization) },
      },
      { allowed: this.service.allowed, timeoutMs: s.deliverTimeoutMs, maxResponseBytes: s.maxResponseBytes, userAgent: 'forgekit-webhooks' },
    );
    const attempts = row.attempts + 1;
    const finalFailure = !result.ok && (!result.retry || attempts >= s.maxAttempts);
    const state = result.ok ? 'delivered' : finalFailure ? 'failed' : 'pending';
    const backoff = Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** (attempts - 1));
    const update = await this.service.deliveries.updateOne({ id: row.id, state: 'pending' }, {
      $set: {
        state,
        attempts,
        nextAttemptAt: state === 'pending' ? Date.now() + backoff : 0,
        deliveredAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        error: result.error,
        request: result.request,
        response: result.response,
        durationMs: result.durationMs,
      },
    });
    if (update.matched === 0) return; // the hook (and its rows) went meanwhile
    if (state !== 'pending') {
      this.pending = Math.max(0, this.pending - 1);
      if (state === 'delivered') this.delivered++;
      else this.failed++;
      // A hook deleted before or while this was sent keeps no history.
      const still = hook && (await this.service.hooks.findOne({ id: row.hookId }, { projection: { id: 1 } }));
      if (!still) await this.service.deliveries.deleteOne({ id: row.id });
      else await this.prune(row.hookId);
    } else {
      this.log.warn({ deliveryId: row.id, hookId: row.hookId, attempts, error: result.error }, 'webhook delivery failed, will retry');
    }
  }

  /** Keeps the newest `historyPerHook` finished deliveries of a hook. */
  private async prune(hookId: number): Promise<void> {
    const keep = this.service.settings.historyPerHook;
    const old = await this.service.deliveries.find({ hookId }, { sort: { id: -1 }, skip: keep, limit: 100, projection: { id: 1, state: 1 } });
    for (const d of old) if (d.state !== 'pending') await this.service.deliveries.deleteOne({ id: d.id, state: d.state });
  }
}
