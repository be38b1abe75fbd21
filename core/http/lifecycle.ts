// Stage 5: the server's life — listen with the configured node:http server options, and a graceful close (no new
// connections, in-flight requests finish up to shutdownTimeoutMs, held replies leave, plugins stop, the store closes).
import http from 'node:http';
import type { Logger } from 'pino';
import type { ForgeConfig } from '../config.js';
import type { Dispatch, InFlight } from './dispatch.js';
import type { ReplyBatch } from './reply-batch.js';

export interface Lifecycle {
  listen(port?: number, host?: string): Promise<{ port: number; host: string; url: string }>;
  close(): Promise<void>;
}

export interface LifecycleDeps {
  config: ForgeConfig;
  log: Logger;
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  inFlight: InFlight;
  replies: ReplyBatch;
  pluginNames: readonly string[];
  /** Stops the plugins and closes the store and the log, after the last request. */
  shutdown(): Promise<void>;
}

/**
 * The node:http server options from `config.server` (timeouts in ms; 0 turns a timeout or the connection limit off,
 * as node:http reads 0). The place to tune what a slow or greedy client may hold.
 */
export function createServer(config: ForgeConfig, handler: LifecycleDeps['handler']): http.Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout, maxConnections } = config.server;
  // node:http looks for expired requests every connectionsCheckingInterval (30 s by default): a quarter of the
  // shortest timeout, so a timeout of a few seconds is kept within a second or so.
  const timeouts = [headersTimeout, requestTimeout].filter((ms) => ms > 0);
  const connectionsCheckingInterval = timeouts.length ? Math.min(30_000, Math.max(250, Math.floor(Math.min(...timeouts) / 4))) : 30_000;
  const server = http.createServer({ headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval }, handler);
  if (maxConnections > 0) server.maxConnections = maxConnections;
  server.on('clientError', onClientError);
  return server;
}

/**
 * Sockets whose request is a `stream` route's (git transfers): requestTimeout bounds a whole request, and a long
 * clone or push must not die for being long; such a route bounds its idle time itself (e.g. `res.setTimeout`).
 */
const STREAMING = new WeakSet<object>();

/** Exempts the request from requestTimeout until its response is done (the dispatch stage calls it for stream routes). */
export function exemptFromRequestTimeout(req: http.IncomingMessage, res: http.ServerResponse): void {
  const socket = req.socket;
  STREAMING.add(socket);
  res.once('close', () => STREAMING.delete(socket));
}

const CANNED: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** node:http's own answer to a broken or timed-out request (which a clientError listener replaces), minus streams. */
function onClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && STREAMING.has(socket)) return;
  const res = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (socket.writable && (!res || !res.headersSent)) {
    socket.write(`HTTP/1.1 ${CANNED[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy(err);
}

export function createLifecycle(deps: LifecycleDeps): Lifecycle {
  const { config, log, handler, inFlight, replies } = deps;
  let server: http.Server | undefined;
  let closed = false;

  return {
    async listen(port = config.port, host = config.host) {
      if (server) throw new Error('already listening');
      const srv = (server = createServer(config, handler));
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(port, host, () => {
          srv.off('error', reject);
          resolve();
        });
      });
      const address = srv.address() as { port: number; address: string };
      const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
      log.info({ port: address.port, host: address.address, plugins: deps.pluginNames }, 'forgekit listening');
      return { port: address.port, host: address.address, url: `http://${shownHost}:${address.port}` };
    },
    async close() {
      if (closed) return;
      closed = true;
      inFlight.closing = true;
      const srv = server;
      if (srv) await closeServer(srv, inFlight, replies, config.shutdownTimeoutMs);
      else await inFlight.whenIdle();
      replies.release();
      await deps.shutdown();
    },
  };
}

/** Stops accepting, lets in-flight requests finish (up to the timeout), sends what is held, then cuts what is left. */
async function closeServer(srv: http.Server, inFlight: InFlight, replies: ReplyBatch, timeoutMs: number): Promise<void> {
  const stopped = new Promise<void>((resolve) => srv.close(() => resolve()));
  srv.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
  await Promise.race([inFlight.whenIdle(), timeout]);
  clearTimeout(timer);
  replies.release();
  srv.closeAllConnections();
  await stopped;
}
