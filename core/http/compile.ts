// Stage 1 of a request's life, done once at boot: every plugin route is compiled into the context the dispatcher
// finds in the router's store (validators, serializers, body limit, gate), so nothing is compiled per request.
import type { ForgeConfig } from '../config.js';
import { checkDuplicateRoutes, PluginLoadError } from '../loader.js';
import type { AnyRoute, Plugin, PluginContext, RouteInfo } from '../plugin.js';
import { Router } from '../router.js';
import type { SerializerFactory, Serializer } from '../serialize.js';
import type { CompiledInput, SchemaRegistry } from '../validation.js';
import { createGate, type Gate } from './gate.js';
import { scopeDemand, type ScopeDemand } from '../scopes.js';

/** A route ready to serve: what the dispatcher needs, looked up once per request from the router. */
export interface CompiledRoute extends RouteInfo {
  /** The owning plugin's context, handed to the handler as `rc.app`. */
  readonly app: PluginContext;
  readonly params?: CompiledInput;
  readonly query?: CompiledInput;
  readonly body?: (value: unknown) => unknown;
  /** Response serializer per status code. */
  readonly serializers: Map<number, Serializer>;
  readonly bodyLimit: number;
  /** How much more of a refused body (413, 415) is read and dropped so the client can read the answer. */
  readonly discardLimit: number;
  /** Set when the route declares a concurrency limit. */
  readonly gate?: Gate;
  /** What the route demands of a token caller's scopes (null: nothing). */
  readonly scopes: ScopeDemand | null;
}

export interface CompiledRoutes {
  readonly router: Router<CompiledRoute>;
  /** Every route in declaration order (plugins in start order): the API description and metrics read these. */
  readonly list: readonly RouteInfo[];
}

export interface CompileDeps {
  config: ForgeConfig;
  registry: SchemaRegistry;
  serializers: SerializerFactory;
  contexts: Map<string, PluginContext>;
  /**
   * Compile each route's validators and serializers when the dispatcher first reads them instead of at boot: for
   * operator commands, which boot every plugin for its services and never serve a request. A server compiles at
   * boot, so a bad schema fails the boot.
   */
  lazy?: boolean;
}

/** The path a route is served at: under the API prefix unless it mounts at the root. */
export function fullPathOf(def: AnyRoute, apiPrefix: string): string {
  if (def.mount === 'root') return def.path;
  return apiPrefix + (def.path === '/' ? '' : def.path);
}

/** Compiles every route of every plugin; a bad schema or a duplicate route fails the boot naming the plugin. */
export function compileRoutes(plugins: readonly Plugin[], deps: CompileDeps): CompiledRoutes {
  const compiled: CompiledRoute[] = [];
  for (const plugin of plugins) {
    for (const def of plugin.routes ?? []) {
      try {
        compiled.push(compileRoute(plugin.name, def, deps));
      } catch (err) {
        throw new PluginLoadError(`plugin "${plugin.name}": route ${def.method} ${def.path}: ${(err as Error).message}`);
      }
    }
  }
  checkDuplicateRoutes(compiled.map((r) => ({ plugin: r.plugin, method: r.method, fullPath: r.path })));
  const router = new Router<CompiledRoute>();
  for (const route of compiled) {
    try {
      router.add(route.method, route.path, route);
    } catch (err) {
      throw new PluginLoadError(`plugin "${route.plugin}": route ${route.method} ${route.path}: ${(err as Error).message}`);
    }
  }
  const list = Object.freeze(compiled.map((r): RouteInfo => Object.freeze({
    plugin: r.plugin, method: r.method, path: r.path, def: r.def, ...(r.gate ? { gate: r.gate } : {}),
  })));
  return { router, list };
}

function compileRoute(plugin: string, def: AnyRoute, { config, registry, serializers, contexts, lazy }: CompileDeps): CompiledRoute {
  const schema = def.schema ?? {};
  const app = contexts.get(plugin)!;
  const concurrency = typeof def.concurrency === 'function' ? def.concurrency(config, app.settings) : def.concurrency ?? 0;
  const base = {
    plugin,
    method: def.method,
    path: fullPathOf(def, config.apiPrefix),
    def,
    app,
    bodyLimit: typeof def.bodyLimit === 'function' ? def.bodyLimit(config, app.settings) : def.bodyLimit ?? config.bodyLimit,
    discardLimit: config.server.discardBodyBytes,
    gate: concurrency > 0 ? createGate(concurrency) : undefined,
    scopes: scopeDemand(def),
  };
  const compilers = {
    params: () => (schema.params ? registry.compileStringInput(schema.params, 'path') : undefined),
    query: () => (schema.querystring ? registry.compileStringInput(schema.querystring, 'query') : undefined),
    body: () => (schema.body ? registry.compileBody(schema.body) : undefined),
    serializers: () => new Map(Object.entries(schema.response ?? {}).map(([status, s]) => [Number(status), serializers.compile(s)])),
  };
  if (!lazy) {
    return { ...base, params: compilers.params(), query: compilers.query(), body: compilers.body(), serializers: compilers.serializers() };
  }
  const route = { ...base } as CompiledRoute;
  for (const [key, compile] of Object.entries(compilers)) {
    Object.defineProperty(route, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = compile();
        Object.defineProperty(route, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return route;
}
