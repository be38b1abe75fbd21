// git plugin through HTTP: POST /repos/migrate (mirrors and one-off copies), mirror-sync in the background, the
// periodic sync, credentials kept out of the stored URL, and the clone_addr policy (local/private sources).
import t from 'tap';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { runGit, withAuth, exists, type GitResult } from '../helpers/git-client.js';
import { freePort, startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { builtinPlugins, createForge } from '../../plugins/index.js';
import gitPlugin from '../../plugins/git/index.js';
import { nextSecondAfter, waitFor } from '../helpers/wait.js';

const plugins = builtinPlugins.some((p) => p.name === 'git') ? [] : [gitPlugin];
const BUNDLE = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'git', 'sample.bundle');
const MAIN_TIP = 'fd1f5f4a8c23a54bfdabfe72db8cc845ba4633a1';
const FEATURE_TIP = '471739e889195c8d97f51d6b131e666faf359978';

let gitHome = '';

/** The real git client, asynchronously (the server runs in this process), with no user config and no prompts. */
function git(args: string[], cwd?: string): Promise<GitResult> {
  return runGit(args, { home: gitHome, cwd });
}

/** ref → sha from `git ls-remote`. */
async function refs(url: string): Promise<Record<string, string>> {
  const res = await git(['ls-remote', url]);
  const out: Record<string, string> = {};
  for (const line of res.stdout.split('\n').filter(Boolean)) {
    const [sha, ref] = line.split('\t');
    out[ref!] = sha!;
  }
  return out;
}


let work = '';
let sourceCounter = 0;

/** A fresh bare source repository cloned from the fixture bundle, plus a working clone to add commits with. */
async function makeSource(): Promise<{ bare: string; addCommit: (file: string) => Promise<string>; git: (args: string[]) => Promise<GitResult> }> {
  const id = ++sourceCounter;
  const bare = path.join(work, `source-${id}.git`);
  const wc = path.join(work, `source-${id}-wc`);
  const made = await git(['clone', '--bare', '-q', BUNDLE, bare]);
  if (made.code !== 0) throw new Error(made.stderr);
  await git(['clone', '-q', bare, wc]);
  return {
    bare,
    git: (args) => git(args, wc),
    async addCommit(file: string) {
      await writeFile(path.join(wc, file), `${file}\n`);
      await git(['add', file], wc);
      await git(['commit', '-qm', `add ${file}`], wc);
      const push = await git(['push', '-q', 'origin', 'HEAD:refs/heads/main'], wc);
      if (push.code !== 0) throw new Error(push.stderr);
      return (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
    },
  };
}

t.before(async () => {
  gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gitclient-'));
  work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gitmirrors-'));
});
t.teardown(async () => {
  await rm(gitHome, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

t.test('migrations and mirrors (local sources allowed, as in the tests)', async (t) => {
  const f: TestForge = await startForge({ extraPlugins: plugins, env: { FORGEKIT_MIGRATE_ALLOW_LOCAL: 'true' } });
  t.teardown(() => f.close());
  const alice: TestUser = await f.createUser({ username: 'alice' });
  const bob: TestUser = await f.createUser({ username: 'bob' });
  // Local paths need the account's allow_import_local too (Gitea's CanImportLocal; admin-import-local.test.ts).
  for (const who of ['alice', 'bob']) {
    t.equal((await f.request('PATCH', `/admin/users/${who}`, { token: f.admin.token, json: { allow_import_local: true } })).status, 200);
  }
  const reposDir = path.join(f.dataDir, 'repositories');

  t.test('migrate a mirror from a local repository; mirror-sync brings new commits', async (t) => {
    const source = await makeSource();
    const res = await f.request('POST', '/repos/migrate', {
      token: alice.token,
      json: { clone_addr: source.bare, repo_name: 'upstream', uid: alice.id, mirror: true, description: 'mirrored' },
    });
    t.equal(res.status, 201, res.text);
    t.match(res.json, { full_name: 'alice/upstream', mirror: true, fork: false, empty: false, private: false, description: 'mirrored', default_branch: 'main' });
    t.ok(res.json.size > 0, `size ${res.json.size} KiB`);
    t.type(res.json.mirror_updated, 'string');
    t.equal(res.json.mirror_error, null);

    const mirrored = await refs(res.json.clone_url);
    t.equal(mirrored['refs/heads/main'], MAIN_TIP);
    t.equal(mirrored['refs/heads/feature'], FEATURE_TIP);
    t.ok(mirrored['refs/tags/v1.0'], 'tags come along');
    t.equal(mirrored.HEAD, MAIN_TIP);
    const dir = path.join(work, 'mirror-clone');
    t.equal((await git(['clone', '-q', res.json.clone_url, dir])).code, 0);
    t.equal((await git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim(), '3');
    t.equal(await readFile(path.join(dir, 'src', 'index.js'), 'utf8'), 'export const answer = 42;\n');

    // Mirrors are read-only, even to their owner.
    await writeFile(path.join(dir, 'local.txt'), 'x');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 'local'], dir);
    const push = await git(['push', withAuth(res.json.clone_url, 'alice', alice.token), 'HEAD:refs/heads/main'], dir);
    t.not(push.code, 0, 'push to a mirror refused');
    t.match(push.stderr, /403/);

    const newTip = await source.addCommit('new-file.txt');
    await source.git(['push', '-q', 'origin', '--delete', 'feature']);
    const before = res.json.mirror_updated;
    await nextSecondAfter(before); // mirror_updated has second precision
    const sync = await f.request('POST', '/repos/alice/upstream/mirror-sync', { token: alice.token });
    t.equal(sync.status, 200);
    t.equal(sync.text, '', 'empty body');
    const synced = await waitFor('the sync', async () => {
      const r = await f.request('GET', '/repos/alice/upstream');
      return r.json.mirror_updated !== before && r.json;
    });
    t.equal(synced.mirror_error, null);
    const after = await refs(res.json.clone_url);
    t.equal(after['refs/heads/main'], newTip, 'the new commit arrived');
    t.notOk(after['refs/heads/feature'], 'a branch deleted upstream is pruned');
    t.ok(synced.size >= res.json.size, 'size refreshed');
  });

  t.test('mirror-sync: write access checked before queueing; not a mirror is 400', async (t) => {
    const source = await makeSource();
    const res = await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: `file://${source.bare}`, repo_name: 'via-file-url', mirror: true } });
    t.equal(res.status, 201, 'file:// URLs work too when local sources are allowed');
    t.equal((await f.request('POST', '/repos/alice/via-file-url/mirror-sync', { token: bob.token })).status, 403, 'a reader may not sync');
    t.equal((await f.request('POST', '/repos/alice/via-file-url/mirror-sync')).status, 401);
    t.equal((await f.request('POST', '/repos/alice/no-such/mirror-sync', { token: alice.token })).status, 404);
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'plain' } })).status, 201);
    const notMirror = await f.request('POST', '/repos/alice/plain/mirror-sync', { token: alice.token });
    t.equal(notMirror.status, 400);
    t.match(notMirror.json.message, /not a mirror/);
    t.equal((await f.request('PUT', '/repos/alice/via-file-url/collaborators/bob', { token: alice.token, json: { permission: 'write' } })).status, 204);
    t.equal((await f.request('POST', '/repos/alice/via-file-url/mirror-sync', { token: bob.token })).status, 200, 'a writer may');
    const priv = await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: source.bare, repo_name: 'private-mirror', mirror: true, private: true } });
    t.equal(priv.status, 201);
    t.equal(priv.json.private, true);
    t.equal((await f.request('POST', '/repos/alice/private-mirror/mirror-sync', { token: bob.token })).status, 404, 'an unreadable mirror is 404');

    // Many requests at once: all accepted, the syncs of one repository never overlap, the result is consistent.
    const tip = await source.addCommit('burst.txt');
    const burst = await Promise.all(Array.from({ length: 8 }, () => f.request('POST', '/repos/alice/via-file-url/mirror-sync', { token: alice.token })));
    t.same(burst.map((r) => r.status), Array(8).fill(200));
    await waitFor('the burst to land', async () => (await refs(res.json.clone_url))['refs/heads/main'] === tip);
    t.pass('the new commit arrived after a burst of syncs');
  });

  t.test('a failing sync is recorded on the repository and logged; the next good sync clears it', async (t) => {
    const source = await makeSource();
    const res = await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: source.bare, repo_name: 'fragile', mirror: true } });
    t.equal(res.status, 201);
    const moved = `${source.bare}-moved`;
    await rename(source.bare, moved);
    t.equal((await f.request('POST', '/repos/alice/fragile/mirror-sync', { token: alice.token })).status, 200);
    const failed = await waitFor('the failure', async () => {
      const r = await f.request('GET', '/repos/alice/fragile');
      return r.json.mirror_error && r.json;
    });
    t.type(failed.mirror_error, 'string');
    t.ok(failed.mirror_error.length > 0 && failed.mirror_error.length <= 300, `mirror_error: ${failed.mirror_error}`);
    t.type(failed.mirror_updated, 'string');
    await rename(moved, source.bare);
    t.equal((await f.request('POST', '/repos/alice/fragile/mirror-sync', { token: alice.token })).status, 200);
    await waitFor('the recovery', async () => (await f.request('GET', '/repos/alice/fragile')).json.mirror_error === null);
    t.pass('error cleared');
  });

  t.test('migrate without mirror: a standalone copy that takes pushes', async (t) => {
    const source = await makeSource();
    const res = await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: source.bare, repo_name: 'copy', mirror: false } });
    t.equal(res.status, 201);
    t.equal(res.json.mirror, false);
    t.notOk('mirror_updated' in res.json, 'no mirror fields on a normal repository');
    t.notMatch(await readFile(path.join(reposDir, 'alice', 'copy.git', 'config'), 'utf8'), /remote "origin"/, 'no remote kept');
    t.equal((await refs(res.json.clone_url))['refs/heads/feature'], FEATURE_TIP);
    const dir = path.join(work, 'copy-wc');
    await git(['clone', '-q', withAuth(res.json.clone_url, 'alice', alice.token), dir]);
    await writeFile(path.join(dir, 'mine.txt'), 'mine');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 'mine'], dir);
    t.equal((await git(['push', 'origin', 'HEAD:refs/heads/main'], dir)).code, 0, 'the owner pushes');
    t.equal((await f.request('POST', '/repos/alice/copy/mirror-sync', { token: alice.token })).status, 400);
  });

  t.test('credentials stay out of the stored URL and of mirror_error', async (t) => {
    const made = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'private-src', private: true, auto_init: true } });
    t.equal(made.status, 201);
    const tokenRes = await f.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], json: { name: 'migration', scopes: ['all'] } });
    const secret: string = tokenRes.json.sha1;
    const srcUrl = made.json.clone_url;

    const anonymous = await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: srcUrl, repo_name: 'stolen' } });
    t.equal(anonymous.status, 422, 'a private source without credentials cannot be cloned');
    t.equal((await f.request('GET', '/repos/bob/stolen')).status, 404, 'no record left behind');
    t.notOk(await exists(path.join(reposDir, 'bob', 'stolen.git')), 'no directory left behind');

    const res = await f.request('POST', '/repos/migrate', {
      token: alice.token, json: { clone_addr: srcUrl, repo_name: 'authed-mirror', mirror: true, auth_username: 'alice', auth_password: secret },
    });
    t.equal(res.status, 201, res.text);
    t.equal((await refs(withAuth(res.json.clone_url, 'alice', alice.token)))['refs/heads/master']?.length, 40);
    const config = await readFile(path.join(reposDir, 'alice', 'authed-mirror.git', 'config'), 'utf8');
    t.match(config, new RegExp(`url = ${srcUrl.replace(/[.]/g, '\\.')}`), 'the source URL is stored');
    t.notMatch(config, new RegExp(secret), 'but not the secret');
    t.notMatch(config, /extraheader|@127/i);
    const storeDir = path.join(f.dataDir, 'store');
    const storeText = (await Promise.all((await readdir(storeDir)).map((name) => readFile(path.join(storeDir, name), 'utf8')))).join('\n');
    t.match(storeText, /"password":"v1:/, 'the mirror credentials are stored sealed');
    t.notMatch(storeText, new RegExp(secret), 'and never in clear in the store');

    const inUrl = await f.request('POST', '/repos/migrate', {
      token: alice.token, json: { clone_addr: withAuth(srcUrl, 'alice', secret), repo_name: 'url-creds', mirror: true },
    });
    t.equal(inUrl.status, 201, 'credentials inside clone_addr are accepted');
    t.notMatch(await readFile(path.join(reposDir, 'alice', 'url-creds.git', 'config'), 'utf8'), new RegExp(secret), '… and removed from the stored URL');

    // The mirror keeps syncing with its credentials.
    const wc = path.join(work, 'private-src-wc');
    await git(['clone', '-q', withAuth(srcUrl, 'alice', alice.token), wc]);
    await writeFile(path.join(wc, 'more.txt'), 'more');
    await git(['add', '.'], wc);
    await git(['commit', '-qm', 'more'], wc);
    t.equal((await git(['push', '-q', 'origin', 'HEAD:refs/heads/master'], wc)).code, 0);
    const tip = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
    t.equal((await f.request('POST', '/repos/alice/authed-mirror/mirror-sync', { token: alice.token })).status, 200);
    await waitFor('the authenticated sync', async () => (await refs(withAuth(res.json.clone_url, 'alice', alice.token)))['refs/heads/master'] === tip);
    t.pass('an authenticated sync');

    // Revoke the token: the sync fails, and the error does not show the secret.
    t.equal((await f.request('DELETE', `/users/alice/tokens/${tokenRes.json.id}`, { basic: ['alice', alice.password] })).status, 204);
    t.equal((await f.request('POST', '/repos/alice/authed-mirror/mirror-sync', { token: alice.token })).status, 200);
    const failed = await waitFor('the failing sync', async () => {
      const r = await f.request('GET', '/repos/alice/authed-mirror', { token: alice.token });
      return r.json.mirror_error && r.json;
    });
    t.notMatch(failed.mirror_error, new RegExp(secret), `mirror_error without the secret: ${failed.mirror_error}`);
    t.notMatch(JSON.stringify(failed), new RegExp(secret), 'nowhere in the Repository');
  });

  t.test('who may migrate where; bad input; nothing left behind on failure', async (t) => {
    const source = await makeSource();
    t.equal((await f.request('POST', '/orgs', { token: alice.token, json: { username: 'mirror-org' } })).status, 201);
    const org = await f.request('GET', '/orgs/mirror-org');
    const migrate = (token: string, json: Record<string, unknown>) => f.request('POST', '/repos/migrate', { token, json: { clone_addr: source.bare, ...json } });

    t.equal((await migrate(bob.token, { repo_name: 'x', uid: alice.id })).status, 403, 'into another user');
    t.equal((await migrate(bob.token, { repo_name: 'x', uid: 999999 })).status, 422, 'unknown uid');
    t.equal((await migrate(bob.token, { repo_name: 'x', repo_owner: 'nobody-at-all' })).status, 422, 'unknown repo_owner');
    t.equal((await migrate(bob.token, { repo_name: 'x', repo_owner: 'mirror-org' })).status, 403, 'an organization bob does not own');
    const intoOrg = await migrate(alice.token, { repo_name: 'org-copy', uid: org.json.id });
    t.equal(intoOrg.status, 201, 'an organization alice owns');
    t.equal(intoOrg.json.full_name, 'mirror-org/org-copy');
    const byAdmin = await migrate(f.admin.token, { repo_name: 'from-admin', repo_owner: 'bob' });
    t.equal(byAdmin.status, 201, 'site admins may migrate for anyone');
    t.equal(byAdmin.json.full_name, 'bob/from-admin');
    t.equal((await f.request('POST', '/repos/migrate', { json: { clone_addr: source.bare, repo_name: 'anon' } })).status, 401);

    t.equal((await f.request('POST', '/repos/migrate', { token: bob.token, json: { repo_name: 'no-addr' } })).status, 422, 'clone_addr is required');
    t.equal((await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: source.bare } })).status, 422, 'repo_name is required');
    t.equal((await migrate(bob.token, { repo_name: 'from-admin' })).status, 409, 'an existing name');
    const before = await readdirSafe(reposDir);
    for (const name of ['..', '../escape', 'a/b', 'x.git']) {
      t.equal((await migrate(bob.token, { repo_name: name })).status, 422, `repo_name ${name}`);
    }
    const missing = await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: path.join(work, 'does-not-exist'), repo_name: 'missing' } });
    t.equal(missing.status, 422);
    t.match(missing.json.message, /^clone_addr:/);
    const notRepo = await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: work, repo_name: 'not-a-repo' } });
    t.equal(notRepo.status, 422, 'a directory that is not a repository');
    t.equal((await f.request('GET', '/repos/bob/not-a-repo')).status, 404, 'no record');
    t.notOk(await exists(path.join(reposDir, 'bob', 'not-a-repo.git')), 'no directory');
    const closedPort = await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: 'http://127.0.0.1:9/x.git', repo_name: 'closed' } });
    t.equal(closedPort.status, 422, 'an unreachable server');
    const own = await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: path.join(reposDir, 'alice', 'private-src.git'), repo_name: 'peek' } });
    t.equal(own.status, 422, "another user's repository on disk is never a source, even with local sources allowed");
    t.match(own.json.message, /data directory/);
    const dataDir = await f.request('POST', '/repos/migrate', { token: bob.token, json: { clone_addr: `file://${f.dataDir}`, repo_name: 'peek2' } });
    t.equal(dataDir.status, 422);
    t.same(await readdirSafe(reposDir), before, 'no new owner directories');
  });
});

async function readdirSafe(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  try { return (await readdir(dir)).sort(); } catch { return []; }
}

t.test('the default policy refuses local paths and loopback/private addresses', async (t) => {
  const f = await startForge({ extraPlugins: plugins });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const source = await makeSource();
  const port = new URL(f.url).port;
  const made = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'here', auto_init: true } });
  t.equal(made.status, 201);
  const cases: Array<[string, RegExp]> = [
    [`http://127.0.0.1:${port}/alice/here.git`, /local or private/],
    [`http://localhost:${port}/alice/here.git`, /local or private/],
    [`http://[::1]:${port}/alice/here.git`, /local or private/],
    [`http://[::ffff:127.0.0.1]:${port}/alice/here.git`, /local or private/],
    [`http://0.0.0.0:${port}/alice/here.git`, /local or private/],
    ['https://10.1.2.3/x.git', /local or private/],
    ['https://192.168.1.20/x.git', /local or private/],
    ['https://169.254.169.254/latest/meta-data', /local or private/],
    ['git://172.16.0.1/x.git', /local or private/],
    ['http://2130706433/x.git', /local or private/],
    [source.bare, /local paths/],
    [`file://${source.bare}`, /local paths/],
    ['ssh://git@example.com/x.git', /http, https or git/],
    ['git@example.com:x/y.git', /http, https or git/],
    ['ext::sh -c touch% /tmp/forgekit-pwned', /spaces|http, https or git/],
    ['relative/path', /http, https or git/],
    ['https://forgekit-test.invalid/x.git', /cannot be resolved/],
  ];
  for (const [addr, reason] of cases) {
    const res = await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: addr, repo_name: 'refused', mirror: true } });
    t.equal(res.status, 422, addr);
    t.match(res.json?.message, /^clone_addr: /);
    t.match(res.json?.message, reason, `${addr}: ${res.json?.message}`);
  }
  t.equal((await f.request('GET', '/repos/alice/refused')).status, 404, 'no record was ever created');
  t.notOk(await exists(path.join(f.dataDir, 'repositories', 'alice', 'refused.git')));
  t.notOk(await exists('/tmp/forgekit-pwned'));
});

t.test('periodic mirror sync at the configured interval', async (t) => {
  const f = await startForge({ extraPlugins: plugins, config: { plugins: { git: { migrateAllowLocal: true, mirrorIntervalMs: 1000 } } } });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  t.equal((await f.request('PATCH', '/admin/users/alice', { token: f.admin.token, json: { allow_import_local: true } })).status, 200);
  const source = await makeSource();
  const res = await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: source.bare, repo_name: 'auto', mirror: true } });
  t.equal(res.status, 201);
  const tip = await source.addCommit('periodic.txt');
  const started = Date.now();
  await waitFor('the periodic sync', async () => (await refs(res.json.clone_url))['refs/heads/main'] === tip);
  t.pass(`synced without a request after ${Date.now() - started} ms`);
  const repo = await f.request('GET', '/repos/alice/auto');
  t.equal(repo.json.mirror_error, null);
});

t.test('credentials never reach the logs', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gitlogs-'));
  const port = await freePort();
  const forge = await createForge({
    plugins: [...builtinPlugins, ...plugins],
    logger: pino({ level: 'trace' }, sink),
    env: { FORGEKIT_MIGRATE_ALLOW_LOCAL: 'true' },
    config: { port, host: '127.0.0.1', dataDir, admin: { username: 'root', password: 'root-password-1', email: 'root@example.com' } },
  });
  const { url } = await forge.listen();
  t.teardown(async () => {
    await forge.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const api = (method: string, p: string, body: unknown, auth: string) => fetch(`${url}/api/v1${p}`, {
    method, headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const basic = `Basic ${Buffer.from('root:root-password-1').toString('base64')}`;
  const secret: string = (await (await api('POST', '/users/root/tokens', { name: 'mirror', scopes: ['all'] }, basic)).json()).sha1;
  const created = await (await api('POST', '/user/repos', { name: 'src', private: true, auto_init: true }, basic)).json();
  const wrongPassword = 'not-the-password-but-secret-looking-9f8e7d';

  const ok = await api('POST', '/repos/migrate', { clone_addr: created.clone_url, repo_name: 'm1', mirror: true, auth_username: 'root', auth_password: secret }, basic);
  t.equal(ok.status, 201);
  const inUrl = await api('POST', '/repos/migrate', { clone_addr: withAuth(created.clone_url, 'root', secret), repo_name: 'm2', mirror: true }, basic);
  t.equal(inUrl.status, 201);
  const bad = await api('POST', '/repos/migrate', { clone_addr: created.clone_url, repo_name: 'm3', auth_username: 'root', auth_password: wrongPassword }, basic);
  t.equal(bad.status, 422);
  t.notMatch(await bad.text(), wrongPassword, 'not in the error message');
  const tokens = await (await api('GET', '/users/root/tokens', undefined, basic)).json();
  const mirrorToken = tokens.find((x: any) => x.name === 'mirror');
  t.equal((await api('DELETE', `/users/root/tokens/${mirrorToken.id}`, undefined, basic)).status, 204);
  t.equal((await api('POST', '/repos/root/m1/mirror-sync', undefined, basic)).status, 200);
  const service = forge.service('git');
  await service.queue.idle();
  const repo = await (await api('GET', '/repos/root/m1', undefined, basic)).json();
  t.type(repo.mirror_error, 'string', 'the sync failed once the token was revoked');

  const log = lines.join('');
  t.match(log, /mirror sync failed/, 'the failure was logged');
  t.notMatch(log, secret, 'the token used as a migration password is in no log line');
  t.notMatch(log, wrongPassword, 'nor a wrong password');
  t.notMatch(log, Buffer.from(`root:${secret}`).toString('base64'), 'nor its Basic encoding');
  t.notMatch(log, 'root-password-1', 'nor the account password');
});

t.test('shutdown during a sync is clean', async (t) => {
  const f = await startForge({ extraPlugins: plugins, env: { FORGEKIT_MIGRATE_ALLOW_LOCAL: 'true' } });
  const alice = await f.createUser({ username: 'alice' });
  t.equal((await f.request('PATCH', '/admin/users/alice', { token: f.admin.token, json: { allow_import_local: true } })).status, 200);
  const source = await makeSource();
  t.equal((await f.request('POST', '/repos/migrate', { token: alice.token, json: { clone_addr: source.bare, repo_name: 'm', mirror: true } })).status, 201);
  const service = f.forge.service('git');
  t.equal((await f.request('POST', '/repos/alice/m/mirror-sync', { token: alice.token })).status, 200);
  const started = Date.now();
  await f.close();
  t.comment(`closed in ${Date.now() - started} ms`);
  t.equal(service.runner.running, 0, 'no git process left running');
  t.notOk(service.queue.isQueued(1), 'the queue is empty');
});
