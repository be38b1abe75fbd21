// Server limits seen from a client: a refused body's 413 reaches a fetch() client that is still sending, markup
// replies forbid scripts (CSP sandbox), the node:http timeouts and connection cap come from config.server.
import net from 'node:net';
import t from 'tap';
import { startForge } from '../helpers/forge.js';

t.test('markup replies carry a Content-Security-Policy sandbox; JSON replies nosniff', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  for (const [path, init] of [
    ['/markdown', { json: { Text: '# hi <script>alert(1)</script>', Mode: 'markdown' } }],
    ['/markdown/raw', { body: '*x*', headers: { 'Content-Type': 'text/plain' } }],
  ] as const) {
    const res = await f.request('POST', path, init);
    t.equal(res.status, 200, path);
    t.match(res.headers.get('content-type'), /^text\/html/, `${path} is html`);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.match(csp, /(^|;\s*)sandbox(\s*;|$)/, `${path}: CSP sandbox (${csp})`);
    t.match(csp, /default-src 'none'/, `${path}: no script source is allowed`);
    t.notMatch(csp, /allow-scripts/);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  }
  t.equal((await f.request('GET', '/version')).headers.get('x-content-type-options'), 'nosniff');
});

t.test('a 413 reaches a fetch() client that is still sending its body', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const limit = 1024 * 1024; // plugins.markup.maxBytes' default
  const body = Buffer.alloc(2 * 1024 * 1024, 0x61); // 2 MiB of 'a', twice the markup limit
  t.ok(body.length > limit);
  const attempts = 20;
  const outcomes: string[] = [];
  for (let i = 0; i < attempts; i++) {
    // Alternate a declared length (Buffer body) and a chunked stream (no length: the limit is crossed while reading).
    const chunked = i % 2 === 1;
    const payload: BodyInit = chunked
      ? new ReadableStream({
        start(c) {
          for (let o = 0; o < body.length; o += 64 * 1024) c.enqueue(body.subarray(o, o + 64 * 1024));
          c.close();
        },
      })
      : body;
    try {
      const res = await fetch(`${f.api}/markdown/raw`, {
        method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: payload, ...(chunked ? { duplex: 'half' } : {}),
      } as RequestInit);
      const json = await res.json() as { message?: string; url?: string };
      outcomes.push(res.status === 413 && typeof json.message === 'string' && typeof json.url === 'string' ? '413' : `status ${res.status}`);
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      outcomes.push(`error ${cause?.code ?? (err as Error).message}`);
    }
  }
  const ok = outcomes.filter((o) => o === '413').length;
  t.comment(`413 read by fetch in ${ok} of ${attempts} attempts; others: ${outcomes.filter((o) => o !== '413').join(', ') || 'none'}`);
  t.equal(ok, attempts, 'every attempt reads the 413 (a JSON {message,url} body)');
  // The connection is still good for the next request (the body was read to its end, not cut).
  t.equal((await f.request('GET', '/version')).status, 200);
});

/** Sends a whole request (head and body) before reading anything, like a simple client; then reads to the end. */
async function sendAllThenRead(port: number, head: string, body: Buffer): Promise<{ response: string; writeError: string | null }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause(); // nothing is read until the body is out
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  let writeError: string | null = null;
  socket.on('error', (err: NodeJS.ErrnoException) => { writeError ??= err.code ?? err.message; });
  // In pieces, a turn of the timer apart: a sender slower than the server's answer (a client on a real network).
  const data = Buffer.concat([Buffer.from(head), body]);
  for (let o = 0; o < data.length && writeError === null; o += 16 * 1024) {
    const ok = await new Promise<boolean>((resolve) => socket.write(data.subarray(o, o + 16 * 1024), (err) => resolve(!err)));
    if (!ok) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (writeError !== null || socket.destroyed) return { response: '', writeError: writeError ?? 'connection closed while sending' };
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => { chunks.push(c); });
  socket.resume();
  // The answer is complete once its Content-Length of body bytes arrived (or the connection ended).
  await new Promise<void>((resolve) => {
    const check = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (end !== -1 && length && text.length >= end + 4 + Number(length[1])) resolve();
    };
    socket.on('data', check);
    socket.once('close', () => resolve());
  });
  socket.destroy();
  return { response: Buffer.concat(chunks).toString('utf8'), writeError };
}

t.test('a client that sends its whole body before reading still reads the 413', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const port = Number(new URL(f.url).port);
  const body = Buffer.alloc(2 * 1024 * 1024, 0x61);
  const declared = await sendAllThenRead(port,
    `POST /api/v1/markdown/raw HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n`, body);
  t.equal(declared.writeError, null, 'the body went out without a reset');
  t.match(declared.response, /^HTTP\/1\.1 413 /, 'declared length: 413 read after sending');
  t.match(declared.response, /"message":"request body is larger than/);
  // Chunked: the limit is crossed while reading.
  let chunked = Buffer.alloc(0);
  for (let o = 0; o < body.length; o += 16384) {
    const part = body.subarray(o, o + 16384);
    chunked = Buffer.concat([chunked, Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
  }
  chunked = Buffer.concat([chunked, Buffer.from('0\r\n\r\n')]);
  const streamed = await sendAllThenRead(port,
    'POST /api/v1/markdown/raw HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n', chunked);
  t.equal(streamed.writeError, null);
  t.match(streamed.response, /^HTTP\/1\.1 413 /, 'chunked: 413 read after sending');
  // 415 (a body of the wrong type) is read to its end the same way.
  const json = Buffer.alloc(512 * 1024, 0x61);
  const wrongType = await sendAllThenRead(port,
    `POST /api/v1/markdown HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${json.length}\r\n\r\n`, json);
  t.equal(wrongType.writeError, null);
  t.match(wrongType.response, /^HTTP\/1\.1 415 /);
});

t.test('past the discard bound the connection is closed (the bound is config.server.discardBodyBytes)', async (t) => {
  const f = await startForge({ config: { server: { discardBodyBytes: 64 * 1024 } } });
  t.teardown(() => f.close());
  const port = Number(new URL(f.url).port);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.on('error', () => undefined);
  let response = '';
  socket.on('data', (c: Buffer) => { response += c.toString('utf8'); });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // Declares 2 MiB (beyond limit + bound): answered at once, connection closed, without waiting for the body.
  socket.write(`POST /api/v1/markdown/raw HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`);
  socket.write(Buffer.alloc(1024, 0x61));
  await closed;
  t.match(response, /^HTTP\/1\.1 413 /);
  t.match(response, /connection: close/i);
});
