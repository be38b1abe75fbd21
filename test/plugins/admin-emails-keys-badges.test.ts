// Site administration through HTTP: every address (/admin/emails, /admin/emails/search), keys on behalf of a user
// (/admin/users/{username}/keys) and user badges (/admin/users/{username}/badges); site admins only.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';

const KEYS = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'ssh');

t.test('admin emails, keys and badges', async (t) => {
  const f = await startForge({
    config: {
      plugins: {
        admin: { badges: [{ slug: 'early', description: 'Early adopter', image_url: 'https://badges.example/early.png' }, { slug: 'helper' }] },
      },
    } as any,
  });
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const zed = await f.createUser({ username: 'em-zed', email: 'a-zed@example.com' });
  const amy = await f.createUser({ username: 'em-amy', email: 'z-amy@example.com' });
  t.equal((await f.request('POST', '/user/emails', { token: amy.token, json: { emails: ['m-amy@example.com'] } })).status, 201);
  t.equal((await f.request('PATCH', '/admin/users/em-zed', { token: admin, json: { full_name: 'Zed Findme' } })).status, 200);
  t.equal((await f.request('POST', '/orgs', { token: zed.token, json: { username: 'em-org', email: 'aaa-org@example.com' } })).status, 201);

  t.test('GET /admin/emails: every individual address in address order, with its owner', async (t) => {
    const all = await f.request('GET', '/admin/emails', { token: admin });
    t.equal(all.status, 200);
    t.same(all.json, [
      { email: 'a-zed@example.com', verified: true, primary: true, user_id: zed.id, username: 'em-zed' },
      { email: 'm-amy@example.com', verified: false, primary: false, user_id: amy.id, username: 'em-amy' },
      { email: 'root@example.com', verified: true, primary: true, user_id: f.admin.id, username: 'root' },
      { email: 'z-amy@example.com', verified: true, primary: true, user_id: amy.id, username: 'em-amy' },
    ], "an organization's contact address is not listed");
    t.equal(all.headers.get('x-total-count'), '4');
    const page2 = await f.request('GET', '/admin/emails?limit=2&page=2', { token: admin });
    t.same(page2.json.map((e: any) => e.email), ['root@example.com', 'z-amy@example.com'], 'pages merge both lists');
    t.match(page2.headers.get('link'), /rel="first"/);
  });

  t.test('GET /admin/emails/search: address, login or full name', async (t) => {
    const byAddress = await f.request('GET', '/admin/emails/search?q=M-AMY@', { token: admin });
    t.same(byAddress.json.map((e: any) => e.email), ['m-amy@example.com']);
    const byLogin = await f.request('GET', '/admin/emails/search?q=em-amy', { token: admin });
    t.same(byLogin.json.map((e: any) => e.email), ['m-amy@example.com', 'z-amy@example.com'], 'every address of a matching account');
    t.equal(byLogin.headers.get('x-total-count'), '2');
    const byName = await f.request('GET', '/admin/emails/search?q=findme', { token: admin });
    t.same(byName.json.map((e: any) => e.username), ['em-zed']);
    t.same((await f.request('GET', '/admin/emails/search?q=nothing-like-it', { token: admin })).json, []);
    const empty = await f.request('GET', '/admin/emails/search?q=', { token: admin });
    t.equal(empty.json.length, 4, 'an empty q lists everything');
  });

  t.test('emails: site admins only', async (t) => {
    for (const p of ['/admin/emails', '/admin/emails/search?q=a']) {
      t.equal((await f.request('GET', p, { token: zed.token })).status, 403, p);
      t.equal((await f.request('GET', p)).status, 401, p);
    }
  });

  t.test('POST/DELETE /admin/users/{username}/keys', async (t) => {
    const key = (await readFile(path.join(KEYS, 'ed25519.pub'), 'utf8')).trim();
    const made = await f.request('POST', '/admin/users/em-amy/keys', { token: admin, json: { title: 'laptop', key, read_only: true } });
    t.equal(made.status, 201, made.text);
    t.match(made.json, { title: 'laptop', key_type: 'user', user: { login: 'em-amy' } });
    t.match(made.json.fingerprint, /^SHA256:/);
    const mine = await f.request('GET', '/user/keys', { token: amy.token });
    t.same(mine.json.map((k: any) => k.id), [made.json.id], "it is the user's key");
    t.equal((await f.request('POST', '/admin/users/em-zed/keys', { token: admin, json: { title: 'x', key } })).status, 422, 'a key in use');
    t.equal((await f.request('POST', '/admin/users/em-amy/keys', { token: admin, json: { title: 'laptop', key: (await readFile(path.join(KEYS, 'ecdsa-256.pub'), 'utf8')).trim() } })).status, 422, 'a title in use');
    const weak = await f.request('POST', '/admin/users/em-amy/keys', { token: admin, json: { title: 'weak', key: (await readFile(path.join(KEYS, 'rsa-1024.pub'), 'utf8')).trim() } });
    t.equal(weak.status, 422, 'the same parser and limits as /user/keys');
    t.match(weak.json.message, /^key: /);
    t.equal((await f.request('POST', '/admin/users/em-amy/keys', { token: admin, json: { title: 'junk', key: 'ssh-ed25519 AAAA' } })).status, 422);
    t.equal((await f.request('POST', '/admin/users/nobody-here/keys', { token: admin, json: { title: 'x', key } })).status, 404);
    t.equal((await f.request('POST', '/admin/users/em-org/keys', { token: admin, json: { title: 'x', key } })).status, 422, 'an organization');
    t.equal((await f.request('POST', '/admin/users/em-amy/keys', { token: zed.token, json: { title: 'x', key } })).status, 403);
    t.equal((await f.request('POST', '/admin/users/em-amy/keys', { json: { title: 'x', key } })).status, 401);

    t.equal((await f.request('DELETE', `/admin/users/em-amy/keys/${made.json.id}`, { token: zed.token })).status, 403);
    t.equal((await f.request('DELETE', `/admin/users/em-amy/keys/${made.json.id}`)).status, 401);
    t.equal((await f.request('DELETE', `/admin/users/em-zed/keys/${made.json.id}`, { token: admin })).status, 404, "another user's key");
    t.equal((await f.request('DELETE', `/admin/users/em-amy/keys/${made.json.id}`, { token: admin })).status, 204);
    t.equal((await f.request('DELETE', `/admin/users/em-amy/keys/${made.json.id}`, { token: admin })).status, 404, 'already gone');
    t.same((await f.request('GET', '/user/keys', { token: amy.token })).json, []);
  });

  t.test('badges: given, listed, taken back; only configured ones', async (t) => {
    t.same((await f.request('GET', '/admin/users/em-amy/badges', { token: admin })).json, []);
    t.equal((await f.request('POST', '/admin/users/em-amy/badges', { token: admin, json: { badge_slugs: ['helper', 'early'] } })).status, 204);
    t.equal((await f.request('POST', '/admin/users/em-amy/badges', { token: admin, json: { badge_slugs: ['early'] } })).status, 204, 'again: idempotent');
    const list = await f.request('GET', '/admin/users/em-amy/badges', { token: admin });
    t.same(list.json, [
      { id: 1, slug: 'early', description: 'Early adopter', image_url: 'https://badges.example/early.png' },
      { id: 2, slug: 'helper', description: '', image_url: '' },
    ]);
    t.equal(list.headers.get('x-total-count'), '2');
    const unknown = await f.request('POST', '/admin/users/em-zed/badges', { token: admin, json: { badge_slugs: ['helper', 'made-up'] } });
    t.equal(unknown.status, 422);
    t.match(unknown.json.message, /made-up/);
    t.same((await f.request('GET', '/admin/users/em-zed/badges', { token: admin })).json, [], 'nothing given when one is unknown');
    t.equal((await f.request('DELETE', '/admin/users/em-amy/badges', { token: admin, json: { badge_slugs: ['early', 'not-held'] } })).status, 204);
    t.same((await f.request('GET', '/admin/users/em-amy/badges', { token: admin })).json.map((b: any) => b.slug), ['helper']);
    t.equal((await f.request('GET', '/admin/users/nobody-here/badges', { token: admin })).status, 404);
    t.equal((await f.request('POST', '/admin/users/em-amy/badges', { token: admin, json: { badge_slugs: 'early' } })).status, 422);
    t.equal((await f.request('GET', '/admin/users/em-amy/badges', { token: zed.token })).status, 403);
    t.equal((await f.request('POST', '/admin/users/em-amy/badges', { token: zed.token, json: { badge_slugs: ['early'] } })).status, 403);
    t.equal((await f.request('DELETE', '/admin/users/em-amy/badges', { json: { badge_slugs: ['helper'] } })).status, 401);
    // A deleted account's badges go with it.
    const gone = await f.createUser({ username: 'em-gone' });
    await f.request('POST', '/admin/users/em-gone/badges', { token: admin, json: { badge_slugs: ['early'] } });
    t.equal((await f.request('DELETE', `/admin/users/em-gone`, { token: admin })).status, 204);
    t.equal(await f.forge.store.collection('user_badges').count({ uid: gone.id }), 0);
  });
});
