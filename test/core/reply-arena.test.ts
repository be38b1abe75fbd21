// Replies in pieces are copied into reused slabs (core/http/reply-arena.ts): the arena's bookkeeping as units, a
// random interleaving of takes and releases that must never hand out bytes still in use, then through a real server
// with a reader that stops reading while other replies reuse the memory.
import t from 'tap';
import net from 'node:net';
import http from 'node:http';
import { ReplyArena } from '../../core/http/reply-arena.js';
import { createReplyBatch } from '../../core/http/reply-batch.js';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

t.test('assemble copies the pieces in order into a region of a slab', async (t) => {
  const arena = new ReplyArena({ slabBytes: 1024, maxRegion: 256 });
  const region = arena.assemble([Buffer.from('['), Buffer.from('"é",'), Buffer.from('1'), Buffer.from(']')]);
  t.equal(region.toString(), '["é",1]');
  t.equal(region.buffer.byteLength, 1024, 'a view of the slab');
  t.equal(arena.stats.slabsMade, 1);
  t.equal(arena.stats.pendingInCurrent, 1);
  t.equal(arena.assemble([]).length, 0, 'no pieces: an empty region');
});

t.test('regions in use never overlap; a slab whose replies are all written starts again at its front', async (t) => {
  const arena = new ReplyArena({ slabBytes: 1024, maxRegion: 256 });
  const a = arena.assemble([bytes(100, 1)]);
  const b = arena.assemble([bytes(100, 2)]);
  t.equal(a.buffer, b.buffer, 'one slab');
  t.ok(b.byteOffset >= a.byteOffset + 100, 'the second after the first');
  t.ok(a.every((x) => x === 1) && b.every((x) => x === 2), 'neither wrote over the other');
  arena.release(a);
  const c = arena.assemble([bytes(50, 3)]);
  t.ok(c.byteOffset >= b.byteOffset + 100, 'b is still in use: no rewind');
  arena.release(b);
  arena.release(c);
  t.equal(arena.stats.pendingInCurrent, 0);
  const d = arena.assemble([bytes(10, 4)]);
  t.equal(d.byteOffset, a.byteOffset, 'everything written: the front again');
  t.equal(arena.stats.slabsMade, 1);
});

t.test('a full slab with replies in flight is set aside, and reused once they are written', async (t) => {
  const arena = new ReplyArena({ slabBytes: 1024, maxRegion: 512 });
  const first = [arena.assemble([bytes(500, 1)]), arena.assemble([bytes(500, 2)])];
  const third = arena.assemble([bytes(500, 3)]);
  t.not(third.buffer, first[0]!.buffer, 'no room: another slab');
  t.equal(arena.stats.slabsMade, 2);
  for (const r of first) arena.release(r);
  const fourth = arena.assemble([bytes(500, 4)]);
  t.equal(fourth.buffer, third.buffer, 'the current slab still has room');
  const fifth = arena.assemble([bytes(500, 5)]);
  t.equal(fifth.buffer, first[0]!.buffer, 'the set-aside slab, free again, is taken instead of a new one');
  t.equal(arena.stats.slabsMade, 2);
  t.ok(third.every((x) => x === 3) && fourth.every((x) => x === 4), 'the replies in flight are intact');
});

t.test('a reply longer than maxRegion gets a buffer of its own; releasing it changes nothing', async (t) => {
  const arena = new ReplyArena({ slabBytes: 1024, maxRegion: 256 });
  const big = arena.assemble([bytes(200, 1), bytes(200, 2)]);
  t.equal(big.length, 400);
  t.equal(big.buffer.byteLength, 400, 'its own memory');
  t.equal(arena.stats.slabsMade, 0);
  arena.release(big);
  t.equal(big[0], 1);
  t.equal(big[399], 2);
});

t.test('a reply never released (its connection died) costs its slab, not the arena', async (t) => {
  const arena = new ReplyArena({ slabBytes: 1024, maxRegion: 512 });
  const lost = arena.assemble([bytes(500, 9)]);
  for (let i = 0; i < 20; i++) arena.release(arena.assemble([bytes(300, i)]));
  t.equal(arena.stats.slabsMade, 2, 'one slab left behind with the lost reply, one in use from then on');
  t.ok(lost.every((x) => x === 9), 'the lost reply\'s bytes were never reused');
});

t.test('random takes and releases: no region is written over while in use', async (t) => {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const arena = new ReplyArena({ slabBytes: 8192, maxRegion: 3000, keepFree: 8 });
  const live: Array<{ region: Buffer; fill: number }> = [];
  let checked = 0;
  for (let step = 0; step < 20_000; step++) {
    if (live.length >= 40 || (live.length > 0 && random() < 0.5)) {
      const [gone] = live.splice(Math.floor(random() * live.length), 1);
      if (!gone!.region.every((x) => x === gone!.fill)) {
        t.fail(`region written over while in use (step ${step})`);
        return;
      }
      checked++;
      arena.release(gone!.region);
    } else {
      const fill = step % 251;
      const n = Math.floor(random() * 3500); // some beyond maxRegion
      const parts = n > 10 ? [bytes(n >> 1, fill), bytes(n - (n >> 1), fill)] : [bytes(n, fill)];
      const region = arena.assemble(parts);
      if (region.length !== n) {
        t.fail(`a region of ${region.length} bytes for ${n}`);
        return;
      }
      live.push({ region, fill });
    }
  }
  t.ok(checked > 9000, `${checked} regions checked at release`);
  t.ok(arena.stats.slabsMade < 100, `slabs are reused (${arena.stats.slabsMade} made)`);
});

// Through HTTP: a list reply in pieces; one client stops reading in the middle of many large replies while another
// client's replies go through the same arena. Every body must arrive exactly as it was made.
const piecesPlugin = definePlugin({
  name: 'arena-pieces',
  routes: [{
    method: 'GET', path: '/arena/:n/:kb', auth: 'public',
    schema: { params: { type: 'object', properties: { n: { type: 'integer' }, kb: { type: 'integer', minimum: 1, maximum: 2000 } }, required: ['n', 'kb'] } },
    handler: async (rc) => {
      const { n, kb } = rc.params as { n: number; kb: number };
      const item = Buffer.from(`,"${String(n).padStart(6, '0')}${'x'.repeat(1013)}"`); // 1,024 bytes
      const pieces = [Buffer.from('["start"')];
      for (let i = 0; i < kb; i++) pieces.push(item);
      pieces.push(Buffer.from(']'));
      return { status: 200, type: 'json-text', body: pieces };
    },
  }],
});

function expectBody(body: string, n: number, kb: number): boolean {
  const list = JSON.parse(body) as string[];
  const tag = String(n).padStart(6, '0');
  return list.length === kb + 1 && list[0] === 'start' && list.slice(1).every((s) => s.length === 1019 && s.startsWith(tag));
}

t.test('through a real server: a stalled reader\'s replies stay intact while others reuse the arena', async (t) => {
  const f = await startForge({ extraPlugins: [piecesPlugin] });
  t.teardown(() => f.close());
  const { port } = new URL(f.url);
  const HEAVY = 16;
  const KB = 900; // under the default maxRegion (1 MiB): every reply is a region
  const socket = net.connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c) => chunks.push(c));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let reqs = '';
  for (let i = 0; i < HEAVY; i++) reqs += `GET /api/v1/arena/${i}/${KB} HTTP/1.1\r\nHost: x\r\n\r\n`;
  socket.write(reqs);
  await new Promise((r) => setTimeout(r, 50));
  socket.pause(); // ~14 MB of replies cannot all fit in the socket buffers: the server's writes wait for this reader
  await new Promise((r) => setTimeout(r, 200));

  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  t.teardown(() => agent.destroy());
  const get = (n: number, kb: number, pooled: http.Agent | false = agent): Promise<boolean> => new Promise<boolean>((resolve, reject) => {
    const req = http.get(`${f.api}/arena/${n}/${kb}`, { agent: pooled }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve(res.statusCode === 200 && expectBody(Buffer.concat(parts).toString(), n, kb)));
    });
    req.on('error', reject);
  });
  const others = await Promise.all(Array.from({ length: 120 }, (_, i) => get(1000 + i, 50 + (i % 7) * 40)));
  t.ok(others.every(Boolean), '120 replies to other clients, each exactly its own');

  socket.resume();
  const raw = await new Promise<string>((resolve) => {
    const done = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === HEAVY && text.endsWith(']')) resolve(text);
      else socket.once('data', done);
    };
    done();
  });
  socket.destroy();
  const bodies = Buffer.from(raw, 'latin1').toString('utf8').split(/HTTP\/1\.1 200 OK\r\n[\s\S]*?\r\n\r\n/).slice(1);
  t.equal(bodies.length, HEAVY);
  t.ok(bodies.every((b, i) => expectBody(b, i, KB)), 'the stalled reader\'s 16 replies arrived intact, in order');

  // On a connection of its own: the pool's sockets sat idle while the stalled reader was served, past the server's
  // keep-alive timeout on a slow host (each reused one was then reset as a request went out: ECONNRESET).
  const big = await get(7, 1500, false);
  t.ok(big, 'a reply beyond maxRegion (its own buffer) too');
});

// The batch and a bare node:http server, with an arena the test can watch: regions come back when a connection is
// lost in the middle of a write, and a response whose connection is already gone costs no region at all.
t.test('a region comes back when its connection is lost mid-write; a gone connection takes none', async (t) => {
  const arena = new ReplyArena({ slabBytes: 16 * 1024 * 1024, maxRegion: 16 * 1024 * 1024 });
  const batch = createReplyBatch(64, (err) => t.fail(String(err)), arena);
  const piece = Buffer.alloc(1024 * 1024, 0x61);
  const MB = 12; // more than the socket buffers take: the write waits for a reader that never reads
  let closedFirst: Promise<void> | undefined;
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': MB * piece.length });
    if (req.url === '/gone') {
      // The client is gone before the reply is written.
      closedFirst = new Promise((resolve) => res.once('close', () => resolve()));
      req.socket.destroy();
      void closedFirst.then(() => batch.hold(res, 'gone', Array.from({ length: MB }, () => piece)));
      return;
    }
    batch.hold(res, 'stalled', Array.from({ length: MB }, () => piece));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;

  const socket = net.connect(port, '127.0.0.1');
  let received = 0;
  socket.on('data', (c) => {
    received += c.length;
    socket.pause(); // one chunk, then nothing more
  });
  socket.write('GET /stalled HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((r) => setTimeout(r, 300));
  t.ok(received > 0 && received < MB * piece.length, 'the reply is being written, not done');
  t.equal(arena.stats.pendingInCurrent, 1, 'its region is in use');
  socket.destroy();
  await new Promise((r) => setTimeout(r, 300));
  t.equal(arena.stats.pendingInCurrent, 0, 'the lost connection gave it back');

  const gone = net.connect(port, '127.0.0.1');
  gone.on('error', () => {});
  gone.write('GET /gone HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((r) => setTimeout(r, 300));
  t.ok(closedFirst, 'the request arrived');
  await closedFirst;
  await new Promise((r) => setImmediate(r));
  t.equal(arena.stats.pendingInCurrent, 0, 'nothing was taken for a connection already gone');
  t.equal(arena.stats.slabsMade, 1, 'one slab for both');
});
