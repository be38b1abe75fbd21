// Whether a streamed response's client has gone: a handler that awaited something (a slot, a process start) may find
// the connection closed already, its 'close' event past, so listening for it from then on would wait for ever.
import type { ServerResponse } from 'node:http';

/** True once the client's connection is gone (closed, destroyed, or the response already torn down). */
export function responseGone(res: ServerResponse): boolean {
  // (No socket is not "gone": a pipelined response waits for its socket.)
  return res.destroyed || res.socket?.destroyed === true;
}

/**
 * Ends a streamed response and resolves once it finished or its connection closed. `res.end(callback)` never calls
 * back on a response whose socket was destroyed (a client that reset the connection) before the response's own
 * 'close' came — `res.destroyed` is still false in that window — and a handler awaiting it held its request in flight
 * for ever (a server's close then waited out its shutdown timeout for it).
 */
export function endResponse(res: ServerResponse, chunk?: string | Buffer): Promise<void> {
  if (responseGone(res)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    res.once('close', () => resolve());
    if (chunk === undefined) res.end(() => resolve());
    else res.end(chunk, () => resolve());
  });
}
