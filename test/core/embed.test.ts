// createForge is embeddable: its handler works mounted under a prefix in a plain node:http server and in Express.
import t from 'tap';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { createForge } from '../../plugins/index.js';

async function serve(listener: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

t.test('embedding', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-embed-'));
  const forge = await createForge({
    prefix: '/forge',
    config: { dataDir, logLevel: 'silent', rootUrl: 'http://example.test/forge/', admin: { username: 'root', password: 'secret-1', email: 'root@example.com' } },
  });
  t.teardown(async () => {
    await forge.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  t.test('under a prefix in a node:http server', async (t) => {
    const host = await serve((req, res) => {
      if (req.url?.startsWith('/forge/')) return forge.handler(req, res);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('host app');
    });
    t.teardown(host.close);
    const version = await fetch(`${host.url}/forge/api/v1/version`);
    t.equal(version.status, 200);
    t.match(await version.json(), { Version: /\d/ });
    const other = await fetch(`${host.url}/elsewhere`);
    t.equal(await other.text(), 'host app');
    const missing = await fetch(`${host.url}/forge/api/v1/nope`);
    t.equal(missing.status, 404);
    const err = await fetch(`${host.url}/forge/api/v1/user`);
    t.equal((await err.json()).url, 'http://example.test/forge/api/swagger', 'URLs use the configured root');
  });

  t.test('mounted in Express (app.use strips the mount path; unmatched paths go to next)', async (t) => {
    const app = express();
    app.use('/forge', forge.handler);
    app.get('/forge/extra', (_req, res) => { res.send('express route'); });
    const host = await serve(app);
    t.teardown(host.close);
    const version = await fetch(`${host.url}/forge/api/v1/version`);
    t.equal(version.status, 200);
    t.match(await version.json(), { version: /\d/ });
    const basic = Buffer.from('root:secret-1').toString('base64');
    const me = await fetch(`${host.url}/forge/api/v1/user`, { headers: { Authorization: `Basic ${basic}` } });
    t.equal((await me.json()).login, 'root');
    const fallthrough = await fetch(`${host.url}/forge/extra`);
    t.equal(await fallthrough.text(), 'express route');
  });

  t.test('inject dispatches without a socket', async (t) => {
    const res = await forge.inject({ method: 'GET', url: '/forge/api/v1/version' });
    t.equal(res.statusCode, 200);
    t.match(res.json(), { Version: /\d/ });
  });
});
