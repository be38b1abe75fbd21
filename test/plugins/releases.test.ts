// releases plugin through HTTP: create (from an existing tag or a new one at target_commitish), drafts hidden from
// readers and tagged only when published, list filters and paging, get by id/tag/latest, edit, delete by id and by
// tag (the tag stays), the permission matrix on public and private repositories, `release.changed` events, and
// attachments: multipart and raw uploads streamed to disk under their uuid, size and type limits, rename, delete,
// the download with its headers and counter, private and draft files 404 to those who may not see them, and the
// repository's size counting them.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { runGit, withAuth } from '../helpers/git-client.js';

const seen: Array<{ action: string; tag: unknown; assets: number }> = [];
const recorder = definePlugin({
  name: 'release-recorder',
  start(ctx) {
    ctx.events.on('release.changed', (e) => {
      seen.push({ action: e.action, tag: e.release.tag_name, assets: (e.release.assets as unknown[]).length });
    });
  },
});

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv, auto_init: true, readme: 'Default' } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

async function collaborate(f: TestForge, owner: TestUser, full: string, user: TestUser, permission: string): Promise<void> {
  const res = await f.request('PUT', `/repos/${full}/collaborators/${user.username}`, { token: owner.token, json: { permission } });
  if (res.status !== 204) throw new Error(`collaborator: ${res.status} ${res.text}`);
}

function multipart(name: string, content: Buffer, type = 'application/octet-stream', field = 'attachment'): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----forgekit${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, content, tail]), headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}

function attachmentFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'attachments');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name);
}

t.test('releases', async (t) => {
  const f = await startForge({ extraPlugins: [recorder], config: { plugins: { releases: { attachments: { maxSize: 1024 * 1024 } } } } as any });
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const reader = await f.createUser();
  const writer = await f.createUser();
  const stranger = await f.createUser();
  const pub = await createRepo(f, alice, 'pub');
  const priv = await createRepo(f, alice, 'priv', true);
  for (const r of [pub, priv]) {
    await collaborate(f, alice, r.full_name, reader, 'read');
    await collaborate(f, alice, r.full_name, writer, 'write');
  }
  const base = `/repos/${pub.full_name}/releases`;
  const tagExists = async (full: string, tag: string) => (await f.request('GET', `/repos/${full}/tags/${tag}`, { token: alice.token })).status === 200;

  let v1: any;
  t.test('create from a new tag at the default branch: 201, the tag exists, Gitea\'s shape', async (t) => {
    const res = await f.request('POST', base, { token: alice.token, json: { tag_name: 'v1.0', name: 'First', body: 'notes' } });
    t.equal(res.status, 201, res.text);
    v1 = res.json;
    t.match(v1, {
      tag_name: 'v1.0', target_commitish: 'master', name: 'First', body: 'notes', draft: false, prerelease: false,
      url: `${f.api}/repos/${pub.full_name}/releases/${v1.id}`, html_url: `${f.url}/${pub.full_name}/releases/tag/v1.0`,
      tarball_url: `${f.api}/repos/${pub.full_name}/archive/v1.0.tar.gz`, zipball_url: `${f.api}/repos/${pub.full_name}/archive/v1.0.zip`,
      upload_url: `${f.api}/repos/${pub.full_name}/releases/${v1.id}/assets`, assets: [],
    });
    t.equal(v1.author.login, alice.username);
    t.equal(v1.published_at, v1.created_at);
    t.ok(await tagExists(pub.full_name, 'v1.0'));
    t.equal((await f.request('GET', new URL(v1.tarball_url).pathname.slice('/api/v1'.length), { token: alice.token })).status, 200, 'tarball_url serves the archive');
    t.same(seen.pop(), { action: 'published', tag: 'v1.0', assets: 0 });
  });

  t.test('create from an existing tag; conflicts and bad input', async (t) => {
    t.equal((await f.request('POST', `/repos/${pub.full_name}/tags`, { token: alice.token, json: { tag_name: 'existing' } })).status, 201);
    const res = await f.request('POST', base, { token: alice.token, json: { tag_name: 'existing' } });
    t.equal(res.status, 201);
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: 'v1.0' } })).status, 409, 'one release per tag');
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: 'bad..name' } })).status, 422);
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: '-x' } })).status, 422);
    t.equal((await f.request('POST', base, { token: alice.token, json: {} })).status, 422);
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: 'v9', target_commitish: 'no-such-branch' } })).status, 404);
    t.notOk(await tagExists(pub.full_name, 'v9'));
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: 'v9', draft: 'yes' } })).status, 422);
    t.equal((await f.request('DELETE', `${base}/${res.json.id}`, { token: alice.token })).status, 204);
    t.ok(await tagExists(pub.full_name, 'existing'), 'deleting a release keeps its tag');
    seen.length = 0;
  });

  let draft: any;
  t.test('drafts: no tag until published, hidden from readers', async (t) => {
    const res = await f.request('POST', base, { token: writer.token, json: { tag_name: 'v2.0', draft: true, name: 'Second' } });
    t.equal(res.status, 201);
    draft = res.json;
    t.equal(draft.draft, true);
    t.notOk(await tagExists(pub.full_name, 'v2.0'), 'a draft makes no tag');
    t.same(seen, [], 'a draft is not announced');
    for (const who of [reader, stranger, null]) {
      const token = who?.token;
      t.equal((await f.request('GET', `${base}/${draft.id}`, { token })).status, 404);
      t.equal((await f.request('GET', `${base}/tags/v2.0`, { token })).status, 404);
      t.same((await f.request('GET', base, { token })).json.map((r: any) => r.tag_name), ['v1.0']);
      t.same((await f.request('GET', `${base}?draft=true`, { token })).json, []);
    }
    t.same((await f.request('GET', base, { token: writer.token })).json.map((r: any) => r.tag_name), ['v2.0', 'v1.0']);
    t.same((await f.request('GET', `${base}?draft=true`, { token: writer.token })).json.map((r: any) => r.tag_name), ['v2.0']);
    t.same((await f.request('GET', `${base}?draft=false`, { token: writer.token })).json.map((r: any) => r.tag_name), ['v1.0']);
    t.equal((await f.request('GET', `${base}/latest`)).json.tag_name, 'v1.0');
  });

  t.test('prereleases and paging', async (t) => {
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: 'v1.1-rc', prerelease: true } })).status, 201);
    t.same((await f.request('GET', `${base}?pre-release=true`)).json.map((r: any) => r.tag_name), ['v1.1-rc']);
    t.same((await f.request('GET', `${base}?pre-release=false`)).json.map((r: any) => r.tag_name), ['v1.0']);
    t.equal((await f.request('GET', `${base}/latest`)).json.tag_name, 'v1.0', 'latest skips pre-releases');
    const page = await f.request('GET', `${base}?limit=1&page=2`);
    t.same(page.json.map((r: any) => r.tag_name), ['v1.0']);
    t.equal(page.headers.get('x-total-count'), '2');
    t.match(page.headers.get('link'), /rel="first"/);
  });

  t.test('edit: publishing a draft makes its tag and announces it; renames; conflicts', async (t) => {
    seen.length = 0;
    const res = await f.request('PATCH', `${base}/${draft.id}`, { token: writer.token, json: { draft: false, body: 'now out' } });
    t.equal(res.status, 200, res.text);
    t.equal(res.json.draft, false);
    t.equal(res.json.body, 'now out');
    t.ok(await tagExists(pub.full_name, 'v2.0'));
    t.same(seen.pop(), { action: 'published', tag: 'v2.0', assets: 0 });
    t.equal((await f.request('GET', `${base}/latest`)).json.tag_name, 'v2.0');
    t.equal((await f.request('GET', `${base}/${draft.id}`)).status, 200, 'readers see it now');
    const renamed = await f.request('PATCH', `${base}/${v1.id}`, { token: alice.token, json: { name: 'First!' } });
    t.equal(renamed.json.name, 'First!');
    t.same(seen.pop(), { action: 'updated', tag: 'v1.0', assets: 0 });
    t.equal((await f.request('PATCH', `${base}/${v1.id}`, { token: alice.token, json: { tag_name: 'v2.0' } })).status, 409);
    t.equal((await f.request('PATCH', `${base}/${v1.id}`, { token: alice.token, json: { tag_name: 'bad..' } })).status, 422);
    t.equal((await f.request('PATCH', `${base}/999999`, { token: alice.token, json: { name: 'x' } })).status, 404);
    t.equal((await f.request('PATCH', `${base}/${v1.id}`, { token: alice.token, json: { unknown: 1 } })).status, 422);
  });

  t.test('tags with slashes: get and delete by tag', async (t) => {
    t.equal((await f.request('POST', base, { token: alice.token, json: { tag_name: 'release/2026' } })).status, 201);
    const got = await f.request('GET', `${base}/tags/release/2026`);
    t.equal(got.status, 200);
    t.equal(got.json.html_url, `${f.url}/${pub.full_name}/releases/tag/release/2026`);
    t.equal((await f.request('DELETE', `${base}/tags/release/2026`, { token: reader.token })).status, 403);
    t.equal((await f.request('DELETE', `${base}/tags/release/2026`, { token: alice.token })).status, 204);
    t.equal((await f.request('GET', `${base}/tags/release/2026`)).status, 404);
    t.ok(await tagExists(pub.full_name, 'release/2026'), 'the tag stays');
    t.equal((await f.request('DELETE', `${base}/tags/no-such`, { token: alice.token })).status, 404);
  });

  t.test('a tag with a release: DELETE /tags is 409; deleted by a push, the release stays as a draft', async (t) => {
    const rel = await f.request('POST', base, { token: alice.token, json: { tag_name: 'v5.0', name: 'Five' } });
    t.equal(rel.status, 201, rel.text);
    const refused = await f.request('DELETE', `/repos/${pub.full_name}/tags/v5.0`, { token: alice.token });
    t.equal(refused.status, 409);
    t.equal(refused.json.message, 'a tag attached to a release cannot be deleted directly');
    t.ok(await tagExists(pub.full_name, 'v5.0'), 'the tag is still there');
    t.equal((await f.request('POST', `/repos/${pub.full_name}/tags`, { token: alice.token, json: { tag_name: 'bare-tag' } })).status, 201);
    t.equal((await f.request('DELETE', `/repos/${pub.full_name}/tags/bare-tag`, { token: alice.token })).status, 204, 'a tag without a release goes');
    // A push may delete it (Gitea's pushUpdateDeleteTags): the release is kept as a draft, hidden from readers.
    const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-release-push-'));
    t.teardown(() => rm(home, { recursive: true, force: true }));
    t.equal((await runGit(['init', '-q', 'w'], { home, cwd: home })).code, 0);
    const pushed = await runGit(['push', withAuth(pub.clone_url, alice.username, alice.token), ':refs/tags/v5.0'], { home, cwd: path.join(home, 'w') });
    t.equal(pushed.code, 0, pushed.stderr);
    t.notOk(await tagExists(pub.full_name, 'v5.0'));
    const after = await f.request('GET', `${base}/${rel.json.id}`, { token: alice.token });
    t.equal(after.status, 200);
    t.equal(after.json.draft, true, 'the release became a draft');
    t.equal(after.json.name, 'Five', 'its notes are kept');
    t.equal((await f.request('GET', `${base}/${rel.json.id}`, { token: reader.token })).status, 404, 'drafts are hidden from readers');
    t.equal((await f.request('DELETE', `${base}/${rel.json.id}`, { token: alice.token })).status, 204);
    seen.length = 0;
  });

  t.test('permission matrix', async (t) => {
    const privBase = `/repos/${priv.full_name}/releases`;
    const pr = await f.request('POST', privBase, { token: alice.token, json: { tag_name: 'p1' } });
    t.equal(pr.status, 201);
    const cases: Array<[string, string | undefined, number, number, number, number]> = [
      // who, token, read public, read private, write public, write private
      ['anonymous', undefined, 200, 404, 401, 401],
      ['stranger', stranger.token, 200, 404, 403, 404],
      ['reader', reader.token, 200, 200, 403, 403],
      ['writer', writer.token, 200, 200, 201, 201],
      ['owner', alice.token, 200, 200, 201, 201],
      ['site admin', f.admin.token, 200, 200, 201, 201],
    ];
    let n = 0;
    for (const [who, token, readPub, readPriv, writePub, writePriv] of cases) {
      t.equal((await f.request('GET', base, { token })).status, readPub, `${who} lists public`);
      t.equal((await f.request('GET', privBase, { token })).status, readPriv, `${who} lists private`);
      t.equal((await f.request('GET', `${privBase}/${pr.json.id}`, { token })).status, readPriv, `${who} gets private`);
      t.equal((await f.request('GET', `${privBase}/tags/p1`, { token })).status, readPriv, `${who} gets private by tag`);
      t.equal((await f.request('GET', `${privBase}/latest`, { token })).status, readPriv, `${who} gets private latest`);
      t.equal((await f.request('GET', `${privBase}/${pr.json.id}/assets`, { token })).status, readPriv, `${who} lists private assets`);
      n++;
      const tag = `m${n}`;
      t.equal((await f.request('POST', base, { token, json: { tag_name: tag } })).status, writePub, `${who} creates on public`);
      t.equal((await f.request('POST', privBase, { token, json: { tag_name: tag } })).status, writePriv, `${who} creates on private`);
      const editPriv = writePriv === 201 ? 200 : writePriv;
      t.equal((await f.request('PATCH', `${privBase}/${pr.json.id}`, { token, json: { body: who } })).status, editPriv, `${who} edits private`);
      const delPub = writePub === 201 ? 204 : writePub;
      const rel = await f.request('GET', `${base}/tags/${tag}`);
      t.equal((await f.request('DELETE', `${base}/${rel.json?.id ?? v1.id}`, { token })).status, delPub === 204 && rel.status !== 200 ? 404 : delPub, `${who} deletes on public`);
    }
  });

  t.test('attachments: multipart upload, list, get, download, rename, delete; size counted', async (t) => {
    const content = Buffer.from('binary \x00\x01\x02 payload '.repeat(1000));
    const sizeBefore = (await f.request('GET', `/repos/${pub.full_name}`)).json.size;
    const up = multipart('tool-linux-amd64.tar.gz', content);
    const res = await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: up.body, headers: up.headers });
    t.equal(res.status, 201, res.text);
    const a = res.json;
    t.match(a, { name: 'tool-linux-amd64.tar.gz', size: content.length, download_count: 0, browser_download_url: `${f.url}/attachments/${a.uuid}` });
    t.match(a.uuid, /^[0-9a-f-]{36}$/);
    t.same(attachmentFiles(f.dataDir), [a.uuid], 'stored under its uuid, not its name');
    t.equal((await f.request('GET', `/repos/${pub.full_name}`)).json.size, sizeBefore + Math.ceil(content.length / 1024), 'counted in the repository size');
    t.same((await f.request('GET', `${base}/${v1.id}/assets`)).json.map((x: any) => x.id), [a.id]);
    t.equal((await f.request('GET', `${base}/${v1.id}/assets/${a.id}`)).json.uuid, a.uuid);
    t.same((await f.request('GET', `${base}/${v1.id}`)).json.assets.map((x: any) => x.id), [a.id]);
    t.equal((await f.request('GET', `${base}/${draft.id}/assets/${a.id}`)).status, 404, 'an attachment of another release');

    const dl = await fetch(a.browser_download_url);
    t.equal(dl.status, 200);
    t.equal(dl.headers.get('content-type'), 'application/octet-stream');
    t.equal(dl.headers.get('content-disposition'), `attachment; filename="tool-linux-amd64.tar.gz"; filename*=UTF-8''tool-linux-amd64.tar.gz`);
    t.equal(dl.headers.get('content-length'), String(content.length));
    t.equal(dl.headers.get('x-content-type-options'), 'nosniff');
    t.match(dl.headers.get('content-security-policy'), /sandbox/);
    t.ok(Buffer.from(await dl.arrayBuffer()).equals(content), 'the same bytes');
    const again = await fetch(a.browser_download_url, { headers: { 'If-None-Match': dl.headers.get('etag')! } });
    t.equal(again.status, 304);
    t.equal((await f.request('GET', `${base}/${v1.id}/assets/${a.id}`)).json.download_count, 1);

    // HEAD: the headers of a GET, no body, not a download; Range: one byte range (206), unsatisfiable (416).
    const head = await fetch(a.browser_download_url, { method: 'HEAD' });
    t.equal(head.status, 200);
    t.equal(head.headers.get('content-length'), String(content.length));
    t.equal(head.headers.get('accept-ranges'), 'bytes');
    t.equal((await head.arrayBuffer()).byteLength, 0);
    const part = await fetch(a.browser_download_url, { headers: { Range: 'bytes=2-5' } });
    t.equal(part.status, 206);
    t.equal(part.headers.get('content-range'), `bytes 2-5/${content.length}`);
    t.ok(Buffer.from(await part.arrayBuffer()).equals(content.subarray(2, 6)), 'bytes 2..5');
    const tail = await fetch(a.browser_download_url, { headers: { Range: 'bytes=-3' } });
    t.equal(tail.status, 206);
    t.ok(Buffer.from(await tail.arrayBuffer()).equals(content.subarray(content.length - 3)), 'the last 3 bytes');
    const open = await fetch(a.browser_download_url, { headers: { Range: `bytes=${content.length - 1}-` } });
    t.equal(open.headers.get('content-range'), `bytes ${content.length - 1}-${content.length - 1}/${content.length}`);
    await open.arrayBuffer();
    const beyond = await fetch(a.browser_download_url, { headers: { Range: `bytes=${content.length}-` } });
    t.equal(beyond.status, 416);
    t.equal(beyond.headers.get('content-range'), `bytes */${content.length}`);
    await beyond.arrayBuffer();
    const stale = await fetch(a.browser_download_url, { headers: { Range: 'bytes=0-1', 'If-Range': '"another"' } });
    t.equal(stale.status, 200, 'If-Range that does not match: the whole file');
    await stale.arrayBuffer();
    t.equal((await f.request('GET', `${base}/${v1.id}/assets/${a.id}`)).json.download_count, 5, 'GETs counted, HEAD and 416 not');

    const renamed = await f.request('PATCH', `${base}/${v1.id}/assets/${a.id}`, { token: writer.token, json: { name: 'dir/../ünïcode "x".bin' } });
    t.equal(renamed.status, 201);
    t.equal(renamed.json.name, 'ünïcode "x".bin', 'only the last path segment');
    const dl2 = await fetch(a.browser_download_url);
    t.equal(dl2.headers.get('content-disposition'), `attachment; filename="_n_code _x_.bin"; filename*=UTF-8''${encodeURIComponent('ünïcode "x".bin')}`);
    await dl2.arrayBuffer();
    t.equal((await f.request('PATCH', `${base}/${v1.id}/assets/${a.id}`, { token: reader.token, json: { name: 'x' } })).status, 403);
    t.equal((await f.request('PATCH', `${base}/${v1.id}/assets/${a.id}`, { token: writer.token, json: { name: 'bad\u0001' } })).status, 422);

    t.equal((await f.request('DELETE', `${base}/${v1.id}/assets/${a.id}`, { token: reader.token })).status, 403);
    t.equal((await f.request('DELETE', `${base}/${v1.id}/assets/${a.id}`, { token: writer.token })).status, 204);
    t.same(attachmentFiles(f.dataDir), [], 'the file is gone');
    t.equal((await f.request('GET', `/repos/${pub.full_name}`)).json.size, sizeBefore);
    t.equal((await fetch(a.browser_download_url)).status, 404);
  });

  t.test('attachments: raw bodies, limits, bad bodies; nothing left behind', async (t) => {
    const raw = Buffer.from('plain text file\n');
    const res = await f.request('POST', `${base}/${v1.id}/assets?name=notes.txt`, { token: writer.token, body: raw, headers: { 'Content-Type': 'application/octet-stream' } });
    t.equal(res.status, 201, res.text);
    t.equal(res.json.name, 'notes.txt');
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: raw, headers: { 'Content-Type': 'application/octet-stream' } })).status, 422, 'a raw body needs a name');
    const over = Buffer.alloc(1024 * 1024 + 1, 7);
    const big = multipart('big.bin', over);
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: big.body, headers: big.headers })).status, 413);
    t.equal((await f.request('POST', `${base}/${v1.id}/assets?name=big.bin`, { token: writer.token, body: over, headers: { 'Content-Type': 'application/octet-stream' } })).status, 413);
    const exact = multipart('exact.bin', Buffer.alloc(1024 * 1024, 1));
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: exact.body, headers: exact.headers })).status, 201, 'exactly the limit is fine');
    const wrongField = multipart('x.bin', raw, 'application/octet-stream', 'file');
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: wrongField.body, headers: wrongField.headers })).status, 400);
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: 'garbage', headers: { 'Content-Type': 'multipart/form-data; boundary=zzz' } })).status, 400);
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: writer.token, body: 'garbage', headers: { 'Content-Type': 'multipart/form-data' } })).status, 400);
    const named = multipart('orig.bin', raw);
    const renamedUp = await f.request('POST', `${base}/${v1.id}/assets?name=chosen.bin`, { token: writer.token, body: named.body, headers: named.headers });
    t.equal(renamedUp.json.name, 'chosen.bin', 'the name query wins');
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { token: reader.token, body: named.body, headers: named.headers })).status, 403);
    t.equal((await f.request('POST', `${base}/${v1.id}/assets`, { body: named.body, headers: named.headers })).status, 401);
    t.equal((await f.request('POST', `${base}/999999/assets`, { token: writer.token, body: named.body, headers: named.headers })).status, 404);
    t.equal(readdirSync(path.join(f.dataDir, 'attachments', 'tmp')).length, 0, 'no half-written upload stays');
    t.equal(attachmentFiles(f.dataDir).length, 3);
  });

  t.test('private and draft files are 404 to those who may not see them', async (t) => {
    const pr = (await f.request('GET', `/repos/${priv.full_name}/releases/tags/p1`, { token: alice.token })).json;
    const up = multipart('secret.bin', Buffer.from('secret'));
    const a = (await f.request('POST', `/repos/${priv.full_name}/releases/${pr.id}/assets`, { token: alice.token, body: up.body, headers: up.headers })).json;
    const d = (await f.request('POST', base, { token: alice.token, json: { tag_name: 'v3-draft', draft: true } })).json;
    const up2 = multipart('draft.bin', Buffer.from('draft'));
    const b = (await f.request('POST', `${base}/${d.id}/assets`, { token: alice.token, body: up2.body, headers: up2.headers })).json;
    const get = async (url: string, token?: string) => {
      const res = await fetch(url, { headers: token ? { Authorization: `token ${token}` } : {} });
      await res.arrayBuffer();
      return res.status;
    };
    t.equal(await get(a.browser_download_url), 404);
    t.equal(await get(a.browser_download_url, stranger.token), 404);
    t.equal(await get(a.browser_download_url, reader.token), 200);
    t.equal(await get(b.browser_download_url, reader.token), 404, 'a draft\'s file');
    t.equal(await get(b.browser_download_url, writer.token), 200);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/releases/${pr.id}/assets/${a.id}`, { token: stranger.token })).status, 404);
    t.equal((await f.request('GET', `${base}/${d.id}/assets`, { token: reader.token })).status, 404);
    t.equal(await get(`${f.url}/attachments/00000000-0000-4000-8000-000000000000`), 404);
    t.equal(await get(`${f.url}/attachments/not-a-uuid`), 404);
  });

  t.test('deleting a release announces its assets and removes their files; deleting the repository removes the rest', async (t) => {
    seen.length = 0;
    const before = attachmentFiles(f.dataDir).length;
    const assets = (await f.request('GET', `${base}/${v1.id}/assets`)).json.length;
    t.equal((await f.request('DELETE', `${base}/${v1.id}`, { token: alice.token })).status, 204);
    t.same(seen.pop(), { action: 'deleted', tag: 'v1.0', assets });
    t.equal(attachmentFiles(f.dataDir).length, before - assets);
    t.equal((await f.request('DELETE', `/repos/${pub.full_name}`, { token: alice.token })).status, 204);
    t.equal((await f.request('DELETE', `/repos/${priv.full_name}`, { token: alice.token })).status, 204);
    t.same(attachmentFiles(f.dataDir), []);
  });
});

t.test('allowed types', async (t) => {
  const f = await startForge({ config: { plugins: { releases: { attachments: { allowedTypes: ['.zip', 'text/*'] } } } } as any });
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const repo = await createRepo(f, alice, 'typed');
  const rel = (await f.request('POST', `/repos/${repo.full_name}/releases`, { token: alice.token, json: { tag_name: 'v1' } })).json;
  const up = async (name: string, type: string) => {
    const m = multipart(name, Buffer.from('x'), type);
    return (await f.request('POST', `/repos/${repo.full_name}/releases/${rel.id}/assets`, { token: alice.token, body: m.body, headers: m.headers })).status;
  };
  t.equal(await up('a.zip', 'application/octet-stream'), 201, 'by extension');
  t.equal(await up('a.md', 'text/markdown'), 201, 'by media type');
  t.equal(await up('a.exe', 'application/octet-stream'), 422);
  const a = (await f.request('GET', `/repos/${repo.full_name}/releases/${rel.id}/assets`)).json[0];
  t.equal((await f.request('PATCH', `/repos/${repo.full_name}/releases/${rel.id}/assets/${a.id}`, { token: alice.token, json: { name: 'a.exe' } })).status, 422);
  t.equal((await f.request('PATCH', `/repos/${repo.full_name}/releases/${rel.id}/assets/${a.id}`, { token: alice.token, json: { name: 'b.zip' } })).status, 201);
  t.equal(createHash('sha256').update('x').digest('hex').length, 64);
});
