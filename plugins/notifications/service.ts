// Notification threads: one per (user, issue or pull request), made unread again by each later event, from Gitea's
// rules (services/uinotification): an issue's or pull request's subscribers (poster, commenters, explicit
// subscribers) and the repository's watchers hear about openings, closings, reopenings, comments, merges, pushes to
// a pull request and reviews; an assignee, a requested reviewer and an @mentioned user hear about what concerns them.
// Never the doer, never someone who cannot read the repository. Reading filters out repositories the user can no
// longer read (exact counts: the filter is part of the query).
import type { Caller, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type Filter, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
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

/** The repositories a user has threads in: the short list whose readability a read checks. */
interface NotificationRepo {
  [key: string]: unknown;
  userId: number;
  repoId: number;
}

export const NOTIFICATION_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  { fields: { key: 1 }, unique: true },
  // A user's threads newest first, and by status (the default list is unread + pinned, `new` counts unread).
  { fields: { userId: 1, updatedAt: -1, id: -1 } },
  { fields: { userId: 1, status: 1, updatedAt: -1, id: -1 } },
  { fields: { userId: 1, inbox: 1, updatedAt: -1, id: -1 } },
  { fields: { userId: 1, repoId: 1, updatedAt: -1, id: -1 } },
  // Per repository and status: counts subtract an unreadable repository's share without walking the user's threads.
  { fields: { userId: 1, repoId: 1, status: 1 } },
  { fields: { userId: 1, repoId: 1, inbox: 1 } },
  { fields: { issueId: 1 } },
  { fields: { repoId: 1 } },
];
export const NOTIFICATION_REPO_INDEXES: IndexSpec[] = [
  { fields: { userId: 1, repoId: 1 }, unique: true },
  { fields: { repoId: 1 } },
];

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

  constructor(private readonly ctx: PluginContext) {
    this.rows = ctx.store.collection<NotificationRecord>(NOTIFICATIONS);
    this.repoRows = ctx.store.collection<NotificationRepo>(NOTIFICATION_REPOS);
  }

  get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
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
    const accounts = await this.users.byIds(ids);
    const now = nowRfc3339();
    for (const id of ids) {
      const account = accounts.get(id);
      if (!account || account.type !== 'user') continue;
      if (h.repo.private) {
        const caller: Caller = { id, login: account.login, isAdmin: account.isAdmin === true, via: 'token', restricted: account.restricted === true };
        if ((await this.repos.accessMode(caller, h.repo)) < ACCESS.read) continue;
      }
      await this.upsert(id, h, now);
    }
  }

  private async upsert(userId: number, h: Happening, now: string): Promise<void> {
    const key = `${userId}:${h.issueId}`;
    const existing = await this.rows.findOne({ key });
    if (existing) {
      // Read threads become unread again; a pinned one stays pinned (Gitea).
      const status = existing.status === 'pinned' ? 'pinned' : 'unread';
      await this.rows.updateOne({ key }, { $set: { status, inbox: true, ...subjectFields(h.subject), updatedBy: h.doerId, updatedAt: now, repoId: h.repo.id } });
      return;
    }
    try {
      await this.rows.insertOne({
        id: await this.ctx.store.nextId(NOTIFICATIONS), userId, repoId: h.repo.id, issueId: h.issueId, key,
        status: 'unread', inbox: true, ...subjectFields(h.subject), updatedBy: h.doerId, updatedAt: now, createdAt: now,
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      await this.rows.updateOne({ key }, { $set: { ...subjectFields(h.subject), updatedBy: h.doerId, updatedAt: now } });
    }
    await this.repoRows.updateOne({ userId, repoId: h.repo.id }, { $set: { userId, repoId: h.repo.id } }, { upsert: true });
  }

  // ---- reading ----

  /** The user's repositories with threads that the user can no longer read (usually none). */
  private async hiddenRepos(caller: Caller): Promise<number[]> {
    if (this.repos.readsAll(caller)) return [];
    const ids = (await this.repoRows.find({ userId: caller.id }, { projection: { repoId: 1 } })).map((r) => r.repoId);
    if (ids.length === 0) return [];
    // Public repositories are readable by everyone: only private ones (and deleted ones) need the caller's grants.
    const records = await this.repos.byIds(ids);
    const gone = ids.filter((id) => !records.has(id));
    // A restricted caller reads no public repository by itself: all of them need its grants.
    const readsPublic = this.repos.readsPublic(caller);
    const privateIds = [...records.values()].filter((r) => r.private || !readsPublic).map((r) => r.id);
    if (privateIds.length === 0) return gone;
    const readable = await this.repos.readableIds(caller, privateIds);
    return [...gone, ...privateIds.filter((id) => !readable.has(id))];
  }

  /** The query without the unreadable-repository exclusion, and the repositories to exclude. */
  private async parts(caller: Caller, q: ThreadQuery): Promise<{ base: Record<string, unknown>; hidden: number[] }> {
    const base: Record<string, unknown> = { userId: caller.id };
    const hidden = await this.hiddenRepos(caller);
    if (q.repoId !== undefined) base.repoId = hidden.includes(q.repoId) ? -1 : q.repoId;
    const statuses = [...new Set(q.statuses ?? [])];
    if (statuses.length === 2 && statuses.includes('unread') && statuses.includes('pinned')) base.inbox = true;
    else if (statuses.length === 1) base.status = statuses[0];
    else if (statuses.length === 2) base.status = { $in: statuses };
    if (q.subjectTypes && q.subjectTypes.length > 0) base.subjectType = q.subjectTypes.length === 1 ? q.subjectTypes[0] : { $in: q.subjectTypes };
    const range: Record<string, string> = {};
    if (q.since) range.$gte = q.since;
    if (q.before) range.$lte = q.before;
    if (Object.keys(range).length) base.updatedAt = range;
    return { base, hidden: q.repoId !== undefined ? [] : hidden };
  }

  async filter(caller: Caller, q: ThreadQuery): Promise<Filter> {
    const { base, hidden } = await this.parts(caller, q);
    return hidden.length > 0 ? { ...base, repoId: { $nin: hidden } } : base;
  }

  /**
   * Exact count: a plain status query counts its index range and subtracts each unreadable repository's range (no
   * walk over the user's threads); anything else counts with the exclusion in the filter.
   */
  private async count(base: Record<string, unknown>, hidden: number[]): Promise<number> {
    if (hidden.length === 0) return this.rows.count(base);
    const plain = Object.keys(base).every((k) => k === 'userId' || k === 'inbox' || (k === 'status' && typeof base.status === 'string'));
    if (!plain) return this.rows.count({ ...base, repoId: { $nin: hidden } });
    const [all, ...shares] = await Promise.all([this.rows.count(base), ...hidden.map((repoId) => this.rows.count({ ...base, repoId }))]);
    return all! - shares.reduce((a, b) => a + b, 0);
  }

  async page(caller: Caller, q: ThreadQuery, page: { skip: number; limit: number }): Promise<{ rows: NotificationRecord[]; total: number }> {
    const { base, hidden } = await this.parts(caller, q);
    const f = hidden.length > 0 ? { ...base, repoId: { $nin: hidden } } : base;
    const [rows, total] = await Promise.all([
      this.rows.find(f, { sort: { updatedAt: -1, id: -1 }, skip: page.skip, limit: page.limit }),
      this.count(base, hidden),
    ]);
    return { rows, total };
  }

  async countUnread(caller: Caller): Promise<number> {
    const { base, hidden } = await this.parts(caller, { statuses: ['unread'] });
    return this.count(base, hidden);
  }

  /** A thread the caller may see (its owner, or a site admin), in a repository its owner can still read. */
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
    const f = await this.filter(caller, { ...q, statuses: [] });
    const changed = { ...f, status: from.length === 1 ? from[0] : { $in: from } };
    const sample = await this.rows.find(changed, { sort: { updatedAt: -1, id: -1 }, limit });
    const result = await this.rows.updateMany(changed, { $set: { status: to, inbox: to !== 'read' } });
    const rows = sample.map((r) => ({ ...r, status: to, inbox: to !== 'read' }));
    return { rows, total: result.modified };
  }

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

function subjectFields(subject: Subject): { subject: Subject; subjectType: SubjectType; title: string; state: string } {
  return { subject, subjectType: subject.type, title: subject.title, state: subject.state };
}
