// Gitea's webhook payloads (modules/structs/hook.go) built from forgekit's events: the repository as its owner sees
// it, the sender and pusher as the API shows users to strangers (emails hidden as the API hides them).
import type { Caller, PluginContext } from '../../core/plugin.js';
import type { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent, PushCommit, PushEvent, RefEvent, ReleaseEvent, StatusEvent } from '../../schemas/events.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { CommitVerification } from '../../schemas/contracts/contents.js';
import '../../schemas/contracts/contents.js';
import type { HookEventType } from './event-types.js';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** One payload to send: its type, the JSON object, and what decides which hooks get it. */
export interface Outgoing {
  type: HookEventType;
  payload: Record<string, unknown>;
  /** Hooks of this repository, of its owner and system hooks receive it. */
  repo: RepoRecord;
  /** For push/create/delete of a branch: the branch a hook's branch_filter is matched against. */
  branch?: string;
}

/** Renders repositories as their owner sees them (Gitea: AccessModeOwner), whatever the repository's privacy. */
const OWNER_VIEW: Caller = { id: 0, login: '', isAdmin: true, via: 'token' };

/** Gitea's stand-in for an account that no longer exists. */
const GHOST = { id: -1, login: 'Ghost', full_name: '', email: '', avatar_url: '', username: 'Ghost' };

export class Payloads {
  constructor(private readonly ctx: PluginContext) {}

  private get users() {
    return this.ctx.services.get('users');
  }

  async repository(repo: RepoRecord): Promise<Record<string, unknown>> {
    const [api] = await this.ctx.services.get('repos').toApi([repo], OWNER_VIEW);
    if (!api) return {};
    // The owner as every payload user: the no-reply placeholder, never the address the owner's view would show.
    const owner = api.owner as Record<string, unknown> | undefined;
    if (owner && typeof owner.login === 'string') api.owner = { ...owner, email: this.users.noreplyEmail({ login: owner.login }) };
    return api;
  }

  async user(id: number | null): Promise<Record<string, unknown>> {
    if (id === null) return { ...GHOST };
    const account = await this.users.byId(id);
    return account ? this.userOf(account) : { ...GHOST };
  }

  /** A User as Gitea's webhook payloads show it (ToUser without a doer): the email is the no-reply placeholder. */
  userOf(account: Account): Record<string, unknown> {
    return { ...this.users.toApi(account, null), email: this.users.noreplyEmail(account) };
  }

  repoUrl(owner: Account, repo: RepoRecord): string {
    return `${this.ctx.urls.root}${encodeURIComponent(owner.login)}/${encodeURIComponent(repo.name)}`;
  }

  /** Gitea's PayloadCommit, with the commit's signature verification (null without the contents plugin, as Gitea without one). */
  commit(owner: Account, repo: RepoRecord, c: PushCommit, verification: CommitVerification | null): Record<string, unknown> {
    return {
      id: c.id,
      message: c.message,
      url: `${this.repoUrl(owner, repo)}/commit/${c.id}`,
      author: { name: c.author.name, email: c.author.email, username: c.author.username },
      committer: { name: c.committer.name, email: c.committer.email, username: c.committer.username },
      verification,
      timestamp: c.timestamp,
      added: c.added,
      removed: c.removed,
      modified: c.modified,
    };
  }

  /** PayloadCommits: usernames filled (`named`) and each commit's verification read through the contents service. */
  async commits(owner: Account, repo: RepoRecord, list: readonly PushCommit[]): Promise<Record<string, unknown>[]> {
    const contents = this.ctx.services.has('contents') ? this.ctx.services.get('contents') : null;
    const named = await this.named(list);
    return Promise.all(named.map(async (c) => this.commit(owner, repo, c, contents ? await contents.commitVerification(repo, owner, c.id) : null)));
  }

  /**
   * The commits with `username` filled as Gitea's ToAPIPayloadCommit does (GetUserByEmail: UsersService.byEmail);
   * '' for an address no account has.
   */
  async named(commits: readonly PushCommit[]): Promise<PushCommit[]> {
    const known = new Map<string, Promise<string>>();
    const login = (email: string): Promise<string> => {
      const lower = email.toLowerCase();
      let found = known.get(lower);
      if (!found) {
        found = lower ? this.users.byEmail(lower).then((a) => (a?.type === 'user' ? a.login : '')) : Promise.resolve('');
        known.set(lower, found);
      }
      return found;
    };
    return Promise.all(commits.map(async (c) => ({
      ...c,
      author: { ...c.author, username: c.author.username || (await login(c.author.email)) },
      committer: { ...c.committer, username: c.committer.username || (await login(c.committer.email)) },
    })));
  }

  /** PushPayload; none for a deleted ref (Gitea sends only the delete event then). */
  async push(e: PushEvent): Promise<Outgoing | null> {
    if (e.after === ZERO_SHA) return null;
    const commits = await this.commits(e.owner, e.repo, e.commits);
    const pusher = await this.user(e.pusherId);
    const compare = e.before !== ZERO_SHA && e.after !== ZERO_SHA ? `${this.repoUrl(e.owner, e.repo)}/compare/${e.before}...${e.after}` : '';
    const payload = {
      ref: e.ref,
      before: e.before,
      after: e.after,
      compare_url: compare,
      commits,
      total_commits: e.totalCommits,
      head_commit: commits[0] ?? null,
      repository: await this.repository(e.repo),
      pusher,
      sender: pusher,
    };
    return { type: 'push', payload, repo: e.repo, branch: e.ref.startsWith('refs/heads/') ? e.ref.slice('refs/heads/'.length) : undefined };
  }

  async refCreated(e: RefEvent): Promise<Outgoing> {
    const payload = { sha: e.sha, ref: e.ref, ref_type: e.refType, repository: await this.repository(e.repo), sender: await this.user(e.senderId) };
    return { type: 'create', payload, repo: e.repo, branch: e.refType === 'branch' ? e.ref : undefined };
  }

  async refDeleted(e: RefEvent): Promise<Outgoing> {
    const payload = { ref: e.ref, ref_type: e.refType, pusher_type: 'user', repository: await this.repository(e.repo), sender: await this.user(e.senderId) };
    return { type: 'delete', payload, repo: e.repo, branch: e.refType === 'branch' ? e.ref : undefined };
  }

  /** RepositoryPayload: `organization` is the owner (a user or an organization), as modern Gitea sends it. */
  async repositoryAction(action: 'created' | 'deleted', repo: RepoRecord, owner: Account | null, senderId: number | null): Promise<Outgoing> {
    const payload = {
      action,
      repository: await this.repository(repo),
      organization: owner ? this.userOf(owner) : { ...GHOST },
      sender: await this.user(senderId),
    };
    return { type: 'repository', payload, repo };
  }

  /**
   * ForkPayload as Gitea fills it: sent to the parent's hooks, `forkee` is the parent and `repository` the new fork
   * (services/webhook/notifier.go ForkRepository).
   */
  async fork(parent: RepoRecord, fork: RepoRecord, senderId: number | null): Promise<Outgoing> {
    const payload = { forkee: await this.repository(parent), repository: await this.repository(fork), sender: await this.user(senderId) };
    return { type: 'fork', payload, repo: parent };
  }

  async issue(e: IssueEvent): Promise<Outgoing | null> {
    const type = issueType(e.action);
    if (!type) return null;
    // An issue's ref (branch) change: Gitea's webhook notifier has no IssueChangeRef, so no delivery.
    if (e.action === 'edited' && e.changes?.ref && !e.changes.title && !e.changes.body) return null;
    const payload: Record<string, unknown> = { action: e.action, number: e.number };
    if (e.changes) payload.changes = e.changes;
    Object.assign(payload, { issue: e.issue, repository: await this.repository(e.repo), sender: await this.user(e.senderId), commit_id: '' });
    return { type, payload, repo: e.repo };
  }

  async issueComment(e: IssueCommentEvent): Promise<Outgoing> {
    const payload: Record<string, unknown> = { action: e.action, issue: e.issue, comment: e.comment };
    if (e.changes) payload.changes = e.changes;
    Object.assign(payload, { repository: await this.repository(e.repo), sender: await this.user(e.senderId), is_pull: e.isPull });
    return { type: e.isPull ? 'pull_request_comment' : 'issue_comment', payload, repo: e.repo };
  }

  async pullRequest(e: PullRequestEvent): Promise<Outgoing | null> {
    const type = pullType(e.action);
    if (!type) return null;
    const payload: Record<string, unknown> = { action: e.action, number: e.number };
    if (e.changes) payload.changes = e.changes;
    Object.assign(payload, {
      pull_request: e.pullRequest,
      requested_reviewer: e.requestedReviewerId !== undefined ? await this.user(e.requestedReviewerId) : null,
      repository: await this.repository(e.repo),
      sender: await this.user(e.senderId),
      commit_id: '',
      review: null,
    });
    return { type, payload, repo: e.repo };
  }

  async pullReview(e: PullReviewEvent): Promise<Outgoing> {
    const type: HookEventType = e.kind === 'approved' ? 'pull_request_review_approved'
      : e.kind === 'rejected' ? 'pull_request_review_rejected' : 'pull_request_review_comment';
    const payload = {
      action: 'reviewed',
      number: e.number,
      pull_request: e.pullRequest,
      requested_reviewer: null,
      repository: await this.repository(e.repo),
      sender: await this.user(e.senderId),
      commit_id: '',
      review: { type, content: typeof e.review.body === 'string' ? e.review.body : '' },
    };
    return { type, payload, repo: e.repo };
  }

  async release(e: ReleaseEvent): Promise<Outgoing> {
    const payload = { action: e.action, release: e.release, repository: await this.repository(e.repo), sender: await this.user(e.senderId) };
    return { type: 'release', payload, repo: e.repo };
  }

  /**
   * CommitStatusPayload. `commit` is the PayloadCommit read through the git service (message, author, committer,
   * changed files, as Gitea's ToAPIPayloadCommit); only the id and URL when git is off or the commit is gone.
   */
  async status(e: StatusEvent): Promise<Outgoing> {
    const s = e.status;
    const read = this.ctx.services.has('git') ? await this.ctx.services.get('git').commitOf(e.repo, e.owner, e.sha) : null;
    const payload = {
      commit: read ? (await this.commits(e.owner, e.repo, [read]))[0]! : {
        id: e.sha, message: '', url: `${this.repoUrl(e.owner, e.repo)}/commit/${e.sha}`, author: null, committer: null,
        verification: null, timestamp: s.created_at, added: [], removed: [], modified: [],
      },
      context: s.context,
      created_at: s.created_at,
      description: s.description,
      id: s.id,
      repository: await this.repository(e.repo),
      sender: await this.user(e.senderId),
      sha: e.sha,
      state: s.status,
      target_url: s.target_url,
      updated_at: s.updated_at,
    };
    return { type: 'status', payload, repo: e.repo };
  }
}

function issueType(action: IssueEvent['action']): HookEventType | null {
  switch (action) {
    case 'opened': case 'edited': case 'closed': case 'reopened': case 'deleted':
      return 'issues';
    case 'assigned': case 'unassigned':
      return 'issue_assign';
    case 'label_updated': case 'label_cleared':
      return 'issue_label';
    case 'milestoned': case 'demilestoned':
      return 'issue_milestone';
    default:
      return null; // pins and locks: Gitea sends no webhook for them
  }
}

function pullType(action: PullRequestEvent['action']): HookEventType | null {
  switch (action) {
    case 'synchronized':
      return 'pull_request_sync';
    case 'review_requested': case 'review_request_removed':
      return 'pull_request_review_request';
    case 'assigned': case 'unassigned':
      return 'pull_request_assign';
    case 'label_updated': case 'label_cleared':
      return 'pull_request_label';
    case 'milestoned': case 'demilestoned':
      return 'pull_request_milestone';
    case 'opened': case 'edited': case 'closed': case 'reopened': case 'deleted':
      return 'pull_request';
    default:
      return null;
  }
}
