// Plugin packages named in the configuration: the example package (examples/plugin-hello) loaded by file path and by
// npm package name (a real server process), with the same checks as built-ins and errors naming the package.
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../../core/config.js';
import { createForge } from '../../plugins/index.js';
import { freePort, startForge } from '../helpers/forge.js';
import { nodeCommand } from '../helpers/child-env.js';

const EXAMPLE = path.join(PACKAGE_ROOT, 'examples', 'plugin-hello');
const BIN = path.join(PACKAGE_ROOT, 'dist', 'bin', 'forgekit.js');
const run = promisify(execFile);

t.test('the example package loaded by file path', async (t) => {
  const f = await startForge({ env: { FORGEKIT_LOAD_PLUGINS: EXAMPLE }, config: { plugins: { hello: { greeting: 'Hi' } } } });
  t.teardown(() => f.close());
  const res = await f.request('GET', '/hello/root');
  t.equal(res.status, 200);
  t.same(res.json, { greeting: 'Hi, root!', login: 'root' }, 'its settings schema, the users service, its response schema');
  t.equal((await f.request('GET', '/hello/nobody')).status, 404);
  t.equal((await f.request('GET', `/hello/${'x'.repeat(41)}`)).status, 422, 'its params schema is enforced');
  const doc = (await f.request('GET', '/swagger.v1.json', { root: true })).json;
  t.equal(doc.paths['/hello/{username}'].get.operationId, 'helloGreetUser', 'its route is in the API description');
  t.ok(doc.definitions.Greeting, 'its schema too');
});

t.test('configuration errors name the package', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pkg-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = async (name: string, source: string) => {
    await writeFile(path.join(dir, name), source);
    return path.join(dir, name);
  };
  const base = { config: { dataDir: path.join(dir, 'data'), logLevel: 'silent' as const } };
  const boot = (spec: string, extra: Record<string, unknown> = {}) => createForge({ ...base, ...extra, env: { FORGEKIT_LOAD_PLUGINS: spec } });

  await t.rejects(boot('forgekit-plugin-nothing-here'), /plugin package "forgekit-plugin-nothing-here".*package not found/);
  await t.rejects(boot('./no/such/file.js'), /plugin package "\.\/no\/such\/file\.js".*no such file/);
  await t.rejects(boot('NOT A NAME'), /plugin package "NOT A NAME".*not a valid npm package name/);
  await t.rejects(boot(await file('empty.mjs', 'export const x = 1;\n')), /plugin package ".*empty\.mjs".*exports no plugin/);
  await t.rejects(boot(await file('nameless.mjs', 'export default { routes: [] };\n')), /plugin package ".*nameless\.mjs".*not a plugin object/);
  await t.rejects(boot(await file('throws.mjs', 'throw new Error("kaboom");\n')), /plugin package ".*throws\.mjs".*kaboom/);
  const noDep = await file('nodep.mjs', 'export default { name: "lonely", dependencies: ["nothing"] };\n');
  await t.rejects(boot(noDep), /plugin "lonely" needs plugin "nothing", which does not exist \(plugin package ".*nodep\.mjs"\)/);
  const clash = await file('clash.mjs', 'export default { name: "clash", routes: [{ method: "GET", path: "/version", auth: "public", handler: async () => ({ status: 200 }) }] };\n');
  await t.rejects(boot(clash), /duplicate route GET \/api\/v1\/version: declared by plugin "version" and plugin "clash" \(plugin package ".*clash\.mjs"\)/);
  const badRoute = await file('badroute.mjs', 'export default { name: "bad-route", routes: [{ method: "FETCH", path: "/x", auth: "public", handler() {} }] };\n');
  await t.rejects(boot(badRoute), /plugin "bad-route" route #0: unknown method FETCH \(plugin package ".*badroute\.mjs"\)/);
  const twice = await file('twice.mjs', 'export default [{ name: "users" }];\n');
  await t.rejects(boot(twice), /duplicate plugin name "users" \(plugin package ".*twice\.mjs"\)/);
  await t.rejects(boot(EXAMPLE, { config: { ...base.config, plugins: { hello: { greeting: '' } } } }), /invalid config value for "plugins\.hello\.greeting"/);
});

t.test('the example package installed by name, in a real server process', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pkg-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(EXAMPLE, path.join(dir, 'node_modules', 'forgekit-plugin-hello'), 'dir');
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), FORGEKIT_DATA_DIR: path.join(dir, 'data'), FORGEKIT_LOAD_PLUGINS: 'forgekit-plugin-hello',
    FORGEKIT_ADMIN_USERNAME: 'boss', FORGEKIT_ADMIN_PASSWORD: 'boss-secret', FORGEKIT_ADMIN_EMAIL: 'boss@example.com', FORGEKIT_LOG_FORMAT: 'json' };
  const child = spawn(...nodeCommand([BIN, 'serve']), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (out.includes('forgekit listening')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/hello/boss`);
  t.same(await res.json(), { greeting: 'Hello, boss!', login: 'boss' });
  child.kill('SIGTERM');
  t.equal(await exited, 0);

  const failed = await run(...nodeCommand([BIN, 'serve']), { cwd: dir, env: { ...env, FORGEKIT_LOAD_PLUGINS: 'forgekit-plugin-missing' } }).catch((e) => e);
  t.equal(failed.code, 1);
  t.match(failed.stderr, /forgekit: plugin package "forgekit-plugin-missing": package not found/);
});
