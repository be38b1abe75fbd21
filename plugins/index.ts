// The forgekit distribution: the kernel plus the built-in capability plugins. This is the package entry point.
import { createKernel, type Forge, type KernelOptions } from '../core/kernel.js';
import type { Plugin } from '../core/plugin.js';
import { loadConfig } from '../core/config.js';
import { loadPluginPackages, namePackageIn } from './packages.js';
import { RESOURCE_SCHEMAS } from '../schemas/resources.js';
import apiDocs from './api-docs/index.js';
import version from './version/index.js';
import users from './users/index.js';
import admin from './admin/index.js';
import tokens from './tokens/index.js';
import sshKeys from './ssh-keys/index.js';
import gpgKeys from './gpg-keys/index.js';
import orgs from './orgs/index.js';
import repos from './repos/index.js';
import follow from './follow/index.js';
import stars from './stars/index.js';
import watch from './watch/index.js';
import git from './git/index.js';
import markup from './markup/index.js';
import issues from './issues/index.js';
import health from './health/index.js';
import metricsPlugin, { createMetricsPlugin } from './metrics/index.js';
import { ForgeMetrics } from './metrics/instrument.js';
import { createStore } from '../core/store/index.js';
import { pino } from 'pino';
import statuses from './statuses/index.js';
import webhooks from './webhooks/index.js';
import deployKeys from './deploy-keys/index.js';
import ssh from './ssh/index.js';
import contents from './contents/index.js';
import pulls from './pulls/index.js';
import topics from './topics/index.js';
import releases from './releases/index.js';
import notifications from './notifications/index.js';
import settings from './settings/index.js';
import cors from './cors/index.js';

/** Every built-in plugin; the loader orders them by their dependencies, so this order does not matter. */
export const builtinPlugins: Plugin<any>[] = [apiDocs, version, users, admin, tokens, sshKeys, gpgKeys, orgs, repos, follow, stars, watch, markup, git, issues, deployKeys, ssh, statuses, webhooks, health, metricsPlugin, contents, topics, releases, pulls, notifications, settings, cors];

export type ForgeOptions = Partial<KernelOptions>;

/**
 * Creates a forge: config from config/default.json, the environment (`env`, default: none — the CLI passes
 * process.env) and `config` overrides; the built-in plugins unless `plugins` is given. Starts the store and plugins;
 * call `listen()` for a server of its own, or mount `handler` in yours.
 */
export async function createForge(options: ForgeOptions = {}): Promise<Forge> {
  const schemas = [...RESOURCE_SCHEMAS, ...(options.schemas ?? [])];
  // Plugin packages named in the configuration join the given plugins and go through the same loader checks.
  const config = loadConfig({ env: options.env ?? {}, overrides: options.config ?? {} });
  const packages = await loadPluginPackages(config.loadPlugins);
  const given = [...(options.plugins ?? builtinPlugins), ...packages.flatMap((pkg) => pkg.plugins)];
  let plugins: Plugin<any>[] = given;
  // Metrics on: the store is instrumented, the metrics plugin observes finished requests (the kernel's hook) and serves
  // the registry. Off: nothing is wrapped or observed, so metrics cost nothing.
  let store = options.store;
  const metricsOn = config.plugins.metrics?.enabled === true && !config.disabledPlugins.includes('metrics') && plugins.includes(metricsPlugin);
  if (metricsOn) {
    const metrics = new ForgeMetrics();
    store = metrics.instrumentStore(store ?? createStore(
      { dataDir: config.dataDir, mongodbUri: config.mongodbUri, compactIntervalMs: config.compactIntervalMs },
      options.logger ?? pino({ level: config.logLevel, base: { name: 'forgekit' } }),
    ));
    plugins = plugins.map((p) => (p === metricsPlugin ? createMetricsPlugin(metrics) : p));
  }
  try {
    return await createKernel({ ...options, plugins, schemas, ...(store ? { store } : {}) });
  } catch (err) {
    throw namePackageIn(err, packages);
  }
}

export type { Forge, KernelOptions } from '../core/kernel.js';
export type * from '../core/plugin.js';
export type { ForgeConfig } from '../core/config.js';
export type * from '../core/store/port.js';
export { definePlugin } from '../core/plugin.js';
export { ForgeError, ERROR_CODES } from '../core/errors.js';
export { checkConsistency, type ConsistencyReport } from './consistency.js';
