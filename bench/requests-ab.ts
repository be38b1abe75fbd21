// A/B of requests: two builds' servers (bench/server-forge.js, `npm start`'s node flags) up at the same time, each on
// its own copy of one data dir (a kept one: `run.js --keep-data`), loaded in short alternated windows — base, this
// build, base, this build… — with each window's CPU time per request read from /proc. This host moves a process's
// CPU per request by up to 2× from one run to the next; alternating windows puts both builds through the same
// stretch of it, and the ratio is taken per window pair (this build ÷ base), then its median.
//
//   node dist/bench/requests-ab.js --base /tmp/base/dist --data /tmp/forgekit-bench-XXXX/data \
//     --path '/repos/search?q=ugi&page=2&limit=10' [--path …] [--login bench-member] [--windows 8] [--seconds 1.5]
//
// Copying a data dir with many git repositories (the API-built one: 20,000) still takes a minute or two: the
// repositories are hard-linked, but that is a link per file.
// Paths come without the API prefix. `--login`: a seeded account (its token is derived from its login) or one a case
// built through the API (a token is made with the setup password). Servers run pinned to CPU 0 (taskset) unless
// --no-pin; the load (autocannon, --connections, 50) runs here.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SERVE_NODE_FLAGS } from '../core/heap-headroom.js';
import { tokenOf } from './dataset.js';
import { cpuMs, SETUP_PASSWORD } from './run.js';

interface Server {
  name: string;
  child: ChildProcess;
  api: string;
  headers: Record<string, string>;
}

/**
 * A copy of a data dir. The git repositories are hard-linked, not copied (20,000 of them are minutes of copying): git
 * never rewrites a file in place — objects, packs and refs are new files renamed into place — so what one server
 * writes there leaves the other's view and the original as they were. Everything else (the store appends to its
 * files) is copied.
 */
async function copyDataDir(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from)) {
    if (entry === 'repositories') execFileSync('cp', ['-al', path.join(from, entry), path.join(to, entry)]);
    else await cp(path.join(from, entry), path.join(to, entry), { recursive: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function start(name: string, dist: string, dataDir: string, pin: boolean, login: string | undefined): Promise<Server> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = [...SERVE_NODE_FLAGS, path.join(dist, 'bench', 'server-forge.js')];
  const options = {
    env: { ...process.env, FORGEKIT_BENCH_SERVER: JSON.stringify({ dataDir, port, logLevel: 'info' }) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'] as Array<'ignore' | 'inherit' | 'ipc'>,
  };
  // taskset execs node in its own place: the child's pid is the server's.
  const child = pin ? spawn('taskset', ['-c', '0', process.execPath, ...args], options) : spawn(process.execPath, args, options);
  // Listening and its background work ended (indexes built): what a measured case meets.
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name}: the server exited (${code}) before it settled`)));
    child.on('message', (m: { type?: string; message?: string }) => {
      if (m?.type === 'error') reject(new Error(`${name}: ${m.message}`));
      if (m?.type === 'settled') {
        child.removeAllListeners('exit');
        resolve();
      }
    });
  });
  const api = `http://127.0.0.1:${port}/api/v1`;
  const headers: Record<string, string> = {};
  if (login) {
    let token = tokenOf(login);
    if ((await fetch(`${api}/user`, { headers: { authorization: `token ${token}` } })).status !== 200) {
      const made = await fetch(`${api}/users/${encodeURIComponent(login)}/tokens`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${login}:${SETUP_PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `requests-ab-${Date.now()}`, scopes: ['all'] }),
      });
      if (made.status !== 201) throw new Error(`${name}: a token for ${login}: ${made.status} ${await made.text()}`);
      token = ((await made.json()) as { sha1: string }).sha1;
    }
    headers.authorization = `token ${token}`;
  }
  return { name, child, api, headers };
}

/** One window of load on one server: its CPU µs per answered request, and the answers that were not 2xx. */
async function window(s: Server, p: string, seconds: number, connections: number): Promise<{ us: number; non2xx: number }> {
  const before = cpuMs(s.child.pid);
  const result = await autocannon({ url: s.api + p, headers: s.headers, connections, duration: seconds });
  const after = cpuMs(s.child.pid);
  if (before === null || after === null) throw new Error('no /proc: CPU time per request cannot be read here');
  return { us: ((after - before) * 1000) / Math.max(1, result.requests.total), non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      data: { type: 'string' },
      path: { type: 'string', multiple: true, default: [] },
      login: { type: 'string' },
      windows: { type: 'string', default: '8' },
      seconds: { type: 'string', default: '1.5' },
      connections: { type: 'string', default: '50' },
      'no-pin': { type: 'boolean', default: false },
    },
  });
  if (!values.base || !values.data || values.path.length === 0) {
    console.error('usage: node dist/bench/requests-ab.js --base <other build>/dist --data <kept data dir> --path P... [--login L] [--windows 8] [--seconds 1.5] [--connections 50] [--no-pin]');
    process.exit(2);
  }
  const thisDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const copies = await mkdtemp(path.join(os.tmpdir(), 'forgekit-requests-ab-'));
  const servers: Server[] = [];
  try {
    // Each server writes its own dir (a lock, the store's files): two copies, made here.
    for (const [k, [name, dist]] of [['base', path.resolve(values.base)], ['this build', thisDist]].entries()) {
      const dir = path.join(copies, String(k));
      await copyDataDir(path.resolve(values.data), dir);
      servers.push(await start(name!, dist!, dir, !values['no-pin'], values.login));
    }
    const seconds = Number(values.seconds);
    const connections = Number(values.connections);
    for (const p of values.path) {
      for (const s of servers) await autocannon({ url: s.api + p, headers: s.headers, connections, duration: Math.max(1, seconds) }); // warm-up
      const us: number[][] = servers.map(() => []);
      for (let w = 0; w < Number(values.windows); w++) {
        for (const [i, s] of servers.entries()) {
          const { us: perRequest, non2xx } = await window(s, p, seconds, connections);
          if (non2xx) console.log(`  ${s.name}: ${non2xx} answers not 2xx in window ${w + 1}`);
          us[i]!.push(perRequest);
        }
      }
      const ratios = us[1]!.map((v, i) => v / us[0]![i]!);
      console.log(`${p}\n  base ${median(us[0]!).toFixed(0)} µs/req, this build ${median(us[1]!).toFixed(0)} µs/req (medians of the windows); `
        + `this build ÷ base per window: median ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`);
    }
  } finally {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => (s.child.exitCode === null && s.child.signalCode === null ? new Promise((r) => s.child.once('exit', r)) : null)));
    await rm(copies, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.stack ?? err.message : err);
    process.exitCode = 1;
  });
}
