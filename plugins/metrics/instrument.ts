// Prometheus metrics (prom-client): requests and latency per route TEMPLATE (never the raw URL), store operation
// timings, running git processes, the mirror-sync backlog, and the process defaults. Only built when metrics are on.
import { readdir, readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import client from 'prom-client';
import type { RequestObserver } from '../../core/plugin.js';
import type { Collection, Store } from '../../core/store/port.js';

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
  private readonly storeLatency = new client.Histogram({
    name: 'forgekit_store_operation_duration_seconds', help: 'Store operations, by collection and operation',
    labelNames: ['collection', 'operation'], buckets: LATENCY_BUCKETS, registers: [this.registry],
  });
  private store: Store | null = null;

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'forgekit_' });
    // prom-client's labelled children hash their labels on every observation (a fifth of a small request's cost in
    // the bench): the request metrics are kept per route in plain counters and reported through `get()` instead.
    const routes = this.routes;
    this.registry.registerMetric({
      name: 'forgekit_http_requests_total',
      get: async () => ({
        name: 'forgekit_http_requests_total', help: 'Requests answered, by method, route template and status', type: 'counter', aggregator: 'sum',
        values: routes.flatMap((r) => [...r.statuses].map(([status, value]) => ({ labels: { method: r.method, route: r.route, status }, value }))),
      }),
    } as never);
    this.registry.registerMetric({
      name: 'forgekit_http_request_duration_seconds',
      get: async () => ({
        name: 'forgekit_http_request_duration_seconds', help: 'Time from arrival to reply, by method and route template', type: 'histogram', aggregator: 'sum',
        values: routes.filter((r) => r.count > 0).flatMap((r) => {
          const labels = { method: r.method, route: r.route };
          let cumulative = 0;
          const buckets = LATENCY_BUCKETS.map((le, i) => {
            cumulative += r.buckets[i]!;
            return { metricName: 'forgekit_http_request_duration_seconds_bucket', labels: { le, ...labels }, value: cumulative };
          });
          return [
            ...buckets,
            { metricName: 'forgekit_http_request_duration_seconds_bucket', labels: { le: '+Inf', ...labels }, value: r.count },
            { metricName: 'forgekit_http_request_duration_seconds_sum', labels, value: r.sum },
            { metricName: 'forgekit_http_request_duration_seconds_count', labels, value: r.count },
          ];
        }),
      }),
    } as never);
    new client.Gauge({
      name: 'forgekit_git_processes', help: 'git processes running for this server', registers: [this.registry],
      async collect() { this.set(await countGitChildren()); },
    });
    const metrics = this;
    new client.Gauge({
      name: 'forgekit_queue_depth', help: 'Work waiting, by queue (mirror_sync: mirrors due for a sync)', labelNames: ['queue'], registers: [this.registry],
      async collect() {
        if (!metrics.store) return;
        try {
          this.set({ queue: 'mirror_sync' }, await metrics.store.collection('git_mirrors').count({ nextSyncAt: { $lte: Date.now() } }));
        } catch {
          // the git plugin is disabled: no mirror queue
        }
      },
    });
  }

  /**
   * The kernel's finished-request observer: every request by method, route template (`unmatched` for 404/405 without a
   * route) and status, timed from arrival to reply. Plain counters per template; samples are made at scrape time.
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

  private readonly byKey = new Map<string, RouteStats>();

  /** The store with every collection operation timed (documents pass through untouched). */
  instrumentStore(store: Store): Store {
    this.store = store;
    const wrapped = new Map<string, Collection>();
    const histogram = this.storeLatency;
    const wrap = (name: string, collection: Collection): Collection => new Proxy(collection, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || !STORE_OPERATIONS.has(key) || typeof value !== 'function') return value;
        const timer = histogram.labels(name, key);
        return (...args: unknown[]) => {
          const started = performance.now();
          const done = () => timer.observe((performance.now() - started) / 1000);
          const result = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          result.then(done, done);
          return result;
        };
      },
    });
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

/** One route template's request counts per status and its latency histogram, as plain numbers. */
class RouteStats {
  readonly statuses = new Map<string, number>();
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length);
  sum = 0;
  count = 0;

  constructor(readonly method: string, readonly route: string) {}

  observe(status: number, ms: number): void {
    const key = String(status);
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
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
}
