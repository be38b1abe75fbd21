// The pulls service: stored pull requests (the issue half lives in the issues plugin), their git state in the base
// repository, merges in every style, head updates on push, reviews and review requests, and their events.
import { fail } from '../../core/errors.js';
import type { Caller, ForgeEvents, PluginContext } from '../../core/plugin.js';
import type { Collection, IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { IssueEvent, PullRequestAction, PushEvent } from '../../schemas/events.js';
import { ACCESS, type Account, type RepoRecord, type ReposService, type UsersService } from '../../schemas/services.js';
import type { IssueChangeContext, IssueRecord, IssuesService } from '../../schemas/contracts/issues.js';
import type { GitService } from '../../schemas/contracts/git.js';
import { ZERO_SHA } from '../../schemas/contracts/git.js';
import type { BranchProtectionRule, ContentsService } from '../../schemas/contracts/contents.js';
import type { StatusesService } from '../../schemas/contracts/statuses.js';
import { GitOps, GitOpError, type Identity } from './git-ops.js';
import { CheckQueue } from './check-queue.js';
import { isWorkInProgress, PullRenderer } from './convert.js';

export const PULLS = 'pull_requests';
export const REVIEWS = 'pull_reviews';
export const REVIEW_COMMENTS = 'pull_review_comments';

export type PullStatus = 'checking' | 'mergeable' | 'conflict' | 'empty' | 'error';
export type MergeStyle = 'merge' | 'rebase' | 'rebase-merge' | 'squash' | 'fast-forward-only' | 'manually-merged';
export type ReviewState = 'PENDING' | 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT' | 'REQUEST_REVIEW';

export interface PullRecord {
  [key: string]: unknown;
  id: number;
  issueId: number;
  /** The base repository (where the pull request lives). */
  repoId: number;
  number: number;
  headRepoId: number;
  headBranch: string;
  baseBranch: string;
  /** The head commit last seen (also `refs/pull/N/head` of the base repository). */
  headSha: string;
  /** The base commit the mergeability was computed against. */
  baseSha: string;
  mergeBase: string;
  status: PullStatus;
  /**
   * Bumped each time a background check is queued (status `checking`): a check writes its answer only when no newer
   * one was queued while it ran (Gitea's checkAndUpdateStatus asks its queue the same). Absent on older rows.
   */
  checkGen?: number;
  /** Who moved the base last (queued checks): the merger a check names when it finds the head in the base. */
  checkPusherId?: number;
  conflictedFiles: string[];
  additions: number;
  deletions: number;
  changedFiles: number;
  hasMerged: boolean;
  mergedAt: string | null;
  mergedById: number;
  mergeCommitSha: string | null;
  mergeStyle: MergeStyle | null;
  allowMaintainerEdit: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ReviewRecord {
  [key: string]: unknown;
  id: number;
  pullId: number;
  repoId: number;
  /** The reviewer; 0 for a team review request. */
  reviewerId: number;
  /** A team review request's team; 0 otherwise. */
  teamId: number;
  state: ReviewState;
  body: string;
  commitId: string;
  official: boolean;
  dismissed: boolean;
  stale: boolean;
  submittedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ReviewCommentRecord {
  [key: string]: unknown;
  id: number;
  reviewId: number;
  pullId: number;
  repoId: number;
  posterId: number;
  path: string;
  body: string;
  /** Line in the old file (0: none). */
  oldPosition: number;
  /** Line in the new file (0: none). */
  newPosition: number;
  commitId: string;
  originalCommitId: string;
  diffHunk: string;
  createdAt: string;
  updatedAt: string;
}

export const COLLECTIONS: Array<{ name: string; indexes: IndexSpec[] }> = [
  {
    name: PULLS,
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { repoId: 1, number: 1 }, unique: true },
      { fields: { issueId: 1 }, unique: true },
      { fields: { headRepoId: 1, headBranch: 1 } },
      { fields: { repoId: 1, baseBranch: 1 } },
      // The start scan of queued checks (`checking`).
      { fields: { status: 1, id: 1 } },
    ],
  },
  {
    name: REVIEWS,
    indexes: [{ fields: { id: 1 }, unique: true }, { fields: { pullId: 1, id: 1 } }, { fields: { repoId: 1 } }, { fields: { reviewerId: 1 } }],
  },
  {
    name: REVIEW_COMMENTS,
    indexes: [{ fields: { id: 1 }, unique: true }, { fields: { reviewId: 1, id: 1 } }, { fields: { pullId: 1 } }, { fields: { repoId: 1 } }],
  },
];

/** The repository setting (stored key) that allows a merge style; absent means allowed (Gitea's defaults). */
const STYLE_FLAG: Record<Exclude<MergeStyle, 'manually-merged'>, string> = {
  merge: 'allowMergeCommits',
  rebase: 'allowRebase',
  'rebase-merge': 'allowRebaseExplicit',
  squash: 'allowSquashMerge',
  'fast-forward-only': 'allowFastForwardOnlyMerge',
};

export function styleAllowed(repo: RepoRecord, style: MergeStyle): boolean {
  if (style === 'manually-merged') return repo.allowManualMerge !== false;
  return repo[STYLE_FLAG[style]] !== false;
}

/** A pull request's repositories, resolved. */
export interface PullContext {
  pr: PullRecord;
  issue: IssueRecord;
  base: { repo: RepoRecord; owner: Account };
  head: { repo: RepoRecord; owner: Account } | null;
}

/** Why a merge is refused: the HTTP status Gitea gives and the message. */
export class MergeRefusal extends Error {
  constructor(readonly status: 403 | 404 | 405 | 409 | 422, message: string) {
    super(message);
  }
}

const MAX_RETRIES = 20;

// Only this plugin's handlers use the service: declared beside the class (no contract file).
declare module '../../core/plugin.js' { interface ForgeServices { pulls: Pulls } }

/** The plugin's settings (index.ts has the schema with the defaults). */
export interface PullsSettings {
  checkConcurrency?: number;
  checkQueueLimit?: number;
  jsonCacheEntries?: number;
}

export class Pulls {
  readonly pulls: Collection<PullRecord>;
  readonly reviews: Collection<ReviewRecord>;
  readonly comments: Collection<ReviewCommentRecord>;
  readonly ops: GitOps;
  readonly render: PullRenderer;
  /** One git job per pull request at a time (mergeability checks, merges, updates). */
  private readonly locks = new Map<number, Promise<unknown>>();
  /** Mergeability checks in the background (check-queue.ts). */
  readonly queue: CheckQueue;

  constructor(readonly ctx: PluginContext<PullsSettings>) {
    this.pulls = ctx.store.collection(PULLS);
    this.reviews = ctx.store.collection(REVIEWS);
    this.comments = ctx.store.collection(REVIEW_COMMENTS);
    this.ops = new GitOps(ctx.services.get('git'));
    this.render = new PullRenderer(this);
    this.queue = new CheckQueue({
      worker: (id) => this.backgroundCheck(id),
      scan: async (limit) => (await this.pulls.find({ status: 'checking', hasMerged: false }, { sort: { id: 1 }, limit })).map((p) => ({ id: p.id, repoId: p.repoId })),
      concurrency: ctx.settings.checkConcurrency ?? 2,
      limit: ctx.settings.checkQueueLimit ?? 10_000,
      log: ctx.log,
    });
  }

  /** Resumes the checks an earlier process left queued (`checking` rows). */
  async start(): Promise<void> {
    await this.queue.start();
  }

  async stop(graceMs: number): Promise<void> {
    await this.queue.stop(graceMs);
  }

  get users(): UsersService { return this.ctx.services.get('users'); }
  get repos(): ReposService { return this.ctx.services.get('repos'); }
  get git(): GitService { return this.ctx.services.get('git'); }
  get issues(): IssuesService { return this.ctx.services.get('issues'); }
  get contents(): ContentsService | null { return this.ctx.services.has('contents') ? this.ctx.services.get('contents') : null; }
  get statuses(): StatusesService | null { return this.ctx.services.has('statuses') ? this.ctx.services.get('statuses') : null; }

  /** Runs `job` after every earlier job of the same pull request (a per-pull-request queue). */
  serial<T>(pullId: number, job: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(pullId) ?? Promise.resolve();
    const next = prev.then(job, job);
    const tail = next.catch(() => undefined);
    this.locks.set(pullId, tail);
    void tail.then(() => {
      if (this.locks.get(pullId) === tail) this.locks.delete(pullId);
    });
    return next;
  }

  dirOf(side: { repo: RepoRecord; owner: Account }): string {
    return this.git.repoDir(side.repo, side.owner);
  }

  /** The no-reply identity of an account (decisions.md: commits forgekit writes never reveal an email). */
  identity(account: Account, date?: string): Identity {
    return { ...this.users.commitIdentity(account), ...(date ? { date } : {}) };
  }

  async side(repoId: number): Promise<{ repo: RepoRecord; owner: Account } | null> {
    const repo = await this.repos.byId(repoId);
    if (!repo) return null;
    const owner = await this.users.byId(repo.ownerId);
    return owner ? { repo, owner } : null;
  }

  /** A pull request with its issue half (`known`: already read by the caller) and its branches' repositories. */
  async contextOf(pr: PullRecord, base?: { repo: RepoRecord; owner: Account }, known?: IssueRecord): Promise<PullContext | null> {
    const issue = known?.id === pr.issueId ? known : await this.issues.byId(pr.issueId);
    const b = base ?? (await this.side(pr.repoId));
    if (!issue || !b) return null;
    const head = pr.headRepoId === b.repo.id ? b : await this.side(pr.headRepoId);
    return { pr, issue, base: b, head };
  }

  byNumber(repoId: number, number: number): Promise<PullRecord | null> {
    return this.pulls.findOne({ repoId, number });
  }

  // ---- git state ----

  /**
   * Brings a pull request's git state up to date: `refs/pull/N/head` follows the head branch (fetched from a fork),
   * then merge base, changed-file counts and mergeability (`merge-tree`, no working tree) against the base branch.
   * A merged pull request keeps what it had. Runs inline (creation, reopening, a new base, the merge route's own
   * fresh check) and as the background check. The answer is stored only when no newer check was queued while it ran
   * (a branch moved meanwhile: that check stores the answer for the newer heads); the caller gets it either way.
   */
  async refresh(pullId: number): Promise<PullRecord | null> {
    return (await this.serial(pullId, () => this.checkNow(pullId, false))).pr;
  }

  /**
   * One check, inside the pull request's queue. With `detectLanded` (the background check, Gitea's testPR) a head
   * that is now in the base is not stored as `empty` but handed back: the caller marks the pull request merged.
   */
  private async checkNow(pullId: number, detectLanded: boolean): Promise<{ pr: PullRecord | null; landed?: { c: PullContext; baseSha: string } }> {
    const pr = await this.pulls.findOne({ id: pullId });
    if (!pr || pr.hasMerged) return { pr };
    const unchanged = Pulls.sameCheck(pr);
    const c = await this.contextOf(pr);
    if (!c) {
      // The issue half or the base repository is gone: nothing to check (not left `checking` forever).
      return { pr: (await this.pulls.findOneAndUpdate({ id: pr.id, hasMerged: false, ...unchanged }, { $set: { status: 'error' } })) ?? pr };
    }
    const set = await this.compute(c);
    if (detectLanded && set.status === 'empty' && set.baseSha && !c.issue.isClosed) return { pr, landed: { c, baseSha: set.baseSha } };
    return { pr: (await this.pulls.findOneAndUpdate({ id: pr.id, hasMerged: false, ...unchanged }, { $set: set })) ?? { ...pr, ...set } };
  }

  /** The filter that matches a pull request only while no check newer than `pr`'s was queued. */
  private static sameCheck(pr: PullRecord): Record<string, unknown> {
    return pr.checkGen === undefined ? { checkGen: { $exists: false } } : { checkGen: pr.checkGen };
  }

  /**
   * The head and base commits now, `refs/pull/N/head` moved to the head: for a head in the base repository one
   * `for-each-ref` for both branches (and an `update-ref` only when the head moved), for a fork a fetch. A branch
   * that is gone (or a fetch that failed) is null.
   */
  private async tips(c: PullContext): Promise<{ head: string | null; base: string | null }> {
    const pr = c.pr;
    const baseDir = this.dirOf(c.base);
    if (!c.head) return { head: null, base: await this.ops.branchSha(baseDir, pr.baseBranch) };
    const headDir = this.dirOf(c.head);
    if (headDir === baseDir) {
      const shas = await this.ops.branchShas(baseDir, [pr.headBranch, pr.baseBranch]);
      const head = shas.get(pr.headBranch) ?? null;
      // `refs/pull/N/head` is at the stored head commit (both move together): written only when the head moved.
      if (head && head !== pr.headSha) {
        try {
          await this.ops.setPullRef(baseDir, pr.number, head);
          await this.pulls.updateOne({ id: pr.id, hasMerged: false }, { $set: { headSha: head } });
        } catch (err) {
          this.ctx.log.warn({ err, pullId: pr.id }, 'pulls: moving refs/pull/N/head failed');
          return { head: null, base: shas.get(pr.baseBranch) ?? null };
        }
      }
      return { head, base: shas.get(pr.baseBranch) ?? null };
    }
    let head: string | null = null;
    try {
      head = await this.ops.syncHeadRef(baseDir, headDir, pr.headBranch, pr.number);
    } catch (err) {
      this.ctx.log.warn({ err, pullId: pr.id }, 'pulls: fetching the head failed');
    }
    return { head, base: await this.ops.branchSha(baseDir, pr.baseBranch) };
  }

  /** The git state of a pull request now (git processes only; nothing stored). */
  private async compute(c: PullContext): Promise<Partial<PullRecord>> {
    const pr = c.pr;
    const baseDir = this.dirOf(c.base);
    const tips = await this.tips(c);
    const headSha = tips.head ?? pr.headSha;
    const baseSha = tips.base ?? pr.baseSha;
    const set: Partial<PullRecord> = { headSha, baseSha };
    if (!headSha || !baseSha) {
      set.status = 'error';
      return set;
    }
    const mergeBase = await this.ops.mergeBase(baseDir, baseSha, headSha);
    set.mergeBase = mergeBase ?? '';
    if (!mergeBase) {
      set.status = 'conflict';
      set.conflictedFiles = [];
    } else if (mergeBase === headSha) {
      // The head is an ancestor of the base (their merge base is the head itself).
      set.status = 'empty';
      set.conflictedFiles = [];
    } else {
      const outcome = await this.ops.mergeTree(baseDir, baseSha, headSha);
      set.status = outcome.ok ? 'mergeable' : 'conflict';
      set.conflictedFiles = outcome.ok ? [] : outcome.conflicts;
    }
    if (mergeBase) {
      const files = await this.ops.changedFiles(baseDir, mergeBase, headSha);
      set.changedFiles = files.length;
      set.additions = files.reduce((n, f) => n + f.additions, 0);
      set.deletions = files.reduce((n, f) => n + f.deletions, 0);
    }
    return set;
  }

  /**
   * Queues background checks (Gitea's AddToTaskQueue): `checking` is stored first — shown as `mergeable: false`
   * until the check ends, and found again at start if the process dies before it — then the queue runs them.
   */
  async queueChecks(prs: PullRecord[], pusherId?: number | null): Promise<void> {
    if (!prs.length) return;
    const set: Partial<PullRecord> = { status: 'checking' };
    if (pusherId) set.checkPusherId = pusherId;
    await this.pulls.updateMany({ id: { $in: prs.map((p) => p.id) }, hasMerged: false }, { $set: set, $inc: { checkGen: 1 } });
    this.queue.enqueue(prs.map((p) => ({ id: p.id, repoId: p.repoId })));
  }

  /**
   * The queue's worker (Gitea's testPR): a head that is now in the base marks the pull request merged (manually, by
   * the last pusher of the base, with the base commit); otherwise the check. A check that fails leaves status
   * `error` (Gitea), never `checking` for ever.
   */
  private async backgroundCheck(pullId: number): Promise<void> {
    try {
      const { pr, landed } = await this.serial(pullId, () => this.checkNow(pullId, true));
      if (!pr || !landed) return;
      try {
        await this.markMerged(landed.c, pr.checkPusherId || landed.c.issue.posterId, landed.baseSha, 'manually-merged');
      } catch (err) {
        if (!(err instanceof MergeRefusal)) throw err; // merged meanwhile
      }
    } catch (err) {
      this.ctx.log.warn({ err, pullId }, 'pulls: a mergeability check failed');
      const pr = await this.pulls.findOne({ id: pullId });
      if (pr && pr.status === 'checking') {
        await this.pulls.updateOne({ id: pullId, hasMerged: false, ...Pulls.sameCheck(pr) }, { $set: { status: 'error' } });
      }
    }
  }

  /**
   * Moves `refs/pull/N/head` to the head branch and records the head commit and its merge base (what `/commits`,
   * `/files` and the diff read); mergeability and counts are the queued check's.
   */
  private syncHead(pullId: number): Promise<PullRecord | null> {
    return this.serial(pullId, async () => {
      const pr = await this.pulls.findOne({ id: pullId });
      if (!pr || pr.hasMerged) return pr;
      const c = await this.contextOf(pr);
      if (!c?.head) return pr;
      const { head, base } = await this.tips(c);
      if (!head || head === pr.headSha) return (await this.pulls.findOne({ id: pullId })) ?? pr;
      const set: Partial<PullRecord> = { headSha: head };
      const mergeBase = base ? await this.ops.mergeBase(this.dirOf(c.base), base, head) : null;
      if (mergeBase) set.mergeBase = mergeBase;
      return (await this.pulls.findOneAndUpdate({ id: pr.id, hasMerged: false }, { $set: set })) ?? pr;
    });
  }

  // ---- creation ----

  async create(c: IssueChangeContext, input: {
    head: { repo: RepoRecord; owner: Account }; headBranch: string; baseBranch: string;
    title: string; body?: string; assigneeIds?: number[]; labelIds?: number[]; milestoneId?: number; deadline?: string | null;
    reviewerIds: number[]; teamIds: number[];
  }): Promise<PullRecord> {
    const baseDir = this.git.repoDir(c.repo, c.owner);
    const baseSha = await this.ops.branchSha(baseDir, input.baseBranch);
    if (!baseSha) throw fail.notFound();
    const headDir = this.dirOf(input.head);
    const headSha = await this.ops.branchSha(headDir, input.headBranch);
    if (!headSha) throw fail.notFound();
    const open = await this.pulls.find({ headRepoId: input.head.repo.id, headBranch: input.headBranch, repoId: c.repo.id, baseBranch: input.baseBranch, hasMerged: false });
    for (const other of open) {
      const issue = await this.issues.byId(other.issueId);
      if (issue && !issue.isClosed) throw fail.conflict(`pull request already exists for these targets [id: ${other.id}, issue_id: ${other.number}, head_repo_id: ${other.headRepoId}, base_repo_id: ${other.repoId}, head_branch: ${other.headBranch}, base_branch: ${other.baseBranch}]`);
    }
    const issue = await this.issues.create(c, {
      title: input.title, body: input.body, isPull: true, assigneeIds: input.assigneeIds, labelIds: input.labelIds,
      milestoneId: input.milestoneId, deadline: input.deadline ?? null,
    });
    const now = nowRfc3339();
    const pr: PullRecord = {
      id: await this.ctx.store.nextId(PULLS), issueId: issue.id, repoId: c.repo.id, number: issue.number,
      headRepoId: input.head.repo.id, headBranch: input.headBranch, baseBranch: input.baseBranch,
      headSha, baseSha, mergeBase: '', status: 'checking', checkGen: 0, conflictedFiles: [], additions: 0, deletions: 0, changedFiles: 0,
      hasMerged: false, mergedAt: null, mergedById: 0, mergeCommitSha: null, mergeStyle: null,
      allowMaintainerEdit: c.repo.defaultAllowMaintainerEdit === true, createdAt: now, updatedAt: now,
    };
    await this.pulls.insertOne(pr);
    // `refs/pull/N/head` for a head of this repository (a fork's head is fetched there by the check).
    if (headDir === baseDir) await this.ops.setPullRef(baseDir, pr.number, headSha);
    const fresh = (await this.refresh(pr.id)) ?? pr;
    await this.emit('opened', fresh, c.caller.id);
    for (const id of input.reviewerIds) await this.requestReview(fresh, c.caller, id, 0);
    for (const id of input.teamIds) await this.requestReview(fresh, c.caller, 0, id);
    return fresh;
  }

  // ---- merging ----

  /** Gitea's default merge message for a style. */
  async defaultMessage(c: PullContext, style: MergeStyle): Promise<string> {
    const headLabel = c.head && c.head.repo.id !== c.base.repo.id ? `${c.head.owner.login}/${c.head.repo.name}:${c.pr.headBranch}` : c.pr.headBranch;
    if (style === 'squash') return `${c.issue.title} (#${c.pr.number})`;
    if (style === 'rebase-merge' || style === 'merge') {
      return `Merge pull request '${c.issue.title}' (#${c.pr.number}) from ${headLabel} into ${c.pr.baseBranch}`;
    }
    return '';
  }

  /** Approvals that count under a rule: the latest submitted review of each official reviewer, not dismissed or stale. */
  async approvals(pr: PullRecord, rule: BranchProtectionRule): Promise<{ approvals: number; rejected: boolean; official: boolean }> {
    const rows = await this.reviews.find({ pullId: pr.id, state: { $in: ['APPROVED', 'REQUEST_CHANGES', 'COMMENT'] } }, { sort: { id: 1 } });
    const latest = new Map<number, ReviewRecord>();
    for (const r of rows) if (r.reviewerId && (r.state === 'APPROVED' || r.state === 'REQUEST_CHANGES')) latest.set(r.reviewerId, r);
    let approvals = 0;
    let rejected = false;
    for (const r of latest.values()) {
      if (r.dismissed || !r.official) continue;
      if (rule.enable_approvals_whitelist) {
        const account = await this.users.byId(r.reviewerId);
        if (!account || !rule.approvals_whitelist_username.some((u) => u.toLowerCase() === account.login.toLowerCase())) continue;
      }
      const stale = r.commitId !== '' && r.commitId !== pr.headSha;
      if (r.state === 'APPROVED' && !(stale && (rule.dismiss_stale_approvals || rule.ignore_stale_approvals))) approvals++;
      if (r.state === 'REQUEST_CHANGES') rejected = true;
    }
    const official = (await this.reviews.count({ pullId: pr.id, state: 'REQUEST_REVIEW', teamId: 0 })) > 0;
    return { approvals, rejected, official };
  }

  /**
   * Gitea's CheckPullMergeable: closed → 404, merged → 405, no permission (write access, merge allow-list) → 405,
   * branch protection (required approvals, rejected reviews, required status contexts, outdated branch) → 405 unless
   * an admin forces it, a pull request still being checked or in conflict → 405.
   */
  async checkMergeable(c: PullContext, caller: Caller, mode: number, style: MergeStyle, force: boolean): Promise<void> {
    if (c.pr.hasMerged) throw new MergeRefusal(405, 'the pull request has already been merged');
    if (c.issue.isClosed) throw new MergeRefusal(404, 'the pull request is closed');
    const rule = (await this.contents?.protectionFor(c.base.repo.id, c.pr.baseBranch)) ?? null;
    // The merge allow-list by name or team (the contents plugin owns the rule).
    const whitelisted = !rule || !rule.enable_merge_whitelist || (await this.contents!.mayMerge(c.base.repo, rule, caller, mode));
    if (mode < ACCESS.write || !whitelisted) throw new MergeRefusal(405, 'User not allowed to merge PR');
    if (style === 'manually-merged') return;
    if (isWorkInProgress(c.issue.title)) throw new MergeRefusal(405, 'Work in progress PRs cannot be merged');
    if (c.pr.status === 'checking') throw new MergeRefusal(405, 'Please try again later');
    if (c.pr.status === 'conflict' || c.pr.status === 'error') throw new MergeRefusal(405, 'Please try again later: the pull request cannot be merged automatically');
    if (!rule) return;
    const canForce = force && mode >= ACCESS.admin && !rule.block_on_rejected_reviews && !(rule as { block_admin_merge_override?: boolean }).block_admin_merge_override;
    const problems: string[] = [];
    if (rule.required_approvals > 0 || rule.block_on_rejected_reviews || rule.block_on_official_review_requests) {
      const r = await this.approvals(c.pr, rule);
      if (r.approvals < rule.required_approvals) problems.push(`does not have enough approvals (${r.approvals} of ${rule.required_approvals})`);
      if (rule.block_on_rejected_reviews && r.rejected) problems.push('has requested changes');
      if (rule.block_on_official_review_requests && r.official) problems.push('has pending official review requests');
    }
    if (rule.enable_status_check && this.statuses) {
      const state = await this.statuses.requiredState(c.base.repo, c.pr.headSha, rule.status_check_contexts);
      if (state !== 'success') problems.push(`required status checks are not successful (${state})`);
    }
    if (rule.block_on_outdated_branch && c.pr.baseSha && c.pr.mergeBase && c.pr.mergeBase !== c.pr.baseSha) {
      problems.push('the head branch is behind the base branch');
    }
    if (problems.length && !canForce) throw new MergeRefusal(405, `Not allowed to merge: the pull request ${problems.join('; ')}`);
  }

  /**
   * Merges with real git objects in the base repository: the new base commit is built without a working tree, then
   * the base branch moves with a compare-and-swap (a base that moved meanwhile is a 409, nothing is lost).
   */
  async merge(c: PullContext, caller: Caller, style: Exclude<MergeStyle, 'manually-merged'>, message: string, headCommitId: string): Promise<PullRecord> {
    const result = await this.serial(c.pr.id, async () => {
      const pr = (await this.pulls.findOne({ id: c.pr.id })) ?? c.pr;
      if (pr.hasMerged) throw new MergeRefusal(405, 'the pull request has already been merged');
      if (!c.head) throw new MergeRefusal(409, 'the head repository no longer exists');
      const dir = this.dirOf(c.base);
      const tips = await this.tips({ ...c, pr });
      const headSha = tips.head;
      if (!headSha) throw new MergeRefusal(409, 'the head branch no longer exists');
      if (headCommitId && headCommitId !== headSha) throw new MergeRefusal(409, 'head out of date');
      const baseSha = tips.base;
      if (!baseSha) throw new MergeRefusal(409, 'the base branch no longer exists');
      const account = (await this.users.byId(caller.id))!;
      const poster = (await this.users.byId(c.issue.posterId)) ?? account;
      const committer = this.identity(account);
      let newSha: string;
      const conflict = (files: string[]) => new MergeRefusal(409, files.length ? `merge conflicts in ${files.slice(0, 20).join(', ')}` : 'the branches have unrelated histories');
      switch (style) {
        case 'fast-forward-only': {
          if (!(await this.ops.isAncestor(dir, baseSha, headSha))) throw new MergeRefusal(409, 'the base branch is not an ancestor of the head: fast-forward-only is not possible');
          newSha = headSha;
          break;
        }
        case 'merge':
        case 'squash': {
          const outcome = await this.ops.mergeTree(dir, baseSha, headSha);
          if (!outcome.ok) throw conflict(outcome.conflicts);
          if (style === 'merge') newSha = await this.ops.commitTree(dir, outcome.tree, [baseSha, headSha], `${message}\n`, committer, committer);
          else newSha = await this.ops.commitTree(dir, outcome.tree, [baseSha], `${message}\n`, this.identity(poster), committer);
          break;
        }
        case 'rebase':
        case 'rebase-merge': {
          const rebased = await this.rebase(dir, baseSha, headSha, committer);
          newSha = style === 'rebase' ? rebased
            : await this.ops.commitTree(dir, await this.ops.treeOf(dir, rebased), [baseSha, rebased], `${message}\n`, committer, committer);
          break;
        }
      }
      const ref = `refs/heads/${pr.baseBranch}`;
      const before = await this.git.readRefs(c.base.repo, c.base.owner);
      const refusal = await this.git.checkPush({
        repo: c.base.repo, owner: c.base.owner, pusherId: null, via: 'merge', updates: [{ ref, oldSha: baseSha, newSha }],
      });
      if (refusal) throw new MergeRefusal(409, `PushRejected with remote message: ${refusal}`);
      if (!(await this.ops.compareAndSwap(dir, ref, newSha, baseSha))) throw new MergeRefusal(409, 'merge push out of date: the base branch moved, try again');
      return { merged: await this.markMerged(c, caller.id, newSha, style), before };
    });
    // Outside the pull request's queue: the push listener re-checks pull requests (this one is merged already).
    await this.git.afterPush(c.base.repo, c.base.owner, result.before, caller.id, 'merge');
    return result.merged;
  }

  /** Replays the head's commits onto the base, oldest first, keeping authors (what `git rebase` would write). */
  private async rebase(dir: string, baseSha: string, headSha: string, committer: Identity): Promise<string> {
    if (await this.ops.isAncestor(dir, baseSha, headSha)) return headSha; // already on top: nothing to replay
    let current = baseSha;
    for (const sha of await this.ops.rebaseList(dir, baseSha, headSha)) {
      const info = await this.ops.commitInfo(dir, sha);
      const parent = info.parents[0];
      let tree: string;
      if (!parent) {
        tree = info.tree;
      } else {
        // A cherry-pick without a working tree: a throwaway commit with `current`'s tree on top of the parent makes the
        // parent the merge base of a plain `merge-tree` (git 2.39 has no --merge-base).
        const currentTree = await this.ops.treeOf(dir, current);
        const fake = await this.ops.commitTree(dir, currentTree, [parent], 'rebase\n', committer, committer);
        const outcome = await this.ops.mergeTree(dir, fake, sha);
        if (!outcome.ok) throw new MergeRefusal(409, `rebase conflicts in ${outcome.conflicts.slice(0, 20).join(', ') || sha}`);
        tree = outcome.tree;
        if (tree === currentTree) continue; // became empty: dropped, like git rebase
      }
      current = await this.ops.commitTree(dir, tree, [current], info.message, { name: info.author.name, email: info.author.email, date: info.author.date }, committer);
    }
    return current;
  }

  /** Records the merge (once), closes the issue half, moves the issue's `pull_request.merged`, emits closed+merged. */
  async markMerged(c: PullContext, mergerId: number, mergeCommitSha: string, style: MergeStyle): Promise<PullRecord> {
    const now = nowRfc3339();
    const merged = await this.pulls.findOneAndUpdate({ id: c.pr.id, hasMerged: false }, {
      $set: { hasMerged: true, mergedAt: now, mergedById: mergerId, mergeCommitSha, mergeStyle: style, status: 'mergeable', updatedAt: now },
    });
    if (!merged) throw new MergeRefusal(405, 'the pull request has already been merged');
    const merger = await this.users.byId(mergerId);
    const caller: Caller = merger ? { id: merger.id, login: merger.login, isAdmin: merger.isAdmin, via: 'token', restricted: merger.restricted === true } : { id: mergerId, login: '', isAdmin: false, via: 'token' };
    const ic: IssueChangeContext = { repo: c.base.repo, owner: c.base.owner, caller };
    await this.issues.setPullMerged(c.issue, now);
    const issue = (await this.issues.byId(c.issue.id)) ?? c.issue;
    // Closing the issue half announces `closed` (with `merged: true` already set) through onIssueHalfChanged.
    await this.issues.setClosed(ic, issue, true);
    await this.closeReferencedIssues(c, ic);
    return merged;
  }

  /** "Fixes #N"-style keywords in the title or body close those issues of the base repository when merged. */
  private async closeReferencedIssues(c: PullContext, ic: IssueChangeContext): Promise<void> {
    const text = `${c.issue.title}\n${c.issue.body}`;
    const re = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b/gi;
    const numbers = new Set<number>();
    for (const m of text.matchAll(re)) numbers.add(Number(m[1]));
    for (const n of numbers) {
      if (n === c.pr.number) continue;
      const target = await this.issues.byNumber(c.base.repo.id, n);
      if (!target || target.isPull || target.isClosed) continue;
      try {
        await this.issues.setClosed(ic, target, true);
      } catch (err) {
        this.ctx.log.warn({ err, issue: target.id }, 'pulls: closing a referenced issue failed');
      }
    }
  }

  /** manually-merged: the given commit must be on the base branch and contain the head. */
  async markManuallyMerged(c: PullContext, caller: Caller, commitId: string): Promise<PullRecord> {
    return this.serial(c.pr.id, async () => {
      const dir = this.dirOf(c.base);
      if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commitId)) throw new MergeRefusal(422, 'MergeCommitID: must be a full commit id');
      const baseSha = await this.ops.branchSha(dir, c.pr.baseBranch);
      const known = await this.ops.refSha(dir, commitId);
      if (!baseSha || !known) throw new MergeRefusal(409, 'Wrong commit ID: the commit does not exist');
      if (!(await this.ops.isAncestor(dir, commitId, baseSha))) throw new MergeRefusal(409, 'Wrong commit ID: the commit is not on the base branch');
      if (c.pr.headSha && !(await this.ops.isAncestor(dir, c.pr.headSha, commitId))) throw new MergeRefusal(409, 'Wrong commit ID: the commit does not contain the head');
      return this.markMerged(c, caller.id, commitId, 'manually-merged');
    });
  }

  /** POST /update: merges (or rebases) the base branch into the head branch, moving the head with a compare-and-swap. */
  async updateHead(c: PullContext, caller: Caller, style: 'merge' | 'rebase'): Promise<void> {
    const before = await this.serial(c.pr.id, async () => {
      if (!c.head) throw new MergeRefusal(409, 'the head repository no longer exists');
      const headDir = this.dirOf(c.head);
      const baseDir = this.dirOf(c.base);
      const headSha = await this.ops.branchSha(headDir, c.pr.headBranch);
      const baseSha = await this.ops.branchSha(baseDir, c.pr.baseBranch);
      if (!headSha || !baseSha) throw new MergeRefusal(409, 'a branch of the pull request no longer exists');
      // Work in the head repository: it needs the base's commits (a fork fetches them).
      if (headDir !== baseDir) {
        await this.ops.exec(headDir, ['-c', 'protocol.file.allow=always', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options',
          baseDir, `+refs/heads/${c.pr.baseBranch}:refs/forgekit/update-base`]);
      }
      if (await this.ops.isAncestor(headDir, baseSha, headSha)) return null; // already up to date
      const account = (await this.users.byId(caller.id))!;
      const committer = this.identity(account);
      let newSha: string;
      if (style === 'rebase') {
        newSha = await this.rebase(headDir, baseSha, headSha, committer);
      } else {
        const outcome = await this.ops.mergeTree(headDir, headSha, baseSha);
        if (!outcome.ok) throw new MergeRefusal(409, `merge conflicts in ${outcome.conflicts.slice(0, 20).join(', ')}`);
        newSha = await this.ops.commitTree(headDir, outcome.tree, [headSha, baseSha], `Merge branch '${c.pr.baseBranch}' into ${c.pr.headBranch}\n`, committer, committer);
      }
      if (headDir !== baseDir) await this.ops.deleteRef(headDir, 'refs/forgekit/update-base');
      const ref = `refs/heads/${c.pr.headBranch}`;
      const before = await this.git.readRefs(c.head.repo, c.head.owner);
      const refusal = await this.git.checkPush({ repo: c.head.repo, owner: c.head.owner, pusherId: caller.id, via: 'merge', updates: [{ ref, oldSha: headSha, newSha }] });
      if (refusal) throw new MergeRefusal(403, refusal);
      if (!(await this.ops.compareAndSwap(headDir, ref, newSha, headSha))) throw new MergeRefusal(409, 'the head branch moved, try again');
      return before;
    });
    // afterPush emits git.push for the head branch: the push listener synchronizes this pull request.
    if (before && c.head) await this.git.afterPush(c.head.repo, c.head.owner, before, caller.id, 'merge');
  }

  // ---- pushes ----

  /**
   * `git.push` of a branch, before the push's response ends: pull requests with it as head get `refs/pull/N/head`
   * and their head commit, stale reviews and the `synchronized` event. Everything else is queued for the background
   * (`checking` until then), no git process per open pull request in the push: the mergeability of every affected
   * pull request, and for those with it as base whether their head is now in it (marked merged, as Gitea's testPR).
   */
  async onPush(e: PushEvent): Promise<void> {
    if (!e.ref.startsWith('refs/heads/')) return;
    const branch = e.ref.slice('refs/heads/'.length);
    const toCheck: PullRecord[] = [];
    const synchronized: Array<{ pr: PullRecord; senderId: number }> = [];
    const asHead = e.after === ZERO_SHA ? [] : await this.pulls.find({ headRepoId: e.repo.id, headBranch: branch, hasMerged: false });
    for (const pr of asHead) {
      const issue = await this.issues.byId(pr.issueId);
      if (!issue || issue.isClosed) continue;
      const fresh = await this.syncHead(pr.id);
      if (!fresh || fresh.hasMerged) continue;
      toCheck.push(fresh);
      if (fresh.headSha !== pr.headSha) {
        await this.markStale(fresh);
        synchronized.push({ pr: fresh, senderId: e.pusherId ?? issue.posterId });
      }
    }
    const asBase = e.after === ZERO_SHA ? [] : await this.pulls.find({ repoId: e.repo.id, baseBranch: branch, hasMerged: false });
    const baseChecks: PullRecord[] = [];
    for (const pr of asBase) {
      const issue = await this.issues.byId(pr.issueId);
      if (!issue || issue.isClosed || toCheck.some((p) => p.id === pr.id)) continue;
      baseChecks.push(pr);
    }
    // The pusher of the base is recorded for the check that may find a head landed in it by this push.
    await this.queueChecks(baseChecks, e.pusherId);
    await this.queueChecks(toCheck);
    // Announced after the check is queued: the payload shows `mergeable: false` while checking, as Gitea's does.
    for (const { pr, senderId } of synchronized) {
      await this.emit('synchronized', (await this.pulls.findOne({ id: pr.id })) ?? pr, senderId);
    }
  }

  /** Reviews of an older head become stale (shown with `stale: true`). */
  private async markStale(pr: PullRecord): Promise<void> {
    await this.reviews.updateMany({ pullId: pr.id, commitId: { $ne: pr.headSha }, state: { $in: ['APPROVED', 'REQUEST_CHANGES', 'COMMENT'] } }, { $set: { stale: true } });
  }

  // ---- reviews ----

  /** Whether an account's review counts (Gitea's official review: write access to the base repository). */
  async isOfficial(repo: RepoRecord, accountId: number): Promise<boolean> {
    const account = await this.users.byId(accountId);
    if (!account) return false;
    return (await this.repos.accessMode({ id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'token', restricted: account.restricted === true }, repo)) >= ACCESS.write;
  }

  async requestReview(pr: PullRecord, caller: Caller, reviewerId: number, teamId: number): Promise<ReviewRecord> {
    const existing = await this.reviews.findOne({ pullId: pr.id, state: 'REQUEST_REVIEW', reviewerId, teamId });
    if (existing) return existing;
    const now = nowRfc3339();
    const row = await this.reviews.insertOne({
      id: await this.ctx.store.nextId(REVIEWS), pullId: pr.id, repoId: pr.repoId, reviewerId, teamId, state: 'REQUEST_REVIEW', body: '',
      commitId: pr.headSha, official: false, dismissed: false, stale: false, submittedAt: null, createdAt: now, updatedAt: now,
    });
    if (reviewerId) await this.emit('review_requested', pr, caller.id, { requestedReviewerId: reviewerId });
    return row;
  }

  async removeReviewRequest(pr: PullRecord, caller: Caller, reviewerId: number, teamId: number): Promise<void> {
    const gone = await this.reviews.findOneAndDelete({ pullId: pr.id, state: 'REQUEST_REVIEW', reviewerId, teamId });
    if (gone && reviewerId) await this.emit('review_request_removed', pr, caller.id, { requestedReviewerId: reviewerId });
  }

  /** Submitting a review answers the reviewer's own pending review request. */
  async submitted(pr: PullRecord, review: ReviewRecord, senderId: number): Promise<void> {
    await this.reviews.deleteMany({ pullId: pr.id, state: 'REQUEST_REVIEW', reviewerId: review.reviewerId });
    if (review.state === 'PENDING') return;
    const kind = review.state === 'APPROVED' ? 'approved' : review.state === 'REQUEST_CHANGES' ? 'rejected' : 'comment';
    if (!this.ctx.events.has('pull_request.reviewed')) return;
    const c = await this.contextOf(pr);
    if (!c) return;
    const [api] = await this.render.pulls([pr], null, undefined, true);
    const [reviewApi] = await this.render.reviews([review], c, null);
    try {
      await this.ctx.events.emit('pull_request.reviewed', {
        kind, repo: c.base.repo, owner: c.base.owner, senderId, number: pr.number, issueId: pr.issueId, pullRequest: api!, review: reviewApi!,
      });
    } catch (err) {
      this.ctx.log.error({ err }, 'a pull_request.reviewed listener failed');
    }
  }

  // ---- events ----

  /**
   * `issue.pull_changed`: the issue half of a pull request changed through the issues service (labels, assignees,
   * milestone, title/body, state — from the pull or the issue routes): announced as the pull request's change, at
   * the moment it happens (Gitea's notifier turns IssueChange* of a pull into pull_request_* the same way).
   */
  async onIssueHalfChanged(e: IssueEvent): Promise<void> {
    const pr = await this.pulls.findOne({ issueId: e.issueId });
    if (!pr) return;
    const extra: Partial<ForgeEvents['pull_request.changed']> = {};
    if (e.changes) extra.changes = e.changes;
    if (e.assigneeId !== undefined) extra.assigneeId = e.assigneeId;
    if (e.mentionedIds) extra.mentionedIds = e.mentionedIds;
    await this.emit(e.action, pr, e.senderId, extra);
  }


  async emit(action: PullRequestAction, pr: PullRecord, senderId: number, extra: Partial<ForgeEvents['pull_request.changed']> = {}): Promise<void> {
    if (!this.ctx.events.has('pull_request.changed')) return;
    const base = await this.side(pr.repoId);
    if (!base) return;
    const [api] = await this.render.pulls([pr], null, undefined, true);
    try {
      await this.ctx.events.emit('pull_request.changed', {
        action, repo: base.repo, owner: base.owner, senderId, number: pr.number, issueId: pr.issueId, pullRequest: api!, ...extra,
      });
    } catch (err) {
      this.ctx.log.error({ err, action }, 'a pull_request.changed listener failed');
    }
  }

  // ---- lifecycle ----

  async onRepoDeleted(repo: RepoRecord): Promise<void> {
    await Promise.all([
      this.pulls.deleteMany({ repoId: repo.id }),
      this.reviews.deleteMany({ repoId: repo.id }),
      this.comments.deleteMany({ repoId: repo.id }),
    ]);
  }

  /** Retries a conditional update a few times (counters of reviews are not kept: lists count rows). */
  static readonly MAX_RETRIES = MAX_RETRIES;
}

export { GitOpError };
