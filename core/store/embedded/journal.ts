// The append-only data file of one collection: ordered group-commit appends, exclusive rewrites, torn-tail repair.
import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { FileRewrite } from './rewrite.js';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Batch {
  kind: 'batch';
  parts: string[];
  done: Deferred;
}

interface Task {
  kind: 'task';
  fn: () => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Every mutation of a collection is applied in memory synchronously and then handed its serialised lines here.
 * Lines are written in the order they were handed in; while one write is in flight, the lines that arrive are
 * batched into the next write (group commit). A caller's promise resolves only once the write holding its lines
 * has completed, so an acknowledged write is in the file (the OS page cache) and survives the process being
 * killed. Exclusive tasks (compaction, drop, close) take their place in the same first-in, first-out queue, so a
 * steady stream of writes cannot starve them.
 *
 * The appends themselves are synchronous `write(2)`s, started from `setImmediate` so that every line handed in during
 * the same turn of the event loop goes in one write. An append to the page cache costs ~2 µs of CPU that way; the
 * same append through the promise API (libuv's thread pool, a wake-up each way) cost 55–77 µs of the process's CPU
 * on the benchmark VM and was 12% of the mixed workload's profile. Not a microtask: a loop of awaited writes would
 * then never yield to the event loop (timers, sockets and compaction would starve). Every journal of the process is
 * drained by one flush per turn (`flushTurn`), which also writes, in the same turn, what the acknowledged callers
 * append next (see there).
 */
export class Journal {
  private fh: FileHandle | null = null;
  private queue: Array<Batch | Task> = [];
  private running = false;
  /** Set when a write failed: the file may end with a partial line until the next successful rewrite. */
  private broken: Error | null = null;
  /** Writes since the last rewrite (or 1 for a file loaded with superseded lines): compaction skips a clean file. */
  dirty = 0;
  /** While a rewrite writes its blocks: every line written (or refused) since it began, for the new file's tail. */
  private captured: string[] | null = null;
  /** The rewrite in progress, if any: rewrites run one after the other. */
  private rewriting: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  async open(): Promise<void> {
    this.fh = await open(this.file, 'a', 0o600);
  }

  /** The file holds lines a rewrite would drop (a load found superseded versions): the next compaction rewrites it. */
  markStale(): void {
    this.dirty++;
  }

  append(text: string): Promise<void> {
    if (this.broken) {
      // Memory holds the change all the same: a rewrite under way writes it (the next one writes memory anyway).
      this.captured?.push(text);
      return Promise.reject(new Error(`${this.file} is not writable after a failed write (${this.broken.message}); it recovers at the next compaction`));
    }
    if (!this.fh) return Promise.reject(new Error(`${this.file} is closed`));
    let last = this.queue[this.queue.length - 1];
    if (!last || last.kind !== 'batch') {
      last = { kind: 'batch', parts: [], done: deferred() };
      this.queue.push(last);
    }
    last.parts.push(text);
    this.dirty++;
    this.schedule();
    return last.done.promise;
  }

  /** Runs `fn` when every earlier append has been written and before any later one. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ kind: 'task', fn, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Starts the drain after the current turn of the event loop, so the lines of the turn are one batch. */
  private schedule(): void {
    if (this.running) return;
    this.running = true;
    requestDrain(this.drainNow);
  }

  /** This journal's drain as `flushTurn` runs it (one function per journal: the set of waiting drains dedupes it). */
  private readonly drainNow = (): void => void this.drain();

  /**
   * Replaces the file with the `blocks` (the collection as memory holds it) followed by every line written to the
   * old file since the blocks began. Appends go on meanwhile: while the blocks are made and written they go to the
   * old file as always, and are captured; only the captured tail, an fsync and the rename hold them (an exclusive
   * task). A document changed while the blocks are made is thus either in them as changed, or in them as it was and
   * then in the tail; the tail may repeat a line the blocks hold already (a later line for an `_id` replaces an
   * earlier one), so lines written meanwhile keep the file dirty. The blocks start when their iterator is first
   * asked for one: after the capture began.
   */
  rewrite(blocks: AsyncIterable<string>, fileMode: number): Promise<void> {
    const run = this.rewriting.then(() => this.rewriteNow(blocks, fileMode));
    this.rewriting = run.catch(() => undefined);
    return run;
  }

  private async rewriteNow(blocks: AsyncIterable<string>, fileMode: number): Promise<void> {
    if (!this.fh) throw new Error(`${this.file} is closed`);
    const out = await FileRewrite.begin(this.file, fileMode);
    const dirtyBefore = this.dirty;
    this.captured = [];
    let committed = false;
    try {
      for await (const block of blocks) await out.write(block);
      await out.sync();
      const replaced = await this.exclusive(async () => {
        const old = this.fh;
        if (!old) throw new Error(`${this.file} is closed`);
        const tail = this.captured!;
        this.captured = null;
        if (tail.length > 0) await out.write(tail.join(''));
        await out.commit();
        committed = true;
        this.fh = await open(this.file, 'a', 0o600);
        this.broken = null;
        this.dirty -= dirtyBefore;
        return old;
      });
      // Outside the task, so appends go on meanwhile. Closing the old file frees its blocks (40–50 ms for 200 MB on
      // the benchmark VM's disk). The rename is in the kernel already (a killed process keeps it); only a power loss
      // in these milliseconds could undo it, like the last appends, which are not fsynced either.
      await replaced.close();
      await out.syncDirectory();
    } finally {
      this.captured = null;
      if (!committed) await out.abort();
    }
  }

  async close(): Promise<void> {
    await this.exclusive(async () => {
      const fh = this.fh;
      this.fh = null;
      await fh?.close();
    });
  }

  private async drain(): Promise<void> {
    try {
      for (let entry = this.queue.shift(); entry; entry = this.queue.shift()) {
        if (entry.kind === 'batch') {
          // Taken off the queue: appends from now on start the next batch.
          try {
            const text = entry.parts.length === 1 ? entry.parts[0]! : entry.parts.join('');
            this.captured?.push(text);
            this.write(text);
            entry.done.resolve();
          } catch (err) {
            this.broken = err as Error;
            entry.done.reject(err);
          }
        } else {
          try {
            entry.resolve(await entry.fn());
          } catch (err) {
            entry.reject(err);
          }
        }
      }
    } finally {
      this.running = false;
    }
  }

  private write(text: string): void {
    if (this.broken) throw this.broken;
    const fh = this.fh;
    if (!fh) throw new Error(`${this.file} is closed`);
    const buf = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buf.length) offset += writeSync(fh.fd, buf, offset, buf.length - offset);
  }
}

// ---------------------------------------------------------------------------------------------- the flush of a turn

/**
 * Follow-up rounds of one flush. A request that writes several documents one after the other (a star: its intent,
 * the row, two counters, the intent's removal) used to wait for one event-loop turn per write, each turn as long as
 * every other request of it: 25 ms at the median for a star under the mixed load. Now the writes its acknowledged
 * predecessor leads to go out in the same turn. Bounded, so a loop of awaited writes still yields to the event loop.
 */
const FOLLOW_UP_ROUNDS = 8;
/** The drains of journals with appends or tasks waiting and no drain running. */
const waiting = new Set<() => void>();
let flushScheduled = false;

function requestDrain(drain: () => void): void {
  waiting.add(drain);
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(() => void flushTurn());
}

/** Settles once every microtask queued so far, and every one those queue, has run (unless they wait for I/O). */
async function microtasksSettled(): Promise<void> {
  // A tick queued from inside a microtask runs once the microtask queue is empty; the `await` first gets there.
  await null;
  await new Promise<void>((resolve) => process.nextTick(resolve));
}

/**
 * Drains every waiting journal (the lines of the whole turn: one write each), then lets the callers whose writes
 * were just acknowledged go on and drains again what they appended, up to FOLLOW_UP_ROUNDS times; what is left
 * waits for the next turn.
 */
async function flushTurn(): Promise<void> {
  try {
    for (let round = 0; waiting.size > 0 && round <= FOLLOW_UP_ROUNDS; round++) {
      const ready = [...waiting];
      waiting.clear();
      for (const drain of ready) drain();
      await microtasksSettled();
    }
  } finally {
    flushScheduled = false;
    if (waiting.size > 0) {
      flushScheduled = true;
      setImmediate(() => void flushTurn());
    }
  }
}

export interface TailRepair {
  /** Bytes of a partial last line that were cut off. */
  dropped: number;
  /** True when the last line was complete but lacked its newline (one was added). */
  completed: boolean;
}

/**
 * A crash can leave a partial JSON line at the end of a data file (the process died mid-append). Such a line was
 * never acknowledged, so it is cut off before the file is loaded. Only the last line is treated this way: a bad
 * line anywhere else is corruption and stops the load.
 */
export async function repairTornTail(file: string): Promise<TailRepair | null> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return null;
    const last = Buffer.alloc(1);
    await fh.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return null;
    // Find the last newline, reading backwards in chunks.
    const chunks: Buffer[] = [];
    let pos = size;
    let newline = -1;
    while (pos > 0 && newline < 0) {
      const len = Math.min(64 * 1024, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, pos);
      const i = buf.lastIndexOf(0x0a);
      if (i >= 0) {
        newline = pos + i;
        chunks.unshift(buf.subarray(i + 1));
      } else chunks.unshift(buf);
    }
    const fragment = Buffer.concat(chunks);
    let complete = false;
    try {
      const parsed: unknown = JSON.parse(fragment.toString('utf8'));
      complete = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    } catch {
      complete = false;
    }
    if (complete) {
      await fh.write('\n', size);
      return { dropped: 0, completed: true };
    }
    await fh.truncate(newline + 1);
    return { dropped: fragment.length, completed: false };
  } finally {
    await fh.close();
  }
}
