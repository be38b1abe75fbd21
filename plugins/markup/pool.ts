// A small pool of render workers with a per-document time limit. Workers start on first use; a worker that runs
// past the limit (or out of memory) is terminated and replaced, and its document is refused. Plain markdown gets a
// second chance: commonmark.js has quadratic paths on some hostile inputs (unclosed link destinations, unclosed
// comments), so after `fallbackAfterMs` the document is rendered again with markdown-it's CommonMark preset, which is
// linear on them, within what is left of the time limit.
import { Worker } from 'node:worker_threads';
import { normalizeMode, type RenderOptions } from './mode.js';

/** The document took longer than the limit, or more memory than a worker may use. */
export class RenderLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderLimitError';
  }
}

export interface RenderPool {
  render(text: string, options: RenderOptions): Promise<string>;
  /** Workers started (ready or starting). */
  readonly workers: number;
  /** Terminates the workers; queued and running documents are rejected. */
  close(): Promise<void>;
}

export interface RenderPoolOptions {
  size: number;
  rootUrl: string;
  timeoutMs: number;
  /** When plain markdown switches to the linear engine (default: half the time limit, at most 2 s). */
  fallbackAfterMs?: number;
  /** Old-generation heap per worker (MB). */
  heapMb?: number;
  /** A worker idle this long stops (its 40–50 MiB of memory go with it); the next document starts one. 0: never. */
  idleMs?: number;
}

interface Pending {
  id: number;
  text: string;
  options: RenderOptions;
  /** Set when first dispatched: the whole document, fallback included, must render by then. */
  deadline: number;
  canFallBack: boolean;
  resolve(html: string): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** Set when the worker has loaded the renderer. */
  ready: boolean;
  job: Pending | null;
  timer: NodeJS.Timeout | undefined;
  /** Runs while the worker is ready and has no document: it retires the worker. */
  idleTimer: NodeJS.Timeout | undefined;
}

interface Reply {
  ready?: boolean;
  id?: number;
  html?: string;
  error?: string;
}

const WORKER_URL = new URL('./worker.js', import.meta.url);

/**
 * Young generation of a worker (MB). V8's default (48: three 16 MB semi-spaces) is sized for a main thread that
 * allocates fast for long; a render's parse tree and HTML are dead within the document. Two workers rendering 50 KB
 * READMEs back to back: +135–145 MiB of process RSS with the default, +101–110 with 24, the same CPU per document
 * (35–45 ms either way, 3 runs each).
 */
const YOUNG_GENERATION_MB = 24;

/** Takes the slot's job (if any) off it and stops its timer. */
function finish(slot: Slot): Pending | null {
  const job = slot.job;
  slot.job = null;
  clearTimeout(slot.timer);
  slot.timer = undefined;
  return job;
}

export function createRenderPool(poolOptions: RenderPoolOptions): RenderPool {
  const { size, rootUrl, timeoutMs, heapMb = 512, idleMs = 0 } = poolOptions;
  const fallbackAfterMs = poolOptions.fallbackAfterMs ?? Math.min(2000, Math.floor(timeoutMs / 2));
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  /** A worker that dies before it is ready would die again: fail the waiting documents instead of respawning. */
  function failedToStart(slot: Slot, err: Error): void {
    if (slot.ready) return;
    for (const job of queue.splice(0)) job.reject(err);
  }

  /**
   * An idle worker does not keep the process alive (a busy or starting one does), and stops after `idleMs`: a server
   * that renders a burst of large documents now and then does not keep the workers' memory in between.
   */
  function idle(slot: Slot): void {
    if (!slot.ready || slot.job !== null) return;
    slot.worker.unref();
    if (idleMs > 0 && slot.idleTimer === undefined) {
      slot.idleTimer = setTimeout(() => {
        slot.idleTimer = undefined;
        if (slot.job === null) retire(slot);
      }, idleMs);
      slot.idleTimer.unref();
    }
  }

  /** Drops a worker that can no longer be trusted with work (or idle too long); another starts when there is work. */
  function retire(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => {});
    void slot.worker.terminate();
    pump();
  }

  function spawn(): Slot {
    const worker = new Worker(WORKER_URL, { workerData: { rootUrl }, resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, ready: false, job: null, timer: undefined, idleTimer: undefined };
    worker.on('message', (reply: Reply) => {
      if (reply.ready) {
        slot.ready = true;
        pump();
        idle(slot);
        return;
      }
      if (slot.job === null || slot.job.id !== reply.id) return;
      const job = finish(slot)!;
      if (reply.error !== undefined) job.reject(new Error(reply.error));
      else job.resolve(reply.html ?? '');
      pump();
      idle(slot);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const job = finish(slot);
      job?.reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new RenderLimitError('the document needs more memory to render than allowed')
        : err);
      failedToStart(slot, err);
      retire(slot);
    });
    worker.on('exit', () => {
      const err = new Error('render worker exited');
      finish(slot)?.reject(err);
      failedToStart(slot, err);
      retire(slot);
    });
    // Spawned because a document waits: it keeps the process alive until idle (see idle()).
    return slot;
  }

  function run(slot: Slot, job: Pending): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.job = job;
    slot.worker.ref();
    if (job.deadline === 0) job.deadline = Date.now() + timeoutMs;
    const remaining = Math.max(0, job.deadline - Date.now());
    slot.timer = setTimeout(() => {
      finish(slot);
      if (job.canFallBack && job.deadline > Date.now()) {
        job.canFallBack = false;
        job.options = { ...job.options, engine: 'markdown-it' };
        queue.unshift(job);
      } else {
        job.reject(new RenderLimitError(`the document did not render within ${timeoutMs} ms`));
      }
      retire(slot);
    }, job.canFallBack ? Math.min(fallbackAfterMs, remaining) : remaining);
    slot.worker.postMessage({ id: job.id, text: job.text, options: job.options });
  }

  function pump(): void {
    if (closed) return;
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (slot.ready && !slot.job) run(slot, queue.shift()!);
    }
    // More workers while documents wait for one (up to the pool size); they take work once ready.
    const starting = slots.filter((slot) => !slot.ready).length;
    for (let n = Math.min(queue.length - starting, size - slots.length); n > 0; n--) slots.push(spawn());
  }

  return {
    get workers() {
      return slots.length;
    },
    render(text, options) {
      if (closed) return Promise.reject(new Error('render pool is closed'));
      return new Promise<string>((resolve, reject) => {
        const canFallBack = normalizeMode(options.mode) === 'markdown' && options.engine !== 'markdown-it';
        queue.push({ id: nextId++, text, options, deadline: 0, canFallBack, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('render pool is closed'));
      const all = slots.splice(0);
      for (const slot of all) {
        clearTimeout(slot.idleTimer);
        finish(slot)?.reject(new Error('render pool is closed'));
        slot.worker.removeAllListeners();
        slot.worker.on('error', () => {});
      }
      await Promise.all(all.map((slot) => slot.worker.terminate()));
    },
  };
}
