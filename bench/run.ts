// The benchmark harness: seeds a deterministic dataset through the store, boots forgekit and a bare node:http
// replay server in their own processes, and measures every case against both with autocannon, interleaved.
//
//   npm run bench                      full dataset, every case
//   npm run bench -- --case search     cases whose name or group contains "search"
//   npm run bench -- --quick           small dataset, short runs (the smoke test in npm test)
//   FORGEKIT_MONGODB_URI=… npm run bench   the same against MongoDB
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, openSync, closeSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig, PACKAGE_ROOT } from '../core/config.js';
import { SERVE_NODE_FLAGS } from '../core/heap-headroom.js';
import { resolvePlugins } from '../core/loader.js';
import { createStore } from '../core/store/index.js';
import { builtinPlugins } from '../plugins/index.js';
import { resolvePath, type BenchCase, type BenchClient, type BenchFixture, type DatasetSizes, type RecordedResponse, type SetupResult } from './case.js';
import { FULL_SIZES, QUICK_SIZES, planDataset } from './dataset.js';
import { loadCases, type LoadedCase } from './load-cases.js';
import { commitInfo, hasTaskset, machineInfo, pin } from './machine.js';
import {
  markdownReport, RESULT_SCHEMA, resultFileName, spliceResults, summaryText, textTable,
  type BenchResult, type CaseResult,
} from './report.js';
import { benchSeed } from './cases/search-random.js';
import { freePort } from './free-port.js';
import { keepSeed } from './kept-seed.js';
import { settledNote, settledOf, type SettledMessage } from './settled.js';
import { fixtureOf, seedDataset } from './seed.js';
import { combine, median, ratioOf, runStats, Samples, type RunStats } from './stats.js';
import { BOOT_MAX_MS, inferGroup, judge, RSS_MAX_BYTES } from './targets.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface BenchOptions {
  quick: boolean;
  filter: string[];
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** Pause after every run, so neither server's leftovers (GC, log flushing) run into the other's measurement. */
  settleSec: number;
  rounds: number;
  outDir: string;
  pin: boolean;
  keepData: boolean;
  resultsMd: boolean;
  logLevel: 'info' | 'silent';
  /** Case-file seeders left out (their file name contains one of these): a partial run that needs none of their data. */
  skipSeeders: string[];
  /** Repositories in the dataset instead of the mode's default (growth runs: 10k, 100k, 1M); null: the default. */
  repos: number | null;
  /** Node flags of the forgekit server's process (`--node-flag=--max-semi-space-size=32`): an A/B of runtime flags. */
  nodeFlags: string[];
  /**
   * Restarts of the forgekit server on the seeded data before the cases (full runs: 2, quick: 0). The boot is judged on
   * the median of the first boot and the restarts; each is reported. Why: on this VM the first boot after seeding
   * paid 2–3 s in the kernel zeroing pages the seeder had just freed (see RESULTS.md, eleventh session).
   */
  restarts: number;
}

const USAGE = `usage: node dist/bench/run.js [--quick] [--case <text>]... [--connections N] [--duration S]
       [--warmup S] [--settle S] [--rounds N] [--out DIR] [--no-pin] [--keep-data] [--no-results-md] [--log-level info|silent]
       [--skip-seeder <file text>]... [--repos N] [--restarts N] [--node-flag=<flag of the forgekit server's node>]...`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      case: { type: 'string', multiple: true, default: [] },
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      settle: { type: 'string' },
      rounds: { type: 'string' },
      out: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      'keep-data': { type: 'boolean', default: false },
      'no-results-md': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      'skip-seeder': { type: 'string', multiple: true, default: [] },
      'node-flag': { type: 'string', multiple: true, default: [] },
      repos: { type: 'string' },
      restarts: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick === true;
  const num = (v: string | undefined, fallback: number, name: string, min: number) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}`);
    return n;
  };
  const logLevel = values['log-level'];
  if (logLevel !== 'info' && logLevel !== 'silent') throw new Error('--log-level must be info or silent');
  return {
    quick,
    filter: (values.case as string[]).flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean),
    connections: Math.floor(num(values.connections, quick ? 10 : 50, 'connections', 1)),
    durationSec: num(values.duration, quick ? 0.4 : 3, 'duration', 0.1),
    warmupSec: num(values.warmup, quick ? 0.1 : 2, 'warmup', 0),
    settleSec: num(values.settle, quick ? 0.05 : 0.5, 'settle', 0),
    // "At least twice": fewer than 2 interleaved rounds is refused.
    rounds: Math.floor(num(values.rounds, quick ? 2 : 5, 'rounds', 2)),
    // Quick runs are smoke tests: their numbers never go into bench/results unless asked for.
    outDir: path.resolve(values.out ?? (quick ? path.join(os.tmpdir(), 'forgekit-bench-results') : path.join(PACKAGE_ROOT, 'bench', 'results'))),
    pin: values['no-pin'] !== true,
    keepData: values['keep-data'] === true,
    resultsMd: values['no-results-md'] !== true && !quick,
    logLevel,
    skipSeeders: (values['skip-seeder'] as string[]).flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean),
    // 0: no seeded repositories, for a dataset a case file builds through the API (bench/cases/api-built.ts).
    repos: values.repos === undefined ? null : values.repos.trim() === '0' ? 0 : Math.floor(num(values.repos, 0, 'repos', 1_000)),
    nodeFlags: nodeFlagsOf(values['node-flag'] as string[]),
    restarts: Math.floor(num(values.restarts, quick ? 0 : 2, 'restarts', 0)),
  };
}

// ---------------------------------------------------------------------------------------------- child processes

interface Child {
  proc: ChildProcess;
  url: string;
  ready: Record<string, any>;
  spawnToReadyMs: number;
  /** The server child's `settled` message (bench/settled.ts); null for the bare server, or when it never came. */
  settled: Promise<SettledMessage | null>;
}

/** Node flags for the server child: each must be one `--flag` or `--flag=value` (no script, no spaces). */
function nodeFlagsOf(flags: string[]): string[] {
  for (const f of flags) if (!/^--[a-z0-9-]+(=[^\s]+)?$/.test(f)) throw new Error(`--node-flag must be a node option such as --max-semi-space-size=32 (got ${JSON.stringify(f)})`);
  return flags;
}

function startChild(script: string, env: NodeJS.ProcessEnv, logFile: string, cpu: string | null, timeoutMs: number, nodeFlags: string[] = []): Promise<Child> {
  const fd = openSync(logFile, 'a');
  const args = [...nodeFlags, path.join(HERE, script)];
  const started = performance.now();
  const proc = cpu
    ? spawn('taskset', ['-c', cpu, process.execPath, ...args], { env, stdio: ['ignore', fd, fd, 'ipc'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', fd, fd, 'ipc'] });
  closeSync(fd);
  // Listened for from the spawn: it may follow `ready` at once. A child stopped before it settles gives null.
  const settled = settledOf(proc, timeoutMs).catch(() => null);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${script} did not become ready within ${timeoutMs} ms (log: ${logFile})`));
    }, timeoutMs);
    const onMessage = (msg: any) => {
      if (msg?.type === 'ready') {
        clearTimeout(timer);
        proc.off('message', onMessage);
        resolve({ proc, url: msg.url, ready: msg, spawnToReadyMs: Math.round(performance.now() - started), settled });
      } else if (msg?.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`${script} failed to start: ${msg.message}`));
      }
    };
    proc.on('message', onMessage);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before it was ready (log: ${logFile})`));
    });
  });
}

function ask(child: Child, message: Record<string, unknown>, replyType: string, timeoutMs = 10_000): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${replyType} reply within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (msg: any) => {
      if (msg?.type === replyType) {
        clearTimeout(timer);
        child.proc.off('message', onMessage);
        resolve(msg);
      }
    };
    child.proc.on('message', onMessage);
    child.proc.send(message);
  });
}

/**
 * Stops a server child: its own clean stop, else SIGKILL after 15 s (then `out` says so: a stop that hangs is a bug).
 * Resolves to the milliseconds from the request to the exit (null when it had exited already).
 */
async function stopChild(child: Child | undefined, out: (line: string) => void = () => {}): Promise<number | null> {
  // Exited already (a signal leaves exitCode null and sets signalCode: 'exit' will not come again).
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return null;
  const asked = performance.now();
  const exited = new Promise<void>((resolve) => child.proc.once('exit', () => resolve()));
  // A child whose IPC channel already closed (it is on its way out) gets SIGTERM: send() on a closed channel
  // reports its error asynchronously, as an 'error' event that would crash the harness.
  if (child.proc.connected) child.proc.send({ type: 'stop' }, (err) => { if (err) child.proc.kill('SIGTERM'); });
  else child.proc.kill('SIGTERM');
  const timer = setTimeout(() => {
    out(`note: pid ${child.proc.pid} did not stop within 15 s of being asked: killed`);
    child.proc.kill('SIGKILL');
  }, 15_000);
  await exited;
  clearTimeout(timer);
  return Math.round(performance.now() - asked);
}

// ---------------------------------------------------------------------------------------------- requests

interface PreparedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The login that signs it, when a case's setup chose one (results then say whom a drawn request was made as). */
  as?: string;
}

export function prepareRequest(c: BenchCase, fx: BenchFixture, prepared: SetupResult = {}): PreparedRequest {
  const headers: Record<string, string> = { accept: 'application/json', ...c.headers };
  const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
  if (prepared.token) headers.authorization = `token ${prepared.token}`;
  if (c.as) {
    const account = fx.accounts[c.as];
    if (!account) throw new Error(`unknown role "${c.as}"`);
    headers.authorization = `token ${account.token}`;
  }
  let body: Buffer | undefined;
  if (c.body !== undefined) {
    if (typeof c.body === 'string' || Buffer.isBuffer(c.body)) {
      body = Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body);
      if (!has('content-type')) {
        let isJson = true;
        try {
          JSON.parse(body.toString('utf8'));
        } catch {
          isJson = false;
        }
        headers['content-type'] = isJson ? 'application/json' : 'text/plain; charset=utf-8';
      }
    } else {
      body = Buffer.from(JSON.stringify(c.body));
      if (!has('content-type')) headers['content-type'] = 'application/json';
    }
  }
  const rel = prepared.path ?? resolvePath(c, fx);
  const full = (c.root ? '' : fx.apiPrefix) + (rel.startsWith('/') ? rel : `/${rel}`);
  return { method: c.method ?? (body ? 'POST' : 'GET'), path: full, headers, body, ...(prepared.as ? { as: prepared.as } : {}) };
}

let setupUsers = 0;
/** The password of users a case's setup creates (bench/profile.js signs in as one with it). */
export const SETUP_PASSWORD = 'bench-setup-password';

/** The client `setup` functions get: plain HTTP on the running server, users created by the seeded site admin. */
export function benchClient(baseUrl: string, fx: BenchFixture): BenchClient {
  async function request(method: string, p: string, o: { json?: unknown; token?: string; root?: boolean; headers?: Record<string, string>; body?: string | Buffer; basic?: [string, string] } = {}) {
    const headers: Record<string, string> = { ...o.headers };
    let body: string | Buffer | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    }
    if (o.token) headers.authorization = `token ${o.token}`;
    if (o.basic) headers.authorization = `Basic ${Buffer.from(`${o.basic[0]}:${o.basic[1]}`).toString('base64')}`;
    const res = await fetch(baseUrl + (o.root ? '' : fx.apiPrefix) + p, { method, headers, body: body as any });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json: json as any };
  }
  return {
    url: baseUrl,
    request,
    async createUser(input = {}) {
      const username = input.username ?? `bench-setup-${++setupUsers}`;
      const password = input.password ?? SETUP_PASSWORD;
      const email = input.email ?? `${username}@example.com`;
      const made = await request('POST', '/admin/users', { token: fx.accounts.admin.token, json: { username, password, email } });
      if (made.status !== 201) throw new Error(`setup: creating user ${username} answered ${made.status} ${made.text.slice(0, 200)}`);
      const tok = await request('POST', `/users/${encodeURIComponent(username)}/tokens`, { basic: [username, password], json: { name: 'bench', scopes: ['all'] } });
      if (tok.status !== 201) throw new Error(`setup: creating a token for ${username} answered ${tok.status} ${tok.text.slice(0, 200)}`);
      return { id: made.json.id, username, email, token: tok.json.sha1 };
    },
  };
}

/** Headers node:http writes itself on every response; the replay server adds its own. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export function record(baseUrl: string, req: PreparedRequest): Promise<RecordedResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(baseUrl + req.path, { method: req.method, headers: req.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers.push([name, res.rawHeaders[i + 1]!]);
        }
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    r.setTimeout(30_000, () => r.destroy(new Error('recording request timed out')));
    r.on('error', reject);
    r.end(req.body);
  });
}

interface LoadRun {
  stats: RunStats;
  latencies: Float64Array;
}

/**
 * A stream case's requests as the load sends them: in order, round-robin over the connections (one shared cursor),
 * cycling; `{n}` in a path or body becomes the next value of a counter that grows over the whole case.
 */
export interface StreamLoad {
  items: PreparedRequest[];
  cursor: { seq: number; n: number };
}

/** Item `i` of a stream as sent: its place in the `x-bench-seq` header, `{n}` replaced. */
export function streamRequest(stream: StreamLoad, i: number, n: number): PreparedRequest {
  const item = stream.items[i]!;
  const body = item.body && item.body.includes('{n}') ? Buffer.from(item.body.toString('utf8').replaceAll('{n}', String(n))) : item.body;
  return { method: item.method, path: item.path.replaceAll('{n}', String(n)), headers: { ...item.headers, 'x-bench-seq': String(i) }, ...(body ? { body } : {}) };
}

async function load(baseUrl: string, req: PreparedRequest | StreamLoad, expected: number | ReadonlySet<number>, seconds: number, connections: number,
  servers: { measured?: number; idle?: number } = {}, settleSec = 0): Promise<LoadRun> {
  const cpu0 = { measured: cpuMs(servers.measured), idle: cpuMs(servers.idle) };
  const samples = new Samples();
  let wrong = 0;
  const ok = typeof expected === 'number' ? (status: number) => status === expected : (status: number) => expected.has(status);
  const stream = 'items' in req ? req : null;
  const single = 'items' in req ? null : req;
  const instance = autocannon({
    url: single ? baseUrl + single.path : baseUrl,
    ...(single
      ? { method: single.method as autocannon.Request['method'], headers: single.headers, body: single.body }
      : {
        requests: [{
          setupRequest: (r: Record<string, unknown>) => {
            const i = stream!.cursor.seq++ % stream!.items.length;
            const next = streamRequest(stream!, i, stream!.cursor.n++);
            return { ...r, method: next.method, path: next.path, headers: next.headers, body: next.body ?? Buffer.alloc(0) };
          },
        }],
      }),
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    // autocannon stops on its sampling tick: a short tick keeps short runs short (and the run length exact).
    sampleInt: 100,
    skipAggregateResult: true,
  } as autocannon.Options) as unknown as NodeJS.EventEmitter & PromiseLike<unknown>;
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    samples.push(ms);
    if (!ok(status)) wrong++;
  });
  const started = performance.now();
  const result = (await instance) as unknown as { errors: number; timeouts: number; duration?: number };
  const wall = (performance.now() - started) / 1000;
  const latencies = samples.values().slice();
  const stats = runStats(latencies, wall, result.errors ?? 0, result.timeouts ?? 0, wrong);
  const cpu1 = { measured: cpuMs(servers.measured), idle: cpuMs(servers.idle) };
  if (cpu0.measured !== null && cpu1.measured !== null) {
    stats.serverCpuMs = cpu1.measured - cpu0.measured;
    stats.cpuUsPerRequest = latencies.length ? Math.round(((cpu1.measured - cpu0.measured) * 1000) / latencies.length) : 0;
    stats.cpuBusy = wall > 0 ? Math.round(((cpu1.measured - cpu0.measured) / (wall * 1000)) * 100) / 100 : 0;
  }
  if (cpu0.idle !== null && cpu1.idle !== null) stats.otherServerCpuMs = cpu1.idle - cpu0.idle;
  if (settleSec > 0) await sleep(settleSec * 1000);
  return { stats, latencies };
}

// ---------------------------------------------------------------------------------------------- helpers

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await dirBytes(p);
    else if (entry.isFile()) total += (await stat(p)).size;
  }
  return total;
}

function countLines(file: string): Promise<{ lines: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    let lines = 0;
    let bytes = 0;
    createReadStream(file)
      .on('data', (chunk: string | Buffer) => {
        const b = chunk as Buffer;
        bytes += b.length;
        for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
      })
      .on('end', () => resolve({ lines, bytes }))
      .on('error', reject);
  });
}

/** CPU time (user + system, all threads) a process has used, in ms; null where /proc is not available. */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name; clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function load1(): number {
  return Math.round(os.loadavg()[0]! * 100) / 100;
}

/** A filter term that is exactly a case name selects that case only; any other term matches names and groups. */
export function matchesFilter(c: BenchCase, group: string, filter: string[], allNames: ReadonlySet<string> = new Set()): boolean {
  // An explicit case runs only when a filter names it (its name, not its group): it builds its own data.
  if (filter.length === 0) return !c.explicit;
  return filter.some((f) => (allNames.has(f) ? c.name === f : c.name.includes(f) || (!c.explicit && group.includes(f))));
}

const quiet = { info() {}, warn() {}, error(...args: unknown[]) { console.error(...args); } };

/**
 * The benchmark empties every collection it seeds, so it never runs in the database a URI names: it uses that
 * database's `_bench` sibling (`mongodb://h/forgekit` → `mongodb://h/forgekit_bench`), unless the name already
 * ends in `bench`.
 */
export function benchMongoUri(uri: string): string {
  if (!uri) return uri;
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?#]*)(\/[^?#]*)?(.*)$/.exec(uri);
  if (!match) throw new Error('FORGEKIT_MONGODB_URI is not a mongodb:// URI');
  const [, authority, dbPath = '', rest] = match;
  const db = decodeURIComponent(dbPath.replace(/^\//, '')) || 'forgekit';
  const benchDb = /bench$/i.test(db) ? db : `${db}_bench`;
  return `${authority}/${encodeURIComponent(benchDb)}${rest}`;
}

// ---------------------------------------------------------------------------------------------- main

/**
 * The dataset's sizes: the mode's, with `--repos` changing only the number of repositories (everything else, accounts
 * included, stays as it is, so a growth series measures the same callers over more repositories). The owner role keeps
 * its share of at most a tenth of them.
 */
export function datasetSizes(opts: Pick<BenchOptions, 'quick' | 'repos'>): DatasetSizes {
  const base = opts.quick ? QUICK_SIZES : FULL_SIZES;
  if (opts.repos === null || opts.repos === base.repos) return base;
  return { ...base, repos: opts.repos, ownerRepos: Math.min(base.ownerRepos, Math.floor(opts.repos / 10)) };
}

export async function runBench(opts: BenchOptions, out: (line: string) => void = console.log): Promise<BenchResult> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const commit = commitInfo();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'forgekit-bench-'));
  const dataDir = path.join(tmp, 'data');
  const baseConfig = loadConfig({ env: process.env, overrides: { dataDir } });
  const mongodbUri = benchMongoUri(baseConfig.mongodbUri);
  const config = loadConfig({ env: process.env, overrides: { dataDir, mongodbUri } });
  const plugins = resolvePlugins(builtinPlugins, config.disabledPlugins);
  const enabled = new Set(plugins.map((p) => p.name));
  const sizes = datasetSizes(opts);
  const plan = planDataset(sizes);
  const fixture = fixtureOf(plan, config.apiPrefix, opts.quick);
  const problems: string[] = [];

  const canPin = opts.pin && os.cpus().length >= 2 && hasTaskset();
  const pinning = canPin ? { server: '0', load: '1' } : null;
  if (pinning && !pin(process.pid, pinning.load)) problems.push('could not pin the load generator; running unpinned');

  const loaded = await loadCases(fixture);
  for (const p of loaded.problems) problems.push(`case file ${p.file} failed to load: ${p.message}`);
  for (const m of loaded.missing) problems.push(`case ${m.name} not run: ${m.file} does not exist yet (${m.what})`);

  // The cases this run measures, known before seeding: a run of a few cases seeds only the case files they come from
  // (the 200,000 issues take minutes to seed; the contents cases need none of it). A case of the harness's own
  // table may read what any case file seeds, so selecting one keeps every seeder.
  const allNames = new Set(loaded.cases.map((l) => l.case.name));
  const selected: Array<{ loadedCase: LoadedCase; group: string }> = [];
  for (const loadedCase of loaded.cases) {
    const c = loadedCase.case;
    let group = c.group ?? '';
    if (!group) {
      try {
        group = inferGroup(c.method ?? (c.body !== undefined ? 'POST' : 'GET'), typeof c.path === 'string' ? c.path : resolvePath(c, fixture));
      } catch {
        group = 'unknown';
      }
    }
    if (matchesFilter(c, group, opts.filter, allNames)) selected.push({ loadedCase, group });
  }
  const fromFiles = new Set(selected.flatMap((s) => [s.loadedCase.from, ...neededFiles(s.loadedCase.case)]));
  const extraSeeders = opts.filter.length === 0 || fromFiles.has('harness')
    ? loaded.seeders
    : loaded.seeders.filter((s) => fromFiles.has(s.from));

  let forge: Child | undefined;
  let bare: Child | undefined;
  const cases: CaseResult[] = [];
  // Ctrl-C: the servers go (they also exit when the IPC channel closes) and the seeded data dir with them.
  const onSigint = () => {
    forge?.proc.kill('SIGKILL');
    bare?.proc.kill('SIGKILL');
    rm(tmp, { recursive: true, force: true }).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  try {
    out(`forgekit bench (${opts.quick ? 'quick' : 'full'}) on ${machine.cpuModel} ×${machine.cpus}, node ${machine.node}, commit ${commit.short}${commit.dirty ? '+dirty' : ''}`);
    out(`seeding ${plan.accounts.length} accounts and ${plan.repos.length} repositories into ${mongodbUri ? `MongoDB database ${decodeURIComponent(/^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/.exec(mongodbUri)?.[1] ?? '')}` : dataDir} …`);
    const store = createStore({ dataDir, mongodbUri: config.mongodbUri, compactIntervalMs: 0 }, quiet);
    await store.open();
    let seed;
    try {
      seed = await seedDataset({ store, plan, fixture, config, plugins, quick: opts.quick, extraSeeders: extraSeeders.filter((s) => !opts.skipSeeders.some((skip) => s.from.includes(skip))), log: (m) => out(`  ${m}`) });
    } finally {
      await store.close();
    }
    const storeKind = store.kind;
    const dataDirBytes = storeKind === 'embedded' ? await dirBytes(dataDir) : 0;
    out(`seeded in ${(seed.ms / 1000).toFixed(1)} s`);
    keepSeed(dataDir, benchSeed());

    const logFile = path.join(tmp, 'forgekit.log');
    const forgePort = await freePort();
    // Both servers run with `npm start`'s node flags (the bare one too: the same runtime for both), then the run's own.
    const serverFlags = [...SERVE_NODE_FLAGS, ...opts.nodeFlags];
    const bootForge = () => startChild('server-forge.js', {
      ...process.env,
      ...(mongodbUri ? { FORGEKIT_MONGODB_URI: mongodbUri } : {}),
      FORGEKIT_BENCH_SERVER: JSON.stringify({ dataDir, port: forgePort, logLevel: opts.logLevel }),
      // The full dataset boots in ~20 s on a quiet machine and several times that on a busy one; the boot time is
      // reported (and judged against its target), so waiting longer only keeps a slow boot from ending the run.
    }, logFile, pinning?.server ?? null, opts.quick ? 120_000 : 600_000, serverFlags);
    const boots: Child[] = [];
    for (let i = 0; i <= opts.restarts; i++) {
      if (forge) await stopChild(forge, out);
      const booted: Child = await bootForge();
      forge = booted;
      boots.push(booted);
      out(`forgekit ${i === 0 ? 'ready' : `restart ${i} ready`} in ${forge.spawnToReadyMs} ms (createForge ${forge.ready.createForgeMs} ms), RSS ${(forge.ready.rss / 1024 / 1024).toFixed(0)} MiB`);
    }
    if (!forge) throw new Error('forgekit did not boot');
    // The serving boot's background work (the issues' q index) ends before the first case: its CPU is the boot's tail,
    // not the cost of the case's requests.
    const settled = await forge.settled;
    out(settled ? settledNote(settled) : 'forgekit did not report the end of its background work');
    const execArgv: string[] = forge.ready.execArgv ?? [];
    for (const flag of serverFlags) if (!execArgv.includes(flag)) throw new Error(`the forgekit server runs without ${flag} (its node flags: ${execArgv.join(' ') || 'none'})`);
    bare = await startChild('server-bare.js', { ...process.env, FORGEKIT_BENCH_PORT: String(await freePort()) }, path.join(tmp, 'bare.log'), pinning?.server ?? null, 30_000, serverFlags);

    for (const { loadedCase, group } of selected) {
      const c = loadedCase.case;
      const unseeded = neededFiles(c).filter((f) => opts.skipSeeders.some((skip) => f.includes(skip)));
      if (unseeded.length) {
        const why = `needs the seeder of ${unseeded.join(', ')} (left out by --skip-seeder)`;
        cases.push(baseResult(c, loadedCase, group, undefined, 'skipped', why));
        out(`${c.name}: skipped (${why})`);
        continue;
      }
      const missing = (c.plugins ?? []).filter((p) => !enabled.has(p));
      if (missing.length) {
        const known = new Set(builtinPlugins.map((p) => p.name));
        const why = missing.map((p) => (known.has(p) ? `plugin ${p} is disabled` : `plugin ${p} does not exist yet`)).join(', ');
        cases.push(baseResult(c, loadedCase, group, undefined, 'skipped', why));
        out(`${c.name}: skipped (${why})`);
        continue;
      }
      let prepared: PreparedRequest;
      try {
        const made = c.setup ? await c.setup(benchClient(forge.url, fixture)) : {};
        prepared = prepareRequest(c, fixture, made ?? {});
      } catch (err) {
        cases.push(baseResult(c, loadedCase, group, undefined, 'failed', `preparing the request: ${(err as Error).message}`));
        out(`${c.name}: failed (${(err as Error).message})`);
        continue;
      }
      const result = await measureCase(c, loadedCase, group, prepared, fixture, forge, bare, opts);
      // The server's memory after each case: which request shape drives the peak RSS.
      const after = await ask(forge, { type: 'memory' }, 'memory').catch(() => null);
      if (after) result.serverMemory = { rssBytes: after.rss, maxRssBytes: after.maxRss };
      cases.push(result);
      out(result.status === 'ok'
        ? `${c.name}: forgekit ${result.forgekit!.reqPerSec} req/s p99 ${result.forgekit!.p99Ms} ms, bare ${result.bare!.reqPerSec} req/s, ratio ${result.ratio!.ratio}, CPU µs/req ${result.forgekit!.cpuUsPerRequest ?? '?'} / ${result.bare!.cpuUsPerRequest ?? '?'} (cpu ratio ${result.ratio!.cpu ?? '?'}), ${result.recorded?.bytes ?? '?'} bytes${result.connections ? `, ${result.connections} connections` : ''}, load ${result.load?.map((l) => l.toFixed(1)).join('→') ?? '?'}`
        : `${c.name}: ${result.status} (${result.reason})`);
    }

    const mem = await ask(forge, { type: 'memory' }, 'memory');
    await stopChild(bare, out);
    // The server's own stop: plugins, then the store's close (which compacts every file written since the boot).
    const stopMs = await stopChild(forge, out);
    const log = await countLines(logFile);
    // Judged on the median boot (the first after seeding and the restarts); each is reported.
    const bootsMs = boots.map((b) => b.spawnToReadyMs);
    const bootMs = Math.round(median(bootsMs));
    const result: BenchResult = {
      schema: RESULT_SCHEMA,
      mode: opts.quick ? 'quick' : 'full',
      startedAt,
      finishedAt: new Date().toISOString(),
      store: storeKind,
      machine,
      commit,
      settings: {
        connections: opts.connections,
        durationSec: opts.durationSec,
        warmupSec: opts.warmupSec,
        settleSec: opts.settleSec,
        rounds: opts.rounds,
        order: 'A B A B (forgekit, then bare, per round)',
        logLevel: opts.logLevel,
        nodeFlags: serverFlags,
        pinning,
        filter: opts.filter,
      },
      dataset: { sizes, accounts: plan.accounts.length, termCounts: plan.termCounts, seed, dataDirBytes },
      server: {
        bootMs,
        bootsMs,
        createForgeMs: forge.ready.createForgeMs,
        rssAfterBootBytes: forge.ready.rss,
        rssAtEndBytes: mem.rss,
        maxRssBytes: mem.maxRss,
        ...(stopMs !== null ? { stopMs } : {}),
        ...(settled ? { settled: { afterListenMs: settled.sinceReadyMs, work: settled.work } } : {}),
        logBytes: log.bytes,
        logLines: log.lines,
      },
      targets: {
        bootUnderMs: BOOT_MAX_MS,
        bootMet: bootMs < BOOT_MAX_MS,
        rssUnderBytes: RSS_MAX_BYTES,
        rssMet: Math.max(mem.maxRss, mem.rss) < RSS_MAX_BYTES,
      },
      cases,
      problems,
    };

    out('');
    out(textTable(result));
    out('');
    out(summaryText(result));
    for (const p of problems) out(`note: ${p}`);

    await mkdir(opts.outDir, { recursive: true });
    const file = path.join(opts.outDir, resultFileName(result));
    await writeFile(file, JSON.stringify(result, null, 2) + '\n');
    out(`results: ${path.relative(process.cwd(), file) || file}`);
    if (opts.resultsMd && opts.filter.length === 0) {
      const mdFile = path.join(PACKAGE_ROOT, 'bench', 'RESULTS.md');
      const existing = await readFile(mdFile, 'utf8').catch(() => null);
      await writeFile(mdFile, spliceResults(existing, markdownReport(result)));
      out(`table written to ${path.relative(process.cwd(), mdFile)}`);
    }
    return result;
  } finally {
    process.off('SIGINT', onSigint);
    await stopChild(bare, out).catch(() => {});
    await stopChild(forge, out).catch(() => {});
    // Retried: a git process the server started may still be finishing in the data dir. Said, not thrown: the
    // results are written by now. (Suite runs have left such dirs behind a few times; this line says why next time.)
    if (!opts.keepData) await rm(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).catch((err: Error) => out(`note: could not remove ${tmp}: ${err.message}`));
    else out(`data kept in ${tmp}`);
  }
}

/** The case files whose seeders a case reads besides its own (`BenchCase.needs`). */
function neededFiles(c: BenchCase): string[] {
  return (c.needs ?? []).map((n) => `bench/cases/${n}.ts`);
}

function baseResult(c: BenchCase, loaded: { from: string; replaces?: string }, group: string, req: PreparedRequest | undefined,
  status: CaseResult['status'], reason?: string): CaseResult {
  return {
    name: c.name,
    group,
    from: loaded.from,
    ...(loaded.replaces ? { replaces: loaded.replaces } : {}),
    method: req?.method ?? c.method ?? 'GET',
    path: req?.path ?? (typeof c.path === 'string' ? c.path : '<computed>'),
    as: req?.as ?? c.as ?? null,
    description: c.description ?? '',
    status,
    ...(reason ? { reason } : {}),
  };
}

async function measureCase(c: BenchCase, loaded: { from: string; replaces?: string }, group: string, req: PreparedRequest,
  fx: BenchFixture, forge: Child, bare: Child, opts: BenchOptions): Promise<CaseResult> {
  if (c.stream) return measureStream(c, loaded, group, fx, forge, bare, opts);
  const base = baseResult(c, loaded, group, req, 'ok');
  const expected = c.status ?? 200;
  let recorded: RecordedResponse;
  try {
    recorded = await record(forge.url, req);
  } catch (err) {
    return { ...base, status: 'failed', reason: `recording failed: ${(err as Error).message}` };
  }
  const recordedInfo = { status: recorded.status, bytes: recorded.body.length, headers: recorded.headers };
  if (recorded.status !== expected) {
    const snippet = recorded.body.toString('utf8').slice(0, 200);
    return { ...base, recorded: recordedInfo, status: 'failed', reason: `forgekit answered ${recorded.status}, expected ${expected}: ${snippet}` };
  }
  const problem = c.check?.(recorded, fx) ?? null;
  if (problem) return { ...base, recorded: recordedInfo, status: 'failed', reason: `recorded response: ${problem}` };
  await ask(bare, { type: 'set', status: recorded.status, headers: recorded.headers, body: recorded.body.toString('base64') }, 'set-ok');
  const check = await record(bare.url, req);
  if (check.status !== recorded.status || !check.body.equals(recorded.body)) {
    return { ...base, recorded: recordedInfo, status: 'failed', reason: 'the bare server did not replay the recorded response' };
  }

  const loadBefore = load1();
  // A slow request (a 50 KB markdown render) needs longer runs: every connection should finish a few requests per
  // run, or the run measures its own start and end. The service time is the best of three sequential requests.
  let serviceMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await record(forge.url, req);
    serviceMs = Math.min(serviceMs, performance.now() - t0);
  }
  const connections = c.connections ?? opts.connections;
  // A --quick run (the smoke test in npm test) only proves each case works: one request per connection is enough,
  // and its runs are capped at 3 s (the full form's 4 per connection took 23 s for the markdown case alone).
  const perConnection = opts.quick ? 1 : 4;
  const runSec = Math.max(opts.durationSec, Math.min(opts.quick ? 3 : 30, (serviceMs * connections * perConnection) / 1000));
  const warmSec = opts.warmupSec > 0 ? Math.max(opts.warmupSec, Math.min(opts.quick ? 1.5 : 15, (serviceMs * connections * perConnection) / 2000)) : 0;
  const onForge = { measured: forge.proc.pid, idle: bare.proc.pid };
  const onBare = { measured: bare.proc.pid, idle: forge.proc.pid };
  if (warmSec > 0) {
    await load(forge.url, req, expected, warmSec, connections, onForge, opts.settleSec);
    await load(bare.url, req, expected, warmSec, connections, onBare, opts.settleSec);
  }
  // A run that finished no request measured nothing (a stalled, shared machine): run it again, twice as long, a few
  // times before giving up, so short --quick runs do not fail on a busy CI machine.
  const measure = async (url: string, on: typeof onForge): Promise<LoadRun> => {
    let sec = runSec;
    for (let attempt = 0; ; attempt++) {
      const run = await load(url, req, expected, sec, connections, on, opts.settleSec);
      if (run.stats.requests > 0 || attempt === 3) return run;
      sec *= 2;
    }
  };
  const a: LoadRun[] = [];
  const b: LoadRun[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    a.push(await measure(forge.url, onForge));
    b.push(await measure(bare.url, onBare));
  }
  const forgekit = combine(a.map((r) => r.stats), a.map((r) => r.latencies));
  const bareSummary = combine(b.map((r) => r.stats), b.map((r) => r.latencies));
  const ratio = ratioOf(forgekit, bareSummary);
  const result: CaseResult = {
    ...base,
    recorded: recordedInfo,
    forgekit,
    bare: bareSummary,
    ratio,
    verdict: judge(group, {
      ratio: ratio.ratio, cpuRatio: ratio.cpu, bareBusy: bareSummary.cpuBusy,
      p99Ms: forgekit.p99Ms, bareP99Ms: bareSummary.p99Ms, connections,
    }),
    load: [loadBefore, load1()],
  };
  result.serviceMs = Math.round(serviceMs * 100) / 100;
  result.runSec = Math.round(runSec * 100) / 100;
  if (connections !== opts.connections) result.connections = connections;
  if ([...a, ...b].some((r) => r.stats.requests === 0)) {
    result.status = 'failed';
    result.reason = `a run of ${result.runSec} s finished no request (service time ${result.serviceMs} ms): lengthen --duration`;
  } else if (forgekit.errors > 0 || bareSummary.errors > 0) {
    result.status = 'failed';
    result.reason = `errors under load: forgekit ${forgekit.errors}, bare ${bareSummary.errors} (socket errors, timeouts or a status other than ${expected})`;
  }
  return result;
}

/**
 * A stream case: every item recorded once from forgekit, in order (any status of 400 or more fails the case); the
 * bare server gets every recorded response and answers item i with item i's; then both get the same stream under the
 * same load, interleaved like a single request, each run starting at the stream's first item.
 */
async function measureStream(c: BenchCase, loaded: { from: string; replaces?: string }, group: string, fx: BenchFixture,
  forge: Child, bare: Child, opts: BenchOptions): Promise<CaseResult> {
  const spec = c.stream!(fx);
  const items: PreparedRequest[] = spec.items.map((it) => ({
    method: it.method,
    path: fx.apiPrefix + it.path,
    headers: {
      accept: 'application/json',
      ...(it.token ? { authorization: `token ${it.token}` } : {}),
      ...(it.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(it.body !== undefined ? { body: Buffer.from(JSON.stringify(it.body)) } : {}),
  }));
  const mix: Record<string, number> = {};
  for (const it of spec.items) mix[it.kind] = (mix[it.kind] ?? 0) + 1;
  const distinct = new Set(spec.items.map((it) => `${it.method} ${it.path} ${it.token ?? ''} ${JSON.stringify(it.body ?? null)}`)).size;
  const base: CaseResult = {
    ...baseResult(c, loaded, group, undefined, 'ok'),
    method: 'MIXED',
    path: `${spec.items.length} requests, seed ${spec.seed}`,
    stream: { seed: spec.seed, items: spec.items.length, distinct, mix },
  };
  const stream: StreamLoad = { items, cursor: { seq: 0, n: 0 } };
  const recorded: RecordedResponse[] = [];
  const statuses = new Set<number>();
  const t0 = performance.now();
  for (let i = 0; i < items.length; i++) {
    let res: RecordedResponse;
    try {
      res = await record(forge.url, streamRequest(stream, i, stream.cursor.n++));
    } catch (err) {
      return { ...base, status: 'failed', reason: `recording item ${i} failed: ${(err as Error).message}` };
    }
    if (res.status >= 400) {
      const it = spec.items[i]!;
      return { ...base, status: 'failed', reason: `item ${i} (${it.method} ${it.path}) answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}` };
    }
    recorded.push(res);
    statuses.add(res.status);
  }
  const serviceMs = (performance.now() - t0) / items.length;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-bench-stream-'));
  try {
    const file = path.join(dir, 'stream.json');
    await writeFile(file, JSON.stringify(recorded.map((r) => ({ status: r.status, headers: r.headers, body: r.body.toString('base64') }))));
    await ask(bare, { type: 'stream', file }, 'stream-ok', 120_000);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  for (const i of [0, Math.floor(items.length / 2), items.length - 1]) {
    const check = await record(bare.url, streamRequest(stream, i, 0));
    if (check.status !== recorded[i]!.status || !check.body.equals(recorded[i]!.body)) {
      return { ...base, status: 'failed', reason: `the bare server did not replay item ${i}'s recorded response` };
    }
  }
  const loadBefore = load1();
  const onForge = { measured: forge.proc.pid, idle: bare.proc.pid };
  const onBare = { measured: bare.proc.pid, idle: forge.proc.pid };
  const run = (url: string, on: typeof onForge, sec: number) => {
    stream.cursor.seq = 0;
    return load(url, stream, statuses, sec, opts.connections, on, opts.settleSec);
  };
  if (opts.warmupSec > 0) {
    await run(forge.url, onForge, opts.warmupSec);
    await run(bare.url, onBare, opts.warmupSec);
  }
  const a: LoadRun[] = [];
  const b: LoadRun[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    a.push(await run(forge.url, onForge, opts.durationSec));
    b.push(await run(bare.url, onBare, opts.durationSec));
  }
  const forgekit = combine(a.map((r) => r.stats), a.map((r) => r.latencies));
  const bareSummary = combine(b.map((r) => r.stats), b.map((r) => r.latencies));
  const ratio = ratioOf(forgekit, bareSummary);
  const result: CaseResult = {
    ...base,
    // The stream's most frequent status (its reads' 200), and every body's bytes.
    recorded: { status: mostFrequent(recorded.map((r) => r.status)), bytes: recorded.reduce((n, r) => n + r.body.length, 0), headers: [] },
    forgekit,
    bare: bareSummary,
    ratio,
    verdict: judge(group, {
      ratio: ratio.ratio, cpuRatio: ratio.cpu, bareBusy: bareSummary.cpuBusy,
      p99Ms: forgekit.p99Ms, bareP99Ms: bareSummary.p99Ms, connections: opts.connections,
    }),
    load: [loadBefore, load1()],
    serviceMs: Math.round(serviceMs * 100) / 100,
    runSec: opts.durationSec,
  };
  if ([...a, ...b].some((r) => r.stats.requests === 0)) {
    result.status = 'failed';
    result.reason = `a run of ${opts.durationSec} s finished no request: lengthen --duration`;
  } else if (forgekit.errors > 0 || bareSummary.errors > 0) {
    result.status = 'failed';
    result.reason = `errors under load: forgekit ${forgekit.errors}, bare ${bareSummary.errors} (socket errors, timeouts or a status the recording did not have: ${[...statuses].join(', ')})`;
  }
  return result;
}

function mostFrequent(xs: number[]): number {
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

// Run when executed directly (not when imported by tests).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let opts: BenchOptions;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  runBench(opts).then(
    (result) => {
      const failed = result.cases.filter((c) => c.status === 'failed');
      process.exitCode = failed.length ? 1 : 0;
    },
    (err) => {
      console.error(err instanceof Error ? err.stack ?? err.message : err);
      process.exitCode = 1;
    },
  );
}
