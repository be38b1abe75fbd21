// Whether a streamed response's client has gone: a handler that awaited something (a slot, a process start) may find
// the connection closed already, its 'close' event past, so listening for it from then on would wait for ever.
import type { ServerResponse } from 'node:http';

/** True once the client's connection is gone (closed, destroyed, or the response already torn down). */
export function responseGone(res: ServerResponse): boolean {
  // (No socket is not "gone": a pipelined response waits for its socket.)
  return res.destroyed || res.socket?.destroyed === true;
}
