// Clients that leave while their archive request waits for a slot must not keep the slot: later archives are served.
// (A left client's 'close' fired before streaming began, and the stream then waited for a 'drain' that never came.)
import t from 'tap';
import net from 'node:net';
import { startForge } from '../helpers/forge.js';

t.test('archives after aborted archive requests', async (t) => {
  const f = await startForge({ config: { plugins: { contents: { archiveConcurrency: 1 } } } as any });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'p', auto_init: true, default_branch: 'main' } })).status, 201);
  const { hostname, port } = new URL(f.url);
  // Twenty requests, each socket destroyed right after the request is written: most leave while queued or streaming.
  await Promise.all(Array.from({ length: 20 }, () => new Promise<void>((resolve) => {
    const s = net.connect(Number(port), hostname, () => {
      s.write(`GET /api/v1/repos/alice/p/archive/main.zip HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`, () => { s.destroy(); resolve(); });
    });
    s.on('error', () => resolve());
  })));
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${f.api}/repos/alice/p/archive/main.zip`);
    t.equal(r.status, 200, `archive ${i + 1} after the aborted ones`);
    t.equal(Buffer.from(await r.arrayBuffer()).subarray(0, 2).toString('latin1'), 'PK');
  }
});
