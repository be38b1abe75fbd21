// bench/stall-trace.ts: its lines, and as a real preload — a blocked event loop and a forced full collection show up.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { constants } from 'node:perf_hooks';
import t from 'tap';
import { PACKAGE_ROOT } from '../../core/config.js';
import { gcLine, stallLine } from '../../bench/stall-trace.js';
import { nodeCommand } from '../helpers/child-env.js';

t.test('lines', async (t) => {
  t.equal(stallLine(1000, 1020), null, '15 ms late is not a stall');
  t.equal(stallLine(1000, 1105.4), 'stall 1000 100');
  t.equal(gcLine(50, 1.9, constants.NODE_PERFORMANCE_GC_MINOR), null, 'a short pause has no line');
  t.equal(gcLine(50, 12.34, constants.NODE_PERFORMANCE_GC_MAJOR), 'gc 50 12.3 mark-compact');
  t.equal(gcLine(7, 3, constants.NODE_PERFORMANCE_GC_MINOR), 'gc 7 3.0 scavenge');
  t.equal(gcLine(7, 3, undefined), 'gc 7 3.0 kind-undefined');
});

t.test('as a preload: a 150 ms block of the event loop and a full collection are traced', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-stalls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'trace.log');
  const script = [
    'const keep = [];',
    'setTimeout(() => {',
    '  const until = Date.now() + 150; while (Date.now() < until) keep.push({ n: keep.length });',
    '  keep.length = 0; for (let i = 0; i < 3e5; i++) keep.push({ i, s: "x" + i });',
    '  globalThis.gc();',
    '  setTimeout(() => {}, 50);',
    '}, 30);',
  ].join('\n');
  const preload = path.join(PACKAGE_ROOT, 'dist', 'bench', 'stall-trace.js');
  await promisify(execFile)(...nodeCommand(['--expose-gc', `--import=${preload}`, '-e', script]), { env: { ...process.env, FORGEKIT_STALL_TRACE: file } });
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  const stalls = lines.filter((l) => l.startsWith('stall ')).map((l) => Number(l.split(' ')[2]));
  t.ok(stalls.some((late) => late >= 100), `the block is a stall (${stalls.join(', ')} ms late)`);
  t.ok(lines.some((l) => /^gc \d+ [\d.]+ mark-compact$/.test(l)), `the forced collection is a mark-compact line:\n${lines.join('\n')}`);
});
