// Request bodies: read with a hard size limit, never more than the limit in memory. A refused body (413, 415) is
// read on and dropped up to a bound before the answer goes out: a client that sends its whole body before it reads
// (or reads late) would otherwise find the connection reset under it and never see the status.
import type { IncomingMessage } from 'node:http';
import { ForgeError } from '../errors.js';

/**
 * Reads a body of at most `limit` bytes. Over the limit: the rest is dropped up to `discardLimit` bytes in all, then
 * 413 (the error reply closes the connection only if the body could not be read to its end).
 */
export function readBody(req: IncomingMessage, limit: number, discardLimit = 0): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    const tooLarge = () => { throw new ForgeError('PAYLOAD_TOO_LARGE', `request body is larger than ${limit} bytes`); };
    // A declared length beyond the bound is not waited for: answer at once (the connection closes).
    return discardBody(req, Number(declared) <= discardLimit ? discardLimit : 0).then(tooLarge);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        discardBody(req, discardLimit - size).then(
          () => reject(new ForgeError('PAYLOAD_TOO_LARGE', `request body is larger than ${limit} bytes`)),
          reject,
        );
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the client closed the connection before its body ended'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/**
 * Reads the rest of a body and drops it, up to `budget` more bytes; resolves once the body ended, the bound was
 * crossed (the error reply then closes the connection) or the client went away. Never rejects.
 */
export function discardBody(req: IncomingMessage, budget: number): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  if (budget <= 0) {
    req.resume(); // read on while the answer goes out; node closes the connection after it
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > budget) done(); // the reader keeps flowing; the reply closes the connection
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/** True when the request carries a body (a length above zero or chunked transfer). */
export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/** The media type of the request without parameters, lower-cased ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  const ct = req.headers['content-type'];
  if (!ct) return '';
  const semi = ct.indexOf(';');
  return (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
