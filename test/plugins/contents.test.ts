// contents plugin through HTTP against real repositories pushed with the real git client: branches, tags, commits,
// compare, refs, trees, blobs, notes, contents, raw/media, archives, languages, editorconfig; private repositories
// are 404 on every route; names and paths are checked before git sees them.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit, withAuth, type GitResult } from '../helpers/git-client.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

t.test('contents: reads', async (t) => {
  const gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-contents-client-'));
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-contents-work-'));
  const f: TestForge = await startForge();
  t.teardown(async () => {
    await f.close();
    await rm(gitHome, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });
  const git = (args: string[], cwd?: string): Promise<GitResult> => runGit(args, { home: gitHome, cwd });
  const must = async (args: string[], cwd?: string) => {
    const r = await git(args, cwd);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const alice: TestUser = await f.createUser({ username: 'reader-alice' });
  const bob: TestUser = await f.createUser({ username: 'reader-bob' });
  const created = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'proj' } });
  t.equal(created.status, 201);
  const dir = path.join(work, 'proj');
  await must(['init', '-q', '-b', 'main', dir]);
  await mkdir(path.join(dir, 'src', 'lib'), { recursive: true });
  await writeFile(path.join(dir, 'README.md'), '# proj\n');
  await writeFile(path.join(dir, 'src', 'index.ts'), 'export const x = 1;\n');
  await writeFile(path.join(dir, 'src', 'lib', 'util.go'), 'package lib\n');
  await writeFile(path.join(dir, '.editorconfig'), 'root = true\n\n[*]\nindent_style = space\n\n[*.go]\nindent_style = tab\nindent_size = 4\n');
  await must(['add', '.'], dir);
  await must(['commit', '-qm', 'initial'], dir);
  const c1 = await must(['rev-parse', 'HEAD'], dir);
  await writeFile(path.join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  await chmod(path.join(dir, 'run.sh'), 0o755);
  await symlink('README.md', path.join(dir, 'link'));
  const big = Buffer.alloc(200_000, 'abcdefghij\n');
  await writeFile(path.join(dir, 'big.txt'), big);
  await writeFile(path.join(dir, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  await writeFile(path.join(dir, 'page.html'), '<script>alert(1)</script>');
  await writeFile(path.join(dir, '.gitmodules'), '[submodule "dep"]\n\tpath = dep\n\turl = https://example.com/dep.git\n');
  await must(['add', '.'], dir);
  await must(['update-index', '--add', '--cacheinfo', `160000,${c1},dep`], dir);
  await must(['commit', '-qm', 'second\n\nwith a body'], dir);
  const c2 = await must(['rev-parse', 'HEAD'], dir);
  await writeFile(path.join(dir, 'src', 'index.ts'), 'export const x = 2;\n');
  await must(['add', 'src/index.ts'], dir);
  await must(['commit', '-qm', 'third'], dir);
  const c3 = await must(['rev-parse', 'HEAD'], dir);
  await must(['tag', 'v1', c1], dir);
  await must(['tag', '-a', 'v2', '-m', 'release two', c2], dir);
  await must(['branch', 'feature/x', c2], dir);
  await must(['notes', 'add', '-m', 'a note', c2], dir);
  const url = withAuth(created.json.clone_url, 'reader-alice', alice.token);
  await must(['push', '-q', url, 'main', 'feature/x', 'v1', 'v2', 'refs/notes/commits'], dir);
  const tree3 = await must(['rev-parse', `${c3}^{tree}`], dir);
  const v2obj = await must(['rev-parse', 'v2'], dir);
  const A = '/repos/reader-alice/proj';

  t.test('branches', async (t) => {
    const list = await f.request('GET', `${A}/branches`);
    t.equal(list.status, 200);
    t.equal(list.headers.get('x-total-count'), '2');
    t.same(list.json.map((b: any) => b.name), ['feature/x', 'main']);
    const main = list.json[1];
    t.match(main, { name: 'main', protected: false, user_can_push: false, effective_branch_protection_name: '' });
    t.match(main.commit, { id: c3, message: 'third\n', author: { name: 'Test Author', email: 'author@example.com' } });
    t.equal(main.commit.url, `${f.url}/reader-alice/proj/commit/${c3}`);
    t.equal(main.commit.verification.reason, 'gpg.error.not_signed_commit');
    const page = await f.request('GET', `${A}/branches?limit=1&page=2`);
    t.same(page.json.map((b: any) => b.name), ['main']);
    t.match(page.headers.get('link') ?? '', /rel="first"/);
    const one = await f.request('GET', `${A}/branches/feature/x`);
    t.equal(one.status, 200);
    t.equal(one.json.commit.id, c2);
    const own = await f.request('GET', `${A}/branches/main`, { token: alice.token });
    t.equal(own.json.user_can_push, true);
    t.equal((await f.request('GET', `${A}/branches/nope`)).status, 404);
    t.equal((await f.request('GET', `${A}/branches/..%2Fetc`)).status, 404);
  });

  t.test('tags', async (t) => {
    const list = await f.request('GET', `${A}/tags`);
    t.equal(list.status, 200);
    t.equal(list.headers.get('x-total-count'), '2');
    const v1 = list.json.find((x: any) => x.name === 'v1');
    const v2 = list.json.find((x: any) => x.name === 'v2');
    t.match(v1, { id: c1, commit: { sha: c1 }, zipball_url: `${f.url}/reader-alice/proj/archive/v1.zip`, tarball_url: `${f.url}/reader-alice/proj/archive/v1.tar.gz` });
    t.match(v2, { id: v2obj, message: 'release two\n', commit: { sha: c2 } });
    t.equal((await f.request('GET', `${A}/tags/v2`)).json.id, v2obj);
    t.equal((await f.request('GET', `${A}/tags/v9`)).status, 404);
    const annotated = await f.request('GET', `${A}/git/tags/${v2obj}`);
    t.equal(annotated.status, 200);
    t.match(annotated.json, { tag: 'v2', sha: v2obj, message: 'release two\n', object: { type: 'commit', sha: c2 }, tagger: { name: 'Test Author' } });
    t.equal((await f.request('GET', `${A}/git/tags/${c1}`)).status, 404, 'a commit is no tag object');
  });

  t.test('commits', async (t) => {
    const list = await f.request('GET', `${A}/commits`);
    t.equal(list.status, 200);
    t.equal(list.headers.get('x-total-count'), '3');
    t.same(list.json.map((c: any) => c.sha), [c3, c2, c1]);
    const third = list.json[0];
    t.match(third, {
      sha: c3, html_url: `${f.url}/reader-alice/proj/commit/${c3}`, url: `${f.api}/repos/reader-alice/proj/git/commits/${c3}`,
      commit: { message: 'third\n', tree: { sha: tree3 }, author: { name: 'Test Author', email: 'author@example.com' } },
      author: null, parents: [{ sha: c2 }], files: [{ filename: 'src/index.ts', status: 'modified' }], stats: { total: 2, additions: 1, deletions: 1 },
    });
    t.match(list.json[1].files.map((x: any) => x.filename).sort(), ['.gitmodules', 'big.txt', 'dep', 'link', 'page.html', 'pic.png', 'run.sh']);
    const paged = await f.request('GET', `${A}/commits?limit=1&page=2&stat=false&files=false&verification=false`);
    t.same(paged.json.map((c: any) => c.sha), [c2]);
    t.equal(paged.json[0].files, null);
    t.equal(paged.json[0].stats, null);
    t.equal(paged.headers.get('x-total-count'), '3');
    t.equal(paged.headers.get('x-hasmore'), 'true');
    const byPath = await f.request('GET', `${A}/commits?path=src/index.ts`);
    t.same(byPath.json.map((c: any) => c.sha), [c3, c1]);
    t.equal(byPath.headers.get('x-total-count'), '2');
    const fromBranch = await f.request('GET', `${A}/commits?sha=feature/x`);
    t.same(fromBranch.json.map((c: any) => c.sha), [c2, c1]);
    const notQ = await f.request('GET', `${A}/commits?sha=main&not=v1`);
    t.same(notQ.json.map((c: any) => c.sha), [c3, c2]);
    const future = await f.request('GET', `${A}/commits?since=2999-01-01T00:00:00Z`);
    t.same(future.json, []);
    t.equal(future.headers.get('x-total-count'), '0');
    t.equal((await f.request('GET', `${A}/commits?sha=nope`)).status, 404);
    t.equal((await f.request('GET', `${A}/commits?path=../x`)).status, 422);

    const one = await f.request('GET', `${A}/git/commits/${c2}`);
    t.equal(one.status, 200);
    t.equal(one.json.commit.message, 'second\n\nwith a body\n');
    t.equal((await f.request('GET', `${A}/git/commits/${c2.slice(0, 10)}`)).json.sha, c2, 'abbreviated ids');
    t.equal((await f.request('GET', `${A}/git/commits/main`)).json.sha, c3, 'refs too');
    t.equal((await f.request('GET', `${A}/git/commits/${'f'.repeat(40)}`)).status, 404);
    const diff = await f.request('GET', `${A}/git/commits/${c3}.diff`);
    t.equal(diff.status, 200);
    t.match(diff.text, /^diff --git a\/src\/index.ts b\/src\/index.ts/m);
    t.match(diff.text, /^-export const x = 1;$/m);
    const patch = await f.request('GET', `${A}/git/commits/${c3}.patch`);
    t.match(patch.text, new RegExp(`^From ${c3} `));
    t.match(patch.text, /Subject: \[PATCH\] third/);

    const cmp = await f.request('GET', `${A}/compare/v1...main`);
    t.equal(cmp.status, 200);
    t.equal(cmp.json.total_commits, 2);
    t.same(cmp.json.commits.map((c: any) => c.sha), [c2, c3], 'oldest first');
    t.equal((await f.request('GET', `${A}/compare/v1...nope`)).status, 404);
  });

  t.test('refs, trees, blobs, notes', async (t) => {
    const refs = await f.request('GET', `${A}/git/refs`);
    t.equal(refs.status, 200);
    t.same(refs.json.map((r: any) => r.ref).sort(), ['refs/heads/feature/x', 'refs/heads/main', 'refs/notes/commits', 'refs/tags/v1', 'refs/tags/v2']);
    const v2 = refs.json.find((r: any) => r.ref === 'refs/tags/v2');
    t.match(v2.object, { type: 'tag', sha: v2obj, url: `${f.api}/repos/reader-alice/proj/git/tags/${v2obj}` });
    const heads = await f.request('GET', `${A}/git/refs/heads`);
    t.same(heads.json.map((r: any) => r.ref), ['refs/heads/feature/x', 'refs/heads/main']);
    t.equal((await f.request('GET', `${A}/git/refs/heads/main`)).json[0].object.sha, c3);
    t.equal((await f.request('GET', `${A}/git/refs/hea`)).status, 404, 'whole segments only');

    const tree = await f.request('GET', `${A}/git/trees/main`);
    t.equal(tree.status, 200);
    t.equal(tree.json.sha, tree3);
    t.equal(tree.json.truncated, false);
    const byPath = Object.fromEntries(tree.json.tree.map((e: any) => [e.path, e]));
    t.match(byPath['run.sh'], { mode: '100755', type: 'blob' });
    t.match(byPath.link, { mode: '120000', type: 'blob' });
    t.match(byPath.src, { mode: '040000', type: 'tree', size: 0 });
    t.match(byPath.dep, { mode: '160000', type: 'commit', sha: c1 });
    t.equal(byPath['big.txt'].size, 200_000);
    const rec = await f.request('GET', `${A}/git/trees/${tree3}?recursive=true&per_page=3&page=2`);
    t.equal(rec.json.total_count, 13);
    t.equal(rec.json.tree.length, 3);
    t.equal(rec.json.page, 2);
    t.equal(rec.json.truncated, true);
    t.equal((await f.request('GET', `${A}/git/trees/nope`)).status, 400);

    const readme = byPath['README.md'];
    const blob = await f.request('GET', `${A}/git/blobs/${readme.sha}`);
    t.same(blob.json, { content: Buffer.from('# proj\n').toString('base64'), encoding: 'base64', url: `${f.api}/repos/reader-alice/proj/git/blobs/${readme.sha}`, sha: readme.sha, size: 7 });
    t.equal((await f.request('GET', `${A}/git/blobs/${tree3}`)).status, 404, 'a tree is no blob');
    t.equal((await f.request('GET', `${A}/git/blobs/zz`)).status, 400);

    const note = await f.request('GET', `${A}/git/notes/${c2}`);
    t.equal(note.status, 200);
    t.equal(note.json.message, 'a note\n');
    t.equal(note.json.commit.sha, c2);
    t.equal((await f.request('GET', `${A}/git/notes/${c3}`)).status, 404);
  });

  t.test('contents', async (t) => {
    const root = await f.request('GET', `${A}/contents`);
    t.equal(root.status, 200);
    const names = Object.fromEntries(root.json.map((e: any) => [e.name, e]));
    t.match(names['README.md'], { type: 'file', size: 7, content: null, encoding: null, last_commit_sha: c1, download_url: `${f.url}/reader-alice/proj/raw/branch/main/README.md` });
    t.match(names.src, { type: 'dir', last_commit_sha: c3, download_url: null, git_url: `${f.api}/repos/reader-alice/proj/git/trees/${names.src.sha}` });
    t.match(names.link, { type: 'symlink', target: 'README.md' });
    t.match(names.dep, { type: 'submodule', submodule_git_url: 'https://example.com/dep.git' });
    t.match(names['run.sh'], { type: 'file', last_commit_sha: c2 });
    const file = await f.request('GET', `${A}/contents/src/index.ts`);
    t.match(file.json, { type: 'file', path: 'src/index.ts', name: 'index.ts', encoding: 'base64', last_commit_sha: c3 });
    t.equal(Buffer.from(file.json.content, 'base64').toString(), 'export const x = 2;\n');
    t.equal(file.json.url, `${f.api}/repos/reader-alice/proj/contents/src/index.ts?ref=main`);
    const old = await f.request('GET', `${A}/contents/src/index.ts?ref=${c1}`);
    t.equal(Buffer.from(old.json.content, 'base64').toString(), 'export const x = 1;\n');
    t.equal((await f.request('GET', `${A}/contents/src/index.ts?ref=v1`)).json.last_commit_sha, c1);
    const sub = await f.request('GET', `${A}/contents/src`);
    t.same(sub.json.map((e: any) => e.path), ['src/index.ts', 'src/lib']);
    const link = await f.request('GET', `${A}/contents/link`);
    t.match(link.json, { type: 'symlink', target: 'README.md' });
    t.equal((await f.request('GET', `${A}/contents/nope`)).status, 404);
    t.equal((await f.request('GET', `${A}/contents/README.md?ref=nope`)).status, 404);
    for (const bad of ['..%2F..%2Fetc%2Fpasswd', 'src%2F..%2FREADME.md', '.git/config', '-x', 'a%00b']) {
      t.equal((await f.request('GET', `${A}/contents/${bad}`)).status, 422, `refused: ${bad}`);
    }
  });

  t.test('raw, media, archives, languages, editorconfig', async (t) => {
    const raw = await f.request('GET', `${A}/raw/README.md`);
    t.equal(raw.status, 200);
    t.equal(raw.text, '# proj\n');
    t.equal(raw.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.equal(raw.headers.get('x-content-type-options'), 'nosniff');
    t.equal((await f.request('GET', `${A}/raw/src/index.ts?ref=v1`)).text, 'export const x = 1;\n');
    t.equal((await f.request('GET', `${A}/raw/v1/src/index.ts`)).text, 'export const x = 1;\n', 'the legacy {ref}/{path} form');
    t.equal((await f.request('GET', `${A}/raw/pic.png`)).headers.get('content-type'), 'image/png');
    t.equal((await f.request('GET', `${A}/raw/page.html`)).headers.get('content-type'), 'text/plain; charset=utf-8', 'never served as HTML');
    const bigRaw = await fetch(`${f.api}${A}/raw/big.txt`);
    t.equal(bigRaw.status, 200);
    t.equal(bigRaw.headers.get('content-length'), '200000');
    t.same(Buffer.from(await bigRaw.arrayBuffer()), big, 'a large blob streams whole');
    t.equal((await f.request('GET', `${A}/media/README.md`)).text, '# proj\n');
    t.equal((await f.request('GET', `${A}/raw/src`)).status, 404, 'a directory is no file');
    t.equal((await f.request('GET', `${A}/raw/nope`)).status, 404);

    const zip = await fetch(`${f.api}${A}/archive/main.zip`);
    t.equal(zip.status, 200);
    t.equal(zip.headers.get('content-type'), 'application/zip');
    const zipFile = path.join(work, 'a.zip');
    await writeFile(zipFile, Buffer.from(await zip.arrayBuffer()));
    const tgz = await fetch(`${f.api}${A}/archive/v1.tar.gz`);
    t.equal(tgz.status, 200);
    const tgzFile = path.join(work, 'a.tgz');
    await writeFile(tgzFile, Buffer.from(await tgz.arrayBuffer()));
    const listing = execFileSync('tar', ['tzf', tgzFile]).toString().split('\n').filter(Boolean).sort();
    t.same(listing, ['proj/', 'proj/.editorconfig', 'proj/README.md', 'proj/src/', 'proj/src/index.ts', 'proj/src/lib/', 'proj/src/lib/util.go']);
    const zipBytes = await readFile(zipFile);
    t.equal(zipBytes.subarray(0, 2).toString(), 'PK');
    t.equal((await f.request('GET', `${A}/archive/nope.zip`)).status, 404);
    t.equal((await f.request('GET', `${A}/archive/main.rar`)).status, 404);

    const langs = await f.request('GET', `${A}/languages`);
    t.same(langs.json, { TypeScript: 20, Go: 12, Shell: 18, HTML: 25 });
    const ec = await f.request('GET', `${A}/editorconfig/src/lib/util.go`);
    t.same(ec.json, { indent_style: 'tab', indent_size: '4' });
    t.same((await f.request('GET', `${A}/editorconfig/README.md`)).json, { indent_style: 'space' });
  });

  t.test('private repositories are 404 on every route for who cannot read', async (t) => {
    t.equal((await f.request('PATCH', A, { token: alice.token, json: { private: true } })).status, 200);
    const paths = ['/branches', '/branches/main', '/tags', '/tags/v1', `/git/tags/${v2obj}`, '/commits', `/git/commits/${c3}`, `/git/commits/${c3}.diff`,
      '/compare/v1...main', '/git/refs', '/git/refs/heads', `/git/trees/${tree3}`, `/git/blobs/${tree3}`, `/git/notes/${c2}`, '/contents',
      '/contents/README.md', '/raw/README.md', '/media/README.md', '/archive/main.zip', '/languages', '/editorconfig/README.md', '/branch_protections'];
    for (const p of paths) {
      t.equal((await f.request('GET', `${A}${p}`)).status, 404, `anonymous ${p}`);
      t.equal((await f.request('GET', `${A}${p}`, { token: bob.token })).status, 404, `stranger ${p}`);
    }
    t.equal((await f.request('GET', `${A}/contents/README.md`, { token: alice.token })).status, 200, 'the owner reads');
    t.equal((await f.request('PATCH', A, { token: alice.token, json: { private: false } })).status, 200);
  });

  t.test('an empty repository', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'void' } });
    t.equal(res.status, 201);
    const E = '/repos/reader-alice/void';
    t.same((await f.request('GET', `${E}/branches`)).json, []);
    t.same((await f.request('GET', `${E}/tags`)).json, []);
    t.equal((await f.request('GET', `${E}/commits`)).status, 409);
    t.equal((await f.request('GET', `${E}/contents`)).status, 404);
    t.equal((await f.request('GET', `${E}/raw/x`)).status, 404);
    t.same((await f.request('GET', `${E}/languages`)).json, {});
  });
});
