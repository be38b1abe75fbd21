// Watches with exact counters: one row per (user, repository); the repository's `numWatches` moves only with a row.
import type { Caller, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type Filter, type FindOptions, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { Account, RepoRecord, ReposService, UsersService } from '../../schemas/services.js';
import type { WatchRow } from './convert.js';

export const WATCHES = 'watches';

/**
 * How long a deleted account is remembered. `account.deleted` runs before the account document goes, so a request
 * that authenticated just before can still insert a row after the cleanup swept; the row's post-insert check looks
 * here. Account ids are never reused, so forgetting only bounds memory (no request lives this long).
 */
const TOMBSTONE_MS = 10 * 60_000;

/**
 * No single-field index on `id`, on purpose: the embedded store would walk it (in id order, across every user's rows)
 * to serve `sort: {id: -1}` when it guesses that is cheaper, and for a user whose relations are old a page would then
 * read most of the collection. Without it a page is always the user's own rows through their index. Single rows are
 * addressed by their unique pair instead.
 */
export const WATCH_INDEXES: IndexSpec[] = [
  // The pair is the relation: the unique index is what makes concurrent PUTs count once.
  { fields: { uid: 1, repoId: 1 }, unique: true },
  // A user's list, newest first (MongoDB walks this one in order; the embedded store uses `uid` and sorts).
  { fields: { uid: 1, id: -1 } },
  { fields: { uid: 1 } },
  // The private rows of a user, to work out which ones a caller may not see.
  { fields: { uid: 1, repoPrivate: 1 } },
  // A repository's rows: deletion and visibility changes.
  { fields: { repoId: 1 } },
];

export interface PageRequest {
  skip: number;
  limit: number;
}

/**
 * The store query behind a list page: `uid`'s rows minus the `hidden` repositories, newest first. Exported so
 * tests can `explain()` exactly what the handlers run.
 */
export function watchListQuery(uid: number, hidden: number[], page: PageRequest): { filter: Filter; options: FindOptions } {
  const filter: Filter = hidden.length ? { uid, repoId: { $nin: hidden } } : { uid };
  return { filter, options: { sort: { id: -1 }, skip: page.skip, limit: page.limit } };
}

export class Watches {
  readonly rows: Collection<WatchRow>;
  /** Accounts deleted recently: account id → when. */
  private readonly deleted = new Map<number, number>();

  constructor(private readonly ctx: PluginContext) {
    this.rows = ctx.store.collection<WatchRow>(WATCHES);
  }

  get repos(): ReposService {
    return this.ctx.services.get<ReposService>('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get<UsersService>('users');
  }

  async get(uid: number, repoId: number): Promise<WatchRow | null> {
    return this.rows.findOne({ uid, repoId });
  }

  /** Idempotent: returns the row (this call's or the existing one); the counter moves only when this call inserted it. */
  async watch(uid: number, repo: RepoRecord): Promise<WatchRow> {
    const existing = await this.get(uid, repo.id);
    if (existing) return existing;
    const row: WatchRow = {
      id: await this.ctx.store.nextId(WATCHES),
      uid,
      repoId: repo.id,
      repoOwnerId: repo.ownerId,
      repoPrivate: repo.private,
      createdAt: nowRfc3339(),
    };
    try {
      await this.rows.insertOne(row);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      // A concurrent PUT created it and counted it; answer with that row (unless it is already gone again).
      return (await this.get(uid, repo.id)) ?? row;
    }
    await this.repos.incrementCounter(repo.id, 'numWatches', 1);
    await this.settle(row);
    return row;
  }

  /**
   * After an insert, looks at the repository and the user again: one deleted meanwhile may have had its rows swept
   * before this one existed (so this row goes too; a user being deleted still has a document, hence the tombstones),
   * and a visibility change may have missed this row (so it is copied now).
   */
  private async settle(row: WatchRow): Promise<void> {
    const [now, user] = await Promise.all([this.repos.byId(row.repoId), this.users.byId(row.uid)]);
    if (!now || !user || this.deleted.has(row.uid)) {
      await this.unwatch(row.uid, row.repoId);
      return;
    }
    if (now.private !== row.repoPrivate || now.ownerId !== row.repoOwnerId) {
      await this.rows.updateOne({ uid: row.uid, repoId: row.repoId }, { $set: { repoPrivate: now.private, repoOwnerId: now.ownerId } });
    }
  }

  /** Idempotent: decrements only when this call deleted the row. */
  async unwatch(uid: number, repoId: number): Promise<void> {
    const gone = await this.rows.findOneAndDelete({ uid, repoId });
    if (gone) await this.repos.incrementCounter(repoId, 'numWatches', -1);
  }

  /**
   * The repositories among `uid`'s private rows that the caller cannot read. Only private rows can be hidden, and
   * a user has few of them next to their public ones, so this stays small while the list itself pages by index.
   */
  async hiddenFor(caller: Caller | null, uid: number): Promise<number[]> {
    if (this.repos.readsAll(caller)) return [];
    const priv = await this.rows.find({ uid, repoPrivate: true }, { projection: { repoId: 1 } });
    if (priv.length === 0) return [];
    const ids = priv.map((r) => r.repoId);
    const readable = await this.repos.readableIds(caller, ids);
    return ids.filter((id) => !readable.has(id));
  }

  /** A page of `uid`'s subscriptions the caller may see, newest first, and how many the caller may see in all. */
  async page(caller: Caller | null, uid: number, page: PageRequest): Promise<{ rows: WatchRow[]; records: Map<number, RepoRecord>; total: number }> {
    const hidden = await this.hiddenFor(caller, uid);
    const { filter, options } = watchListQuery(uid, hidden, page);
    // Every hidden repository is one of uid's rows, so the visible total is the (index-counted) total minus them.
    const [rows, all] = await Promise.all([this.rows.find(filter, options), this.rows.count({ uid })]);
    const records = await this.repos.byIds(rows.map((r) => r.repoId));
    return { rows, records, total: Math.max(0, all - hidden.length) };
  }

  /** `repo.created`: the owner watches its new repository; for an organization, the user who created it. */
  async onRepoCreated(repo: RepoRecord, owner: Account | undefined, creatorId: number | null | undefined): Promise<void> {
    const uid = owner?.type === 'user' ? owner.id : creatorId;
    if (typeof uid === 'number') await this.watch(uid, repo);
  }

  /** `repo.updated`: keep the visibility copies in step (a repository made private must vanish from others' lists). */
  async onRepoUpdated(repo: RepoRecord, before: RepoRecord | undefined): Promise<void> {
    if (before && before.private === repo.private && before.ownerId === repo.ownerId) return;
    await this.rows.updateMany({ repoId: repo.id }, { $set: { repoPrivate: repo.private, repoOwnerId: repo.ownerId } });
  }

  /** `repo.deleted`: its rows go (users keep no watch counter). */
  async onRepoDeleted(repo: RepoRecord): Promise<void> {
    await this.rows.deleteMany({ repoId: repo.id });
  }

  /** Remembers an account being deleted (see TOMBSTONE_MS); old entries are dropped in insertion order. */
  private markDeleted(id: number): void {
    const now = Date.now();
    for (const [key, at] of this.deleted) {
      if (now - at < TOMBSTONE_MS) break;
      this.deleted.delete(key);
    }
    this.deleted.set(id, now);
  }

  /** `account.deleted`: the account's rows go and each repository's `numWatches` drops by what was really deleted. */
  async onAccountDeleted(account: Account): Promise<void> {
    this.markDeleted(account.id);
    const drop = new Map<number, number>();
    for (const row of await this.rows.find({ uid: account.id }, { projection: { repoId: 1 } })) {
      const gone = await this.rows.findOneAndDelete({ uid: account.id, repoId: row.repoId });
      if (gone) drop.set(gone.repoId, (drop.get(gone.repoId) ?? 0) + 1);
    }
    for (const [repoId, n] of drop) await this.repos.incrementCounter(repoId, 'numWatches', -n);
  }
}
