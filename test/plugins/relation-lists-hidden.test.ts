// A user's starred and watched lists (`GET /users/{name}/starred`, `/subscriptions`) show each caller exactly the
// repositories it reads, by the same rule as `GET /repos/{owner}/{repo}` (200 or 404) — the model here is that read,
// asked of every repository as every kind of caller: anonymous (who reads no private repository and none of a
// limited or private owner: those rows are hidden without any lookup), a stranger, a collaborator on one private
// repository, the private owner itself, a restricted user and a site admin. Totals (X-Total-Count) count the same
// rows, and pages cut the same order.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { STARS, starListQuery } from '../../plugins/stars/service.js';
import { startForge, expectStatus, type TestUser } from '../helpers/forge.js';

const ok = expectStatus;
const names = (res: { json: any }) => (res.json as Array<{ full_name: string }>).map((r) => r.full_name);

t.test('relation lists hide exactly the repositories a read hides', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const users: Record<string, TestUser> = {};
  for (const name of ['rl-fan', 'rl-pub', 'rl-lim', 'rl-priv', 'rl-collab', 'rl-stranger', 'rl-rv']) users[name] = await f.createUser({ username: name });
  const token = (name: string) => users[name]!.token;
  // Repositories: public and private of a public owner, public ones of a limited and of a private owner.
  const repos: string[] = [];
  for (const [owner, repo, priv] of [['rl-pub', 'open1', false], ['rl-pub', 'shut1', true], ['rl-pub', 'open2', false], ['rl-pub', 'shut2', true],
    ['rl-lim', 'lim-open', false], ['rl-priv', 'priv-open', false], ['rl-pub', 'open3', false]] as const) {
    await ok(f.request('POST', '/user/repos', { token: token(owner), json: { name: repo, private: priv } }), 201);
    repos.push(`${owner}/${repo}`);
  }
  // rl-collab reads rl-pub/shut1 (and only that private one); rl-fan reads both private ones, to star and watch them.
  await ok(f.request('PUT', '/repos/rl-pub/shut1/collaborators/rl-collab', { token: token('rl-pub'), json: { permission: 'read' } }), 204);
  for (const r of ['shut1', 'shut2']) await ok(f.request('PUT', `/repos/rl-pub/${r}/collaborators/rl-fan`, { token: token('rl-pub'), json: { permission: 'read' } }), 204);
  for (const r of repos) {
    await ok(f.request('PUT', `/user/starred/${r}`, { token: token('rl-fan') }), 204);
    await ok(f.request('PUT', `/repos/${r}/subscription`, { token: token('rl-fan') }), 200);
  }
  // Visibility last (a repository of a hidden owner is starred while it could still be read by rl-fan anyway).
  await ok(f.request('PATCH', '/admin/users/rl-lim', { token: admin, json: { visibility: 'limited' } }), 200);
  await ok(f.request('PATCH', '/admin/users/rl-priv', { token: admin, json: { visibility: 'private' } }), 200);
  await ok(f.request('PATCH', '/admin/users/rl-rv', { token: admin, json: { restricted: true } }), 200);

  const viewers: Array<[string, string | undefined]> = [
    ['anonymous', undefined], ['stranger', token('rl-stranger')], ['collaborator', token('rl-collab')], ['private owner', token('rl-priv')],
    ['restricted', token('rl-rv')], ['admin', admin], ['the fan', token('rl-fan')],
  ];
  /** Checks both lists for every viewer against its reads; how many repositories each viewer reads. */
  const check = async (phase: string): Promise<Record<string, number>> => {
    const seen: Record<string, number> = {};
    for (const [who, tok] of viewers) {
      const readable: string[] = [];
      for (const r of repos) if ((await f.request('GET', `/repos/${r}`, { token: tok })).status === 200) readable.push(r);
      seen[who] = readable.length;
      // Newest first: the order rows were made in, backwards.
      const want = [...readable].reverse();
      for (const list of ['starred', 'subscriptions']) {
        const label = `${phase}, ${who}: ${list}`;
        const all = await f.request('GET', `/users/rl-fan/${list}?limit=50`, { token: tok });
        t.equal(all.status, 200, label);
        t.same(names(all), want, `${label}: what it may read, newest first`);
        t.equal(all.headers.get('x-total-count'), String(want.length), `${label}: the total counts only those`);
        // Pages of 2 cut the same order.
        const paged: string[] = [];
        for (let page = 1; page <= Math.ceil(want.length / 2) + 1; page++) paged.push(...names(await f.request('GET', `/users/rl-fan/${list}?limit=2&page=${page}`, { token: tok })));
        t.same(paged, want, `${label}: in pages of 2`);
      }
    }
    return seen;
  };
  // The model tells the callers apart (the checks above would pass vacuously if everyone read everything).
  t.same(await check('hidden owners'), {
    anonymous: 3, // the public owner's public repositories only
    stranger: 4, // also the limited owner's public repository
    collaborator: 5, // also its private repository
    'private owner': 5, // also its own repository (not the other private ones)
    restricted: 0, // nothing it is not granted
    admin: 7,
    'the fan': 6, // all but the private owner's repository
  }, 'hidden owners: what each caller reads');
  // Without any hidden owner, an anonymous list only counts the private rows (no row read) and pages the public ones.
  await ok(f.request('PATCH', '/admin/users/rl-lim', { token: admin, json: { visibility: 'public' } }), 200);
  await ok(f.request('PATCH', '/admin/users/rl-priv', { token: admin, json: { visibility: 'public' } }), 200);
  t.same(await check('no hidden owner'), {
    anonymous: 5, stranger: 5, collaborator: 6, 'private owner': 5, restricted: 0, admin: 7, 'the fan': 7,
  }, 'no hidden owner: what each caller reads');
});

t.test('a collaborator sees its private repositories among many hidden ones (a grants scope of many repositories)', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const [owner, fan, collab] = [await f.createUser({ username: 'rm-owner' }), await f.createUser({ username: 'rm-fan' }), await f.createUser({ username: 'rm-collab' })];
  const starred: Array<{ name: string; priv: boolean }> = [];
  for (let i = 0; i < 12; i++) starred.push({ name: `r${i}`, priv: i % 4 !== 0 });
  for (const r of starred) {
    await ok(f.request('POST', '/user/repos', { token: owner.token, json: { name: r.name, private: r.priv } }), 201);
    if (r.priv) await ok(f.request('PUT', `/repos/rm-owner/${r.name}/collaborators/rm-fan`, { token: owner.token, json: { permission: 'read' } }), 204);
    await ok(f.request('PUT', `/user/starred/rm-owner/${r.name}`, { token: fan.token }), 204);
  }
  // rm-collab collaborates on two of the nine private ones (the list asks about all nine at once).
  for (const name of ['r5', 'r9']) await ok(f.request('PUT', `/repos/rm-owner/${name}/collaborators/rm-collab`, { token: owner.token, json: { permission: 'write' } }), 204);
  const res = await f.request('GET', '/users/rm-fan/starred?limit=50', { token: collab.token });
  t.equal(res.status, 200);
  t.same(names(res), ['rm-owner/r9', 'rm-owner/r8', 'rm-owner/r5', 'rm-owner/r4', 'rm-owner/r0'], 'the public ones and its two, newest first');
  t.equal(res.headers.get('x-total-count'), '5');
  t.same((res.json as Array<{ permissions: unknown }>)[0]!.permissions, { admin: false, push: true, pull: true }, 'with its write permission');
  const anon = await f.request('GET', '/users/rm-fan/starred?limit=2&page=2');
  t.same(names(anon), ['rm-owner/r0'], 'anonymous: the public ones only, paged (3 in all)');
  t.equal(anon.headers.get('x-total-count'), '3');
});

// Rows carry `unlisted` (private, or of an owner that is not public): an anonymous list is the listed rows, paged by
// rank and its hidden rows counted on the index, however many owners anywhere are not public; the copy follows an
// owner's visibility both ways, for rows starred before and after the change.
t.test('unlisted rows follow owner visibility; anonymous lists page the listed rows by rank', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const [pub, lim, fan, stranger] = [await f.createUser({ username: 'ul-pub' }), await f.createUser({ username: 'ul-lim' }), await f.createUser({ username: 'ul-fan' }), await f.createUser({ username: 'ul-stranger' })];
  // 24 public repositories of a public owner, with a limited owner's 3 public ones among them (starred in between).
  const order: string[] = [];
  const star = async (owner: TestUser, name: string) => {
    await ok(f.request('POST', '/user/repos', { token: owner.token, json: { name } }), 201);
    await ok(f.request('PUT', `/user/starred/${owner.username}/${name}`, { token: fan.token }), 204);
    order.push(`${owner.username}/${name}`);
  };
  for (let i = 0; i < 24; i++) {
    await star(pub, `p${i}`);
    if (i === 3 || i === 11) await star(lim, `l${i}`);
    // The third is starred after its owner turned limited.
    if (i === 15) await ok(f.request('PATCH', '/admin/users/ul-lim', { token: admin, json: { visibility: 'limited' } }), 200);
    if (i === 19) await star(lim, `l${i}`);
  }
  const newestFirst = [...order].reverse();
  const listed = newestFirst.filter((n) => n.startsWith('ul-pub/'));
  const pages = async (token: string | undefined, limit: number) => {
    const got: string[] = [];
    let total = '';
    for (let page = 1; page <= 30; page++) {
      const res = await f.request('GET', `/users/ul-fan/starred?limit=${limit}&page=${page}`, { token });
      total = res.headers.get('x-total-count') ?? '';
      if (res.json.length === 0) break;
      got.push(...names(res));
    }
    return { got, total };
  };
  let anon = await pages(undefined, 5);
  t.same(anon.got, listed, 'anonymous, limited owner: the public owner\'s 24, newest first, in pages of 5');
  t.equal(anon.total, '24', 'anonymous: counted so');
  const signed = await pages(stranger.token, 7);
  t.same(signed.got, newestFirst, 'a stranger reads a limited owner\'s public repositories: all 27');
  t.equal(signed.total, '27');

  // The anonymous list's query: a rank jump to a deep page, not a walk past the rows before it.
  const { filter, options } = starListQuery(fan.id, { listedOnly: true, hidden: [] }, { skip: 20, limit: 5 });
  const plan = await f.forge.store.collection(STARS).explain(filter, options);
  t.ok(plan.examined <= 5, `listed rows, page 5 of 5: examined ${plan.examined} rows (${plan.index})`);
  t.equal(plan.returned, 4);
  t.equal(await f.forge.store.collection(STARS).count({ uid: fan.id, unlisted: true }), 3, 'the limited owner\'s 3 rows are unlisted');

  // Private: signed-in strangers lose them too; public again: everyone reads all 27.
  await ok(f.request('PATCH', '/admin/users/ul-lim', { token: admin, json: { visibility: 'private' } }), 200);
  t.same((await pages(stranger.token, 7)).got, listed, 'private owner: a stranger reads the 24');
  t.same((await pages(lim.token, 7)).got, newestFirst, 'the private owner itself reads its own 3 too');
  await ok(f.request('PATCH', '/admin/users/ul-lim', { token: admin, json: { visibility: 'public' } }), 200);
  anon = await pages(undefined, 5);
  t.same(anon.got, newestFirst, 'public again: anonymous reads all 27');
  t.equal(anon.total, '27');
  t.equal(await f.forge.store.collection(STARS).count({ uid: fan.id, unlisted: true }), 0, 'no row is unlisted');
});

t.test('rows stored before `unlisted` existed get it at start', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-unlisted-backfill-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startForge({ dataDir });
  const [owner, lim, fan] = [await first.createUser({ username: 'ub-owner' }), await first.createUser({ username: 'ub-lim' }), await first.createUser({ username: 'ub-fan' })];
  await ok(first.request('POST', '/user/repos', { token: owner.token, json: { name: 'open' } }), 201);
  await ok(first.request('POST', '/user/repos', { token: owner.token, json: { name: 'shut', private: true } }), 201);
  await ok(first.request('POST', '/user/repos', { token: lim.token, json: { name: 'lim-open' } }), 201);
  await ok(first.request('PUT', '/repos/ub-owner/shut/collaborators/ub-fan', { token: owner.token, json: { permission: 'read' } }), 204);
  for (const r of ['ub-owner/open', 'ub-owner/shut', 'ub-lim/lim-open']) await ok(first.request('PUT', `/user/starred/${r}`, { token: fan.token }), 204);
  await ok(first.request('PATCH', '/admin/users/ub-lim', { token: first.admin.token, json: { visibility: 'limited' } }), 200);
  // As an earlier version stored them: no `unlisted`.
  for (const name of [STARS, 'watches']) await first.forge.store.collection(name).updateMany({}, { $unset: { unlisted: true } });
  t.equal(await first.forge.store.collection(STARS).count({ unlisted: { $exists: true } }), 0, 'the rows lack it before the restart');
  await first.close();
  const f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const rows = await f.forge.store.collection(STARS).find({ uid: fan.id }, { sort: { id: 1 } });
  t.same(rows.map((r) => r.unlisted), [false, true, true], 'public: listed; private, and of a limited owner: unlisted');
  t.equal(await f.forge.store.collection('watches').count({ unlisted: { $exists: false } }), 0, 'every watch row has it too');
  const anon = await f.request('GET', '/users/ub-fan/starred');
  t.same(names(anon), ['ub-owner/open'], 'anonymous: the public owner\'s public repository');
  t.equal(anon.headers.get('x-total-count'), '1');
  const self = await f.request('GET', '/users/ub-fan/starred', { token: fan.token });
  t.same(names(self), ['ub-lim/lim-open', 'ub-owner/shut', 'ub-owner/open'], 'the fan: all three');
});
