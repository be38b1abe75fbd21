// Replies of one event-loop turn are written together at its end: unit behaviour, then through a real server.
import t from 'tap';
import http from 'node:http';
import { createReplyBatch } from '../../core/http/reply-batch.js';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('writes wait for the end of the turn, in the order they were held', async (t) => {
  const done: number[] = [];
  const batch = createReplyBatch(64, (err) => t.fail(String(err)));
  batch.hold(() => done.push(1));
  batch.hold(() => done.push(2));
  await Promise.resolve();
  t.same(done, [], 'not within the turn (microtasks included)');
  t.equal(batch.size, 2);
  await nextTurn();
  t.same(done, [1, 2], 'written at its end, in order');
  t.equal(batch.size, 0);
});

t.test('the write that fills the batch writes it in place', async (t) => {
  const done: number[] = [];
  const batch = createReplyBatch(3, (err) => t.fail(String(err)));
  batch.hold(() => done.push(1));
  batch.hold(() => done.push(2));
  t.same(done, []);
  batch.hold(() => done.push(3));
  t.same(done, [1, 2, 3], 'the third of three released all of them at once');
  batch.hold(() => done.push(4));
  await nextTurn();
  t.same(done, [1, 2, 3, 4], 'later ones still wait for the turn');
});

t.test('a failing write is reported and does not keep the others back; release() writes now', async (t) => {
  const errors: unknown[] = [];
  const done: string[] = [];
  const batch = createReplyBatch(64, (err) => errors.push(err));
  batch.hold(() => done.push('a'));
  batch.hold(() => {
    throw new Error('boom');
  });
  batch.hold(() => done.push('c'));
  batch.release();
  t.same(done, ['a', 'c']);
  t.equal(errors.length, 1);
  t.match(String(errors[0]), /boom/);
});

const slowly = definePlugin({
  name: 'slowly',
  routes: [
    {
      method: 'GET', path: '/batch/:n', auth: 'public',
      schema: { params: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } },
      handler: async (rc) => ({ status: 200, body: { n: (rc.params as { n: number }).n } }),
    },
    { method: 'GET', path: '/batch-none', auth: 'public', handler: async () => ({ status: 204 }) },
    { method: 'GET', path: '/batch-fail', auth: 'public', handler: async () => { throw new Error('handler bug'); } },
  ],
});

function get(url: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject);
  });
}

t.test('through a real server: many concurrent requests each get their own reply, errors and empty replies too', async (t) => {
  const f = await startForge({ extraPlugins: [slowly] });
  t.teardown(() => f.close());
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  t.teardown(() => agent.destroy());
  const results = await Promise.all(Array.from({ length: 300 }, (_, i) => get(`${f.url}/api/v1/batch/${i}`, agent)));
  t.ok(results.every((r, i) => r.status === 200 && JSON.parse(r.body).n === i), '300 replies, each its own');
  const mixed = await Promise.all([get(`${f.url}/api/v1/batch-none`, agent), get(`${f.url}/api/v1/batch-fail`, agent), get(`${f.url}/api/v1/batch/7`, agent)]);
  t.same(mixed.map((r) => r.status), [204, 500, 200]);
  t.equal(mixed[0]!.body, '');
  t.match(JSON.parse(mixed[1]!.body), { message: 'internal server error' });
});

t.test('pipelined requests on one connection are answered in order', async (t) => {
  const f = await startForge({ extraPlugins: [slowly] });
  t.teardown(() => f.close());
  const { port } = new URL(f.url);
  const net = await import('node:net');
  const socket = net.connect(Number(port), '127.0.0.1');
  const raw = await new Promise<string>((resolve, reject) => {
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => {
      data += c;
      if ((data.match(/HTTP\/1\.1 /g) ?? []).length === 5 && data.endsWith('}')) resolve(data);
    });
    socket.on('error', reject);
    let reqs = '';
    for (let i = 0; i < 5; i++) reqs += `GET /api/v1/batch/${i} HTTP/1.1\r\nHost: x\r\n\r\n`;
    socket.write(reqs);
  });
  socket.destroy();
  const bodies = [...raw.matchAll(/\{"n":(\d+)\}/g)].map((m) => Number(m[1]));
  t.same(bodies, [0, 1, 2, 3, 4]);
});
