// Plugin settings live in each plugin's own schema: config/default.json and config/schema.json name no plugin key,
// the built-ins' effective defaults are the ones the config file used to hold, and environment overrides still land.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, resolvePluginSettings, PACKAGE_ROOT, type ForgeConfig } from '../../core/config.js';
import { builtinPlugins } from '../../plugins/index.js';

const settingsOf = (name: string, config: ForgeConfig = loadConfig()) => {
  const plugin = builtinPlugins.find((p) => p.name === name);
  if (!plugin) throw new Error(`no built-in plugin ${name}`);
  return resolvePluginSettings(name, plugin.settings, config);
};

t.test('the config file and its schema hard-code no plugin key', async (t) => {
  const defaults = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'config/default.json'), 'utf8'));
  const schema = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'config/schema.json'), 'utf8'));
  t.same(defaults.plugins, {});
  t.same(Object.keys(schema.properties.plugins).sort(), ['additionalProperties', 'description', 'type']);
  t.same(loadConfig().plugins, {});
});

t.test('every built-in plugin with settings declares them, defaults included', async (t) => {
  for (const name of ['repos', 'git', 'ssh-keys', 'markup', 'users']) {
    t.ok(builtinPlugins.find((p) => p.name === name)?.settings, `${name} has a settings schema`);
  }
});

t.test('the defaults are the ones the config file held before', async (t) => {
  t.same(settingsOf('repos'), { ssh: { domain: '', port: 22, user: 'git' }, search: { defaultLimit: 10, maxLimit: 50 }, jsonCacheEntries: 20000 });
  t.same(settingsOf('git'), {
    gitBinary: 'git', timeoutMs: 600000, migrateAllowLocal: false, mirrorIntervalMs: 28800000, catFileMaxRepos: 32, catFileIdleMs: 60000,
    // Transfer limits (issue 13): new settings, not from the old file.
    transferIdleMs: 120000, maxTransfers: 32, maxTransfersPerRepo: 8, transferRetryAfterSeconds: 5, maxPushBytes: 1073741824,
  });
  t.same(settingsOf('ssh-keys'), { minimumSizes: { ed25519: 256, ecdsa: 256, rsa: 2048, dsa: -1 } });
  // `workers` has no default: the service picks one per CPU, at most two (test/markup/workers.test.ts).
  t.same(settingsOf('markup'), { maxBytes: 1048576, timeoutMs: 10000, inlineMaxBytes: 4096, workerHeapMb: 128, workerIdleMs: 30000 });
  t.same(settingsOf('users').search, { defaultLimit: 10, maxLimit: 50 });
});

t.test('a partial setting keeps the other defaults (as the deep merge with the file did)', async (t) => {
  const config = loadConfig({ overrides: { plugins: { 'ssh-keys': { minimumSizes: { rsa: 1024 } }, repos: { ssh: { port: 2222 } } } } });
  t.same(settingsOf('ssh-keys', config), { minimumSizes: { ed25519: 256, ecdsa: 256, rsa: 1024, dsa: -1 } });
  t.same(settingsOf('repos', config).ssh, { domain: '', port: 2222, user: 'git' });
});

t.test('environment overrides reach the plugin settings', async (t) => {
  const config = loadConfig({ env: { FORGEKIT_MIGRATE_ALLOW_LOCAL: 'yes', FORGEKIT_SSH_PORT: '2200', FORGEKIT_WEBHOOK_ALLOWED_HOSTS: 'loopback' } });
  t.equal(settingsOf('git', config).migrateAllowLocal, true);
  t.equal(settingsOf('repos', config).ssh.port, 2200);
  t.equal(settingsOf('ssh', config).port, 2200);
  t.equal(settingsOf('webhooks', config).allowedHostList, 'loopback');
});

t.test('a bad plugin value stops the boot naming the key', async (t) => {
  const bad = (overrides: object, env: Record<string, string> = {}) => loadConfig({ env, overrides: overrides as never });
  t.throws(() => settingsOf('git', bad({}, { FORGEKIT_MIGRATE_ALLOW_LOCAL: 'maybe' })), { name: 'ConfigError', message: /"plugins\.git\.migrateAllowLocal".*boolean/ });
  t.throws(() => settingsOf('repos', bad({}, { FORGEKIT_SSH_PORT: '70000' })), { message: /"plugins\.repos\.ssh\.port".*<= 65535/ });
  t.throws(() => settingsOf('markup', bad({ plugins: { markup: { workers: 65 } } })), { message: /"plugins\.markup\.workers"/ });
  t.throws(() => settingsOf('markup', bad({ plugins: { markup: { colour: 1 } } })), { message: /"plugins\.markup\.colour"/ });
  t.throws(() => settingsOf('users', bad({ plugins: { users: { search: { maxLimit: 0 } } } })), { message: /"plugins\.users\.search\.maxLimit"/ });
  t.throws(() => settingsOf('ssh-keys', bad({ plugins: { 'ssh-keys': { minimumSizes: { rsa: -2 } } } })), { message: /"plugins\.ssh-keys\.minimumSizes\.rsa"/ });
});
