// A/B of a change on a kept data dir: boots forgekit once (pinned to CPU 0, this process and its load generator to
// CPU 1), loads each named case for a few rounds and prints the server's own CPU time per answered request (/proc),
// the median over rounds. Cheaper than `npm run bench` (no seeding, no bare server): run it on the build before and
// after a change, interleaved, and compare the medians. CPU time, not req/s, because other load on the machine moves
// it far less.
//
//   node dist/bench/run.js --keep-data …            # prints "data kept in /tmp/forgekit-bench-XXXX"
//   node dist/bench/measure.js --data /tmp/forgekit-bench-XXXX/data --case users-repos-page3 --case mixed-0 \
//        [--rounds 3] [--seconds 3] [--node-flag=--max-semi-space-size=64]
import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../core/config.js';
import { SERVE_NODE_FLAGS } from '../core/heap-headroom.js';
import { FULL_SIZES, planDataset, QUICK_SIZES, tokenOf } from './dataset.js';
import { adoptKeptSeed, seedNote } from './kept-seed.js';
import { loadCases } from './load-cases.js';
import { loadOptions, replayContext } from './profile.js';
import { benchClient, cpuMs } from './run.js';
import { fixtureOf } from './seed.js';
import { settledNote, settledOf } from './settled.js';
import { median } from './stats.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      case: { type: 'string', multiple: true, default: [] },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      'node-flag': { type: 'string', multiple: true, default: [] },
      quick: { type: 'boolean', default: false },
      /** Where the server's stdout goes (e.g. with --node-flag=--trace-gc); discarded without it. */
      'server-log': { type: 'string' },
      // Requests of the (single) case's shape with other paths, signed in as the seeded account `login` (its derived
      // token): requests a case cannot replay here (list-random's issue families, drawn from another seeder's data).
      path: { type: 'string', multiple: true, default: [] },
      login: { type: 'string' },
    },
  });
  if (!values.data || values.case.length === 0) {
    console.error('usage: node dist/bench/measure.js --data <seeded data dir> --case <name>... [--path P... [--login L]] [--rounds 3] [--seconds 3] [--node-flag=<flag>]...');
    process.exit(2);
  }
  const pinned = spawnSync('taskset', ['-pc', '1', String(process.pid)]).status === 0;
  const dataDir = path.resolve(values.data);
  const config = loadConfig({ env: process.env, overrides: { dataDir } });
  const plan = planDataset(values.quick ? QUICK_SIZES : FULL_SIZES);
  const fx = fixtureOf(plan, config.apiPrefix, values.quick === true);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server-forge.js');
  // `npm start`'s node flags first (core/heap-headroom.ts), then the A/B's own (a later value of a flag wins).
  const nodeArgs = [...SERVE_NODE_FLAGS, ...values['node-flag'], script];
  const out = values['server-log'] ? openSync(values['server-log'], 'w') : 'ignore';
  const child = pinned
    ? spawn('taskset', ['-c', '0', process.execPath, ...nodeArgs], {
      env: { ...process.env, FORGEKIT_BENCH_SERVER: JSON.stringify({ dataDir, port, logLevel: 'info' }) },
      stdio: ['ignore', out, 'inherit', 'ipc'],
    })
    : spawn(process.execPath, nodeArgs, {
      env: { ...process.env, FORGEKIT_BENCH_SERVER: JSON.stringify({ dataDir, port, logLevel: 'info' }) },
      stdio: ['ignore', out, 'inherit', 'ipc'],
    });
  const settled = settledOf(child, 600_000);
  const ready = await new Promise<any>((resolve, reject) => {
    child.on('message', (m: any) => (m?.type === 'ready' ? resolve(m) : m?.type === 'error' ? reject(new Error(m.message)) : undefined));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  // With taskset the child is taskset's exec'd node: the same pid.
  const pid = child.pid!;
  console.log(`booted in ${ready.sinceProcessStartMs} ms, RSS ${Math.round(ready.rss / 1048576)} MiB, flags [${values['node-flag'].join(' ')}], pinned ${pinned}`);
  console.log(settledNote(await settled));
  // The server stops whatever happens: a case that fails (a setup refused, say) must not leave it running.
  try {
    const seedSaid = seedNote(adoptKeptSeed(dataDir));
    if (seedSaid) console.log(seedSaid);
    const loaded = await loadCases(fx);
    const client = benchClient(ready.url, fx);
    const seeded = new Set<string>();
    for (const name of values.case) {
      const found = loaded.cases.find((c) => c.case.name === name);
      if (!found) throw new Error(`no case named ${name}`);
      if (!seeded.has(found.from)) {
        // The case file's seeders again, against a store that keeps nothing: randomized cases draw their requests from
        // what their seeder saw (the data dir already holds what it wrote). Cases drawn from what another file's
        // seeder wrote (list-random's issue families) cannot be replayed so: use profile.js --path --login for those.
        seeded.add(found.from);
        for (const { from, seed } of loaded.seeders) if (from === found.from) await seed(replayContext(plan, fx, from, values.quick === true));
      }
      const token = values.login ? tokenOf(values.login) : undefined;
      const variants = values.path.length ? values.path.map((p) => ({ label: p, made: { path: p, ...(token ? { token } : {}) } })) : [{ label: name, made: null }];
      for (const [k, variant] of variants.entries()) {
        const made = variant.made ?? (found.case.setup ? await found.case.setup(client) : {});
        const opts = loadOptions(found.case, fx, ready.url, made, Number(values.connections));
        // The first load after boot meets the freshly loaded heap (the collector's first full passes): warm up longer.
        await autocannon({ ...opts, duration: name === values.case[0] && k === 0 ? 10 : 2 });
        const perRequest: number[] = [];
        const rates: number[] = [];
        const p99s: number[] = [];
        let maxMs = 0;
        for (let round = 0; round < Number(values.rounds); round++) {
          const before = cpuMs(pid) ?? 0;
          const result = await autocannon({ ...opts, duration: Number(values.seconds) });
          const answered = result.requests.total;
          perRequest.push((((cpuMs(pid) ?? 0) - before) * 1000) / Math.max(1, answered));
          rates.push(result.requests.average);
          p99s.push(result.latency.p99);
          maxMs = Math.max(maxMs, result.latency.max);
          if (result.non2xx) console.log(`  ${variant.label}: ${result.non2xx} non-2xx answers in round ${round + 1}`);
          await new Promise((r) => setTimeout(r, 500));
        }
        // p99 per round and the slowest answer: latency moves with the machine's other load far more than CPU time does.
        console.log(`${variant.label}: ${median(perRequest).toFixed(0)} µs/req (rounds ${perRequest.map((x) => x.toFixed(0)).join(' ')}), `
          + `${Math.round(median(rates))} req/s, p99 ${p99s.map((x) => x.toFixed(0)).join(' ')} ms, max ${maxMs.toFixed(0)} ms`);
      }
    }
    // The server's peak resident memory over the boot and every case (what a memory target is judged on).
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (hwm) console.log(`peak RSS ${Math.round(Number(hwm) / 1024)} MiB`);
  } finally {
    child.send({ type: 'stop' });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exitCode = 1;
});
