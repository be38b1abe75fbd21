// What metrics cost: GET /api/v1/version with `plugins.metrics.enabled` off and on, each in its own server process,
// measured alternately (off, on, off, on, …) with autocannon so machine noise hits both sides alike.
// Usage: node dist/bench/metrics-cost.js [rounds=4] [seconds=8]
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SELF = fileURLToPath(import.meta.url);

async function child(): Promise<void> {
  const { createForge } = await import('../plugins/index.js');
  const metrics = process.env.METRICS_ON === '1';
  const forge = await createForge({
    config: { dataDir: process.env.DATA_DIR!, port: 0, logLevel: 'info', plugins: { metrics: { enabled: metrics } } },
  });
  const { url } = await forge.listen(0, '127.0.0.1');
  process.send?.({ url });
  process.on('disconnect', () => void forge.close().finally(() => process.exit(0)));
}

async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url: `${url}/api/v1/version`, connections: 10, duration: seconds });
  return result.requests.average;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 4);
  const seconds = Number(process.argv[3] ?? 8);
  const dirs: string[] = [];
  const start = async (on: boolean) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-metrics-bench-'));
    dirs.push(dir);
    const proc = fork(SELF, ['child'], { env: { ...process.env, METRICS_ON: on ? '1' : '0', DATA_DIR: dir }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const url = await new Promise<string>((resolve) => proc.once('message', (m: { url: string }) => resolve(m.url)));
    return { proc, url };
  };
  const off = await start(false);
  const on = await start(true);
  const results = { off: [] as number[], on: [] as number[] };
  await measure(off.url, 2); // warm-up
  await measure(on.url, 2);
  for (let i = 0; i < rounds; i++) {
    results.off.push(await measure(off.url, seconds));
    results.on.push(await measure(on.url, seconds));
  }
  off.proc.disconnect();
  on.proc.disconnect();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = mean(results.on) / mean(results.off);
  // Per round, on against the off run just before it: a slow spell of the machine hits both halves of a pair.
  const pairs = results.on.map((v, i) => v / results.off[i]!);
  console.log(JSON.stringify({ rounds, seconds, offReqPerSec: results.off.map(Math.round), onReqPerSec: results.on.map(Math.round),
    meanOff: Math.round(mean(results.off)), meanOn: Math.round(mean(results.on)), onOverOff: Number(ratio.toFixed(3)),
    medianPairRatio: Number(median(pairs).toFixed(3)), medianCostPercent: Number(((1 - median(pairs)) * 100).toFixed(1)) }));
  await new Promise((r) => setTimeout(r, 500));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}

if (process.argv[2] === 'child') void child();
else void main();
