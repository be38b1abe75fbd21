// /settings/* (instance settings from the configuration and the enabled capabilities), CORS (off by default;
// preflights answered for listed origins), and JSON sent as text/plain on routes that opt in.
import t from 'tap';
import { startForge } from '../helpers/forge.js';

t.test('instance settings', async (t) => {
  const f = await startForge({ config: { pagination: { defaultLimit: 20, maxLimit: 40 }, plugins: { contents: { treePageSize: 321, maxBlobBytes: 4096 } } } });
  t.teardown(() => f.close());
  const api = await f.request('GET', '/settings/api');
  t.equal(api.status, 200);
  t.same(api.json, { default_git_trees_per_page: 321, default_max_blob_size: 4096, default_paging_num: 20, max_response_items: 40 });
  t.same((await f.request('GET', '/settings/repository')).json, {
    http_git_disabled: false, lfs_disabled: true, migrations_disabled: false, mirrors_disabled: false, stars_disabled: false, time_tracking_disabled: true,
  });
  t.same((await f.request('GET', '/settings/attachment')).json, { enabled: false, allowed_types: '', max_size: 0, max_files: 0 });
  t.same((await f.request('GET', '/settings/ui')).json, {
    default_theme: 'gitea-auto', allowed_reactions: ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'], custom_emojis: [],
  });
});

t.test('instance settings follow the enabled capabilities', async (t) => {
  const f = await startForge({ disabledPlugins: ['stars', 'issues', 'pulls'], config: { plugins: { settings: { defaultTheme: 'gitea-dark' } } } });
  t.teardown(() => f.close());
  t.equal((await f.request('GET', '/settings/repository')).json.stars_disabled, true);
  t.same((await f.request('GET', '/settings/ui')).json, { default_theme: 'gitea-dark', allowed_reactions: [], custom_emojis: [] });
  t.same((await f.request('GET', '/settings/api')).json.default_paging_num, 30);
});

t.test('CORS is off by default', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const pre = await f.request('OPTIONS', '/version', { headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
  t.equal(pre.status, 405, 'no preflight answer');
  t.equal(pre.headers.get('access-control-allow-origin'), null);
  const get = await f.request('GET', '/version', { headers: { Origin: 'https://app.example' } });
  t.equal(get.headers.get('access-control-allow-origin'), null);
});

t.test('CORS with listed origins', async (t) => {
  const f = await startForge({
    config: { plugins: { cors: { allowedOrigins: ['https://app.example', 'https://*.tools.example'], allowedHeaders: ['Content-Type'], maxAgeSeconds: 300, allowCredentials: true } } },
  });
  t.teardown(() => f.close());
  const preflight = (origin: string, method: string, headers?: string) => f.request('OPTIONS', '/repos/search', {
    headers: { Origin: origin, 'Access-Control-Request-Method': method, ...(headers ? { 'Access-Control-Request-Headers': headers } : {}) },
  });
  const ok = await preflight('https://app.example', 'PATCH', 'authorization, content-type');
  t.equal(ok.status, 204);
  t.equal(ok.headers.get('access-control-allow-origin'), 'https://app.example');
  t.equal(ok.headers.get('access-control-allow-methods'), 'PATCH');
  t.equal(ok.headers.get('access-control-allow-headers'), 'authorization, content-type');
  t.equal(ok.headers.get('access-control-allow-credentials'), 'true');
  t.equal(ok.headers.get('access-control-max-age'), '300');
  t.match(ok.headers.get('vary'), /Origin/);
  const wild = await preflight('https://ci.tools.example', 'GET');
  t.equal(wild.headers.get('access-control-allow-origin'), 'https://ci.tools.example', 'one-star wildcard');
  const stranger = await preflight('https://evil.example', 'GET');
  t.equal(stranger.status, 204, 'answered, but without permission');
  t.equal(stranger.headers.get('access-control-allow-origin'), null);
  t.equal((await preflight('https://app.example', 'TRACE')).headers.get('access-control-allow-origin'), null, 'method not allowed');
  t.equal((await preflight('https://app.example', 'GET', 'x-secret')).headers.get('access-control-allow-origin'), null, 'header not allowed');
  const actual = await f.request('GET', '/repos/search', { headers: { Origin: 'https://app.example' } });
  t.equal(actual.status, 200);
  t.equal(actual.headers.get('access-control-allow-origin'), 'https://app.example');
  t.equal(actual.headers.get('access-control-expose-headers'), 'Link, X-Total-Count');
  const errorReply = await f.request('GET', '/repos/nobody/nothing', { headers: { Origin: 'https://app.example' } });
  t.equal(errorReply.status, 404);
  t.equal(errorReply.headers.get('access-control-allow-origin'), 'https://app.example', 'error replies carry it too');
  t.equal((await f.request('GET', '/repos/search', { headers: { Origin: 'https://evil.example' } })).headers.get('access-control-allow-origin'), null);
  const plainOptions = await f.request('OPTIONS', '/repos/search');
  t.equal(plainOptions.status, 405, 'an OPTIONS that is no preflight is routed as usual');
  const root = await f.request('OPTIONS', '/avatars/1', { root: true, headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
  t.not(root.status, 204, 'only the API is shared');
});

t.test('any origin without credentials answers *', async (t) => {
  const f = await startForge({ config: { plugins: { cors: { allowedOrigins: ['*'] } } } });
  t.teardown(() => f.close());
  const res = await f.request('OPTIONS', '/version', { headers: { Origin: 'https://x.example', 'Access-Control-Request-Method': 'GET' } });
  t.equal(res.headers.get('access-control-allow-origin'), '*');
  t.equal(res.headers.get('access-control-allow-credentials'), null);
});

t.test('a bad CORS setting stops the boot', async (t) => {
  await t.rejects(startForge({ config: { plugins: { cors: { maxAgeSeconds: -1 } } } }), /plugins\.cors\.maxAgeSeconds/);
});

t.test('text/plain JSON bodies, per route', async (t) => {
  const extra = {
    name: 'plain-json-probe',
    routes: [
      {
        method: 'POST' as const, path: '/probe/plain', auth: 'public' as const, body: 'json' as const, textPlainJson: true, scope: 'misc' as const,
        schema: { body: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
        handler: async (rc: any) => ({ status: 200, body: { n: rc.body.n }, type: 'json' as const }),
      },
      {
        method: 'POST' as const, path: '/probe/strict', auth: 'public' as const, body: 'json' as const, scope: 'misc' as const,
        handler: async () => ({ status: 204 }),
      },
    ],
  };
  const f = await startForge({ extraPlugins: [extra] });
  t.teardown(() => f.close());
  const plain = await f.request('POST', '/probe/plain', { body: '{"n":3}', headers: { 'Content-Type': 'text/plain;charset=UTF-8' } });
  t.equal(plain.status, 200);
  t.equal(plain.text, '{"n":3}');
  t.equal((await f.request('POST', '/probe/plain', { body: '{"n":3}' })).status, 200, 'no Content-Type at all');
  t.equal((await f.request('POST', '/probe/plain', { body: '{"n":', headers: { 'Content-Type': 'text/plain' } })).status, 400, 'still parsed');
  t.equal((await f.request('POST', '/probe/plain', { body: '{"n":"x"}', headers: { 'Content-Type': 'text/plain' } })).status, 422, 'still validated');
  t.equal((await f.request('POST', '/probe/plain', { body: '{"n":3}', headers: { 'Content-Type': 'text/html' } })).status, 415, 'other types are still refused');
  t.equal((await f.request('POST', '/probe/strict', { body: '{}', headers: { 'Content-Type': 'text/plain' } })).status, 415, 'off unless the route opts in');
});
