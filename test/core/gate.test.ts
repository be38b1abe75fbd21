// Route concurrency limits (core/http/gate.ts): the gate itself, then a gated route through a real server — the
// limit holds, waiting requests go in arrival order with their bodies already read, a body still arriving holds no
// place, and errors give the place back.
import t from 'tap';
import net from 'node:net';
import { createGate } from '../../core/http/gate.js';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';
import { waitFor } from '../helpers/wait.js';

t.test('a gate lets `limit` callers in and the rest in arrival order', async (t) => {
  t.throws(() => createGate(0), RangeError);
  t.throws(() => createGate(1.5), RangeError);
  const gate = createGate(2);
  t.equal(gate.enter(), undefined, 'a free place is taken at once');
  t.equal(gate.enter(), undefined);
  const order: number[] = [];
  const waits = [1, 2, 3].map((n) => gate.enter()!.then(() => order.push(n)));
  t.equal(gate.active, 2);
  t.equal(gate.waiting, 3);
  gate.leave();
  await waits[0];
  t.same(order, [1], 'the first waiting caller takes the freed place');
  t.equal(gate.active, 2, 'the place passed on, it was not freed');
  gate.leave();
  gate.leave();
  await Promise.all(waits);
  t.same(order, [1, 2, 3]);
  t.equal(gate.waiting, 0);
  gate.leave();
  gate.leave();
  t.equal(gate.active, 0);
  t.throws(() => gate.leave(), /more often than entered/);
});

t.test('a long queue is served in order (its storage is compacted on the way)', async (t) => {
  const gate = createGate(1);
  gate.enter();
  const order: number[] = [];
  const waits = Array.from({ length: 5000 }, (_, n) => gate.enter()!.then(() => order.push(n)));
  for (let i = 0; i < 5000; i++) gate.leave();
  await Promise.all(waits);
  t.ok(order.every((n, i) => n === i), '5000 callers, first come first served');
  t.equal(gate.active, 1);
  t.equal(gate.waiting, 0);
});

// A route with room for one request at a time: each request holds its place until it is released by the test.
function gatedPlugin() {
  const started: string[] = [];
  const releases: Array<() => void> = [];
  let inside = 0;
  let most = 0;
  const plugin = definePlugin({
    name: 'gated',
    routes: [
      {
        method: 'POST', path: '/gated', auth: 'public', body: 'json', concurrency: () => 1,
        schema: { body: { type: 'object', properties: { n: { type: 'string' } }, required: ['n'] } },
        handler: async (rc) => {
          const n = (rc.body as { n: string }).n;
          started.push(n);
          most = Math.max(most, ++inside);
          try {
            if (n === 'boom') throw new Error('handler failure');
            await new Promise<void>((resolve) => releases.push(resolve));
            return { status: 200, type: 'text', body: n };
          } finally {
            inside--;
          }
        },
      },
      { method: 'POST', path: '/free', auth: 'public', body: 'text', handler: async (rc) => ({ status: 200, type: 'text', body: String(rc.body) }) },
    ],
  });
  return { plugin, started, releases, most: () => most };
}

/** Waits for a condition; a condition that never comes fails the test naming it. */
const until = (check: () => boolean, what = 'the gated requests to get there') => waitFor(what, check);

t.test('through a real server', async (t) => {
  const g = gatedPlugin();
  const f = await startForge({ extraPlugins: [g.plugin] });
  t.teardown(() => f.close());
  const post = (n: string) => f.request('POST', '/gated', { json: { n } });
  const gate = f.forge.routes().find((r) => r.path === '/api/v1/gated')!.gate!;
  t.equal(gate.limit, 1, 'the route list shows the gate');

  const a = post('a');
  await until(() => g.started.length === 1);
  const b = post('b');
  await until(() => gate.waiting === 1, 'b to wait at the gate');
  const c = post('c');
  // b and c have been read and wait at the gate: they must not reach the handler while a holds the place.
  await until(() => gate.waiting === 2, 'c to wait at the gate');
  t.same(g.started, ['a'], 'one at a time: b and c wait');
  t.equal(gate.active, 1);
  t.equal((await f.request('POST', '/free', { body: 'x' })).text, 'x', 'other routes are not held up');
  g.releases.shift()!();
  t.equal((await a).text, 'a');
  await until(() => g.started.length === 2);
  t.same(g.started, ['a', 'b'], 'b goes next: arrival order');
  g.releases.shift()!();
  t.equal((await b).text, 'b');
  await until(() => g.started.length === 3);
  g.releases.shift()!();
  t.equal((await c).text, 'c');
  t.equal(g.most(), 1, 'never more than one inside');

  // A body still arriving holds no place: a request sends half its body and stalls; another passes meanwhile.
  const { port } = new URL(f.url);
  const slow = net.connect(Number(port), '127.0.0.1');
  await new Promise((r) => slow.once('connect', r));
  const whole = JSON.stringify({ n: 'slow' });
  slow.write(`POST /api/v1/gated HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${whole.length}\r\n\r\n${whole.slice(0, 5)}`);
  const d = post('d');
  await until(() => g.started.length === 4);
  t.equal(g.started[3], 'd', 'd is handled while the slow body is still arriving');
  g.releases.shift()!();
  t.equal((await d).text, 'd');
  let answer = '';
  slow.on('data', (chunk) => (answer += chunk.toString()));
  slow.write(whole.slice(5));
  await until(() => g.started.length === 5);
  g.releases.shift()!();
  await until(() => answer.endsWith('slow'));
  t.match(answer, /^HTTP\/1\.1 200/, 'the slow request is handled once its body is complete');
  slow.destroy();

  // Errors give the place back: a failing handler, and bad input refused after waiting its turn.
  const failing = await post('boom');
  t.equal(failing.status, 500);
  const bad = await f.request('POST', '/gated', { json: { n: 1 } });
  t.equal(bad.status, 422, 'a body that fails validation is a 422');
  const malformed = await f.request('POST', '/gated', { body: '{"n":', headers: { 'Content-Type': 'application/json' } });
  t.equal(malformed.status, 400);
  const e = post('e');
  await until(() => g.started.length === 7);
  t.same(g.started.slice(-2), ['boom', 'e'], 'the place was given back each time');
  g.releases.shift()!();
  t.equal((await e).text, 'e');
});
