// The A/B tools of bench/ run and report (smoke tests: they print timings, nothing here asserts a time).
// Each is given this build as its base (any other build's dist works the same way).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bench = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');
const dist = path.join(bench, '..');
const run = (script: string, args: string[]): string => execFileSync(process.execPath, [path.join(bench, script), ...args], { encoding: 'utf8' });

t.test('index-build-ab builds every index a collection file declares, with both builds', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-ab-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'issues.db');
  const lines = [
    { $$indexCreated: { fieldName: 'id', unique: true, sparse: false, fields: { id: 1 } } },
    { $$indexCreated: { fieldName: 'id,repoId', unique: false, sparse: false, fields: { repoId: 1, id: -1 } } },
    { $$indexCreated: { fieldName: 'repoId,updatedAt', unique: false, sparse: false, fields: { repoId: 1, updatedAt: 1 } } },
  ].map((l) => JSON.stringify(l));
  for (let i = 1; i <= 500; i++) lines.push(JSON.stringify({ id: i, repoId: i % 7, updatedAt: `2025-01-01T00:${String(i).padStart(4, '0')}Z`, _id: `k${String(i).padStart(6, '0')}` }));
  await writeFile(file, lines.join('\n') + '\n');
  const out = run('index-build-ab.js', ['--base', dist, '--file', file, '--rounds', '2']);
  t.match(out, /issues\.db: 500 documents, 3 indexes/, 'the file read');
  for (const name of ['id', 'id,repoId', 'repoId,updatedAt', '(all)']) {
    t.match(out, new RegExp(`\\n  ${name.replace(/[(),]/g, '\\$&')} +\\d+\\.\\d +\\d+\\.\\d`), `a row for ${name}, both builds timed`);
  }
});

t.test('kept-order-ab changes counters on both builds', async (t) => {
  const out = run('kept-order-ab.js', ['--base', dist, '--size', '3000', '--batches', '2', '--pairs', '50']);
  t.match(out, /base: kept orders \(stars, updated\) built in \d+ ms/, 'the base build kept its orders');
  t.match(out, /this build: kept orders \(stars, updated\) built in \d+ ms/, 'this build too');
  t.match(out, /compound names @ 3000: µs per counter change, 2 batches of 100/, 'the batches');
  t.match(out, /base +median \d+\.\d\d +fastest \d+\.\d\d/, 'base timed');
  t.match(out, /this build +median \d+\.\d\d +fastest \d+\.\d\d/, 'this build timed');
});

t.test('boot-ab boots both builds on one data dir and times each boot', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-ab-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = run('boot-ab.js', ['--base', dist, '--data', dir, '--rounds', '2']);
  for (const round of [1, 2]) {
    for (const name of ['base', 'this build']) {
      t.match(out, new RegExp(`round ${round} ${name}: listening after \\d+ ms, CPU \\d+ ms, RSS \\d+ MiB`), `round ${round}: ${name} booted`);
    }
  }
  t.match(out, /base +median \d+ ms \(fastest \d+\), CPU median \d+ ms/, 'base summed up');
  t.match(out, /this build median \d+ ms \(fastest \d+\), CPU median \d+ ms/, 'this build summed up');
});

t.test('requests-ab loads both builds in alternated windows and reports CPU per request', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-ab-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = run('requests-ab.js', ['--base', dist, '--data', dir, '--path', '/version', '--windows', '2', '--seconds', '0.3', '--connections', '4', '--no-pin']);
  t.match(out, /^\/version\n  base \d+ µs\/req, this build \d+ µs\/req \(medians of the windows\); this build ÷ base per window: median \d+\.\d{3} \(\d+\.\d\d \d+\.\d\d\)$/m, 'both builds measured, two windows each');
  t.notMatch(out, /not 2xx/, 'every answer 2xx');
});
