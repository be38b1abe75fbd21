// `forgekit admin user list|create|delete|change-password` as real processes on a stopped server's data.
import t from 'tap';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, startForge } from '../helpers/forge.js';
import { cli, exec, serve, tree } from './operator-helpers.js';

// Each command is a fresh process that boots every plugin: slow on a loaded machine, so a longer limit than tap's default.
t.setTimeout(600_000);

t.test('admin user commands', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-op-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = { FORGEKIT_DATA_DIR: dataDir };

  t.equal((await cli(['--help'], env)).code, 0);
  t.match((await cli(['admin', '--help'], env)).stdout, /admin user list/);
  const usage = await cli(['admin', 'user', 'create', '--username', 'x'], env);
  t.equal(usage.code, 2, 'a bad command line exits 2');
  t.match(usage.stderr, /--username, --password and --email are required[\s\S]*usage:/);
  t.equal((await cli(['admin', 'user', 'create', '--bogus'], env)).code, 2, 'an unknown option exits 2');
  t.equal((await cli(['frobnicate'], env)).code, 2);

  const made = await cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-secret', '--email', 'alice@example.com', '--admin'], env);
  t.equal(made.code, 0);
  t.match(made.stdout, /created site administrator alice \(id \d+\)/);
  const json = await cli(['admin', 'user', 'create', '--username', 'bob', '--password', 'bob-secret', '--email', 'bob@example.com', '--json'], env);
  t.match(JSON.parse(json.stdout), { username: 'bob', email: 'bob@example.com', is_admin: false });
  const alias = await cli(['admin', 'create-user', '--username', 'carol', '--password', 'carol-secret', '--email', 'carol@example.com'], env);
  t.match(alias.stdout, /created user carol/, 'admin create-user is kept');
  const dup = await cli(['admin', 'user', 'create', '--username', 'bob', '--password', 'bob-secret', '--email', 'b2@example.com'], env);
  t.equal(dup.code, 1);
  t.match(dup.stderr, /username/);

  const listed = JSON.parse((await cli(['admin', 'user', 'list', '--json'], env)).stdout);
  t.same(listed.map((u: any) => u.username), ['alice', 'bob', 'carol']);
  t.match((await cli(['admin', 'user', 'list'], env)).stdout, /^ID\s+USERNAME\s+EMAIL\s+ADMIN\s+CREATED\n1\s+alice\s+alice@example.com\s+yes/);
  t.same(JSON.parse((await cli(['admin', 'user', 'list', '--admin', '--json'], env)).stdout).map((u: any) => u.username), ['alice']);

  t.equal((await cli(['admin', 'user', 'change-password', '--username', 'bob', '--password', 'short'], env)).code, 1, 'password rules apply');
  t.equal((await cli(['admin', 'user', 'change-password', '--username', 'bob', '--password', 'bob-new-secret'], env)).code, 0);
  t.equal((await cli(['admin', 'user', 'delete', '--username', 'carol'], env)).code, 0);
  const missing = await cli(['admin', 'user', 'delete', '--username', 'nobody'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no user named nobody/);

  // The server sees what the commands did; while it runs, the commands refuse its data dir.
  const port = await freePort();
  const server = serve({ ...env, PORT: String(port), FORGEKIT_LOG_FORMAT: 'json' });
  await server.waitFor(/forgekit listening/);
  const basic = (u: string, p: string) => ({ Authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  t.equal((await fetch(`http://127.0.0.1:${port}/api/v1/user`, { headers: basic('bob', 'bob-new-secret') })).status, 200, 'the new password works');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/v1/user`, { headers: basic('bob', 'bob-secret') })).status, 401, 'the old one does not');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/v1/users/carol`)).status, 404, 'carol is gone');
  const locked = await cli(['admin', 'user', 'list'], env);
  t.equal(locked.code, 1);
  t.match(locked.stderr, /in use by process \d+/, 'the store LOCK of a running server is respected');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
