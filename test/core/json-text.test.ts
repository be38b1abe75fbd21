// json-text replies: JSON a plugin assembled from pieces serialised with ctx.serializer goes out as it is.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

let serializeUser: ((value: unknown) => string) | undefined;

const pieces = definePlugin({
  name: 'pieces',
  dependencies: ['users'],
  start(ctx) {
    serializeUser = ctx.serializer({ $ref: 'forgekit/User' });
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
  ],
});

t.test('string and Buffer bodies, with the JSON content type and an exact length', async (t) => {
  const f = await startForge({ extraPlugins: [pieces] });
  t.teardown(() => f.close());
  const text = await f.request('GET', '/pieces/string');
  t.equal(text.status, 200);
  t.equal(text.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same(text.json, [{ id: 1, login: 'ü', full_name: 'A "B"', email: '', avatar_url: 'x', username: 'ü' }], 'serialised by the shared User schema: unknown fields dropped');
  t.equal(Number(text.headers.get('content-length')), Buffer.byteLength(text.text), 'Content-Length counts bytes');
  const bytes = await f.request('GET', '/pieces/bytes');
  t.same(bytes.json, { ok: true, data: ['ünïcødé ✓'] });
  t.equal(bytes.headers.get('x-total-count'), '1', 'headers as given');
  t.ok(bytes.headers.get('x-request-id'), 'the request id is set');
  t.equal(Number(bytes.headers.get('content-length')), Buffer.byteLength(bytes.text));
});
