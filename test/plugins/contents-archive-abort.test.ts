// Clients that leave while their archive request waits for a slot must not keep the slot: later archives are served.
// (A left client's 'close' fired before streaming began, and the stream then waited for a 'drain' that never came.)
// Nor may they leave a pipe to git open (the smart HTTP clone case once kept git's unread stdout, and its request,
// for ever; the archive handler does not await git's end, and this checks it leaves nothing either).
import t from 'tap';
import net from 'node:net';
import { readdir, readlink } from 'node:fs/promises';
import { startForge } from '../helpers/forge.js';

t.test('archives after aborted archive requests', async (t) => {
  const f = await startForge({ config: { plugins: { contents: { archiveConcurrency: 1 } } } as any });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'p', auto_init: true, default_branch: 'main' } })).status, 201);
  const { hostname, port } = new URL(f.url);
  // The forge runs in this process: its pipes to git are this process's.
  const pipes = async (): Promise<number> => {
    let n = 0;
    for (const fd of await readdir('/proc/self/fd')) {
      if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')).startsWith('pipe:')) n++;
    }
    return n;
  };
  const warm = await fetch(`${f.api}/repos/alice/p/archive/main.zip`);
  await warm.arrayBuffer();
  const pipesBefore = await pipes();
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
  // Every aborted request has ended by now (the slot is one, and the three above got it after them).
  let pipesAfter = await pipes();
  for (let i = 0; i < 100 && pipesAfter > pipesBefore; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pipesAfter = await pipes();
  }
  t.ok(pipesAfter <= pipesBefore, `no pipe to git left open (${pipesBefore} before, ${pipesAfter} after)`);
});
