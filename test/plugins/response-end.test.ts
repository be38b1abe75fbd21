// endResponse (plugins/lib/response-gone.ts): a streamed response's end is awaited until it finished or its connection
// closed. `res.end(callback)` never calls back on a response whose socket was destroyed before its own 'close' came
// (the response is not `destroyed` yet in that window): git transfers ended by a client that went away were held in
// flight for ever, and a server's close then waited out its whole shutdown timeout (10 s) for them.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { endResponse } from '../../plugins/lib/response-gone.js';

/** A server whose one response is written, then ended by `end`; `handled` says how the awaited end settled. */
async function serve(setup: (res: http.ServerResponse) => void, end: (res: http.ServerResponse) => Promise<void>) {
  let settled!: (how: string) => void;
  const handled = new Promise<string>((resolve) => (settled = resolve));
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    setup(res);
    void end(res).then(() => settled(res.writableFinished ? 'finished' : 'closed'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, handled };
}

/** Sends a GET; resolves when the connection ended either way. */
function request(port: number): Promise<void> {
  return new Promise((resolve) => {
    http.get({ port, host: '127.0.0.1' }, (res) => res.resume().once('end', () => resolve()).once('error', () => resolve()))
      .once('error', () => resolve());
  });
}

/** The window the transfers met: the socket destroyed (a reset client), the response's own 'close' not yet come. */
const socketJustDestroyed = (res: http.ServerResponse) => {
  res.write('x');
  res.socket!.destroy();
};

const within = (p: Promise<string>, ms: number) => Promise.race([p, new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

t.test('endResponse resolves when the socket was destroyed before the response knew', async (t) => {
  const { server, port, handled } = await serve(socketJustDestroyed, (res) => endResponse(res));
  t.teardown(() => server.close());
  await request(port);
  t.equal(await within(handled, 5000), 'closed');
});

t.test('the bare res.end(callback) it replaces never calls back in that window', async (t) => {
  const { server, port, handled } = await serve(socketJustDestroyed, (res) => new Promise<void>((resolve) => res.end(() => resolve())));
  t.teardown(() => server.close());
  await request(port);
  t.equal(await within(handled, 500), 'still waiting', 'Node never called back: the reason endResponse checks the socket');
});

t.test('endResponse resolves when the client vanishes while a large body is being flushed', async (t) => {
  const { server, port, handled } = await serve((res) => res.write(Buffer.alloc(32 * 1024 * 1024, 0x61)), (res) => endResponse(res));
  t.teardown(() => server.close());
  // Reads the first bytes, then destroys the socket without reading on.
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.once('data', () => {
      socket.pause();
      setTimeout(() => resolve(void socket.destroy()), 50);
    });
    socket.once('error', reject);
  });
  t.match(await within(handled, 5000), /^(finished|closed)$/);
});

t.test('endResponse resolves after the body was sent, with a closing chunk', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200);
    res.write('a');
    void endResponse(res, 'b');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const body = await new Promise<string>((resolve, reject) => {
    http.get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(text));
    }).once('error', reject);
  });
  t.equal(body, 'ab');
});

t.test('endResponse on a response whose client is already gone resolves at once', async (t) => {
  let result: Promise<void> | undefined;
  const server = http.createServer((_req, res) => {
    res.writeHead(200);
    res.socket!.destroy();
    result = endResponse(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  await new Promise<void>((resolve) => {
    http.get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' }).once('error', () => resolve());
  });
  await t.resolves(result!);
});
