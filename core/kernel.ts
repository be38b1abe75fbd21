// The microkernel: boots config, logging, plugins and routes, then answers requests on raw node:http.
//
// A request's life, one module per stage, to read in this order:
//   1. core/http/compile.ts      at boot: every route compiled (validators, serializers, limits) into the router
//   2. core/http/dispatch.ts     per request: before-route hooks → route → auth → validate → body → gate → handler
//   3. core/http/reply.ts        the handler's Reply serialised and written (headers.ts: headers on every reply)
//   4. core/http/error-reply.ts  anything thrown becomes a JSON error with its code's status
//   5. core/http/lifecycle.ts    listen (node:http server options) and a graceful close
// Extension points for plugins are `ctx.kernel` (core/http/hooks.ts): the compiled route list, a before-route stage
// and a finished-request observer, and work left running after the boot (`Forge.settled` says when it has ended).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type Logger } from 'pino';
import { inject as lightInject, type InjectOptions, type Response as InjectResponse } from 'light-my-request';
import { loadConfig, type DeepPartial, type ForgeConfig } from './config.js';
import { createPluginContexts, startPlugins, stopPlugins } from './contexts.js';
import { resolvePlugins } from './loader.js';
import { SchemaRegistry } from './validation.js';
import { SerializerFactory } from './serialize.js';
import { Authenticator } from './auth.js';
import { createEventBus } from './events.js';
import { compileRoutes } from './http/compile.js';
import { createDispatch, InFlight } from './http/dispatch.js';
import { createReplySender } from './http/reply.js';
import { createErrorSender } from './http/error-reply.js';
import { createLifecycle } from './http/lifecycle.js';
import { Hooks } from './http/hooks.js';
import type { BackgroundReport } from './background.js';
import { createRequestLog } from './http/request-log.js';
import { LogBatcher } from './http/log-batcher.js';
import { createReplyBatch } from './http/reply-batch.js';
import type { ForgeServices, JsonSchema, Plugin, RouteInfo, Urls } from './plugin.js';
import type { Store } from './store/port.js';
import { createStore } from './store/index.js';

export interface KernelOptions {
  plugins: Plugin<any>[];
  /** Shared $id'd schemas (API resources) available to every route. */
  schemas?: JsonSchema[];
  /** Overrides on top of config/default.json and the environment. */
  config?: DeepPartial<ForgeConfig>;
  /** Environment to read overrides from (the CLI passes process.env; embedders choose). */
  env?: Record<string, string | undefined>;
  /** A pino logger to use instead of the kernel's own. */
  logger?: Logger;
  /** Mount prefix when embedded under another server (e.g. `/forge`): stripped from incoming URLs. */
  prefix?: string;
  /** A store to use instead of the configured one (tests, embedders with their own adapter). */
  store?: Store;
  /**
   * Compile routes' validators and serializers on first use instead of at boot (operator commands that only use
   * services: ~0.8 s less per command). Off by default: a server finds a bad schema at boot.
   */
  lazyRoutes?: boolean;
}

export interface Forge {
  readonly config: ForgeConfig;
  readonly log: Logger;
  readonly store: Store;
  /** A node:http request listener; mount it anywhere. With Express, a third `next` argument gets unmatched paths. */
  handler(req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** Starts a node:http server on the configured (or given) port and host. */
  listen(port?: number, host?: string): Promise<{ port: number; host: string; url: string }>;
  /** Graceful stop: no new connections, in-flight requests finish, plugins stop, the store closes. */
  close(): Promise<void>;
  /** Dispatches a request in-process (no socket), for tests and embedders. */
  inject(options: InjectOptions | string): Promise<InjectResponse>;
  /** The service a plugin exposed (e.g. `users` for the CLI); throws when the plugin is not enabled. */
  service<K extends keyof ForgeServices>(pluginName: K): ForgeServices[K];
  /** Untyped form, for a service not declared in `ForgeServices`. */
  service<T>(pluginName: string): T;
  /** Every compiled route (plugin, method, full path template, definition), as `ctx.kernel.routes()` gives plugins. */
  routes(): readonly RouteInfo[];
  /**
   * Resolves once the work plugins left running after the boot (`ctx.kernel.background`: the issues' `q` index) has
   * ended, with a report of each piece; at once when there is none. The server answers requests before that.
   */
  settled(): Promise<BackgroundReport[]>;
}

const LOG_NAME = 'forgekit';
/** Request log lines are written in batches of this many bytes... */
const LOG_BATCH_BYTES = 12288;
/** ...or after this long at the latest, so a quiet server's lines do not wait. */
const LOG_FLUSH_MS = 100;

export async function createKernel(options: KernelOptions): Promise<Forge> {
  const config = loadConfig({ env: options.env ?? {}, overrides: options.config ?? {} });
  const logging = createLogging(config, options.logger);
  const log = logging.log;
  const plugins = resolvePlugins(options.plugins, config.disabledPlugins);
  const urls: Urls = Object.freeze({
    root: config.rootUrl,
    api: config.rootUrl + config.apiPrefix.replace(/^\//, '') + '/',
    docs: config.rootUrl + 'api/swagger',
  });

  const registry = new SchemaRegistry();
  for (const schema of options.schemas ?? []) registry.add(schema, 'kernel');
  for (const plugin of plugins) for (const schema of plugin.schemas ?? []) registry.add(schema, plugin.name);
  const serializers = new SerializerFactory(registry.sharedSchemas());
  const store = options.store ?? createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, compactIntervalMs: config.compactIntervalMs }, log);
  const auth = new Authenticator();
  const hooks = new Hooks(log);
  const services = new Map<string, unknown>();
  const contexts = createPluginContexts(plugins, { config, store, log, events: createEventBus(), auth, urls, hooks, serializers, services });

  // Stage 1, before anything starts: a bad schema or a duplicate route fails the boot.
  const routes = compileRoutes(plugins, { config, registry, serializers, contexts, lazy: options.lazyRoutes === true });
  hooks.setRoutes(routes.list, registry.sharedSchemas());

  await store.open();
  let started: Plugin[];
  try {
    started = await startPlugins(plugins, contexts, store, services, log);
  } catch (err) {
    await store.close();
    throw err;
  }

  // Replies leave together at the end of the event-loop turn unless `server.replyBatch` is 0 (see reply-batch.ts for
  // why, what it measured and what it changes).
  const replies = createReplyBatch(config.server.replyBatch, (err, reqId) => log.error({ err, reqId }, 'reply write failed'));
  const inFlight = new InFlight();
  const dispatch = createDispatch({
    router: routes.router, auth, log, logRequest: logging.logRequest, hooks, inFlight,
    sendReply: createReplySender(replies),
    sendError: createErrorSender(replies, (schema) => serializers.compile(schema), urls.docs),
    prefix: (options.prefix ?? '').replace(/\/$/, ''),
    apiPrefix: config.apiPrefix,
  });
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    void dispatch(req, res, typeof next === 'function' ? next : undefined);
  };
  const lifecycle = createLifecycle({
    config, log, handler, inFlight, replies,
    pluginNames: plugins.map((p) => p.name),
    async shutdown() {
      await stopPlugins(started, contexts, log);
      await store.close();
      log.info('forgekit stopped');
      await logging.end();
    },
  });

  return {
    config,
    log,
    store,
    handler,
    async listen(port?: number, host?: string) {
      const address = await lifecycle.listen(port, host);
      // The store's deferred work (indexes) waits for this: it would only lengthen the boot.
      const rest = store.finishOpen?.();
      if (rest) hooks.backgroundWork.register('store: indexes', rest);
      return address;
    },
    close: lifecycle.close,
    service(name: string): any {
      if (!services.has(name) || services.get(name) === undefined) throw new Error(`plugin "${name}" is not enabled or exposes no service`);
      return services.get(name);
    },
    routes: () => routes.list,
    settled: () => hooks.backgroundWork.settled(),
    inject(opts) {
      return lightInject(handler as any, opts as InjectOptions);
    },
  };
}

/**
 * The kernel's logger and its request line. Log lines are buffered and written in batches (12 KiB, or every 100 ms at
 * the latest): one write(2) per request line would cost more than routing the request. `end()` flushes what is pending.
 */
function createLogging(config: ForgeConfig, logger: Logger | undefined) {
  const destination = logger ? null : new LogBatcher({ fd: 1, batchBytes: LOG_BATCH_BYTES });
  const log = logger ?? pino({ level: config.logLevel, base: { name: LOG_NAME } }, destination!);
  const flushTimer = destination ? setInterval(() => destination.flushSync(), LOG_FLUSH_MS).unref() : undefined;
  return {
    log,
    logRequest: createRequestLog(log, destination, LOG_NAME),
    /** Writes the last lines; an embedder's logger is flushed through its own API. */
    async end(): Promise<void> {
      clearInterval(flushTimer);
      if (destination) destination.end();
      else await new Promise<void>((resolve) => log.flush(() => resolve()));
    },
  };
}
