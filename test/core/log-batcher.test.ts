// The kernel's log destination: batches by size, keeps order and every byte, survives a full pipe, never throws.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogBatcher } from '../../core/http/log-batcher.js';
import { nodeCommand } from '../helpers/child-env.js';

const dirs: string[] = [];
const tmp = () => { const dir = mkdtempSync(path.join(os.tmpdir(), 'forgekit-logb-')); dirs.push(dir); return dir; };
t.teardown(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

t.test('lines wait for a full batch, then go out whole and in order', async (t) => {
  const file = path.join(tmp(), 'log');
  const fd = openSync(file, 'w');
  t.teardown(() => closeSync(fd));
  const batcher = new LogBatcher({ fd, batchBytes: 1000 });
  const lines: string[] = [];
  for (let i = 0; i < 9; i++) {
    const line = `{"n":${i},"pad":"${'x'.repeat(90)}"}\n`; // 102 bytes
    lines.push(line);
    batcher.write(line);
  }
  t.equal(readFileSync(file, 'utf8'), '', 'under the batch size nothing is written');
  lines.push(`{"n":9,"pad":"${'x'.repeat(90)}"}\n`);
  batcher.write(lines[9]!);
  t.equal(readFileSync(file, 'utf8'), lines.join(''), 'the line that fills the batch writes it all');
  batcher.write('{"after":"ü ✓ 𝄞"}\n');
  batcher.flushSync();
  t.equal(readFileSync(file, 'utf8'), lines.join('') + '{"after":"ü ✓ 𝄞"}\n', 'flushSync writes the rest, UTF-8 intact');
  batcher.end();
  batcher.write('{"late":true}\n');
  batcher.flushSync();
  t.notMatch(readFileSync(file, 'utf8'), /late/, 'after end() lines are dropped');
  t.equal(batcher.dropped, 1, 'and counted');
});

t.test("pino's flush(cb) writes what is pending", async (t) => {
  const file = path.join(tmp(), 'log');
  const fd = openSync(file, 'w');
  t.teardown(() => closeSync(fd));
  const batcher = new LogBatcher({ fd, batchBytes: 4096 });
  batcher.write('one\n');
  await new Promise<void>((resolve) => batcher.flush(() => resolve()));
  t.equal(readFileSync(file, 'utf8'), 'one\n');
  batcher.end();
});

t.test('a line larger than the whole buffer is written on its own, after what was pending', async (t) => {
  const file = path.join(tmp(), 'log');
  const fd = openSync(file, 'w');
  t.teardown(() => closeSync(fd));
  const batcher = new LogBatcher({ fd, batchBytes: 100, capacityBytes: 200 });
  batcher.write('small\n');
  const huge = `${'é'.repeat(500)}\n`;
  batcher.write(huge);
  batcher.write('tail\n');
  batcher.flushSync();
  t.equal(readFileSync(file, 'utf8'), `small\n${huge}tail\n`);
  batcher.end();
});

t.test('a full non-blocking pipe (EAGAIN) keeps lines pending, drops beyond capacity, and delivers the rest in order', async (t) => {
  const fifo = path.join(tmp(), 'fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  t.teardown(() => {
    closeSync(writer);
    closeSync(reader);
  });
  const batcher = new LogBatcher({ fd: writer, batchBytes: 4096, capacityBytes: 16384 });
  const sent: string[] = [];
  // Far more than a pipe holds (64 KiB on Linux) plus the batcher's 16 KiB: some lines must be dropped, none may throw.
  for (let i = 0; i < 2000; i++) {
    const line = `${String(i).padStart(6, '0')} ${'y'.repeat(92)}\n`;
    sent.push(line);
    t.doesNotThrow(() => batcher.write(line));
  }
  t.ok(batcher.dropped > 0, `lines beyond the capacity are dropped (${batcher.dropped})`);
  // Drain the pipe while flushing: what was kept arrives whole, in order.
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  for (let round = 0; round < 50; round++) {
    for (;;) {
      let n = 0;
      try {
        n = readSync(reader, buf, 0, buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw err;
      }
      if (n <= 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    batcher.flushSync();
  }
  const got = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
  t.equal(got.length, sent.length - batcher.dropped, 'every line not dropped arrives');
  t.ok(got.every((line) => line.length === 99), 'no line is cut');
  const numbers = got.map((line) => Number(line.slice(0, 6)));
  t.ok(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!), 'in the order written');
  batcher.end();
});

t.test('a descriptor that fails for good stops writing without throwing', async (t) => {
  const fd = openSync(path.join(tmp(), 'log'), 'w');
  closeSync(fd);
  const batcher = new LogBatcher({ fd, batchBytes: 10 });
  t.doesNotThrow(() => {
    batcher.write('0123456789abcdef\n');
    batcher.write('more\n');
    batcher.flushSync();
  });
  t.equal(batcher.dropped, 1, 'the line after the failure is dropped');
  batcher.end();
});

t.test('what is pending is written when the process exits', async (t) => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const module = path.resolve(here, '../../core/http/log-batcher.js');
  const script = `import { LogBatcher } from ${JSON.stringify(module)};
const b = new LogBatcher({ fd: 1, batchBytes: 1 << 20 });
b.write('first\\n'); b.write('second\\n');
process.exit(0);`;
  const out = spawnSync(...nodeCommand(['--input-type=module', '-e', script]), { encoding: 'utf8' });
  t.equal(out.status, 0);
  t.equal(out.stdout, 'first\nsecond\n');
});
