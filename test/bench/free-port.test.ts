// freePort: a port that can be listened on, outside the range outgoing connections take their local ports from.
import t from 'tap';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../bench/free-port.js';

t.test('freePort draws listenable ports outside the ephemeral range', async (t) => {
  let range: number[] | null = null;
  try {
    range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  } catch {
    range = null;
  }
  const ports = new Set<number>();
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    ports.add(port);
    if (range) t.ok(port < range[0]! || port > range[1]!, `${port} is outside ${range.join('-')}`);
    // It can be listened on now.
    const srv = net.createServer();
    await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  }
  t.ok(ports.size > 10, `drawn at random (${ports.size} distinct of 20)`);
});

t.test('a port someone listens on is not handed out', async (t) => {
  const held: net.Server[] = [];
  const heldPorts = new Set<number>();
  t.teardown(() => Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));
  for (let i = 0; i < 30; i++) {
    const port = await freePort();
    t.notOk(heldPorts.has(port), `${port} was not handed out while held`);
    const srv = net.createServer();
    await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(port, '127.0.0.1', resolve));
    held.push(srv);
    heldPorts.add(port);
  }
});
