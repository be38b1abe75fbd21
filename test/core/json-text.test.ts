// Reply writing: json-text replies (JSON a plugin assembled from pieces serialised with ctx.serializer goes out as
// it is) and the header block every reply gets.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

let serializeUser: ((value: unknown) => string) | undefined;

const pieces = definePlugin({
  name: 'pieces',
  dependencies: ['users'],
  start(ctx) {
    // A User-like schema of its own: this test is about writing json-text replies, not about the shared User shape.
    serializeUser = ctx.serializer({
      type: 'object',
      properties: Object.fromEntries(['login', 'full_name', 'email', 'avatar_url', 'username'].map((k) => [k, { type: 'string' }])
        .concat([['id', { type: 'integer' }]])),
    });
  },
  routes: [
    {
      method: 'GET', path: '/pieces/string', auth: 'public',
      handler: async () => ({ status: 200, type: 'json-text', body: `[${serializeUser!({ id: 1, login: 'ü', full_name: 'A "B"', email: '', avatar_url: 'x', username: 'ü', extra: 'dropped' })}]` }),
    },
    {
      method: 'GET', path: '/pieces/bytes', auth: 'public',
      handler: async () => ({ status: 200, type: 'json-text', body: Buffer.from('{"ok":true,"data":["ünïcødé ✓"]}'), headers: { 'X-Total-Count': '1' } }),
    },
    {
      method: 'GET', path: '/pieces/text-typed', auth: 'public',
      handler: async () => ({ status: 200, type: 'text', body: 'ssh-ed25519 AAAA\n', headers: { 'content-type': 'text/x-custom; charset=utf-8', Vary: ['Accept', 'Origin'] } }),
    },
    {
      method: 'GET', path: '/pieces/json-typed', auth: 'public',
      schema: { response: { 200: { type: 'object', properties: { a: { type: 'integer' } } } } },
      handler: async () => ({ status: 200, body: { a: 1 }, headers: { 'Content-Type': 'text/plain' } }),
    },
    { method: 'GET', path: '/pieces/empty', auth: 'public', handler: async () => ({ status: 204, headers: { 'X-Extra': 'yes' } }) },
  ],
});

t.test('the header block: a text type the handler chose, JSON always JSON, repeated values, empty replies', async (t) => {
  const f = await startForge({ extraPlugins: [pieces] });
  t.teardown(() => f.close());
  const raw = async (path: string) => {
    const res = await fetch(`${f.api}${path}`);
    return { res, body: await res.text() };
  };
  const typed = await raw('/pieces/text-typed');
  t.equal(typed.res.headers.get('content-type'), 'text/x-custom; charset=utf-8', 'the handler\'s type, once');
  t.equal(typed.res.headers.get('vary'), 'Accept, Origin', 'a header with several values');
  t.equal(typed.body, 'ssh-ed25519 AAAA\n');
  const json = await raw('/pieces/json-typed');
  t.equal(json.res.headers.get('content-type'), 'application/json; charset=utf-8', 'JSON replies are always JSON, never two types');
  t.same(JSON.parse(json.body), { a: 1 });
  const empty = await raw('/pieces/empty');
  t.equal(empty.res.status, 204);
  t.equal(empty.res.headers.get('x-extra'), 'yes');
  t.ok(empty.res.headers.get('x-request-id'));
  t.equal(empty.body, '');
});

t.test('string and Buffer bodies, with the JSON content type and an exact length', async (t) => {
  const f = await startForge({ extraPlugins: [pieces] });
  t.teardown(() => f.close());
  const text = await f.request('GET', '/pieces/string');
  t.equal(text.status, 200);
  t.equal(text.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same(text.json, [{ id: 1, login: 'ü', full_name: 'A "B"', email: '', avatar_url: 'x', username: 'ü' }], 'serialised by its schema: unknown fields dropped');
  t.equal(Number(text.headers.get('content-length')), Buffer.byteLength(text.text), 'Content-Length counts bytes');
  const bytes = await f.request('GET', '/pieces/bytes');
  t.same(bytes.json, { ok: true, data: ['ünïcødé ✓'] });
  t.equal(bytes.headers.get('x-total-count'), '1', 'headers as given');
  t.ok(bytes.headers.get('x-request-id'), 'the request id is set');
  t.equal(Number(bytes.headers.get('content-length')), Buffer.byteLength(bytes.text));
});
