// The kernel through real HTTP: every error class, the auth transports and levels, routing rules, logging hygiene.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { ForgeError, fail } from '../../core/errors.js';
import { startForge } from '../helpers/forge.js';
import { waitFor } from '../helpers/wait.js';

/** The slow route's handler holds until the test releases it. */
const slow = { started: false, release: () => {} };

const probe = definePlugin({
  name: 'probe',
  routes: [
    { method: 'GET', path: '/probe/conflict', auth: 'public', handler: async () => { throw fail.conflict('already there'); } },
    { method: 'GET', path: '/probe/bad-request', auth: 'public', handler: async () => { throw fail.badRequest('not a mirror'); } },
    { method: 'GET', path: '/probe/crash', auth: 'public', handler: async () => { throw new Error('secret internal detail /etc/passwd'); } },
    { method: 'GET', path: '/probe/forge-error', auth: 'public', handler: async () => { throw new ForgeError('FORBIDDEN', 'nope'); } },
    {
      method: 'GET', path: '/probe/items/:id', auth: 'optional',
      schema: {
        params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
        querystring: { type: 'object', properties: { flag: { type: 'boolean' }, n: { type: 'integer' } } },
        response: { 200: { type: 'object', properties: { id: { type: 'integer' }, flag: { type: 'boolean' }, n: { type: 'integer' }, who: { type: 'string' } } } },
      },
      handler: async (rc) => ({ status: 200, body: { ...rc.params, ...rc.query, who: rc.caller?.login ?? '', secret: 'dropped by the schema' } }),
    },
    { method: 'GET', path: '/probe/items/special', auth: 'public', handler: async () => ({ status: 200, body: { static: true } }) },
    {
      method: 'POST', path: '/probe/echo', auth: 'public', body: 'json',
      schema: {
        body: { type: 'object', properties: { Name: { type: 'string', maxLength: 5 }, count: { type: 'integer' } }, required: ['Name'], additionalProperties: false },
        response: { 200: { type: 'object', properties: { Name: { type: 'string' }, count: { type: 'integer' } } } },
      },
      handler: async (rc) => ({ status: 200, body: rc.body }),
    },
    {
      method: 'GET', path: '/probe/slow', auth: 'public',
      handler: async () => {
        await new Promise<void>((resolve) => {
          slow.release = resolve;
          slow.started = true;
        });
        return { status: 200, type: 'text', body: 'done' };
      },
    },
    { method: 'GET', path: '/probe/admin', auth: 'admin', handler: async () => ({ status: 204 }) },
  ],
});

t.test('kernel over HTTP', async (t) => {
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const user = await f.createUser();

  t.test('GET /version', async (t) => {
    const res = await f.request('GET', '/version');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json; charset=utf-8/);
    t.same(Object.keys(res.json).sort(), ['Version', 'version']);
    t.match(res.json.Version, /^1\.23\.0\+forgekit-\d+\.\d+\.\d+/, 'a Gitea-compatible version, forgekit as build metadata');
    t.equal(res.json.version, res.json.Version);
    t.ok(res.headers.get('x-request-id'));
  });

  t.test('404: unknown path, a JSON body with the one fixed message', async (t) => {
    for (const p of ['/nope', '/version/', '/VERSION', '//version']) {
      const res = await f.request('GET', p);
      t.equal(res.status, 404, p);
      t.match(res.headers.get('content-type'), /^application\/json; charset=utf-8/);
      t.same(res.json, { message: "The target couldn't be found.", url: `${f.url}/api/swagger` }, `${p} has the JSON 404 body`);
    }
    const outside = await f.request('GET', '/not-api', { root: true });
    t.equal(outside.status, 404);
  });

  t.test('405 with Allow', async (t) => {
    const res = await f.request('DELETE', '/version');
    t.equal(res.status, 405);
    t.equal(res.headers.get('allow'), 'GET, HEAD');
    t.same(Object.keys(res.json).sort(), ['message', 'url']);
  });

  t.test('HEAD is served by GET without a body', async (t) => {
    const res = await f.request('HEAD', '/version');
    t.equal(res.status, 200);
    t.equal(res.text, '');
  });

  t.test('400 malformed JSON', async (t) => {
    const res = await f.request('POST', '/probe/echo', { body: '{"Name": ', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400);
    t.match(res.json.message, /malformed JSON/);
    t.equal(res.json.url, `${f.url}/api/swagger`);
  });

  t.test('415 missing or wrong Content-Type', async (t) => {
    const missing = await f.request('POST', '/probe/echo', { body: '{"Name":"a"}' });
    t.equal(missing.status, 415);
    const wrong = await f.request('POST', '/probe/echo', { body: '{"Name":"a"}', headers: { 'Content-Type': 'text/plain' } });
    t.equal(wrong.status, 415);
    t.match(wrong.json.message, /text\/plain/);
  });

  t.test('422 names the field', async (t) => {
    const missing = await f.request('POST', '/probe/echo', { json: {} });
    t.equal(missing.status, 422);
    t.match(missing.json.message, /body\.Name: is required/);
    const long = await f.request('POST', '/probe/echo', { json: { Name: 'toolong' } });
    t.match(long.json.message, /body\.Name: must NOT have more than 5 characters/);
    const type = await f.request('POST', '/probe/echo', { json: { Name: 'a', count: 'x' } });
    t.match(type.json.message, /body\.count: must be integer/);
    const extra = await f.request('POST', '/probe/echo', { json: { Name: 'a', evil: 1 } });
    t.match(extra.json.message, /body\.evil: is not allowed/);
    const param = await f.request('GET', '/probe/items/abc');
    t.equal(param.status, 422);
    t.match(param.json.message, /path\.id/);
    const query = await f.request('GET', '/probe/items/3?n=1x');
    t.equal(query.status, 422);
    t.match(query.json.message, /query\.n/);
  });

  t.test('JSON keys are matched case-insensitively; prototype keys are dropped', async (t) => {
    const res = await f.request('POST', '/probe/echo', { json: { name: 'abc', COUNT: 2 } });
    t.equal(res.status, 200);
    t.same(res.json, { Name: 'abc', count: 2 });
    const proto = await f.request('POST', '/probe/echo', { body: '{"Name":"a","__proto__":{"polluted":true}}', headers: { 'Content-Type': 'application/json' } });
    t.equal(proto.status, 200);
    t.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  t.test('params and query are coerced; responses are serialised from the schema', async (t) => {
    const res = await f.request('GET', '/probe/items/7?flag=true&n=-3');
    t.same(res.json, { id: 7, flag: true, n: -3, who: '' });
    t.notOk('secret' in res.json, 'fields outside the response schema never leave');
    const repeated = await f.request('GET', '/probe/items/7?n=4&flag=false&n=9&extra=a&extra=b');
    t.same(repeated.json, { id: 7, flag: false, n: 4, who: '' }, 'a repeated parameter takes its first value');
    const proto = await f.request('GET', '/probe/items/7?__proto__=polluted&flag=1');
    t.equal(proto.status, 200);
    t.same(proto.json, { id: 7, flag: true, who: '' }, 'a `__proto__` parameter is an ordinary (undeclared) key');
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype is touched');
    const stat = await f.request('GET', '/probe/items/special');
    t.same(stat.json, { static: true }, 'a static route wins over a parameter');
  });

  t.test('413 body over the limit', async (t) => {
    const big = JSON.stringify({ Name: 'a', pad: 'x'.repeat(1024 * 1024 + 10) });
    const res = await f.request('POST', '/probe/echo', { body: big, headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 413);
    t.match(res.json.message, /larger than/);
  });

  t.test('409, 400 and 403 from handlers', async (t) => {
    const conflict = await f.request('GET', '/probe/conflict');
    t.equal(conflict.status, 409);
    t.same(conflict.json, { message: 'already there', url: `${f.url}/api/swagger` });
    t.equal((await f.request('GET', '/probe/bad-request')).status, 400);
    t.equal((await f.request('GET', '/probe/forge-error')).status, 403);
  });

  t.test('500 never leaks internals', async (t) => {
    const res = await f.request('GET', '/probe/crash');
    t.equal(res.status, 500);
    t.same(res.json, { message: 'internal server error', url: `${f.url}/api/swagger` });
    t.notMatch(res.text, /passwd|secret|Error:/);
  });

  t.test('401: a route that needs a user, with WWW-Authenticate', async (t) => {
    const res = await f.request('GET', '/user');
    t.equal(res.status, 401);
    t.match(res.headers.get('www-authenticate'), /^Basic/);
    t.same(Object.keys(res.json).sort(), ['message', 'url']);
  });

  t.test('401: invalid credentials, on every transport, even on optional routes', async (t) => {
    const bad = '0123456789abcdef0123456789abcdef01234567';
    const tries: Array<[string, Record<string, string>]> = [
      ['/user', { Authorization: `token ${bad}` }],
      ['/user', { Authorization: `Bearer ${bad}` }],
      [`/user?token=${bad}`, {}],
      [`/user?access_token=${bad}`, {}],
      ['/user', { Authorization: `Basic ${Buffer.from(`${user.username}:wrong-password`).toString('base64')}` }],
      ['/user', { Authorization: `Basic ${Buffer.from(`x:${bad}`).toString('base64')}` }],
      ['/user', { Authorization: 'Digest abc' }],
      ['/users/root', { Authorization: `token ${bad}` }],
    ];
    for (const [p, headers] of tries) {
      const res = await f.request('GET', p, { headers });
      t.equal(res.status, 401, `${p} ${JSON.stringify(headers)}`);
      t.ok(res.json?.message, 'with a message');
    }
  });

  t.test('a token works through all four transports and Basic', async (t) => {
    const expectMe = (res: { status: number; json: any }, how: string) => {
      t.equal(res.status, 200, how);
      t.equal(res.json.login, user.username, how);
    };
    expectMe(await f.request('GET', '/user', { headers: { Authorization: `token ${user.token}` } }), 'token header');
    expectMe(await f.request('GET', '/user', { headers: { Authorization: `Bearer ${user.token}` } }), 'bearer');
    expectMe(await f.request('GET', `/user?token=${user.token}`), 'query token');
    expectMe(await f.request('GET', `/user?access_token=${user.token}`), 'query access_token');
    expectMe(await f.request('GET', '/user', { basic: [user.username, user.token] }), 'basic with token as password');
    expectMe(await f.request('GET', '/user', { basic: [user.token, ''] }), 'basic with token as user name');
    expectMe(await f.request('GET', '/user', { basic: [user.username, user.password] }), 'basic with password');
    expectMe(await f.request('GET', '/user', { basic: [user.email, user.password] }), 'basic with email + password');
  });

  t.test('public routes ignore credentials; admin routes need an admin', async (t) => {
    t.equal((await f.request('GET', '/version', { token: 'garbage' })).status, 200);
    t.equal((await f.request('GET', '/probe/admin')).status, 401);
    t.equal((await f.request('GET', '/probe/admin', { token: user.token })).status, 403);
    t.equal((await f.request('GET', '/probe/admin', { token: f.admin.token })).status, 204);
  });

  t.test('the API description the error url points at is served', async (t) => {
    const res = await f.request('GET', '/swagger.v1.json', { root: true });
    t.equal(res.status, 200);
    t.equal(res.json.swagger, '2.0');
  });
});

t.test('graceful shutdown finishes in-flight requests', async (t) => {
  const f = await startForge({ extraPlugins: [probe] });
  const inflight = f.request('GET', '/probe/slow');
  await waitFor('the slow request to reach its handler', () => slow.started);
  const closing = f.close(); // stops accepting at once (synchronously), then waits for the request in flight
  slow.release();
  const res = await inflight;
  t.equal(res.status, 200);
  t.equal(res.text, 'done');
  await closing;
  await t.rejects(fetch(`${f.api}/version`), 'no longer accepting');
});

t.test('a disabled plugin answers 404 like any unknown path', async (t) => {
  const f = await startForge({ extraPlugins: [probe], disabledPlugins: ['version'] });
  t.teardown(() => f.close());
  const res = await f.request('GET', '/version');
  t.equal(res.status, 404);
  t.match(res.json, { message: "The target couldn't be found.", url: String });
});

t.test('a broken dependency stops the boot with a clear message', async (t) => {
  await t.rejects(startForge({ disabledPlugins: ['users'] }), { message: /plugin "(admin|tokens)" needs plugin "users", which is disabled/ });
  const needy = definePlugin({ name: 'needy', dependencies: ['ghost'] });
  await t.rejects(startForge({ extraPlugins: [needy] }), { message: /plugin "needy" needs plugin "ghost", which does not exist/ });
  const clash = definePlugin({ name: 'clash', routes: [{ method: 'GET', path: '/version', auth: 'public', handler: async () => ({ status: 200 }) }] });
  await t.rejects(startForge({ extraPlugins: [clash] }), { message: /duplicate route GET \/api\/v1\/version: declared by plugin "version" and plugin "clash"/ });
});
