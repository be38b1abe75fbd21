// Notification threads: one per (user, issue or pull request), made unread again by each later event, from Gitea's
// rules (services/uinotification): an issue's or pull request's subscribers (poster, commenters, explicit
// subscribers) and the repository's watchers hear about openings, closings, reopenings, comments, merges, pushes to
// a pull request and reviews; an assignee, a requested reviewer and an @mentioned user hear about what concerns them.
// Never the doer, never someone who cannot read the repository.
//
// Readability is kept on the rows: every thread carries `hidden` (its user cannot read its repository now), the same
// for all threads of one (user, repository) pair, recorded once per pair in `notification_repos`. A page is then one
// ranked index walk over `{userId, hidden: false, …}` and a count is an index count, whatever the user cannot read.
// The flag follows every change of access: `access.changed` (collaborators, team members, team repositories, team
// grants, organization membership, account flags and visibility) and `repo.updated` (private ↔ public) recompute the
// pairs in scope with the repos service's own rule. Pair recomputes and the receivers' check-then-write of `notify`
// run one at a time (`serial`), so a recompute never writes a readability older than a thread written after it.
// Crash safety: a `running` mark in `notification_state` is set at start and cleared by a clean stop; a start that
// finds it set (the process died, maybe between an access change and its recompute) recomputes every pair before
// serving. GET/PATCH of one thread check access live as well.
import { dropOldestTenth } from '../../core/bounded-map.js';
import type { Caller, JsonPieces, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type Filter, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { crashPoint } from '../lib/crash-points.js';
import { LIST_CLOSE, LIST_OPEN } from '../lib/doc-json.js';
import type { IssuesService } from '../../schemas/contracts/issues.js';
import type { WatchService } from '../../schemas/contracts/watch.js';
import { ACCESS, type Account, type RepoRecord, type ReposService, type UsersService } from '../../schemas/services.js';

export const NOTIFICATIONS = 'notifications';
export const NOTIFICATION_REPOS = 'notification_repos';

export type NotificationStatus = 'unread' | 'read' | 'pinned';
export type SubjectType = 'Issue' | 'Pull' | 'Commit' | 'Repository';

export interface Subject {
  title: string;
  url: string;
  html_url: string;
  latest_comment_url: string;
  latest_comment_html_url: string;
  type: SubjectType;
  state: string;
}

export interface NotificationRecord {
  [key: string]: unknown;
  id: number;
  userId: number;
  repoId: number;
  issueId: number;
  /** `<userId>:<issueId>`: one thread per user and subject. */
  key: string;
  status: NotificationStatus;
  /** `status` is unread or pinned: the default inbox, one index range (no `$in` merge) for lists and counts. */
  inbox: boolean;
  /** The user cannot read the repository now (kept for the whole (user, repository) pair, see above). */
  hidden: boolean;
  /** The subject as of the last notifying event; `title` and `state` below are kept current for every thread. */
  subject: Subject;
  subjectType: SubjectType;
  title: string;
  state: string;
  updatedBy: number;
  /** RFC 3339 (seconds); ties by id. */
  updatedAt: string;
  createdAt: string;
}

/** A (user, repository) pair with threads: its readability as last computed, and the repository's owner. */
interface NotificationRepo {
  [key: string]: unknown;
  userId: number;
  repoId: number;
  ownerId?: number;
  /** As on the pair's threads; absent on pairs stored before the flag (the start repair fills it in). */
  hidden?: boolean;
}

/** One document (`id: 1`): the data version and whether a process is running on it (crash detection). */
interface NotificationState {
  [key: string]: unknown;
  id: number;
  version: number;
  running: boolean;
}

/** 2: threads carry `hidden`, pairs carry `hidden` and `ownerId`. */
const DATA_VERSION = 2;

export const NOTIFICATION_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  { fields: { key: 1 }, unique: true },
  // A user's readable threads newest first, and by status (the default list is unread + pinned, `new` counts unread):
  // pages are ranked walks, counts are index counts.
  { fields: { userId: 1, hidden: 1, updatedAt: -1, id: -1 } },
  { fields: { userId: 1, hidden: 1, status: 1, updatedAt: -1, id: -1 } },
  { fields: { userId: 1, hidden: 1, inbox: 1, updatedAt: -1, id: -1 } },
  // One repository's threads (its route checks access live), and a pair's rows for a readability change.
  { fields: { userId: 1, repoId: 1, updatedAt: -1, id: -1 } },
  { fields: { userId: 1, repoId: 1, status: 1 } },
  { fields: { userId: 1, repoId: 1, inbox: 1 } },
  { fields: { issueId: 1 } },
  { fields: { repoId: 1 } },
];
export const NOTIFICATION_REPO_INDEXES: IndexSpec[] = [
  { fields: { userId: 1, repoId: 1 }, unique: true },
  { fields: { repoId: 1 } },
  { fields: { ownerId: 1 } },
];
export const NOTIFICATION_STATE = 'notification_state';
export const NOTIFICATION_STATE_INDEXES: IndexSpec[] = [{ fields: { id: 1 }, unique: true }];

/** Which (user, repository) pairs an access change may concern (AccessChangedEvent's scope). */
export interface AccessScope {
  userIds?: number[];
  repoIds?: number[];
  ownerIds?: number[];
}

export interface ThreadQuery {
  repoId?: number;
  statuses?: NotificationStatus[];
  subjectTypes?: SubjectType[];
  /** RFC 3339 bounds on `updatedAt` (inclusive, Gitea's). */
  since?: string;
  before?: string;
}

/** What an event tells the notifier. */
export interface Happening {
  repo: RepoRecord;
  owner: Account;
  doerId: number;
  issueId: number;
  subject: Subject;
  /** Everyone concerned (subscribers and watchers), or only these accounts. */
  audience: 'all' | number[];
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** Only this plugin's handlers use it (no contract file). */
    notifications: Notifications;
  }
}

export class Notifications {
  readonly rows: Collection<NotificationRecord>;
  private readonly repoRows: Collection<NotificationRepo>;
  private readonly state: Collection<NotificationState>;
  /** The tail of the one-at-a-time chain (pair recomputes, receivers' check-then-write). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly ctx: PluginContext) {
    this.rows = ctx.store.collection<NotificationRecord>(NOTIFICATIONS);
    this.repoRows = ctx.store.collection<NotificationRepo>(NOTIFICATION_REPOS);
    this.state = ctx.store.collection<NotificationState>(NOTIFICATION_STATE);
  }

  get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  /** Runs `work` after every earlier queued piece (one at a time, in order); a failure fails only its caller. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  // ---- writing ----

  /** Every thread of the issue shows its current title and state, whoever it belongs to. */
  async refreshSubject(issueId: number, subject: Subject): Promise<void> {
    await this.rows.updateMany({ issueId }, { $set: { title: subject.title, state: subject.state } });
  }

  async notify(h: Happening): Promise<void> {
    await this.refreshSubject(h.issueId, h.subject);
    let receivers: number[];
    if (h.audience === 'all') {
      const issues: IssuesService | null = this.ctx.services.has('issues') ? this.ctx.services.get('issues') : null;
      const watch: WatchService | null = this.ctx.services.has('watch') ? this.ctx.services.get('watch') : null;
      const [subscribers, watchers, unsubscribed] = await Promise.all([
        issues ? issues.subscriberIds(h.issueId) : Promise.resolve([]),
        watch ? watch.watcherIds(h.repo.id) : Promise.resolve([]),
        issues ? issues.unsubscribedIds(h.issueId) : Promise.resolve([]),
      ]);
      // Gitea: those who unsubscribed from the issue hear nothing about it, watching the repository or not.
      const out = new Set(unsubscribed);
      receivers = [...subscribers, ...watchers].filter((id) => !out.has(id));
    } else {
      receivers = h.audience;
    }
    const ids = [...new Set(receivers)].filter((id) => id !== h.doerId && id > 0);
    if (ids.length === 0) return;
    // A public repository of a public owner is readable by every signed-in user: no per-receiver check.
    const everyone = !h.repo.private && (h.owner.visibility ?? 'public') === 'public';
    // (restricted accounts read only what they are given: always checked)
    await this.serial(async () => {
      const accounts = await this.users.byIds(ids);
      const now = nowRfc3339();
      for (const id of ids) {
        const account = accounts.get(id);
        if (!account || account.type !== 'user') continue;
        const check = !everyone || account.restricted === true;
        if (check && (await this.repos.accessMode(callerOf(account), h.repo)) < ACCESS.read) continue;
        await this.upsert(id, h, now);
      }
    });
  }

  /** A thread for a receiver who reads the repository (checked by the caller, inside `serial`). */
  private async upsert(userId: number, h: Happening, now: string): Promise<void> {
    // The pair first: a thread is never stored without the pair that keeps its flag (a crash in between leaves a
    // pair without threads, harmless). A pair found hidden is readable again (checked just now): all its threads show.
    const pair = await this.repoRows.findOne({ userId, repoId: h.repo.id });
    if (!pair || pair.hidden !== false || pair.ownerId !== h.repo.ownerId) {
      await this.repoRows.updateOne({ userId, repoId: h.repo.id }, { $set: { userId, repoId: h.repo.id, ownerId: h.repo.ownerId, hidden: false } }, { upsert: true });
      if (pair) await this.rows.updateMany({ userId, repoId: h.repo.id, hidden: { $ne: false } }, { $set: { hidden: false } });
    }
    const key = `${userId}:${h.issueId}`;
    const existing = await this.rows.findOne({ key });
    if (existing) {
      // Read threads become unread again; a pinned one stays pinned (Gitea). An issue moved to another repository
      // (transfer) takes its thread along, with that pair's readability.
      const status = existing.status === 'pinned' ? 'pinned' : 'unread';
      await this.rows.updateOne({ key }, { $set: { status, inbox: true, hidden: false, ...subjectFields(h.subject), updatedBy: h.doerId, updatedAt: now, repoId: h.repo.id } });
      return;
    }
    try {
      await this.rows.insertOne({
        id: await this.ctx.store.nextId(NOTIFICATIONS), userId, repoId: h.repo.id, issueId: h.issueId, key,
        status: 'unread', inbox: true, hidden: false, ...subjectFields(h.subject), updatedBy: h.doerId, updatedAt: now, createdAt: now,
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      await this.rows.updateOne({ key }, { $set: { ...subjectFields(h.subject), updatedBy: h.doerId, updatedAt: now } });
    }
  }

  // ---- readability of (user, repository) pairs ----

  /**
   * Recomputes the pairs in scope (all of them without one) with the repos service's rule, and sets `hidden` on the
   * threads of each pair that changed — threads first, then the pair, so a crash in between is redone by the repair.
   * Returns how many pairs changed.
   */
  settle(scope: AccessScope = {}): Promise<number> {
    return this.serial(async () => {
      const f: Record<string, unknown> = {};
      const oneOrIn = (ids: number[]) => (ids.length === 1 ? ids[0] : { $in: [...new Set(ids)] });
      if (scope.userIds) {
        if (scope.userIds.length === 0) return 0;
        f.userId = oneOrIn(scope.userIds);
      }
      const repoIds = scope.repoIds ?? [];
      const ownerIds = scope.ownerIds ?? [];
      if (scope.repoIds || scope.ownerIds) {
        if (repoIds.length + ownerIds.length === 0) return 0;
        if (repoIds.length && ownerIds.length) f.$or = [{ repoId: oneOrIn(repoIds) }, { ownerId: oneOrIn(ownerIds) }];
        else if (repoIds.length) f.repoId = oneOrIn(repoIds);
        else f.ownerId = oneOrIn(ownerIds);
      }
      const byUser = new Map<number, NotificationRepo[]>();
      for (const pair of await this.repoRows.find(f)) {
        const list = byUser.get(pair.userId);
        if (list) list.push(pair);
        else byUser.set(pair.userId, [pair]);
      }
      let changed = 0;
      for (const [userId, pairs] of byUser) changed += await this.settleUser(userId, pairs);
      return changed;
    });
  }

  private async settleUser(userId: number, pairs: NotificationRepo[]): Promise<number> {
    const account = await this.users.byId(userId);
    if (!account) return 0; // going: its rows go with `account.deleted`
    const caller = callerOf(account);
    const ids = pairs.map((p) => p.repoId);
    const records = await this.repos.byIds(ids);
    const readable = this.repos.readsAll(caller) ? new Set(records.keys()) : await this.repos.readableIds(caller, ids);
    let changed = 0;
    for (const pair of pairs) {
      const hidden = !readable.has(pair.repoId);
      const ownerId = records.get(pair.repoId)?.ownerId ?? pair.ownerId ?? 0;
      if (pair.hidden === hidden && pair.ownerId === ownerId) continue;
      if (pair.hidden !== hidden) {
        await this.rows.updateMany({ userId, repoId: pair.repoId, hidden: { $ne: hidden } }, { $set: { hidden } });
        changed++;
      }
      await this.repoRows.updateOne({ userId, repoId: pair.repoId }, { $set: { hidden, ownerId } });
    }
    return changed;
  }

  /**
   * At start: the data version and the running mark. A store written before the flags existed, or left by a process
   * that did not stop cleanly, gets every pair recomputed (and threads without the flag given one) before serving.
   */
  async open(): Promise<void> {
    const st = await this.state.findOne({ id: 1 });
    if (!st || st.version !== DATA_VERSION || st.running) {
      const started = Date.now();
      if (!st || st.version < DATA_VERSION) await this.rows.updateMany({ hidden: { $exists: false } }, { $set: { hidden: false } });
      const changed = await this.settle();
      this.ctx.log.info({ changed, ms: Date.now() - started, reason: !st ? 'new' : st.running ? 'unclean stop' : 'data version' }, 'notifications: readability of every (user, repository) pair recomputed');
    }
    await this.state.updateOne({ id: 1 }, { $set: { id: 1, version: DATA_VERSION, running: true } }, { upsert: true });
  }

  /**
   * An access change: its pairs recomputed before the change is acknowledged. A failure is logged and leaves the
   * running mark set at stop, so the next start repairs every pair.
   */
  async settleAfterChange(scope: AccessScope): Promise<void> {
    crashPoint('notifications.settle:before');
    try {
      await this.settle(scope);
    } catch (err) {
      this.owed = true;
      this.ctx.log.error({ err, scope }, 'notifications: recomputing readability failed; the next start repairs it');
    }
  }

  /** A recompute failed in this run: the running mark stays at stop (the next start repairs). */
  private owed = false;

  /** A clean stop: pending recomputes finish, then the mark says nothing is owed. */
  async close(): Promise<void> {
    await this.serial(async () => undefined);
    if (!this.owed) await this.state.updateOne({ id: 1 }, { $set: { running: false } });
  }

  // ---- reading ----

  /** The filter of a query over the caller's readable threads (one repository's: the route checked access live). */
  private filterOf(caller: Caller, q: ThreadQuery): Record<string, unknown> {
    const base: Record<string, unknown> = { userId: caller.id };
    if (q.repoId !== undefined) base.repoId = q.repoId;
    else base.hidden = false;
    const statuses = [...new Set(q.statuses ?? [])];
    if (statuses.length === 2 && statuses.includes('unread') && statuses.includes('pinned')) base.inbox = true;
    else if (statuses.length === 1) base.status = statuses[0];
    else if (statuses.length === 2) base.status = { $in: statuses };
    if (q.subjectTypes && q.subjectTypes.length > 0) base.subjectType = q.subjectTypes.length === 1 ? q.subjectTypes[0] : { $in: q.subjectTypes };
    const range: Record<string, string> = {};
    if (q.since) range.$gte = q.since;
    if (q.before) range.$lte = q.before;
    if (Object.keys(range).length) base.updatedAt = range;
    return base;
  }

  async filter(caller: Caller, q: ThreadQuery): Promise<Filter> {
    return this.filterOf(caller, q);
  }

  async page(caller: Caller, q: ThreadQuery, page: { skip: number; limit: number }): Promise<{ rows: NotificationRecord[]; total: number }> {
    const f = this.filterOf(caller, q);
    const { docs: rows, total } = await this.rows.findAndCount(f, { sort: { updatedAt: -1, id: -1 }, skip: page.skip, limit: page.limit });
    return { rows, total };
  }

  async countUnread(caller: Caller): Promise<number> {
    return this.rows.count(this.filterOf(caller, { statuses: ['unread'] }));
  }

  /** A thread by id (the route checks its owner and, live, that the owner still reads its repository). */
  async thread(id: number): Promise<NotificationRecord | null> {
    return this.rows.findOne({ id });
  }

  async setStatus(row: NotificationRecord, status: NotificationStatus): Promise<NotificationRecord> {
    return (await this.rows.findOneAndUpdate({ id: row.id }, { $set: { status, inbox: status !== 'read' } })) ?? row;
  }

  /**
   * Marks the caller's matching threads updated at or before `lastReadAt` as `to`; returns how many changed and the
   * newest `limit` of them.
   */
  async markAll(caller: Caller, q: ThreadQuery, to: NotificationStatus, limit: number): Promise<{ rows: NotificationRecord[]; total: number }> {
    // Every status but `to` among the asked ones: only threads that change are touched (and reported).
    const from = (q.statuses && q.statuses.length > 0 ? q.statuses : ['unread', 'read', 'pinned'] as NotificationStatus[]).filter((st) => st !== to);
    if (from.length === 0) return { rows: [], total: 0 };
    const f = this.filterOf(caller, { ...q, statuses: [] });
    const changed = { ...f, status: from.length === 1 ? from[0] : { $in: from } };
    const sample = await this.rows.find(changed, { sort: { updatedAt: -1, id: -1 }, limit });
    const result = await this.rows.updateMany(changed, { $set: { status: to, inbox: to !== 'read' } });
    const rows = sample.map((r) => ({ ...r, status: to, inbox: to !== 'read' }));
    return { rows, total: result.modified };
  }

  /** Set at start: the NotificationSubject schema's serializer. */
  serializeSubject: (value: unknown) => string = JSON.stringify;

  /**
   * A NotificationThreadList as JSON text (members in the schema's order), with each repository's text as given
   * (`null` for a repository that is gone).
   */
  threadsJson(rows: NotificationRecord[], repoTexts: Map<number, JsonPieces>, threadUrl: string): JsonPieces {
    const out: Buffer[] = [LIST_OPEN];
    rows.forEach((r, i) => {
      const text = this.threadText(r, threadUrl);
      out.push(i === 0 ? text.head : text.commaHead);
      const repo = repoTexts.get(r.repoId);
      if (repo) {
        for (const piece of repo) out.push(piece);
      } else {
        out.push(NULL);
      }
      out.push(text.tail);
    });
    out.push(LIST_CLOSE);
    return out;
  }

  /**
   * A thread's text around its repository, kept per stored version of the row: the embedded store hands out one
   * read-only object per version, so an entry made from that very object is exact (MongoDB's fresh copies never hit).
   * At most `TEXT_CACHE` entries; the oldest tenth goes when full.
   */
  private threadText(r: NotificationRecord, threadUrl: string): ThreadText {
    const hit = this.texts.get(r.id);
    if (hit && hit.row === r && hit.url === threadUrl) return hit;
    const head = `{"id":${r.id},"repository":`;
    const text: ThreadText = {
      row: r, url: threadUrl, head: Buffer.from(head), commaHead: Buffer.from(`,${head}`),
      tail: Buffer.from(`,"subject":${this.serializeSubject(Notifications.subjectOf(r))},"unread":${r.status === 'unread'},"pinned":${r.status === 'pinned'},"updated_at":${JSON.stringify(r.updatedAt)},"url":${JSON.stringify(threadUrl + r.id)}}`),
    };
    if (this.texts.size >= TEXT_CACHE) dropOldestTenth(this.texts, TEXT_CACHE);
    this.texts.delete(r.id);
    this.texts.set(r.id, text);
    return text;
  }

  private readonly texts = new Map<number, ThreadText>();

  /** The Subject object of a thread, with its current title and state. */
  static subjectOf(row: NotificationRecord): Subject {
    return { ...row.subject, title: row.title, state: row.state };
  }

  // ---- lifecycle ----

  async onIssueDeleted(issueId: number): Promise<void> {
    await this.rows.deleteMany({ issueId });
  }

  async onRepoDeleted(repoId: number): Promise<void> {
    await this.rows.deleteMany({ repoId });
    await this.repoRows.deleteMany({ repoId });
  }

  async onAccountDeleted(userId: number): Promise<void> {
    await this.rows.deleteMany({ userId });
    await this.repoRows.deleteMany({ userId });
  }
}

/** A thread's JSON text without its repository (see `threadText`). */
interface ThreadText {
  row: NotificationRecord;
  url: string;
  head: Buffer;
  commaHead: Buffer;
  tail: Buffer;
}

/** Thread texts kept (≈ 0.5 KB each). */
const TEXT_CACHE = 20_000;

const NULL = Buffer.from('null');

/** The Caller a user's access is computed for (no token scopes: readability, not what a token may do). */
export function callerOf(account: Account): Caller {
  return { id: account.id, login: account.login, isAdmin: account.isAdmin === true, via: 'token', restricted: account.restricted === true };
}

function subjectFields(subject: Subject): { subject: Subject; subjectType: SubjectType; title: string; state: string } {
  return { subject, subjectType: subject.type, title: subject.title, state: subject.state };
}
