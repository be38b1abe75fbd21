// The plugin loader: checks every plugin object, drops disabled ones, orders by dependencies, fails early and clearly.
import type { Plugin, RouteDef } from './plugin.js';

export class PluginLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

const NAME = /^[a-z][a-z0-9-]*$/;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const AUTH = new Set(['public', 'optional', 'user', 'basic', 'admin']);
const BODY = new Set(['json', 'text', 'none', 'stream']);

function checkPluginShape(p: unknown, index: number): asserts p is Plugin {
  const where = (name?: string) => (name ? `plugin "${name}"` : `plugin #${index}`);
  if (typeof p !== 'object' || p === null) throw new PluginLoadError(`${where()} is not an object`);
  const plugin = p as Record<string, unknown>;
  const name = typeof plugin.name === 'string' ? plugin.name : undefined;
  if (!name || !NAME.test(name)) throw new PluginLoadError(`${where(name)}: name must match ${NAME}`);
  for (const key of ['dependencies', 'optionalDependencies'] as const) {
    const deps = plugin[key];
    if (deps !== undefined && (!Array.isArray(deps) || deps.some((d) => typeof d !== 'string'))) {
      throw new PluginLoadError(`${where(name)}: ${key} must be an array of plugin names`);
    }
  }
  for (const key of ['start', 'stop'] as const) {
    if (plugin[key] !== undefined && typeof plugin[key] !== 'function') throw new PluginLoadError(`${where(name)}: ${key} must be a function`);
  }
  if (plugin.collections !== undefined) {
    if (!Array.isArray(plugin.collections)) throw new PluginLoadError(`${where(name)}: collections must be an array`);
    for (const c of plugin.collections as unknown[]) {
      const col = c as Record<string, unknown>;
      if (typeof col?.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(col.name)) {
        throw new PluginLoadError(`${where(name)}: every collection needs a name matching ^[a-z][a-z0-9_]*$`);
      }
      for (const key of ['indexes', 'retiredIndexes'] as const) {
        const list = col[key];
        if (list !== undefined && (!Array.isArray(list) || list.some((i: any) => typeof i?.fields !== 'object'))) {
          throw new PluginLoadError(`${where(name)}: collection "${col.name}" has an invalid ${key === 'indexes' ? 'index' : 'retired index'} list`);
        }
      }
    }
  }
  if (plugin.settings !== undefined && (typeof plugin.settings !== 'object' || plugin.settings === null || Array.isArray(plugin.settings))) {
    throw new PluginLoadError(`${where(name)}: settings must be a JSON schema object`);
  }
  if (plugin.schemas !== undefined && !Array.isArray(plugin.schemas)) throw new PluginLoadError(`${where(name)}: schemas must be an array`);
  if (plugin.routes !== undefined) {
    if (!Array.isArray(plugin.routes)) throw new PluginLoadError(`${where(name)}: routes must be an array`);
    (plugin.routes as unknown[]).forEach((r, i) => checkRoute(r, `${where(name)} route #${i}`));
  }
}

function checkRoute(r: unknown, where: string): asserts r is RouteDef {
  const route = r as Record<string, unknown>;
  if (typeof route !== 'object' || route === null) throw new PluginLoadError(`${where} is not an object`);
  if (!METHODS.has(route.method as string)) throw new PluginLoadError(`${where}: unknown method ${String(route.method)}`);
  if (typeof route.path !== 'string' || !route.path.startsWith('/')) throw new PluginLoadError(`${where}: path must start with /`);
  if (!AUTH.has(route.auth as string)) throw new PluginLoadError(`${where} (${route.method} ${route.path}): auth must be one of ${[...AUTH].join(', ')}`);
  if (route.body !== undefined && !BODY.has(route.body as string)) throw new PluginLoadError(`${where}: unknown body kind ${String(route.body)}`);
  if (route.mount !== undefined && route.mount !== 'api' && route.mount !== 'root') throw new PluginLoadError(`${where}: mount must be api or root`);
  if (typeof route.handler !== 'function') throw new PluginLoadError(`${where} (${route.method} ${route.path}): handler must be a function`);
}

/**
 * Validates the plugin objects, removes the disabled ones and returns the rest in dependency order
 * (registration order never matters).
 */
export function resolvePlugins(plugins: unknown[], disabled: readonly string[]): Plugin[] {
  plugins.forEach((p, i) => checkPluginShape(p, i));
  const all = plugins as Plugin[];
  const byName = new Map<string, Plugin>();
  for (const p of all) {
    if (byName.has(p.name)) throw new PluginLoadError(`duplicate plugin name "${p.name}"`);
    byName.set(p.name, p);
  }
  for (const name of disabled) {
    if (!byName.has(name)) throw new PluginLoadError(`cannot disable unknown plugin "${name}" (known: ${[...byName.keys()].join(', ')})`);
  }
  const off = new Set(disabled);
  const enabled = all.filter((p) => !off.has(p.name));
  for (const p of enabled) {
    for (const dep of p.dependencies ?? []) {
      if (off.has(dep)) throw new PluginLoadError(`plugin "${p.name}" needs plugin "${dep}", which is disabled`);
      if (!byName.has(dep)) throw new PluginLoadError(`plugin "${p.name}" needs plugin "${dep}", which does not exist`);
    }
  }

  // Depth-first topological sort; optional dependencies order the start when both are enabled.
  const enabledNames = new Set(enabled.map((p) => p.name));
  const ordered: Plugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: Plugin, trail: string[]) => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(p.name)), p.name];
      throw new PluginLoadError(`plugin dependency cycle: ${cycle.join(' -> ')}`);
    }
    state.set(p.name, 'visiting');
    const deps = [...(p.dependencies ?? []), ...(p.optionalDependencies ?? []).filter((d) => enabledNames.has(d))];
    for (const dep of deps) visit(byName.get(dep)!, [...trail, p.name]);
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of enabled) visit(p, []);
  return ordered;
}

/** Fails on two routes with the same method and full path, naming both plugins. */
export function checkDuplicateRoutes(routes: Array<{ plugin: string; method: string; fullPath: string }>): void {
  const seen = new Map<string, string>();
  for (const r of routes) {
    // Parameter names do not distinguish routes: /a/:x and /a/:y are the same route. A name ends where find-my-way
    // ends it (`/`, `.`, `-`, `(`), so static suffixes still count: /:user.keys and /:user.gpg differ.
    const key = `${r.method} ${r.fullPath.replace(/:[^/.\-(]+/g, ':')}`;
    const other = seen.get(key);
    if (other !== undefined) {
      throw new PluginLoadError(`duplicate route ${r.method} ${r.fullPath}: declared by plugin "${other}" and plugin "${r.plugin}"`);
    }
    seen.set(key, r.plugin);
  }
}
