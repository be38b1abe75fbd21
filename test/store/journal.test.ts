// The journal's appends: written in order, one write per turn of the event loop (group commit), acknowledged only once
// in the file, exclusive tasks in the same queue, and a failed write refuses further appends until a rewrite.
import t, { type Test } from 'tap';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import fs from 'node:fs';
import { Journal } from '../../core/store/embedded/journal.js';
import { removeDir, tempDir } from './helpers.js';

async function openJournal(t: Test): Promise<{ journal: Journal; file: string }> {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'c.db');
  const journal = new Journal(file);
  await journal.open();
  return { journal, file };
}

t.test('an acknowledged append is in the file, in the order appended', async (t) => {
  const { journal, file } = await openJournal(t);
  const acks = [journal.append('a\n'), journal.append('b\n')];
  // Nothing is written before the turn ends: the lines of one turn are one batch.
  t.equal(fs.readFileSync(file, 'utf8'), '');
  await Promise.all(acks);
  t.equal(await readFile(file, 'utf8'), 'a\nb\n');
  await journal.append('c\n');
  t.equal(await readFile(file, 'utf8'), 'a\nb\nc\n', 'a single append is written and acknowledged alone');
  t.equal(journal.dirty, 3);
  await journal.close();
});

t.test('lines handed in during one turn go out in one write', async (t) => {
  const { journal, file } = await openJournal(t);
  // The count is the whole process's: a write of the test reporter can land in the window, so the least of three.
  const writes: number[] = [];
  for (let round = 0; round < 3; round++) {
    writes.push(await countWrites(async () => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => journal.append(`${round}.${i}\n`)));
    }));
  }
  t.equal(Math.min(...writes), 1, `fifty appends of one turn: one write(2) (${writes.join(', ')})`);
  t.equal((await readFile(file, 'utf8')).split('\n').length, 151);
  await journal.close();
});

/** Turns of the event loop (check phases) that pass while `fn` runs. */
async function turnsDuring(fn: () => Promise<void>): Promise<number> {
  let turns = 0;
  let counting = true;
  const tick = () => {
    if (!counting) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await fn();
  counting = false;
  return turns;
}

t.test('a write that follows an acknowledged one goes out in the same turn, across journals', async (t) => {
  const a = await openJournal(t);
  const b = await openJournal(t);
  // A request's chain of dependent writes (intent, row, counter, intent removed), with a little work between them.
  const turns = await turnsDuring(async () => {
    await a.journal.append('intent\n');
    await b.journal.append('row\n');
    await Promise.resolve();
    await Promise.all([a.journal.append('counter 1\n'), b.journal.append('counter 2\n')]);
    await a.journal.append('intent done\n');
  });
  t.ok(turns <= 1, `four dependent writes in ${turns} turn(s) (one turn each before)`);
  t.equal(await readFile(a.file, 'utf8'), 'intent\ncounter 1\nintent done\n');
  t.equal(await readFile(b.file, 'utf8'), 'row\ncounter 2\n');
  await a.journal.close();
  await b.journal.close();
});

t.test('a loop of awaited writes still yields to the event loop', async (t) => {
  const { journal, file } = await openJournal(t);
  let written = 0;
  const turns = await turnsDuring(async () => {
    for (let i = 0; i < 100; i++) {
      await journal.append(`${i}\n`);
      written++;
    }
  });
  t.equal(written, 100);
  t.ok(turns >= 100 / 9 - 1, `100 awaited writes took ${turns} turns: at most 9 per turn, other work runs between`);
  t.equal((await readFile(file, 'utf8')).split('\n').length, 101);
  await journal.close();
});

t.test('exclusive tasks run after earlier appends and before later ones', async (t) => {
  const { journal, file } = await openJournal(t);
  const seen: string[] = [];
  const first = journal.append('1\n');
  const task = journal.exclusive(async () => {
    seen.push(await readFile(file, 'utf8'));
    return 'done';
  });
  const second = journal.append('2\n');
  t.equal(await task, 'done');
  await Promise.all([first, second]);
  t.same(seen, ['1\n'], 'the task saw the earlier append and not the later one');
  t.equal(await readFile(file, 'utf8'), '1\n2\n');
  await journal.close();
  await t.rejects(journal.append('3\n'), /is closed/);
});

t.test('a failed write rejects its appends and refuses later ones until a rewrite', async (t) => {
  const { journal, file } = await openJournal(t);
  await journal.append('kept\n');
  // Swap the journal's handle for a read-only one: the next write fails with EBADF.
  const inner = journal as unknown as { fh: FileHandle };
  await inner.fh.close();
  inner.fh = await open(file, 'r');
  await t.rejects(journal.append('lost\n'), { code: 'EBADF' });
  await t.rejects(journal.append('refused\n'), /not writable after a failed write/);
  await journal.exclusive(() => journal.rewrite(['kept\n', 'again\n'], async (f, lines) => { await fs.promises.writeFile(f, lines.join('')); }));
  await journal.append('after\n');
  t.equal(await readFile(file, 'utf8'), 'kept\nagain\nafter\n', 'writable again after the rewrite');
});

/** write(2) calls made by this process while `fn` runs, read from /proc (syscw counts every write-type syscall). */
async function countWrites(fn: () => Promise<void>): Promise<number> {
  const read = () => Number(/syscw: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);
  const before = read();
  await fn();
  // The read of /proc/self/io itself is not a write; nothing else in this test writes meanwhile (tap's reporter may).
  return read() - before;
}
