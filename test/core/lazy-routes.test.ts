// `lazyRoutes` (operator commands): routes compile when first dispatched, and then validate, coerce and serialise
// exactly as a kernel that compiled them at boot.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createForge, type Forge } from '../../plugins/index.js';

async function boot(t: { teardown(fn: () => Promise<void>): void }, lazyRoutes: boolean): Promise<Forge> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-lazy-'));
  const forge = await createForge({
    lazyRoutes,
    config: { dataDir, logLevel: 'silent', admin: { username: 'root', password: 'secret-12', email: 'root@example.com' } },
  });
  t.teardown(async () => {
    await forge.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return forge;
}

t.test('a lazy kernel answers as an eager one', async (t) => {
  const eager = await boot(t, false);
  const lazy = await boot(t, true);
  const basic = `Basic ${Buffer.from('root:secret-12').toString('base64')}`;
  const requests = [
    { method: 'GET', url: '/api/v1/version' },
    { method: 'GET', url: '/swagger.v1.json' },
    { method: 'GET', url: '/api/v1/users/root' },
    { method: 'GET', url: '/api/v1/repos/search?limit=abc' },
    { method: 'GET', url: '/api/v1/repos/search?limit=2&page=1' },
    { method: 'POST', url: '/api/v1/user/repos', headers: { authorization: basic, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'x y' }) },
    { method: 'POST', url: '/api/v1/user/repos', headers: { authorization: basic, 'content-type': 'application/json' }, payload: JSON.stringify({ NAME: 'lazy-one', private: true }) },
    { method: 'GET', url: '/api/v1/repos/root/lazy-one', headers: { authorization: basic } },
  ] as const;
  for (const req of requests) {
    const a = await eager.inject(req as any);
    const b = await lazy.inject(req as any);
    t.equal(b.statusCode, a.statusCode, `${req.method} ${req.url}: ${a.statusCode}`);
    const strip = (body: string) => body.replace(/"(created_at|updated_at|created|last_login)":"[^"]*"/g, '"$1":""').replace(/:\d{4,5}\//g, ':PORT/');
    t.equal(strip(b.body), strip(a.body), `${req.method} ${req.url}: the same body`);
  }
});
