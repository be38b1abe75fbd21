// A port for a server that listens on it later, drawn where outgoing connections cannot take it meanwhile.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Linux's ephemeral range (outgoing connections' local ports), read once; null where /proc does not say. */
let ephemeral: [number, number] | null | undefined;
function ephemeralRange(): [number, number] | null {
  if (ephemeral === undefined) {
    try {
      const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
      ephemeral = Number.isInteger(low) && Number.isInteger(high) ? [low!, high!] : null;
    } catch {
      ephemeral = null;
    }
  }
  return ephemeral;
}

/** Whether `port` can be listened on at 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A port free now, for a server that listens on it later (its root URL is made from it first). It is drawn outside
 * the ephemeral range where one exists: a port the kernel handed out for `listen(0)` and released is free for any
 * outgoing connection to take as its local port meanwhile — with the suite's other files making thousands of
 * loopback connections, a child server that spent seconds booting then failed to listen (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  const range = ephemeralRange();
  const [from, to] = range && range[0] > 12_000 ? [10_000, range[0] - 1] : range && range[1] < 63_000 ? [range[1] + 1, 65_535] : [0, 0];
  for (let attempt = 0; from > 0 && attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    if (await canListen(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
