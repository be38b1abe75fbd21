// First start: readable log lines on a terminal (forced here with FORGEKIT_LOG_FORMAT=pretty), the URL, the admin hint.
import t from 'tap';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, startForge } from '../helpers/forge.js';
import { cli, exec, serve, tree } from './operator-helpers.js';

t.test('first start: readable lines, the URL, how to create an admin', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-op-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const server = serve({ FORGEKIT_DATA_DIR: dataDir, PORT: String(port), FORGEKIT_LOG_FORMAT: 'pretty', FORGEKIT_LOG_LEVEL: 'info' });
  await server.waitFor(/no site administrator yet/);
  const out = server.output();
  t.match(out, /^\d\d:\d\d:\d\d INFO  forgekit listening /m, 'readable lines');
  t.match(out, new RegExp(`forgekit is ready at http://127\\.0\\.0\\.1:${port}/ \\(API http://127\\.0\\.0\\.1:${port}/api/v1/, docs http://127\\.0\\.0\\.1:${port}/api/swagger\\)`));
  t.match(out, /WARN  no site administrator yet: .*forgekit admin user create --username NAME --password PASS --email EMAIL --admin.*FORGEKIT_ADMIN_USERNAME/);
  t.notMatch(out, /^\{"level"/m, 'no JSON lines');
  await fetch(`http://127.0.0.1:${port}/api/v1/version`);
  await server.waitFor(/INFO  GET \/api\/v1\/version 200 [\d.]+ ms/);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);

  const json = serve({ FORGEKIT_DATA_DIR: dataDir, PORT: String(port), FORGEKIT_ADMIN_USERNAME: 'boss', FORGEKIT_ADMIN_PASSWORD: 'boss-secret', FORGEKIT_ADMIN_EMAIL: 'boss@example.com' });
  await json.waitFor(/forgekit is ready/);
  t.match(json.output(), /^\{"level":30,.*"msg":"forgekit listening"/m, 'JSON when not a terminal');
  t.notMatch(json.output(), /no site administrator/, 'no hint once an admin exists');
  json.child.kill('SIGTERM');
  t.equal(await json.exited, 0);
});
