// At-least-once across a crash: a server in a child process records deliveries while the receiver holds the first
// one open, is killed with SIGKILL, restarts on the same data, and every delivery then reaches the receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { Receiver } from '../helpers/receiver.js';
import { nodeCommand } from '../helpers/child-env.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'webhook-child.js');
const ADMIN = { username: 'root', password: 'admin-password-1', email: 'root@example.com' };

function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const config = {
    dataDir,
    admin: ADMIN,
    plugins: { webhooks: { allowedHostList: 'loopback', deliverTimeoutMs: 600_000, retryBaseMs: 1, retryMaxMs: 5 } },
  };
  const child = spawn(...nodeCommand([CHILD, JSON.stringify(config)]), { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, url: JSON.parse(line!).url });
    });
    child.once('exit', (code, signal) => reject(new Error(`the child exited early (${code ?? signal})`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

t.test('SIGKILL with deliveries pending: after a restart the receiver gets every delivery at least once', async (t) => {
  const rx = await new Receiver().start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-webhook-crash-'));
  let current: ChildProcess | undefined;
  t.teardown(async () => {
    current?.kill('SIGKILL');
    if (current) await exited(current);
    await rx.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  rx.respond = () => null; // hold every request open: nothing is acknowledged before the crash

  const first = await startChild(dataDir);
  current = first.child;
  const api = `${first.url}/api/v1`;
  const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
  const call = async (method: string, p: string, body: unknown, auth: string) => {
    const res = await fetch(api + p, { method, headers: { 'Content-Type': 'application/json', Authorization: auth }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json() as any };
  };
  const token = `token ${(await call('POST', '/users/root/tokens', { name: 'crash', scopes: ['all'] }, basic)).json.sha1}`;
  t.equal((await call('POST', '/user/repos', { name: 'crashy', auto_init: true, readme: 'Default' }, token)).status, 201);
  const hook = await call('POST', '/repos/root/crashy/hooks', { type: 'gitea', active: true, events: ['status'], config: { url: `${rx.url}/hook`, content_type: 'json' } }, token);
  t.equal(hook.status, 201);
  const N = 20;
  const ids: number[] = [];
  for (let i = 0; i < N; i++) {
    const res = await call('POST', '/repos/root/crashy/statuses/master', { state: 'pending', context: `ci/${i}` }, token);
    t.equal(res.status, 201);
    ids.push(res.json.id);
  }
  // Every status was acknowledged, so every delivery is recorded; the first is in flight, held by the receiver.
  await rx.count(1);
  first.child.kill('SIGKILL');
  await exited(first.child);

  rx.respond = () => 200;
  const second = await startChild(dataDir);
  current = second.child;
  const distinct = () => new Set(rx.received.map((r) => r.headers['x-gitea-delivery'])).size;
  await rx.until(() => distinct() >= N);
  const statusIds = new Set(rx.received.map((r) => JSON.parse(r.body).id as number));
  t.same([...statusIds].sort((a, b) => a - b), ids, 'every status reached the receiver');
  t.equal(distinct(), N, 'one delivery (UUID) per status');
  // After the restart the hook's deliveries arrive in their order (the held one first, sent again).
  const afterRestart = rx.received.slice(1).map((r) => JSON.parse(r.body).id as number);
  t.same(afterRestart, ids, 'resumed in order, the interrupted delivery first');
  t.equal(rx.received[0]!.headers['x-gitea-delivery'], rx.received[1]!.headers['x-gitea-delivery'], 'the interrupted delivery was sent again with its UUID');
  second.child.kill('SIGTERM');
  await exited(second.child);
  current = undefined;
});
