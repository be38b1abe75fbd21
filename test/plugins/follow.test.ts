// follow plugin through HTTP: lists, checks, follow/unfollow, idempotence, exact counters, deletion, pagination.
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { followListQuery, FOLLOWS } from '../../plugins/follow/service.js';
import { userListAsSingles } from '../helpers/user-lists.js';

async function counters(f: TestForge, id: number): Promise<{ followers: number; following: number }> {
  const account = await f.forge.store.collection('users').findOne({ id });
  if (!account) throw new Error(`no account ${id}`);
  return { followers: account.numFollowers as number, following: account.numFollowing as number };
}

const logins = (res: { json: any }) => (res.json as Array<{ login: string }>).map((u) => u.login);

t.test('follow', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const carol = await f.createUser({ username: 'carol' });

  t.test('PUT /user/following/{username}: 204, idempotent, counters move once', async (t) => {
    const res = await f.request('PUT', '/user/following/bob', { token: alice.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.same(await counters(f, bob.id), { followers: 1, following: 0 });
    t.same(await counters(f, alice.id), { followers: 0, following: 1 });
    const again = await f.request('PUT', '/user/following/BOB', { token: alice.token });
    t.equal(again.status, 204, 'again, case-insensitive name');
    t.same(await counters(f, bob.id), { followers: 1, following: 0 }, 'no second increment');
    t.same(await counters(f, alice.id), { followers: 0, following: 1 });
    t.equal(await f.forge.store.collection(FOLLOWS).count({ followerId: alice.id }), 1, 'one row');
  });

  t.test('PUT /user/following/{username}: yourself is a no-op 204', async (t) => {
    const before = await counters(f, carol.id);
    const res = await f.request('PUT', '/user/following/carol', { token: carol.token });
    t.equal(res.status, 204);
    t.same(await counters(f, carol.id), before);
    t.equal((await f.request('GET', '/user/following/carol', { token: carol.token })).status, 404, 'not following yourself');
    t.equal(await f.forge.store.collection(FOLLOWS).count({ followerId: carol.id, followingId: carol.id }), 0);
  });

  t.test('PUT /user/following/{username}: unknown user 404 empty, anonymous 401', async (t) => {
    const res = await f.request('PUT', '/user/following/nobody-here', { token: alice.token });
    t.equal(res.status, 404);
    t.match(res.json, { message: "The target couldn't be found.", url: String });
    t.equal((await f.request('PUT', '/user/following/bob')).status, 401);
    const bad = await f.request('PUT', '/user/following/bob', { headers: { Authorization: 'token not-a-token' } });
    t.equal(bad.status, 401, 'invalid credentials');
  });

  t.test('GET /user/following/{username}: 204 / 404', async (t) => {
    const yes = await f.request('GET', '/user/following/bob', { token: alice.token });
    t.equal(yes.status, 204);
    t.equal(yes.text, '');
    const no = await f.request('GET', '/user/following/alice', { token: bob.token });
    t.equal(no.status, 404);
    t.match(no.json, { message: "The target couldn't be found.", url: String });
    const unknown = await f.request('GET', '/user/following/nobody-here', { token: bob.token });
    t.equal(unknown.status, 404);
    t.match(unknown.json, { message: "The target couldn't be found.", url: String });
    t.equal((await f.request('GET', '/user/following/bob')).status, 401);
  });

  t.test('GET /users/{username}/following/{target}: 204 / 404, anonymous allowed', async (t) => {
    t.equal((await f.request('GET', '/users/alice/following/bob')).status, 204);
    t.equal((await f.request('GET', '/users/ALICE/following/Bob', { token: carol.token })).status, 204);
    const no = await f.request('GET', '/users/bob/following/alice');
    t.equal(no.status, 404);
    t.match(no.json, { message: "The target couldn't be found.", url: String });
    const unknownUser = await f.request('GET', '/users/nobody-here/following/bob');
    t.equal(unknownUser.status, 404);
    t.match(unknownUser.json, { message: "The target couldn't be found.", url: String });
    const unknownTarget = await f.request('GET', '/users/alice/following/nobody-here');
    t.equal(unknownTarget.status, 404);
    t.match(unknownTarget.json, { message: "The target couldn't be found.", url: String });
  });

  t.test('GET /user/followers and /user/following: the caller\'s lists', async (t) => {
    await f.request('PUT', '/user/following/bob', { token: carol.token });
    const followers = await f.request('GET', '/user/followers', { token: bob.token });
    t.equal(followers.status, 200);
    t.same(logins(followers), ['carol', 'alice'], 'newest relation first');
    t.equal(followers.headers.get('x-total-count'), '2');
    t.match(followers.json[0], {
      id: carol.id, login: 'carol', full_name: '', email: '', avatar_url: `${f.url}/avatars/${carol.id}`, username: 'carol',
      following_count: 1, is_admin: false, last_login: null,
    }, 'User shape; another user\'s email and account state are hidden');
    const following = await f.request('GET', '/user/following', { token: alice.token });
    t.equal(following.status, 200);
    t.same(logins(following), ['bob']);
    t.equal(following.headers.get('x-total-count'), '1');
    const none = await f.request('GET', '/user/followers', { token: alice.token });
    t.same(none.json, []);
    t.equal(none.headers.get('x-total-count'), '0');
    t.equal((await f.request('GET', '/user/followers')).status, 401);
    t.equal((await f.request('GET', '/user/following')).status, 401);
  });

  t.test('GET /users/{username}/followers and /following: public, unknown 404', async (t) => {
    const followers = await f.request('GET', '/users/bob/followers');
    t.equal(followers.status, 200);
    t.same(logins(followers), ['carol', 'alice']);
    t.ok(followers.json.every((u: any) => u.email === ''), 'no emails for anonymous callers');
    const byAdmin = await f.request('GET', '/users/bob/followers', { token: f.admin.token });
    t.same(byAdmin.json.map((u: any) => u.email), [carol.email, alice.email], 'site admins see emails');
    const following = await f.request('GET', '/users/carol/following', { token: alice.token });
    t.same(logins(following), ['bob']);
    for (const p of ['/users/nobody-here/followers', '/users/nobody-here/following']) {
      const res = await f.request('GET', p);
      t.equal(res.status, 404, p);
      t.match(res.json, { message: "The target couldn't be found.", url: String }, `${p}: the fixed 404 body`);
    }
    t.equal((await f.request('GET', '/users/bob/followers?page=abc')).status, 422, 'bad page');
  });

  t.test('DELETE /user/following/{username}: 204, idempotent, counters move once', async (t) => {
    const before = { bob: await counters(f, bob.id), carol: await counters(f, carol.id) };
    const res = await f.request('DELETE', '/user/following/bob', { token: carol.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.same(await counters(f, bob.id), { followers: before.bob.followers - 1, following: before.bob.following });
    t.same(await counters(f, carol.id), { followers: before.carol.followers, following: before.carol.following - 1 });
    t.equal((await f.request('DELETE', '/user/following/bob', { token: carol.token })).status, 204, 'again');
    t.same(await counters(f, bob.id), { followers: before.bob.followers - 1, following: before.bob.following }, 'no second decrement');
    t.equal((await f.request('GET', '/user/following/bob', { token: carol.token })).status, 404);
    t.equal((await f.request('DELETE', '/user/following/carol', { token: carol.token })).status, 204, 'yourself: no-op');
    const unknown = await f.request('DELETE', '/user/following/nobody-here', { token: carol.token });
    t.equal(unknown.status, 404);
    t.match(unknown.json, { message: "The target couldn't be found.", url: String });
    t.equal((await f.request('DELETE', '/user/following/bob')).status, 401);
  });

  t.test('organizations can be followed', async (t) => {
    const org = await f.request('POST', '/orgs', { token: alice.token, json: { username: 'acme' } });
    t.equal(org.status, 201);
    t.equal((await f.request('PUT', '/user/following/acme', { token: bob.token })).status, 204);
    t.equal((await f.request('GET', '/user/following/acme', { token: bob.token })).status, 204);
    t.same(logins(await f.request('GET', '/users/acme/followers')), ['bob']);
    t.same(await counters(f, org.json.id), { followers: 1, following: 0 });
    // Deleting the organization removes its rows and fixes the follower's counter.
    const bobBefore = await counters(f, bob.id);
    t.equal((await f.request('DELETE', '/orgs/acme', { token: alice.token })).status, 204);
    t.same(await counters(f, bob.id), { followers: bobBefore.followers, following: bobBefore.following - 1 });
    t.notOk(logins(await f.request('GET', '/users/bob/following')).includes('acme'));
  });

  t.test('pagination: page, limit, X-Total-Count, Link keeping other parameters', async (t) => {
    const star = await f.createUser({ username: 'popular' });
    const fans: TestUser[] = [];
    for (let i = 0; i < 7; i++) fans.push(await f.createUser({ username: `fan${i}` }));
    for (const fan of fans) t.equal((await f.request('PUT', '/user/following/popular', { token: fan.token })).status, 204);
    const page2 = await f.request('GET', '/users/popular/followers?limit=3&page=2&foo=bar');
    t.equal(page2.status, 200);
    t.same(logins(page2), ['fan3', 'fan2', 'fan1'], 'newest first, second page');
    t.equal(page2.headers.get('x-total-count'), '7');
    const link = page2.headers.get('link') ?? '';
    const base = `${f.api}/users/popular/followers`;
    t.match(link, `<${base}?limit=3&page=3&foo=bar>; rel="next"`);
    t.match(link, `<${base}?limit=3&page=3&foo=bar>; rel="last"`);
    t.match(link, `<${base}?limit=3&page=1&foo=bar>; rel="first"`);
    t.match(link, `<${base}?limit=3&page=1&foo=bar>; rel="prev"`);
    const last = await f.request('GET', '/users/popular/followers?limit=3&page=3');
    t.same(logins(last), ['fan0']);
    const beyond = await f.request('GET', '/users/popular/followers?limit=3&page=9');
    t.same(beyond.json, []);
    t.equal(beyond.headers.get('x-total-count'), '7');
    const capped = await f.request('GET', '/users/popular/followers?limit=500');
    t.equal(capped.json.length, 7, 'limit above the maximum is clamped, not an error');
    t.same(await counters(f, star.id), { followers: 7, following: 0 });
    // The list page is answered through an index, not a scan of every follow row.
    const { filter, options } = followListQuery('followers', star.id, { skip: 3, limit: 3 });
    const plan = await f.forge.store.collection(FOLLOWS).explain(filter, options);
    t.not(plan.index, null, `index used: ${plan.index}`);
    t.ok(plan.examined <= 7, `examined ${plan.examined} rows (only this user's)`);
    t.ok(plan.examined < (await f.forge.store.collection(FOLLOWS).count({})), 'fewer than the whole collection');
  });

  t.test('deleting a user removes their rows and fixes everyone\'s counters', async (t) => {
    const dave = await f.createUser({ username: 'dave' });
    await f.request('PUT', '/user/following/alice', { token: dave.token });
    await f.request('PUT', '/user/following/bob', { token: dave.token });
    await f.request('PUT', '/user/following/dave', { token: carol.token });
    const before = { alice: await counters(f, alice.id), bob: await counters(f, bob.id), carol: await counters(f, carol.id) };
    const res = await f.request('DELETE', '/admin/users/dave', { token: f.admin.token });
    t.equal(res.status, 204);
    t.same(await counters(f, alice.id), { ...before.alice, followers: before.alice.followers - 1 });
    t.same(await counters(f, bob.id), { ...before.bob, followers: before.bob.followers - 1 });
    t.same(await counters(f, carol.id), { ...before.carol, following: before.carol.following - 1 });
    const rows = f.forge.store.collection(FOLLOWS);
    t.equal(await rows.count({ followerId: dave.id }), 0);
    t.equal(await rows.count({ followingId: dave.id }), 0);
    t.notOk(logins(await f.request('GET', '/users/alice/followers')).includes('dave'));
    t.equal((await f.request('GET', '/users/dave/followers')).status, 404);
  });

  t.test('lists are the single-user answers of each viewer, and a changed account shows at once', async (t) => {
    const hub = await f.createUser({ username: 'hub' });
    const ann = await f.createUser({ username: 'ann' });
    const ben = await f.createUser({ username: 'ben' });
    for (const who of [ann, ben]) t.equal((await f.request('PUT', '/user/following/hub', { token: who.token })).status, 204);
    for (const whom of ['ann', 'ben']) t.equal((await f.request('PUT', `/user/following/${whom}`, { token: hub.token })).status, 204);
    // [path, the token the path needs (undefined: any viewer), the logins in list order]
    const lists: Array<[string, string | undefined, string[]]> = [
      ['/users/hub/followers', undefined, ['ben', 'ann']],
      ['/users/hub/following', undefined, ['ben', 'ann']],
      ['/user/followers', hub.token, ['ben', 'ann']],
      ['/user/following', hub.token, ['ben', 'ann']],
    ];
    const viewers: Array<[string, string | undefined]> = [['anonymous', undefined], ['ann', ann.token], ['hub', hub.token], ['admin', f.admin.token]];
    const check = async (round: string) => {
      for (const [path, fixed, order] of lists) {
        for (const [viewer, token] of fixed ? [['hub', fixed] as [string, string]] : viewers) {
          const res = await f.request('GET', path, { token });
          t.equal(res.status, 200);
          t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
          t.equal(res.text, await userListAsSingles(f, order, token), `${round}: ${path} as ${viewer}`);
        }
      }
    };
    await check('first');
    await check('again');
    t.equal((await f.request('GET', '/users/hub/followers', { token: ann.token })).json[1].email, ann.email, 'ann sees her own email');
    await f.forge.store.collection('users').updateOne({ id: ann.id }, { $set: { fullName: 'Ann "Changed" Ü' } });
    await check('after a change');
    t.equal((await f.request('GET', '/users/hub/followers')).json[1].full_name, 'Ann "Changed" Ü', 'the new version of the account');
  });

  t.test('counters equal the rows for every account', async (t) => {
    const rows = f.forge.store.collection(FOLLOWS);
    for (const account of await f.forge.store.collection('users').find({})) {
      const id = account.id as number;
      t.equal(account.numFollowers, await rows.count({ followingId: id }), `${account.login} followers`);
      t.equal(account.numFollowing, await rows.count({ followerId: id }), `${account.login} following`);
    }
  });
});
