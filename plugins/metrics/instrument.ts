// Prometheus metrics (prom-client): requests and latency per route TEMPLATE (never the raw URL), store operation
// timings, running git processes and pooled cat-file readers, queue depths (mirror sync, webhook deliveries, routes'
// concurrency gates), and the process defaults. Only built when metrics are on. Hot paths (a request, a store
// operation) add to plain numbers; samples are made at scrape time (prom-client's labelled children hash their
// labels on every observation: a fifth of a small request's cost in the bench).
import { readdir, readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import client from 'prom-client';
import type { RequestObserver, RouteInfo } from '../../core/plugin.js';
import type { Collection, Store } from '../../core/store/port.js';
import type { GitStats } from '../../schemas/contracts/git.js';
import type { WebhookQueueStats } from '../../schemas/contracts/webhooks.js';

/** What the metrics read at scrape time from the plugins that are enabled (through their typed services). */
export interface MetricsSources {
  git?: () => Promise<GitStats>;
  webhooks?: () => WebhookQueueStats;
  routes?: () => readonly RouteInfo[];
}

const STORE_OPERATIONS = new Set(['findOne', 'find', 'count', 'insertOne', 'insertMany', 'updateOne', 'updateMany', 'findOneAndUpdate', 'findOneAndDelete', 'deleteOne', 'deleteMany']);
/** Seconds; small requests are sub-millisecond, git and markup take seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Running `git` processes started by this server (children whose command is git), read from /proc. */
async function countGitChildren(): Promise<number> {
  let count = 0;
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map(async (pid) => {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: the command may hold spaces, so read after the last ')'.
    const close = stat.lastIndexOf(')');
    if (close === -1) return;
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    if (ppid === process.pid && (comm === 'git' || comm.startsWith('git-'))) count++;
  }));
  return count;
}

export class ForgeMetrics {
  readonly registry = new client.Registry();
  /** Per route template: counted in plain fields on the request path, turned into samples only when scraped. */
  private readonly routes: RouteStats[] = [];
  private readonly byKey = new Map<string, RouteStats>();
  /** Per collection and operation, likewise. */
  private readonly storeOps: StoreOpStats[] = [];
  private sources: MetricsSources = {};

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'forgekit_' });
    const { routes, storeOps } = this;
    this.custom('forgekit_http_requests_total', 'Requests answered, by method, route template and status', 'counter',
      () => routes.flatMap((r) => [...r.statuses].map(([status, value]) => ({ labels: { method: r.method, route: r.route, status }, value }))));
    this.custom('forgekit_http_request_duration_seconds', 'Time from arrival to reply, by method and route template', 'histogram',
      () => routes.flatMap((r) => r.samples('forgekit_http_request_duration_seconds', { method: r.method, route: r.route })));
    this.custom('forgekit_store_operation_duration_seconds', 'Store operations, by collection and operation', 'histogram',
      () => storeOps.flatMap((o) => o.samples('forgekit_store_operation_duration_seconds', { collection: o.collection, operation: o.operation })));
    new client.Gauge({
      name: 'forgekit_git_processes', help: 'git processes running for this server', registers: [this.registry],
      async collect() { this.set(await countGitChildren()); },
    });
    const metrics = this;
    new client.Gauge({
      name: 'forgekit_git_cat_file_processes', help: 'Pooled git cat-file readers alive, and the repositories they serve', labelNames: ['kind'], registers: [this.registry],
      async collect() {
        const git = await metrics.sources.git?.();
        if (!git) return;
        this.set({ kind: 'processes' }, git.catFileProcesses);
        this.set({ kind: 'repositories' }, git.catFileRepositories);
      },
    });
    new client.Gauge({
      name: 'forgekit_queue_depth',
      help: 'Work waiting, by queue (mirror_sync: mirrors due for a sync; webhook_deliveries: deliveries not yet finished; gate <method> <route>: requests waiting for a route\'s concurrency limit)',
      labelNames: ['queue'], registers: [this.registry],
      async collect() {
        const { git, webhooks, routes: compiled } = metrics.sources;
        if (git) this.set({ queue: 'mirror_sync' }, (await git()).mirrorsDue);
        if (webhooks) this.set({ queue: 'webhook_deliveries' }, webhooks().pending);
        for (const r of compiled?.() ?? []) if (r.gate) this.set({ queue: `gate ${r.method} ${r.path}` }, r.gate.waiting);
      },
    });
    new client.Gauge({
      name: 'forgekit_webhook_deliveries_in_flight', help: 'Webhook deliveries being sent right now', registers: [this.registry],
      collect() {
        const webhooks = metrics.sources.webhooks?.();
        if (webhooks) this.set(webhooks.inFlight);
      },
    });
    this.custom('forgekit_webhook_deliveries_finished_total', 'Webhook deliveries finished since start, by result', 'counter', () => {
      const webhooks = this.sources.webhooks?.();
      return webhooks ? [{ labels: { result: 'delivered' }, value: webhooks.delivered }, { labels: { result: 'failed' }, value: webhooks.failed }] : [];
    });
  }

  /** Connects the plugins' typed services (called by the metrics plugin's `start`, after them). */
  connect(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** A metric whose samples are computed from plain numbers at scrape time. */
  private custom(name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]): void {
    this.registry.registerMetric({ name, get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) } as never);
  }

  /**
   * The kernel's finished-request observer: every request by method, route template (`unmatched` for 404/405 without a
   * route) and status, timed from arrival to reply.
   */
  readonly observe: RequestObserver = (r) => {
    const key = r.route === null ? `${r.method} ` : `${r.method} ${r.route}`;
    let stats = this.byKey.get(key);
    if (!stats) {
      stats = new RouteStats(r.method, r.route ?? 'unmatched');
      this.byKey.set(key, stats);
      this.routes.push(stats);
    }
    stats.observe(r.status, r.ms);
  };

  /**
   * The store with every collection operation timed (documents pass through untouched). Each collection's timed
   * methods are made once, on first use: an operation costs two clock reads and a few additions.
   */
  instrumentStore(store: Store): Store {
    const wrapped = new Map<string, Collection>();
    const storeOps = this.storeOps;
    const wrap = (name: string, collection: Collection): Collection => {
      const timed = new Map<string, (...args: unknown[]) => unknown>();
      return new Proxy(collection, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (typeof key !== 'string' || !STORE_OPERATIONS.has(key) || typeof value !== 'function') return value;
          let fn = timed.get(key);
          if (!fn) {
            const stats = new StoreOpStats(name, key);
            storeOps.push(stats);
            fn = (...args: unknown[]) => {
              const started = performance.now();
              const result = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
              const done = () => stats.observe(performance.now() - started);
              result.then(done, done);
              return result;
            };
            timed.set(key, fn);
          }
          return fn;
        },
      });
    };
    return new Proxy(store, {
      get(target, key, receiver) {
        if (key !== 'collection') {
          const value = Reflect.get(target, key, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return (name: string) => {
          let c = wrapped.get(name);
          if (!c) wrapped.set(name, (c = wrap(name, target.collection(name))));
          return c;
        };
      },
    });
  }
}

/** A latency histogram as plain numbers (milliseconds in, seconds out). */
class Latency {
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length);
  sum = 0;
  count = 0;

  observeMs(ms: number): void {
    const seconds = ms / 1000;
    this.sum += seconds;
    this.count++;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        this.buckets[i]!++;
        break;
      }
    }
  }

  /** Prometheus histogram samples (cumulative buckets, +Inf, sum, count) with these labels. */
  samples(name: string, labels: Record<string, string>): unknown[] {
    if (this.count === 0) return [];
    let cumulative = 0;
    const buckets = LATENCY_BUCKETS.map((le, i) => {
      cumulative += this.buckets[i]!;
      return { metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative };
    });
    return [
      ...buckets,
      { metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: this.count },
      { metricName: `${name}_sum`, labels, value: this.sum },
      { metricName: `${name}_count`, labels, value: this.count },
    ];
  }
}

/** One collection operation's latency. */
class StoreOpStats extends Latency {
  constructor(readonly collection: string, readonly operation: string) {
    super();
  }

  observe(ms: number): void {
    this.observeMs(ms);
  }
}

/** One route template's request counts per status and its latency histogram, as plain numbers. */
class RouteStats extends Latency {
  readonly statuses = new Map<string, number>();

  constructor(readonly method: string, readonly route: string) {
    super();
  }

  observe(status: number, ms: number): void {
    const key = String(status);
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
    this.observeMs(ms);
  }
}
