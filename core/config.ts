// Configuration: config/default.json, overridden by the environment, then by code options; validated and frozen.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export interface ForgeConfig {
  port: number;
  host: string;
  /** Public root URL with a trailing slash (derived from host and port when not configured). */
  rootUrl: string;
  apiPrefix: string;
  dataDir: string;
  mongodbUri: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: human-readable lines on a terminal, JSON otherwise; `json` or `pretty` force one. */
  logFormat: 'auto' | 'json' | 'pretty';
  bodyLimit: number;
  shutdownTimeoutMs: number;
  compactIntervalMs: number;
  /**
   * How far V8's old generation may grow past what the last full collection kept before the next one, in percent,
   * set by the `forgekit serve` process once it listens (core/heap-headroom.ts); 0 leaves V8's own choice.
   */
  heapHeadroomPercent: number;
  /**
   * V8's allocation-site pretenuring in the `forgekit serve` process (core/heap-headroom.ts): off by default, because
   * a load that starts while the post-start index builds run can leave request allocations pretenured for good.
   */
  heapPretenuring: boolean;
  /**
   * node:http server options (ms; 0 = off / unlimited), and `replyBatch`: the most replies whose writes are held to
   * the end of the event-loop turn (0 = write each reply in place; see core/http/reply-batch.ts), and `discardBodyBytes`:
   * how much of a refused body (413, 415) is read and dropped so the client can read the answer (core/http/body.ts).
   */
  server: { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; maxConnections: number; replyBatch: number; discardBodyBytes: number };
  pagination: { defaultLimit: number; maxLimit: number };
  admin: { username: string; password: string; email: string };
  disabledPlugins: string[];
  /** Extra plugins to load at boot: npm package names or file paths (relative to the working directory). */
  loadPlugins: string[];
  plugins: Record<string, Record<string, any>>;
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

/** The package root: where package.json, config/ and the gitignore templates live. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(path.join(PACKAGE_ROOT, file), 'utf8'));
}

/** Environment variable → config path and how to parse the value. */
const ENV_MAP: Array<[string, string, (v: string) => unknown]> = [
  ['PORT', 'port', Number],
  ['HOST', 'host', String],
  ['FORGEKIT_ROOT_URL', 'rootUrl', String],
  ['FORGEKIT_DATA_DIR', 'dataDir', String],
  ['FORGEKIT_MONGODB_URI', 'mongodbUri', String],
  ['FORGEKIT_LOG_LEVEL', 'logLevel', String],
  ['FORGEKIT_LOG_FORMAT', 'logFormat', String],
  ['FORGEKIT_REPLY_BATCH', 'server.replyBatch', Number],
  ['FORGEKIT_HEAP_HEADROOM_PERCENT', 'heapHeadroomPercent', Number],
  ['FORGEKIT_HEAP_PRETENURING', 'heapPretenuring', parseBool],
  ['FORGEKIT_LOAD_PLUGINS', 'loadPlugins', (v) => v.split(',').map((s) => s.trim()).filter(Boolean)],
  ['FORGEKIT_ADMIN_USERNAME', 'admin.username', String],
  ['FORGEKIT_ADMIN_PASSWORD', 'admin.password', String],
  ['FORGEKIT_ADMIN_EMAIL', 'admin.email', String],
  ['FORGEKIT_MIGRATE_ALLOW_LOCAL', 'plugins.git.migrateAllowLocal', parseBool],
  ['FORGEKIT_WEBHOOK_ALLOWED_HOSTS', 'plugins.webhooks.allowedHostList', String],
  // One port: where the SSH server listens and what repositories advertise in `ssh_url`.
  ['FORGEKIT_SSH_PORT', 'plugins.ssh.port', Number],
  ['FORGEKIT_SSH_PORT', 'plugins.repos.ssh.port', Number],
];

function parseBool(v: string): unknown {
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  return v; // left as a string so validation names the key
}

function setPath(target: Record<string, any>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key];
  }
  node[keys[keys.length - 1]!] = value;
}

function isPlainObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key], value) : value;
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** `FORGEKIT_PLUGINS=-markup,-gpg-keys` disables; `+name` re-enables a plugin disabled in the file. */
function applyPluginSwitches(disabled: string[], spec: string): string[] {
  const set = new Set(disabled);
  for (const raw of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (raw.startsWith('-')) set.add(raw.slice(1));
    else set.delete(raw.replace(/^\+/, ''));
  }
  return [...set];
}

export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  overrides?: DeepPartial<ForgeConfig>;
}

let compiledConfigSchema: ValidateFunction | undefined;

/** The config file's schema, compiled once per process: a new Ajv compiles JSON Schema's meta-schema first (~45 ms a boot). */
function configValidator(): ValidateFunction {
  if (!compiledConfigSchema) {
    const ajv = new Ajv({ allErrors: false, strict: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    compiledConfigSchema = ajv.compile(readJson('config/schema.json') as object);
  }
  return compiledConfigSchema;
}

export function loadConfig({ env = {}, overrides = {} }: LoadConfigOptions = {}): ForgeConfig {
  let raw = readJson('config/default.json') as Record<string, any>;
  const fromEnv: Record<string, any> = {};
  for (const [name, key, parse] of ENV_MAP) {
    const v = env[name];
    if (v !== undefined && v !== '') setPath(fromEnv, key, parse(v));
  }
  raw = deepMerge(raw, fromEnv);
  if (env.FORGEKIT_PLUGINS) raw.disabledPlugins = applyPluginSwitches(raw.disabledPlugins, env.FORGEKIT_PLUGINS);
  raw = deepMerge(raw, overrides as Record<string, any>);

  const validate = configValidator();
  if (!validate(raw)) {
    const err = validate.errors![0]!;
    const key = (err.instancePath.replace(/^\//, '').replace(/\//g, '.') || (err.params as any).additionalProperty) ?? 'config';
    const extra = (err.params as any).additionalProperty ? ` (${(err.params as any).additionalProperty})` : '';
    throw new ConfigError(`invalid config value for "${key}"${extra}: ${err.message}`);
  }
  if (raw.pagination.defaultLimit > raw.pagination.maxLimit) {
    throw new ConfigError('invalid config value for "pagination.defaultLimit": must not exceed pagination.maxLimit');
  }
  if (!raw.rootUrl) {
    const host = raw.host === '0.0.0.0' || raw.host === '::' ? 'localhost' : raw.host;
    raw.rootUrl = `http://${host.includes(':') ? `[${host}]` : host}:${raw.port}/`;
  } else if (!raw.rootUrl.endsWith('/')) {
    raw.rootUrl += '/';
  }
  raw.dataDir = path.resolve(raw.dataDir);
  return deepFreeze(raw as ForgeConfig);
}

let settingsAjv: Ajv | undefined;

/**
 * A plugin's settings: its slice of `config.plugins`, validated against the plugin's own settings schema with the
 * schema's defaults filled in (so a third-party plugin's settings get the same treatment as a built-in's), frozen.
 * A plugin without a schema gets its slice as configured.
 */
export function resolvePluginSettings(pluginName: string, schema: object | undefined, config: ForgeConfig): Readonly<Record<string, any>> {
  const configured = config.plugins[pluginName];
  if (!schema) return configured ?? Object.freeze({});
  settingsAjv ??= (() => {
    const ajv = new Ajv({ allErrors: false, strict: true, useDefaults: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    return ajv;
  })();
  const value = structuredClone(configured ?? {});
  let validate;
  try {
    validate = settingsAjv.compile(schema);
  } catch (err) {
    throw new ConfigError(`plugin "${pluginName}": invalid settings schema: ${(err as Error).message}`);
  }
  if (!validate(value)) {
    const err = validate.errors![0]!;
    const extra = (err.params as any).additionalProperty as string | undefined;
    const key = ['plugins', pluginName, ...err.instancePath.split('/').filter(Boolean), ...(extra ? [extra] : [])].join('.');
    throw new ConfigError(`invalid config value for "${key}": ${err.message}`);
  }
  return deepFreeze(value);
}

/** The package version, for `GET /version`. */
export function packageVersion(): string {
  return (readJson('package.json') as { version: string }).version;
}
