// Child process: the physical limit. A bare node:http server that answers every request with one recorded response
// (status, headers, body) from memory — for a stream case, the one recorded for the request's place in the stream —
// after reading the request body like any server must. Nothing else.
import { readFileSync } from 'node:fs';
import http from 'node:http';

interface Recorded {
  status: number;
  headers: string[];
  body: Buffer;
}

let current: Recorded = { status: 503, headers: ['Content-Length', '0'], body: Buffer.alloc(0) };
/** A stream case's recorded responses: request `x-bench-seq: i` gets item i's (a mixed workload, the same bytes). */
let stream: Recorded[] = [];

function respond(res: http.ServerResponse, reply: Recorded): void {
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
}

const server = http.createServer((req, res) => {
  const seq = req.headers['x-bench-seq'];
  const reply = seq === undefined ? current : stream[Number(seq)] ?? current;
  // A request without a body is answered at once; one with a body is read to its end first (a server must).
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    respond(res, reply);
    return;
  }
  req.on('data', () => {});
  req.on('end', () => respond(res, reply));
});
// The same keep-alive behaviour as forgekit's server (node:http defaults on both sides).

process.on('message', (msg: { type?: string; status?: number; headers?: Array<[string, string]>; body?: string }) => {
  if (msg?.type === 'set') {
    current = { status: msg.status!, headers: msg.headers!.flat(), body: Buffer.from(msg.body ?? '', 'base64') };
    process.send?.({ type: 'set-ok' });
  } else if (msg?.type === 'stream') {
    // The recorded responses come in a file (too many for one IPC message): [{status, headers, body (base64)}].
    const file = (msg as { file?: string }).file!;
    const items = JSON.parse(readFileSync(file, 'utf8')) as Array<{ status: number; headers: Array<[string, string]>; body: string }>;
    stream = items.map((r) => ({ status: r.status, headers: r.headers.flat(), body: Buffer.from(r.body, 'base64') }));
    process.send?.({ type: 'stream-ok', items: stream.length });
  } else if (msg?.type === 'memory') {
    process.send?.({ type: 'memory', rss: process.memoryUsage().rss });
  } else if (msg?.type === 'stop') {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  }
});
process.on('disconnect', () => process.exit(0));

const port = Number(process.env.FORGEKIT_BENCH_PORT ?? 0);
server.listen(port, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${address.port}` });
});
