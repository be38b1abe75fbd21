// The kernel's extension points through real HTTP: headers on every reply, a before-route stage, the finished-request
// observer (route templates, never raw URLs), the compiled route list, and node:http server options from the config.
import t from 'tap';
import { createServer } from '../../core/http/lifecycle.js';
import { definePlugin, type FinishedRequest, type RouteInfo } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

const finished: FinishedRequest[] = [];
let seenRoutes: readonly RouteInfo[] = [];

const observed = definePlugin({
  name: 'observed',
  routes: [
    { method: 'GET', path: '/observed/:name', auth: 'public', operationId: 'observedGet', summary: 'probe', handler: async (rc) => ({ status: 200, type: 'text', body: `hi ${rc.params.name}` }) },
    { method: 'GET', path: '/observed-page', mount: 'root', auth: 'public', handler: async () => ({ status: 200, type: 'html', body: '<p>page</p>' }) },
    { method: 'GET', path: '/observed-crash', auth: 'public', handler: async () => { throw new Error('boom'); } },
  ],
  start(ctx) {
    seenRoutes = ctx.kernel.routes();
    ctx.kernel.beforeRoute((req, res, info) => {
      if (req.method !== 'OPTIONS') {
        res.setHeader('X-Before-Route', info.path);
        return false;
      }
      res.writeHead(204, { 'X-Preflight': info.method });
      res.end();
      return true;
    });
    ctx.kernel.onRequestFinished((request) => finished.push(request));
    // A second observer that throws: logged, and neither the request nor the first observer is affected.
    ctx.kernel.onRequestFinished(() => { throw new Error('observer failure'); });
  },
});

/** The observed request for a request id, failing loudly when the observer has not reported it. */
function reportOf(method: string, status: number, route: string | null): FinishedRequest {
  const found = finished.find((r) => r.method === method && r.status === status && r.route === route);
  if (!found) throw new Error(`no finished request ${method} ${status} ${route}: ${JSON.stringify(finished)}`);
  return found;
}

t.test('kernel extension points', async (t) => {
  const f = await startForge({ extraPlugins: [observed], config: { server: { headersTimeout: 4000, requestTimeout: 8000, keepAliveTimeout: 1234, maxConnections: 77 } } });
  t.teardown(() => f.close());

  t.test('the compiled route list: plugin, method, full template, definition', async (t) => {
    const mine = seenRoutes.filter((r) => r.plugin === 'observed');
    t.same(mine.map((r) => `${r.method} ${r.path}`), ['GET /api/v1/observed/:name', 'GET /observed-page', 'GET /api/v1/observed-crash']);
    t.equal(mine[0]!.def.operationId, 'observedGet');
    t.ok(seenRoutes.some((r) => r.plugin === 'version' && r.path === '/api/v1/version'));
    t.equal(f.forge.routes(), seenRoutes, 'the Forge and the plugins read the same list');
    t.ok(Object.isFrozen(seenRoutes) && Object.isFrozen(seenRoutes[0]), 'read-only');
  });

  t.test('every reply carries nosniff: handler replies, errors, html', async (t) => {
    for (const [path, status, root] of [['/observed/x', 200, false], ['/nope', 404, false], ['/observed-crash', 500, false], ['/observed-page', 200, true]] as const) {
      const res = await f.request('GET', path, { root });
      t.equal(res.status, status, path);
      t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${path} says nosniff`);
      t.equal(res.headers.get('x-before-route'), root ? path : '/api/v1' + path, `${path}: a header set by a before-route hook is kept`);
    }
  });

  t.test('a before-route hook may answer the request itself', async (t) => {
    const res = await f.request('OPTIONS', '/repos/search');
    t.equal(res.status, 204);
    t.equal(res.headers.get('x-preflight'), 'OPTIONS');
    const report = reportOf('OPTIONS', 204, null);
    t.equal(report.plugin, null);
  });

  t.test('the observer sees the route template, never the raw URL', async (t) => {
    await f.request('GET', '/observed/alice?secret=1');
    await f.request('GET', '/observed/bob');
    const mine = finished.filter((r) => r.route === '/api/v1/observed/:name');
    t.equal(mine.length, 3, 'three requests of the template so far (one from the header test)');
    t.ok(mine.every((r) => r.method === 'GET' && r.status === 200 && r.plugin === 'observed' && r.ms >= 0));
    t.notOk(finished.some((r) => r.route?.includes('alice')), 'no raw path reaches the observer');
    reportOf('GET', 404, null);
    reportOf('GET', 500, '/api/v1/observed-crash');
  });

  t.test('node:http server options come from config.server', async (t) => {
    const res = await f.request('GET', '/version');
    t.equal(res.headers.get('keep-alive'), 'timeout=1', 'keepAliveTimeout 1234 ms is announced in whole seconds');
    const server = createServer(f.forge.config, () => undefined);
    t.equal(server.headersTimeout, 4000);
    t.equal(server.requestTimeout, 8000);
    t.equal(server.keepAliveTimeout, 1234);
    t.equal(server.maxConnections, 77);
    const unlimited = createServer({ ...f.forge.config, server: { ...f.forge.config.server, maxConnections: 0 } }, () => undefined);
    t.notOk(unlimited.maxConnections, '0: no connection limit');
  });
});
