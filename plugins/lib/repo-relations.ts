// Shared by the stars and watch plugins, which cannot import each other: a user→repository relation with exact counters.
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, JsonPieces, PluginContext, Reply, RequestContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type CollectionSpec, type Filter, type FindOptions, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { ACCOUNT_DELETED, REPO_DELETED, REPO_UPDATED, type Account, type RepoRecord, type ReposService, type UsersService } from '../../schemas/services.js';
import { accountOr404, me } from './request.js';
import { CounterIntents, intentCollection } from './counter-intents.js';
import { crashPoint } from './crash-points.js';
import { RecentlyDeleted } from './tombstones.js';

/**
 * One relation: user `uid` → repository `repoId`. `repoPrivate` and `repoOwnerId` are copies of the repository's
 * fields (kept in step on `repo.updated`); `unlisted` says the repository is private or its owner is not public
 * (limited or private): what an anonymous caller may not read, and the only rows any other caller but a restricted
 * one may not read — kept in step on `repo.updated` and on an owner's `access.changed`, so lists hide through indexes.
 */
export interface RepoRelationRow {
  [key: string]: unknown;
  id: number;
  uid: number;
  repoId: number;
  repoOwnerId: number;
  repoPrivate: boolean;
  unlisted: boolean;
  createdAt: string;
}

export const REPO_RELATION_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  // The pair is the relation: the unique index is what makes concurrent PUTs count once.
  { fields: { uid: 1, repoId: 1 }, unique: true },
  // A user's list, newest first: both adapters walk this one in order (the embedded store jumps to the page by rank).
  { fields: { uid: 1, id: -1 } },
  // A user's unlisted rows of one owner's repositories: a list counts the unlisted rows the caller owns (every owner
  // reads its own) without reading any. Also serves `{ uid }` and `{ uid, unlisted }`, by prefix.
  { fields: { uid: 1, unlisted: 1, repoOwnerId: 1 } },
  // A user's listed rows newest first: the list of a caller that reads none of the unlisted ones (anonymous callers)
  // paged by rank like the whole list.
  { fields: { uid: 1, unlisted: 1, id: -1 } },
  // A repository's rows: deletion and visibility changes.
  { fields: { repoId: 1 } },
];

/**
 * Indexes earlier versions declared, dropped at start from data they built (each would otherwise stay, kept up on
 * every write and taking memory): `{ uid }` and the `repoPrivate` ones, whose work the `unlisted` ones do.
 */
export const REPO_RELATION_RETIRED_INDEXES: IndexSpec[] = [
  { fields: { uid: 1, repoPrivate: 1 } },
  { fields: { uid: 1 } },
  { fields: { uid: 1, repoPrivate: 1, id: -1 } },
  { fields: { uid: 1, repoPrivate: 1, repoOwnerId: 1 } },
];

/** The collection of a relation's counter intents (declare it beside the relation's own collection). */
export function relationIntents(collection: string): CollectionSpec {
  return intentCollection(`${collection}_intents`);
}

export interface PageRequest {
  skip: number;
  limit: number;
}

/**
 * Which of a user's rows a caller sees: all but `hidden`, or with `listedOnly` its listed rows (every unlisted row
 * hidden, no other; `hidden` not needed).
 */
export interface RowScope {
  listedOnly: boolean;
  hidden: number[];
}

const EVERY_ROW: RowScope = Object.freeze({ listedOnly: false, hidden: [] }) as RowScope;
const LISTED_ONLY: RowScope = Object.freeze({ listedOnly: true, hidden: [] }) as RowScope;

/** The store query behind a list page: the rows of `uid` the scope leaves, newest first. */
export function repoRelationListQuery(uid: number, scope: RowScope, page: PageRequest): { filter: Filter; options: FindOptions } {
  const filter: Filter = scope.listedOnly ? { uid, unlisted: false } : scope.hidden.length ? { uid, repoId: { $nin: scope.hidden } } : { uid };
  return { filter, options: { sort: { id: -1 }, skip: page.skip, limit: page.limit } };
}

export interface RepoRelationOptions {
  /** The store collection holding the rows. */
  collection: string;
  /** The repository counter that moves with a row. */
  repoCounter: Parameters<ReposService['incrementCounter']>[1];
  /** The user counter that moves with a row, if the relation keeps one on users. */
  userCounter?: Parameters<UsersService['incrementCounter']>[1];
}

/** What `add` did: found the row already there, inserted it, or lost the unique index to a concurrent insert. */
export type AddOutcome = 'existing' | 'inserted' | 'raced';

/** A user→repository relation with exact counters: one row per (user, repository); counters move only with a row. */
export class RepoRelations<Row extends RepoRelationRow = RepoRelationRow> {
  readonly rows: Collection<Row>;
  private readonly deleted = new RecentlyDeleted();
  /** Every row change and its counter moves run under an intent, so a crash in between is recounted at start. */
  private readonly intents: CounterIntents<'repoIds' | 'userIds'>;

  constructor(protected readonly ctx: PluginContext, private readonly opts: RepoRelationOptions) {
    this.rows = ctx.store.collection<Row>(opts.collection);
    this.intents = new CounterIntents(ctx.store, relationIntents(opts.collection).name, ['repoIds', 'userIds']);
  }

  /** The intent targets of rows of (uids, repoIds): users only when the relation keeps a user counter. */
  private targets(uids: readonly number[], repoIds: readonly number[]): { repoIds: readonly number[]; userIds: readonly number[] } {
    return { repoIds, userIds: this.opts.userCounter ? uids : [] };
  }

  /** At start, before any request: recounts the counters of changes a crash interrupted. */
  async repair(): Promise<number> {
    const { repoCounter, userCounter } = this.opts;
    const pending = await this.intents.replay(async ({ repoIds, userIds }) => {
      for (const repoId of repoIds) {
        const repo = await this.repos.byId(repoId);
        if (!repo) continue;
        const actual = await this.rows.count({ repoId });
        const stored = typeof repo[repoCounter] === 'number' ? (repo[repoCounter] as number) : 0;
        if (actual !== stored) await this.repos.incrementCounter(repoId, repoCounter, actual - stored);
      }
      if (!userCounter) return;
      for (const uid of userIds) {
        const user = await this.users.byId(uid);
        if (!user) continue;
        const actual = await this.rows.count({ uid });
        const stored = typeof user[userCounter] === 'number' ? (user[userCounter] as number) : 0;
        if (actual !== stored) await this.users.incrementCounter(uid, userCounter, actual - stored);
      }
    });
    if (pending) this.ctx.log.warn({ intents: pending, collection: this.opts.collection }, 'recounted counters of unfinished changes');
    return pending;
  }

  /**
   * At start, before any request: recounts what a crash interrupted, gives old rows their `unlisted` copy, and keeps
   * the rows in step with repositories (visibility, deletion), owners' visibility and deleted accounts.
   */
  async start(): Promise<void> {
    await this.repair();
    await this.copyListing();
    const { events } = this.ctx;
    events.on(REPO_UPDATED, ({ repo, before }) => this.onRepoUpdated(repo, before));
    events.on(REPO_DELETED, ({ repo }) => this.onRepoDeleted(repo));
    events.on(ACCOUNT_DELETED, ({ account }) => this.onAccountDeleted(account));
    // An owner's visibility moves its public repositories' rows between listed and unlisted.
    events.on('access.changed', ({ reason, ownerIds }) => (reason === 'account' && ownerIds?.length ? this.onOwnersChanged(ownerIds) : undefined));
  }

  get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  async get(uid: number, repoId: number): Promise<Row | null> {
    return this.rows.findOne({ uid, repoId });
  }

  /** Moves the counters by `delta` for one row of (uid, repoId). */
  private async count(uid: number, repoId: number, delta: number): Promise<void> {
    const { repoCounter, userCounter } = this.opts;
    await Promise.all([
      this.repos.incrementCounter(repoId, repoCounter, delta),
      ...(userCounter ? [this.users.incrementCounter(uid, userCounter, delta)] : []),
    ]);
  }

  /**
   * Idempotent: returns the existing row or the one this call built; the counters move only when this call's
   * insert created the row ('raced': a concurrent PUT created it and counted it).
   */
  async add(uid: number, repo: RepoRecord): Promise<{ row: Row; outcome: AddOutcome }> {
    const existing = await this.get(uid, repo.id);
    if (existing) return { row: existing, outcome: 'existing' };
    const row = {
      id: await this.ctx.store.nextId(this.opts.collection),
      uid,
      repoId: repo.id,
      repoOwnerId: repo.ownerId,
      repoPrivate: repo.private,
      unlisted: this.unlisted(repo),
      createdAt: nowRfc3339(),
    } as Row;
    const inserted = await this.intents.around(this.targets([uid], [repo.id]), async () => {
      try {
        await this.rows.insertOne(row);
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
      crashPoint(`${this.opts.collection}.add:after-row`);
      await this.count(uid, repo.id, 1);
      return true;
    });
    if (!inserted) return { row, outcome: 'raced' };
    await this.settle(row);
    return { row, outcome: 'inserted' };
  }

  /**
   * After an insert, looks at the repository and the user again: one deleted meanwhile may have had its rows swept
   * before this one existed (so this row goes too; a user being deleted still has a document, hence the tombstones),
   * and a visibility change may have missed this row (so it is copied now).
   */
  private async settle(row: Row): Promise<void> {
    const [now, user] = await Promise.all([this.repos.byId(row.repoId), this.users.byId(row.uid)]);
    if (!now || !user || this.deleted.has(row.uid)) {
      await this.remove(row.uid, row.repoId);
      return;
    }
    const unlisted = this.unlisted(now);
    if (now.private !== row.repoPrivate || now.ownerId !== row.repoOwnerId || unlisted !== row.unlisted) {
      await this.rows.updateOne({ uid: row.uid, repoId: row.repoId }, { $set: { repoPrivate: now.private, repoOwnerId: now.ownerId, unlisted } });
    }
  }

  /** Whether an anonymous caller may not read the repository: private, or of an owner that is not public. */
  private unlisted(repo: Pick<RepoRecord, 'private' | 'ownerId'>): boolean {
    return repo.private || this.users.nonPublicOwners().all.has(repo.ownerId);
  }

  /** Idempotent: decrements only when this call deleted the row. */
  async remove(uid: number, repoId: number): Promise<void> {
    await this.intents.around(this.targets([uid], [repoId]), async () => {
      const gone = await this.rows.findOneAndDelete({ uid, repoId });
      crashPoint(`${this.opts.collection}.remove:after-row`);
      if (gone) await this.count(uid, repoId, -1);
    });
  }

  /**
   * Which of `uid`'s rows the caller may not see. Only unlisted rows (private repositories, and repositories of
   * owners that are not public) can be hidden from a caller that is not restricted, and a user has few of them next
   * to the listed ones, so this stays small. An anonymous caller reads none of them: the list is `uid`'s listed rows
   * (`listedOnly`), a rank jump on the `{ uid, unlisted, id }` index however deep the page, whose range is also its
   * count. So is the list of any caller that reads none of them.
   */
  async scopeFor(caller: Caller | null, uid: number): Promise<RowScope> {
    if (this.repos.readsAll(caller)) return EVERY_ROW;
    if (caller === null) return LISTED_ONLY;
    // A restricted caller reads no repository by itself, a listed one neither: every row needs a grant.
    const restricted = !this.repos.readsPublic(caller);
    const candidates: Filter = restricted ? { uid } : { uid, unlisted: true };
    // Most users have no unlisted rows: the compound index counts them without reading any (cheaper than a find).
    const candidateCount = await this.rows.count(candidates);
    if (candidateCount === 0) return EVERY_ROW;
    // Every owner reads its own repositories (a restricted one too, but its rows all take the lookup below). A list
    // whose unlisted rows are all of the caller's own repositories — a user's own list: users watch what they create —
    // hides nothing: two index counts, where asking about each of hundreds of private rows cost more than the page.
    const owner = restricted ? null : caller.id;
    if (owner !== null && (await this.rows.count({ uid, unlisted: true, repoOwnerId: owner })) === candidateCount) return EVERY_ROW;
    // Whole stored rows, not a projection: the store hands those out as they are, a projection costs per call.
    const rows = await this.rows.find(candidates);
    const ids = rows.map((r) => r.repoId);
    // Rows of the caller's own repositories need no lookup.
    const asked = owner === null ? ids : rows.filter((r) => r.repoOwnerId !== owner).map((r) => r.repoId);
    const readable = await this.repos.readableIds(caller, asked);
    const hidden = asked.filter((id) => !readable.has(id));
    return !restricted && hidden.length === ids.length ? LISTED_ONLY : { listedOnly: false, hidden };
  }

  /** A page of `uid`'s rows the caller may see, newest first, and how many the caller may see in all. */
  async page(caller: Caller | null, uid: number, page: PageRequest): Promise<{ rows: Row[]; records: Map<number, RepoRecord>; total: number }> {
    const scope = await this.scopeFor(caller, uid);
    const { filter, options } = repoRelationListQuery(uid, scope, page);
    let rows: Row[];
    let total: number;
    if (scope.hidden.length === 0) {
      // The filter is an index prefix holding exactly the rows the caller sees: the page's walk counts them too.
      ({ docs: rows, total } = await this.rows.findAndCount(filter, options));
    } else {
      // A `$nin` the index cannot hold; every hidden repository is one of uid's rows, so the visible total is the
      // (index-counted) total minus them.
      const [found, all] = await Promise.all([this.rows.find(filter, options), this.rows.count({ uid })]);
      rows = found;
      total = Math.max(0, all - scope.hidden.length);
    }
    const records = await this.repos.byIds(rows.map((r) => r.repoId));
    return { rows, records, total };
  }

  /** `repo.updated`: keep the visibility copies in step (a repository made private must vanish from others' lists). */
  async onRepoUpdated(repo: RepoRecord, before: RepoRecord | undefined): Promise<void> {
    if (before && before.private === repo.private && before.ownerId === repo.ownerId) return;
    await this.rows.updateMany({ repoId: repo.id }, { $set: { repoPrivate: repo.private, repoOwnerId: repo.ownerId, unlisted: this.unlisted(repo) } });
  }

  /**
   * `access.changed` for accounts whose visibility changed (`reason: 'account'`, `ownerIds`): the rows of their
   * public repositories become listed or unlisted with them (private ones stay unlisted).
   */
  async onOwnersChanged(ownerIds: readonly number[]): Promise<void> {
    const nonPublic = this.users.nonPublicOwners().all;
    for (const ownerId of ownerIds) {
      const repoIds = await this.repos.idsOwnedBy(ownerId);
      if (repoIds.length) await this.rows.updateMany({ repoId: { $in: repoIds }, repoPrivate: false }, { $set: { unlisted: nonPublic.has(ownerId) } });
    }
  }

  /**
   * At start: rows stored before `unlisted` existed get it (private rows, then rows of owners that are not public,
   * then the rest). Returns how many rows lacked it; with none, one scan of the collection (no index holds absence).
   */
  async copyListing(): Promise<number> {
    const missing = { unlisted: { $exists: false } };
    const lacking = await this.rows.count(missing);
    if (lacking === 0) return 0;
    await this.rows.updateMany({ ...missing, repoPrivate: true }, { $set: { unlisted: true } });
    const nonPublic = [...this.users.nonPublicOwners().all];
    if (nonPublic.length) await this.rows.updateMany({ ...missing, repoOwnerId: { $in: nonPublic } }, { $set: { unlisted: true } });
    await this.rows.updateMany(missing, { $set: { unlisted: false } });
    this.ctx.log.info({ rows: lacking, collection: this.opts.collection }, 'copied the listing of rows stored before it existed');
    return lacking;
  }

  /** `repo.deleted`: its rows go; with a user counter, each user's drops by what was really deleted. */
  async onRepoDeleted(repo: RepoRecord): Promise<void> {
    const { userCounter } = this.opts;
    if (!userCounter) {
      await this.rows.deleteMany({ repoId: repo.id });
      return;
    }
    const rows = await this.rows.find({ repoId: repo.id }, { projection: { uid: 1 } });
    await this.intents.around({ userIds: rows.map((r) => r.uid) }, async () => {
      for (const row of rows) {
        const gone = await this.rows.findOneAndDelete({ uid: row.uid, repoId: repo.id });
        if (gone) await this.users.incrementCounter(gone.uid, userCounter, -1);
      }
    });
  }

  /** `account.deleted`: the account's rows go and each repository's counter drops by what was really deleted. */
  async onAccountDeleted(account: Account): Promise<void> {
    this.deleted.mark(account.id);
    const rows = await this.rows.find({ uid: account.id }, { projection: { repoId: 1 } });
    await this.intents.around({ repoIds: rows.map((r) => r.repoId) }, async () => {
      const drop = new Map<number, number>();
      for (const row of rows) {
        const gone = await this.rows.findOneAndDelete({ uid: account.id, repoId: row.repoId });
        if (gone) drop.set(gone.repoId, (drop.get(gone.repoId) ?? 0) + 1);
      }
      for (const [repoId, n] of drop) await this.repos.incrementCounter(repoId, this.opts.repoCounter, -n);
    });
  }
}

/**
 * The repositories of `rows` in row order as the caller sees them, as RepositoryList JSON text. A repository
 * deleted meanwhile is skipped, and so is one the caller turns out not to read (the denormalised copy lagging a
 * concurrent change): never a leak.
 */
export async function repoListJson(rows: RepoRelationRow[], records: Map<number, RepoRecord>, repos: ReposService, caller: Caller | null): Promise<JsonPieces> {
  const ordered: RepoRecord[] = [];
  for (const row of rows) {
    const repo = records.get(row.repoId);
    if (repo) ordered.push(repo);
  }
  return repos.toJsonList(ordered, caller, { readableOnly: true });
}

// Handler helpers: the request plumbing both plugins' operations share.
type Rc<P = any, Q = any> = RequestContext<P, Q, unknown>;
/** The request of an operation on one repository (`:owner/:repo`). */
export type OwnerRepoRc = Rc<{ owner: string; repo: string }, unknown>;

/** The caller and the repository named by `:owner/:repo` (404 when the caller cannot read it). */
export async function callerAndRepo(rc: OwnerRepoRc, service: RepoRelations<any>): Promise<{ caller: Caller; repo: RepoRecord; owner: Account }> {
  const caller = me(rc);
  const { repo, owner } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  return { caller, repo, owner };
}

/** A list page of `uid`'s related repositories as the caller sees them, with the paging headers. */
export async function listPage(rc: Rc, service: RepoRelations<any>, uid: number): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const { rows, records, total } = await service.page(rc.caller, uid, win);
  const body = await repoListJson(rows, records, service.repos, rc.caller);
  return { status: 200, type: 'json-text', body, headers: pageHeaders(rc, total, win) };
}

/** A list page of the related repositories of the user named by `:username` (404 when there is no such user). */
export async function listPageOfUser(rc: Rc<{ username: string }>, service: RepoRelations<any>): Promise<Reply> {
  return listPage(rc, service, (await accountOr404(rc, rc.params.username)).id);
}

/** The two list operations (the caller's own list, any user's list) over the relation `service(rc)` returns. */
export function listHandlers(service: (rc: Rc) => RepoRelations<any>): { listMine(rc: Rc): Promise<Reply>; listOfUser(rc: Rc<{ username: string }>): Promise<Reply> } {
  return {
    listMine: (rc) => listPage(rc, service(rc), me(rc).id),
    listOfUser: (rc) => listPageOfUser(rc, service(rc)),
  };
}
