// Replies made during one event-loop turn are written together at the end of that turn (`server.replyBatch`).
//
// Why: a write to a socket whose reader is asleep wakes the reader, and on a VM that wake-up (an inter-processor
// interrupt) costs more than answering a small request. Measured on the 2-core bench VM, a 22 KB list reply's
// writev cost 47 µs while the same bytes cost the bare server 10 µs: the bare server answers faster than its
// client reads, so its client never sleeps. Written back to back after the turn, the first reply wakes the reader
// and the rest land while it runs. Under load a turn holds the requests that were ready together, and their
// replies leave within microseconds of each other; an idle server's reply leaves in the same turn (setImmediate).
// The bytes, their order per connection (node:http queues pipelined replies) and every header stay the same.
//
// What it changes (and why it is a switch): a held write happens after the handler's stage has returned, so an
// exception thrown by `res.end` is not the request's error (no error reply, the request was already logged with its
// status) but a logged `reply write failed` line carrying the request id; and `close()` writes what is held before
// it closes connections. `server.replyBatch: 0` writes every reply in place, inside the request's turn, with the
// same error attribution (logged with the request id).
//
// A body in pieces (JSON assembled from cached per-document text) is copied into a region of the reply arena just
// before its write, and the region goes back when the write has finished (reply-arena.ts says why).

import type { ServerResponse } from 'node:http';
import { ReplyArena } from './reply-arena.js';

/** A reply body: text, bytes, or bytes in pieces to be written in order. */
export type ReplyBody = string | Buffer | readonly Buffer[];

export interface ReplyBatch {
  /**
   * Ends `res` (its head already built by writeHead) with `body` at the end of the current turn, or at once when
   * batching is off or the batch is full. `id` is the request's id, for the log line of a write that fails.
   */
  hold(res: ServerResponse, id: string, body?: ReplyBody): void;
  /** Writes everything held now (shutdown, before connections are closed). */
  release(): void;
  /** How many writes are held right now. */
  readonly size: number;
}

/** A write that threw: reported with the id of the request it answered (the response is destroyed, never left hanging). */
export type WriteErrorHandler = (err: unknown, requestId: string) => void;

function end(res: ServerResponse, id: string, body: ReplyBody | undefined, onError: WriteErrorHandler, arena: ReplyArena): void {
  try {
    if (Array.isArray(body)) {
      if (res.destroyed) {
        res.end(); // the connection is gone ('close' was emitted): nothing to copy, nothing would come back
        return;
      }
      const bytes = arena.assemble(body);
      // 'close' follows 'finish' (the bytes are with the kernel) or a lost connection (its writes cancelled): either
      // way node reads the region no more.
      res.once('close', () => arena.release(bytes));
      res.end(bytes);
    } else {
      res.end(body);
    }
  } catch (err) {
    // A region whose write threw is never given back: a socket's queue may still hold it (its slab is forgotten).
    res.destroy();
    onError(err, id);
  }
}

/**
 * @param maxHeld Most writes held at once: the one that reaches it releases the batch in place, which bounds the
 *   time a reply can wait for its turn's other requests. 0 or 1: no batching, every write happens in place.
 * @param onError Called with a write's error and its request id; the other writes still happen.
 */
export function createReplyBatch(maxHeld: number, onError: WriteErrorHandler, arena = new ReplyArena()): ReplyBatch {
  if (maxHeld <= 1) return { hold: (res, id, body) => end(res, id, body, onError, arena), release() {}, size: 0 };
  // Three parallel arrays: no object per held reply.
  let responses: ServerResponse[] = [];
  let ids: string[] = [];
  let bodies: Array<ReplyBody | undefined> = [];
  let scheduled = false;

  const release = (): void => {
    scheduled = false;
    if (responses.length === 0) return;
    const [rs, is, bs] = [responses, ids, bodies];
    responses = [];
    ids = [];
    bodies = [];
    for (let i = 0; i < rs.length; i++) end(rs[i]!, is[i]!, bs[i], onError, arena);
  };

  return {
    hold(res, id, body) {
      responses.push(res);
      ids.push(id);
      bodies.push(body);
      if (responses.length >= maxHeld) {
        release();
        return;
      }
      if (!scheduled) {
        scheduled = true;
        setImmediate(release);
      }
    },
    release,
    get size() {
      return responses.length;
    },
  };
}
