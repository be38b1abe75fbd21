// The issues service: numbers, stored issues, comments, labels, milestones, reactions and subscriptions, with exact
// counters (every counter moves only with the one conditional write that changed what it counts).
import { fail } from '../../core/errors.js';
import type { Caller, ForgeEvents, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type CollectionSpec, type Doc, type Filter } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { IssueAction } from '../../schemas/events.js';
import type { Account, OrgsService, RepoRecord, ReposService, UsersService } from '../../schemas/services.js';
import type {
  CommentRecord, IssueAssetSource, IssueChangeContext, IssueListQuery, IssueRecord, IssuesService, LabelRecord, MilestoneRecord, NewIssueInput,
} from '../../schemas/contracts/issues.js';
import { CounterIntents, intentCollection } from '../lib/counter-intents.js';
import { Renderer } from './convert.js';
import { GRAM, matchesText, mentionedNames } from './text.js';
import {
  type GramPostings, buildGramPostings, gramKeys, IssueTextIndex, keysToIds, lowerBound, noPause, yieldAfter, type Pause, type TextCandidates,
} from './text-index.js';
import { TextMatches } from './text-matches.js';
import { KeptCounts, type IdBound } from './kept-counts.js';
import { mapById } from '../lib/by-id.js';

export const ISSUES = 'issues';
export const COMMENTS = 'issue_comments';
export const LABELS = 'issue_labels';
export const MILESTONES = 'milestones';
export const REACTIONS = 'issue_reactions';
export const WATCHES = 'issue_watches';
export const NUMBERS = 'issue_numbers';
/** Counter intents: written before a counter-moving change, removed after; replayed as exact recounts at start. */
export const INTENTS = 'issue_intents';
/** Repositories with `has_issues: false` (kept on `repo.updated`): /repos/issues/search leaves their issues out. */
export const UNITS_OFF = 'issue_units_off';
/** One row per one-time start pass that has finished (`name`), so later starts skip it without reading issues. */
export const UPGRADES = 'issue_upgrades';

export const COLLECTIONS: CollectionSpec[] = [
  {
    name: ISSUES,
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { repoId: 1, number: 1 }, unique: true },
      // Covered walks of a repository's list pages, newest first, per state and kind.
      { fields: { repoId: 1, isClosed: 1, isPull: 1, id: -1 } },
      { fields: { repoId: 1, isPull: 1, id: -1 } },
      { fields: { repoId: 1, isClosed: 1, id: -1 } },
      { fields: { repoId: 1, id: -1 } },
      { fields: { repoId: 1, updatedAt: 1 } },
      { fields: { repoId: 1, pinOrder: 1 } },
      // Cross-repository search: public rows walked newest first, owners' rows, private rows through repoId.
      { fields: { isClosed: 1, id: -1 } },
      { fields: { repoPrivate: 1, isClosed: 1, isPull: 1 } },
      { fields: { repoOwnerId: 1, isClosed: 1, id: -1 } },
      // Counts of an owner's private (or public) rows per state and kind: the search's whole-owner grants and the
      // hidden owners' public rows, as ranges (few distinct keys: small).
      { fields: { repoOwnerId: 1, repoPrivate: 1, isClosed: 1, isPull: 1 } },
      // The same counts above an id bound (`id > X` narrows the range): how a deep search page finds where it starts
      // without walking the rows above it (`pivotedPage`).
      { fields: { repoPrivate: 1, isClosed: 1, id: -1 } },
      { fields: { repoOwnerId: 1, repoPrivate: 1, isClosed: 1, id: -1 } },
      // A repository's list with one label, newest first, per state: covered walks and exact counts (`labelIds` is
      // multikey, fixed to one value by the filter, so each range holds an issue once and pages jump by rank).
      { fields: { repoId: 1, labelIds: 1, id: -1 } },
      { fields: { repoId: 1, labelIds: 1, isClosed: 1, id: -1 } },
      // Filters (array fields are multikey: looked up, walked only when fixed to one value).
      { fields: { labelIds: 1, isClosed: 1 } },
      { fields: { milestoneId: 1, isClosed: 1 } },
      { fields: { posterId: 1, isClosed: 1 } },
      { fields: { assigneeIds: 1, isClosed: 1 } },
      { fields: { mentionIds: 1, isClosed: 1 } },
    ],
    // The `q` trigrams moved out of the documents into the plugin's own index (text-index.ts).
    retiredIndexes: [{ fields: { grams: 1 } }],
  },
  {
    name: COMMENTS,
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { issueId: 1, id: 1 } },
      { fields: { repoId: 1, id: 1 } },
      { fields: { repoId: 1, updatedAt: 1 } },
      { fields: { posterId: 1 } },
    ],
  },
  {
    name: LABELS,
    indexes: [{ fields: { id: 1 }, unique: true }, { fields: { repoId: 1, id: 1 } }, { fields: { orgId: 1, id: 1 } }, { fields: { name: 1 } }],
  },
  {
    name: MILESTONES,
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { repoId: 1, id: 1 } },
      { fields: { repoId: 1, isClosed: 1, id: 1 } },
      { fields: { repoId: 1, lowerTitle: 1 } },
      { fields: { lowerTitle: 1 } },
    ],
  },
  {
    name: REACTIONS,
    indexes: [
      { fields: { issueId: 1, commentId: 1, userId: 1, content: 1 }, unique: true },
      { fields: { issueId: 1, commentId: 1, id: 1 } },
      { fields: { userId: 1 } },
      { fields: { repoId: 1 } },
    ],
  },
  {
    name: WATCHES,
    indexes: [{ fields: { issueId: 1, userId: 1 }, unique: true }, { fields: { issueId: 1, id: 1 } }, { fields: { userId: 1 } }, { fields: { repoId: 1 } }],
  },
  { name: NUMBERS, indexes: [{ fields: { repoId: 1 }, unique: true }] },
  intentCollection(INTENTS),
  { name: UNITS_OFF, indexes: [{ fields: { repoId: 1 }, unique: true }] },
  { name: UPGRADES, indexes: [{ fields: { name: 1 }, unique: true }] },
];

/** `q` candidates from which a one-repository search may walk the repository's index instead of looking them up. */
const REPO_WALK_FROM = 64;
/** The start pass that removes the trigrams earlier versions stored in each issue (`grams`, `commentGrams`). */
const STORED_GRAMS_PASS = 'drop-stored-grams';

/** A filter's repoId condition (absent, one id, or `$in`) narrowed to `ids`; null when nothing is left. */
function narrowRepoIds(current: unknown, ids: readonly number[]): number | { $in: number[] } | null {
  if (current === undefined) return { $in: [...ids] };
  if (typeof current === 'number') return ids.includes(current) ? current : null;
  const list = (current as { $in?: number[] }).$in;
  if (!Array.isArray(list)) throw new Error('countVisible: unexpected repoId condition');
  const allowed = new Set(ids);
  const both = list.filter((id) => allowed.has(id));
  return both.length ? { $in: both } : null;
}

/** Changes to a pull request's issue half that become `pull_request.changed` events (Gitea's notifier sends them as pull_request_*). */
const PULL_HALF_ACTIONS = new Set<IssueAction>([
  'edited', 'closed', 'reopened', 'assigned', 'unassigned', 'label_updated', 'label_cleared', 'milestoned', 'demilestoned',
]);

/** What a change's counters concern: recounted exactly when its intent is found at start (a crash in between). */
export interface CounterTargets {
  repoIds?: number[];
  milestoneIds?: number[];
  issueIds?: number[];
}

export interface ReactionRecord extends Doc {
  id: number;
  repoId: number;
  issueId: number;
  /** 0 for a reaction on the issue itself. */
  commentId: number;
  userId: number;
  content: string;
  createdAt: string;
}

export interface WatchRecord extends Doc {
  id: number;
  repoId: number;
  issueId: number;
  userId: number;
  /** false: the user unsubscribed (Gitea's is_watching): no notifications about the issue, repository watch or not. */
  isWatching?: boolean;
  createdAt: string;
}

/** Gitea's default allowed reactions (`[ui] REACTIONS`). */
export const REACTION_CONTENTS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];

/** The filters of an issue list or search (the contract's type). */
export type IssueQuery = IssueListQuery;
/** A query with an id bound, internal to the service: the counts and the walk of a pivoted page (`pivotedPage`). */
type BoundedQuery = IssueQuery & { idAbove?: number; idAtMost?: number };
/**
 * From this skip on, a search page is found from a pivot id instead of a walk over the rows above it. Measured on the
 * benchmark's 200,000 issues (CPU per request, walk → pivot): skip 450 434 → 469–491 µs, skip 990 561–604 → 418–439
 * µs for one state but no better for `state=all` (two states counted), skip 9,950 5,000–7,000 → 400–900 µs; the walk
 * costs ~0.1 µs a row, the pivot's rank jumps and counts 60–120 µs.
 */
const PIVOT_FROM = 2000;
/** Refinements of the pivot at most (each is a rank jump and the visibility counts above it). */
const PIVOT_ROUNDS = 4;
/** Visible rows between the pivot and the page's start that are walked rather than refined away. */
const PIVOT_WALK = 256;

/** A typed array's values as a plain array (`Array.from` walks it through its iterator: 6.2 µs for 423 ids, 0.7 so). */
function plainIds(ids: Int32Array): number[] {
  const out = new Array<number>(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = ids[i]!;
  return out;
}

/** Gitea's label color: `#rgb` or `#rrggbb`, `#` optional; stored as six lower-case hex digits. */
export function normalizeColor(color: string): string | null {
  const c = color.trim().replace(/^#/, '');
  if (/^[0-9a-fA-F]{6}$/.test(c)) return c.toLowerCase();
  if (/^[0-9a-fA-F]{3}$/.test(c)) return [...c].map((ch) => ch + ch).join('').toLowerCase();
  return null;
}

/** Gitea's exclusive scope: the name before its last `/`, when that is neither at the start nor at the end. */
export function exclusiveScope(label: Pick<LabelRecord, 'name' | 'exclusive'>): string {
  if (!label.exclusive) return '';
  const i = label.name.lastIndexOf('/');
  if (i <= 0 || i === label.name.length - 1) return '';
  return label.name.slice(0, i);
}

/** Keeps, per exclusive scope, only the last label of the list (Gitea's RemoveDuplicateExclusiveLabels). */
export function dropDuplicateScopes(labels: LabelRecord[]): LabelRecord[] {
  return labels.filter((label, i) => {
    const scope = exclusiveScope(label);
    return scope === '' || !labels.slice(i + 1).some((other) => exclusiveScope(other) === scope);
  });
}

/** The fields of a `countVisible` term that `countTerm` keeps (its key says each): state, kind, side, owners. */
const HIDDEN_TERM_FIELDS = new Set(['isClosed', 'isPull', 'repoPrivate', 'repoOwnerId']);

/** The key of a hidden-owners term without an id bound (`countTerm`): state, kind and the owners. */
const hiddenKey = (filter: Filter, owners: readonly unknown[]): string => `${filter.isClosed}|${filter.isPull}|${owners.join(',')}`;

/** `{ $gt: n }` or `{ $lte: n }` on the id as a bound `KeptCounts` counts; null for anything else. */
function idBoundOf(cond: unknown): IdBound | null {
  if (typeof cond !== 'object' || cond === null) return null;
  const keys = Object.keys(cond);
  const c = cond as { $gt?: unknown; $lte?: unknown };
  if (keys.length !== 1) return null;
  if (typeof c.$gt === 'number') return { gt: c.$gt };
  if (typeof c.$lte === 'number') return { lte: c.$lte };
  return null;
}

/** A term's state or kind as `countTerm` can key it: set to a boolean, or absent. */
const plainFlag = (v: unknown): boolean => v === undefined || typeof v === 'boolean';

const MAX_RETRIES = 50;
/** A background build of the `q` index works this long between turns of the event loop (requests wait at most that). */
const BUILD_SLICE_MS = 8;

export class Issues implements IssuesService {
  readonly allowedReactions: readonly string[] = REACTION_CONTENTS;
  readonly issues: Collection<IssueRecord>;
  readonly comments: Collection<CommentRecord>;
  readonly labels: Collection<LabelRecord>;
  readonly milestones: Collection<MilestoneRecord>;
  readonly reactions: Collection<ReactionRecord>;
  readonly watches: Collection<WatchRecord>;
  readonly numbers: Collection<{ repoId: number; last: number }>;
  readonly intents: CounterIntents<keyof CounterTargets>;
  readonly unitsOff: Collection<{ repoId: number }>;
  /**
   * What `issue_units_off` holds, in memory (read at start by `recordUnitsOff`, then changed with every write this
   * service makes to it): the issue search excludes these repositories on every request, and a store query for a
   * handful of ids cost more than the rest of its planning. A repository switched off enters before its row is
   * written, one switched on leaves after its row is gone: the set never misses a repository whose issues are off.
   */
  private readonly unitsOffIds = new Set<number>();
  readonly render: Renderer;
  /**
   * The `q` trigram index: built in the background from start (`buildTextIndex`), kept in step by every text change.
   * Until it is built, `q` searches check the text of every issue the rest of the query selects.
   */
  readonly textIndex = new IssueTextIndex();
  /** While the index is being built: issues whose title or body, and issues whose comments, changed meanwhile. */
  private textBuild: { texts: Set<number>; comments: Set<number> } | null = null;
  /** Settles once the index built at start is in use (it never rejects: a failed build is logged). */
  textIndexReady: Promise<void> = Promise.resolve();
  private stopping = false;
  /** Verified matches of recent cross-repository `q` searches (text-matches.ts). */
  readonly textMatches = new TextMatches();
  /** Counts of hidden owners' public rows, kept while no issue changes (`countTerm`). */
  private readonly hiddenCounts: KeptCounts;

  constructor(readonly ctx: PluginContext) {
    this.issues = ctx.store.collection(ISSUES);
    this.hiddenCounts = new KeptCounts(this.issues);
    this.comments = ctx.store.collection(COMMENTS);
    this.labels = ctx.store.collection(LABELS);
    this.milestones = ctx.store.collection(MILESTONES);
    this.reactions = ctx.store.collection(REACTIONS);
    this.watches = ctx.store.collection(WATCHES);
    this.numbers = ctx.store.collection(NUMBERS);
    this.intents = new CounterIntents(ctx.store, INTENTS, ['repoIds', 'milestoneIds', 'issueIds']);
    this.unitsOff = ctx.store.collection(UNITS_OFF);
    this.render = new Renderer(this, { issue: ctx.serializer({ $ref: 'forgekit/Issue' }), comment: ctx.serializer({ $ref: 'forgekit/Comment' }) }, ctx.settings.jsonCacheEntries as number);
  }

  get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  /** The orgs service when that plugin is enabled (teams: the search's team filter, assignees of org repositories). */
  get orgs(): OrgsService | null {
    return this.ctx.services.has('orgs') ? this.ctx.services.get('orgs') : null;
  }

  // ---- numbers and lookups ----

  async nextNumber(repoId: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        const row = await this.numbers.findOneAndUpdate({ repoId }, { $inc: { last: 1 } }, { upsert: true });
        return row!.last;
      } catch (err) {
        // Two first issues of a repository upserting at once on MongoDB: the loser retries and increments.
        if (!isDuplicateKeyError(err) || attempt > 3) throw err;
      }
    }
  }

  byNumber(repoId: number, number: number): Promise<IssueRecord | null> {
    return this.issues.findOne({ repoId, number });
  }

  byId(id: number): Promise<IssueRecord | null> {
    return this.issues.findOne({ id });
  }

  async milestoneById(repoId: number, id: number): Promise<MilestoneRecord | null> {
    return this.milestones.findOne({ id, repoId });
  }

  async labelsOf(issue: IssueRecord): Promise<LabelRecord[]> {
    if (issue.labelIds.length === 0) return [];
    return this.labels.find({ id: { $in: issue.labelIds } }, { sort: { id: 1 } });
  }

  /** Labels usable on the repository's issues: its own and, for an organization's repository, the organization's. */
  labelScope(repo: RepoRecord, owner: Account): Filter {
    return owner.type === 'org' ? { $or: [{ repoId: repo.id }, { orgId: owner.id }] } : { repoId: repo.id };
  }

  /** Resolves label ids or names for the repository; unknown ones → 422 naming them (Gitea: 404/422). */
  async resolveLabels(repo: RepoRecord, owner: Account, refs: Array<number | string>): Promise<LabelRecord[]> {
    if (refs.length === 0) return [];
    const usable = await this.labels.find(this.labelScope(repo, owner));
    const byId = mapById(usable);
    const out: LabelRecord[] = [];
    for (const ref of refs) {
      const label = typeof ref === 'number' ? byId.get(ref) : usable.find((l) => l.name === ref);
      if (!label) throw fail.validation('labels', `label ${JSON.stringify(ref)} does not exist in this repository`);
      if (!out.includes(label)) out.push(label);
    }
    return out;
  }

  // ---- events ----

  private async emit<K extends keyof ForgeEvents>(event: K, payload: ForgeEvents[K]): Promise<void> {
    try {
      await this.ctx.events.emit(event, payload);
    } catch (err) {
      this.ctx.log.error({ err, event }, 'an issues event listener failed');
    }
  }

  async emitIssue(c: IssueChangeContext, issue: IssueRecord, action: IssueAction, extra: Partial<ForgeEvents['issue.changed']> = {}): Promise<void> {
    const event = issue.isPull ? 'issue.pull_changed' : 'issue.changed';
    if (!this.ctx.events.has(event)) return;
    // A pull request's own lifecycle (opened, deleted) and ref-only edits are the pulls plugin's to announce.
    if (issue.isPull && !PULL_HALF_ACTIONS.has(action)) return;
    if (issue.isPull && action === 'edited' && !extra.changes?.title && !extra.changes?.body) return;
    const api = await this.toApi(issue, c.repo, c.owner, null);
    await this.emit(event, {
      action, repo: c.repo, owner: c.owner, senderId: c.caller.id, number: issue.number, issueId: issue.id, issue: api, ...extra,
    });
  }

  async emitComment(c: IssueChangeContext, issue: IssueRecord, comment: CommentRecord, action: 'created' | 'edited' | 'deleted',
    extra: Partial<ForgeEvents['issue_comment.changed']> = {}): Promise<void> {
    if (!this.ctx.events.has('issue_comment.changed')) return;
    const [apiIssue, apiComment] = await Promise.all([
      this.toApi(issue, c.repo, c.owner, null), this.commentToApi(comment, issue, c.repo, c.owner, null),
    ]);
    await this.emit('issue_comment.changed', {
      action, repo: c.repo, owner: c.owner, senderId: c.caller.id, number: issue.number, issueId: issue.id, isPull: issue.isPull,
      issue: apiIssue, comment: apiComment, ...extra,
    });
  }

  // ---- counters ----

  /** Runs `work` (a write plus the counter moves that follow it) under a counter intent (plugins/lib/counter-intents.ts). */
  withIntent<T>(targets: CounterTargets, work: () => Promise<T>): Promise<T> {
    return this.intents.around(targets, work);
  }

  /** Recounts what unfinished intents name (called at start, before any request). */
  async repair(): Promise<number> {
    let named = { repos: 0, milestones: 0, issues: 0 };
    const pending = await this.intents.replay(async ({ repoIds, milestoneIds, issueIds }) => {
      named = { repos: repoIds.size, milestones: milestoneIds.size, issues: issueIds.size };
      for (const repoId of repoIds) {
        const repo = await this.repos.byId(repoId);
        if (!repo) continue;
        const [open, all] = await Promise.all([
          this.issues.count({ repoId, isClosed: false, isPull: false }), this.issues.count({ repoId, isPull: false }),
        ]);
        const curOpen = typeof repo.numOpenIssues === 'number' ? repo.numOpenIssues : 0;
        const curAll = typeof repo.numIssues === 'number' ? repo.numIssues : 0;
        await this.repos.incrementCounters(repoId, { numOpenIssues: open - curOpen, numIssues: all - curAll });
      }
      for (const id of milestoneIds) await this.recountMilestone(id);
      for (const id of issueIds) await this.issues.updateOne({ id }, { $set: { numComments: await this.comments.count({ issueId: id }) } });
    });
    if (pending) this.ctx.log.warn({ intents: pending, ...named }, 'issues: recounted counters of unfinished changes');
    return pending;
  }

  /** Moves the repository's and the milestone's counters for one issue entering (+1) or leaving (-1) a state. */
  private async count(issue: Pick<IssueRecord, 'repoId' | 'isPull' | 'isClosed' | 'milestoneId'>, delta: number): Promise<void> {
    const work: Array<Promise<unknown>> = [];
    // One update of the repository for both of its counters.
    if (!issue.isPull) work.push(this.repos.incrementCounters(issue.repoId, issue.isClosed ? { numIssues: delta } : { numIssues: delta, numOpenIssues: delta }));
    if (issue.milestoneId) {
      work.push(this.milestones.updateOne({ id: issue.milestoneId }, { $inc: { [issue.isClosed ? 'numClosed' : 'numOpen']: delta } }));
    }
    await Promise.all(work);
  }

  // ---- mentions ----

  /** Ids of existing accounts @mentioned in the text (the poster excluded). */
  async mentionIds(text: string, posterId: number): Promise<number[]> {
    const names = mentionedNames(text);
    const ids: number[] = [];
    for (const name of names) {
      const account = await this.users.byName(name);
      if (account && account.type === 'user' && account.id !== posterId) ids.push(account.id);
    }
    return ids;
  }

  // ---- issues ----

  /** Checks assignees: each must be able to write to the repository (Gitea's CanBeAssigned) → 422 otherwise. */
  async checkAssignees(repo: RepoRecord, ids: number[]): Promise<void> {
    for (const id of ids) {
      const account = await this.users.byId(id);
      if (!account || account.type !== 'user') throw fail.validation('assignees', `user ${id} does not exist`);
      const mode = await this.repos.accessMode({ id: account.id, login: account.login, isAdmin: account.isAdmin === true, via: 'token', restricted: account.restricted === true }, repo);
      if (mode < 2) throw fail.validation('assignees', `${account.login} cannot be assigned to issues of this repository`);
    }
  }

  async create(c: IssueChangeContext, input: NewIssueInput): Promise<IssueRecord> {
    const labelIds = input.labelIds ?? [];
    if (labelIds.length) {
      const labels = dropDuplicateScopes(await this.resolveLabels(c.repo, c.owner, labelIds));
      labelIds.splice(0, labelIds.length, ...labels.map((l) => l.id));
    }
    const milestoneId = input.milestoneId ?? 0;
    if (milestoneId && !(await this.milestoneById(c.repo.id, milestoneId))) throw fail.validation('milestone', `milestone ${milestoneId} does not exist`);
    const assigneeIds = [...new Set(input.assigneeIds ?? [])];
    await this.checkAssignees(c.repo, assigneeIds);
    const body = input.body ?? '';
    const mentionIds = await this.mentionIds(body, c.caller.id);
    const now = nowRfc3339();
    const closed = input.closed === true;
    const issue: IssueRecord = {
      id: await this.ctx.store.nextId(ISSUES),
      repoId: c.repo.id,
      repoOwnerId: c.repo.ownerId,
      repoPrivate: c.repo.private,
      number: await this.nextNumber(c.repo.id),
      isPull: input.isPull === true,
      posterId: c.caller.id,
      title: input.title,
      body,
      ref: input.ref ?? '',
      isClosed: closed,
      isLocked: false,
      pinOrder: 0,
      milestoneId,
      assigneeIds,
      labelIds,
      mentionIds,
      deadline: input.deadline ?? null,
      numComments: 0,
      createdAt: now,
      updatedAt: now,
      closedAt: closed ? now : null,
    };
    const stored = await this.textMatches.around(async () => {
      const inserted = await this.withIntent({ repoIds: [issue.repoId], milestoneIds: [milestoneId] }, async () => {
        const row = await this.issues.insertOne(issue);
        await this.count(row, 1);
        return row;
      });
      await this.reindexText(inserted.id, null);
      return inserted;
    }, () => [issue.title, issue.body]);
    await this.watch(stored, c.caller.id);
    if (!stored.isPull) {
      await this.emitIssue(c, stored, 'opened', mentionIds.length ? { mentionedIds: mentionIds } : {});
      if (closed) await this.emitIssue(c, stored, 'closed');
    }
    return stored;
  }

  /**
   * One conditional write on the issue: applies `change` only while the fields the counters depend on are still as
   * `issue` says; on a race, re-reads and retries. Returns the stored issue after the change, or null when gone.
   */
  async update(issue: IssueRecord, change: (current: IssueRecord) => Partial<IssueRecord> | null):
    Promise<{ before: IssueRecord; after: IssueRecord } | null> {
    let current: IssueRecord | null = issue;
    for (let attempt = 0; attempt < MAX_RETRIES && current; attempt++) {
      const set = change(current);
      if (set === null) return { before: current, after: current };
      set.updatedAt = nowRfc3339();
      const cur = current;
      const write = async () => {
        const after = await this.issues.findOneAndUpdate(
          { id: cur.id, isClosed: cur.isClosed, milestoneId: cur.milestoneId, updatedAt: cur.updatedAt },
          { $set: set },
        );
        if (after && (after.isClosed !== cur.isClosed || after.milestoneId !== cur.milestoneId)) {
          await this.count(cur, -1);
          await this.count(after, 1);
        }
        return after;
      };
      const movesCounters = 'isClosed' in set || 'milestoneId' in set;
      const writeAndIndex = async () => {
        const after = movesCounters
          ? await this.withIntent({ repoIds: [cur.repoId], milestoneIds: [cur.milestoneId, set.milestoneId ?? 0] }, write)
          : await write();
        if (after && (after.title !== cur.title || after.body !== cur.body)) await this.reindexText(cur.id, cur);
        return after;
      };
      const after = 'title' in set || 'body' in set
        ? await this.textMatches.around(writeAndIndex, () => [cur.title, cur.body, set.title ?? '', set.body ?? ''])
        : await writeAndIndex();
      if (after) return { before: cur, after };
      current = await this.byId(current.id);
    }
    if (!current) return null;
    throw new Error(`issue ${issue.id}: too many concurrent changes`);
  }

  async setClosed(c: IssueChangeContext, issue: IssueRecord, closed: boolean): Promise<IssueRecord | null> {
    let changed = false;
    const result = await this.update(issue, (cur) => {
      changed = cur.isClosed !== closed;
      return changed ? { isClosed: closed, closedAt: closed ? nowRfc3339() : null } : null;
    });
    if (!result || !changed) return null;
    await this.emitIssue(c, result.after, closed ? 'closed' : 'reopened');
    return result.after;
  }

  async setMilestone(c: IssueChangeContext, issue: IssueRecord, milestoneId: number): Promise<IssueRecord> {
    if (milestoneId && !(await this.milestoneById(c.repo.id, milestoneId))) throw fail.validation('milestone', `milestone ${milestoneId} does not exist`);
    let changed = false;
    const result = await this.update(issue, (cur) => {
      changed = cur.milestoneId !== milestoneId;
      return changed ? { milestoneId } : null;
    });
    if (!result) throw fail.notFound();
    if (changed) await this.emitIssue(c, result.after, milestoneId ? 'milestoned' : 'demilestoned');
    return result.after;
  }

  async replaceLabels(c: IssueChangeContext, issue: IssueRecord, labelIds: Array<number | string>): Promise<IssueRecord> {
    const labels = dropDuplicateScopes(await this.resolveLabels(c.repo, c.owner, labelIds));
    return this.writeLabels(c, issue, labels.map((l) => l.id));
  }

  /** Adds labels; an added exclusive label replaces the issue's other labels of its scope. */
  async addLabels(c: IssueChangeContext, issue: IssueRecord, refs: Array<number | string>): Promise<IssueRecord> {
    const added = dropDuplicateScopes(await this.resolveLabels(c.repo, c.owner, refs));
    const current = await this.labelsOf(issue);
    const scopes = new Set(added.map(exclusiveScope).filter((s) => s !== ''));
    const kept = current.filter((l) => !added.some((a) => a.id === l.id) && !scopes.has(exclusiveScope(l)));
    return this.writeLabels(c, issue, [...kept, ...added].map((l) => l.id));
  }

  async removeLabel(c: IssueChangeContext, issue: IssueRecord, labelId: number): Promise<IssueRecord> {
    return this.writeLabels(c, issue, issue.labelIds.filter((id) => id !== labelId));
  }

  /** DELETE …/issues/{index}/labels: the only change Gitea reports as `label_cleared` (notify IssueClearLabels). */
  async clearLabels(c: IssueChangeContext, issue: IssueRecord): Promise<IssueRecord> {
    return this.writeLabels(c, issue, [], true);
  }

  /** Every other label change is `label_updated`, even one that leaves no label (Gitea's IssueChangeLabels). */
  private async writeLabels(c: IssueChangeContext, issue: IssueRecord, ids: number[], clearing = false): Promise<IssueRecord> {
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const result = await this.update(issue, (cur) => (sameIds(cur.labelIds, sorted) ? null : { labelIds: sorted }));
    if (!result) throw fail.notFound();
    if (result.before !== result.after) await this.emitIssue(c, result.after, clearing ? 'label_cleared' : 'label_updated');
    return result.after;
  }

  async setAssignees(c: IssueChangeContext, issue: IssueRecord, ids: number[]): Promise<IssueRecord> {
    const wanted = [...new Set(ids)];
    await this.checkAssignees(c.repo, wanted.filter((id) => !issue.assigneeIds.includes(id)));
    const result = await this.update(issue, (cur) => (sameIds([...cur.assigneeIds].sort(), [...wanted].sort()) ? null : { assigneeIds: wanted }));
    if (!result) throw fail.notFound();
    for (const id of result.before.assigneeIds) {
      if (!wanted.includes(id)) await this.emitIssue(c, result.after, 'unassigned', { assigneeId: id });
    }
    for (const id of wanted) {
      if (!result.before.assigneeIds.includes(id)) await this.emitIssue(c, result.after, 'assigned', { assigneeId: id });
    }
    return result.after;
  }

  /** Title, body, ref and due date; mentions of a new body are recorded. */
  async edit(c: IssueChangeContext, issue: IssueRecord, set: Partial<Pick<IssueRecord, 'title' | 'body' | 'ref' | 'deadline'>>): Promise<IssueRecord> {
    let mentioned: number[] = [];
    if (set.body !== undefined && set.body !== issue.body) mentioned = (await this.mentionIds(set.body, issue.posterId)).filter((id) => !issue.mentionIds.includes(id));
    const result = await this.update(issue, (cur) => {
      const out: Partial<IssueRecord> = {};
      for (const key of ['title', 'body', 'ref', 'deadline'] as const) {
        if (set[key] !== undefined && set[key] !== cur[key]) (out as Record<string, unknown>)[key] = set[key];
      }
      if (mentioned.length) out.mentionIds = [...new Set([...cur.mentionIds, ...mentioned])];
      return Object.keys(out).length ? out : null;
    });
    if (!result) throw fail.notFound();
    const { before, after } = result;
    if (before !== after && (before.title !== after.title || before.body !== after.body || before.ref !== after.ref)) {
      // One `edited` per changed field, in Gitea's order (EditIssue: ChangeTitle, ChangeContent, ChangeIssueRef),
      // each with its own `changes` as Gitea's notifier sends them; mentions go with the body.
      if (before.title !== after.title) await this.emitIssue(c, after, 'edited', { changes: { title: { from: before.title } } });
      if (before.body !== after.body) await this.emitIssue(c, after, 'edited', { changes: { body: { from: before.body } }, ...(mentioned.length ? { mentionedIds: mentioned } : {}) });
      if (before.ref !== after.ref) await this.emitIssue(c, after, 'edited', { changes: { ref: { from: before.ref } } });
    }
    return after;
  }

  async setPullMerged(issue: IssueRecord, mergedAt: string): Promise<IssueRecord | null> {
    return this.issues.findOneAndUpdate({ id: issue.id, isPull: true }, { $set: { pullMergedAt: mergedAt } });
  }

  async setLocked(c: IssueChangeContext, issue: IssueRecord, locked: boolean, reason = ''): Promise<void> {
    const result = await this.update(issue, (cur) => (cur.isLocked === locked ? null : { isLocked: locked, lockReason: locked ? reason : '' }));
    if (result && result.before !== result.after) await this.emitIssue(c, result.after, locked ? 'locked' : 'unlocked');
  }

  /** Pins at the end of the repository's pinned issues, or unpins (the later ones move up). */
  async setPinned(c: IssueChangeContext, issue: IssueRecord, pinned: boolean): Promise<void> {
    if (pinned) {
      if (issue.pinOrder > 0) return;
      const last = await this.issues.find({ repoId: issue.repoId, pinOrder: { $gt: 0 } }, { sort: { pinOrder: -1 }, limit: 1 });
      const order = (last[0]?.pinOrder ?? 0) + 1;
      const after = await this.issues.findOneAndUpdate({ id: issue.id, pinOrder: 0 }, { $set: { pinOrder: order } });
      if (after) await this.emitIssue(c, after, 'pinned');
    } else {
      if (issue.pinOrder === 0) return;
      const after = await this.issues.findOneAndUpdate({ id: issue.id, pinOrder: issue.pinOrder }, { $set: { pinOrder: 0 } });
      if (!after) return;
      await this.issues.updateMany({ repoId: issue.repoId, pinOrder: { $gt: issue.pinOrder } }, { $inc: { pinOrder: -1 } });
      await this.emitIssue(c, after, 'unpinned');
    }
  }

  /** Moves a pinned issue to `position` (1-based) among the pinned ones. */
  async movePin(issue: IssueRecord, position: number): Promise<void> {
    if (issue.pinOrder === 0) throw fail.validation('position', 'the issue is not pinned');
    const pinned = await this.issues.find({ repoId: issue.repoId, pinOrder: { $gt: 0 } }, { sort: { pinOrder: 1 } });
    const order = pinned.filter((i) => i.id !== issue.id);
    order.splice(Math.max(0, Math.min(position - 1, order.length)), 0, issue);
    for (let i = 0; i < order.length; i++) {
      if (order[i]!.pinOrder !== i + 1) await this.issues.updateOne({ id: order[i]!.id }, { $set: { pinOrder: i + 1 } });
    }
  }

  async deleteIssue(c: IssueChangeContext, issue: IssueRecord): Promise<void> {
    const gone = await this.withIntent({ repoIds: [issue.repoId], milestoneIds: [issue.milestoneId] }, async () => {
      const deleted = await this.issues.findOneAndDelete({ id: issue.id });
      if (deleted) await this.count(deleted, -1);
      return deleted;
    });
    if (!gone) return;
    await this.reindexText(gone.id, gone);
    if (gone.pinOrder > 0) await this.issues.updateMany({ repoId: gone.repoId, pinOrder: { $gt: gone.pinOrder } }, { $inc: { pinOrder: -1 } });
    const commentBodies = (await this.comments.find({ issueId: gone.id })).map((cm) => cm.body);
    await Promise.all([
      this.comments.deleteMany({ issueId: gone.id }).then(() => this.reindexComments(gone.id, commentBodies)),
      this.reactions.deleteMany({ issueId: gone.id }),
      this.watches.deleteMany({ issueId: gone.id }),
    ]);
    await this.emitIssue(c, gone, 'deleted');
  }

  // ---- lists ----

  /**
   * The store filter of a query's other conditions (`q` is answered by `searchPlan`); public so tests can explain() it.
   * Without `visibility`, the caller's visibility and the repositories with issues off are left out (`countVisible`
   * counts those as separate terms).
   */
  filterOf(q: BoundedQuery, visibility = true): Filter {
    const filter: Filter = {};
    const and: Filter[] = [];
    if (q.repoId !== undefined) filter.repoId = q.repoId;
    else if (q.repoIds !== undefined) filter.repoId = { $in: q.repoIds };
    if (q.repoOwnerId !== undefined) filter.repoOwnerId = q.repoOwnerId;
    if (q.ids !== undefined) filter.id = { $in: q.ids };
    else if (q.idAbove !== undefined) filter.id = { $gt: q.idAbove };
    else if (q.idAtMost !== undefined) filter.id = { $lte: q.idAtMost };
    if (visibility && q.excludeRepoIds?.length) and.push({ $or: [{ isPull: true }, { repoId: { $nin: q.excludeRepoIds } }] });
    if (q.excludePullRepoIds?.length) and.push({ $or: [{ isPull: false }, { repoId: { $nin: q.excludePullRepoIds } }] });
    if (visibility && q.visiblePrivateRepoIds !== undefined) {
      const publicRows: Filter = q.hiddenOwnerIds?.length ? { repoPrivate: false, repoOwnerId: { $nin: q.hiddenOwnerIds } } : { repoPrivate: false };
      const owners = q.visiblePrivateOwnerIds ?? [];
      const granted: Filter[] = [];
      if (q.visiblePrivateRepoIds.length || !owners.length) granted.push({ repoId: { $in: q.visiblePrivateRepoIds } });
      if (owners.length) granted.push({ repoOwnerId: owners.length === 1 ? owners[0] : { $in: owners }, repoPrivate: true });
      const branches = q.noPublicRepos ? granted : [publicRows, ...granted];
      and.push(branches.length === 1 ? branches[0]! : { $or: branches });
    }
    if (q.isClosed !== undefined) filter.isClosed = q.isClosed;
    if (q.isPull !== undefined) filter.isPull = q.isPull;
    if (q.labelGroups?.length) {
      const cond = (ids: number[]) => (ids.length === 1 ? ids[0] : { $in: ids });
      filter.labelIds = cond(q.labelGroups[0]!);
      for (const ids of q.labelGroups.slice(1)) and.push({ labelIds: cond(ids) });
    }
    if (q.milestoneIds?.length) filter.milestoneId = q.milestoneIds.length === 1 ? q.milestoneIds[0] : { $in: q.milestoneIds };
    if (q.posterId !== undefined) filter.posterId = q.posterId;
    if (q.assigneeId !== undefined) filter.assigneeIds = q.assigneeId;
    if (q.mentionId !== undefined) filter.mentionIds = q.mentionId;
    if (q.since !== undefined || q.before !== undefined) {
      filter.updatedAt = { ...(q.since !== undefined ? { $gte: q.since } : {}), ...(q.before !== undefined ? { $lte: q.before } : {}) };
    }
    if (and.length) filter.$and = and;
    return filter;
  }

  /**
   * How `list` finds a query's rows. A `q` of 3+ characters takes its candidates from the trigram index (in memory,
   * no documents read): the store looks them up by id with the other conditions — unless the query is one
   * repository's with fewer issues than candidates, whose own index is then the narrower walk and the candidates a
   * check in memory. The literal check decides either way (`candidates` says whose text or comments to check).
   */
  async searchPlan(q: IssueQuery): Promise<{ filter: Filter; candidates: TextCandidates | null; keep: ((id: number) => boolean) | null }> {
    const lower = q.q?.toLowerCase() ?? '';
    // Without trigrams, or while the index is built: every issue of the rest of the query is a candidate.
    if (lower.length < GRAM || this.textBuild) return { filter: this.filterOf(q), candidates: null, keep: null };
    const candidates = this.textIndex.candidates(lower);
    let ids: number[] = plainIds(candidates.ids);
    if (q.ids !== undefined) {
      const asked = new Set(q.ids);
      ids = ids.filter((id) => asked.has(id));
    }
    if (q.repoId !== undefined && ids.length > REPO_WALK_FROM && (await this.issues.count({ repoId: q.repoId })) < ids.length) {
      const wanted = new Set(ids);
      return { filter: this.filterOf(q), candidates, keep: (id) => wanted.has(id) };
    }
    return { filter: this.filterOf({ ...q, ids }), candidates, keep: null };
  }

  /** A page of matching issues, newest first, and the exact total. */
  async list(q: IssueQuery): Promise<{ total: number; issues: IssueRecord[] }> {
    const lower = q.q?.toLowerCase() ?? '';
    if (lower.length >= GRAM && q.repoId === undefined && !this.textBuild) return this.listMatching(q, lower);
    const { filter, candidates: indexed, keep } = await this.searchPlan(q);
    if (!lower && this.pivotable(q)) {
      const [total, issues] = await Promise.all([this.countVisible(q, filter), this.pivotedPage(q)]);
      return { total, issues };
    }
    if (!lower) {
      const options = { sort: q.sort ?? { id: -1 }, skip: q.skip, limit: q.limit };
      // Counted as the filter itself (`countVisible`'s plain case: one repository's list, say): with its page.
      if (this.countsPlain(q)) {
        const { docs: issues, total } = await this.issues.findAndCount(filter, options);
        return { total, issues };
      }
      const [total, issues] = await Promise.all([this.countVisible(q, filter), this.issues.find(filter, options)]);
      return { total, issues };
    }
    // `q` is literal text: the trigram index narrows the candidates, the literal check decides.
    const found = await this.issues.find(filter, { sort: q.sort ?? { id: -1 } });
    const candidates = keep ? found.filter((issue) => keep(issue.id)) : found;
    // Title or body first; the comments of the other candidates (those with any) are read once, together.
    const byComment = new Set<number>();
    // Only a candidate whose title and body hold every trigram can match there, and only one whose comments together
    // hold them all can match by a comment: the others' comments are never read. (A query under 3 characters has no
    // trigrams: every candidate is checked both ways.)
    const textMayMatch = (issue: IssueRecord) => indexed === null || indexed.inText(issue.id);
    const commentsMayMatch = (issue: IssueRecord) => indexed === null || indexed.inComments(issue.id);
    // Each candidate's title and body are checked once (lower-casing a body is most of a check).
    const byText = candidates.map((issue) => textMayMatch(issue) && matchesText(issue, lower));
    const rest = candidates.filter((issue, k) => !byText[k] && issue.numComments > 0 && commentsMayMatch(issue)).map((issue) => issue.id);
    if (rest.length) {
      for (const cm of await this.comments.find({ issueId: { $in: rest } }, { projection: { issueId: 1, body: 1 } })) {
        if (cm.body.toLowerCase().includes(lower)) byComment.add(cm.issueId);
      }
    }
    const matches = candidates.filter((issue, k) => byText[k] || byComment.has(issue.id));
    return { total: matches.length, issues: matches.slice(q.skip, q.skip + q.limit) };
  }

  /**
   * A `q` search across repositories: its verified matches (kept per query in `textMatches`, computed on a miss), the
   * caller's other conditions and visibility as the store filter over them. No text is checked on a repeated query.
   */
  private async listMatching(q: IssueQuery, lower: string): Promise<{ total: number; issues: IssueRecord[] }> {
    let matches = this.textMatches.get(lower);
    if (!matches) {
      const generation = this.textMatches.generation;
      matches = await this.verifiedMatches(lower);
      this.textMatches.put(lower, matches, generation);
    }
    let ids = plainIds(matches);
    if (q.ids !== undefined) {
      const asked = new Set(q.ids);
      ids = ids.filter((id) => asked.has(id));
    }
    // The page and the count at once: the store keeps only the page of the matches it checks, not all of them.
    const { docs, total } = await this.issues.findAndCount(this.filterOf({ ...q, ids }), { sort: q.sort ?? { id: -1 }, skip: q.skip, limit: q.limit });
    return { total, issues: docs };
  }

  /**
   * Every issue whose title, body or comments contain `lower` (GRAM characters or more), ascending, whoever may see
   * it. The trigram index's candidates are checked literally: title and body where they hold every trigram, the
   * comments (read once, together) of those whose comments do and whose title and body did not match.
   */
  async verifiedMatches(lower: string): Promise<Int32Array> {
    await this.textIndexReady;
    const candidates = this.textIndex.candidates(lower);
    const inText = plainIds(candidates.ids).filter((id) => candidates.inText(id));
    const matched = new Set<number>();
    if (inText.length) {
      for (const issue of await this.issues.find({ id: { $in: inText } })) if (matchesText(issue, lower)) matched.add(issue.id);
    }
    const byComment = plainIds(candidates.ids).filter((id) => !matched.has(id) && candidates.inComments(id));
    if (byComment.length) {
      for (const cm of await this.comments.find({ issueId: { $in: byComment } }, { projection: { issueId: 1, body: 1 } })) {
        if (cm.body.toLowerCase().includes(lower)) matched.add(cm.issueId);
      }
    }
    return Int32Array.from(matched).sort();
  }

  /** The skip from which search pages are pivoted: a seam for tests, which reach deep pages with a few hundred rows. */
  pivotFrom = PIVOT_FROM;
  /** Pages served from a pivot so far (tests check that their pages took that way). */
  pivotedPages = 0;

  /** A deep page of a search with nothing but the caller's visibility and a state (`pivotedPage`). */
  private pivotable(q: IssueQuery): boolean {
    return (
      q.skip >= this.pivotFrom && q.visiblePrivateRepoIds !== undefined && !q.noPublicRepos && q.sort === undefined &&
      q.repoId === undefined && q.repoIds === undefined && q.repoOwnerId === undefined && q.ids === undefined &&
      q.isPull === undefined && !q.labelGroups?.length && !q.milestoneIds?.length && q.posterId === undefined &&
      q.assigneeId === undefined && q.mentionId === undefined && q.since === undefined && q.before === undefined &&
      !q.excludePullRepoIds?.length
    );
  }

  /**
   * A deep page of a search with nothing but the caller's visibility and a state: the rows above it are not walked.
   * Visible rows are a union of index ranges (public rows, granted repositories, whole owners, less hidden owners and
   * repositories with issues off) that no single walk holds in order, so the page's start is found by its id: the row
   * at rank k of all rows (a rank jump over `{isClosed, id}` or `{id}`) is a pivot, and the signed range counts of
   * `countVisible` above it say how many visible rows precede it (c ≤ skip, since visible rows are some of all rows).
   * Moving the pivot down by the shortfall (k += skip - c) keeps c ≤ skip and closes in on the page's start; what is
   * left (skip - c rows, a few in practice) is walked from the pivot down with the visibility check.
   */
  private async pivotedPage(q: IssueQuery): Promise<IssueRecord[]> {
    const all: Filter = q.isClosed === undefined ? {} : { isClosed: q.isClosed };
    // Counted per state: each state's terms are exact ranges (`{repoPrivate, isClosed, id}` and the like).
    const states = q.isClosed === undefined ? [false, true] : [q.isClosed];
    const visibleAbove = async (id: number): Promise<number> => {
      const counts = await Promise.all(states.map((isClosed) => {
        const bounded: BoundedQuery = { ...q, isClosed, idAbove: id };
        return this.countVisible(bounded);
      }));
      return counts.reduce((a, b) => a + b, 0);
    };
    let rank = q.skip;
    let atMost: number | null = null;
    let behind = 0;
    for (let round = 0; round < PIVOT_ROUNDS; round++) {
      const [row] = await this.issues.find(all, { sort: { id: -1 }, skip: rank, limit: 1, projection: { id: 1 } });
      // Fewer rows than the rank: the page starts below the previous pivot (or there is no such page).
      if (!row) break;
      atMost = row.id;
      behind = q.skip - (await visibleAbove(row.id));
      if (behind <= PIVOT_WALK) break;
      rank += behind;
    }
    if (atMost === null) return this.issues.find(this.filterOf(q), { sort: { id: -1 }, skip: q.skip, limit: q.limit });
    this.pivotedPages++;
    return this.issues.find(this.filterOf({ ...q, idAtMost: atMost }), { sort: { id: -1 }, skip: behind, limit: q.limit });
  }

  /** Whether a query's count is its filter's (no visibility terms, no repositories excluded): `countVisible`'s plain case. */
  private countsPlain(q: IssueQuery): boolean {
    return q.visiblePrivateRepoIds === undefined && (q.excludeRepoIds === undefined || q.excludeRepoIds.length === 0);
  }

  /**
   * The exact count of a query, as a sum of signed counts that the store answers from index ranges. Conditions that
   * exclude rows (`$nin` of hidden owners, issues of repositories with issues off) would make it check every row of
   * a large range, so they are subtracted instead: the excluded rows are found through their own index.
   * - visibility: public rows + the caller's granted repositories' rows (disjoint), minus hidden owners' public rows;
   * - issues off: minus, for each of those terms, its non-pull rows in those repositories.
   */
  private async countVisible(q: IssueQuery, filter?: Filter): Promise<number> {
    const excluded = q.excludeRepoIds ?? [];
    if (this.countsPlain(q)) return this.issues.count(filter ?? this.filterOf(q));
    // Each term is a fresh filter of the query's other conditions with its own fields set on it. Built from object
    // spreads, the terms cost more to make and to match to a store query shape than the counts themselves (measured
    // on the benchmark's 200,000 issues, a member's count: 8.1 µs with spreads, 2.6–3.2 µs so).
    const rest = (): Filter => this.filterOf(q, false);
    const restOwner = q.repoOwnerId;
    const terms: Array<{ filter: Filter; sign: 1 | -1 }> = [];
    if (q.visiblePrivateRepoIds === undefined) {
      terms.push({ filter: rest(), sign: 1 });
    } else {
      const scope = q.repoIds ? new Set(q.repoIds) : null;
      const privateIds = scope ? q.visiblePrivateRepoIds.filter((id) => scope.has(id)) : q.visiblePrivateRepoIds;
      // The granted part is disjoint from the public one: private repositories, or public ones of hidden owners (or,
      // for a restricted caller, everything: then there is no public part).
      if (!q.noPublicRepos) {
        const publicRows = rest();
        publicRows.repoPrivate = false;
        terms.push({ filter: publicRows, sign: 1 });
        const hidden = q.hiddenOwnerIds ?? [];
        const hiddenOwner = restOwner !== undefined ? (hidden.includes(restOwner) ? restOwner : null)
          : hidden.length ? { $in: hidden } : null;
        if (hiddenOwner !== null) {
          const hiddenRows = rest();
          hiddenRows.repoPrivate = false;
          hiddenRows.repoOwnerId = hiddenOwner;
          terms.push({ filter: hiddenRows, sign: -1 });
        }
      }
      // One prefix range per granted repository over `{repoId, isClosed, isPull, id}`: an exact count, no row read.
      if (privateIds.length) {
        const granted = rest();
        granted.repoId = { $in: privateIds };
        terms.push({ filter: granted, sign: 1 });
      }
      // Owners whose private repositories are all granted: one range per owner over `{repoOwnerId, repoPrivate, …}`
      // (disjoint from the ids above, which leave those repositories out).
      const owners = q.visiblePrivateOwnerIds ?? [];
      const ownerCond = restOwner !== undefined ? (owners.includes(restOwner) ? restOwner : null)
        : owners.length ? (owners.length === 1 ? owners[0]! : { $in: owners }) : null;
      if (ownerCond !== null) {
        const ownerRows = rest();
        ownerRows.repoOwnerId = ownerCond;
        ownerRows.repoPrivate = true;
        terms.push({ filter: ownerRows, sign: 1 });
      }
    }
    if (excluded.length && q.isPull !== true) {
      for (const term of [...terms]) {
        const repoId = narrowRepoIds(term.filter.repoId, excluded);
        if (repoId !== null) terms.push({ filter: { ...term.filter, repoId, isPull: false }, sign: term.sign === 1 ? -1 : 1 });
      }
    }
    const counts = await Promise.all(terms.map((term) => this.countTerm(term.filter)));
    return terms.reduce((sum, term, k) => sum + term.sign * counts[k]!, 0);
  }

  /**
   * One term of `countVisible`. The hidden owners' public rows by state (the subtraction of every caller but a site
   * admin: a range per owner), with or without a deep page's id bound, are kept while no issue changes; every other
   * term is a range or a few, counted each time.
   */
  private countTerm(filter: Filter): Promise<number> {
    const owners = filter.repoOwnerId as { $in?: unknown } | undefined;
    if (filter.repoPrivate !== false || typeof owners !== 'object' || !Array.isArray(owners.$in)) return this.issues.count(filter);
    for (const key in filter) if (!HIDDEN_TERM_FIELDS.has(key) && key !== 'id') return this.issues.count(filter);
    if (!plainFlag(filter.isClosed) || !plainFlag(filter.isPull)) return this.issues.count(filter);
    if (filter.id === undefined) return this.hiddenCounts.count(hiddenKey(filter, owners.$in), filter);
    // A deep page's bound (`pivotedPage`: `id > pivot`, or the page's own `id <= last`).
    const bound = idBoundOf(filter.id);
    if (bound === null) return this.issues.count(filter);
    const { id: _bound, ...unbounded } = filter;
    return this.hiddenCounts.countBounded(hiddenKey(unbounded, owners.$in), unbounded, bound);
  }

  // ---- comments ----

  async addComment(c: IssueChangeContext, issue: IssueRecord, body: string): Promise<CommentRecord> {
    const now = nowRfc3339();
    const mentioned = (await this.mentionIds(body, c.caller.id)).filter((id) => !issue.mentionIds.includes(id));
    const id = await this.ctx.store.nextId(COMMENTS);
    const { comment, after } = await this.textMatches.around(async () => {
      const added = await this.withIntent({ issueIds: [issue.id] }, async () => {
        const inserted = await this.comments.insertOne({ id, issueId: issue.id, repoId: issue.repoId, posterId: c.caller.id, body, createdAt: now, updatedAt: now });
        return { comment: inserted, after: await this.issues.findOneAndUpdate({ id: issue.id }, { $inc: { numComments: 1 }, $set: { updatedAt: now } }) };
      });
      await this.indexComment(issue.id, body);
      return added;
    }, () => [body]);
    for (const id of mentioned) await this.issues.updateOne({ id: issue.id }, { $addToSet: { mentionIds: id } });
    await this.watch(issue, c.caller.id);
    if (!after) {
      // The issue went meanwhile: its comments go with it.
      await this.comments.deleteOne({ id: comment.id });
      throw fail.notFound();
    }
    await this.emitComment(c, after, comment, 'created', mentioned.length ? { mentionedIds: mentioned } : {});
    return comment;
  }

  async editComment(c: IssueChangeContext, issue: IssueRecord, comment: CommentRecord, body: string): Promise<CommentRecord> {
    if (body === comment.body) return comment;
    const after = await this.textMatches.around(async () => {
      const edited = await this.comments.findOneAndUpdate({ id: comment.id }, { $set: { body, updatedAt: nowRfc3339() } });
      if (edited) {
        await this.indexComment(issue.id, body);
        await this.reindexComments(issue.id, [comment.body]);
      }
      return edited;
    }, () => [comment.body, body]);
    if (!after) throw fail.notFound();
    const mentioned = (await this.mentionIds(body, comment.posterId)).filter((id) => !issue.mentionIds.includes(id));
    for (const id of mentioned) await this.issues.updateOne({ id: issue.id }, { $addToSet: { mentionIds: id } });
    await this.emitComment(c, issue, after, 'edited', { changes: { body: { from: comment.body } }, ...(mentioned.length ? { mentionedIds: mentioned } : {}) });
    return after;
  }

  // ---- the `q` index (text-index.ts) ----

  /**
   * Per issue, the index updates in flight, run one after another. Each reconciles with the store as it is when it
   * runs (not as the request saw it), so updates that finish out of order still leave the index exact.
   */
  private readonly textQueue = new Map<number, Promise<void>>();

  private inTextOrder(issueId: number, task: () => void | Promise<void>): Promise<void> {
    const run = (this.textQueue.get(issueId) ?? Promise.resolve()).then(task);
    const settled = run.catch(() => undefined);
    this.textQueue.set(issueId, settled);
    void settled.then(() => {
      if (this.textQueue.get(issueId) === settled) this.textQueue.delete(issueId);
    });
    return run;
  }

  /** After a change of an issue's title or body (`before`: the text it may be indexed under; null for a new issue). */
  private reindexText(id: number, before: { title: string; body: string } | null): Promise<void> {
    if (this.noted('texts', [id])) return Promise.resolve();
    return this.inTextOrder(id, async () => {
      const now = await this.issues.findOne({ id });
      const keys = now ? gramKeys(now.title.toLowerCase(), now.body.toLowerCase()) : new Set<number>();
      if (before) this.textIndex.text.remove(id, [...gramKeys(before.title.toLowerCase(), before.body.toLowerCase())].filter((k) => !keys.has(k)));
      this.textIndex.text.add(id, keys);
    });
  }

  /** A new comment's trigrams join its issue's (adding never hides a match, so no store read is needed). */
  private indexComment(issueId: number, body: string): Promise<void> {
    if (this.noted('comments', [issueId])) return Promise.resolve();
    return this.inTextOrder(issueId, () => this.textIndex.comments.add(issueId, gramKeys(body.toLowerCase())));
  }

  /** After comments of an issue changed or went (`before`: their old bodies): its trigrams are its comments' now. */
  private reindexComments(issueId: number, before: string[]): Promise<void> {
    if (this.noted('comments', [issueId])) return Promise.resolve();
    return this.inTextOrder(issueId, async () => {
      const bodies = await this.comments.find({ issueId });
      const keys = gramKeys(...bodies.map((cm) => cm.body.toLowerCase()));
      this.textIndex.comments.remove(issueId, [...gramKeys(...before.map((b) => b.toLowerCase()))].filter((k) => !keys.has(k)));
      this.textIndex.comments.add(issueId, keys);
    });
  }

  /** While the index is not in use, a change of texts is only noted (a build catches up with it): true then. */
  private noted(part: 'texts' | 'comments', issueIds: Iterable<number>): boolean {
    if (!this.textBuild) return false;
    for (const id of issueIds) this.textBuild[part].add(id);
    return true;
  }

  /** Start: builds the `q` index in the background (`textIndexReady` settles when it is in use). */
  startTextIndex(): void {
    this.textIndexReady = this.buildTextIndex(yieldAfter(BUILD_SLICE_MS)).catch((err: unknown) => {
      if (!this.stopping) this.ctx.log.error({ err }, 'issues: the q trigram index could not be built; q searches check every text');
    });
  }

  /** Stop: a build under way ends at its next pause. */
  stopTextIndex(): void {
    this.stopping = true;
  }

  /**
   * The index from every issue's title and body and every comment, in id order, `pause`d between steps so requests
   * are answered meanwhile (they check texts themselves until it is done). Changes made meanwhile are only noted
   * (`textBuild`); once the snapshot's postings are in place, the noted issues are indexed as the store holds them
   * now, again until no change is left, and the index is used from then on. Reads whole documents: the embedded
   * store hands out its stored versions as they are, while a projection would make (and keep) a copy of each.
   */
  async buildTextIndex(pause: Pause = noPause): Promise<void> {
    const started = performance.now();
    const build = { texts: new Set<number>(), comments: new Set<number>() };
    this.textBuild = build;
    const step = async () => {
      await pause();
      if (this.stopping) throw new Error('stopped while building the q trigram index');
    };
    // A build that fails (or is stopped) leaves `textBuild` set: `q` searches keep checking texts themselves rather
    // than trust a half-built index.
    const issues = await this.issues.find({}, { sort: { id: 1 } });
    const text = await buildGramPostings({
      rows: issues.length,
      id: (k) => issues[k]!.id,
      texts: (k) => [issues[k]!.title.toLowerCase(), issues[k]!.body.toLowerCase()],
    }, step);
    await step();
    await this.textIndex.text.replaceWith(text, step);
    const all = await this.comments.find({}, { sort: { issueId: 1, id: 1 } });
    const comments = await buildGramPostings({ rows: all.length, id: (k) => all[k]!.issueId, texts: (k) => [all[k]!.body.toLowerCase()] }, step);
    await step();
    await this.textIndex.comments.replaceWith(comments, step);
    await this.catchUpTextIndex(build, issues, all, step);
    const { pairs: textPairs, bytes: textBytes } = this.textIndex.text.stats();
    const { pairs: commentPairs, bytes: commentBytes } = this.textIndex.comments.stats();
    this.ctx.log.info({ ms: Math.round(performance.now() - started), textPairs, commentPairs, mib: Math.round((textBytes + commentBytes) / 1048576) },
      'issues: q trigram index built');
  }

  /**
   * The issues changed while the index was built from `issues` and `comments` (snapshots, ascending): each gets the
   * keys of its texts as the store holds them now, in place of those it was indexed under; repeated until a pass ends
   * with no change noted meanwhile, which (synchronously) puts the index in use.
   */
  private async catchUpTextIndex(build: { texts: Set<number>; comments: Set<number> }, issues: readonly IssueRecord[],
    comments: readonly CommentRecord[], step: Pause): Promise<void> {
    const indexedText = new Map<number, Set<number>>();
    const indexedComments = new Map<number, Set<number>>();
    const snapshotText = (id: number): Set<number> => {
      const issue = issues[lowerBound(issues.length, (k) => issues[k]!.id < id)];
      return issue?.id === id ? gramKeys(issue.title.toLowerCase(), issue.body.toLowerCase()) : new Set();
    };
    const snapshotComments = (issueId: number): Set<number> => {
      const bodies: string[] = [];
      for (let k = lowerBound(comments.length, (i) => comments[i]!.issueId < issueId); comments[k]?.issueId === issueId; k++) {
        bodies.push(comments[k]!.body.toLowerCase());
      }
      return gramKeys(...bodies);
    };
    const replace = (postings: GramPostings, id: number, before: Set<number>, now: Set<number>) => {
      postings.remove(id, [...before].filter((key) => !now.has(key)));
      postings.add(id, now);
    };
    while (build.texts.size > 0 || build.comments.size > 0) {
      const texts = [...build.texts];
      const commented = [...build.comments];
      build.texts.clear();
      build.comments.clear();
      const current = new Map<number, Set<number>>();
      for (const issue of await this.issues.find({ id: { $in: texts } })) current.set(issue.id, gramKeys(issue.title.toLowerCase(), issue.body.toLowerCase()));
      for (const id of texts) {
        const now = current.get(id) ?? new Set<number>();
        replace(this.textIndex.text, id, indexedText.get(id) ?? snapshotText(id), now);
        indexedText.set(id, now);
      }
      const bodies = new Map<number, string[]>();
      for (const cm of await this.comments.find({ issueId: { $in: commented } }, { projection: { issueId: 1, body: 1 } })) {
        const list = bodies.get(cm.issueId);
        if (list) list.push(cm.body.toLowerCase());
        else bodies.set(cm.issueId, [cm.body.toLowerCase()]);
      }
      for (const id of commented) {
        const now = gramKeys(...(bodies.get(id) ?? []));
        replace(this.textIndex.comments, id, indexedComments.get(id) ?? snapshotComments(id), now);
        indexedComments.set(id, now);
      }
      await step();
    }
    this.textBuild = null;
  }

  /**
   * Start: issues stored by earlier versions carry their trigrams (`grams`, `commentGrams`, ~100 strings each): they
   * are removed once (the store index over them is retired in COLLECTIONS), then a marker row makes later starts skip
   * the pass. A crash mid-pass leaves no marker and the next start does it again (the update is idempotent).
   */
  async dropStoredGrams(): Promise<number> {
    const upgrades = this.ctx.store.collection<{ name: string; doneAt: string }>(UPGRADES);
    if (await upgrades.findOne({ name: STORED_GRAMS_PASS })) return 0;
    const { modified } = await this.issues.updateMany(
      { $or: [{ grams: { $exists: true } }, { commentGrams: { $exists: true } }] },
      { $unset: { grams: true, commentGrams: true } },
    );
    await upgrades.updateOne({ name: STORED_GRAMS_PASS }, { $set: { name: STORED_GRAMS_PASS, doneAt: nowRfc3339() } }, { upsert: true });
    return modified;
  }

  async deleteComment(c: IssueChangeContext, issue: IssueRecord, comment: CommentRecord): Promise<void> {
    let goneBody = comment.body;
    const result = await this.textMatches.around(async () => {
      const removed = await this.withIntent({ issueIds: [issue.id] }, async () => {
        const deleted = await this.comments.findOneAndDelete({ id: comment.id });
        return deleted ? { gone: deleted, after: await this.issues.findOneAndUpdate({ id: issue.id }, { $inc: { numComments: -1 } }) } : null;
      });
      if (removed) {
        goneBody = removed.gone.body;
        await this.reindexComments(issue.id, [removed.gone.body]);
      }
      return removed;
    }, () => [comment.body, goneBody]);
    if (!result) return;
    const { gone, after } = result;
    await this.reactions.deleteMany({ issueId: issue.id, commentId: gone.id });
    await this.emitComment(c, after ?? issue, gone, 'deleted');
  }

  // ---- subscriptions ----

  /**
   * Subscribes the user; true when that changed anything. `explicit` (the subscription routes) overrides an earlier
   * unsubscribe; the automatic subscription of posters and commenters does not (Gitea keeps an is_watching=false row).
   */
  async watch(issue: IssueRecord, userId: number, explicit = false): Promise<boolean> {
    const row = await this.watches.findOne({ issueId: issue.id, userId });
    if (row) {
      if (row.isWatching !== false || !explicit) return false;
      return (await this.watches.updateOne({ id: row.id, isWatching: false }, { $set: { isWatching: true } })).modified > 0;
    }
    try {
      await this.watches.insertOne({ id: await this.ctx.store.nextId(WATCHES), repoId: issue.repoId, issueId: issue.id, userId, isWatching: true, createdAt: nowRfc3339() });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  /**
   * Unsubscribes the user (Gitea's CreateOrUpdateIssueWatch(false)): the row stays as is_watching=false, so watching
   * the repository no longer brings this issue's notifications. True when the user was subscribed (by the issue or
   * by watching the repository).
   */
  async unwatch(issue: IssueRecord, userId: number): Promise<boolean> {
    const row = await this.watches.findOne({ issueId: issue.id, userId });
    if (row) {
      if (row.isWatching === false) return false;
      return (await this.watches.updateOne({ id: row.id }, { $set: { isWatching: false } })).modified > 0;
    }
    const byRepo = await this.watchesRepo(userId, issue.repoId);
    try {
      await this.watches.insertOne({ id: await this.ctx.store.nextId(WATCHES), repoId: issue.repoId, issueId: issue.id, userId, isWatching: false, createdAt: nowRfc3339() });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return this.unwatch(issue, userId);
    }
    return byRepo;
  }

  /** Whether the user watches the repository (the watch plugin, when enabled). */
  watchesRepo(userId: number, repoId: number): Promise<boolean> {
    return this.ctx.services.has('watch') ? this.ctx.services.get('watch').isWatching(userId, repoId) : Promise.resolve(false);
  }

  /** Gitea's CheckIssueWatch: the user's own row decides; without one, watching the repository subscribes. */
  async isSubscribed(issue: IssueRecord, userId: number): Promise<{ subscribed: boolean; row: WatchRecord | null }> {
    const row = await this.watches.findOne({ issueId: issue.id, userId });
    return { subscribed: row ? row.isWatching !== false : await this.watchesRepo(userId, issue.repoId), row };
  }

  /** Attachments of issues and comments (IssuesService.setAssetSource); none until a plugin registers. */
  assetSource: IssueAssetSource | null = null;

  setAssetSource(source: IssueAssetSource): void {
    this.assetSource = source;
  }

  commentById(id: number): Promise<CommentRecord | null> {
    return this.comments.findOne({ id });
  }

  async subscriberIds(issueId: number): Promise<number[]> {
    return (await this.watches.find({ issueId, isWatching: { $ne: false } }, { projection: { userId: 1 } })).map((r) => r.userId);
  }

  async unsubscribedIds(issueId: number): Promise<number[]> {
    return (await this.watches.find({ issueId, isWatching: false }, { projection: { userId: 1 } })).map((r) => r.userId);
  }

  // ---- reactions ----

  async react(issue: IssueRecord, commentId: number, userId: number, content: string): Promise<{ row: ReactionRecord; created: boolean }> {
    const existing = await this.reactions.findOne({ issueId: issue.id, commentId, userId, content });
    if (existing) return { row: existing, created: false };
    const row: ReactionRecord = {
      id: await this.ctx.store.nextId(REACTIONS), repoId: issue.repoId, issueId: issue.id, commentId, userId, content, createdAt: nowRfc3339(),
    };
    try {
      return { row: await this.reactions.insertOne(row), created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const raced = await this.reactions.findOne({ issueId: issue.id, commentId, userId, content });
      return { row: raced ?? row, created: false };
    }
  }

  async unreact(issue: IssueRecord, commentId: number, userId: number, content: string): Promise<void> {
    await this.reactions.deleteOne({ issueId: issue.id, commentId, userId, content });
  }

  // ---- milestones ----

  /** Closed/open counts of a milestone recounted from the issues (the index counts them exactly). */
  async recountMilestone(id: number): Promise<void> {
    const [numOpen, numClosed] = await Promise.all([
      this.issues.count({ milestoneId: id, isClosed: false }), this.issues.count({ milestoneId: id, isClosed: true }),
    ]);
    await this.milestones.updateOne({ id }, { $set: { numOpen, numClosed } });
  }

  /** Deleting a milestone takes it off its issues (Gitea), moving nothing else. */
  async deleteMilestone(milestone: MilestoneRecord): Promise<void> {
    await this.milestones.deleteOne({ id: milestone.id });
    await this.issues.updateMany({ milestoneId: milestone.id }, { $set: { milestoneId: 0 } });
  }

  async deleteLabel(label: LabelRecord): Promise<void> {
    await this.labels.deleteOne({ id: label.id });
    await this.issues.updateMany({ labelIds: label.id }, { $pull: { labelIds: label.id } });
  }

  // ---- API objects ----

  toApi(issue: IssueRecord, repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Record<string, unknown>> {
    return this.render.issues([issue], new Map([[repo.id, { repo, owner }]]), viewer).then((list) => list[0]!);
  }

  toApiList(issues: IssueRecord[], repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Array<Record<string, unknown>>> {
    return this.render.issues(issues, new Map([[repo.id, { repo, owner }]]), viewer);
  }

  keptJson(issues: IssueRecord[], repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Buffer[]> {
    return this.render.issuePieces(issues, new Map([[repo.id, { repo, owner }]]), viewer);
  }

  commentToApi(comment: CommentRecord, issue: IssueRecord, repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Record<string, unknown>> {
    return this.render.comments([comment], issue, repo, owner, viewer).then((list) => list[0]!);
  }

  // ---- lifecycle ----

  /** Repositories whose issues are switched off (`has_issues: false`); their pull requests stay. */
  issuesOffRepoIds(): number[] {
    return [...this.unitsOffIds];
  }

  /**
   * Once per store (marker `repoId: 0`): records the repositories switched off before `issue_units_off` existed,
   * among those that ever had an issue number. Then reads what the collection holds into memory (`unitsOffIds`).
   */
  async recordUnitsOff(): Promise<number> {
    const found = await this.recordUnitsOffOnce();
    for (const row of await this.unitsOff.find({ repoId: { $gt: 0 } })) this.unitsOffIds.add(row.repoId);
    return found;
  }

  private async recordUnitsOffOnce(): Promise<number> {
    if (await this.unitsOff.findOne({ repoId: 0 })) return 0;
    const ids = (await this.numbers.find({}, { projection: { repoId: 1 } })).map((d) => d.repoId);
    let found = 0;
    for (let i = 0; i < ids.length; i += 500) {
      for (const repo of (await this.repos.byIds(ids.slice(i, i + 500))).values()) {
        if (repo.hasIssues !== false && repo.has_issues !== false) continue;
        await this.unitsOff.updateOne({ repoId: repo.id }, { $set: { repoId: repo.id } }, { upsert: true });
        found++;
      }
    }
    await this.unitsOff.updateOne({ repoId: 0 }, { $set: { repoId: 0 } }, { upsert: true });
    return found;
  }

  async onRepoUpdated(repo: RepoRecord, before?: RepoRecord): Promise<void> {
    if (repo.hasIssues === false || repo.has_issues === false) {
      this.unitsOffIds.add(repo.id);
      await this.unitsOff.updateOne({ repoId: repo.id }, { $set: { repoId: repo.id } }, { upsert: true });
    } else if (before?.hasIssues === false || before?.has_issues === false || !before) {
      await this.unitsOff.deleteMany({ repoId: repo.id });
      this.unitsOffIds.delete(repo.id);
    }
    if (before && before.private === repo.private && before.ownerId === repo.ownerId) return;
    await this.issues.updateMany({ repoId: repo.id }, { $set: { repoPrivate: repo.private, repoOwnerId: repo.ownerId } });
  }

  async onRepoDeleted(repo: RepoRecord): Promise<void> {
    // The texts the `q` index holds for this repository's issues, read before they go: removed in one batch after.
    const [texts, commentTexts] = await Promise.all([
      this.issues.find({ repoId: repo.id }),
      this.comments.find({ repoId: repo.id }),
    ]);
    await Promise.all([
      this.issues.deleteMany({ repoId: repo.id }),
      this.comments.deleteMany({ repoId: repo.id }),
      this.labels.deleteMany({ repoId: repo.id }),
      this.milestones.deleteMany({ repoId: repo.id }),
      this.reactions.deleteMany({ repoId: repo.id }),
      this.watches.deleteMany({ repoId: repo.id }),
      this.numbers.deleteMany({ repoId: repo.id }),
      this.unitsOff.deleteMany({ repoId: repo.id }).then(() => this.unitsOffIds.delete(repo.id)),
    ]);
    if (this.noted('texts', texts.map((i) => i.id)) && this.noted('comments', commentTexts.map((cm) => cm.issueId))) return;
    this.textIndex.text.removeBatch(keysToIds(texts.map((i) => ({ id: i.id, texts: [i.title, i.body] }))));
    this.textIndex.comments.removeBatch(keysToIds(commentTexts.map((cm) => ({ id: cm.issueId, texts: [cm.body] }))));
  }

  /** Issues and comments stay (shown as Gitea's ghost user); the account's reactions, watches and org labels go. */
  async onAccountDeleted(account: Account): Promise<void> {
    await Promise.all([this.reactions.deleteMany({ userId: account.id }), this.watches.deleteMany({ userId: account.id })]);
    if (account.type === 'org') {
      const labels = await this.labels.find({ orgId: account.id });
      for (const label of labels) await this.deleteLabel(label);
    }
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
