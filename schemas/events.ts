// The event vocabulary plugins share: event name → payload, checked at compile time through `ForgeEvents`.
// Emitters await `events.emit(...)` before they reply, so a durable subscriber (webhook deliveries, notifications)
// has recorded its work before the client sees the change acknowledged. Payloads carry the stored records a
// subscriber needs to decide (visibility, who takes part) and, for resources only their owner can render, the API
// object as Gitea's webhook payloads carry it (rendered for a reader with full access; emails as the API hides them).
import type { Account, RepoRecord, TeamRecord } from './services.js';

/** A user as Gitea's payloads embed one (PayloadUser / User). */
export interface EventUser {
  name: string;
  email: string;
  username: string;
}

/** One commit of a push, as Gitea's PayloadCommit needs it. */
export interface PushCommit {
  id: string;
  message: string;
  /** RFC 3339 commit time. */
  timestamp: string;
  author: EventUser;
  committer: EventUser;
  added: string[];
  removed: string[];
  modified: string[];
}

/** How a change reached the repository. */
export type PushTransport = 'http' | 'ssh' | 'api' | 'merge';

/**
 * `git.push`: one ref moved (Gitea sends one push webhook per ref). `before`/`after` are 40-hex ids, the zero id
 * for a created or deleted ref. `commits` are the newest first, at most 20 (`totalCommits` counts all).
 */
export interface PushEvent {
  repo: RepoRecord;
  owner: Account;
  /** The account that pushed; null only for a system change. */
  pusherId: number | null;
  via: PushTransport;
  /** Full ref name, e.g. `refs/heads/main`, `refs/tags/v1`. */
  ref: string;
  before: string;
  after: string;
  commits: PushCommit[];
  totalCommits: number;
}

/** `git.ref.created` / `git.ref.deleted`: a branch or tag appeared or went (Gitea's create/delete events). */
export interface RefEvent {
  repo: RepoRecord;
  owner: Account;
  senderId: number | null;
  /** Short name (`main`, `v1.0`). */
  ref: string;
  refType: 'branch' | 'tag';
  /** The commit (or tag object) id the ref points at; for a deletion, what it pointed at. */
  sha: string;
  via: PushTransport;
}

export type IssueAction =
  | 'opened' | 'edited' | 'closed' | 'reopened' | 'deleted'
  | 'assigned' | 'unassigned' | 'label_updated' | 'label_cleared' | 'milestoned' | 'demilestoned'
  | 'pinned' | 'unpinned' | 'locked' | 'unlocked';

export interface Changes {
  title?: { from: string };
  body?: { from: string };
  ref?: { from: string };
}

/** `issue.changed`: anything that happened to an issue (pull requests emit `pull_request.changed` instead). */
export interface IssueEvent {
  action: IssueAction;
  repo: RepoRecord;
  owner: Account;
  senderId: number;
  /** The per-repository number (shared with pull requests). */
  number: number;
  /** The stored issue id. */
  issueId: number;
  /** The Issue API object (gitea-js `Issue`). */
  issue: Record<string, unknown>;
  changes?: Changes;
  /** For assigned/unassigned: the account concerned. */
  assigneeId?: number;
  /** Accounts newly @mentioned by this change (notifications). */
  mentionedIds?: number[];
}

/** `issue_comment.changed`: a comment on an issue or a pull request. */
export interface IssueCommentEvent {
  action: 'created' | 'edited' | 'deleted';
  repo: RepoRecord;
  owner: Account;
  senderId: number;
  number: number;
  issueId: number;
  isPull: boolean;
  /** The Issue API object of the issue (or the pull request's issue). */
  issue: Record<string, unknown>;
  /** The Comment API object (gitea-js `Comment`). */
  comment: Record<string, unknown>;
  changes?: Changes;
  mentionedIds?: number[];
}

export type PullRequestAction =
  | IssueAction
  | 'synchronized' | 'review_requested' | 'review_request_removed';

/** `pull_request.changed`. `merged` is set with action `closed` when the close was a merge. */
export interface PullRequestEvent {
  action: PullRequestAction;
  repo: RepoRecord;
  owner: Account;
  senderId: number;
  number: number;
  issueId: number;
  /** The PullRequest API object (gitea-js `PullRequest`). */
  pullRequest: Record<string, unknown>;
  changes?: Changes;
  assigneeId?: number;
  requestedReviewerId?: number;
  mentionedIds?: number[];
}

/** `pull_request.reviewed`: a submitted review (Gitea: pull_request_review_approved/rejected/comment). */
export interface PullReviewEvent {
  kind: 'approved' | 'rejected' | 'comment';
  repo: RepoRecord;
  owner: Account;
  senderId: number;
  number: number;
  /** The pull request's stored issue id (notifications key their threads by it). */
  issueId: number;
  pullRequest: Record<string, unknown>;
  /** The PullReview API object. */
  review: Record<string, unknown>;
}

/** `release.changed`. */
export interface ReleaseEvent {
  action: 'published' | 'updated' | 'deleted';
  repo: RepoRecord;
  owner: Account;
  senderId: number;
  /** The Release API object (gitea-js `Release`). */
  release: Record<string, unknown>;
}

/** `status.created`: a commit status was posted. */
export interface StatusEvent {
  repo: RepoRecord;
  owner: Account;
  senderId: number;
  sha: string;
  /** The CommitStatus API object. */
  status: Record<string, unknown>;
}

/** `star.changed` (Gitea's `star` webhook event: created/deleted). */
export interface StarEvent {
  action: 'created' | 'deleted';
  repo: RepoRecord;
  senderId: number;
}

/**
 * `access.changed`: who may read which repositories may have changed (a grant was given, changed or taken). Emitted
 * after the change is stored, by the plugin that stored it; subscribers that keep copies of readability (the
 * notifications plugin's per-thread `hidden` flag) recompute the (user, repository) pairs in scope. Scope: users in
 * `userIds` (every user when absent) × repositories in `repoIds` or owned by an account in `ownerIds` (every
 * repository when both are absent). A repository's `private` flag changes through `repo.updated`, not this event.
 */
export interface AccessChangedEvent {
  reason:
    | 'collaborator' // added, removed or its permission changed (repos)
    | 'team_repository' // a repository added to or removed from a team (repos)
    | 'team_member' // a user added to or removed from a team (orgs)
    | 'org_member' // a user left an organization, every team at once (orgs)
    | 'team' // a team's permission, units or includes_all_repositories changed, or the team was deleted (orgs)
    | 'account'; // an account's site-admin or restricted flag, or its visibility, changed (users)
  userIds?: number[];
  repoIds?: number[];
  ownerIds?: number[];
}

declare module '../core/plugin.js' {
  interface ForgeEvents {
    'access.changed': AccessChangedEvent;
    /** The users plugin, before an account is removed: owners of related rows clean up. */
    'account.deleted': { account: Account };
    /** The users plugin, after an account's name changed (`account` carries the new one; `from` the old login). */
    'account.renamed': { account: Account; from: string };
    /** The repos plugin, after a repository record and its storage exist (forks: `repo.forkId` is set). */
    'repo.created': { repo: RepoRecord; owner: Account; creatorId: number | null };
    /** The repos plugin, after a repository record is removed (its storage goes after the handlers); owner null when the account went first. */
    'repo.deleted': { repo: RepoRecord; owner: Account | null };
    /** The repos plugin, after a PATCH (e.g. `private` changed). */
    'repo.updated': { repo: RepoRecord; before: RepoRecord };
    /** The orgs plugin, after a team is deleted (repos drops the team's grants). */
    'team.deleted': { team: TeamRecord };
    'git.push': PushEvent;
    'git.ref.created': RefEvent;
    'git.ref.deleted': RefEvent;
    'issue.changed': IssueEvent;
    /**
     * A change to the issue half of a pull request (assignees, labels, milestone, title/body, state) made through
     * the issues service, by either plugin's routes: the pulls plugin turns it into `pull_request.changed`.
     */
    'issue.pull_changed': IssueEvent;
    'issue_comment.changed': IssueCommentEvent;
    'pull_request.changed': PullRequestEvent;
    'pull_request.reviewed': PullReviewEvent;
    'release.changed': ReleaseEvent;
    'status.created': StatusEvent;
    'star.changed': StarEvent;
  }
}
