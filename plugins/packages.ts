// Extra plugins named in the configuration (`loadPlugins`, `FORGEKIT_LOAD_PLUGINS`): npm package names or file
// paths, imported at boot and then checked by the loader exactly like the built-ins.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginLoadError } from '../core/loader.js';
import type { Plugin } from '../core/plugin.js';

export interface LoadedPackage {
  /** What the configuration named (package name or path). */
  spec: string;
  /** The file that was imported. */
  file: string;
  plugins: Plugin<any>[];
}

/** A spec is a file path when it looks like one (`./x`, `../x`, `/x`, `C:\x`); anything else is a package name. */
function isPath(spec: string): boolean {
  return spec.startsWith('.') || path.isAbsolute(spec);
}

/** The entry file of a package directory: `exports` (`.` → import/default), then `main`, then index.js. */
function packageEntry(dir: string): string {
  const manifestFile = path.join(dir, 'package.json');
  if (!existsSync(manifestFile)) return path.join(dir, 'index.js');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { exports?: unknown; main?: string };
  let target: unknown = manifest.exports;
  if (target && typeof target === 'object' && '.' in (target as object)) target = (target as Record<string, unknown>)['.'];
  while (target && typeof target === 'object') {
    const conditions = target as Record<string, unknown>;
    target = conditions.import ?? conditions.default ?? conditions.node;
  }
  return path.join(dir, typeof target === 'string' ? target : manifest.main ?? 'index.js');
}

/** Finds a package by name in node_modules from `cwd` upwards. */
function findPackage(name: string, cwd: string): string | null {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', ...name.split('/'));
    if (existsSync(path.join(candidate, 'package.json'))) return packageEntry(candidate);
    if (path.dirname(dir) === dir) return null;
  }
}

function resolveSpec(spec: string, cwd: string): string {
  if (isPath(spec)) {
    const full = path.resolve(cwd, spec);
    if (!existsSync(full)) throw new Error(`no such file or directory: ${full}`);
    return statSync(full).isDirectory() ? packageEntry(full) : full;
  }
  if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(spec)) throw new Error('not a valid npm package name or file path');
  const found = findPackage(spec, cwd);
  if (!found) throw new Error(`package not found in node_modules from ${cwd} upwards (install it with npm first)`);
  return found;
}

/** What a module exports as plugins: the default export (one plugin or an array), else a `plugin`/`plugins` export. */
function pluginsOf(mod: Record<string, unknown>): unknown[] {
  const value = mod.default ?? mod.plugins ?? mod.plugin;
  if (value === undefined) throw new Error('exports no plugin (expected a default export: a plugin object or an array of them)');
  return Array.isArray(value) ? value : [value];
}

/** Imports every configured package; a failure stops the boot with an error naming the package. */
export async function loadPluginPackages(specs: readonly string[], cwd = process.cwd()): Promise<LoadedPackage[]> {
  const loaded: LoadedPackage[] = [];
  for (const spec of specs) {
    let file = '';
    try {
      file = resolveSpec(spec, cwd);
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const plugins = pluginsOf(mod);
      plugins.forEach((p, i) => {
        if (typeof p !== 'object' || p === null || typeof (p as { name?: unknown }).name !== 'string') {
          throw new Error(`export #${i} is not a plugin object with a name`);
        }
      });
      loaded.push({ spec, file, plugins: plugins as Plugin<any>[] });
    } catch (err) {
      throw new PluginLoadError(`plugin package "${spec}"${file ? ` (${file})` : ''}: ${(err as Error).message}`);
    }
  }
  return loaded;
}

/** Adds the package a failing plugin came from to a boot error that names the plugin. */
export function namePackageIn(err: unknown, packages: readonly LoadedPackage[]): unknown {
  if (!(err instanceof Error) || packages.length === 0) return err;
  const named = packages.filter((pkg) => pkg.plugins.some((p) => err.message.includes(`"${p.name}"`)));
  if (named.length === 0) return err;
  err.message += ` (plugin package ${named.map((pkg) => `"${pkg.spec}"`).join(', ')})`;
  return err;
}
