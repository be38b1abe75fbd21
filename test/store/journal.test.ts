// The journal's appends: written in order, one write per turn of the event loop (group commit), acknowledged only once
// in the file, exclusive tasks in the same queue, a failed write refuses further appends until a rewrite, and
// rewrites that let appends go on while they write.
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
  await journal.rewrite(blocksOf(['kept\n', 'again\n']), FILE_MODE);
  await journal.append('after\n');
  t.equal(await readFile(file, 'utf8'), 'kept\nagain\nafter\n', 'writable again after the rewrite');
});

const FILE_MODE = 0o600;

async function* blocksOf(blocks: string[]): AsyncGenerator<string> {
  for (const block of blocks) yield block;
}

/** Blocks that the test hands out one at a time: `next(block)` releases one, `end()` the end. */
function pacedBlocks(): { blocks: AsyncIterable<string>; started: Promise<void>; next: (block: string) => void; end: () => void } {
  const queue: Array<(value: IteratorResult<string>) => void> = [];
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const pending: Array<IteratorResult<string>> = [];
  const offer = (r: IteratorResult<string>): void => {
    const waiter = queue.shift();
    if (waiter) waiter(r);
    else pending.push(r);
  };
  const blocks: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        markStarted();
        const ready = pending.shift();
        return ready ? Promise.resolve(ready) : new Promise<IteratorResult<string>>((resolve) => queue.push(resolve));
      },
    }),
  };
  return { blocks, started, next: (block) => offer({ value: block, done: false }), end: () => offer({ value: undefined, done: true }) };
}

t.test('a rewrite writes its blocks while appends go on, then the lines written meanwhile', async (t) => {
  const { journal, file } = await openJournal(t);
  await journal.append('old 1\nold 2\n');
  const paced = pacedBlocks();
  const rewriting = journal.rewrite(paced.blocks, FILE_MODE);
  await paced.started;
  paced.next('new 1\n');
  // An append during the rewrite is acknowledged at once, into the old file, before the rewrite ends.
  await journal.append('during 1\n');
  t.equal(await readFile(file, 'utf8'), 'old 1\nold 2\nduring 1\n', 'the old file takes the append meanwhile');
  t.equal(await readFile(`${file}~`, 'utf8'), 'new 1\n', 'the new version is written block by block');
  paced.next('new 2\n');
  await journal.append('during 2\n');
  paced.end();
  await rewriting;
  t.equal(await readFile(file, 'utf8'), 'new 1\nnew 2\nduring 1\nduring 2\n', 'the blocks, then what was written meanwhile');
  t.notOk(fs.existsSync(`${file}~`), 'no temp file left');
  t.equal(journal.dirty, 2, 'the appends made meanwhile keep the file dirty (the tail may repeat what the blocks hold)');
  await journal.append('after\n');
  t.equal(await readFile(file, 'utf8'), 'new 1\nnew 2\nduring 1\nduring 2\nafter\n', 'appends go to the new file');
  await journal.rewrite(blocksOf(['clean\n']), FILE_MODE);
  t.equal(journal.dirty, 0, 'a rewrite with no append meanwhile leaves the file clean');
  await journal.close();
});

t.test('a rewrite whose blocks fail leaves the file as it was and appends going on', async (t) => {
  const { journal, file } = await openJournal(t);
  await journal.append('a\n');
  async function* failing(): AsyncGenerator<string> {
    yield 'half\n';
    throw new Error('serialisation failed');
  }
  await t.rejects(journal.rewrite(failing(), FILE_MODE), /serialisation failed/);
  t.notOk(fs.existsSync(`${file}~`), 'the unfinished new version is removed');
  await journal.append('b\n');
  t.equal(await readFile(file, 'utf8'), 'a\nb\n');
  await journal.rewrite(blocksOf(['c\n']), FILE_MODE);
  t.equal(await readFile(file, 'utf8'), 'c\n', 'the next rewrite runs');
  await journal.close();
});

t.test('lines refused by a broken file during a rewrite still go in its tail (memory holds them)', async (t) => {
  const { journal, file } = await openJournal(t);
  await journal.append('kept\n');
  const paced = pacedBlocks();
  const rewriting = journal.rewrite(paced.blocks, FILE_MODE);
  await paced.started;
  const inner = journal as unknown as { fh: FileHandle };
  const writable = inner.fh;
  inner.fh = await open(file, 'r');
  await t.rejects(journal.append('failed\n'), { code: 'EBADF' });
  await t.rejects(journal.append('refused\n'), /not writable after a failed write/);
  await inner.fh.close();
  inner.fh = writable;
  paced.next('snapshot\n');
  paced.end();
  await rewriting;
  await journal.append('after\n');
  t.equal(await readFile(file, 'utf8'), 'snapshot\nfailed\nrefused\nafter\n');
  await journal.close();
});

t.test('rewrites run one after the other', async (t) => {
  const { journal, file } = await openJournal(t);
  const first = pacedBlocks();
  const second = pacedBlocks();
  const a = journal.rewrite(first.blocks, FILE_MODE);
  const b = journal.rewrite(second.blocks, FILE_MODE);
  await first.started;
  let secondStarted = false;
  void second.started.then(() => (secondStarted = true));
  first.next('first\n');
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.notOk(secondStarted, 'the second waits for the first');
  first.end();
  await a;
  second.next('second\n');
  second.end();
  await b;
  t.equal(await readFile(file, 'utf8'), 'second\n');
  await journal.close();
});

/** write(2) calls made by this process while `fn` runs, read from /proc (syscw counts every write-type syscall). */
async function countWrites(fn: () => Promise<void>): Promise<number> {
  const read = () => Number(/syscw: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);
  const before = read();
  await fn();
  // The read of /proc/self/io itself is not a write; nothing else in this test writes meanwhile (tap's reporter may).
  return read() - before;
}
