// Load time of every collection file of a data directory, one collection at a time (the embedded adapter).
// Run: node dist/test/store/measure-load.js <dataDir> [rounds=3]   — the directory is copied first, never changed.
import { cp } from 'node:fs/promises';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EmbeddedCollection } from '../../core/store/embedded/collection.js';
import { recordingLogger, removeDir, tempDir } from './helpers.js';

export interface LoadTimes {
  /** Collection → best load time over the rounds: wall ms, and CPU ms of the process (all threads). */
  collections: Record<string, { ms: number; cpuMs: number }>;
  totalMs: number;
  totalCpuMs: number;
}

export async function measureLoad(dataDir: string, rounds = 3): Promise<LoadTimes> {
  const source = path.join(dataDir, 'store');
  const names = (await readdir(source)).filter((f) => f.endsWith('.db')).map((f) => f.slice(0, -3)).sort();
  const best: Record<string, { ms: number; cpuMs: number }> = {};
  for (let round = 0; round < rounds; round++) {
    const dir = await tempDir();
    try {
      await cp(source, dir, { recursive: true });
      for (const name of names) {
        const c = new EmbeddedCollection(name, path.join(dir, `${name}.db`), recordingLogger());
        const start = performance.now();
        const cpu = process.cpuUsage();
        await c.load();
        const ms = performance.now() - start;
        const used = process.cpuUsage(cpu);
        const cpuMs = (used.user + used.system) / 1000;
        const prev = best[name];
        best[name] = { ms: Math.min(prev?.ms ?? Infinity, Math.round(ms)), cpuMs: Math.min(prev?.cpuMs ?? Infinity, Math.round(cpuMs)) };
        await c.close();
      }
    } finally {
      await removeDir(dir);
    }
  }
  const collections = Object.fromEntries(Object.entries(best).sort((a, b) => b[1].cpuMs - a[1].cpuMs));
  const sum = (f: (t: { ms: number; cpuMs: number }) => number): number => Object.values(best).reduce((a, t) => a + f(t), 0);
  return { collections, totalMs: sum((t) => t.ms), totalCpuMs: sum((t) => t.cpuMs) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: measure-load.js <dataDir> [rounds]');
  const result = await measureLoad(dir, Number(process.argv[3] ?? 3));
  for (const [name, t] of Object.entries(result.collections)) {
    if (t.cpuMs >= 5) console.log(`${name.padEnd(16)} ${String(t.ms).padStart(6)} ms  (CPU ${t.cpuMs} ms)`);
  }
  console.log(`${'all'.padEnd(16)} ${String(result.totalMs).padStart(6)} ms  (CPU ${result.totalCpuMs} ms)`);
}
