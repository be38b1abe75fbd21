// Follow relations with exact counters: one row per (follower, following) pair, counters move only with a row.
import type { PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type Filter, type FindOptions, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { Account, UsersService, VisibilityWitnessHandle } from '../../schemas/services.js';
import { CounterIntents, intentCollection } from '../lib/counter-intents.js';
import { crashPoint } from '../lib/crash-points.js';
import { RecentlyDeleted } from '../lib/tombstones.js';
import type { FollowRow } from './convert.js';

export const FOLLOWS = 'follows';
/** Counter intents of follow changes (plugins/lib/counter-intents.ts). */
export const FOLLOW_INTENTS = intentCollection('follows_intents');

export const FOLLOW_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  // The pair is the relation: the unique index is what makes concurrent PUTs count once.
  { fields: { followerId: 1, followingId: 1 }, unique: true },
  // Lists: one side's rows, newest first.
  { fields: { followerId: 1, id: -1 } },
  { fields: { followingId: 1, id: -1 } },
  { fields: { followerId: 1 } },
  { fields: { followingId: 1 } },
];

export interface PageRequest {
  skip: number;
  limit: number;
}

/** Which side of the relation a list walks: the accounts `uid` follows, or the accounts following `uid`. */
export type FollowSide = 'following' | 'followers';

/**
 * Follow lists of up to this many rows are read whole and filtered in memory. Deciding every non-public account of the
 * site for each caller cost more than the list: on the benchmark's dataset (400 non-public accounts, lists of a few
 * rows, in process) 136–164 µs a signed-in request and 74–80 anonymous, against 56–72 and 48–49 so.
 */
const WHOLE_LIST_MAX = 256;

/** The accounts on the other side of `rows` from the list's owner, in the rows' order. */
function otherSides(side: FollowSide, rows: FollowRow[]): number[] {
  return rows.map((r) => (side === 'following' ? r.followingId : r.followerId));
}

/** The store query behind a list page (exported so tests can `explain()` exactly what the handlers run). */
export function followListQuery(side: FollowSide, uid: number, page: PageRequest, hidden: number[] = []): { filter: Filter; options: FindOptions } {
  const filter: Filter = side === 'following' ? { followerId: uid } : { followingId: uid };
  // Accounts the caller may not see (limited/private users) are left out (Gitea's BuildCanSeeUserCondition).
  if (hidden.length) filter[side === 'following' ? 'followingId' : 'followerId'] = { $nin: hidden };
  return { filter, options: { sort: { id: -1 }, skip: page.skip, limit: page.limit } };
}

export class Follows {
  readonly rows: Collection<FollowRow>;
  /** Accounts deleted recently (see plugins/lib/tombstones.ts). */
  private readonly deleted = new RecentlyDeleted();
  /** Every row change and its counter moves run under an intent, so a crash in between is recounted at start. */
  private readonly intents: CounterIntents<'userIds'>;

  /** Set at start: told of every row written or deleted (a follow makes a private user visible to the one followed). */
  witness: VisibilityWitnessHandle | null = null;

  constructor(private readonly ctx: PluginContext) {
    this.rows = ctx.store.collection<FollowRow>(FOLLOWS);
    this.intents = new CounterIntents(ctx.store, FOLLOW_INTENTS.name, ['userIds']);
  }

  /** At start, before any request: recounts both counters of every account an interrupted change names. */
  async repair(): Promise<number> {
    const pending = await this.intents.replay(async ({ userIds }) => {
      for (const id of userIds) {
        const user = await this.users.byId(id);
        if (!user) continue;
        const [followers, following] = await Promise.all([this.rows.count({ followingId: id }), this.rows.count({ followerId: id })]);
        if (followers !== (user.numFollowers ?? 0)) await this.users.incrementCounter(id, 'numFollowers', followers - (user.numFollowers ?? 0));
        if (following !== (user.numFollowing ?? 0)) await this.users.incrementCounter(id, 'numFollowing', following - (user.numFollowing ?? 0));
      }
    });
    if (pending) this.ctx.log.warn({ intents: pending }, 'follow: recounted counters of unfinished changes');
    return pending;
  }

  private get users(): UsersService {
    return this.ctx.services.get('users');
  }

  /** The users among `userIds` that follow `followingId` (one read). */
  async followersAmong(userIds: readonly number[], followingId: number): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.rows.find({ followerId: { $in: [...new Set(userIds)] }, followingId }, { projection: { followerId: 1 } });
    return new Set(rows.map((r) => r.followerId));
  }

  async isFollowing(followerId: number, followingId: number): Promise<boolean> {
    return (await this.rows.findOne({ followerId, followingId }, { projection: { id: 1 } })) !== null;
  }

  /**
   * Idempotent: following yourself or someone you already follow changes nothing. The counters move only when
   * this call's insert is the one that created the row.
   */
  async follow(followerId: number, target: Account): Promise<void> {
    if (followerId === target.id) return;
    if (await this.isFollowing(followerId, target.id)) return;
    const row: FollowRow = { id: await this.ctx.store.nextId(FOLLOWS), followerId, followingId: target.id, createdAt: nowRfc3339() };
    const inserted = await this.intents.around({ userIds: [followerId, target.id] }, async () => {
      try {
        await this.rows.insertOne(row);
        this.witness?.changed();
      } catch (err) {
        if (isDuplicateKeyError(err)) return false; // a concurrent PUT created it and counted it
        throw err;
      }
      crashPoint('follows.add:after-row');
      await Promise.all([
        this.users.incrementCounter(target.id, 'numFollowers', 1),
        this.users.incrementCounter(followerId, 'numFollowing', 1),
      ]);
      return true;
    });
    if (!inserted) return;
    // An account deleted while this row was being written may have had its rows swept already: leave no orphan.
    const alive = await this.users.byIds([followerId, target.id]);
    if (alive.size < 2 || this.deleted.has(followerId) || this.deleted.has(target.id)) await this.unfollow(followerId, target.id);
  }

  /** Idempotent: decrements only when this call deleted the row. */
  async unfollow(followerId: number, followingId: number): Promise<void> {
    await this.intents.around({ userIds: [followerId, followingId] }, async () => {
      const gone = await this.rows.findOneAndDelete({ followerId, followingId });
      if (!gone) return;
      this.witness?.changed();
      await Promise.all([
        this.users.incrementCounter(followingId, 'numFollowers', -1),
        this.users.incrementCounter(followerId, 'numFollowing', -1),
      ]);
    });
  }

  /**
   * Relation lists read whole up to this size (`visiblePage`); longer ones exclude the hidden accounts in the store
   * query. A seam for tests, which reach the other way with a handful of rows.
   */
  wholeListMax = WHOLE_LIST_MAX;

  /**
   * A page of the accounts on the other side of `uid`'s rows that the caller may see, newest relation first, and
   * their total. A list of up to `wholeListMax` rows is read whole and the hidden accounts are found among its ids
   * (`hiddenAmong`), so its cost follows the list; a longer one asks for every hidden account of the site
   * (`hiddenAll`) and leaves them out in the store query, where the index counts and pages it.
   */
  async visiblePage(side: FollowSide, uid: number, page: PageRequest, hiddenAmong: (ids: number[]) => Promise<number[]>,
    hiddenAll: () => Promise<number[]>): Promise<{ ids: number[]; total: number }> {
    const { filter, options } = followListQuery(side, uid, { skip: 0, limit: this.wholeListMax + 1 });
    const rows = this.wholeListMax > 0 ? await this.rows.find(filter, options) : null;
    if (rows === null || rows.length > this.wholeListMax) return this.page(side, uid, page, await hiddenAll());
    let ids = otherSides(side, rows);
    const hidden = await hiddenAmong(ids);
    if (hidden.length) {
      const out = new Set(hidden);
      ids = ids.filter((id) => !out.has(id));
    }
    return { ids: ids.slice(page.skip, page.skip + page.limit), total: ids.length };
  }

  /** A page of the account ids on the other side of `uid`'s rows, newest relation first, and the total. */
  async page(side: FollowSide, uid: number, page: PageRequest, hidden: number[] = []): Promise<{ ids: number[]; total: number }> {
    const { filter, options } = followListQuery(side, uid, page, hidden);
    const { docs: rows, total } = await this.rows.findAndCount(filter, options);
    return { ids: otherSides(side, rows), total };
  }

  /**
   * `account.deleted`: every row on either side goes, and the accounts on the other side get their counters
   * fixed. Rows are deleted one by one with findOneAndDelete so a concurrent DELETE never decrements twice.
   */
  async onAccountDeleted(account: Account): Promise<void> {
    this.deleted.mark(account.id);
    const followed = await this.rows.find({ followerId: account.id }, { projection: { followingId: 1 } });
    const followers = await this.rows.find({ followingId: account.id }, { projection: { followerId: 1 } });
    const named = [...followed.map((r) => r.followingId), ...followers.map((r) => r.followerId)].filter((id) => id !== account.id);
    await this.intents.around({ userIds: named }, async () => {
      const followersDrop = new Map<number, number>(); // accounts `account` followed: numFollowers -= n
      const followingDrop = new Map<number, number>(); // accounts that followed `account`: numFollowing -= n
      for (const row of followed) {
        const gone = await this.rows.findOneAndDelete({ followerId: account.id, followingId: row.followingId });
        if (!gone) continue;
        this.witness?.changed();
        followersDrop.set(gone.followingId, (followersDrop.get(gone.followingId) ?? 0) + 1);
      }
      for (const row of followers) {
        const gone = await this.rows.findOneAndDelete({ followerId: row.followerId, followingId: account.id });
        if (!gone) continue;
        this.witness?.changed();
        followingDrop.set(gone.followerId, (followingDrop.get(gone.followerId) ?? 0) + 1);
      }
      for (const [id, n] of followersDrop) if (id !== account.id) await this.users.incrementCounter(id, 'numFollowers', -n);
      for (const [id, n] of followingDrop) if (id !== account.id) await this.users.incrementCounter(id, 'numFollowing', -n);
    });
  }
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** This plugin's own service (its handlers reach it through the registry); no other plugin depends on it. */
    follow: Follows;
  }
}
