// Exact counters under concurrency, through HTTP: 200 simultaneous follow/star/watch toggles from many users leave
// every counter equal to the real number of relation rows. Runs on the embedded store, and on MongoDB when
// FORGEKIT_MONGODB_URI is set.
import t, { type Test } from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

const USERS = 20;
const REQUESTS = 200;

type Op = { method: 'PUT' | 'DELETE'; path: string; token: string };

/** Fires every request at once and returns the statuses. */
async function burst(f: TestForge, ops: Op[]): Promise<number[]> {
  const res = await Promise.all(ops.map((op) => f.request(op.method, op.path, { token: op.token })));
  return res.map((r) => r.status);
}

/** A deterministic shuffle (so a failure can be replayed). */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function suite(t: Test, config: Record<string, unknown>, label: string): Promise<void> {
  const f = await startForge({ config });
  t.teardown(() => f.close());
  const tag = `${label}${process.pid}x${Date.now().toString(36)}`;
  const owner = await f.createUser({ username: `owner${tag}` });
  const users: TestUser[] = [];
  for (let i = 0; i < USERS; i++) users.push(await f.createUser({ username: `u${i}${tag}` }));
  const repoNames = ['alpha', 'beta', 'gamma'];
  for (const name of repoNames) {
    const res = await f.request('POST', '/user/repos', { token: owner.token, json: { name } });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  }
  const repoPath = (name: string) => `${owner.username}/${name}`;
  const store = f.forge.store;

  /** The counters as the API and the store show them, next to the rows that really exist. */
  async function check(t: Test, when: string): Promise<void> {
    for (const name of repoNames) {
      const repo = (await f.request('GET', `/repos/${repoPath(name)}`, { token: owner.token })).json;
      const stars = await store.collection('stars').count({ repoId: repo.id });
      const watches = await store.collection('watches').count({ repoId: repo.id });
      t.equal(repo.stars_count, stars, `${when}: ${name} stars_count = ${stars} rows`);
      t.equal(repo.watchers_count, watches, `${when}: ${name} watchers_count = ${watches} rows`);
      // The rows the API reports one by one agree too.
      const checks = await Promise.all(users.map((u) => f.request('GET', `/user/starred/${repoPath(name)}`, { token: u.token })));
      t.equal(checks.filter((r) => r.status === 204).length, stars, `${when}: ${name} starred checks`);
    }
    const accounts = await store.collection('users').find({ id: { $in: [owner.id, ...users.map((u) => u.id)] } });
    const wrong: string[] = [];
    for (const a of accounts) {
      const id = a.id as number;
      const [followers, following, starred] = await Promise.all([
        store.collection('follows').count({ followingId: id }),
        store.collection('follows').count({ followerId: id }),
        store.collection('stars').count({ uid: id }),
      ]);
      if (a.numFollowers !== followers) wrong.push(`${a.login} numFollowers ${a.numFollowers} != ${followers}`);
      if (a.numFollowing !== following) wrong.push(`${a.login} numFollowing ${a.numFollowing} != ${following}`);
      if (a.numStars !== starred) wrong.push(`${a.login} numStars ${a.numStars} != ${starred}`);
    }
    t.same(wrong, [], `${when}: follower, following and star counters of ${accounts.length} accounts equal their rows`);
    const followers = await f.request('GET', `/users/${owner.username}/followers?limit=50`);
    t.equal(Number(followers.headers.get('x-total-count')), followers.json.length, `${when}: follower list total`);
  }

  t.test('200 concurrent PUTs of the same relations count each once', async (t) => {
    const ops: Op[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const u = users[i % USERS]!;
      switch (i % 4) {
        case 0: ops.push({ method: 'PUT', path: `/user/starred/${repoPath('alpha')}`, token: u.token }); break;
        case 1: ops.push({ method: 'PUT', path: `/repos/${repoPath('alpha')}/subscription`, token: u.token }); break;
        case 2: ops.push({ method: 'PUT', path: `/user/following/${owner.username}`, token: u.token }); break;
        default: ops.push({ method: 'PUT', path: `/user/starred/${repoPath('beta')}`, token: u.token }); break;
      }
    }
    const statuses = await burst(f, shuffled(ops, 1));
    t.same([...new Set(statuses)].sort(), [200, 204], 'every request succeeded (200 WatchInfo, 204 otherwise)');
    const alpha = (await f.request('GET', `/repos/${repoPath('alpha')}`, { token: owner.token })).json;
    const beta = (await f.request('GET', `/repos/${repoPath('beta')}`, { token: owner.token })).json;
    // Users i%4==0 star alpha: with 20 users and i%20, users 0,4,8,12,16 (each 10 times); likewise for the others.
    t.equal(alpha.stars_count, 5, 'alpha: five distinct starrers');
    t.equal(beta.stars_count, 5, 'beta: five distinct starrers');
    t.equal(alpha.watchers_count, 1 + 5, 'alpha: the owner plus five watchers');
    const followers = await f.request('GET', `/users/${owner.username}/followers`);
    t.equal(followers.headers.get('x-total-count'), '5');
    await check(t, 'after concurrent PUTs');
  });

  t.test('200 concurrent DELETEs uncount each once', async (t) => {
    const ops: Op[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const u = users[i % USERS]!;
      const kind = i % 3;
      if (kind === 0) ops.push({ method: 'DELETE', path: `/user/starred/${repoPath('alpha')}`, token: u.token });
      else if (kind === 1) ops.push({ method: 'DELETE', path: `/repos/${repoPath('alpha')}/subscription`, token: u.token });
      else ops.push({ method: 'DELETE', path: `/user/following/${owner.username}`, token: u.token });
    }
    const statuses = await burst(f, shuffled(ops, 2));
    t.same([...new Set(statuses)], [204], 'every request answered 204');
    const alpha = (await f.request('GET', `/repos/${repoPath('alpha')}`, { token: owner.token })).json;
    t.equal(alpha.stars_count, 0);
    t.equal(alpha.watchers_count, 1, 'only the owner still watches');
    await check(t, 'after concurrent DELETEs');
  });

  t.test('200 concurrent mixed toggles from many users: counters equal rows', async (t) => {
    const ops: Op[] = [];
    const follows = [owner.username, users[0]!.username, users[1]!.username];
    for (let i = 0; i < REQUESTS; i++) {
      const u = users[(i * 7) % USERS]!;
      const method = (i * 13) % 5 < 3 ? 'PUT' : 'DELETE';
      const repo = repoNames[i % 3]!;
      switch ((i * 11) % 3) {
        case 0: ops.push({ method, path: `/user/starred/${repoPath(repo)}`, token: u.token }); break;
        case 1: ops.push({ method, path: `/repos/${repoPath(repo)}/subscription`, token: u.token }); break;
        default: ops.push({ method, path: `/user/following/${follows[i % 3]}`, token: u.token }); break;
      }
    }
    const statuses = await burst(f, shuffled(ops, 3));
    t.ok(statuses.every((s) => s === 200 || s === 204), 'every request succeeded');
    await check(t, 'after mixed toggles');
  });

  t.test('starring and watching while the repository is deleted leaves no rows behind', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'doomed' } });
    t.equal(res.status, 201);
    const ops: Op[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const u = users[i % USERS]!;
      ops.push(i % 2 === 0
        ? { method: 'PUT', path: `/user/starred/${repoPath('doomed')}`, token: u.token }
        : { method: 'PUT', path: `/repos/${repoPath('doomed')}/subscription`, token: u.token });
    }
    const shuffledOps = shuffled(ops, 5);
    const first = burst(f, shuffledOps.slice(0, REQUESTS / 2));
    const deletion = f.request('DELETE', `/repos/${repoPath('doomed')}`, { token: owner.token });
    const [a, del, b] = await Promise.all([first, deletion, burst(f, shuffledOps.slice(REQUESTS / 2))]);
    t.equal(del.status, 204, 'the repository is deleted');
    t.ok([...a, ...b].every((s) => s === 200 || s === 204 || s === 404), 'each request succeeded or found no repository');
    t.equal(await store.collection('stars').count({ repoId: res.json.id }), 0, 'no star rows left');
    t.equal(await store.collection('watches').count({ repoId: res.json.id }), 0, 'no watch rows left');
    await check(t, 'after a deletion during toggles');
  });

  t.test('starring and watching while the repository turns private: no row keeps it public', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'flip' } });
    t.equal(res.status, 201);
    const ops: Op[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const u = users[i % USERS]!;
      ops.push(i % 2 === 0
        ? { method: 'PUT', path: `/user/starred/${repoPath('flip')}`, token: u.token }
        : { method: 'PUT', path: `/repos/${repoPath('flip')}/subscription`, token: u.token });
    }
    const shuffledOps = shuffled(ops, 6);
    const first = burst(f, shuffledOps.slice(0, REQUESTS / 2));
    const flip = f.request('PATCH', `/repos/${repoPath('flip')}`, { token: owner.token, json: { private: true } });
    const [a, patched, b] = await Promise.all([first, flip, burst(f, shuffledOps.slice(REQUESTS / 2))]);
    t.equal(patched.status, 200);
    t.ok([...a, ...b].every((s) => s === 200 || s === 204 || s === 404), 'each request succeeded or could no longer read it');
    for (const name of ['stars', 'watches']) {
      const rows = await store.collection(name).find({ repoId: res.json.id });
      t.ok(rows.length > 0, `${name}: some got in before the flip`);
      t.same(rows.filter((r) => r.repoPrivate !== true).map((r) => r.uid), [], `${name}: every row knows it is private`);
    }
    const lists = await Promise.all(users.flatMap((u) => [
      f.request('GET', `/users/${u.username}/starred?limit=50`),
      f.request('GET', `/users/${u.username}/subscriptions?limit=50`, { token: users[0]!.token }),
    ]));
    t.notOk(lists.some((l) => (l.json as any[]).some((r) => r.name === 'flip')), 'the private repository is in no one\'s public list');
    t.ok(lists.every((l) => Number(l.headers.get('x-total-count')) === l.json.length), 'and in no count');
    await check(t, 'after a visibility change during toggles');
  });

  /**
   * Holds the next `count` calls of `nextId` for these sequences (the moment between a PUT's checks and its insert)
   * until released, so a race can be played in a fixed order: the PUTs have checked, something else happens, then
   * they insert.
   */
  function holdNextIds(sequences: string[], count = 1): { reached: Promise<void>; release: () => void } {
    const original = store.nextId;
    let arrived = 0;
    let reachedResolve!: () => void;
    let releaseResolve!: () => void;
    const reached = new Promise<void>((r) => { reachedResolve = r; });
    const released = new Promise<void>((r) => { releaseResolve = r; });
    store.nextId = async (name: string) => {
      if (!sequences.includes(name) || arrived >= count) return original.call(store, name);
      if (++arrived === count) reachedResolve();
      await released;
      return original.call(store, name);
    };
    return { reached, release: () => { store.nextId = original; releaseResolve(); } };
  }
  const holdNextId = (sequence: string) => holdNextIds([sequence]);

  t.test('race: a star checked before the repository turned private, inserted after', async (t) => {
    t.equal((await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'race-private' } })).status, 201);
    for (const [sequence, method, path] of [
      ['stars', 'PUT', `/user/starred/${repoPath('race-private')}`],
      ['watches', 'PUT', `/repos/${repoPath('race-private')}/subscription`],
    ] as const) {
      t.equal((await f.request('PATCH', `/repos/${repoPath('race-private')}`, { token: owner.token, json: { private: false } })).status, 200);
      const hold = holdNextId(sequence);
      const put = f.request(method, path, { token: users[2]!.token });
      await hold.reached;
      t.equal((await f.request('PATCH', `/repos/${repoPath('race-private')}`, { token: owner.token, json: { private: true } })).status, 200);
      hold.release();
      t.ok([200, 204].includes((await put).status), `${sequence}: the PUT succeeded`);
      const row = await store.collection(sequence).findOne({ uid: users[2]!.id, repoId: { $exists: true }, repoPrivate: false });
      t.equal(row, null, `${sequence}: no row still says public`);
      const list = await f.request('GET', `/users/${users[2]!.username}/${sequence === 'stars' ? 'starred' : 'subscriptions'}?limit=50`);
      t.notOk((list.json as any[]).some((r) => r.name === 'race-private'), `${sequence}: not in the anonymous list`);
      t.equal(Number(list.headers.get('x-total-count')), list.json.length, `${sequence}: not counted`);
    }
  });

  t.test('race: a star checked before the repository was deleted, inserted after', async (t) => {
    for (const sequence of ['stars', 'watches'] as const) {
      const created = await f.request('POST', '/user/repos', { token: owner.token, json: { name: `race-gone-${sequence}` } });
      t.equal(created.status, 201);
      const path = sequence === 'stars' ? `/user/starred/${repoPath(`race-gone-${sequence}`)}` : `/repos/${repoPath(`race-gone-${sequence}`)}/subscription`;
      const hold = holdNextId(sequence);
      const put = f.request('PUT', path, { token: users[3]!.token });
      await hold.reached;
      t.equal((await f.request('DELETE', `/repos/${repoPath(`race-gone-${sequence}`)}`, { token: owner.token })).status, 204);
      hold.release();
      t.ok([200, 204].includes((await put).status), `${sequence}: the PUT succeeded`);
      t.equal(await store.collection(sequence).count({ repoId: created.json.id }), 0, `${sequence}: no orphan row`);
    }
    await check(t, 'after the deletion races');
  });

  t.test('race: relations inserted while their user is being deleted (after the cleanup, before the account goes)', async (t) => {
    const victim = await f.createUser({ username: `victim${tag}` });
    const fan = users[5]!;
    // Hold the account deletion after every account.deleted listener swept, while the account document still exists.
    const emails = store.collection('emails');
    const originalDeleteMany = emails.deleteMany;
    let sweptResolve!: () => void;
    let finishResolve!: () => void;
    const swept = new Promise<void>((r) => { sweptResolve = r; });
    const finish = new Promise<void>((r) => { finishResolve = r; });
    emails.deleteMany = async (filter) => {
      emails.deleteMany = originalDeleteMany;
      sweptResolve();
      await finish;
      return originalDeleteMany.call(emails, filter);
    };
    // Four PUTs that have passed their checks (the victim still exists) and wait before inserting.
    const hold = holdNextIds(['follows', 'stars', 'watches'], 4);
    const puts = [
      f.request('PUT', `/user/following/${owner.username}`, { token: victim.token }),
      f.request('PUT', `/user/following/${victim.username}`, { token: fan.token }),
      f.request('PUT', `/user/starred/${repoPath('alpha')}`, { token: victim.token }),
      f.request('PUT', `/repos/${repoPath('alpha')}/subscription`, { token: victim.token }),
    ];
    await hold.reached;
    const deletion = f.request('DELETE', `/admin/users/${victim.username}`, { token: f.admin.token });
    await swept;
    t.ok(await store.collection('users').findOne({ id: victim.id }), 'the account document still exists');
    hold.release();
    const statuses = (await Promise.all(puts)).map((r) => r.status);
    t.ok(statuses.every((s) => s === 200 || s === 204), `the PUTs answered ${statuses.join(', ')}`);
    finishResolve();
    t.equal((await deletion).status, 204, 'the user is deleted');
    t.equal(await store.collection('follows').count({ followerId: victim.id }), 0, 'no row of the deleted user');
    t.equal(await store.collection('follows').count({ followingId: victim.id }), 0, 'no row following the deleted user');
    t.equal(await store.collection('stars').count({ uid: victim.id }), 0, 'no star row');
    t.equal(await store.collection('watches').count({ uid: victim.id }), 0, 'no watch row');
    await check(t, 'after the user deletion race');
  });

  t.test('deleting users while others toggle leaves counters exact', async (t) => {
    const victims = users.slice(USERS - 4);
    const ops: Op[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const u = users[i % USERS]!;
      const method = i % 2 === 0 ? 'PUT' : 'DELETE';
      if (i % 3 === 0) ops.push({ method, path: `/user/starred/${repoPath(repoNames[i % 3]!)}`, token: u.token });
      else if (i % 3 === 1) ops.push({ method, path: `/repos/${repoPath('beta')}/subscription`, token: u.token });
      else ops.push({ method, path: `/user/following/${users[(i + 1) % (USERS - 4)]!.username}`, token: u.token });
    }
    const deletions = victims.map((v) => f.request('DELETE', `/admin/users/${v.username}`, { token: f.admin.token }));
    const [statuses, deleted] = await Promise.all([burst(f, shuffled(ops, 4)), Promise.all(deletions)]);
    t.same(deleted.map((r) => r.status), victims.map(() => 204), 'the users are deleted');
    // Requests by a user deleted meanwhile may be refused (401) or find nothing (404); none may fail.
    t.ok(statuses.every((s) => [200, 204, 401, 404].includes(s)), `statuses: ${[...new Set(statuses)].join(', ')}`);
    users.splice(USERS - 4, 4);
    for (const v of victims) {
      t.equal(await store.collection('stars').count({ uid: v.id }), 0, `${v.username}: no star rows left`);
      t.equal(await store.collection('watches').count({ uid: v.id }), 0, `${v.username}: no watch rows left`);
      t.equal(await store.collection('follows').count({ followerId: v.id }), 0, `${v.username}: no follow rows left`);
      t.equal(await store.collection('follows').count({ followingId: v.id }), 0, `${v.username}: no follower rows left`);
    }
    await check(t, 'after deletions during toggles');
  });
}

t.test('embedded store', (t) => suite(t, { mongodbUri: '' }, 'e'));

const mongo = process.env.FORGEKIT_MONGODB_URI;
t.test('MongoDB store', { skip: mongo ? false : 'FORGEKIT_MONGODB_URI is not set: no MongoDB server on this machine' }, (t) =>
  suite(t, { mongodbUri: mongo }, 'm'));
