// Limits on git transfers over smart HTTP: concurrent git processes (server-wide 503, per repository 429, both with
// Retry-After), an idle timeout instead of a total one (a long but active transfer outlives requestTimeout, an idle
// one is cut), and a push size limit that git itself reports to the client.
import t from 'tap';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit, withAuth, type GitResult } from '../helpers/git-client.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

/** Waits for a condition, polling; fails loudly after a generous deadline (never a timing assertion). */
async function until(what: string, check: () => boolean | Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface Held {
  /** Resolves with the response head (git is running once it arrives). */
  response: Promise<http.IncomingMessage>;
  req: http.ClientRequest;
  /** Resolves when the connection is gone. */
  closed: Promise<void>;
}

/** A fetch (upload-pack) request whose body is left open: git runs and waits for the rest of it. */
function holdUploadPack(f: TestForge, repo: string): Held {
  const url = new URL(`${f.url}/${repo}.git/git-upload-pack`);
  const req = http.request({
    host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
    headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Transfer-Encoding': 'chunked' },
  });
  req.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
  const response = new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
  req.flushHeaders();
  return { req, response, closed };
}

async function infoRefs(f: TestForge, repo: string): Promise<Response> {
  return fetch(`${f.url}/${repo}.git/info/refs?service=git-upload-pack`);
}

async function publicRepo(f: TestForge, owner: TestUser, name: string): Promise<{ full: string; sha: string; id: number }> {
  const res = await f.request('POST', '/user/repos', { token: owner.token, json: { name, auto_init: true } });
  if (res.status !== 201) throw new Error(res.text);
  const branch = await f.request('GET', `/repos/${owner.username}/${name}/branches/master`);
  return { full: `${owner.username}/${name}`, sha: branch.json.commit.id, id: res.json.id };
}

t.test('concurrent git transfers: 429 per repository, 503 server-wide, with Retry-After', async (t) => {
  const f = await startForge({ config: { plugins: { git: { maxTransfers: 2, maxTransfersPerRepo: 1, transferRetryAfterSeconds: 7 } } } });
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gitlimits-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const owner = await f.createUser({ username: 'limits' });
  const a = await publicRepo(f, owner, 'a');
  const b = await publicRepo(f, owner, 'b');
  const c = await publicRepo(f, owner, 'c');

  const transfers = f.forge.service('git').transfers;
  const first = holdUploadPack(f, a.full);
  await until('the first fetch runs git', () => transfers.running(a.id) === 1);
  t.pass('a fetch of a holds a place while git waits for its body');
  let res = await infoRefs(f, a.full);
  t.equal(res.status, 429, 'a second transfer of the same repository');
  t.equal(res.headers.get('retry-after'), '7');
  t.match(await res.json(), { message: /this repository is serving 1 git transfers/, url: String });
  const client = await runGit(['ls-remote', `${f.url}/${a.full}.git`], { home });
  t.not(client.code, 0, 'the git client fails…');
  t.match(client.stderr, /429/, '…naming the status');

  res = await infoRefs(f, b.full);
  t.equal(res.status, 200, 'another repository still has room');
  await res.arrayBuffer();
  await until('that transfer is over', () => transfers.running() === 1);
  const second = holdUploadPack(f, b.full);
  await until('the second fetch runs git', () => transfers.running(b.id) === 1);
  t.equal(transfers.running(), 2);
  res = await infoRefs(f, c.full);
  t.equal(res.status, 503, 'the server-wide limit');
  t.equal(res.headers.get('retry-after'), '7');
  t.match(await res.json(), { message: /the server is serving 2 git transfers/, url: String });

  // The held fetches end (the client goes away): their places are free again.
  first.req.destroy();
  second.req.destroy();
  const status = async (repo: string) => {
    const r = await infoRefs(f, repo);
    await r.arrayBuffer();
    return r.status;
  };
  await until('the places are free again', async () => (await status(c.full)) === 200);
  t.equal(await status(a.full), 200);
  await until('every transfer is over', () => transfers.running() === 0);
  const clone = await runGit(['clone', '-q', `${f.url}/${a.full}.git`, path.join(home, 'a')], { home });
  t.equal(clone.code, 0, clone.stderr);
});

t.test('transfers: an idle limit instead of a total one', async (t) => {
  const f = await startForge({
    config: {
      server: { headersTimeout: 1000, requestTimeout: 2000 },
      plugins: { git: { transferIdleMs: 3000 } },
    },
  });
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'idler' });
  const repo = await publicRepo(f, owner, 'slow');
  const git = f.forge.service('git');

  t.test('a transfer that keeps moving outlives requestTimeout', async (t) => {
    const held = holdUploadPack(f, repo.full);
    await until('git runs', () => git.transfers.running() === 1);
    const chunks: Buffer[] = [];
    let status = 0;
    const ended = new Promise<boolean>((resolve) => {
      held.response.then((response) => {
        status = response.statusCode ?? 0;
        response.on('data', (c: Buffer) => chunks.push(c));
        response.once('end', () => resolve(true));
        response.once('error', () => resolve(false));
      }, () => resolve(false));
      held.req.once('close', () => setImmediate(() => resolve(false)));
    });
    // The negotiation a byte at a time, a timer turn apart: longer in all than requestTimeout (2 s), never idle 3 s.
    const body = Buffer.from(`0032want ${repo.sha}\n00000009done\n`);
    const started = Date.now();
    for (let i = 0; i < body.length; i++) {
      held.req.write(body.subarray(i, i + 1));
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    held.req.end();
    t.ok(await ended, 'the response ended normally');
    t.equal(status, 200);
    t.ok(Date.now() - started > 2000, 'the transfer took longer than requestTimeout');
    const out = Buffer.concat(chunks).toString('latin1');
    t.match(out, /^0008NAK\n/, 'git answered');
    t.match(out, /PACK/, 'with a pack');
  });

  t.test('an idle transfer is cut and its git process ends', async (t) => {
    const held = holdUploadPack(f, repo.full);
    await until('git runs', () => git.transfers.running() === 1);
    await held.closed;
    t.pass('the server closed the idle connection');
    // The place is given back once git has exited.
    await until('git is gone', () => git.transfers.running() === 0);
    t.equal(git.transfers.running(), 0);
  });

  t.test('requestTimeout still bounds an ordinary request', async (t) => {
    const url = new URL(`${f.api}/markdown`);
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': '100' },
    });
    req.on('error', () => undefined);
    const status = new Promise<number | null>((resolve) => {
      req.once('response', (r) => resolve(r.statusCode ?? null));
      req.once('close', () => resolve(null));
    });
    req.write('{"Text": "');
    t.equal(await status, 408, 'a body that never completes: 408 from requestTimeout');
    req.destroy();
  });
});

t.test('a push over maxPushBytes is refused by git with its reason', async (t) => {
  const f = await startForge({ config: { plugins: { git: { maxPushBytes: 20_000 } } } });
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pushlimit-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const owner = await f.createUser({ username: 'bigpush' });
  t.equal((await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'big' } })).status, 201);
  const url = withAuth(`${f.url}/bigpush/big.git`, 'bigpush', owner.token);
  const dir = path.join(home, 'w');
  const git = (args: string[]): Promise<GitResult> => runGit(args, { home, cwd: dir });
  t.equal((await runGit(['init', '-q', '-b', 'master', dir], { home })).code, 0);
  await writeFile(path.join(dir, 'small.txt'), 'small\n');
  await git(['add', '-A']);
  await git(['commit', '-qm', 'small']);
  const small = await git(['push', '-q', url, 'master']);
  t.equal(small.code, 0, `a small push passes: ${small.stderr}`);

  await writeFile(path.join(dir, 'noise.bin'), randomBytes(100_000)); // incompressible: a pack of ~100 KB
  await git(['add', '-A']);
  await git(['commit', '-qm', 'big']);
  const big = await git(['push', url, 'master']);
  t.not(big.code, 0, 'the large push fails');
  t.match(big.stderr, /pack exceeds maximum allowed size/, 'git tells the pusher why');
  const remote = await runGit(['ls-remote', url, 'refs/heads/master'], { home });
  t.equal(remote.stdout.split('\t')[0], (await git(['rev-parse', 'HEAD~1'])).stdout.trim(), 'the branch did not move');
});

t.test('a client that leaves in the middle of a clone gives its transfer place back', async (t) => {
  const f = await startForge({ config: { plugins: { metrics: { enabled: true, token: 'scrape' } } } });
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-leaver-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const owner = await f.createUser({ username: 'leaver' });
  t.equal((await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'big' } })).status, 201);
  const dir = path.join(home, 'w');
  const git = (args: string[]): Promise<GitResult> => runGit(args, { home, cwd: dir });
  t.equal((await runGit(['init', '-q', '-b', 'master', dir], { home })).code, 0);
  // Incompressible: a pack of 8 MB, far more than the socket buffers between git and the client hold.
  await writeFile(path.join(dir, 'noise.bin'), randomBytes(8 * 1024 * 1024));
  await git(['add', '-A']);
  await git(['commit', '-qm', 'big']);
  const pushed = await git(['push', '-q', withAuth(`${f.url}/leaver/big.git`, 'leaver', owner.token), 'master']);
  t.equal(pushed.code, 0, pushed.stderr);
  const sha = (await git(['rev-parse', 'HEAD'])).stdout.trim();
  const transfers = f.forge.service('git').transfers;

  const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
  const url = new URL(`${f.url}/leaver/big.git/git-upload-pack`);
  const req = http.request({
    host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
    headers: { 'Content-Type': 'application/x-git-upload-pack-request' },
  });
  req.on('error', () => undefined);
  const response = new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
  req.end(`${pkt(`want ${sha} side-band-64k no-progress ofs-delta\n`)}0000${pkt('done\n')}`);
  const res = await response;
  t.equal(res.statusCode, 200);
  // Read nothing: the pack fills the client's socket, then the server's, then git's stdout waits. Once the bytes
  // received have stopped growing, the client leaves.
  res.pause();
  let last = -1;
  await until('the client has stopped receiving', async () => {
    const now = res.socket.bytesRead;
    // The pack is flowing (git takes a moment to make it; the headers and NAK are a few hundred bytes). Where the
    // bytes stop depends on the socket buffers (131 KB when run alone); a floor of 64 KB once waited out its minute
    // under the full suite.
    const still = now === last && now > 8_192;
    last = now;
    if (!still) await new Promise((resolve) => setTimeout(resolve, 300));
    return still;
  });
  t.ok(last < 8 * 1024 * 1024, `the client left with ${last} bytes of the pack read`);
  t.equal(transfers.running(), 1, 'the clone holds its place while it is under way');
  req.destroy();
  await until('the place is given back', () => transfers.running() === 0, 20_000);
  t.pass('given back once the client left');

  // Clients that leave as soon as their request is sent: the server finds them gone when git starts (their
  // 'close' is past by then). Each must still end, with its place given back.
  const answered = async (): Promise<number> => {
    const m = await f.request('GET', '/metrics', { root: true, headers: { Authorization: 'Bearer scrape' } });
    let n = 0;
    for (const [, count] of m.text.matchAll(/forgekit_http_requests_total\{method="POST",route="\/:owner\/:repo\/git-upload-pack",status="\d+"\} (\d+)/g)) n += Number(count);
    return n;
  };
  const before = await answered();
  for (let i = 0; i < 20; i++) {
    const quick = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
      headers: { 'Content-Type': 'application/x-git-upload-pack-request' },
    });
    quick.on('error', () => undefined);
    quick.end(`${pkt(`want ${sha} side-band-64k no-progress ofs-delta\n`)}0000${pkt('done\n')}`, () => quick.destroy());
  }
  await until('all 20 requests have ended', async () => (await answered()) - before === 20, 20_000);
  t.equal(transfers.running(), 0, 'and hold no place');

  const clone = await runGit(['clone', '-q', `${f.url}/leaver/big.git`, path.join(home, 'again')], { home });
  t.equal(clone.code, 0, `a clone afterwards works: ${clone.stderr}`);
});
