// A crash ledger through HTTP: concurrent writers (users, repositories, stars, SSH keys) against a child server keep
// a ledger of every acknowledged write; the server is SIGKILLed while they write, restarted, and every acknowledged
// write must be there, with nothing half-made visible — several rounds, then the store's invariants are checked.
import t from 'tap';
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startForge } from '../helpers/forge.js';
import { builtinPlugins, checkConsistency } from '../../plugins/index.js';
import { startCrashChild } from '../helpers/crash.js';

const ROUNDS = 3;
/** Acknowledged writes per round before the SIGKILL (a count, not a time). */
const ACKS_BEFORE_KILL = 16;

interface Ledger {
  users: string[];
  repos: Array<{ name: string; autoInit: boolean }>;
  stars: string[];
  keys: Array<{ id: number; fingerprintKey: string }>;
}

t.test('acknowledged writes survive SIGKILL, round after round', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-crash-ledger-'));
  const keyDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-crash-ledger-keys-'));
  t.teardown(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await rm(keyDir, { recursive: true, force: true });
  });
  // Real SSH keys from ssh-keygen, one per key write.
  const keys: string[] = [];
  for (let i = 0; i < ROUNDS * 8; i++) {
    const file = path.join(keyDir, `k${i}`);
    await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `ledger-${i}`, '-f', file]);
    keys.push((await readFile(`${file}.pub`, 'utf8')).trim());
  }
  const ledger: Ledger = { users: [], repos: [], stars: [], keys: [] };
  const attemptedRepos: Array<{ name: string; autoInit: boolean }> = [];
  let nextKey = 0;

  for (let round = 0; round < ROUNDS; round++) {
    const server = await startCrashChild(dataDir);
    const auth = { Authorization: `token ${server.token}`, 'Content-Type': 'application/json' };
    const acked = new EventEmitter();
    let acks = 0;
    let killed = false;
    const ack = () => {
      acks++;
      acked.emit('ack');
      if (acks >= ACKS_BEFORE_KILL && !killed) {
        killed = true;
        server.child.kill('SIGKILL');
      }
    };
    /** One write; its answer, or null when the server died under it (outcome unknown, not in the ledger). */
    const write = async (method: string, url: string, body?: unknown): Promise<{ status: number; json: any } | null> => {
      try {
        const res = await fetch(`${server.api}${url}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await res.text();
        return { status: res.status, json: text ? JSON.parse(text) : null };
      } catch {
        return null;
      }
    };
    const users = async () => {
      for (let i = 0; !killed; i++) {
        const username = `r${round}u${i}`;
        const res = await write('POST', '/admin/users', { username, email: `${username}@example.com`, password: `pw-${username}-long` });
        if (!res) return;
        if (res.status !== 201) throw new Error(`user ${username}: ${res.status} ${JSON.stringify(res.json)}`);
        ledger.users.push(username);
        ack();
      }
    };
    const repos = async () => {
      for (let i = 0; !killed; i++) {
        const repo = { name: `r${round}p${i}`, autoInit: i % 2 === 0 };
        attemptedRepos.push(repo);
        const res = await write('POST', '/user/repos', { name: repo.name, auto_init: repo.autoInit });
        if (!res) return;
        if (res.status !== 201) throw new Error(`repo ${repo.name}: ${res.status} ${JSON.stringify(res.json)}`);
        ledger.repos.push(repo);
        ack();
      }
    };
    const stars = async () => {
      while (!killed) {
        const next = ledger.repos.find((r) => !ledger.stars.includes(r.name));
        if (!next) {
          await new Promise((resolve) => acked.once('ack', resolve));
          continue;
        }
        const res = await write('PUT', `/user/starred/root/${next.name}`);
        if (!res) return;
        if (res.status !== 204) throw new Error(`star ${next.name}: ${res.status}`);
        ledger.stars.push(next.name);
        ack();
      }
    };
    const sshKeys = async () => {
      while (!killed && nextKey < keys.length) {
        const key = keys[nextKey++]!;
        const res = await write('POST', '/user/keys', { title: `ledger ${nextKey}`, key });
        if (!res) return;
        if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.json)}`);
        ledger.keys.push({ id: res.json.id, fingerprintKey: key.split(' ')[1]! });
        ack();
      }
    };
    const writers = Promise.all([users(), repos(), stars(), sshKeys()]);
    // Nothing else wakes a writer waiting for an ack once the server is dead.
    server.exited.then(() => { killed = true; acked.emit('ack'); });
    await writers;
    if (!killed) server.child.kill('SIGKILL');
    t.equal(await server.exited, 'SIGKILL', `round ${round}: the server was killed while writing (${acks} acknowledged)`);

    // Restart: every acknowledged write is there; nothing half-made is visible.
    const again = await startCrashChild(dataDir);
    const get = async (url: string) => {
      const res = await fetch(`${again.api}${url}`, { headers: { Authorization: `token ${again.token}` } });
      const text = await res.text();
      return { status: res.status, json: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
    };
    const missing: string[] = [];
    for (const u of ledger.users) if ((await get(`/users/${u}`)).status !== 200) missing.push(`user ${u}`);
    for (const r of ledger.repos) if ((await get(`/repos/root/${r.name}`)).status !== 200) missing.push(`repo ${r.name}`);
    for (const s of ledger.stars) if ((await get(`/user/starred/root/${s}`)).status !== 204) missing.push(`star ${s}`);
    const listed = (await get('/user/keys?limit=50')).json as Array<{ id: number; key: string }>;
    for (const k of ledger.keys) if (!listed.some((l) => l.id === k.id && l.key.includes(k.fingerprintKey))) missing.push(`key ${k.id}`);
    t.same(missing, [], `round ${round}: ${ledger.users.length} users, ${ledger.repos.length} repos, ${ledger.stars.length} stars, ${ledger.keys.length} keys acknowledged, all present`);
    const halfMade: string[] = [];
    for (const r of attemptedRepos) {
      const repo = await get(`/repos/root/${r.name}`);
      if (repo.status === 404) continue; // never acknowledged and rolled back: fine
      const branches = await get(`/repos/root/${r.name}/branches`);
      if (branches.status !== 200) halfMade.push(`${r.name}: branches ${branches.status}`);
      if (r.autoInit && repo.json?.empty !== false) halfMade.push(`${r.name}: auto-initialised but empty`);
    }
    t.same(halfMade, [], `round ${round}: every visible repository is whole`);
    again.child.kill('SIGKILL');
    await again.exited;
  }

  const f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const report = await checkConsistency({ store: f.forge.store, dataDir: f.dataDir, collections: builtinPlugins.flatMap((p) => p.collections ?? []) });
  t.same(report.problems.map((p) => p.message), [], 'the store invariants hold (counters equal rows, no orphans)');
});
