// Where the time goes: boots forgekit under `node --cpu-prof` on a seeded data dir, loads one case (or just boots),
// and prints the functions and modules with the most self time. Use it when a target is missed.
//
//   node dist/bench/run.js --keep-data …           # prints "data kept in /tmp/forgekit-bench-XXXX"
//   node dist/bench/profile.js --data /tmp/forgekit-bench-XXXX/data --case repos-search-common [--seconds 10]
//   node dist/bench/profile.js --data … --boot      # profile the boot only (store load, plugin start)
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig, PACKAGE_ROOT } from '../core/config.js';
import { SERVE_NODE_FLAGS } from '../core/heap-headroom.js';
import type { Store } from '../core/store/port.js';
import type { BenchCase, SeedContext, SetupResult } from './case.js';
import { FULL_SIZES, planDataset, prng, QUICK_SIZES, seedOf, tokenOf, type DatasetPlan } from './dataset.js';
import { adoptKeptSeed, seedNote } from './kept-seed.js';
import { loadCases } from './load-cases.js';
import { benchClient, prepareRequest, SETUP_PASSWORD, streamRequest, type StreamLoad } from './run.js';
import { fixtureOf } from './seed.js';
import { settledNote, settledOf } from './settled.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by what it is spent on: store, plugins, serialisation, logging, kernel, HTTP and sockets, GC. */
  categories: Array<{ category: string; ms: number; share: number }>;
  functions: Array<{ name: string; where: string; ms: number; share: number }>;
  modules: Array<{ module: string; ms: number; share: number }>;
}

/** Groups a script URL into something a reader recognises: a package, a forgekit directory, or node internals. */
export function moduleOf(url: string): string {
  if (!url) return '(native / idle / gc)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) {
    const parts = url.slice(dist + 6).split('/');
    return parts.length > 2 ? `forgekit ${parts[0]}/${parts[1]}` : `forgekit ${parts[0]}`;
  }
  return url;
}

/** The cost centre of a module (as `moduleOf` names it). */
export function categoryOf(module: string): string {
  if (module === '(garbage collector)') return 'garbage collection';
  if (module === '(idle)') return 'idle';
  if (module.startsWith('forgekit core/store') || module === '@seald-io/nedb' || module === '@seald-io/binary-search-tree' || module === 'mongodb' || module === 'bson') return 'store';
  if (module.startsWith('forgekit plugins')) return 'plugins';
  if (module.startsWith('forgekit core')) return 'kernel';
  if (module === 'fast-json-stringify') return 'serialisation';
  if (module === 'pino' || module === 'sonic-boom' || module === 'thread-stream') return 'logging';
  if (module === 'ajv' || module === 'ajv-formats' || module === 'find-my-way') return 'routing and validation';
  if (module.startsWith('node:') || module === '(native / idle / gc)') return 'node: HTTP, sockets, native';
  return `other (${module})`;
}

/** A profile frame as the summaries name it: the function, where it is (relative to the package), one key for both. */
function frameOf(f: { functionName: string; url: string; lineNumber: number }): { name: string; where: string; key: string } {
  const name = f.functionName || '(anonymous)';
  const file = f.url ? f.url.replace(/^file:\/\//, '').replace(PACKAGE_ROOT + '/', '') : '';
  const where = file ? `${file}:${f.lineNumber + 1}` : '';
  return { name, where, key: `${name}@${where}` };
}

export function summarise(profile: CpuProfile, top = 25): ProfileSummary {
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byFunction = new Map<string, { name: string; where: string; us: number }>();
  const byModule = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    total += us;
    const f = node.callFrame;
    const { name, where, key } = frameOf(f);
    const entry = byFunction.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
    // Frames without a script: the fs binding's writeString is the request log (sonic-boom's fs.write; responses go
    // out through socket writev), `anonymousN` is code fast-json-stringify generated.
    const mod = name === '(idle)' ? '(idle)' : name === '(garbage collector)' ? '(garbage collector)'
      : !f.url && name === 'writeString' ? 'sonic-boom'
      : !f.url && /^anonymous\d+$/.test(name) ? 'fast-json-stringify'
      : moduleOf(f.url.replace(/^file:\/\//, ''));
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
  }
  const share = (us: number) => Math.round((us / Math.max(1, total)) * 1000) / 10;
  const byCategory = new Map<string, number>();
  for (const [mod, us] of byModule) byCategory.set(categoryOf(mod), (byCategory.get(categoryOf(mod)) ?? 0) + us);
  return {
    totalMs: Math.round(total / 1000),
    categories: [...byCategory].sort((a, b) => b[1] - a[1]).map(([category, us]) => ({ category, ms: Math.round(us / 1000), share: share(us) })),
    functions: [...byFunction.values()].sort((a, b) => b.us - a.us).slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, ms: Math.round(f.us / 1000), share: share(f.us) })),
    modules: [...byModule].sort((a, b) => b[1] - a[1]).slice(0, top)
      .map(([module, us]) => ({ module, ms: Math.round(us / 1000), share: share(us) })),
  };
}

interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: AllocNode[];
}

export interface AllocSummary {
  /** Bytes allocated over the window (sampled: each sample stands for about the sampling interval's bytes). */
  totalBytes: number;
  functions: Array<{ name: string; where: string; bytes: number; share: number }>;
  modules: Array<{ module: string; bytes: number; share: number }>;
}

/** Allocated bytes by the function and module that allocated them, from a sampling heap profile (`--alloc`). */
export function summariseAllocations(root: AllocNode, top = 25): AllocSummary {
  const byFunction = new Map<string, { name: string; where: string; bytes: number }>();
  const byModule = new Map<string, number>();
  let total = 0;
  const stack: AllocNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    for (const child of node.children ?? []) stack.push(child);
    if (node.selfSize === 0) continue;
    total += node.selfSize;
    const f = node.callFrame;
    const { name, where, key } = frameOf(f);
    const entry = byFunction.get(key) ?? { name, where, bytes: 0 };
    entry.bytes += node.selfSize;
    byFunction.set(key, entry);
    const mod = moduleOf(f.url.replace(/^file:\/\//, ''));
    byModule.set(mod, (byModule.get(mod) ?? 0) + node.selfSize);
  }
  const share = (b: number) => Math.round((b / Math.max(1, total)) * 1000) / 10;
  return {
    totalBytes: total,
    functions: [...byFunction.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top).map((f) => ({ ...f, share: share(f.bytes) })),
    modules: [...byModule].sort((a, b) => b[1] - a[1]).slice(0, top).map(([module, bytes]) => ({ module, bytes, share: share(bytes) })),
  };
}

/** The allocation summary per request: bytes a request allocates, by module and by function. */
export function formatAllocations(title: string, s: AllocSummary, requests: number): string {
  const per = (b: number) => String(Math.round(b / Math.max(1, requests))).padStart(7);
  const lines = [`== ${title}: ${per(s.totalBytes).trim()} bytes allocated per request (${requests} requests)`, '-- bytes per request by module'];
  for (const m of s.modules) lines.push(`${String(m.share).padStart(5)}%  ${per(m.bytes)} B  ${m.module}`);
  lines.push('-- bytes per request by function');
  for (const f of s.functions) lines.push(`${String(f.share).padStart(5)}%  ${per(f.bytes)} B  ${f.name}  ${f.where}`);
  return lines.join('\n');
}

/** autocannon's options for a case: its one request, or its stream replayed item after item (creates get fresh names). */
export function loadOptions(c: BenchCase, fx: ReturnType<typeof fixtureOf>, url: string, made: SetupResult, connections: number): autocannon.Options {
  if (c.stream) {
    const spec = c.stream(fx);
    const stream: StreamLoad = {
      items: spec.items.map((it) => ({
        method: it.method,
        path: fx.apiPrefix + it.path,
        headers: { accept: 'application/json', ...(it.token ? { authorization: `token ${it.token}` } : {}), ...(it.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(it.body !== undefined ? { body: Buffer.from(JSON.stringify(it.body)) } : {}),
      })),
      // Creates in the stream need names no earlier run used.
      cursor: { seq: 0, n: Date.now() % 1_000_000_000 },
    };
    console.log(`stream of ${spec.items.length} requests, seed ${spec.seed}`);
    return {
      url,
      connections,
      requests: [{
        setupRequest: (r: Record<string, unknown>) => {
          const next = streamRequest(stream, stream.cursor.seq++ % stream.items.length, stream.cursor.n++);
          return { ...r, method: next.method, path: next.path, headers: next.headers, body: next.body ?? Buffer.alloc(0) };
        },
      }],
    } as unknown as autocannon.Options;
  }
  const req = prepareRequest(c, fx, made);
  return { url: url + req.path, method: req.method as any, headers: req.headers, body: req.body, connections } as autocannon.Options;
}

/** A seed context whose store keeps nothing (ids count on from past the plan): seeders only look at the plan. */
export function replayContext(plan: DatasetPlan, fx: ReturnType<typeof fixtureOf>, from: string, quick: boolean): SeedContext {
  let nextId = 1_000_000_000;
  // A store that keeps nothing: inserts vanish, reads find nothing, updates change nothing.
  const empty: Record<string, () => Promise<unknown>> = { find: async () => [], findOne: async () => null, count: async () => 0 };
  const collection = () => new Proxy({}, {
    get: (_, name) => (name === 'insertMany' ? async (docs: unknown[]) => docs : empty[name as string] ?? (async () => ({ matched: 0, modified: 0 }))),
  });
  const store = new Proxy({}, {
    get: (_, name) => (name === 'collection' ? collection : name === 'nextId' ? async () => nextId++ : async () => undefined),
  }) as unknown as Store;
  return {
    store,
    quick,
    sizes: plan.sizes,
    fixture: fx,
    users: plan.users.map((u) => ({ id: u.id, login: u.login })),
    repos: plan.repos.map((r) => ({ id: r.id, ownerId: r.ownerId, lowerName: r.lowerName, private: r.private })),
    random: prng(seedOf(`seeder:${from}`)),
    log: () => {},
  };
}

export function formatSummary(title: string, s: ProfileSummary): string {
  const lines = [`== ${title}: ${s.totalMs} ms of samples`, '-- self time by cost centre'];
  for (const c of s.categories) lines.push(`${String(c.share).padStart(5)}%  ${String(c.ms).padStart(7)} ms  ${c.category}`);
  lines.push('-- self time by module');
  for (const m of s.modules) lines.push(`${String(m.share).padStart(5)}%  ${String(m.ms).padStart(7)} ms  ${m.module}`);
  lines.push('-- self time by function');
  for (const f of s.functions) lines.push(`${String(f.share).padStart(5)}%  ${String(f.ms).padStart(7)} ms  ${f.name}  ${f.where}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      case: { type: 'string' },
      boot: { type: 'boolean', default: false },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      quick: { type: 'boolean', default: false },
      top: { type: 'string', default: '25' },
      // A request of the case's shape with another path (e.g. one a setup-built case drew), signed in as `login`
      // (a token is made with the password bench/run.ts's setup users get): no setup runs. The path comes without the
      // API prefix (`/repos/issues/search?…`). The issue families of list-random.ts need it: a replay keeps no issues.
      path: { type: 'string' },
      login: { type: 'string' },
      // What the load window allocates (a sampling heap profile counting collected objects too) instead of CPU time.
      alloc: { type: 'boolean', default: false },
      // Cases loaded first, unprofiled, for --seconds each (e.g. `--before mixed-0`: the server as the full run leaves
      // it for the cases after the mixed stream, whose writes the profiled case then meets).
      before: { type: 'string', multiple: true, default: [] },
    },
  });
  if (!values.data || (!values.case && !values.boot)) {
    console.error('usage: node dist/bench/profile.js --data <seeded data dir> (--case <name> [--path P (no /api/v1) [--login L]] [--before <case>]... [--alloc] | --boot) [--seconds 10] [--quick]');
    process.exit(2);
  }
  const dataDir = path.resolve(values.data);
  const profDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-prof-'));
  const config = loadConfig({ env: process.env, overrides: { dataDir } });
  const plan = planDataset(values.quick ? QUICK_SIZES : FULL_SIZES);
  const fx = fixtureOf(plan, config.apiPrefix, values.quick === true);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server-forge.js');
  // --boot: the whole process under --cpu-prof, stopped once listening. --case: only the load window (inspector).
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, ...(values.boot ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), script], {
    env: { ...process.env, FORGEKIT_BENCH_SERVER: JSON.stringify({ dataDir, port, logLevel: 'info' }) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = (type: string) => new Promise<any>((resolve, reject) => {
    const on = (m: any) => {
      if (m?.type === type) {
        child.off('message', on);
        resolve(m);
      } else if (m?.type === 'error') reject(new Error(m.message));
    };
    child.on('message', on);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let file: string;
  // A failure after the spawn (a case that cannot draw its requests, a refused token) stops the server too: its IPC
  // channel would otherwise keep this process waiting for good.
  try {
    const settled = values.case ? settledOf(child, 600_000) : null;
    const ready = await next('ready');
    console.log(`booted in ${ready.sinceProcessStartMs} ms (createForge ${ready.createForgeMs} ms), RSS ${Math.round(ready.rss / 1048576)} MiB`);
    if (values.case) {
      console.log(settledNote(await settled!));
      const seedSaid = seedNote(adoptKeptSeed(dataDir));
      if (seedSaid) console.log(seedSaid);
      const loaded = await loadCases(fx);
      const seeded = new Set<string>();
      const caseNamed = async (name: string) => {
        const c = loaded.cases.find((x) => x.case.name === name);
        if (!c) throw new Error(`no case named ${name}; known: ${loaded.cases.map((x) => x.case.name).join(', ')}`);
        // The case file's seeders run again against a store that keeps nothing: randomized cases draw their requests
        // from what their seeder saw (the data dir already holds what it wrote).
        if (!seeded.has(c.from)) {
          seeded.add(c.from);
          for (const { from, seed } of loaded.seeders) if (from === c.from) await seed(replayContext(plan, fx, from, values.quick === true));
        }
        return c;
      };
      const found = await caseNamed(values.case);
      const client = benchClient(ready.url, fx);
      for (const name of values.before) {
        const earlier = await caseNamed(name);
        const made = earlier.case.setup ? await earlier.case.setup(client) : {};
        const r = await autocannon({ ...loadOptions(earlier.case, fx, ready.url, made, Number(values.connections)), duration: Number(values.seconds) });
        console.log(`before: ${name}: ${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx} (not profiled)`);
      }
      let made: SetupResult | undefined;
      if (values.path) {
        made = { path: values.path };
        // A seeded account (the dataset's roles and users) has a token derived from its login; an API-built one a password.
        const seeded = values.login ? tokenOf(values.login) : undefined;
        if (seeded && (await client.request('GET', '/user', { headers: { authorization: `token ${seeded}` } })).status === 200) {
          made.token = seeded;
        } else if (values.login) {
          const tok = await client.request('POST', `/users/${encodeURIComponent(values.login)}/tokens`, {
            headers: { authorization: `Basic ${Buffer.from(`${values.login}:${SETUP_PASSWORD}`).toString('base64')}` },
            json: { name: `profile-${Date.now()}`, scopes: ['all'] },
          });
          if (tok.status !== 201) throw new Error(`a token for ${values.login}: ${tok.status} ${tok.text.slice(0, 200)}`);
          made.token = tok.json.sha1;
        }
      } else {
        made = found.case.setup ? await found.case.setup(client) : {};
      }
      const opts = loadOptions(found.case, fx, ready.url, made ?? {}, Number(values.connections));
      await autocannon({ ...opts, duration: 2 }); // warm-up, not profiled
      const kind = values.alloc ? 'alloc' : 'profile';
      child.send({ type: `${kind}-start` });
      await next(`${kind}-started`);
      const result = await autocannon({ ...opts, duration: Number(values.seconds) });
      file = path.join(profDir, `${values.case}.${values.alloc ? 'heapprofile' : 'cpuprofile'}`);
      child.send({ type: `${kind}-stop`, file });
      await next(`${kind}-written`);
      console.log(`${values.case}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
      child.send({ type: 'stop' });
      await exited;
      if (values.alloc) {
        const heap = JSON.parse(await readFile(file, 'utf8')) as { head: AllocNode };
        console.log(formatAllocations(values.case!, summariseAllocations(heap.head, Number(values.top)), result.requests.total));
        console.log(`heap profile: ${file} (open in Chrome DevTools → Memory)`);
        return;
      }
    } else {
      child.send({ type: 'stop' });
      await exited;
      const written = (await readdir(profDir)).find((f) => f.endsWith('.cpuprofile'));
      if (!written) throw new Error(`no profile written in ${profDir}`);
      file = path.join(profDir, written);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  console.log(formatSummary(values.case ?? 'boot', summarise(profile, Number(values.top))));
  console.log(`profile: ${file} (open in Chrome DevTools → Performance, or speedscope)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.stack ?? err.message : err);
    process.exitCode = 1;
  });
}
