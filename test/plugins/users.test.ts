// users + admin plugins through HTTP: profiles, email visibility, search, emails, admin user management.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { internalized } from '../../plugins/lib/grams.js';

t.test('users and admin', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'Alice', email: 'alice@example.com' });
  const bob = await f.createUser({ username: 'bob', email: 'bob@example.com' });

  t.test('GET /user', async (t) => {
    const res = await f.request('GET', '/user', { token: alice.token });
    t.equal(res.status, 200);
    t.match(res.json, {
      id: alice.id, login: 'Alice', full_name: '', email: 'alice@example.com',
      avatar_url: `${f.url}/avatars/${alice.id}`, html_url: `${f.url}/Alice`, username: 'Alice', is_admin: false,
      visibility: 'public', active: true, prohibit_login: false, restricted: false, created: String,
      followers_count: 0, following_count: 0, starred_repos_count: 0, login_name: '', source_id: 0,
    });
    t.equal((await f.request('GET', '/user')).status, 401);
  });

  t.test('GET /users/{username}: case-insensitive, email only for self and admins', async (t) => {
    const anon = await f.request('GET', '/users/alice');
    t.equal(anon.status, 200);
    t.equal(anon.json.login, 'Alice');
    t.equal(anon.json.email, '');
    t.equal((await f.request('GET', '/users/ALICE', { token: bob.token })).json.email, '', 'another user');
    t.equal((await f.request('GET', '/users/alice', { token: alice.token })).json.email, 'alice@example.com', 'self');
    t.equal((await f.request('GET', '/users/alice', { token: f.admin.token })).json.email, 'alice@example.com', 'admin');
    const missing = await f.request('GET', '/users/nobody-here');
    t.equal(missing.status, 404);
    t.match(missing.json, { message: "The target couldn't be found.", url: String });
  });

  t.test('GET /users/search', async (t) => {
    for (let i = 0; i < 12; i++) await f.createUser({ username: `searchme${i}` });
    const all = await f.request('GET', '/users/search?q=&limit=50');
    t.equal(all.json.ok, true);
    t.ok(all.json.data.length >= 13, 'an empty query lists every account, paged (Gitea)');
    t.equal(all.headers.get('x-total-count'), String(all.json.data.length));
    t.same(all.json.data.map((u: any) => u.id), [...all.json.data.map((u: any) => u.id)].sort((a: number, b: number) => a - b), 'in id order');
    const res = await f.request('GET', '/users/search?q=SEARCHME');
    t.equal(res.status, 200);
    t.same(Object.keys(res.json).sort(), ['data', 'ok'], 'the {ok, data} envelope gitea-js and the Go SDK decode');
    t.equal(res.json.ok, true);
    t.equal(res.json.data.length, 10, 'default limit 10');
    t.equal(res.headers.get('x-total-count'), '12');
    t.match(res.headers.get('link'), /rel="next"/);
    t.ok(res.json.data.every((u: any) => u.email === ''), 'no emails for anonymous callers');
    const page2 = await f.request('GET', '/users/search?q=searchme&page=2&limit=5');
    t.same(page2.json.data.map((u: any) => u.login), ['searchme5', 'searchme6', 'searchme7', 'searchme8', 'searchme9'], 'account order, paged');
    t.match(page2.headers.get('link'), /q=searchme/, 'the Link header keeps the query');
    const short = await f.request('GET', '/users/search?q=HME&page=3&limit=5');
    t.same(short.json.data.map((u: any) => u.login), ['searchme10', 'searchme11'], 'a short query is answered by the gram index, paged');
    t.equal(short.headers.get('x-total-count'), '12');
    const org = await f.request('POST', '/orgs', { token: alice.token, json: { username: 'searchme-org' } });
    t.equal(org.status, 201);
    const noOrgs = await f.request('GET', '/users/search?q=searchme&limit=50');
    t.notOk(noOrgs.json.data.some((u: any) => u.login === 'searchme-org'), 'organizations are not users');
    t.equal(noOrgs.json.data.length, 12);
    const capped = await f.request('GET', '/users/search?q=e&limit=500');
    t.ok(capped.json.data.length <= 50, 'limit capped at 50');
    const byFullName = await f.request('GET', '/users/search?q=lic');
    t.ok(byFullName.json.data.some((u: any) => u.login === 'Alice'));
    const literal = await f.request('GET', `/users/search?q=${encodeURIComponent('.*')}`);
    t.same(literal.json.data, [], 'regex metacharacters are literal text');
    const bad = await f.request('GET', '/users/search?q=a&page=x');
    t.equal(bad.status, 422);
  });

  t.test('GET /users/search: queries that are numbers or property names match as text', async (t) => {
    // The handler hands the store V8's internalized copy of the query (plugins/users/grams.ts): the same text.
    t.equal(internalized('123'), '123');
    t.equal(internalized('__proto__'), '__proto__');
    await f.createUser({ username: 'n123x' });
    await f.createUser({ username: 'a__proto__b' });
    await f.createUser({ username: 'constructor7' });
    const search = async (q: string) => ((await f.request('GET', `/users/search?q=${encodeURIComponent(q)}`)).json.data as any[]).map((u) => u.login);
    t.same(await search('123'), ['n123x'], 'a digit-only gram');
    t.same(await search('23'), ['n123x'], 'two digits');
    t.same(await search('__proto__'), ['a__proto__b'], 'a longer query');
    t.same(await search('__p'), ['a__proto__b'], 'a short one');
    t.same(await search('constructor'), ['constructor7']);
    t.same(await search('CON'), ['constructor7'], 'case-insensitive');
  });

  t.test('emails', async (t) => {
    const list = await f.request('GET', '/user/emails', { token: bob.token });
    t.same(list.json, [{ email: 'bob@example.com', verified: true, primary: true }]);
    const add = await f.request('POST', '/user/emails', { token: bob.token, json: { emails: ['bob2@example.com'] } });
    t.equal(add.status, 201);
    t.same(add.json, [{ email: 'bob2@example.com', verified: false, primary: false }]);
    const dup = await f.request('POST', '/user/emails', { token: alice.token, json: { emails: ['BOB@example.com'] } });
    t.equal(dup.status, 422, 'an address belongs to one account');
    const invalid = await f.request('POST', '/user/emails', { token: bob.token, json: { emails: ['not-an-email'] } });
    t.equal(invalid.status, 422);
    t.match(invalid.json.message, /emails/);
    const adminAdds = await f.request('POST', '/user/emails', { token: f.admin.token, json: { emails: ['root2@example.com'] } });
    t.same(adminAdds.json, [{ email: 'root2@example.com', verified: true, primary: false }]);
    t.equal((await f.request('DELETE', '/user/emails', { token: bob.token, json: { emails: ['bob@example.com'] } })).status, 422, 'primary stays');
    t.equal((await f.request('DELETE', '/user/emails', { token: bob.token, json: { emails: ['alice@example.com'] } })).status, 422, 'not yours');
    t.equal((await f.request('DELETE', '/user/emails', { token: bob.token, json: { emails: ['bob2@example.com'] } })).status, 204);
    t.equal((await f.request('GET', '/user/emails', { token: bob.token })).json.length, 1);
    t.equal((await f.request('GET', '/user/emails')).status, 401);
  });

  t.test('POST /admin/users', async (t) => {
    const ok = await f.request('POST', '/admin/users', { token: f.admin.token, json: { username: 'carol', email: 'carol@example.com', password: 'secret-1', full_name: 'Carol C' } });
    t.equal(ok.status, 201);
    t.match(ok.json, { login: 'carol', full_name: 'Carol C', email: 'carol@example.com' });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ username: 'CAROL', email: 'c2@example.com', password: 'secret-1' }, /username.*taken/],
      [{ username: 'carol2', email: 'CAROL@example.com', password: 'secret-1' }, /email.*used/],
      [{ username: 'bad name', email: 'x@example.com', password: 'secret-1' }, /username/],
      [{ username: 'api', email: 'x@example.com', password: 'secret-1' }, /username.*reserved/],
      [{ username: 'x'.repeat(41), email: 'x@example.com', password: 'secret-1' }, /username/],
      [{ username: 'dave', email: 'nope', password: 'secret-1' }, /email/],
      [{ username: 'dave', email: 'dave@example.com', password: '123' }, /password/],
      [{ username: 'dave', email: 'dave@example.com' }, /password: is required/],
    ];
    for (const [json, message] of cases) {
      const res = await f.request('POST', '/admin/users', { token: f.admin.token, json });
      t.equal(res.status, 422, JSON.stringify(json));
      t.match(res.json.message, message);
    }
    t.equal((await f.request('POST', '/admin/users', { token: alice.token, json: { username: 'eve', email: 'eve@example.com', password: 'secret-1' } })).status, 403);
    t.equal((await f.request('POST', '/admin/users', { json: { username: 'eve', email: 'eve@example.com', password: 'secret-1' } })).status, 401);
  });

  t.test('DELETE /admin/users/{username}', async (t) => {
    const doomed = await f.createUser({ username: 'doomed' });
    t.equal((await f.request('DELETE', '/admin/users/doomed', { token: alice.token })).status, 403);
    t.equal((await f.request('DELETE', '/admin/users/DOOMED', { token: f.admin.token })).status, 204);
    t.equal((await f.request('GET', '/users/doomed')).status, 404);
    t.equal((await f.request('GET', '/user', { token: doomed.token })).status, 401, 'its tokens died with it');
    t.equal((await f.request('DELETE', '/admin/users/doomed', { token: f.admin.token })).status, 404);
    t.equal((await f.request('DELETE', '/admin/users/root', { token: f.admin.token })).status, 422, 'no self-deletion');
  });
});
