// Git over SSH with the real OpenSSH client: clone, fetch and push with users' keys and deploy keys, the same
// permission rules as smart HTTP, refusals of everything that is not git, limits, and malformed traffic.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ssh2 from 'ssh2';
import { definePlugin } from '../../core/plugin.js';
import { generateKeyPair } from '../../plugins/ssh/host-keys.js';
import { freePort, startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { runGit, type GitResult } from '../helpers/git-client.js';
import { prng } from '../../bench/dataset.js';

interface Run { code: number; stdout: string; stderr: string }

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000, env: { PATH: process.env.PATH ?? '', LANG: 'C', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}


/** Records the push events of the bus, to check SSH pushes emit them like HTTP pushes. */
const pushes: Array<{ ref: string; via: string; pusherId: number | null; after: string }> = [];
const recorder = definePlugin({
  name: 'push-recorder',
  start(ctx) {
    ctx.events.on('git.push', (e) => { pushes.push({ ref: e.ref, via: e.via, pusherId: e.pusherId, after: e.after }); });
  },
});

t.test('git over SSH', async (t) => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-ssh-'));
  const port = await freePort();
  const f: TestForge = await startForge({ extraPlugins: [recorder], config: { plugins: { ssh: { port, loginGraceMs: 2000 }, repos: { ssh: { port } } } } });
  t.teardown(async () => {
    await f.close();
    await rm(work, { recursive: true, force: true });
  });
  const service = f.forge.service<{ hostKeys: Array<{ fingerprint: string; publicLine: string }> }>('ssh');
  const knownHosts = path.join(work, 'known_hosts');
  await writeFile(knownHosts, service.hostKeys.map((k) => `[127.0.0.1]:${port} ${k.publicLine}\n`).join(''));

  async function keygen(name: string, type = 'ed25519'): Promise<{ file: string; pub: string }> {
    const file = path.join(work, name);
    const r = await run('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `${name}@test`, '-f', file]);
    if (r.code !== 0) throw new Error(r.stderr);
    return { file, pub: (await readFile(`${file}.pub`, 'utf8')).trim() };
  }
  const sshArgs = (key: string) => [
    '-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${knownHosts}`,
    '-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', '-p', String(port),
  ];
  const sshCommand = (key: string) => ['ssh', ...sshArgs(key)].join(' ');
  const home = await mkdtemp(path.join(work, 'home-'));
  const git = (key: string, args: string[], cwd?: string): Promise<GitResult> =>
    runGit(args, { home, cwd, env: { GIT_SSH_COMMAND: sshCommand(key) } });
  const ssh = (key: string, ...args: string[]) => run('ssh', [...sshArgs(key), 'git@127.0.0.1', ...args]);
  const url = (full: string) => `ssh://git@127.0.0.1:${port}/${full}.git`;
  let n = 0;
  const dest = (name: string) => path.join(work, `${name}-${++n}`);

  const alice: TestUser = await f.createUser({ username: 'alice' });
  const bob: TestUser = await f.createUser({ username: 'bob' });
  const aliceKey = await keygen('alice');
  const bobKey = await keygen('bob', 'rsa');
  const strangerKey = await keygen('stranger');
  for (const [user, key] of [[alice, aliceKey], [bob, bobKey]] as const) {
    const res = await f.request('POST', '/user/keys', { token: user.token, json: { title: 'laptop', key: key.pub } });
    t.equal(res.status, 201, `${user.username}'s key stored`);
  }
  for (const [name, priv] of [['secret', true], ['open', false]] as const) {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name, private: priv, auto_init: true } });
    t.equal(res.status, 201);
  }

  t.test('host keys are private files and their fingerprints are published', async (t) => {
    const dir = path.join(f.dataDir, 'ssh');
    t.equal((await stat(dir)).mode & 0o777, 0o700);
    for (const file of ['ssh_host_ed25519_key', 'ssh_host_rsa_key']) t.equal((await stat(path.join(dir, file))).mode & 0o777, 0o600, file);
    t.same(service.hostKeys.map((k) => k.publicLine.split(' ')[0]), ['ssh-ed25519', 'ssh-rsa']);
    for (const k of service.hostKeys) t.match(k.fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  t.test('ssh_url follows the configured port', async (t) => {
    const res = await f.request('GET', '/repos/alice/open');
    t.equal(res.json.ssh_url, `ssh://git@127.0.0.1:${port}/alice/open.git`);
  });

  t.test('the owner clones, pushes and fetches a private repository', async (t) => {
    const dir = dest('secret');
    const clone = await git(aliceKey.file, ['clone', url('alice/secret'), dir]);
    t.equal(clone.code, 0, clone.stderr);
    t.ok((await readFile(path.join(dir, 'README.md'), 'utf8')).includes('secret'));
    await writeFile(path.join(dir, 'over-ssh.txt'), 'pushed over ssh\n');
    await git(aliceKey.file, ['add', '.'], dir);
    await git(aliceKey.file, ['commit', '-m', 'over ssh'], dir);
    const push = await git(aliceKey.file, ['push', 'origin', 'HEAD'], dir);
    t.equal(push.code, 0, push.stderr);
    const head = (await git(aliceKey.file, ['rev-parse', 'HEAD'], dir)).stdout.trim();
    t.match(pushes.at(-1), { ref: 'refs/heads/master', via: 'ssh', pusherId: alice.id, after: head }, 'the push emitted git.push like an HTTP push');
    // The push is visible through smart HTTP and the API at once.
    const other = dest('secret-http');
    const httpUrl = new URL(`${f.url}/alice/secret.git`);
    httpUrl.username = 'alice';
    httpUrl.password = alice.token;
    t.equal((await runGit(['clone', httpUrl.toString(), other], { home })).code, 0);
    t.equal((await runGit(['rev-parse', 'HEAD'], { home, cwd: other })).stdout.trim(), head, 'HTTP sees the SSH push');
    const api = await f.request('GET', '/repos/alice/secret', { token: alice.token });
    t.equal(api.json.empty, false);
    t.ok(Date.parse(api.json.updated_at) >= Date.parse(api.json.created_at));
    const again = dest('secret-fetch');
    t.equal((await git(aliceKey.file, ['clone', url('alice/secret'), again])).code, 0);
    t.equal((await git(aliceKey.file, ['fetch', 'origin'], again)).code, 0, 'fetch');
    t.equal((await git(aliceKey.file, ['rev-parse', 'origin/HEAD'], again)).stdout.trim(), head);
  });

  t.test('branch protection and the default branch hold over SSH as over HTTP', async (t) => {
    const dir = dest('protected');
    t.equal((await git(aliceKey.file, ['clone', url('alice/secret'), dir])).code, 0);
    const rule = await f.request('POST', '/repos/alice/secret/branch_protections', { token: alice.token, json: { rule_name: 'master', enable_push: false } });
    t.equal(rule.status, 201, rule.text);
    await writeFile(path.join(dir, 'blocked.txt'), 'blocked\n');
    await git(aliceKey.file, ['add', '.'], dir);
    await git(aliceKey.file, ['commit', '-m', 'blocked'], dir);
    const headBefore = (await f.request('GET', '/repos/alice/secret/branches/master', { token: alice.token })).json.commit.id;
    const push = await git(aliceKey.file, ['push', 'origin', 'HEAD:master'], dir);
    t.not(push.code, 0);
    t.match(push.stderr, /\[remote rejected\] HEAD -> master \(branch master is protected/);
    t.equal((await f.request('GET', '/repos/alice/secret/branches/master', { token: alice.token })).json.commit.id, headBefore, 'the branch did not move');
    const other = await git(aliceKey.file, ['push', 'origin', 'HEAD:feature'], dir);
    t.equal(other.code, 0, 'an unprotected branch takes the push');
    const del = await git(aliceKey.file, ['push', 'origin', ':master'], dir);
    t.not(del.code, 0);
    t.match(del.stderr, /\[remote rejected\] master/, 'the default branch cannot be deleted');
    t.equal((await f.request('DELETE', '/repos/alice/secret/branch_protections/master', { token: alice.token })).status, 204);
    t.equal((await git(aliceKey.file, ['push', 'origin', 'HEAD:master'], dir)).code, 0, 'the push goes through once unprotected');

    // Force pushes: the rewritten commit arrives in the pack, after receive-pack started; git refuses it itself.
    t.equal((await f.request('POST', '/repos/alice/secret/branch_protections', { token: alice.token, json: { rule_name: 'master', enable_push: true } })).status, 201);
    const tip = async () => (await f.request('GET', '/repos/alice/secret/branches/master', { token: alice.token })).json.commit.id;
    const kept = await tip();
    await git(aliceKey.file, ['reset', '-q', '--hard', 'HEAD~1'], dir);
    await writeFile(path.join(dir, 'rewritten.txt'), 'rewritten\n');
    await git(aliceKey.file, ['add', '.'], dir);
    await git(aliceKey.file, ['commit', '-m', 'rewritten'], dir);
    const forced = await git(aliceKey.file, ['push', '--force', 'origin', 'HEAD:master'], dir);
    t.not(forced.code, 0, 'a force push with a new commit to a protected branch is refused over SSH');
    t.match(forced.stderr, /non-fast-forward|rejected/);
    t.equal(await tip(), kept, 'the branch did not move');
    await writeFile(path.join(dir, 'ff.txt'), 'ff\n');
    t.equal((await f.request('PATCH', '/repos/alice/secret/branch_protections/master', { token: alice.token, json: { enable_force_push: true } })).status, 200);
    const allowed = await git(aliceKey.file, ['push', '--force', 'origin', 'HEAD:master'], dir);
    t.equal(allowed.code, 0, `allowed once the rule enables force pushes: ${allowed.stderr}`);
    t.not(await tip(), kept);
    t.equal((await f.request('DELETE', '/repos/alice/secret/branch_protections/master', { token: alice.token })).status, 204);
  });

  t.test("another user's key: private repositories do not exist, public ones are read-only", async (t) => {
    const clone = await git(bobKey.file, ['clone', url('alice/secret'), dest('bob-secret')]);
    t.not(clone.code, 0);
    t.match(clone.stderr, /repository not found, or you do not have access to it/);
    const missing = await git(bobKey.file, ['clone', url('alice/nothing-here'), dest('bob-missing')]);
    t.match(missing.stderr, /repository not found, or you do not have access to it/, 'the same answer as for a private one');
    const dir = dest('bob-open');
    t.equal((await git(bobKey.file, ['clone', url('alice/open'), dir])).code, 0, 'public repository cloned');
    await writeFile(path.join(dir, 'bob.txt'), 'bob\n');
    await git(bobKey.file, ['add', '.'], dir);
    await git(bobKey.file, ['commit', '-m', 'bob'], dir);
    const push = await git(bobKey.file, ['push', 'origin', 'HEAD'], dir);
    t.not(push.code, 0);
    t.match(push.stderr, /you may read this repository but not push to it/);
  });

  t.test('archived repositories refuse pushes over SSH', async (t) => {
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'old', auto_init: true } })).status, 201);
    const dir = dest('archived');
    t.equal((await git(aliceKey.file, ['clone', url('alice/old'), dir])).code, 0);
    t.equal((await f.request('PATCH', '/repos/alice/old', { token: alice.token, json: { archived: true } })).status, 200);
    await writeFile(path.join(dir, 'late.txt'), 'late\n');
    await git(aliceKey.file, ['add', '.'], dir);
    await git(aliceKey.file, ['commit', '-m', 'late'], dir);
    const push = await git(aliceKey.file, ['push', 'origin', 'HEAD'], dir);
    t.not(push.code, 0);
    t.match(push.stderr, /archived/);
    t.equal((await git(aliceKey.file, ['fetch', 'origin'], dir)).code, 0, 'still readable');
  });

  t.test('an unknown key is refused at authentication', async (t) => {
    const r = await ssh(strangerKey.file, "git-upload-pack 'alice/open.git'");
    t.equal(r.code, 255);
    t.match(r.stderr, /Permission denied \(publickey\)/);
  });

  t.test('a shell, a pty, unknown commands and paths outside owner/repo are refused', async (t) => {
    const shell = await ssh(aliceKey.file, '-T');
    t.equal(shell.code, 1);
    t.match(shell.stderr, /Hi alice! You've successfully authenticated, but forgekit does not provide shell access/);
    const pty = await run('ssh', [...sshArgs(aliceKey.file), '-tt', 'git@127.0.0.1']);
    t.not(pty.code, 0);
    t.match(pty.stdout + pty.stderr, /PTY allocation request failed|does not provide shell access/);
    for (const cmd of ['ls -la /', 'cat /etc/passwd', "git-upload-pack '../../etc'", "git-upload-pack 'alice/../bob/x.git'",
      "git-upload-pack '/srv/git/x.git'", "git-receive-pack 'alice/open.git'; id", 'git-upload-pack --help']) {
      const r = await ssh(aliceKey.file, cmd);
      t.equal(r.code, 1, cmd);
      t.match(r.stderr, /forgekit: (only git-upload-pack|the path must be owner\/repo\.git)/, cmd);
    }
    const absolute = await ssh(aliceKey.file, "git-upload-pack '/tmp/x.git'");
    t.match(absolute.stderr, /repository not found/, 'a two-segment absolute path is only ever an owner/repo name');
    const env = await runGit(['ls-remote', url('alice/open')], {
      home, env: { GIT_SSH_COMMAND: `${sshCommand(aliceKey.file)} -o SetEnv="LD_PRELOAD=/tmp/evil.so GIT_DIR=/etc"` },
    });
    t.equal(env.code, 0, 'a refused environment variable does not reach git; the command itself still runs');
    t.match(env.stdout, /refs\/heads\/master/);
  });

  t.test('forwarding, subsystems and global requests are refused', async (t) => {
    const client = new ssh2.Client();
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', reject);
      client.connect({ host: '127.0.0.1', port, username: 'git', privateKey: aliceKey ? readFileSync(aliceKey.file) : '' });
    });
    t.teardown(() => client.end());
    const forward = await new Promise<Error | null>((resolve) => client.forwardOut('127.0.0.1', 1, '127.0.0.1', f.url ? Number(new URL(f.url).port) : 1, (err) => resolve(err ?? null)));
    t.ok(forward, 'direct-tcpip refused');
    const sftp = await new Promise<Error | null>((resolve) => client.sftp((err) => resolve(err ?? null)));
    t.ok(sftp, 'sftp refused');
    const listen = await new Promise<Error | null>((resolve) => client.forwardIn('127.0.0.1', 0, (err) => resolve(err ?? null)));
    t.ok(listen, 'tcpip-forward refused');
    const exec = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
      client.exec("git-upload-pack 'alice/open.git'", (err, stream) => {
        if (err) return reject(err);
        let stderr = '';
        stream.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
        stream.on('data', () => stream.end('0000'));
        stream.on('exit', (code: number) => resolve({ code, stderr }));
      });
    });
    t.equal(exec.code, 0, 'the connection still serves git after the refusals');
  });

  t.test('deploy keys', async (t) => {
    const ro = await keygen('deploy-ro');
    const rw = await keygen('deploy-rw', 'ecdsa');
    const add = (token: string, repo: string, body: object) => f.request('POST', `/repos/alice/${repo}/keys`, { token, json: body });
    t.equal((await add(bob.token, 'secret', { title: 'ci', key: ro.pub })).status, 404, 'a stranger does not see a private repository');
    t.equal((await add(bob.token, 'open', { title: 'ci', key: ro.pub })).status, 403, 'a reader may not manage deploy keys');
    const roRes = await add(alice.token, 'secret', { title: 'ci', key: ro.pub, read_only: true });
    t.equal(roRes.status, 201);
    t.match(roRes.json, { title: 'ci', read_only: true, key: ro.pub, url: `${f.api}/repos/alice/secret/keys/${roRes.json.id}` });
    t.equal(roRes.json.fingerprint, (await run('ssh-keygen', ['-lf', `${ro.file}.pub`])).stdout.split(' ')[1]);
    const rwRes = await add(alice.token, 'secret', { title: 'deployer', key: rw.pub });
    t.equal(rwRes.status, 201);
    t.equal(rwRes.json.read_only, false);
    t.equal((await add(alice.token, 'secret', { title: 'again', key: ro.pub })).status, 422, 'the same key twice on one repository');
    t.equal((await add(alice.token, 'secret', { title: 'ci', key: (await keygen('other')).pub })).status, 422, 'the same title twice');
    t.equal((await add(alice.token, 'secret', { title: 'mine', key: aliceKey.pub })).status, 422, "a user's key cannot be a deploy key");
    const asUser = await f.request('POST', '/user/keys', { token: bob.token, json: { title: 'stolen', key: ro.pub } });
    t.equal(asUser.status, 422, 'a deploy key cannot become a user key');
    const shared = await add(alice.token, 'open', { title: 'ci', key: ro.pub, read_only: true });
    t.equal(shared.status, 201, 'one key may be deployed to several repositories');
    t.equal(shared.json.key_id, roRes.json.key_id, 'and keeps its key_id');
    await f.request('DELETE', `/repos/alice/open/keys/${shared.json.id}`, { token: alice.token });

    const list = await f.request('GET', '/repos/alice/secret/keys', { token: alice.token });
    t.equal(list.status, 200);
    t.same(list.json.map((k: any) => k.title), ['ci', 'deployer']);
    t.equal(list.headers.get('x-total-count'), '2');
    const byFp = await f.request('GET', `/repos/alice/secret/keys?fingerprint=${encodeURIComponent(rwRes.json.fingerprint)}`, { token: alice.token });
    t.same(byFp.json.map((k: any) => k.id), [rwRes.json.id]);
    t.equal((await f.request('GET', `/repos/alice/secret/keys/${rwRes.json.id}`, { token: alice.token })).json.title, 'deployer');
    t.equal((await f.request('GET', `/repos/alice/secret/keys/${rwRes.json.id}`, { token: bob.token })).status, 404);
    t.equal((await f.request('GET', '/repos/alice/secret/keys')).status, 401);

    const dir = dest('deploy-ro');
    t.equal((await git(ro.file, ['clone', url('alice/secret'), dir])).code, 0, 'a read-only deploy key clones its repository');
    await writeFile(path.join(dir, 'ro.txt'), 'ro\n');
    await git(ro.file, ['add', '.'], dir);
    await git(ro.file, ['commit', '-m', 'ro'], dir);
    const refused = await git(ro.file, ['push', 'origin', 'HEAD'], dir);
    t.not(refused.code, 0);
    t.match(refused.stderr, /this deploy key is read-only/);
    const elsewhere = await git(ro.file, ['clone', url('alice/open'), dest('deploy-elsewhere')]);
    t.match(elsewhere.stderr, /repository not found/, 'a deploy key reaches only its repositories, even public ones');

    const rwDir = dest('deploy-rw');
    t.equal((await git(rw.file, ['clone', url('alice/secret'), rwDir])).code, 0);
    await writeFile(path.join(rwDir, 'rw.txt'), 'rw\n');
    await git(rw.file, ['add', '.'], rwDir);
    await git(rw.file, ['commit', '-m', 'rw'], rwDir);
    const pushed = await git(rw.file, ['push', 'origin', 'HEAD'], rwDir);
    t.equal(pushed.code, 0, pushed.stderr);

    t.equal((await f.request('DELETE', `/repos/alice/secret/keys/${rwRes.json.id}`, { token: alice.token })).status, 204);
    t.equal((await f.request('DELETE', `/repos/alice/secret/keys/${rwRes.json.id}`, { token: alice.token })).status, 404);
    const gone = await ssh(rw.file, "git-upload-pack 'alice/secret.git'");
    t.equal(gone.code, 255, 'a deleted deploy key no longer authenticates');
  });

  t.test('deleting a key or an account ends its access', async (t) => {
    const carol = await f.createUser({ username: 'carol' });
    const key = await keygen('carol');
    const made = await f.request('POST', '/user/keys', { token: carol.token, json: { title: 'k', key: key.pub } });
    await f.request('POST', '/user/repos', { token: carol.token, json: { name: 'c', auto_init: true } });
    t.equal((await git(key.file, ['clone', url('carol/c'), dest('carol')])).code, 0);
    await f.request('DELETE', `/user/keys/${made.json.id}`, { token: carol.token });
    t.equal((await ssh(key.file, "git-upload-pack 'carol/c.git'")).code, 255);
    const dave = await f.createUser({ username: 'dave' });
    const dkey = await keygen('dave');
    await f.request('POST', '/user/keys', { token: dave.token, json: { title: 'k', key: dkey.pub } });
    t.equal((await git(dkey.file, ['clone', url('alice/open'), dest('dave')])).code, 0);
    t.equal((await f.request('DELETE', '/admin/users/dave', { token: f.admin.token })).status, 204);
    t.equal((await ssh(dkey.file, "git-upload-pack 'alice/open.git'")).code, 255);
  });

  t.test('malformed traffic: random bytes and truncated handshakes never hurt the server', async (t) => {
    const seed = 20261124;
    const random = prng(seed);
    const bytes = (len: number) => Buffer.from(Array.from({ length: len }, () => Math.floor(random() * 256)));
    const cases: Buffer[] = [];
    for (let i = 0; i < 60; i++) {
      const kind = i % 4;
      if (kind === 0) cases.push(bytes(1 + Math.floor(random() * 4096)));
      else if (kind === 1) cases.push(Buffer.concat([Buffer.from('SSH-2.0-fuzz\r\n'), bytes(Math.floor(random() * 2048))]));
      else if (kind === 2) cases.push(Buffer.from('SSH-2.0-fuzz\r\n'.slice(0, 1 + Math.floor(random() * 13))));
      else cases.push(Buffer.concat([Buffer.from('SSH-2.0-fuzz\r\n'), Buffer.from([0, 0, 0xff, 0xff, 0x0a, 0x14]), bytes(64)]));
    }
    t.comment(`fuzz seed ${seed}, ${cases.length} connections`);
    await Promise.all(cases.map((payload) => new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(payload);
        // Half of them hang up at once (truncated), half wait for the server to end them.
        if (payload.length % 2 === 0) socket.end();
      });
      socket.on('data', () => undefined);
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.setTimeout(40_000, () => socket.destroy());
    })));
    const still = await git(aliceKey.file, ['clone', url('alice/open'), dest('after-fuzz')]);
    t.equal(still.code, 0, 'the server still serves git');
  });
});

t.test('limits: connections, login grace, authentication attempts', async (t) => {
  const port = await freePort();
  const f = await startForge({ config: { plugins: { ssh: { port, maxConnections: 2, loginGraceMs: 300, maxAuthAttempts: 2 } } } });
  t.teardown(() => f.close());
  /** A raw TCP connection: resolves `banner` when the server's identification arrives, `closed` when it ends. */
  const open = () => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const banner = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { socket, banner, closed };
  };
  const a = open();
  const b = open();
  await Promise.all([a.banner, b.banner]);
  const c = open();
  await c.closed;
  t.pass('a third connection is closed while two are open');
  await Promise.all([a.closed, b.closed]);
  t.pass('connections that do not authenticate within the login grace time are closed');

  const keys = Array.from({ length: 10 }, () => generateKeyPair('ed25519'));
  let tried = 0;
  const client = new ssh2.Client();
  const ended = await new Promise<string>((resolve) => {
    client.on('error', (err) => resolve(err.message));
    client.on('close', () => resolve('closed'));
    client.connect({
      host: '127.0.0.1', port, username: 'git',
      authHandler: (_methods, _partial, next) => {
        const key = keys[tried++];
        if (!key) return next(false as never);
        next({ type: 'publickey', username: 'git', key: key.private } as never);
      },
    });
  });
  // 2 allowed: the third is refused and the connection closed; the client may have started one more before it saw that.
  t.ok(tried <= 4, `the server closed the connection after the allowed attempts, with keys left untried (tried ${tried} of 10, ${ended})`);
});

t.test('an authenticated connection that goes idle is closed', async (t) => {
  const port = await freePort();
  const f = await startForge({ config: { plugins: { ssh: { port, idleTimeoutMs: 300 } } } });
  t.teardown(() => f.close());
  const user = await f.createUser({ username: 'idler' });
  const pair = generateKeyPair('ed25519');
  t.equal((await f.request('POST', '/user/keys', { token: user.token, json: { title: 'k', key: pair.public } })).status, 201);
  const client = new ssh2.Client();
  const events: string[] = [];
  await new Promise<void>((resolve) => {
    client.on('ready', () => events.push('ready'));
    client.on('error', () => undefined);
    client.on('close', () => resolve());
    client.connect({ host: '127.0.0.1', port, username: 'git', privateKey: pair.private });
  });
  t.same(events, ['ready'], 'authenticated, then closed by the server once idle');
});

t.test('off unless a port is configured', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  t.equal(f.forge.service<{ address(): unknown }>('ssh').address(), null);
});
