// The packaged server and CLI as real processes: boot on a fresh data dir, first admin from the env, SIGTERM,
// `admin create-user` while the server is stopped, and boot failures with clear messages.
import t from 'tap';
import { spawn, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../../core/config.js';
import { freePort } from '../helpers/forge.js';
import { waitFor } from '../helpers/wait.js';
import { nodeCommand } from '../helpers/child-env.js';
import { SERVE_NODE_FLAGS } from '../../core/heap-headroom.js';

const BIN = path.join(PACKAGE_ROOT, 'dist', 'bin', 'forgekit.js');
const run = promisify(execFile);

/** `forgekit serve` as a process; `flags`: node flags before the script (none: `node dist/bin/forgekit.js serve`). */
function start(env: Record<string, string>, flags: readonly string[] = []) {
  const child = spawn(...nodeCommand([...flags, BIN, 'serve']), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => { if (out.includes('forgekit listening')) { clearInterval(timer); resolve(); } }, 20);
    child.once('exit', (code) => { clearInterval(timer); reject(new Error(`exited ${code}: ${out}`)); });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The request log line is written after the response is sent, and reaches our pipe a moment later.
  const logged = async (pattern: RegExp) => {
    await waitFor(`a log line matching ${pattern}`, () => pattern.test(out));
    return out;
  };
  return { child, ready, exited, output: () => out, logged };
}

t.test('server process', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-cli-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const env = {
    PORT: String(port), FORGEKIT_DATA_DIR: dataDir, FORGEKIT_ADMIN_USERNAME: 'boss', FORGEKIT_ADMIN_PASSWORD: 'boss-secret',
    FORGEKIT_ADMIN_EMAIL: 'boss@example.com', FORGEKIT_LOG_LEVEL: 'info',
  };
  const auth = { Authorization: `Basic ${Buffer.from('boss:boss-secret').toString('base64')}` };

  const first = start(env);
  const bootStart = Date.now();
  await first.ready;
  t.comment(`boot to listening: ${Date.now() - bootStart} ms`);
  const version = await fetch(`http://127.0.0.1:${port}/api/v1/version`);
  t.equal(version.status, 200);
  const me = await fetch(`http://127.0.0.1:${port}/api/v1/user?token=abc`, {});
  t.equal(me.status, 401);
  const admin = await (await fetch(`http://127.0.0.1:${port}/api/v1/user`, { headers: auth })).json();
  t.match(admin, { login: 'boss', email: 'boss@example.com' }, 'the env created the first admin');
  t.match(await first.logged(/"method":"GET","path":"\/api\/v1\/user","status":401/), /"method":"GET","path":"\/api\/v1\/user","status":401/, 'one log line per request');
  t.notMatch(first.output(), /token=abc|boss-secret/, 'no token or password in the logs');
  t.match(first.output(), /"heapHeadroomPercent":25,"bootHeadroomPercent":100,"heapPretenuring":false,"msg":"old-generation headroom set"/, 'the old-generation headroom of the default config set once listening, pretenuring off');
  t.match(first.output(), /"missing":\["--max-semi-space-size=32"\],"msg":"started without --max-semi-space-size=32 \(npm start passes it\)/, 'started without npm start\'s node flags: the log says which');
  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0, 'SIGTERM stops cleanly');

  const created = await run(...nodeCommand([BIN, 'admin', 'create-user', '--username', 'carol', '--password', 'carol-secret', '--email', 'carol@example.com']), { env: { ...process.env, ...env } });
  t.match(created.stdout, /created user carol/);
  await t.rejects(run(...nodeCommand([BIN, 'admin', 'create-user', '--username', 'carol', '--password', 'x']), { env: { ...process.env, ...env } }), /required/);

  // Started as npm start starts it (with its node flags): no hint.
  const second = start(env, SERVE_NODE_FLAGS);
  await second.ready;
  const carol = await fetch(`http://127.0.0.1:${port}/api/v1/user`, { headers: { Authorization: `Basic ${Buffer.from('carol:carol-secret').toString('base64')}` } });
  t.equal((await carol.json()).login, 'carol', 'the CLI user can sign in');
  const admins = await (await fetch(`http://127.0.0.1:${port}/api/v1/users/search?q=boss`)).json();
  t.equal(admins.data.length, 1, 'the admin bootstrap is idempotent');
  t.notMatch(second.output(), /started without/, 'started with npm start\'s node flags: no hint');
  second.child.kill('SIGINT');
  t.equal(await second.exited, 0);
});

t.test('npm start starts node with the flags core/heap-headroom.ts names; the command keeps a portable #! line', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.start, `node ${SERVE_NODE_FLAGS.join(' ')} dist/bin/forgekit.js serve`);
  t.equal(readFileSync(BIN, 'utf8').split('\n', 1)[0], '#!/usr/bin/env node', 'no `env -S` (BusyBox lacks it)');
  // Node and V8 take them (an unknown option stops node with "bad option").
  const { stdout } = await run(...nodeCommand([...SERVE_NODE_FLAGS, '-e', 'console.log(process.execArgv.filter((a) => a.startsWith("--max")).join(" "))']));
  t.equal(stdout.trim(), SERVE_NODE_FLAGS.join(' '));
});

t.test('boot failures name the problem', async (t) => {
  const bad = start({ PORT: 'eighty' });
  await t.rejects(bad.ready, /invalid config value for "port"/);
  t.equal(await bad.exited, 1);
  const disabled = start({ PORT: String(await freePort()), FORGEKIT_PLUGINS: '-users', FORGEKIT_DATA_DIR: path.join(os.tmpdir(), 'forgekit-never') });
  await t.rejects(disabled.ready, /needs plugin "users", which is disabled/);
});
