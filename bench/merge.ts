// The merge benchmark: a merge is a write that cannot be repeated, so autocannon cannot time it. This script boots
// forgekit in a child process on a fresh data dir, prepares N pull requests per merge style through the API (own small
// repositories, one branch of `--commits` commits each, written with the contents API), copies the bare repositories,
// then per style:
//   direct  the same merges done by git alone on the copies, no server: `merge-tree --write-tree` + `commit-tree` +
//           `update-ref <new> <old>` (rebase: the same cherry-pick plumbing forgekit uses) — the floor;
//   http    `POST /repos/{o}/{r}/pulls/{n}/merge` with `--clients` concurrent clients.
// Both sides run the same merges with the same concurrency (one repository per client unless `--repos` says
// otherwise; several clients on one repository meet 409 "base moved" and retry, counted). Reported: merges/s, p50/p99
// latency per merge, the ratio http ÷ direct, and the load average.
//
//   node dist/bench/merge.js [--pulls 48] [--clients 4] [--repos 4] [--commits 1] [--styles merge,squash,rebase]
//                            [--checks N]   (the server's plugins.pulls.checkConcurrency; 0: no background checks)
//                            [--cpu-prof DIR] (profile the server; its top functions are printed)
// FORGEKIT_BENCH_GIT=<path> runs the server's git through that executable (a wrapper that logs its arguments counts
// the git processes a merge costs).
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from './stats.js';

const SELF = fileURLToPath(import.meta.url);
const ADMIN = { username: 'root', password: 'bench-admin-password', email: 'root@example.com' };
type Style = 'merge' | 'squash' | 'rebase';

async function child(): Promise<void> {
  const { createForge } = await import('../plugins/index.js');
  const checks = process.env.CHECKS ? { plugins: { pulls: { checkConcurrency: Number(process.env.CHECKS) } } } : {};
  const forge = await createForge({ config: { dataDir: process.env.DATA_DIR!, port: 0, logLevel: 'warn', admin: ADMIN, ...checks, ...(process.env.FORGEKIT_BENCH_GIT ? { plugins: { ...(checks.plugins ?? {}), git: { gitBinary: process.env.FORGEKIT_BENCH_GIT } } } : {}) } });
  const { url } = await forge.listen(0, '127.0.0.1');
  process.send?.({ url });
  process.on('message', (m: { type?: string }) => {
    if (m?.type === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => void forge.close().finally(() => process.exit(0)));
}

function message<T>(proc: ChildProcess, pick: (m: any) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (m: unknown) => {
      const v = pick(m);
      if (v !== undefined) {
        proc.off('message', on);
        resolve(v);
      }
    };
    proc.on('message', on);
    proc.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
}

function git(dir: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: dir, env: env ? { ...process.env, ...env } : process.env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(stdout.trim());
    });
  });
}

interface Client {
  request(method: string, p: string, json?: unknown): Promise<{ status: number; json: any; text: string }>;
}

function client(api: string, token: string): Client {
  return {
    async request(method, p, json) {
      const res = await fetch(api + p, {
        method,
        headers: { Authorization: `token ${token}`, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      const text = await res.text();
      let body: unknown;
      try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
      return { status: res.status, json: body, text };
    },
  };
}

async function must(what: string, res: Promise<{ status: number; json: any; text: string }>, status: number): Promise<any> {
  const r = await res;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

/** One worker per lane, each running `work` on its lane's indexes in order. */
async function lanes(lanesOf: number[][], work: (i: number) => Promise<void>): Promise<void> {
  await Promise.all(lanesOf.map(async (lane) => {
    for (const i of lane) await work(i);
  }));
}

interface Pull { repo: string; number: number; branch: string }

interface Measured { merges: number; seconds: number; perSecond: number; p50: number; p99: number; retries: number }

function summary(latencies: number[], seconds: number, retries: number): Measured {
  const sorted = Float64Array.from(latencies).sort();
  const r = (n: number) => Math.round(n * 100) / 100;
  return { merges: latencies.length, seconds: r(seconds), perSecond: r(latencies.length / seconds), p50: r(percentile(sorted, 50)), p99: r(percentile(sorted, 99)), retries };
}

const IDENTITY = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@noreply.localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@noreply.localhost' };

/** One merge by git alone, as forgekit builds it (no working tree); false when the base moved (compare-and-swap). */
async function directMerge(dir: string, style: Style, branch: string, message: string): Promise<boolean> {
  const base = await git(dir, ['rev-parse', 'refs/heads/master']);
  const head = await git(dir, ['rev-parse', `refs/heads/${branch}`]);
  let next: string;
  if (style === 'rebase') {
    let current = base;
    for (const sha of (await git(dir, ['rev-list', '--reverse', '--no-merges', `${base}..${head}`])).split('\n').filter(Boolean)) {
      const [parent, author, email, date, ...body] = (await git(dir, ['show', '-s', '--format=%P%x00%an%x00%ae%x00%aI%x00%B', sha])).split('\0');
      const currentTree = await git(dir, ['rev-parse', `${current}^{tree}`]);
      const fake = await git(dir, ['commit-tree', currentTree, '-p', parent!.split(' ')[0]!, '-m', 'rebase'], IDENTITY);
      const tree = (await git(dir, ['merge-tree', '--write-tree', fake, sha])).split('\n')[0]!;
      current = await git(dir, ['commit-tree', tree, '-p', current, '-m', body.join('\0') || 'commit'],
        { ...IDENTITY, GIT_AUTHOR_NAME: author!, GIT_AUTHOR_EMAIL: email!, GIT_AUTHOR_DATE: date! });
    }
    next = current;
  } else {
    const tree = (await git(dir, ['merge-tree', '--write-tree', base, head])).split('\n')[0]!;
    const parents = style === 'merge' ? ['-p', base, '-p', head] : ['-p', base];
    next = await git(dir, ['commit-tree', tree, ...parents, '-m', message], IDENTITY);
  }
  try {
    await git(dir, ['update-ref', 'refs/heads/master', next, base]);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pulls: { type: 'string', default: '48' },
      clients: { type: 'string', default: '4' },
      repos: { type: 'string' },
      commits: { type: 'string', default: '1' },
      styles: { type: 'string', default: 'merge,squash,rebase' },
      // plugins.pulls.checkConcurrency of the server (default: the server's default, 2); 0 = no background checks.
      checks: { type: 'string' },
      // A directory: the server runs under `node --cpu-prof` and its profile's top functions are printed at the end.
      'cpu-prof': { type: 'string' },
    },
  });
  const pulls = Number(values.pulls);
  const clients = Number(values.clients);
  const repoCount = Number(values.repos ?? clients);
  const commits = Number(values.commits);
  const styles = values.styles!.split(',') as Style[];
  const loadBefore = os.loadavg();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-merge-bench-'));
  const copies = await mkdtemp(path.join(os.tmpdir(), 'forgekit-merge-direct-'));
  const proc = fork(SELF, ['child'], { env: { ...process.env, DATA_DIR: dataDir, ...(values.checks ? { CHECKS: values.checks } : {}) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [] });
  try {
    const url = await message(proc, (m) => m?.url as string | undefined);
    const api = `${url}/api/v1`;
    const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    const tokenRes = await fetch(`${api}/users/root/tokens`, { method: 'POST', headers: { Authorization: basic, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['all'] }) });
    const token = ((await tokenRes.json()) as { sha1: string }).sha1;
    const c = client(api, token);
    const b64 = (s: string) => Buffer.from(s).toString('base64');

    // Preparation: per style, `repoCount` repositories; pull request k goes to repository k % repoCount.
    const prepStart = performance.now();
    const plan = new Map<Style, Pull[]>();
    for (const style of styles) {
      const repos: string[] = [];
      for (let r = 0; r < repoCount; r++) {
        const name = `m-${style}-${r}`;
        await must('repository', c.request('POST', '/user/repos', { name, auto_init: true, readme: 'Default' }), 201);
        repos.push(name);
      }
      const list: Pull[] = [];
      await lanes(repos.map((_, r) => Array.from({ length: pulls }, (_, k) => k).filter((k) => k % repoCount === r)), async (k) => {
        const repo = repos[k % repoCount]!;
        const branch = `b${k}`;
        for (let j = 0; j < commits; j++) {
          await must('commit', c.request('POST', `/repos/root/${repo}/contents/f${k}-${j}.txt`, {
            content: b64(`change ${k}.${j}\n`), branch: j === 0 ? 'master' : branch, ...(j === 0 ? { new_branch: branch } : {}), message: `change ${k}.${j}`,
          }), 201);
        }
        const pr = await must('pull', c.request('POST', `/repos/root/${repo}/pulls`, { head: branch, base: 'master', title: `Change ${k}` }), 201);
        list.push({ repo, number: pr.number, branch });
      });
      plan.set(style, list);
    }
    const prepSeconds = (performance.now() - prepStart) / 1000;
    // The direct side works on copies taken before any merge.
    const repoDirs = new Map<string, string>();
    const roots = await readdir(dataDir, { recursive: true, withFileTypes: true });
    for (const e of roots) {
      if (e.isDirectory() && /^m-(merge|squash|rebase)-\d+\.git$/.test(e.name)) {
        const from = path.join(e.parentPath ?? (e as any).path, e.name);
        const to = path.join(copies, e.name);
        await cp(from, to, { recursive: true });
        repoDirs.set(e.name.replace(/\.git$/, ''), to);
      }
    }

    const results: Array<{ style: Style; direct: Measured; http: Measured; serverCpuMsPerMerge: number }> = [];
    for (const style of styles) {
      const list = plan.get(style)!;
      // Lanes: with one repository per client each client merges its repository's pulls; otherwise round-robin.
      const lanesFor = Array.from({ length: clients }, (_, w) => list.map((_, i) => i).filter((i) => (repoCount === clients ? list[i]!.repo === `m-${style}-${w}` : i % clients === w)));

      const directLat: number[] = [];
      let directRetries = 0;
      const d0 = performance.now();
      await lanes(lanesFor, async (i) => {
        const pull = list[i]!;
        const t0 = performance.now();
        while (!(await directMerge(repoDirs.get(pull.repo)!, style, pull.branch, `Merge pull request 'Change' (#${pull.number})`))) directRetries++;
        directLat.push(performance.now() - t0);
      });
      const direct = summary(directLat, (performance.now() - d0) / 1000, directRetries);

      const cpuBefore = await (proc.send({ type: 'cpu' }), message(proc, (m) => m?.cpu as NodeJS.CpuUsage | undefined));
      const httpLat: number[] = [];
      let httpRetries = 0;
      const h0 = performance.now();
      await lanes(lanesFor, async (i) => {
        const pull = list[i]!;
        const t0 = performance.now();
        for (;;) {
          const res = await c.request('POST', `/repos/root/${pull.repo}/pulls/${pull.number}/merge`, { Do: style });
          if (res.status === 200) break;
          if (res.status === 409) { httpRetries++; continue; }
          throw new Error(`merge ${pull.repo}#${pull.number} (${style}): ${res.status} ${res.text.slice(0, 300)}`);
        }
        httpLat.push(performance.now() - t0);
      });
      const http = summary(httpLat, (performance.now() - h0) / 1000, httpRetries);
      const cpuAfter = await (proc.send({ type: 'cpu' }), message(proc, (m) => m?.cpu as NodeJS.CpuUsage | undefined));
      const serverCpuMsPerMerge = Math.round(((cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / 1000 / list.length) * 100) / 100;

      // Every pull request landed: the base of each repository has every change.
      for (let r = 0; r < repoCount; r++) {
        const files = (await c.request('GET', `/repos/root/m-${style}-${r}/contents?ref=master`)).json as Array<{ name: string }>;
        const expected = list.filter((p) => p.repo === `m-${style}-${r}`).length * commits + 1;
        if (files.length !== expected) throw new Error(`m-${style}-${r}: ${files.length} files on master, expected ${expected}`);
        const directFiles = (await git(repoDirs.get(`m-${style}-${r}`)!, ['ls-tree', '--name-only', 'refs/heads/master'])).split('\n').length;
        if (directFiles !== expected) throw new Error(`direct m-${style}-${r}: ${directFiles} files, expected ${expected}`);
      }
      results.push({ style, direct, http, serverCpuMsPerMerge });
      console.error(`${style}: direct ${direct.perSecond}/s p50 ${direct.p50} ms p99 ${direct.p99} ms; http ${http.perSecond}/s p50 ${http.p50} ms p99 ${http.p99} ms (409 retries ${http.retries}); ratio ${(http.perSecond / direct.perSecond).toFixed(3)}`);
    }
    const loadAfter = os.loadavg();
    const fmt = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    console.log(`merge bench: ${pulls} pull requests per style, ${commits} commit(s) each, ${clients} clients, ${repoCount} repositories per style, background checks ${values.checks ?? 'default (2)'}; preparation ${prepSeconds.toFixed(1)} s`);
    console.log(`load average before ${fmt(loadBefore)}, after ${fmt(loadAfter)}; ${os.cpus().length} cores; git ${await git(dataDir, ['--version'])}`);
    console.log('');
    console.log('| style | http merges/s | http p50 / p99 ms | direct git merges/s | direct p50 / p99 ms | ratio (http ÷ direct) | server CPU ms/merge | 409 retries |');
    console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
    for (const r of results) {
      console.log(`| ${r.style} | ${r.http.perSecond} | ${r.http.p50} / ${r.http.p99} | ${r.direct.perSecond} | ${r.direct.p50} / ${r.direct.p99} | ${(r.http.perSecond / r.direct.perSecond).toFixed(3)} | ${r.serverCpuMsPerMerge} | ${r.http.retries} (direct ${r.direct.retries}) |`);
    }
  } finally {
    proc.disconnect();
    await new Promise((resolve) => proc.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
    await rm(copies, { recursive: true, force: true });
  }
  if (values['cpu-prof']) {
    const { summarise, formatSummary } = await import('./profile.js');
    const dir = values['cpu-prof'];
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
      console.log(formatSummary(`server profile ${file}`, summarise(JSON.parse(await readFile(path.join(dir, file), 'utf8')), 30)));
    }
  }
}

if (process.argv[2] === 'child') await child();
else await main();
