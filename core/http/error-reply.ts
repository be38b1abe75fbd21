// Stage 4: anything a stage or a handler threw becomes a JSON error `{message, url}` with the status of its code
// (core/errors.ts); anything else is a logged 500 that says nothing about the cause.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { isForgeError } from '../errors.js';
import type { Serializer } from '../serialize.js';
import { RESPONSE_HEADERS } from './headers.js';
import type { ReplyBatch } from './reply-batch.js';
import { JSON_TYPE } from './reply.js';

/** Answers a failed request; returns the status written (or meant, when the head had already gone out). */
export type ErrorSender = (res: ServerResponse, id: string, err: unknown, reqLog: () => Logger) => number;

const ERROR_SCHEMA = { type: 'object', properties: { message: { type: 'string' }, url: { type: 'string' } } };

export function createErrorSender(replies: ReplyBatch, compile: (schema: object) => Serializer, docsUrl: string): ErrorSender {
  const serializeError = compile(ERROR_SCHEMA);
  return function sendError(res, id, err, reqLog) {
    let status = 500;
    let message = 'internal server error';
    let extra: Record<string, string> = {};
    if (isForgeError(err)) {
      status = err.status;
      message = err.message;
      extra = err.headers;
    } else {
      reqLog().error({ err }, 'unhandled error');
    }
    if (res.headersSent) {
      // A streaming handler failed after its head went out: the client sees a cut response, never a second head.
      res.destroy();
      return status;
    }
    const headers: Record<string, string | number> = { ...extra, 'X-Request-Id': id };
    for (let i = 0; i < RESPONSE_HEADERS.length; i += 2) headers[RESPONSE_HEADERS[i]!] = RESPONSE_HEADERS[i + 1]!;
    // A body left unread (past the discard bound, or never read) cannot be skipped on a kept-alive connection.
    if ((status === 413 || status === 415) && res.req && !res.req.complete) headers.Connection = 'close';
    const payload = serializeError({ message, url: docsUrl });
    headers['Content-Type'] = JSON_TYPE;
    headers['Content-Length'] = Buffer.byteLength(payload);
    res.writeHead(status, headers);
    replies.hold(res, id, payload);
    return status;
  };
}
