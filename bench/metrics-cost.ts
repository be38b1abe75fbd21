// What metrics and the reply batcher cost on GET /api/v1/version, against the bare node:http server answering the
// same bytes, all in one run: four server processes (bare; forgekit with metrics off; metrics on; metrics off and
// `server.replyBatch: 0`), measured in turn each round with autocannon so a slow spell of the machine hits every
// side of a round alike. The figures to read are per-round ratios (forgekit ÷ bare, on ÷ off), not req/s.
// Usage: node dist/bench/metrics-cost.js [rounds=4] [seconds=5]
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SELF = fileURLToPath(import.meta.url);
const BARE = path.join(path.dirname(SELF), 'server-bare.js');

type Variant = 'bare' | 'off' | 'on' | 'batchOff';
const VARIANTS: Variant[] = ['bare', 'off', 'on', 'batchOff'];

async function child(): Promise<void> {
  const { createForge } = await import('../plugins/index.js');
  const forge = await createForge({
    config: {
      dataDir: process.env.DATA_DIR!, port: 0, logLevel: 'info',
      server: { replyBatch: Number(process.env.REPLY_BATCH) } as never,
      plugins: { metrics: { enabled: process.env.METRICS_ON === '1' } },
    },
  });
  const { url } = await forge.listen(0, '127.0.0.1');
  process.send?.({ url });
  process.on('disconnect', () => void forge.close().finally(() => process.exit(0)));
}

async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url: `${url}/api/v1/version`, connections: 10, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

function message<T>(proc: ChildProcess, pick: (m: any) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      const v = pick(m);
      if (v !== undefined) {
        proc.off('message', on);
        resolve(v);
      }
    };
    proc.on('message', on);
  });
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 4);
  const seconds = Number(process.argv[3] ?? 5);
  const loadBefore = os.loadavg();
  const dirs: string[] = [];
  const forge = async (metricsOn: boolean, replyBatch: number) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-metrics-bench-'));
    dirs.push(dir);
    const proc = fork(SELF, ['child'], {
      env: { ...process.env, METRICS_ON: metricsOn ? '1' : '0', REPLY_BATCH: String(replyBatch), DATA_DIR: dir },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    return { proc, url: await message(proc, (m) => m?.url as string | undefined) };
  };
  const servers: Record<Variant, { proc: ChildProcess; url: string }> = {
    off: await forge(false, 64),
    on: await forge(true, 64),
    batchOff: await forge(false, 0),
    bare: await (async () => {
      const proc = fork(BARE, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      return { proc, url: await message(proc, (m) => (m?.type === 'ready' ? (m.url as string) : undefined)) };
    })(),
  };
  // The bare server answers exactly what forgekit answers (status, headers but the per-request ones, body).
  const sample = await fetch(`${servers.off.url}/api/v1/version`);
  const headers = [...sample.headers].filter(([k]) => !['date', 'x-request-id', 'connection', 'keep-alive'].includes(k));
  servers.bare.proc.send({ type: 'set', status: sample.status, headers, body: Buffer.from(await sample.arrayBuffer()).toString('base64') });
  await message(servers.bare.proc, (m) => (m?.type === 'set-ok' ? true : undefined));

  for (const v of VARIANTS) await measure(servers[v].url, 2); // warm-up
  const results = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  for (let i = 0; i < rounds; i++) for (const v of VARIANTS) results[v].push(await measure(servers[v].url, seconds));
  for (const v of VARIANTS) servers[v].proc.disconnect();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const perRound = (a: Variant, b: Variant) => median(results[a].map((x, i) => x / results[b][i]!));
  console.log(JSON.stringify({
    rounds, seconds, load: { before: loadBefore.map((l) => Number(l.toFixed(1))), after: os.loadavg().map((l) => Number(l.toFixed(1))) },
    reqPerSec: Object.fromEntries(VARIANTS.map((v) => [v, results[v].map(Math.round)])),
    medianRatio: {
      offOverBare: Number(perRound('off', 'bare').toFixed(3)),
      onOverBare: Number(perRound('on', 'bare').toFixed(3)),
      onOverOff: Number(perRound('on', 'off').toFixed(3)),
      batchOffOverBare: Number(perRound('batchOff', 'bare').toFixed(3)),
      batchOffOverBatchOn: Number(perRound('batchOff', 'off').toFixed(3)),
    },
    metricsCostPercent: Number(((1 - perRound('on', 'off')) * 100).toFixed(1)),
  }));
  await new Promise((r) => setTimeout(r, 500));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}

if (process.argv[2] === 'child') void child();
else void main();
