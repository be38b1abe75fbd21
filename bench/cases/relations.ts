// Bench cases for the relation plugins (stars, watch) and their seeder: one user with thousands of stars and watches,
// plus every user-owned repository watched by its owner (what creating it through the API does), straight through
// the store port in the documents the plugins store.
import type { Store } from '../../core/store/port.js';
import type { BenchCase, BenchFixture, PlannedRepo, RecordedResponse, SeedContext } from '../case.js';
import { REPOS } from '../../plugins/repos/service.js';
import { USERS } from '../../plugins/users/service.js';
import { STAR_INDEXES, STARS } from '../../plugins/stars/service.js';
import { WATCH_INDEXES, WATCHES } from '../../plugins/watch/service.js';
import { header } from '../case.js';

/** A repository as a relation row needs it. */
export interface RelationTarget {
  id: number;
  ownerId: number;
  private: boolean;
}

export type RelationKind = 'stars' | 'watches';

const KINDS = {
  stars: { collection: STARS, indexes: STAR_INDEXES, repoCounter: 'numStars', userCounter: 'numStars' },
  watches: { collection: WATCHES, indexes: WATCH_INDEXES, repoCounter: 'numWatches', userCounter: null },
} as const;

const EPOCH = Date.UTC(2024, 6, 1);
const CHUNK = 1000;

/**
 * Inserts relation rows for `(uid, repo)` pairs in the given order (so the last pair is the newest relation), with
 * ids from the plugin's own sequence, and moves the counters exactly as the plugins do: `numStars`/`numWatches` on
 * each repository, `numStars` on the user. Pairs must be distinct and not stored yet. Returns the rows inserted.
 */
export async function insertRelations(store: Store, kind: RelationKind, pairs: Array<{ uid: number; repo: RelationTarget }>): Promise<number> {
  const k = KINDS[kind];
  await store.ensureCollection({ name: k.collection, indexes: k.indexes });
  const col = store.collection(k.collection);
  // `unlisted`: private, or of an owner that is not public (the plugins' copy of what anonymous callers may not read).
  const nonPublic = await ownerIds(store);
  for (let start = 0; start < pairs.length; start += CHUNK) {
    const slice = pairs.slice(start, start + CHUNK);
    // Concurrent nextId calls never collide; sorting keeps ids in pair order (newest relation = highest id).
    const ids = (await Promise.all(slice.map(() => store.nextId(k.collection)))).sort((a, b) => a - b);
    await col.insertMany(slice.map(({ uid, repo }, i) => ({
      id: ids[i]!,
      uid,
      repoId: repo.id,
      repoOwnerId: repo.ownerId,
      repoPrivate: repo.private,
      unlisted: repo.private || nonPublic.has(repo.ownerId),
      createdAt: new Date(EPOCH + (start + i) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    })));
  }
  // Counters: one $inc per distinct increment over chunks of repository ids.
  const perRepo = new Map<number, number>();
  const perUser = new Map<number, number>();
  for (const { uid, repo } of pairs) {
    perRepo.set(repo.id, (perRepo.get(repo.id) ?? 0) + 1);
    perUser.set(uid, (perUser.get(uid) ?? 0) + 1);
  }
  const byDelta = new Map<number, number[]>();
  for (const [id, n] of perRepo) {
    const list = byDelta.get(n);
    if (list) list.push(id);
    else byDelta.set(n, [id]);
  }
  const repos = store.collection(REPOS);
  for (const [delta, ids] of byDelta) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      await repos.updateMany({ id: { $in: ids.slice(i, i + CHUNK) } }, { $inc: { [k.repoCounter]: delta } });
    }
  }
  if (k.userCounter) {
    const users = store.collection(USERS);
    for (const [uid, n] of perUser) await users.updateOne({ id: uid }, { $inc: { [k.userCounter]: n } });
  }
  return pairs.length;
}

/** `n` distinct public repositories not owned by `uid`, drawn with `random` (deterministic for a seeded PRNG). */
export function pickPublic(repos: PlannedRepo[], uid: number, n: number, random: () => number): PlannedRepo[] {
  const pool = repos.filter((r) => !r.private && r.ownerId !== uid);
  if (pool.length < n) throw new Error(`only ${pool.length} public repositories to relate to, ${n} wanted`);
  // Partial Fisher–Yates: the first n of a shuffled copy.
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n);
}

/** Stars of the starrer role that anonymous callers are shown; null when this run did not seed them (a kept data dir). */
let listedStars: number | null = null;

/** Accounts of the given visibilities (anonymous callers see neither limited nor private ones' repositories). */
export async function ownerIds(store: Store, visibility: Array<'limited' | 'private'> = ['limited', 'private']): Promise<Set<number>> {
  return new Set((await store.collection(USERS).find({ visibility: { $in: visibility } }, { projection: { id: 1 } })).map((a) => a.id as number));
}

/**
 * The bench seeder: the `starrer` role stars `sizes.stars` and watches `sizes.watches` public repositories spread
 * over many owners, and every user-owned repository is watched by its owner (organization repositories are watched
 * by whoever created them, which the plan does not know, so they get none).
 */
export async function seedRelations(ctx: SeedContext): Promise<void> {
  const starrer = ctx.fixture.accounts.starrer.id;
  const userIds = new Set(ctx.users.map((u) => u.id));
  const ownerWatches = ctx.repos.filter((r) => userIds.has(r.ownerId)).map((repo) => ({ uid: repo.ownerId, repo }));
  let watched = await insertRelations(ctx.store, 'watches', ownerWatches);
  ctx.log(`${watched} owner watches`);
  // Not of private organizations (the starrer is no member): it sees every one of its own stars and watches, so its
  // lists' totals are the sizes. Limited organizations' repositories are among them: hidden from anonymous callers.
  const privateOwners = await ownerIds(ctx.store, ['private']);
  const relatable = ctx.repos.filter((r) => !privateOwners.has(r.ownerId));
  const stars = pickPublic(relatable, starrer, ctx.sizes.stars, ctx.random);
  ctx.log(`${await insertRelations(ctx.store, 'stars', stars.map((repo) => ({ uid: starrer, repo })))} stars of ${ctx.fixture.accounts.starrer.login}`);
  const hidden = await ownerIds(ctx.store);
  listedStars = stars.filter((r) => !hidden.has(r.ownerId)).length;
  ctx.log(`${listedStars} of them listed to anonymous callers (the rest belong to limited organizations)`);
  const watches = pickPublic(relatable, starrer, ctx.sizes.watches, ctx.random);
  watched = await insertRelations(ctx.store, 'watches', watches.map((repo) => ({ uid: starrer, repo })));
  ctx.log(`${watched} watches of ${ctx.fixture.accounts.starrer.login}`);
}

/** A full page of `size` repositories and the exact total in X-Total-Count (not checked when `total` gives null). */
function pageCheck(size: number, total: (fx: BenchFixture) => number | null) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      return 'the body is not JSON';
    }
    if (!Array.isArray(body)) return 'the body is not a JSON array';
    if (body.length !== size) return `expected ${size} repositories, got ${body.length}`;
    const count = header(res, 'x-total-count');
    const want = total(fx);
    if (want === null) return /^\d+$/.test(count ?? '') ? null : `X-Total-Count is ${count}`;
    return count === String(want) ? null : `X-Total-Count is ${count}, expected ${want}`;
  };
}

export const cases: BenchCase[] = [
  {
    name: 'user-starred-page50',
    group: 'list',
    path: (fx) => `/user/starred?page=${fx.quick ? 5 : 50}`,
    as: 'starrer',
    plugins: ['stars'],
    check: pageCheck(30, (fx) => fx.sizes.stars),
    description: 'Page 50 (30 per page) of the starred repositories of a user with 5,000 stars (token auth).',
  },
  {
    name: 'user-starred-last-page',
    group: 'list',
    path: (fx) => `/user/starred?page=${Math.ceil(fx.sizes.stars / 50)}&limit=50`,
    as: 'starrer',
    plugins: ['stars'],
    check: (res, fx) => pageCheck(fx.sizes.stars % 50 || 50, (f) => f.sizes.stars)(res, fx),
    description: 'The last page (page 100 at 50 per page) of 5,000 stars: the deepest skip through the index.',
  },
  {
    name: 'users-starred',
    group: 'list',
    path: '/users/{accounts.starrer.login}/starred',
    plugins: ['stars'],
    check: pageCheck(30, () => listedStars),
    description: 'Anonymous first page of another user\'s 5,000 stars (visibility filter for an anonymous caller: ~5% belong to organizations it cannot see).',
  },
  {
    name: 'user-subscriptions',
    group: 'list',
    path: '/user/subscriptions',
    as: 'starrer',
    plugins: ['watch'],
    check: pageCheck(30, (fx) => fx.sizes.watches),
    description: 'First page of the 5,000 watched repositories of one user, among every owner\'s auto-watches (token auth).',
  },
];

export default cases;
