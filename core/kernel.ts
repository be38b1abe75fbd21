// The microkernel: loads config and plugins, compiles every route at boot, answers requests on raw node:http.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import { performance } from 'node:perf_hooks';
import { pino, type Logger } from 'pino';
import { inject as lightInject, type InjectOptions, type Response as InjectResponse } from 'light-my-request';
import { loadConfig, resolvePluginSettings, type DeepPartial, type ForgeConfig } from './config.js';
import { resolvePlugins, checkDuplicateRoutes, PluginLoadError } from './loader.js';
import { SchemaRegistry, type CompiledInput } from './validation.js';
import { SerializerFactory, type Serializer } from './serialize.js';
import { Router } from './router.js';
import { Authenticator } from './auth.js';
import { createEventBus } from './events.js';
import { ForgeError, isForgeError } from './errors.js';
import { readBody, hasBody, mediaType, isJsonMediaType } from './http/body.js';
import { createGate } from './http/gate.js';
import type { Gate } from './http/gate.js';
import { createRequestLog } from './http/request-log.js';
import { LogBatcher } from './http/log-batcher.js';
import { createReplyBatch } from './http/reply-batch.js';
import type { Caller, JsonSchema, Plugin, PluginContext, Reply, RequestContext, RouteDef, ServiceRegistry, Urls } from './plugin.js';
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
  service<T>(pluginName: string): T;
}

interface CompiledRoute {
  def: RouteDef;
  plugin: string;
  app: PluginContext;
  params?: CompiledInput;
  query?: CompiledInput;
  body?: (value: unknown) => unknown;
  serializers: Map<number, Serializer>;
  bodyLimit: number;
  /** Set when the route declares a concurrency limit. */
  gate?: Gate;
}

const LOG_NAME = 'forgekit';
const JSON_TYPE = 'application/json; charset=utf-8';
/** Request log lines are written in batches of this many bytes... */
const LOG_BATCH_BYTES = 12288;
/** ...or after this long at the latest, so a quiet server's lines do not wait. */
const LOG_FLUSH_MS = 100;
/** At most this many replies wait for the end of their turn; the one that reaches it writes them all at once. */
const REPLY_BATCH_MAX = 64;

/**
 * What a handler gets. A class, not an object literal: a literal with a getter (`log`) is created in V8's dictionary
 * mode, which made every `rc.params`, `rc.caller`… read a hash lookup (callgrind: about 3,000 instructions per
 * request spent building the dictionary alone).
 */
class HandlerContext implements RequestContext {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly id: string,
    readonly params: any,
    readonly query: any,
    readonly body: any,
    readonly caller: Caller | null,
    readonly app: PluginContext,
    readonly path: string,
    readonly rawQuery: string,
    private readonly logger: () => Logger,
  ) {}

  /** The request's child logger, made on first use. */
  get log(): Logger {
    return this.logger();
  }
}


export async function createKernel(options: KernelOptions): Promise<Forge> {
  const config = loadConfig({ env: options.env ?? {}, overrides: options.config ?? {} });
  // Log lines are buffered and written in batches (12 KiB, or every 100 ms at the latest): one write(2) per request
  // line would cost more than routing the request. `close()` flushes what is pending.
  const logDestination = options.logger ? null : new LogBatcher({ fd: 1, batchBytes: LOG_BATCH_BYTES });
  const log = options.logger ?? pino({ level: config.logLevel, base: { name: LOG_NAME } }, logDestination!);
  const logRequest = createRequestLog(log, logDestination, LOG_NAME);
  const logFlushTimer = logDestination ? setInterval(() => logDestination.flushSync(), LOG_FLUSH_MS).unref() : undefined;
  const plugins = resolvePlugins(options.plugins, config.disabledPlugins);
  const prefix = (options.prefix ?? '').replace(/\/$/, '');

  const apiBase = config.rootUrl + config.apiPrefix.replace(/^\//, '') + '/';
  const urls: Urls = Object.freeze({ root: config.rootUrl, api: apiBase, docs: config.rootUrl + 'api/swagger' });

  const registry = new SchemaRegistry();
  for (const schema of options.schemas ?? []) registry.add(schema, 'kernel');
  for (const plugin of plugins) for (const schema of plugin.schemas ?? []) registry.add(schema, plugin.name);
  const serializers = new SerializerFactory(registry.sharedSchemas());
  const errorSerializer = serializers.compile({
    type: 'object',
    properties: { message: { type: 'string' }, url: { type: 'string' } },
  });

  const store = options.store ?? createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, compactIntervalMs: config.compactIntervalMs }, log);
  const events = createEventBus();
  const auth = new Authenticator();
  const services = new Map<string, unknown>();
  const enabled = new Set(plugins.map((p) => p.name));

  const contexts = new Map<string, PluginContext>();
  for (const plugin of plugins) {
    const allowed = new Set([plugin.name, ...(plugin.dependencies ?? []), ...(plugin.optionalDependencies ?? [])]);
    const serviceRegistry: ServiceRegistry = {
      get<T>(name: string): T {
        if (!allowed.has(name)) throw new Error(`plugin "${plugin.name}" asked for the service of "${name}", which it does not declare as a dependency`);
        if (!services.has(name)) throw new Error(`plugin "${name}" exposes no service (needed by "${plugin.name}")`);
        return services.get(name) as T;
      },
      has: (name) => allowed.has(name) && enabled.has(name) && services.get(name) !== undefined,
    };
    contexts.set(plugin.name, Object.freeze({
      name: plugin.name,
      config,
      settings: resolvePluginSettings(plugin.name, plugin.settings, config),
      store,
      log: log.child({ plugin: plugin.name }),
      services: serviceRegistry,
      events,
      auth,
      urls,
      serializer: (schema: JsonSchema) => serializers.compile(schema),
    }));
  }

  // Compile every route before anything starts: a bad schema or a duplicate route fails the boot.
  const router = new Router<CompiledRoute>();
  const declared: Array<{ plugin: string; method: string; fullPath: string }> = [];
  const compiled: Array<[string, string, CompiledRoute]> = [];
  for (const plugin of plugins) {
    for (const def of plugin.routes ?? []) {
      const fullPath = (def.mount === 'root' ? '' : config.apiPrefix) + (def.path === '/' && def.mount !== 'root' ? '' : def.path);
      declared.push({ plugin: plugin.name, method: def.method, fullPath });
      try {
        const schema = def.schema ?? {};
        const route: CompiledRoute = {
          def,
          plugin: plugin.name,
          app: contexts.get(plugin.name)!,
          params: schema.params ? registry.compileStringInput(schema.params, 'path') : undefined,
          query: schema.querystring ? registry.compileStringInput(schema.querystring, 'query') : undefined,
          body: schema.body ? registry.compileBody(schema.body) : undefined,
          serializers: new Map(Object.entries(schema.response ?? {}).map(([status, s]) => [Number(status), serializers.compile(s)])),
          bodyLimit: typeof def.bodyLimit === 'function' ? (def.bodyLimit as (c: ForgeConfig) => number)(config) : def.bodyLimit ?? config.bodyLimit,
        };
        const concurrency = typeof def.concurrency === 'function' ? def.concurrency(config) : def.concurrency ?? 0;
        if (concurrency > 0) route.gate = createGate(concurrency);
        compiled.push([def.method, fullPath, route]);
      } catch (err) {
        throw new PluginLoadError(`plugin "${plugin.name}": route ${def.method} ${def.path}: ${(err as Error).message}`);
      }
    }
  }
  checkDuplicateRoutes(declared);
  for (const [method, fullPath, route] of compiled) {
    try {
      router.add(method as RouteDef['method'], fullPath, route);
    } catch (err) {
      throw new PluginLoadError(`plugin "${route.plugin}": route ${method} ${fullPath}: ${(err as Error).message}`);
    }
  }

  await store.open();
  const started: Plugin[] = [];
  try {
    for (const plugin of plugins) {
      for (const spec of plugin.collections ?? []) await store.ensureCollection(spec);
    }
    for (const plugin of plugins) {
      const service = plugin.start ? await plugin.start(contexts.get(plugin.name)!) : undefined;
      services.set(plugin.name, service);
      started.push(plugin);
    }
  } catch (err) {
    await stopPlugins(started, contexts, log);
    await store.close();
    throw err;
  }

  let requestCounter = 0;
  let inFlight = 0;
  let closing = false;
  const idle: Array<() => void> = [];
  const requestPrefix = Date.now().toString(36);

  // Replies leave together at the end of the event-loop turn (see reply-batch.ts for why and what it measured).
  const replies = createReplyBatch(REPLY_BATCH_MAX, (err) => log.error({ err }, 'reply write failed'));

  function sendError(res: ServerResponse, id: string, err: unknown, reqLog: () => Logger): number {
    let status = 500;
    let message = 'internal server error';
    let headers: Record<string, string> = {};
    if (isForgeError(err)) {
      status = err.status;
      message = err.message;
      headers = err.headers;
    } else {
      reqLog().error({ err }, 'unhandled error');
    }
    if (res.headersSent) {
      res.destroy();
      return status;
    }
    headers = { ...headers, 'X-Request-Id': id };
    if (status === 413) headers.Connection = 'close';
    const payload = errorSerializer({ message, url: urls.docs });
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload) });
    replies.hold(() => res.end(payload));
    return status;
  }

  function sendReply(res: ServerResponse, id: string, route: CompiledRoute, reply: Reply): void {
    const status = reply.status;
    let text: string | Buffer | undefined;
    let type: string | undefined;
    if (reply.body === undefined || status === 204) {
      text = undefined;
    } else if (reply.type === 'html' || reply.type === 'text') {
      text = reply.body as string | Buffer;
      type = reply.type === 'html' ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8';
    } else if (reply.type === 'json-text') {
      text = reply.body as string | Buffer;
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
    if (text === undefined) {
      headers.push('Content-Length', 0);
      res.writeHead(status, headers as string[]);
      replies.hold(() => res.end());
      return;
    }
    // A string body goes out in one write together with the header block; a Buffer would take a writev.
    headers.push('Content-Type', type!, 'Content-Length', typeof text === 'string' ? Buffer.byteLength(text) : text.length);
    // writeHead only builds the header block (and validates it here, inside the request's error handling); the
    // bytes go out with the turn's other replies.
    res.writeHead(status, headers as string[]);
    const body = text;
    replies.hold(() => res.end(body));
  }

  /** The bytes of a JSON body; null for a route whose body is optional and was not sent. */
  async function readJsonBytes(req: IncomingMessage, route: CompiledRoute): Promise<Buffer | null> {
    const type = mediaType(req);
    if (!hasBody(req) && !type) {
      if (route.def.bodyOptional) return null;
      throw new ForgeError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type application/json is required');
    }
    if (!isJsonMediaType(type)) {
      req.resume();
      throw new ForgeError('UNSUPPORTED_MEDIA_TYPE', type ? `unsupported Content-Type ${type}; use application/json` : 'Content-Type application/json is required');
    }
    return readBody(req, route.bodyLimit);
  }

  function parseJsonBody(raw: Buffer | null, route: CompiledRoute): unknown {
    let value: unknown = {};
    const text = raw === null ? '' : raw.toString('utf8');
    if (text.trim() !== '') {
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new ForgeError('BAD_JSON', `malformed JSON body: ${(err as Error).message}`);
      }
    }
    return route.body ? route.body(value) : value;
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): Promise<void> {
    const started = performance.now();
    const id = `${requestPrefix}-${(++requestCounter).toString(36)}`;
    let childLog: Logger | undefined;
    const reqLog = () => (childLog ??= log.child({ reqId: id }));
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q === -1 ? url : url.slice(0, q);
    const rawQuery = q === -1 ? '' : url.slice(q + 1);
    if (prefix && (path === prefix || path.startsWith(prefix + '/'))) path = path.slice(prefix.length) || '/';
    const method = req.method ?? 'GET';
    let status = 500;
    let gate: Gate | undefined;
    inFlight++;
    try {
      if (closing) res.setHeader('Connection', 'close');
      const match = router.find(method, path);
      if (!match) {
        if (next) {
          status = 0;
          next();
          return;
        }
        const allowed = router.allowed(path);
        if (allowed.length) throw new ForgeError('METHOD_NOT_ALLOWED', `method ${method} is not allowed here`, { Allow: allowed.join(', ') });
        throw new ForgeError('NOT_FOUND');
      }
      const route = match.route;
      const rawQueryObject = rawQuery ? (querystring.parse(rawQuery) as Record<string, unknown>) : {};
      const caller = route.def.auth === 'public' ? null : await auth.authenticate(req, rawQueryObject, route.def.auth);
      const params = route.params ? route.params(match.params) : match.params;
      const query = route.query ? route.query(rawQueryObject) : rawQueryObject;
      const bodyKind = route.def.body ?? 'none';
      // Bytes first; a gated route waits for its turn holding only those, then parses.
      const raw = bodyKind === 'json' ? await readJsonBytes(req, route) : bodyKind === 'text' ? await readBody(req, route.bodyLimit) : null;
      if (route.gate) {
        gate = route.gate;
        const turn = gate.enter();
        if (turn) await turn;
      }
      let body: unknown;
      switch (bodyKind) {
        case 'json':
          body = parseJsonBody(raw, route);
          break;
        case 'text':
          body = raw!.toString('utf8');
          break;
        case 'none':
          // An unread body is drained by node:http itself once the response is finished (IncomingMessage._dump).
          break;
        case 'stream':
          res.setHeader('X-Request-Id', id); // the handler writes the response itself
          break;
      }
      const apiPath = route.def.mount === 'root' ? path : path.slice(config.apiPrefix.length) || '/';
      const rc = new HandlerContext(req, res, id, params, query, body, caller, route.app, apiPath, rawQuery, reqLog);
      const reply = await route.def.handler(rc);
      if (reply) {
        sendReply(res, id, route, reply);
        status = reply.status;
      } else {
        status = res.statusCode;
      }
    } catch (err) {
      status = sendError(res, id, err, reqLog);
    } finally {
      gate?.leave();
      inFlight--;
      if (status !== 0) {
        // One line per request; the path never carries the query string, so tokens never reach the log.
        logRequest(id, method, path, status, Math.round((performance.now() - started) * 100) / 100);
      }
      if (inFlight === 0) while (idle.length) idle.shift()!();
    }
  }

  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    void dispatch(req, res, typeof next === 'function' ? next : undefined);
  };

  let server: http.Server | undefined;
  let closed = false;

  return {
    config,
    log,
    store,
    handler,
    async listen(port = config.port, host = config.host) {
      if (server) throw new Error('already listening');
      server = http.createServer(handler);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, host, () => {
          server!.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as { port: number; address: string };
      const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
      log.info({ port: address.port, host: address.address, plugins: plugins.map((p) => p.name) }, 'forgekit listening');
      return { port: address.port, host: address.address, url: `http://${shownHost}:${address.port}` };
    },
    async close() {
      if (closed) return;
      closed = true;
      closing = true;
      const srv = server;
      if (srv) {
        const stopped = new Promise<void>((resolve) => srv.close(() => resolve()));
        srv.closeIdleConnections();
        const drained = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve));
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, config.shutdownTimeoutMs); });
        await Promise.race([drained, timeout]);
        clearTimeout(timer);
        replies.release();
        srv.closeAllConnections();
        await stopped;
      } else if (inFlight > 0) {
        await new Promise<void>((resolve) => idle.push(resolve));
      }
      replies.release();
      await stopPlugins(started, contexts, log);
      await store.close();
      log.info('forgekit stopped');
      clearInterval(logFlushTimer);
      // The last lines are written now; an embedder's logger is flushed through its own API.
      if (logDestination) logDestination.end();
      else await new Promise<void>((resolve) => log.flush(() => resolve()));
    },
    service<T>(name: string): T {
      if (!services.has(name) || services.get(name) === undefined) throw new Error(`plugin "${name}" is not enabled or exposes no service`);
      return services.get(name) as T;
    },
    inject(opts) {
      return lightInject(handler as any, opts as InjectOptions);
    },
  };
}

async function stopPlugins(started: Plugin[], contexts: Map<string, PluginContext>, log: Logger): Promise<void> {
  for (const plugin of [...started].reverse()) {
    try {
      await plugin.stop?.(contexts.get(plugin.name)!);
    } catch (err) {
      log.error({ err, plugin: plugin.name }, 'plugin stop failed');
    }
  }
}
