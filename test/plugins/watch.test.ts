// watch plugin through HTTP: subscription read/set/remove with WatchInfo, owners' auto-watch, subscription lists
// with visibility and pagination, exact watchers_count, deletion.
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { insertRelations } from '../../bench/cases/relations.js';
import { watchListQuery, WATCHES } from '../../plugins/watch/service.js';

const names = (res: { json: any }) => (res.json as Array<{ full_name: string }>).map((r) => r.full_name);

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false, org?: string): Promise<any> {
  const res = await f.request('POST', org ? `/org/${org}/repos` : '/user/repos', { token: user.token, json: { name, private: priv } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

async function watchers(f: TestForge, fullName: string): Promise<number> {
  const res = await f.request('GET', `/repos/${fullName}`, { token: f.admin.token });
  if (res.status !== 200) throw new Error(`GET /repos/${fullName}: ${res.status}`);
  return res.json.watchers_count;
}

t.test('watch', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const carol = await f.createUser({ username: 'carol' });
  const testStart = new Date(Math.floor(Date.now() / 1000) * 1000);

  t.test('creating a repository makes its owner watch it', async (t) => {
    const repo = await createRepo(f, alice, 'pub');
    t.equal(repo.watchers_count, 1, 'the 201 body counts the owner');
    t.equal(await watchers(f, 'alice/pub'), 1);
    const sub = await f.request('GET', '/repos/alice/pub/subscription', { token: alice.token });
    t.equal(sub.status, 200);
    t.equal(sub.json.subscribed, true);
    t.same(names(await f.request('GET', '/user/subscriptions', { token: alice.token })), ['alice/pub']);
    await createRepo(f, alice, 'secret', true);
    t.equal(await watchers(f, 'alice/secret'), 1);
  });

  t.test('an organization repository is watched by the user who created it', async (t) => {
    t.equal((await f.request('POST', '/orgs', { token: bob.token, json: { username: 'acme' } })).status, 201);
    const repo = await createRepo(f, bob, 'engine', false, 'acme');
    t.equal(repo.watchers_count, 1);
    t.equal((await f.request('GET', '/repos/acme/engine/subscription', { token: bob.token })).status, 200, 'the creator watches');
    t.same((await f.request('GET', '/users/acme/subscriptions')).json, [], 'not the organization');
    t.ok(names(await f.request('GET', '/users/bob/subscriptions')).includes('acme/engine'));
  });

  t.test('GET /repos/{owner}/{repo}/subscription: 200 WatchInfo / 404', async (t) => {
    const yes = await f.request('GET', '/repos/alice/pub/subscription', { token: alice.token });
    t.equal(yes.status, 200);
    t.match(yes.headers.get('content-type'), /^application\/json/);
    t.same(Object.keys(yes.json).sort(), ['created_at', 'ignored', 'reason', 'repository_url', 'subscribed', 'url']);
    t.same({ ...yes.json, created_at: 'x' }, {
      subscribed: true, ignored: false, reason: null, created_at: 'x',
      url: `${f.api}/repos/alice/pub/subscription`, repository_url: `${f.api}/repos/alice/pub`,
    });
    t.match(yes.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'RFC 3339');
    const no = await f.request('GET', '/repos/alice/pub/subscription', { token: bob.token });
    t.equal(no.status, 404, 'not watching');
    t.match(no.json, { message: "The target couldn't be found.", url: String });
    for (const p of ['/repos/alice/secret/subscription', '/repos/alice/nothing/subscription', '/repos/nobody-here/pub/subscription']) {
      const res = await f.request('GET', p, { token: bob.token });
      t.equal(res.status, 404, p);
      t.match(res.json, { message: "The target couldn't be found.", url: String }, `${p}: the fixed 404 body`);
    }
    t.equal((await f.request('GET', '/repos/alice/pub/subscription')).status, 401, 'anonymous');
  });

  t.test('PUT /repos/{owner}/{repo}/subscription: 200 WatchInfo, idempotent, counted once', async (t) => {
    const res = await f.request('PUT', '/repos/Alice/PUB/subscription', { token: bob.token });
    t.equal(res.status, 200);
    t.same({ ...res.json, created_at: 'x' }, {
      subscribed: true, ignored: false, reason: null, created_at: 'x',
      url: `${f.api}/repos/alice/pub/subscription`, repository_url: `${f.api}/repos/alice/pub`,
    }, 'canonical names in the URLs');
    t.equal(await watchers(f, 'alice/pub'), 2);
    const again = await f.request('PUT', '/repos/alice/pub/subscription', { token: bob.token });
    t.equal(again.status, 200);
    t.equal(again.json.created_at, res.json.created_at, 'the same subscription');
    t.equal(await watchers(f, 'alice/pub'), 2, 'no second increment');
    t.same((await f.request('GET', '/repos/alice/pub/subscription', { token: bob.token })).json, res.json);
    for (const p of ['/repos/alice/secret/subscription', '/repos/alice/nothing/subscription']) {
      const denied = await f.request('PUT', p, { token: bob.token });
      t.equal(denied.status, 404, p);
      t.match(denied.json, { message: "The target couldn't be found.", url: String });
    }
    t.equal(await watchers(f, 'alice/secret'), 1, 'nothing stored for the unreadable repository');
    t.equal((await f.request('PUT', '/repos/alice/pub/subscription')).status, 401);
  });

  t.test('WatchInfo.created_at is when the watch was made, not when the repository was', async (t) => {
    const id = await f.forge.store.nextId('repos');
    const old = '2020-01-02T03:04:05Z';
    await f.forge.store.collection('repos').insertOne({
      id, ownerId: bob.id, name: 'vintage', lowerName: 'vintage', description: '', website: '', private: false, fork: false,
      forkId: null, mirror: false, empty: true, size: 0, defaultBranch: '', numStars: 0, numForks: 0, numWatches: 0,
      createdAt: old, updatedAt: old, mirrorUpdated: null, mirrorError: null,
    });
    const res = await f.request('PUT', '/repos/bob/vintage/subscription', { token: carol.token });
    t.equal(res.status, 200);
    t.not(res.json.created_at, old);
    t.ok(new Date(res.json.created_at) >= testStart, `${res.json.created_at} is the time of the watch`);
    t.equal((await f.request('GET', '/repos/bob/vintage', { token: carol.token })).json.created_at, old);
  });

  t.test('DELETE /repos/{owner}/{repo}/subscription: 204, idempotent, counted once', async (t) => {
    const res = await f.request('DELETE', '/repos/alice/pub/subscription', { token: bob.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.equal(await watchers(f, 'alice/pub'), 1);
    t.equal((await f.request('DELETE', '/repos/alice/pub/subscription', { token: bob.token })).status, 204, 'again');
    t.equal(await watchers(f, 'alice/pub'), 1, 'no second decrement');
    t.equal((await f.request('GET', '/repos/alice/pub/subscription', { token: bob.token })).status, 404);
    t.equal((await f.request('DELETE', '/repos/alice/secret/subscription', { token: bob.token })).status, 404, 'unreadable');
    t.equal(await watchers(f, 'alice/secret'), 1);
    t.equal((await f.request('DELETE', '/repos/alice/pub/subscription')).status, 401);
  });

  t.test('GET /user/subscriptions: newest first, the caller\'s permissions, 401 anonymous', async (t) => {
    t.equal((await f.request('PUT', '/repos/alice/pub/subscription', { token: carol.token })).status, 200);
    t.equal((await f.request('PUT', '/repos/acme/engine/subscription', { token: carol.token })).status, 200);
    const res = await f.request('GET', '/user/subscriptions', { token: carol.token });
    t.equal(res.status, 200);
    t.same(names(res), ['acme/engine', 'alice/pub', 'bob/vintage']);
    t.equal(res.headers.get('x-total-count'), '3');
    t.same(res.json[0].permissions, { admin: false, push: false, pull: true });
    t.equal(res.json[1].watchers_count, await watchers(f, 'alice/pub'));
    const own = await f.request('GET', '/user/subscriptions', { token: alice.token });
    t.same(names(own), ['alice/secret', 'alice/pub'], 'the owner\'s auto-watches, private included');
    t.same(own.json[0].permissions, { admin: true, push: true, pull: true });
    t.equal((await f.request('GET', '/user/subscriptions')).status, 401);
  });

  t.test('GET /users/{username}/subscriptions: public data, private repos only for callers who read them', async (t) => {
    const anon = await f.request('GET', '/users/alice/subscriptions');
    t.equal(anon.status, 200);
    t.same(names(anon), ['alice/pub'], 'anonymous: no private repository');
    t.equal(anon.headers.get('x-total-count'), '1', 'and not counted');
    const asBob = await f.request('GET', '/users/alice/subscriptions', { token: bob.token });
    t.same(names(asBob), ['alice/pub']);
    t.equal(asBob.headers.get('x-total-count'), '1');
    t.same(names(await f.request('GET', '/users/alice/subscriptions', { token: f.admin.token })), ['alice/secret', 'alice/pub'], 'admins see all');
    t.equal((await f.request('PUT', '/repos/alice/secret/collaborators/bob', { token: alice.token, json: { permission: 'write' } })).status, 204);
    const collab = await f.request('GET', '/users/alice/subscriptions', { token: bob.token });
    t.same(names(collab), ['alice/secret', 'alice/pub'], 'a collaborator reads it');
    t.same(collab.json[0].permissions, { admin: false, push: true, pull: true }, 'with the caller\'s permissions');
    t.equal(collab.headers.get('x-total-count'), '2');
    const unknown = await f.request('GET', '/users/nobody-here/subscriptions');
    t.equal(unknown.status, 404);
    t.match(unknown.json, { message: "The target couldn't be found.", url: String });
  });

  t.test('a repository made private vanishes from others\' subscription lists and counts', async (t) => {
    t.equal((await f.request('PATCH', '/repos/bob/vintage', { token: bob.token, json: { private: true } })).status, 200);
    const mine = await f.request('GET', '/user/subscriptions', { token: carol.token });
    t.same(names(mine), ['acme/engine', 'alice/pub']);
    t.equal(mine.headers.get('x-total-count'), '2');
    t.equal((await f.request('GET', '/repos/bob/vintage/subscription', { token: carol.token })).status, 404);
    t.equal((await f.request('GET', '/users/carol/subscriptions')).headers.get('x-total-count'), '2');
    t.equal((await f.request('GET', '/users/carol/subscriptions', { token: bob.token })).headers.get('x-total-count'), '3', 'the owner still sees it');
    t.equal((await f.request('PATCH', '/repos/bob/vintage', { token: bob.token, json: { private: false } })).status, 200);
    t.equal((await f.request('GET', '/users/carol/subscriptions')).headers.get('x-total-count'), '3');
  });

  t.test('pagination and the index behind the list', async (t) => {
    const fan = await f.createUser({ username: 'fan' });
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await createRepo(f, bob, `lib${i}`));
    await insertRelations(f.forge.store, 'watches', made.map((r) => ({ uid: fan.id, repo: { id: r.id, ownerId: bob.id, private: false } })));
    for (const r of made) t.equal(await watchers(f, `bob/${r.name}`), 2, `${r.name}: owner and fan`);
    const page = await f.request('GET', '/users/fan/subscriptions?limit=3&page=2');
    t.same(names(page), ['bob/lib0']);
    t.equal(page.headers.get('x-total-count'), '4');
    t.match(page.headers.get('link') ?? '', `<${f.api}/users/fan/subscriptions?limit=3&page=1>; rel="first"`);
    const first = await f.request('GET', '/user/subscriptions?limit=3', { token: fan.token });
    t.same(names(first), ['bob/lib3', 'bob/lib2', 'bob/lib1']);
    t.match(first.headers.get('link') ?? '', `<${f.api}/user/subscriptions?limit=3&page=2>; rel="next"`);
    const col = f.forge.store.collection(WATCHES);
    const { filter, options } = watchListQuery(fan.id, { listedOnly: false, hidden: [] }, { skip: 3, limit: 3 });
    const plan = await col.explain(filter, options);
    t.not(plan.index, null, `served by index ${plan.index}`);
    t.ok(plan.examined <= 4, `examined ${plan.examined} rows (only this user's)`);
    t.ok(plan.examined < (await col.count({})), 'not a scan of every watch');
  });

  t.test('deleting a repository removes its rows; deleting a user fixes watchers_count', async (t) => {
    const doomed = await createRepo(f, bob, 'doomed');
    t.equal((await f.request('PUT', '/repos/bob/doomed/subscription', { token: carol.token })).status, 200);
    t.equal((await f.request('DELETE', '/repos/bob/doomed', { token: bob.token })).status, 204);
    t.equal(await f.forge.store.collection(WATCHES).count({ repoId: doomed.id }), 0);
    t.notOk(names(await f.request('GET', '/user/subscriptions', { token: carol.token })).includes('bob/doomed'));
    const eve = await f.createUser({ username: 'eve' });
    await createRepo(f, eve, 'mine');
    t.equal((await f.request('PUT', '/repos/alice/pub/subscription', { token: eve.token })).status, 200);
    const before = await watchers(f, 'alice/pub');
    t.equal((await f.request('DELETE', '/admin/users/eve?purge=true', { token: f.admin.token })).status, 204);
    t.equal(await watchers(f, 'alice/pub'), before - 1);
    t.equal(await f.forge.store.collection(WATCHES).count({ uid: eve.id }), 0, 'her rows, her own repository\'s included');
  });

  t.test('counters equal the rows', async (t) => {
    const col = f.forge.store.collection(WATCHES);
    const repos = await f.forge.store.collection('repos').find({}, { projection: { id: 1, numWatches: 1, name: 1 } });
    const wrong: string[] = [];
    for (const repo of repos) {
      const rows = await col.count({ repoId: repo.id as number });
      if (repo.numWatches !== rows) wrong.push(`${repo.name}: numWatches ${repo.numWatches}, rows ${rows}`);
    }
    t.same(wrong, [], `numWatches equals the rows for all ${repos.length} repositories`);
    t.equal(await col.count({}), repos.reduce((n, r) => n + (r.numWatches as number), 0), 'no orphan rows');
  });
});
