// Stage 3: a handler's Reply becomes the response — body serialised with the route's response schema, one flat
// header list, the write held for the end of the turn (reply-batch.ts; `server.replyBatch`).
import type { ServerResponse } from 'node:http';
import type { Reply } from '../plugin.js';
import type { CompiledRoute } from './compile.js';
import { HTML_RESPONSE_HEADERS, RESPONSE_HEADERS, pushHeaders } from './headers.js';
import type { ReplyBatch, ReplyBody } from './reply-batch.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** Writes a handler's reply; returns nothing (the status is the reply's). */
export type ReplySender = (res: ServerResponse, id: string, route: CompiledRoute, reply: Reply) => void;

export function createReplySender(replies: ReplyBatch): ReplySender {
  return function sendReply(res, id, route, reply) {
    const status = reply.status;
    let text: ReplyBody | undefined;
    let type: string | undefined;
    if (reply.body === undefined || status === 204) {
      text = undefined;
    } else if (reply.type === 'html' || reply.type === 'text') {
      text = reply.body as string | Buffer;
      type = reply.type === 'html' ? HTML_TYPE : TEXT_TYPE;
    } else if (reply.type === 'json-text') {
      text = reply.body as ReplyBody;
      type = JSON_TYPE;
    } else {
      const serialize = route.serializers.get(status);
      text = serialize ? serialize(reply.body) : JSON.stringify(reply.body);
      type = JSON_TYPE;
    }
    // One flat list for writeHead, like a raw header block: no header object is built or copied per request.
    const headers: Array<string | number | readonly string[]> = [];
    if (reply.headers) {
      for (const key in reply.headers) {
        if (key.length === 12 && key.toLowerCase() === 'content-type') {
          // html and text keep a type the handler chose; JSON is always JSON.
          if (type !== JSON_TYPE && text !== undefined) type = reply.headers[key] as string;
          continue;
        }
        headers.push(key, reply.headers[key]!);
      }
    }
    headers.push('X-Request-Id', id);
    pushHeaders(headers, RESPONSE_HEADERS);
    if (text === undefined) {
      headers.push('Content-Length', 0);
      res.writeHead(status, headers as string[]);
      replies.hold(res, id);
      return;
    }
    if (reply.type === 'html') pushHeaders(headers, HTML_RESPONSE_HEADERS);
    // A string body goes out in one write together with the header block; a Buffer would take a writev.
    headers.push('Content-Type', type!, 'Content-Length', byteLength(text));
    // writeHead only builds the header block (and validates it here, inside the request's error handling); the
    // bytes go out with the turn's other replies.
    res.writeHead(status, headers as string[]);
    replies.hold(res, id, text);
  };
}

function byteLength(body: ReplyBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (!Array.isArray(body)) return (body as Buffer).length;
  let length = 0;
  for (let i = 0; i < body.length; i++) length += body[i]!.length;
  return length;
}
