// What every offline command shares: usage errors, a forge booted on the stopped server's data, JSON output.
import { createForge, builtinPlugins, type Forge } from '../../plugins/index.js';
import { loadConfig, type ForgeConfig } from '../../core/config.js';
import { resolvePlugins } from '../../core/loader.js';
import { loadPluginPackages } from '../../plugins/packages.js';
import type { CollectionSpec } from '../../core/store/port.js';

/** A command line that cannot be run as given: exit code 2 and the usage. */
export class UsageError extends Error {}

/** The command ran but failed (a check found problems, a refused restore): exit code 1, message on stderr. */
export class CommandError extends Error {}

export function cliConfig(): ForgeConfig {
  return loadConfig({ env: process.env });
}

/**
 * The forge on the embedded store while the server is stopped: the store's LOCK makes a running server's data dir
 * fail here with a clear message. Quiet logs unless configured otherwise.
 */
export async function openForge(): Promise<Forge> {
  return createForge({
    env: { ...process.env, FORGEKIT_LOG_LEVEL: process.env.FORGEKIT_LOG_LEVEL ?? 'warn', FORGEKIT_LOG_FORMAT: process.env.FORGEKIT_LOG_FORMAT ?? 'json' },
    // No request is served: routes compile only if one is dispatched (the schemas are checked by every server boot).
    lazyRoutes: true,
  });
}

/** The collections (with indexes) the enabled plugins declare, built-ins and configured packages alike. */
export async function enabledCollections(config: ForgeConfig): Promise<CollectionSpec[]> {
  const packages = await loadPluginPackages(config.loadPlugins);
  const plugins = resolvePlugins([...builtinPlugins, ...packages.flatMap((p) => p.plugins)], config.disabledPlugins);
  return plugins.flatMap((p) => p.collections ?? []);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
