// git plugin through HTTP and the real git client: bare repositories behind records, auto-init templates, clone and
// push over smart HTTP with auth, forks, default branch, deletion, and names that must never reach the file system.
import t from 'tap';
import { gzipSync } from 'node:zlib';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit, withAuth, exists, type GitResult } from '../helpers/git-client.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { builtinPlugins } from '../../plugins/index.js';
import gitPlugin from '../../plugins/git/index.js';

const plugins = builtinPlugins.some((p) => p.name === 'git') ? [] : [gitPlugin];


let gitHome = '';

/** The real git client, asynchronously (the server runs in this process), with no user config and no prompts. */
function git(args: string[], cwd?: string): Promise<GitResult> {
  return runGit(args, { home: gitHome, cwd });
}

/** Every path under a directory (relative), for "nothing was created" checks. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string, rel: string): Promise<void> {
    let entries: string[];
    try { entries = await readdir(d); } catch { return; }
    for (const e of entries) {
      out.push(path.join(rel, e));
      if ((await stat(path.join(d, e))).isDirectory() && !e.endsWith('.git')) await walk(path.join(d, e), path.join(rel, e));
    }
  }
  await walk(dir, '');
  return out.sort();
}

t.test('git storage and smart HTTP', async (t) => {
  gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gitclient-'));
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gitwork-'));
  const f: TestForge = await startForge({ extraPlugins: plugins });
  t.teardown(async () => {
    await f.close();
    await rm(gitHome, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });
  const reposDir = path.join(f.dataDir, 'repositories');
  const alice: TestUser = await f.createUser({ username: 'alice' });
  const bob: TestUser = await f.createUser({ username: 'bob' });
  const carol: TestUser = await f.createUser({ username: 'carol' });
  let n = 0;
  const dest = (name: string) => path.join(work, `${name}-${++n}`);

  t.test('GET /gitignore/templates and /licenses', async (t) => {
    const ignores = await f.request('GET', '/gitignore/templates');
    t.equal(ignores.status, 200);
    for (const name of ['Node', 'Python', 'Go', 'Rust', 'Java', 'C', 'C++']) t.ok(ignores.json.includes(name), `lists ${name}`);
    t.ok(ignores.json.every((x: unknown) => typeof x === 'string'), 'an array of names');
    const one = await f.request('GET', '/gitignore/templates/node');
    t.equal(one.status, 200, 'matched case-insensitively');
    t.equal(one.json.name, 'Node');
    t.match(one.json.source, /node_modules\//);
    t.equal((await f.request('GET', `/gitignore/templates/${encodeURIComponent('c++')}`)).json.name, 'C++');
    t.equal((await f.request('GET', '/gitignore/templates/Cobol-ish')).status, 404);

    const licenses = await f.request('GET', '/licenses');
    t.equal(licenses.status, 200);
    t.ok(licenses.json.length > 400, 'the SPDX list');
    const mit = licenses.json.find((l: any) => l.key === 'MIT');
    t.same(mit, { key: 'MIT', name: 'MIT License', url: `${f.api}/licenses/MIT` });
    t.ok(licenses.json.some((l: any) => l.key === 'Apache-2.0') && licenses.json.some((l: any) => l.key === 'GPL-3.0-only'));
    const full = await f.request('GET', '/licenses/mit');
    t.equal(full.status, 200);
    t.equal(full.json.key, 'MIT');
    t.match(full.json.body, /Permission is hereby granted, free of charge/);
    t.equal((await f.request('GET', '/licenses/Not-A-License')).status, 404);
  });

  t.test('auto_init: README, .gitignore and LICENSE in one commit by the owner; git clone works', async (t) => {
    const res = await f.request('POST', '/user/repos', {
      token: alice.token,
      json: { name: 'Hello-World', description: 'My first repo', auto_init: true, gitignores: 'node, PYTHON', license: 'mit' },
    });
    t.equal(res.status, 201, res.text);
    t.equal(res.json.empty, false, 'empty is false after the initial commit');
    t.ok(res.json.size > 0, `size is ${res.json.size} KiB`);
    t.equal(res.json.default_branch, 'master');
    t.equal(res.json.clone_url, `${f.url}/alice/Hello-World.git`);
    t.ok(await exists(path.join(reposDir, 'alice', 'hello-world.git', 'HEAD')), 'a bare repository at <data>/repositories/alice/hello-world.git');

    const dir = dest('hello');
    const clone = await git(['clone', res.json.clone_url, dir]);
    t.equal(clone.code, 0, clone.stderr);
    t.equal(await readFile(path.join(dir, 'README.md'), 'utf8'), '# Hello-World\n\nMy first repo\n', 'README from the Default template');
    const ignore = await readFile(path.join(dir, '.gitignore'), 'utf8');
    t.match(ignore, /^# ---> Node\n/, 'Node template first');
    t.match(ignore, /\n# ---> Python\n/, 'then Python');
    t.match(ignore, /__pycache__\//);
    const license = await readFile(path.join(dir, 'LICENSE'), 'utf8');
    t.match(license, /^MIT License/);
    t.match(license, new RegExp(`Copyright \\(c\\) ${new Date().getUTCFullYear()} alice`), 'year and owner filled in');
    t.notMatch(license, /<year>|<copyright holders>/);
    const log = await git(['log', '--format=%an|%ae|%cn|%ce|%s'], dir);
    const noreply = `alice@noreply.${new URL(f.url).hostname}`;
    t.equal(log.stdout.trim(), `alice|${noreply}|alice|${noreply}|Initial commit`, 'one commit, by the owner, as its no-reply address');
    t.notMatch((await git(['log', '--format=%ae %ce %B'], dir)).stdout, /example\.com/, 'an anonymous clone shows no email of the owner');
    t.equal((await git(['rev-parse', '--abbrev-ref', 'HEAD'], dir)).stdout.trim(), 'master');

    const viaBareName = await git(['ls-remote', `${f.url}/alice/hello-world`]);
    t.equal(viaBareName.code, 0, 'the URL works without .git and in any case');
    t.match(viaBareName.stdout, /refs\/heads\/master/);
  });

  t.test('auto_init with other licenses and templates', async (t) => {
    const res = await f.request('POST', '/user/repos', {
      token: alice.token, json: { name: 'apache', auto_init: true, license: 'Apache-2.0', readme: 'default', gitignores: 'Go,Rust,Java,C,C++' },
    });
    t.equal(res.status, 201, res.text);
    const dir = dest('apache');
    t.equal((await git(['clone', res.json.clone_url, dir])).code, 0);
    const license = await readFile(path.join(dir, 'LICENSE'), 'utf8');
    t.match(license, /Apache License/);
    t.match(license, new RegExp(`Copyright ${new Date().getUTCFullYear()} alice`));
    const ignore = await readFile(path.join(dir, '.gitignore'), 'utf8');
    t.same(ignore.match(/^# ---> .+$/gm), ['# ---> Go', '# ---> Rust', '# ---> Java', '# ---> C', '# ---> C++']);
    t.equal(await readFile(path.join(dir, 'README.md'), 'utf8'), '# apache\n', 'no description, no blank lines');

    const plain = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'readme-only', auto_init: true } });
    t.equal(plain.status, 201);
    const dir2 = dest('readme-only');
    t.equal((await git(['clone', plain.json.clone_url, dir2])).code, 0);
    t.same((await readdir(dir2)).filter((x) => x !== '.git'), ['README.md'], 'only the README without gitignores and license');
  });

  t.test('an unknown template is a 422 before anything is created', async (t) => {
    const before = await tree(reposDir);
    for (const [field, body] of [
      ['gitignores', { gitignores: 'Node,NoSuchThing' }],
      ['license', { license: 'NOT-A-LICENSE-9' }],
      ['readme', { readme: 'Fancy' }],
    ] as const) {
      const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: `bad-${field}`, auto_init: true, ...body } });
      t.equal(res.status, 422, field);
      t.match(res.json.message, new RegExp(`^${field}:`), 'the message names the field');
      t.equal((await f.request('GET', `/repos/alice/bad-${field}`)).status, 404, 'no record');
    }
    t.same(await tree(reposDir), before, 'no directory');
  });

  t.test('push to an empty repository: empty flips, size grows, HEAD follows the first branch', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'empty-one' } });
    t.equal(res.status, 201);
    t.equal(res.json.empty, true);
    t.equal(res.json.size, 0);
    const dir = dest('empty');
    const clone = await git(['clone', withAuth(res.json.clone_url, 'alice', alice.token), dir]);
    t.equal(clone.code, 0, 'an empty repository clones');
    t.match(clone.stderr, /empty repository/);
    await writeFile(path.join(dir, 'a.txt'), 'hello\n'.repeat(2000));
    await writeFile(path.join(dir, 'b.bin'), Buffer.from(Array.from({ length: 20000 }, (_, i) => (i * 7919) % 251)));
    await git(['add', '.'], dir);
    t.equal((await git(['commit', '-qm', 'first'], dir)).code, 0);
    const push = await git(['push', 'origin', 'HEAD:refs/heads/main'], dir);
    t.equal(push.code, 0, push.stderr);
    const after = await f.request('GET', '/repos/alice/empty-one');
    t.equal(after.json.empty, false, 'empty flipped');
    t.ok(after.json.size > 0, `size grew to ${after.json.size} KiB`);
    t.equal(after.json.default_branch, 'main', 'the first pushed branch became the default (HEAD was master)');
    const fresh = dest('empty-clone');
    t.equal((await git(['clone', after.json.clone_url, fresh])).code, 0);
    t.equal((await git(['rev-parse', '--abbrev-ref', 'HEAD'], fresh)).stdout.trim(), 'main');
    t.equal(await readFile(path.join(fresh, 'a.txt'), 'utf8'), 'hello\n'.repeat(2000));

    // A second, bigger push grows the size again.
    await writeFile(path.join(dir, 'c.bin'), Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 2654435761) % 256)));
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 'second'], dir);
    t.equal((await git(['push', 'origin', 'HEAD:refs/heads/main'], dir)).code, 0);
    const grown = await f.request('GET', '/repos/alice/empty-one');
    t.ok(grown.json.size > after.json.size, `size ${after.json.size} → ${grown.json.size} KiB`);
  });

  t.test('private repositories: anonymous clone refused with a Basic challenge; token and password accepted', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'secret', private: true, auto_init: true } });
    t.equal(res.status, 201);
    const anon = await git(['clone', res.json.clone_url, dest('anon')]);
    t.not(anon.code, 0, 'anonymous clone fails');
    t.match(anon.stderr, /Authentication failed|could not read Username|terminal prompts disabled/);

    const refs = await f.request('GET', '/alice/secret.git/info/refs?service=git-upload-pack', { root: true });
    t.equal(refs.status, 401);
    t.match(refs.headers.get('www-authenticate') ?? '', /^Basic realm="forgekit"/);
    const missing = await f.request('GET', '/alice/no-such-repo.git/info/refs?service=git-upload-pack', { root: true });
    t.equal(missing.status, 401, 'a missing repository looks the same to an anonymous client (nothing leaks)');

    const byToken = await git(['clone', withAuth(res.json.clone_url, 'alice', alice.token), dest('token')]);
    t.equal(byToken.code, 0, `token as the Basic password: ${byToken.stderr}`);
    const byPassword = await git(['clone', withAuth(res.json.clone_url, 'alice', alice.password), dest('password')]);
    t.equal(byPassword.code, 0, 'password');
    const admin = await git(['clone', withAuth(res.json.clone_url, 'root', f.admin.token), dest('admin')]);
    t.equal(admin.code, 0, 'site admin');
    const wrong = await git(['clone', withAuth(res.json.clone_url, 'alice', 'wrong-password'), dest('wrong')]);
    t.not(wrong.code, 0, 'a wrong password fails');
    const stranger = await f.request('GET', '/alice/secret.git/info/refs?service=git-upload-pack', { root: true, basic: ['bob', bob.token] });
    t.equal(stranger.status, 404, 'a signed-in stranger gets 404 (no hint the repository exists)');
    const strangerClone = await git(['clone', withAuth(res.json.clone_url, 'bob', bob.token), dest('stranger')]);
    t.not(strangerClone.code, 0);

    t.equal((await f.request('PUT', '/repos/alice/secret/collaborators/carol', { token: alice.token, json: { permission: 'read' } })).status, 204);
    const reader = await git(['clone', withAuth(res.json.clone_url, 'carol', carol.token), dest('reader')]);
    t.equal(reader.code, 0, 'a read collaborator clones');
  });

  t.test('push needs write access; mirrors and anonymous clients cannot push', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'shared', auto_init: true } });
    t.equal(res.status, 201);
    const head = (await git(['ls-remote', res.json.clone_url, 'refs/heads/master'])).stdout.split('\t')[0];
    const tryPush = async (user: string | null, secret: string, label: string) => {
      const url = user ? withAuth(res.json.clone_url, user, secret) : res.json.clone_url;
      const dir = dest(label);
      t.equal((await git(['clone', url, dir])).code, 0, `${label} can clone the public repository`);
      await writeFile(path.join(dir, `${label}.txt`), label);
      await git(['add', '.'], dir);
      await git(['commit', '-qm', label], dir);
      return git(['push', 'origin', 'HEAD:refs/heads/master'], dir);
    };
    const anon = await tryPush(null, '', 'anonymous');
    t.not(anon.code, 0, 'anonymous push refused');
    const anonRefs = await f.request('GET', '/alice/shared.git/info/refs?service=git-receive-pack', { root: true });
    t.equal(anonRefs.status, 401, 'anonymous receive-pack is asked to authenticate');

    const stranger = await tryPush('bob', bob.token, 'bob');
    t.not(stranger.code, 0, 'a user without write access cannot push');
    t.match(stranger.stderr, /403/);
    t.equal((await f.request('PUT', '/repos/alice/shared/collaborators/carol', { token: alice.token, json: { permission: 'read' } })).status, 204);
    const reader = await tryPush('carol', carol.token, 'carol');
    t.not(reader.code, 0, 'a reader cannot push');
    t.equal((await git(['ls-remote', res.json.clone_url, 'refs/heads/master'])).stdout.split('\t')[0], head, 'nothing changed');

    const rawReceive = await f.request('POST', '/alice/shared.git/git-receive-pack', {
      root: true, basic: ['carol', carol.token], headers: { 'Content-Type': 'application/x-git-receive-pack-request' }, body: '0000',
    });
    t.equal(rawReceive.status, 403, 'the POST itself is checked too');

    t.equal((await f.request('PUT', '/repos/alice/shared/collaborators/carol', { token: alice.token, json: { permission: 'write' } })).status, 204);
    const writer = await tryPush('carol', carol.token, 'carol-writer');
    t.equal(writer.code, 0, `a write collaborator pushes: ${writer.stderr}`);
    t.not((await git(['ls-remote', res.json.clone_url, 'refs/heads/master'])).stdout.split('\t')[0], head, 'master moved');
  });

  t.test('smart HTTP details: dumb protocol refused, content types, gzip request bodies, protocol v2', async (t) => {
    const dumb = await f.request('GET', '/alice/hello-world.git/info/refs', { root: true });
    t.equal(dumb.status, 400, 'no ?service: the dumb protocol is not served');
    const adv = await f.request('GET', '/alice/hello-world.git/info/refs?service=git-upload-pack', { root: true });
    t.equal(adv.status, 200);
    t.equal(adv.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
    t.match(adv.headers.get('cache-control') ?? '', /no-cache/);
    t.ok(adv.text.startsWith('001e# service=git-upload-pack\n0000'), 'v0 advertisement starts with the service line');
    const sha = /([0-9a-f]{40}) refs\/heads\/master/.exec(adv.text)?.[1];
    t.ok(sha, 'master is advertised');

    const wrongType = await f.request('POST', '/alice/hello-world.git/git-upload-pack', { root: true, headers: { 'Content-Type': 'text/plain' }, body: '0000' });
    t.equal(wrongType.status, 415);

    const want = `0032want ${sha}\n00000009done\n`;
    const gz = await fetch(`${f.url}/alice/hello-world.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
      body: gzipSync(Buffer.from(want)),
    });
    t.equal(gz.status, 200);
    t.equal(gz.headers.get('content-type'), 'application/x-git-upload-pack-result');
    const pack = Buffer.from(await gz.arrayBuffer());
    t.ok(pack.includes(Buffer.from('PACK')), 'a gzip-encoded request gets a pack');
    // Repeated: whether the body fails before git starts is a race (it was once an uncaught exception, in 1 of many runs).
    for (let i = 0; i < 25; i++) {
      const badGzip = await fetch(`${f.url}/alice/hello-world.git/git-upload-pack`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
        body: Buffer.from('this is not gzip'),
      });
      await badGzip.arrayBuffer().catch(() => undefined);
      if (i === 0) t.ok(badGzip.status < 500 || badGzip.status === 200, 'a corrupt gzip body does not crash the server');
    }
    t.equal((await f.request('GET', '/version')).status, 200, 'still serving');

    const v2 = await fetch(`${f.url}/alice/hello-world.git/info/refs?service=git-upload-pack`, { headers: { 'Git-Protocol': 'version=2' } });
    const v2text = await v2.text();
    t.match(v2text, /^000eversion 2\n/, 'protocol v2 capability advertisement');
    const v2clone = await git(['-c', 'protocol.version=2', 'clone', `${f.url}/alice/hello-world.git`, dest('v2')]);
    t.equal(v2clone.code, 0, 'a protocol v2 clone');
    const v0clone = await git(['-c', 'protocol.version=0', 'clone', `${f.url}/alice/hello-world.git`, dest('v0')]);
    t.equal(v0clone.code, 0, 'a protocol v0 clone');
  });

  t.test('forks: 202, a bare clone with hard-linked objects, same default branch; 409/422/403; lists by access', async (t) => {
    const parent = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'forkme', auto_init: true, license: 'MIT' } });
    t.equal(parent.status, 201);
    t.equal((await f.request('PATCH', '/repos/alice/forkme', { token: alice.token, json: { default_branch: 'master' } })).status, 200);
    const fork = await f.request('POST', '/repos/alice/forkme/forks', { token: bob.token });
    t.equal(fork.status, 202, fork.text);
    t.match(fork.json, { full_name: 'bob/forkme', fork: true, empty: false, default_branch: 'master', private: false });
    t.ok(fork.json.size > 0);
    t.match(fork.json.parent, { full_name: 'alice/forkme', parent: null, forks_count: 1 });
    t.equal((await f.request('GET', '/repos/alice/forkme')).json.forks_count, 1, 'forks_count is exact');

    const dir = dest('fork');
    t.equal((await git(['clone', fork.json.clone_url, dir])).code, 0);
    t.ok(await exists(path.join(dir, 'LICENSE')), 'the fork has the parent content');
    const parentLog = await git(['ls-remote', parent.json.clone_url, 'HEAD']);
    const forkLog = await git(['ls-remote', fork.json.clone_url, 'HEAD']);
    t.equal(forkLog.stdout.split('\t')[0], parentLog.stdout.split('\t')[0], 'same HEAD commit');
    const forkDir = path.join(reposDir, 'bob', 'forkme.git');
    const objectFiles: string[] = [];
    for (const sub of await readdir(path.join(forkDir, 'objects'))) {
      if (!/^([0-9a-f]{2}|pack)$/.test(sub)) continue;
      for (const file of await readdir(path.join(forkDir, 'objects', sub))) objectFiles.push(path.join(forkDir, 'objects', sub, file));
    }
    t.ok(objectFiles.length >= 3, `${objectFiles.length} object files`);
    const links = await Promise.all(objectFiles.map(async (file) => (await stat(file)).nlink));
    t.ok(links.every((count) => count > 1), 'every object file is hard-linked with the parent');
    t.notMatch(await readFile(path.join(forkDir, 'config'), 'utf8'), /remote "origin"/, 'no remote pointing into the data dir');

    const again = await f.request('POST', '/repos/alice/forkme/forks', { token: bob.token, json: { name: 'forkme-2' } });
    t.equal(again.status, 409, 'a second fork by the same owner');
    const own = await f.request('POST', '/repos/alice/forkme/forks', { token: alice.token });
    t.equal(own.status, 409, 'forking into the same name under the same owner');
    const renamed = await f.request('POST', '/repos/alice/forkme/forks', { token: alice.token, json: { name: 'forkme-copy' } });
    t.equal(renamed.status, 202, 'the owner may fork under another name');
    t.equal((await f.request('GET', '/repos/alice/forkme')).json.forks_count, 2);

    t.equal((await f.request('POST', '/repos/alice/forkme/forks', { token: carol.token, json: { organization: 'no-such-org' } })).status, 422);
    t.equal((await f.request('POST', '/orgs', { token: alice.token, json: { username: 'acme' } })).status, 201);
    t.equal((await f.request('POST', '/repos/alice/forkme/forks', { token: carol.token, json: { organization: 'acme' } })).status, 403, 'not a member');
    t.equal((await f.request('POST', '/repos/alice/forkme/forks', { token: carol.token, json: { organization: 'alice' } })).status, 422, 'a user is not an organization');
    const orgFork = await f.request('POST', '/repos/alice/forkme/forks', { token: alice.token, json: { organization: 'acme' } });
    t.equal(orgFork.status, 202);
    t.equal(orgFork.json.full_name, 'acme/forkme');
    t.equal((await f.request('POST', '/repos/alice/forkme/forks')).status, 401);
    t.equal((await f.request('POST', '/repos/alice/nothing/forks', { token: bob.token })).status, 404);
    t.equal((await f.request('POST', '/repos/alice/forkme/forks', { token: carol.token, json: { name: '../escape' } })).status, 422);

    const list = await f.request('GET', '/repos/alice/forkme/forks');
    t.equal(list.status, 200);
    t.same(list.json.map((r: any) => r.full_name), ['bob/forkme', 'alice/forkme-copy', 'acme/forkme'], 'oldest first');
    t.equal(list.headers.get('x-total-count'), '3');
    const paged = await f.request('GET', '/repos/alice/forkme/forks?limit=1&page=2');
    t.same(paged.json.map((r: any) => r.full_name), ['alice/forkme-copy']);
    t.match(paged.headers.get('link') ?? '', /rel="next"/);

    // A private parent: its fork is private, and only those who can read it see it in the list.
    const priv = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'private-parent', private: true, auto_init: true } });
    t.equal(priv.status, 201);
    await f.request('PUT', '/repos/alice/private-parent/collaborators/carol', { token: alice.token, json: { permission: 'read' } });
    const privFork = await f.request('POST', '/repos/alice/private-parent/forks', { token: carol.token });
    t.equal(privFork.status, 202);
    t.equal(privFork.json.private, true, 'a fork of a private repository is private');
    t.equal((await f.request('POST', '/repos/alice/private-parent/forks', { token: bob.token })).status, 404, 'unreadable parent');
    const makePublic = await f.request('PATCH', '/repos/alice/private-parent', { token: alice.token, json: { private: false } });
    t.equal(makePublic.status, 200);
    t.same((await f.request('GET', '/repos/alice/private-parent/forks')).json, [], 'anonymous callers do not see the private fork');
    t.same((await f.request('GET', '/repos/alice/private-parent/forks', { token: carol.token })).json.map((r: any) => r.full_name), ['carol/private-parent']);
    t.same((await f.request('GET', '/repos/alice/private-parent/forks', { token: f.admin.token })).json.map((r: any) => r.full_name), ['carol/private-parent'], 'admins see all');

    // Forking an empty repository gives a valid empty repository.
    await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'bare-parent' } });
    const emptyFork = await f.request('POST', '/repos/alice/bare-parent/forks', { token: bob.token });
    t.equal(emptyFork.status, 202);
    t.equal(emptyFork.json.empty, true);
    const edir = dest('empty-fork');
    t.equal((await git(['clone', withAuth(emptyFork.json.clone_url, 'bob', bob.token), edir])).code, 0);
    await writeFile(path.join(edir, 'x.txt'), 'x');
    await git(['add', '.'], edir);
    await git(['commit', '-qm', 'x'], edir);
    t.equal((await git(['push', 'origin', 'HEAD:refs/heads/master'], edir)).code, 0, 'and it takes pushes');
    t.equal((await f.request('GET', '/repos/bob/bare-parent')).json.empty, false);
  });

  t.test('PATCH default_branch moves HEAD', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'branches', auto_init: true } });
    const dir = dest('branches');
    await git(['clone', withAuth(res.json.clone_url, 'alice', alice.token), dir]);
    await git(['checkout', '-qb', 'develop'], dir);
    await writeFile(path.join(dir, 'dev.txt'), 'dev');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 'dev'], dir);
    t.equal((await git(['push', 'origin', 'develop'], dir)).code, 0);
    t.equal((await f.request('GET', '/repos/alice/branches')).json.default_branch, 'master', 'pushing another branch keeps the default');
    t.equal((await f.request('PATCH', '/repos/alice/branches', { token: alice.token, json: { default_branch: 'develop' } })).status, 200);
    const fresh = dest('branches-clone');
    await git(['clone', res.json.clone_url, fresh]);
    t.equal((await git(['rev-parse', '--abbrev-ref', 'HEAD'], fresh)).stdout.trim(), 'develop', 'a new clone checks out the new default');
  });

  t.test('names never reach the file system unchecked', async (t) => {
    const before = await tree(f.dataDir);
    for (const name of ['../../evil', '..', '.', 'a/b', 'x\\y', '/abs', 'evil.git', '%2e%2e']) {
      const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name } });
      t.equal(res.status, 422, `name ${JSON.stringify(name)} → 422`);
    }
    for (const p of ['/alice/..%2F..%2Fetc.git/info/refs?service=git-upload-pack', '/alice/..%2F..%2Fhello-world.git/info/refs?service=git-upload-pack',
      '/..%2F..%2F/hello-world.git/info/refs?service=git-upload-pack']) {
      const res = await f.request('GET', p, { root: true, basic: ['alice', alice.token] });
      t.equal(res.status, 404, `${p} → 404`);
    }
    const traversalPush = await f.request('POST', '/alice/..%2Fbob%2Fforkme.git/git-receive-pack', {
      root: true, basic: ['alice', alice.token], headers: { 'Content-Type': 'application/x-git-receive-pack-request' }, body: '0000',
    });
    t.equal(traversalPush.status, 404);
    t.same(await tree(f.dataDir), before, 'nothing was created anywhere under the data dir');
    t.notOk(await exists(path.join(f.dataDir, 'evil.git')));
    t.notOk(await exists(path.join(path.dirname(f.dataDir), 'evil.git')));
  });

  t.test('deleting a repository removes its directory; deleting the account removes the owner directory', async (t) => {
    const dave = await f.createUser({ username: 'dave' });
    const res = await f.request('POST', '/user/repos', { token: dave.token, json: { name: 'Temp', auto_init: true } });
    t.equal(res.status, 201);
    const dir = path.join(reposDir, 'dave', 'temp.git');
    t.ok(await exists(dir));
    t.equal((await f.request('DELETE', '/repos/dave/temp', { token: dave.token })).status, 204);
    t.notOk(await exists(dir), 'directory removed');
    t.notOk(await exists(path.join(reposDir, 'dave')), 'the empty owner directory too');
    t.equal((await git(['ls-remote', res.json.clone_url])).code === 0, false, 'no longer clonable');

    await f.request('POST', '/user/repos', { token: dave.token, json: { name: 'one', auto_init: true } });
    await f.request('POST', '/user/repos', { token: dave.token, json: { name: 'two' } });
    t.ok(await exists(path.join(reposDir, 'dave', 'one.git')));
    t.equal((await f.request('DELETE', '/admin/users/dave?purge=true', { token: f.admin.token })).status, 204);
    t.notOk(await exists(path.join(reposDir, 'dave')), 'all of the account\'s repositories are gone');

    // The name is free again and gets a fresh directory.
    const eve = await f.createUser({ username: 'eve' });
    await f.request('POST', '/user/repos', { token: eve.token, json: { name: 'again', auto_init: true } });
    t.equal((await f.request('DELETE', '/repos/eve/again', { token: eve.token })).status, 204);
    const recreated = await f.request('POST', '/user/repos', { token: eve.token, json: { name: 'again' } });
    t.equal(recreated.status, 201);
    t.equal(recreated.json.empty, true, 'a re-created repository starts empty');
  });

  t.test('a stale directory without a record does not block creation', async (t) => {
    const dir = path.join(reposDir, 'alice', 'ghost.git');
    await git(['init', '--bare', '-q', dir]);
    await writeFile(path.join(dir, 'marker'), 'left over by a crash');
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'ghost', auto_init: true } });
    t.equal(res.status, 201);
    t.notOk(await exists(path.join(dir, 'marker')), 'the leftover was replaced');
    t.equal((await git(['ls-remote', res.json.clone_url])).code, 0);
  });

  t.test('a record whose directory went missing answers 404, not an empty 200', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'vanished', auto_init: true } });
    await rm(path.join(reposDir, 'alice', 'vanished.git'), { recursive: true, force: true });
    const refs = await f.request('GET', '/alice/vanished.git/info/refs?service=git-upload-pack', { root: true });
    t.equal(refs.status, 404);
    const post = await f.request('POST', '/alice/vanished.git/git-upload-pack', {
      root: true, headers: { 'Content-Type': 'application/x-git-upload-pack-request' }, body: '0000',
    });
    t.equal(post.status, 404);
    t.not((await git(['ls-remote', res.json.clone_url])).code, 0);
  });
});
