// Issue and comment attachments (the releases plugin's store, the issues plugin's issues) through HTTP: multipart
// and raw uploads, the Issue's and Comment's `assets`, list/get/rename/delete, the download, Gitea's permission rule
// (the poster of the issue or comment, writers, admins: 403 for others; 404 for anything unreadable), attachments
// that belong elsewhere are 404, and an issue's or comment's files go with it.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

function multipart(name: string, content: Buffer): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----forgekit${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  return { body: Buffer.concat([head, content, Buffer.from(`\r\n--${boundary}--\r\n`)]), headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}

async function upload(f: TestForge, user: TestUser | null, url: string, name: string, content: Buffer) {
  const { body, headers } = multipart(name, content);
  const res = await fetch(`${f.api}${url}`, { method: 'POST', headers: { ...headers, ...(user ? { Authorization: `token ${user.token}` } : {}) }, body: new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const fileOf = (f: TestForge, uuid: string) => path.join(f.dataDir, 'attachments', uuid.slice(0, 2), uuid);

t.test('issue and comment attachments', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const bob = await f.createUser();
  const carol = await f.createUser();
  const mk = async (name: string, priv: boolean) => (await f.request('POST', '/user/repos', { token: alice.token, json: { name, private: priv } })).json;
  const pub = await mk('pub', false);
  const priv = await mk('priv', true);
  t.equal((await f.request('PUT', `/repos/${priv.full_name}/collaborators/${bob.username}`, { token: alice.token, json: { permission: 'read' } })).status, 204);
  const api = `/repos/${pub.full_name}`;
  const issue1 = (await f.request('POST', `${api}/issues`, { token: alice.token, json: { title: 'by alice' } })).json;
  const issue2 = (await f.request('POST', `${api}/issues`, { token: bob.token, json: { title: 'by bob' } })).json;

  let asset: any;
  t.test('the poster uploads to the issue: 201 Attachment, in the issue\'s assets, downloadable', async (t) => {
    const content = Buffer.from('log line 1\nlog line 2\n');
    const res = await upload(f, alice, `${api}/issues/${issue1.number}/assets`, 'build.log', content);
    t.equal(res.status, 201, JSON.stringify(res.json));
    asset = res.json;
    t.match(asset, { name: 'build.log', size: content.length, download_count: 0, uuid: /^[0-9a-f-]{36}$/, browser_download_url: `${f.url}/attachments/${asset.uuid}` });
    t.ok(existsSync(fileOf(f, asset.uuid)), 'stored under its uuid');
    t.same((await f.request('GET', `${api}/issues/${issue1.number}`)).json.assets, [asset], 'Issue.assets');
    t.same((await f.request('GET', `${api}/issues?state=all`)).json.find((i: any) => i.number === issue1.number).assets, [asset], 'in lists too');
    t.same((await f.request('GET', `${api}/issues/${issue1.number}/assets`)).json, [asset]);
    t.same((await f.request('GET', `${api}/issues/${issue1.number}/assets/${asset.id}`)).json, asset);
    const dl = await fetch(asset.browser_download_url);
    t.equal(dl.status, 200);
    t.equal(await dl.text(), content.toString());
    t.equal((await f.request('GET', `${api}/issues/${issue1.number}/assets/${asset.id}`)).json.download_count, 1);
    t.equal((await f.request('GET', `${api}/issues/${issue2.number}/assets/${asset.id}`)).status, 404, 'another issue\'s path: 404');
    t.equal((await f.request('GET', `${api}/issues/999/assets`)).status, 404);
  });

  t.test('who may write: the poster, writers, admins; others 403, anonymous 401', async (t) => {
    const bobs = await upload(f, bob, `${api}/issues/${issue2.number}/assets`, 'bob.txt', Buffer.from('bob'));
    t.equal(bobs.status, 201, 'the poster of his own issue');
    const refused = await upload(f, carol, `${api}/issues/${issue1.number}/assets`, 'carol.txt', Buffer.from('carol'));
    t.equal(refused.status, 403);
    t.equal(refused.json.message, 'user should have permission to write issue');
    t.equal((await upload(f, null, `${api}/issues/${issue1.number}/assets`, 'anon.txt', Buffer.from('x'))).status, 401);
    t.equal((await upload(f, alice, `${api}/issues/${issue2.number}/assets`, 'owner.txt', Buffer.from('o'))).status, 201, 'a writer on someone else\'s issue');
    t.equal((await upload(f, f.admin, `${api}/issues/${issue2.number}/assets`, 'admin.txt', Buffer.from('a'))).status, 201, 'a site admin');
    t.equal((await f.request('PATCH', `${api}/issues/${issue2.number}/assets/${bobs.json.id}`, { token: carol.token, json: { name: 'x.txt' } })).status, 403);
    t.equal((await f.request('DELETE', `${api}/issues/${issue2.number}/assets/${bobs.json.id}`, { token: carol.token })).status, 403);
    const renamed = await f.request('PATCH', `${api}/issues/${issue2.number}/assets/${bobs.json.id}`, { token: bob.token, json: { name: 'notes.txt' } });
    t.equal(renamed.status, 201);
    t.equal(renamed.json.name, 'notes.txt');
    t.equal((await f.request('DELETE', `${api}/issues/${issue2.number}/assets/${bobs.json.id}`, { token: bob.token })).status, 204);
    t.notOk(existsSync(fileOf(f, bobs.json.uuid)), 'the file is gone');
    t.same((await f.request('GET', `${api}/issues/${issue2.number}/assets`)).json.map((a: any) => a.name), ['owner.txt', 'admin.txt']);
  });

  t.test('comment attachments: the comment\'s poster or a writer', async (t) => {
    const comment = (await f.request('POST', `${api}/issues/${issue1.number}/comments`, { token: carol.token, json: { body: 'see file' } })).json;
    const aliceComment = (await f.request('POST', `${api}/issues/${issue1.number}/comments`, { token: alice.token, json: { body: 'mine' } })).json;
    const up = await upload(f, carol, `${api}/issues/comments/${comment.id}/assets`, 'trace.txt', Buffer.from('trace'));
    t.equal(up.status, 201, 'the comment\'s poster (not the issue\'s)');
    t.equal((await upload(f, carol, `${api}/issues/comments/${aliceComment.id}/assets`, 'no.txt', Buffer.from('no'))).status, 403);
    t.same((await f.request('GET', `${api}/issues/comments/${comment.id}`)).json.assets, [up.json], 'Comment.assets');
    t.same((await f.request('GET', `${api}/issues/comments/${comment.id}/assets`)).json, [up.json]);
    t.same((await f.request('GET', `${api}/issues/${issue1.number}`)).json.assets.map((a: any) => a.name), ['build.log'], 'the issue\'s own files only');
    t.equal((await f.request('GET', `${api}/issues/comments/${aliceComment.id}/assets/${up.json.id}`)).status, 404, 'another comment\'s path');
    t.equal((await f.request('GET', `${api}/issues/${issue1.number}/assets/${up.json.id}`)).status, 404, 'a comment\'s file is not the issue\'s');
    // Deleting the comment takes its files.
    t.equal((await f.request('DELETE', `${api}/issues/comments/${comment.id}`, { token: carol.token })).status, 204);
    t.notOk(existsSync(fileOf(f, up.json.uuid)), 'the comment\'s file went with it');
    t.equal((await fetch(up.json.browser_download_url)).status, 404);
  });

  t.test('private repositories: 404 to those who cannot read', async (t) => {
    const pi = (await f.request('POST', `/repos/${priv.full_name}/issues`, { token: alice.token, json: { title: 'secret' } })).json;
    const up = await upload(f, alice, `/repos/${priv.full_name}/issues/${pi.number}/assets`, 'secret.txt', Buffer.from('secret'));
    t.equal(up.status, 201);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/issues/${pi.number}/assets`, { token: carol.token })).status, 404);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/issues/${pi.number}/assets/${up.json.id}`)).status, 404);
    t.equal((await upload(f, carol, `/repos/${priv.full_name}/issues/${pi.number}/assets`, 'x.txt', Buffer.from('x'))).status, 404);
    t.equal((await fetch(up.json.browser_download_url, { headers: { Authorization: `token ${carol.token}` } })).status, 404, 'download: a stranger');
    t.equal((await fetch(up.json.browser_download_url)).status, 404, 'download: anonymous');
    t.equal((await f.request('GET', `/repos/${priv.full_name}/issues/${pi.number}/assets`, { token: bob.token })).json.length, 1, 'a reader lists them');
    t.equal((await fetch(up.json.browser_download_url, { headers: { Authorization: `token ${bob.token}` } })).status, 200, 'a reader downloads');
    t.equal((await upload(f, bob, `/repos/${priv.full_name}/issues/${pi.number}/assets`, 'y.txt', Buffer.from('y'))).status, 403, 'a reader who did not post');
  });

  t.test('deleting an issue removes its files', async (t) => {
    t.equal((await f.request('DELETE', `${api}/issues/${issue1.number}`, { token: alice.token })).status, 204);
    t.notOk(existsSync(fileOf(f, asset.uuid)));
    t.equal((await fetch(asset.browser_download_url)).status, 404);
  });
});

// The releases plugin keeps in memory which issues and comments hold attachments (a page of issues or comments asks
// the store only about those): what a restart reads back, what deletions and repository deletion take away.
t.test('which issues and comments hold attachments is known again after a restart', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-assets-restart-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let f = await startForge({ dataDir });
  const alice = await f.createUser({ username: 'alice' });
  const repo = (await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'kept' } })).json;
  const api = `/repos/${repo.full_name}`;
  const [bare, held] = [
    (await f.request('POST', `${api}/issues`, { token: alice.token, json: { title: 'no files' } })).json,
    (await f.request('POST', `${api}/issues`, { token: alice.token, json: { title: 'with a file' } })).json,
  ];
  const comment = (await f.request('POST', `${api}/issues/${bare.number}/comments`, { token: alice.token, json: { body: 'see the trace' } })).json;
  const own = (await upload(f, alice, `${api}/issues/${held.number}/assets`, 'a.txt', Buffer.from('a'))).json;
  const onComment = (await upload(f, alice, `${api}/issues/comments/${comment.id}/assets`, 'b.txt', Buffer.from('b'))).json;
  await f.close();

  f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const token = alice.token; // stored (hashed) in the data dir: still good
  // The port (in browser_download_url) changed with the restart: files are compared by uuid.
  const uuids = (assets: any[]) => assets.map((x) => x.uuid);
  const list = (await f.request('GET', `${api}/issues?state=all`)).json;
  t.same(uuids(list.find((i: any) => i.number === held.number).assets), [own.uuid], 'an issue\'s own file, after the restart');
  t.same(list.find((i: any) => i.number === bare.number).assets, [], 'its comment\'s file is not the issue\'s');
  t.same(uuids((await f.request('GET', `${api}/issues/${bare.number}/comments`)).json[0].assets), [onComment.uuid], 'a comment\'s file');
  const search = (await f.request('GET', '/repos/issues/search?state=all', { token })).json;
  t.same(uuids(search.find((i: any) => i.number === held.number).assets), [own.uuid], 'in the cross-repository search too');

  t.equal((await f.request('DELETE', `${api}/issues/${held.number}/assets/${own.id}`, { token })).status, 204);
  t.same((await f.request('GET', `${api}/issues/${held.number}`)).json.assets, [], 'deleted');
  const again = (await upload(f, alice, `${api}/issues/${held.number}/assets`, 'c.txt', Buffer.from('c'))).json;
  t.same((await f.request('GET', `${api}/issues/${held.number}`)).json.assets, [again], 'a new file after the last one went');

  // A repository deleted and made again under its name: the new issues hold nothing of the old ones' files.
  t.equal((await f.request('DELETE', api, { token })).status, 204);
  t.equal((await f.request('POST', '/user/repos', { token, json: { name: 'kept' } })).status, 201);
  const fresh = (await f.request('POST', `${api}/issues`, { token, json: { title: 'fresh' } })).json;
  t.same((await f.request('GET', `${api}/issues/${fresh.number}`)).json.assets, []);
});
