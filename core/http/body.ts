// Request bodies: read with a hard size limit (413 as soon as it is crossed), never more than the limit in memory.
import type { IncomingMessage } from 'node:http';
import { ForgeError } from '../errors.js';

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume(); // let the client finish sending so it can read the 413
    throw new ForgeError('PAYLOAD_TOO_LARGE', `request body is larger than ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new ForgeError('PAYLOAD_TOO_LARGE', `request body is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
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
