// The `issues` plugin's service: issue numbers, stored issues, comments, labels and milestones, typed for the
// pull-request capability (which stores its pull requests as issues with `isPull: true` and reuses all of this).
import type { Caller } from '../../core/plugin.js';
import type { Account, RepoRecord } from '../services.js';

/** A stored issue (or the issue half of a pull request). */
export interface IssueRecord {
  [key: string]: unknown;
  id: number;
  repoId: number;
  /** Copies of the repository's fields (kept in step on `repo.updated`): lists hide private rows through an index. */
  repoOwnerId: number;
  repoPrivate: boolean;
  /** The per-repository number, shared by issues and pull requests. */
  number: number;
  isPull: boolean;
  posterId: number;
  title: string;
  body: string;
  ref: string;
  isClosed: boolean;
  isLocked: boolean;
  /** 0: not pinned; else the position among the repository's pinned issues (1-based). */
  pinOrder: number;
  /** 0: no milestone. */
  milestoneId: number;
  assigneeIds: number[];
  labelIds: number[];
  /** Accounts @mentioned in the body or a comment (the `mentioned_by` filter). */
  mentionIds: number[];
  deadline: string | null;
  numComments: number;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface CommentRecord {
  [key: string]: unknown;
  id: number;
  issueId: number;
  repoId: number;
  posterId: number;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface LabelRecord {
  [key: string]: unknown;
  id: number;
  /** A repository label has `repoId` (and `orgId` 0); an organization label `orgId` (and `repoId` 0). */
  repoId: number;
  orgId: number;
  name: string;
  /** Lower-case hex, six digits, no `#`. */
  color: string;
  description: string;
  exclusive: boolean;
  isArchived: boolean;
  createdAt: string;
}

export interface MilestoneRecord {
  [key: string]: unknown;
  id: number;
  repoId: number;
  title: string;
  lowerTitle: string;
  description: string;
  isClosed: boolean;
  numOpen: number;
  numClosed: number;
  deadline: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

/** What a new issue (or pull request) starts with; validated by the service (422 naming the field). */
export interface NewIssueInput {
  title: string;
  body?: string;
  ref?: string;
  isPull?: boolean;
  closed?: boolean;
  assigneeIds?: number[];
  labelIds?: number[];
  milestoneId?: number;
  deadline?: string | null;
}

/** The filters of an issue list or search, resolved to ids (the issues plugin's list; the pulls plugin lists through it). */
export interface IssueListQuery {
  /** One repository, or a scope of several. */
  repoId?: number;
  /**
   * Search: visible rows only (public ones of owners not hidden, or these repositories: the caller's private ones and
   * other grants, ReposService.grantedReadableIds); absent = everything (site admins).
   */
  visiblePrivateRepoIds?: number[];
  /**
   * Search, with `visiblePrivateRepoIds`: owners whose private repositories' rows are visible too, all of them
   * (ReposService.grantedReadableScope; none of their private repositories is in `visiblePrivateRepoIds`).
   */
  visiblePrivateOwnerIds?: number[];
  /** Search: no public row by itself, only `visiblePrivateRepoIds` (a restricted caller). */
  noPublicRepos?: boolean;
  /** Search: owners whose public repositories the caller may not see (limited/private accounts). */
  hiddenOwnerIds?: number[];
  /** Search: issues (not pulls) of these repositories stay out (`has_issues: false`). */
  excludeRepoIds?: number[];
  /** Search: pull requests of these repositories stay out (a team without the pulls unit). */
  excludePullRepoIds?: number[];
  repoOwnerId?: number;
  repoIds?: number[];
  /** Only these issue ids (the pulls plugin's base-branch filter). */
  ids?: number[];
  isClosed?: boolean;
  isPull?: boolean;
  /** Label groups: an issue has one label of every group (names: the labels of that name across repositories). */
  labelGroups?: number[][];
  /** Any one of these milestones. */
  milestoneIds?: number[];
  posterId?: number;
  assigneeId?: number;
  mentionId?: number;
  since?: string;
  before?: string;
  q?: string;
  /** Store sort (default newest first: `{ id: -1 }`). */
  sort?: Record<string, 1 | -1>;
  skip: number;
  limit: number;
}

export interface IssueChangeContext {
  repo: RepoRecord;
  owner: Account;
  caller: Caller;
}

/** Exposed by the `issues` plugin. */
export interface IssuesService {
  /** The reactions issues and comments accept (Gitea's `[ui] REACTIONS`); `GET /settings/ui` reports them. */
  readonly allowedReactions: readonly string[];
  /** The next per-repository number (atomic counter document; never reused, shared by issues and pulls). */
  nextNumber(repoId: number): Promise<number>;
  byNumber(repoId: number, number: number): Promise<IssueRecord | null>;
  byId(id: number): Promise<IssueRecord | null>;
  /**
   * Creates an issue (`isPull: true` for a pull request's issue half) with the next number; moves the repository's
   * and the milestone's counters, records mentions, subscribes the poster. Emits `issue.changed` (opened) for
   * issues only: a pull-request plugin emits its own event with the returned record.
   */
  create(ctx: IssueChangeContext, input: NewIssueInput): Promise<IssueRecord>;
  /** Closes or reopens, moving the counters exactly once even under concurrent calls; null when already so. */
  setClosed(ctx: IssueChangeContext, issue: IssueRecord, closed: boolean): Promise<IssueRecord | null>;
  /** Replaces the labels (ids must be the repository's or its organization's; 422 otherwise). */
  replaceLabels(ctx: IssueChangeContext, issue: IssueRecord, labelIds: number[]): Promise<IssueRecord>;
  setMilestone(ctx: IssueChangeContext, issue: IssueRecord, milestoneId: number): Promise<IssueRecord>;
  /** Title, body, ref and due date; emits `edited` for issues (pull requests emit their own). */
  edit(ctx: IssueChangeContext, issue: IssueRecord, set: Partial<Pick<IssueRecord, 'title' | 'body' | 'ref' | 'deadline'>>): Promise<IssueRecord>;
  /** Replaces the assignees (each must be able to write: 422 otherwise). */
  setAssignees(ctx: IssueChangeContext, issue: IssueRecord, ids: number[]): Promise<IssueRecord>;
  /** Records a pull request's merge on its issue half (`pull_request.merged`/`merged_at` of the Issue object). */
  setPullMerged(issue: IssueRecord, mergedAt: string): Promise<IssueRecord | null>;
  /** A page of matching issues and the exact total. */
  list(q: IssueListQuery): Promise<{ total: number; issues: IssueRecord[] }>;
  /** Adds a comment (mentions recorded, counters moved); emits `issue_comment.changed`. */
  addComment(ctx: IssueChangeContext, issue: IssueRecord, body: string): Promise<CommentRecord>;
  /** The Issue API object of a stored issue, as `viewer` sees it. */
  toApi(issue: IssueRecord, repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Record<string, unknown>>;
  /** The Issue API objects of issues of one repository, in order: their accounts, labels and milestones read once. */
  toApiList(issues: IssueRecord[], repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Array<Record<string, unknown>>>;
  /**
   * Each issue's kept JSON as `viewer` sees it, in order: the same Buffer while nothing the issue shows changed (its
   * record, accounts and their email view, labels, milestone, repository name), a new one once anything did — what
   * another plugin may key its own kept text on (pull requests: their issue half).
   */
  keptJson(issues: IssueRecord[], repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Buffer[]>;
  /** The Comment API object. */
  commentToApi(comment: CommentRecord, issue: IssueRecord, repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<Record<string, unknown>>;
  labelsOf(issue: IssueRecord): Promise<LabelRecord[]>;
  milestoneById(repoId: number, id: number): Promise<MilestoneRecord | null>;
  /** Who is subscribed to the issue (its poster and commenters unless they unsubscribed, and explicit subscribers). */
  subscriberIds(issueId: number): Promise<number[]>;
  /** Who unsubscribed from the issue: they hear nothing about it, even while watching its repository (Gitea). */
  unsubscribedIds(issueId: number): Promise<number[]>;
  commentById(id: number): Promise<CommentRecord | null>;
  /**
   * Where issues' and comments' `assets` come from (the releases plugin stores attachments and registers here; with
   * none registered they are empty).
   */
  setAssetSource(source: IssueAssetSource): void;
}

/** Attachment API objects of issues (their own, not their comments') and of comments, by issue id and comment id. */
export type IssueAssetSource = (issueIds: readonly number[], commentIds: readonly number[]) =>
  Promise<{ issues: Map<number, Array<Record<string, unknown>>>; comments: Map<number, Array<Record<string, unknown>>> }>;

declare module '../../core/plugin.js' {
  interface ForgeServices {
    issues: IssuesService;
  }
}
