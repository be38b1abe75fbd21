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
  const server = http.createServer({ headersTimeout, requestTimeout, keepAliveTimeout }, handler);
  if (maxConnections > 0) server.maxConnections = maxConnections;
  return server;
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
