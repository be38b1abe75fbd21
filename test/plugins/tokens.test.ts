// tokens plugin through HTTP: Basic-auth-only management, path user respected, value shown once, hashed at rest.
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startForge } from '../helpers/forge.js';

t.test('tokens', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });

  t.test('POST creates a token shown once', async (t) => {
    const res = await f.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], json: { name: 'ci', scopes: ['write:repository', 'read:repository', 'read:user'] } });
    t.equal(res.status, 201);
    t.match(res.json, { name: 'ci', sha1: /^[0-9a-f]{40}$/, token_last_eight: res.json.sha1.slice(-8) });
    t.same(res.json.scopes, ['write:repository', 'read:user'], "scopes normalised as Gitea does (write implies read)");
    t.type(res.json.id, 'number');
    const me = await f.request('GET', '/user', { token: res.json.sha1 });
    t.equal(me.json.login, 'alice');
    const list = await f.request('GET', '/users/alice/tokens', { basic: ['alice', alice.password] });
    t.equal(list.status, 200);
    const listed = list.json.find((x: any) => x.id === res.json.id);
    t.same(listed, { id: res.json.id, name: 'ci', sha1: '', token_last_eight: res.json.sha1.slice(-8), scopes: ['write:repository', 'read:user'] }, 'never listed again');
    t.equal(list.json[0].id, res.json.id, 'newest first');
    t.equal(list.headers.get('x-total-count'), String(list.json.length));
  });

  t.test('only Basic auth with a password may manage tokens', async (t) => {
    t.equal((await f.request('GET', '/users/alice/tokens')).status, 401);
    t.equal((await f.request('GET', '/users/alice/tokens', { token: alice.token })).status, 401, 'a token cannot manage tokens');
    t.equal((await f.request('GET', '/users/alice/tokens', { basic: ['alice', alice.token] })).status, 401, 'token as Basic password is token auth');
    t.equal((await f.request('GET', '/users/alice/tokens', { basic: ['alice', 'wrong'] })).status, 401);
  });

  t.test('the path user is respected', async (t) => {
    t.equal((await f.request('GET', '/users/bob/tokens', { basic: ['alice', alice.password] })).status, 403);
    t.equal((await f.request('POST', '/users/bob/tokens', { basic: ['alice', alice.password], json: { name: 'x', scopes: ['all'] } })).status, 403);
    t.equal((await f.request('GET', '/users/ghost/tokens', { basic: ['alice', alice.password] })).status, 404);
    const adminView = await f.request('GET', '/users/bob/tokens', { basic: ['root', f.admin.password] });
    t.equal(adminView.status, 200, 'site admins may');
    t.ok(adminView.json.length >= 1);
  });

  t.test('validation', async (t) => {
    t.equal((await f.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], json: {} })).status, 422);
    t.equal((await f.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], json: { name: '' } })).status, 422);
    t.equal((await f.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], body: 'name=x' })).status, 415);
  });

  t.test('DELETE', async (t) => {
    const made = await f.request('POST', '/users/bob/tokens', { basic: ['bob', bob.password], json: { name: 'temp', scopes: ['all'] } });
    t.equal((await f.request('GET', '/user', { token: made.json.sha1 })).status, 200);
    t.equal((await f.request('DELETE', `/users/alice/tokens/${made.json.id}`, { basic: ['alice', alice.password] })).status, 404, "another user's token id");
    t.equal((await f.request('DELETE', `/users/bob/tokens/${made.json.id}`, { basic: ['bob', bob.password] })).status, 204);
    t.equal((await f.request('GET', '/user', { token: made.json.sha1 })).status, 401, 'revoked at once (cache dropped)');
    t.equal((await f.request('DELETE', `/users/bob/tokens/${made.json.id}`, { basic: ['bob', bob.password] })).status, 404);
    t.equal((await f.request('DELETE', '/users/bob/tokens/abc', { basic: ['bob', bob.password] })).status, 404, 'no token of that name (by id, else by name)');
  });

  t.test('secrets are stored hashed', async (t) => {
    const made = await f.request('POST', '/users/alice/tokens', { basic: ['alice', alice.password], json: { name: 'needle', scopes: ['read:user'] } });
    const dir = path.join(f.dataDir, 'store');
    const files = await readdir(dir);
    let all = '';
    for (const file of files) all += await readFile(path.join(dir, file), 'utf8');
    t.notOk(all.includes(made.json.sha1), 'no token value on disk');
    t.notOk(all.includes(alice.password), 'no password on disk');
    t.ok(all.includes('needle'), 'the store was read');
  });
});
