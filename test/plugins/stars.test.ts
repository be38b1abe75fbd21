// stars plugin through HTTP: star/unstar/check, lists with visibility and pagination, exact counters, deletion,
// and a user with 5,000 stars paged through an index.
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { insertRelations, type RelationTarget } from '../../bench/cases/relations.js';
import { starListQuery, STARS } from '../../plugins/stars/service.js';

const names = (res: { json: any }) => (res.json as Array<{ full_name: string }>).map((r) => r.full_name);

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

/** The stored counter (what `stars_count` shows), read as a site admin through the API. */
async function starsCount(f: TestForge, fullName: string): Promise<number> {
  const res = await f.request('GET', `/repos/${fullName}`, { token: f.admin.token });
  if (res.status !== 200) throw new Error(`GET /repos/${fullName}: ${res.status}`);
  return res.json.stars_count;
}

async function userStars(f: TestForge, id: number): Promise<number> {
  return (await f.forge.store.collection('users').findOne({ id }))!.numStars as number;
}

/** Inserts repository records straight through the store (thousands of them: faster than the API). */
async function insertRepos(f: TestForge, ownerId: number, prefix: string, n: number): Promise<RelationTarget[]> {
  const ids = (await Promise.all(Array.from({ length: n }, () => f.forge.store.nextId('repos')))).sort((a, b) => a - b);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const docs = ids.map((id, i) => ({
    id, ownerId, name: `${prefix}${i}`, lowerName: `${prefix}${i}`, description: '', website: '', private: false, fork: false,
    forkId: null, mirror: false, empty: true, size: 0, defaultBranch: '', numStars: 0, numForks: 0, numWatches: 0,
    createdAt: now, updatedAt: now, mirrorUpdated: null, mirrorError: null,
  }));
  for (let i = 0; i < docs.length; i += 1000) await f.forge.store.collection('repos').insertMany(docs.slice(i, i + 1000));
  return docs.map((d) => ({ id: d.id, ownerId, private: false }));
}

t.test('stars', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const carol = await f.createUser({ username: 'carol' });
  await createRepo(f, alice, 'pub');
  await createRepo(f, alice, 'secret', true);
  await createRepo(f, bob, 'tools');

  t.test('PUT /user/starred/{owner}/{repo}: 204, idempotent, counters move once', async (t) => {
    const res = await f.request('PUT', '/user/starred/alice/pub', { token: bob.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.equal(await starsCount(f, 'alice/pub'), 1);
    t.equal(await userStars(f, bob.id), 1);
    const again = await f.request('PUT', '/user/starred/ALICE/Pub', { token: bob.token });
    t.equal(again.status, 204, 'again, case-insensitive names');
    t.equal(await starsCount(f, 'alice/pub'), 1, 'no second increment');
    t.equal(await userStars(f, bob.id), 1);
    t.equal(await f.forge.store.collection(STARS).count({ uid: bob.id }), 1, 'one row');
    t.equal((await f.request('PUT', '/user/starred/alice/pub', { token: alice.token })).status, 204, 'own repository');
    t.equal(await starsCount(f, 'alice/pub'), 2);
  });

  t.test('PUT: unreadable, unknown → 404 empty (nothing stored); anonymous → 401', async (t) => {
    for (const p of ['/user/starred/alice/secret', '/user/starred/alice/nothing', '/user/starred/nobody-here/pub']) {
      const res = await f.request('PUT', p, { token: bob.token });
      t.equal(res.status, 404, p);
      t.match(res.json, { message: "The target couldn't be found.", url: String }, `${p}: the fixed 404 body`);
    }
    t.equal(await starsCount(f, 'alice/secret'), 0, 'the private repository was not starred');
    t.equal(await userStars(f, bob.id), 1);
    t.equal((await f.request('PUT', '/user/starred/alice/pub')).status, 401);
  });

  t.test('GET /user/starred/{owner}/{repo}: 204 / 404', async (t) => {
    const yes = await f.request('GET', '/user/starred/alice/pub', { token: bob.token });
    t.equal(yes.status, 204);
    t.equal(yes.text, '');
    const no = await f.request('GET', '/user/starred/bob/tools', { token: bob.token });
    t.equal(no.status, 404);
    t.match(no.json, { message: "The target couldn't be found.", url: String });
    t.equal((await f.request('GET', '/user/starred/alice/secret', { token: bob.token })).status, 404, 'unreadable');
    t.equal((await f.request('GET', '/user/starred/nobody-here/x', { token: bob.token })).status, 404, 'unknown');
    t.equal((await f.request('GET', '/user/starred/alice/pub')).status, 401);
  });

  t.test('a repository the caller cannot read is a 404 on every operation, even when a row exists', async (t) => {
    // carol reads alice/secret as a collaborator and stars it; then loses access.
    t.equal((await f.request('PUT', '/repos/alice/secret/collaborators/carol', { token: alice.token, json: { permission: 'read' } })).status, 204);
    t.equal((await f.request('PUT', '/user/starred/alice/secret', { token: carol.token })).status, 204);
    t.equal((await f.request('GET', '/user/starred/alice/secret', { token: carol.token })).status, 204);
    t.equal(await starsCount(f, 'alice/secret'), 1);
    t.same(names(await f.request('GET', '/user/starred', { token: carol.token })), ['alice/secret']);
    t.equal((await f.request('DELETE', '/repos/alice/secret/collaborators/carol', { token: alice.token })).status, 204);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await f.request(method, '/user/starred/alice/secret', { token: carol.token });
      t.equal(res.status, 404, method);
      t.match(res.json, { message: "The target couldn't be found.", url: String }, `${method}: the fixed 404 body`);
    }
    const mine = await f.request('GET', '/user/starred', { token: carol.token });
    t.same(mine.json, [], 'hidden from her own list once unreadable');
    t.equal(mine.headers.get('x-total-count'), '0', 'and not counted');
    t.equal(await starsCount(f, 'alice/secret'), 1, 'the row stays (access may come back)');
    t.equal((await f.request('PUT', '/repos/alice/secret/collaborators/carol', { token: alice.token, json: { permission: 'read' } })).status, 204);
    t.same(names(await f.request('GET', '/user/starred', { token: carol.token })), ['alice/secret'], 'back with access');
  });

  t.test('GET /user/starred: newest first, the caller\'s permissions, 401 anonymous', async (t) => {
    t.equal((await f.request('PUT', '/user/starred/bob/tools', { token: carol.token })).status, 204);
    t.equal((await f.request('PUT', '/user/starred/alice/pub', { token: carol.token })).status, 204);
    const res = await f.request('GET', '/user/starred', { token: carol.token });
    t.equal(res.status, 200);
    t.same(names(res), ['alice/pub', 'bob/tools', 'alice/secret'], 'newest star first');
    t.equal(res.headers.get('x-total-count'), '3');
    t.same(res.json[0].permissions, { admin: false, push: false, pull: true });
    t.same(res.json[2].permissions, { admin: false, push: false, pull: true }, 'collaborator with read');
    t.equal(res.json[0].stars_count, await starsCount(f, 'alice/pub'));
    t.equal(res.json[0].owner.login, 'alice');
    const own = await f.request('GET', '/user/starred', { token: alice.token });
    t.same(names(own), ['alice/pub']);
    t.same(own.json[0].permissions, { admin: true, push: true, pull: true }, 'owner permissions for the owner');
    t.equal((await f.request('GET', '/user/starred')).status, 401);
  });

  t.test('GET /users/{username}/starred: public data, private repos only for callers who read them', async (t) => {
    const anon = await f.request('GET', '/users/carol/starred');
    t.equal(anon.status, 200);
    t.same(names(anon), ['alice/pub', 'bob/tools'], 'anonymous: no private repository');
    t.equal(anon.headers.get('x-total-count'), '2', 'and not counted');
    t.same(anon.json[0].permissions, { admin: false, push: false, pull: true }, 'anonymous permissions');
    const asBob = await f.request('GET', '/users/carol/starred', { token: bob.token });
    t.same(names(asBob), ['alice/pub', 'bob/tools']);
    t.equal(asBob.headers.get('x-total-count'), '2');
    t.same(asBob.json[1].permissions, { admin: true, push: true, pull: true }, 'the caller\'s permissions, not carol\'s');
    const asAlice = await f.request('GET', '/users/carol/starred', { token: alice.token });
    t.same(names(asAlice), ['alice/pub', 'bob/tools', 'alice/secret'], 'the owner reads it');
    t.equal(asAlice.headers.get('x-total-count'), '3');
    const asAdmin = await f.request('GET', '/users/carol/starred', { token: f.admin.token });
    t.same(names(asAdmin), ['alice/pub', 'bob/tools', 'alice/secret'], 'site admins see all');
    const unknown = await f.request('GET', '/users/nobody-here/starred');
    t.equal(unknown.status, 404);
    t.match(unknown.json, { message: "The target couldn't be found.", url: String });
    t.equal((await f.request('GET', '/users/carol/starred?limit=x')).status, 422);
  });

  t.test('a repository made private vanishes from others\' lists and counts; made public, it is back', async (t) => {
    t.equal((await f.request('PUT', '/user/starred/bob/tools', { token: alice.token })).status, 204);
    t.equal((await f.request('PATCH', '/repos/bob/tools', { token: bob.token, json: { private: true } })).status, 200);
    for (const who of [null, alice]) {
      const opts = who ? { token: who.token } : {};
      const res = await f.request('GET', '/users/carol/starred', opts);
      t.notOk(names(res).includes('bob/tools'), `hidden from ${who?.username ?? 'anonymous'}`);
      t.equal(res.headers.get('x-total-count'), String(res.json.length), `count matches for ${who?.username ?? 'anonymous'}`);
    }
    const mine = await f.request('GET', '/user/starred', { token: alice.token });
    t.notOk(names(mine).includes('bob/tools'), 'hidden from a starrer who cannot read it');
    t.equal(mine.headers.get('x-total-count'), '1');
    t.equal((await f.request('GET', '/user/starred/bob/tools', { token: alice.token })).status, 404);
    t.ok(names(await f.request('GET', '/users/carol/starred', { token: bob.token })).includes('bob/tools'), 'the owner still sees it');
    t.equal((await f.request('PATCH', '/repos/bob/tools', { token: bob.token, json: { private: false } })).status, 200);
    t.ok(names(await f.request('GET', '/user/starred', { token: alice.token })).includes('bob/tools'), 'public again');
    const anon = await f.request('GET', '/users/carol/starred');
    t.same(names(anon), ['alice/pub', 'bob/tools'], 'anonymous sees it again');
    t.equal(anon.headers.get('x-total-count'), '2');
  });

  t.test('DELETE /user/starred/{owner}/{repo}: 204, idempotent, counters move once', async (t) => {
    const before = { repo: await starsCount(f, 'alice/pub'), user: await userStars(f, carol.id) };
    const res = await f.request('DELETE', '/user/starred/alice/pub', { token: carol.token });
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.equal(await starsCount(f, 'alice/pub'), before.repo - 1);
    t.equal(await userStars(f, carol.id), before.user - 1);
    t.equal((await f.request('DELETE', '/user/starred/alice/pub', { token: carol.token })).status, 204, 'again');
    t.equal(await starsCount(f, 'alice/pub'), before.repo - 1, 'no second decrement');
    t.equal(await userStars(f, carol.id), before.user - 1);
    t.equal((await f.request('GET', '/user/starred/alice/pub', { token: carol.token })).status, 404);
    t.equal((await f.request('DELETE', '/user/starred/alice/nothing', { token: carol.token })).status, 404);
    t.equal((await f.request('DELETE', '/user/starred/alice/pub')).status, 401);
  });

  t.test('pagination: page, limit, X-Total-Count, Link', async (t) => {
    const fan = await f.createUser({ username: 'fan' });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      await createRepo(f, bob, `lib${i}`);
      t.equal((await f.request('PUT', `/user/starred/bob/lib${i}`, { token: fan.token })).status, 204);
      made.push(`bob/lib${i}`);
    }
    const page = await f.request('GET', '/users/fan/starred?page=2&limit=2&sort=x', { token: alice.token });
    t.same(names(page), ['bob/lib2', 'bob/lib1']);
    t.equal(page.headers.get('x-total-count'), '5');
    const link = page.headers.get('link') ?? '';
    t.match(link, `<${f.api}/users/fan/starred?page=3&limit=2&sort=x>; rel="next"`);
    t.match(link, `<${f.api}/users/fan/starred?page=3&limit=2&sort=x>; rel="last"`);
    t.match(link, `<${f.api}/users/fan/starred?page=1&limit=2&sort=x>; rel="first"`);
    t.match(link, `<${f.api}/users/fan/starred?page=1&limit=2&sort=x>; rel="prev"`);
    const mine = await f.request('GET', `/user/starred?limit=2&page=3&token=${fan.token}`);
    t.same(names(mine), ['bob/lib0']);
    t.notMatch(mine.headers.get('link') ?? '', fan.token, 'the token never appears in Link');
  });

  t.test('deleting a repository removes its rows and fixes the starrers\' counters', async (t) => {
    const gone = await createRepo(f, bob, 'doomed');
    for (const u of [alice, carol]) t.equal((await f.request('PUT', '/user/starred/bob/doomed', { token: u.token })).status, 204);
    const before = { alice: await userStars(f, alice.id), carol: await userStars(f, carol.id) };
    t.equal((await f.request('DELETE', '/repos/bob/doomed', { token: bob.token })).status, 204);
    t.equal(await userStars(f, alice.id), before.alice - 1);
    t.equal(await userStars(f, carol.id), before.carol - 1);
    t.equal(await f.forge.store.collection(STARS).count({ repoId: gone.id }), 0);
    t.notOk(names(await f.request('GET', '/user/starred', { token: alice.token })).includes('bob/doomed'));
  });

  t.test('deleting a user removes their rows and fixes the repositories\' counters', async (t) => {
    const eve = await f.createUser({ username: 'eve' });
    await f.request('PUT', '/user/starred/alice/pub', { token: eve.token });
    await f.request('PUT', '/user/starred/bob/tools', { token: eve.token });
    const before = { pub: await starsCount(f, 'alice/pub'), tools: await starsCount(f, 'bob/tools') };
    t.equal((await f.request('DELETE', '/admin/users/eve', { token: f.admin.token })).status, 204);
    t.equal(await starsCount(f, 'alice/pub'), before.pub - 1);
    t.equal(await starsCount(f, 'bob/tools'), before.tools - 1);
    t.equal(await f.forge.store.collection(STARS).count({ uid: eve.id }), 0);
    t.equal((await f.request('GET', '/users/eve/starred')).status, 404);
  });

  t.test('a user with 5,000 stars: page 100 through an index', async (t) => {
    const heavy = await f.createUser({ username: 'heavy' });
    const other = await f.createUser({ username: 'other' });
    const targets = await insertRepos(f, bob.id, 'many', 5000);
    await insertRelations(f.forge.store, 'stars', targets.map((repo) => ({ uid: heavy.id, repo })));
    await insertRelations(f.forge.store, 'stars', targets.slice(0, 3000).map((repo) => ({ uid: other.id, repo })));
    t.equal(await userStars(f, heavy.id), 5000, 'the seeded counter');
    const newestFirst = targets.map((_, i) => `bob/many${i}`).reverse();

    let started = performance.now();
    const p100 = await f.request('GET', '/user/starred?page=100', { token: heavy.token });
    const ms30 = performance.now() - started;
    t.equal(p100.status, 200);
    t.equal(p100.headers.get('x-total-count'), '5000');
    t.same(names(p100), newestFirst.slice(2970, 3000), 'page 100 of 30: the 2,971st to 3,000th newest');
    started = performance.now();
    const last = await f.request('GET', '/users/heavy/starred?page=100&limit=50');
    const ms50 = performance.now() - started;
    t.same(names(last), newestFirst.slice(4950), 'page 100 of 50 (anonymous): the oldest 50');
    t.equal(last.headers.get('x-total-count'), '5000');
    t.match(last.headers.get('link') ?? '', 'rel="first"');
    t.notMatch(last.headers.get('link') ?? '', 'rel="next"');
    t.comment(`GET /user/starred?page=100: ${ms30.toFixed(1)} ms; GET /users/heavy/starred?page=100&limit=50: ${ms50.toFixed(1)} ms`);

    // Every page is read through the user's index: never more rows than the user has, however the other users' rows
    // (3,000 newer ones here) sit in id order.
    const col = f.forge.store.collection(STARS);
    const total = await col.count({});
    const pages: Array<[string, number[], number, number]> = [
      ['page 1', [], 0, 30], ['page 50', [], 1470, 30], ['page 100', [], 2970, 30], ['page 100 of 50', [], 4950, 50],
      ['page 100 with hidden rows', [targets[0]!.id, targets[1]!.id], 2970, 30],
    ];
    for (const [label, hidden, skip, limit] of pages) {
      const { filter, options } = starListQuery(heavy.id, { listedOnly: false, hidden }, { skip, limit });
      const plan = await col.explain(filter, options);
      t.not(plan.index, null, `${label}: served by index ${plan.index}`);
      t.ok(plan.examined <= 5000, `${label}: examined ${plan.examined} of ${total} rows (at most this user's)`);
      t.equal(plan.returned, limit, `${label}: returned the page`);
    }
    // A caller that reads none of the user's unlisted rows pages its listed rows alone: a rank jump, however deep.
    const { filter, options } = starListQuery(heavy.id, { listedOnly: true, hidden: [] }, { skip: 4900, limit: 50 });
    const plan = await col.explain(filter, options);
    t.not(plan.index, null, `listed rows, page 99 of 50: served by index ${plan.index}`);
    t.ok(plan.examined <= 60, `listed rows, page 99 of 50: examined ${plan.examined} rows (the page, not the 4,900 before it)`);
    t.equal(plan.returned, 50);
  });

  t.test('counters equal the rows', async (t) => {
    const col = f.forge.store.collection(STARS);
    const wrong: string[] = [];
    const repos = await f.forge.store.collection('repos').find({}, { projection: { id: 1, numStars: 1, name: 1 } });
    for (const repo of repos) {
      const rows = await col.count({ repoId: repo.id as number });
      if (repo.numStars !== rows) wrong.push(`${repo.name}: numStars ${repo.numStars}, rows ${rows}`);
    }
    t.same(wrong, [], `numStars equals the rows for all ${repos.length} repositories`);
    for (const account of await f.forge.store.collection('users').find({})) {
      t.equal(account.numStars, await col.count({ uid: account.id as number }), `${account.login} numStars`);
    }
  });
});
