import t from 'tap';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../core/config.js';

t.test('defaults', async (t) => {
  const c = loadConfig();
  t.equal(c.port, 3000);
  t.equal(c.host, '127.0.0.1');
  t.equal(c.rootUrl, 'http://127.0.0.1:3000/');
  t.equal(c.dataDir, path.resolve('./data'));
  t.equal(c.pagination.defaultLimit, 30);
  t.equal(c.pagination.maxLimit, 50);
  t.ok(Object.isFrozen(c) && Object.isFrozen(c.pagination), 'frozen deeply');
  t.equal(c.heapPretenuring, false, "V8's allocation-site pretenuring is off in `forgekit serve` unless asked for");
});

t.test('environment overrides', async (t) => {
  const c = loadConfig({
    env: {
      PORT: '4100', HOST: '0.0.0.0', FORGEKIT_DATA_DIR: '/tmp/fk', FORGEKIT_LOG_LEVEL: 'warn', FORGEKIT_PLUGINS: '-markup,-gpg-keys',
      FORGEKIT_ADMIN_USERNAME: 'boss', FORGEKIT_ADMIN_PASSWORD: 'secret1', FORGEKIT_ADMIN_EMAIL: 'b@x.io', FORGEKIT_MIGRATE_ALLOW_LOCAL: 'true',
    },
  });
  t.equal(c.port, 4100);
  t.equal(c.rootUrl, 'http://localhost:4100/', 'wildcard host gives a usable root URL');
  t.equal(c.dataDir, '/tmp/fk');
  t.equal(c.logLevel, 'warn');
  t.same(c.disabledPlugins, ['markup', 'gpg-keys']);
  t.same(c.admin, { username: 'boss', password: 'secret1', email: 'b@x.io' });
  t.equal(c.plugins.git!.migrateAllowLocal, true, 'a plugin key the plugin validates at boot (test/core/plugin-settings.test.ts)');
  t.equal(loadConfig({ env: { FORGEKIT_ROOT_URL: 'https://git.example.com/forge' } }).rootUrl, 'https://git.example.com/forge/');
  t.equal(loadConfig({ env: { FORGEKIT_HEAP_PRETENURING: 'true' } }).heapPretenuring, true);
  t.equal(loadConfig({ env: { FORGEKIT_HEAP_PRETENURING: 'off' } }).heapPretenuring, false);
});

t.test('a bad value stops with the key and the reason', async (t) => {
  t.throws(() => loadConfig({ env: { PORT: 'eighty' } }), { name: 'ConfigError', message: /"port".*must be integer/ });
  t.throws(() => loadConfig({ env: { PORT: '70000' } }), { message: /"port".*<= 65535/ });
  t.throws(() => loadConfig({ env: { FORGEKIT_LOG_LEVEL: 'loud' } }), { message: /"logLevel"/ });
  t.throws(() => loadConfig({ env: { FORGEKIT_HEAP_PRETENURING: 'maybe' } }), { message: /"heapPretenuring"/ });
  t.throws(() => loadConfig({ env: { FORGEKIT_ROOT_URL: 'ftp://x' } }), { message: /"rootUrl"/ });
  t.throws(() => loadConfig({ env: { FORGEKIT_MONGODB_URI: 'postgres://x' } }), { message: /"mongodbUri"/ });
  t.throws(() => loadConfig({ overrides: { pagination: { defaultLimit: 80 } } }), ConfigError);
  t.throws(() => loadConfig({ overrides: { nonsense: 1 } as never }), { message: /nonsense/ });
});
