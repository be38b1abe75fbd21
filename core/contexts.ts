// What the kernel hands each plugin: its context (settings, store, services of its dependencies, events, hooks).
import type { Logger } from 'pino';
import { resolvePluginSettings, type ForgeConfig } from './config.js';
import type { AuthRegistry, EventBus, JsonSchema, KernelHooks, Plugin, PluginContext, ServiceRegistry, Urls } from './plugin.js';
import type { SerializerFactory } from './serialize.js';
import type { Store } from './store/port.js';
import { collectionOwners, scopedStore } from './store/scoped.js';

export interface ContextDeps {
  config: ForgeConfig;
  store: Store;
  log: Logger;
  events: EventBus;
  auth: AuthRegistry;
  urls: Urls;
  hooks: KernelHooks;
  serializers: SerializerFactory;
  /** The services plugins exposed from `start`, filled in as they start. */
  services: Map<string, unknown>;
}

/** One frozen context per plugin, in the given (start) order. Settings are validated here: a bad one fails the boot. */
export function createPluginContexts(plugins: readonly Plugin[], deps: ContextDeps): Map<string, PluginContext> {
  const enabled = new Set(plugins.map((p) => p.name));
  // Each plugin's ctx.store reaches only the collections it declares (core/store/scoped.ts).
  const owners = collectionOwners(plugins);
  const contexts = new Map<string, PluginContext>();
  for (const plugin of plugins) {
    contexts.set(plugin.name, Object.freeze({
      name: plugin.name,
      config: deps.config,
      settings: resolvePluginSettings(plugin.name, plugin.settings, deps.config),
      store: scopedStore(deps.store, plugin.name, owners),
      log: deps.log.child({ plugin: plugin.name }),
      services: serviceRegistryFor(plugin, enabled, deps.services),
      events: deps.events,
      auth: deps.auth,
      urls: deps.urls,
      kernel: deps.hooks,
      serializer: (schema: JsonSchema) => deps.serializers.compile(schema),
    }));
  }
  return contexts;
}

/** A plugin reaches its own service and those of the plugins it declares as (optional) dependencies, nothing else. */
function serviceRegistryFor(plugin: Plugin, enabled: Set<string>, services: Map<string, unknown>): ServiceRegistry {
  const allowed = new Set([plugin.name, ...(plugin.dependencies ?? []), ...(plugin.optionalDependencies ?? [])]);
  // A service once found is kept (one lookup, not three, on the request path: renders ask per item). Services are
  // set once, when their plugin starts; a stopped kernel serves no requests.
  const found = new Map<string, unknown>();
  return {
    get(name: string): any {
      const hit = found.get(name);
      if (hit !== undefined) return hit;
      if (!allowed.has(name)) throw new Error(`plugin "${plugin.name}" asked for the service of "${name}", which it does not declare as a dependency`);
      if (!services.has(name)) throw new Error(`plugin "${name}" exposes no service (needed by "${plugin.name}")`);
      const service = services.get(name);
      if (service !== undefined) found.set(name, service);
      return service;
    },
    has: (name: string) => allowed.has(name) && enabled.has(name) && services.get(name) !== undefined,
  };
}

/** Ensures every plugin's collections, then starts the plugins in order; on a failure the started ones are stopped. */
export async function startPlugins(plugins: readonly Plugin[], contexts: Map<string, PluginContext>, store: Store, services: Map<string, unknown>, log: Logger): Promise<Plugin[]> {
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
    throw err;
  }
  return started;
}

/** Stops plugins in reverse start order; a failing stop is logged and the others still stop. */
export async function stopPlugins(started: readonly Plugin[], contexts: Map<string, PluginContext>, log: Logger): Promise<void> {
  for (const plugin of [...started].reverse()) {
    try {
      await plugin.stop?.(contexts.get(plugin.name)!);
    } catch (err) {
      log.error({ err, plugin: plugin.name }, 'plugin stop failed');
    }
  }
}
