// A/B of whole boots: two builds' servers (bench/server-forge.js, `npm start`'s node flags) booted one after the other
// on the same data dir (a kept one: `run.js --keep-data`), alternating which goes first, each stopped once listening.
// Prints each boot's time from spawn to listening, the process's CPU time (all its threads: the collector's and the
// compiler's too, which a boot pinned to one core waits for) and RSS, then per build the median and the fastest.
//
//   node dist/bench/boot-ab.js --base /tmp/base/dist --data /tmp/forgekit-bench-XXXX/data [--rounds 3] [--pin]
//
// --pin runs each server on CPU 0 (taskset), as the full run does.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SERVE_NODE_FLAGS } from '../core/heap-headroom.js';
import { cpuMs as cpuMsOf } from './run.js';

interface Boot {
  ms: number;
  cpuMs: number;
  rssMiB: number;
}

function boot(dist: string, dataDir: string, pin: boolean): Promise<Boot> {
  const script = path.join(dist, 'bench', 'server-forge.js');
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = [...SERVE_NODE_FLAGS, script];
  const options = {
    env: { ...process.env, FORGEKIT_BENCH_SERVER: JSON.stringify({ dataDir, port, logLevel: 'info' }) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'] as Array<'ignore' | 'inherit' | 'ipc'>,
  };
  // taskset execs node in its own place: the child's pid is the server's.
  const child = pin ? spawn('taskset', ['-c', '0', process.execPath, ...args], options) : spawn(process.execPath, args, options);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    child.on('message', (m: { type?: string; sinceProcessStartMs?: number; rss?: number; message?: string }) => {
      if (m?.type === 'error') {
        child.kill('SIGKILL');
        reject(new Error(m.message));
      }
      if (m?.type !== 'ready') return;
      const cpuMs = cpuMsOf(child.pid) ?? 0;
      child.removeAllListeners('exit');
      // Killed, not stopped: a stop would compact what the boot wrote, and the next boot would read other files.
      child.kill('SIGKILL');
      child.once('exit', () => resolve({ ms: m.sinceProcessStartMs!, cpuMs, rssMiB: Math.round(m.rss! / 1048576) }));
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { base: { type: 'string' }, data: { type: 'string' }, rounds: { type: 'string', default: '3' }, pin: { type: 'boolean', default: false } },
  });
  if (!values.base || !values.data) {
    console.error('usage: node dist/bench/boot-ab.js --base <other build\'s dist> --data <data dir> [--rounds N] [--pin]');
    process.exit(2);
  }
  const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const builds: Array<[string, string]> = [['base', path.resolve(values.base)], ['this build', here]];
  const seen = new Map<string, Boot[]>(builds.map(([name]) => [name, []]));
  const rounds = Number(values.rounds);
  for (let r = 0; r < rounds; r++) {
    for (const [name, dist] of r % 2 === 0 ? builds : [...builds].reverse()) {
      const b = await boot(dist, path.resolve(values.data), values.pin === true);
      seen.get(name)!.push(b);
      console.log(`round ${r + 1} ${name}: listening after ${b.ms} ms, CPU ${b.cpuMs} ms, RSS ${b.rssMiB} MiB`);
    }
  }
  for (const [name, boots] of seen) {
    const ms = boots.map((b) => b.ms);
    console.log(`${name.padEnd(10)} median ${median(ms)} ms (fastest ${Math.min(...ms)}), CPU median ${median(boots.map((b) => b.cpuMs))} ms`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
