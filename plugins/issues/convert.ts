// Stored issues, comments, labels, milestones and reactions → Gitea's API objects (the only place they are shaped).
import type { Caller, JsonPieces } from '../../core/plugin.js';
import { UserSchema } from '../../schemas/resources.js';
import type { Account, ApiUser, RepoRecord } from '../../schemas/services.js';
import type { CommentRecord, IssueAssetSource, IssueRecord, LabelRecord, MilestoneRecord } from '../../schemas/contracts/issues.js';
import type { Issues, ReactionRecord } from './service.js';
import { joinPieces } from '../lib/doc-json.js';
import { CommentJsonCache, IssueJsonCache } from './issue-json.js';
import { mapById } from '../lib/by-id.js';

/** Gitea's stand-in for a deleted account. */
export const GHOST: ApiUser = {
  // Every field of the User schema at its zero value, then Gitea's ghost identity.
  ...Object.fromEntries(Object.entries(UserSchema.properties as Record<string, { type?: unknown }>).map(([k, v]) => {
    const type = Array.isArray(v.type) ? v.type[0] : v.type;
    return [k, type === 'integer' || type === 'number' ? 0 : type === 'boolean' ? false : type === 'string' ? '' : null];
  })),
  id: -1, login: 'Ghost', full_name: '', email: '', avatar_url: '', username: 'Ghost',
} as unknown as ApiUser;

export interface RepoAndOwner {
  repo: RepoRecord;
  owner: Account;
}

export function labelToApi(label: LabelRecord, api: string, ownerLogin: string, repoName: string | null): Record<string, unknown> {
  return {
    id: label.id,
    name: label.name,
    exclusive: label.exclusive,
    is_archived: label.isArchived,
    color: label.color,
    description: label.description,
    url: label.orgId ? `${api}orgs/${ownerLogin}/labels/${label.id}` : `${api}repos/${ownerLogin}/${repoName}/labels/${label.id}`,
  };
}

export function milestoneToApi(m: MilestoneRecord): Record<string, unknown> {
  return {
    id: m.id,
    title: m.title,
    description: m.description,
    state: m.isClosed ? 'closed' : 'open',
    open_issues: m.numOpen,
    closed_issues: m.numClosed,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    closed_at: m.closedAt,
    due_on: m.deadline,
  };
}

/** A page's users (accounts as stored), labels, milestones and attachments, by id. */
export interface IssueParts {
  accounts: Map<number, Account>;
  labels: Map<number, LabelRecord>;
  milestones: Map<number, MilestoneRecord>;
  assets: Map<number, unknown[]>;
}

export class Renderer {
  readonly json: IssueJsonCache;
  readonly commentJson: CommentJsonCache;

  constructor(private readonly service: Issues, serializers: { issue: (value: unknown) => string; comment: (value: unknown) => string }, capacity: number) {
    this.json = new IssueJsonCache(serializers.issue, capacity);
    this.commentJson = new CommentJsonCache(serializers.comment, capacity);
  }

  private readonly seesEmail = (account: Account, viewer: Caller | null): boolean => this.service.users.seesEmail(account, viewer);

  private get urls() {
    return this.service.ctx.urls;
  }

  async usersById(ids: Iterable<number>, viewer: Caller | null): Promise<Map<number, ApiUser>> {
    const users = this.service.users;
    const accounts = await users.byIds(Array.isArray(ids) ? ids : [...ids]);
    const out = new Map<number, ApiUser>();
    for (const [id, account] of accounts) out.set(id, users.toApi(account, viewer));
    return out;
  }

  /**
   * What rendering a page of issues needs besides the issues: their users, labels, milestones and attachments.
   * `known`: accounts the caller already read (looked up again only for the users it lacks).
   */
  private async issueParts(list: IssueRecord[], known?: Map<number, Account>): Promise<IssueParts> {
    // Ids with their repeats (a page's issues share posters and labels): an `$in` yields each document once, and
    // collecting them in arrays costs less than in Sets.
    const userIds: number[] = [];
    const labelIds: number[] = [];
    const milestoneIds: number[] = [];
    const issueIds: number[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const issue = list[i]!;
      issueIds[i] = issue.id;
      userIds.push(issue.posterId);
      for (const id of issue.assigneeIds) userIds.push(id);
      for (const id of issue.labelIds) labelIds.push(id);
      if (issue.milestoneId) milestoneIds.push(issue.milestoneId);
    }
    const [accounts, labels, milestones, assets] = await Promise.all([
      this.accountsOf(userIds, known),
      labelIds.length ? this.service.labels.find({ id: { $in: labelIds } }) : Promise.resolve([]),
      milestoneIds.length ? this.service.milestones.find({ id: { $in: milestoneIds } }) : Promise.resolve([]),
      this.assets(issueIds, []),
    ]);
    return { accounts, labels: mapById(labels), milestones: mapById(milestones), assets: assets.issues };
  }

  /** The accounts of `ids` (repeats allowed): those `known` holds, the rest read. */
  private async accountsOf(ids: number[], known: Map<number, Account> | undefined): Promise<Map<number, Account>> {
    if (known === undefined) return this.service.users.byIds(ids);
    const missing: number[] = [];
    for (const id of ids) if (!known.has(id)) missing.push(id);
    if (missing.length === 0) return known;
    const read = await this.service.users.byIds(missing);
    for (const [id, account] of known) read.set(id, account);
    return read;
  }

  /** Issue API objects for issues of the given repositories (`repos` maps every issue's repoId). */
  async issues(list: IssueRecord[], repos: Map<number, RepoAndOwner>, viewer: Caller | null): Promise<Array<Record<string, unknown>>> {
    if (list.length === 0) return [];
    const parts = await this.issueParts(list);
    const users = new Map<number, ApiUser>();
    return list.map((issue) => this.issue(issue, repos.get(issue.repoId)!, parts, users, viewer));
  }

  /**
   * The JSON text of a page of issues (what `issues` gives, serialised with the Issue schema), each issue's text reused
   * while everything it shows is the same stored version (issue-json.ts). `accounts`: users the caller already read
   * (a search reads the repositories' owners and the page's posters and assignees in one lookup).
   */
  async issuesJson(list: IssueRecord[], repos: Map<number, RepoAndOwner>, viewer: Caller | null, accounts?: Map<number, Account>): Promise<JsonPieces> {
    return joinPieces(await this.issuePieces(list, repos, viewer, accounts));
  }

  /**
   * Each issue's kept list piece (`listPiece`) as `viewer` sees it: the same Buffer while nothing the issue shows
   * changed, a new one once anything did.
   */
  async issuePieces(list: IssueRecord[], repos: Map<number, RepoAndOwner>, viewer: Caller | null, accounts?: Map<number, Account>): Promise<Buffer[]> {
    if (list.length === 0) return [];
    const parts = await this.issueParts(list, accounts);
    const users = new Map<number, ApiUser>();
    const pieces = list.map((issue) => {
      const where = repos.get(issue.repoId)!;
      // The kept text when nothing it shows changed (checked without making a key); else made and kept anew.
      return this.json.cached(issue, where, parts, viewer, this.seesEmail)
        ?? this.json.keep(issue, this.json.keyOf(issue, where, parts, viewer, this.seesEmail), this.issue(issue, where, parts, users, viewer));
    });
    return pieces;
  }

  /** One issue's API object; `users` collects the User objects made for this page (a user shows on many issues). */
  private issue(issue: IssueRecord, { repo, owner }: RepoAndOwner, parts: IssueParts, users: Map<number, ApiUser>, viewer: Caller | null): Record<string, unknown> {
    const userOf = (id: number): ApiUser => {
      let api = users.get(id);
      if (api === undefined) {
        const account = parts.accounts.get(id);
        api = account ? this.service.users.toApi(account, viewer) : GHOST;
        users.set(id, api);
      }
      return api;
    };
    const api = this.urls.api;
    const root = this.urls.root;
    const fullName = `${owner.login}/${repo.name}`;
    const assignees = issue.assigneeIds.map(userOf);
    const milestone = issue.milestoneId ? parts.milestones.get(issue.milestoneId) : undefined;
    const kind = issue.isPull ? 'pulls' : 'issues';
    return {
      id: issue.id,
      url: `${api}repos/${fullName}/issues/${issue.number}`,
      html_url: `${root}${fullName}/${kind}/${issue.number}`,
      number: issue.number,
      user: userOf(issue.posterId),
      original_author: '',
      original_author_id: 0,
      title: issue.title,
      body: issue.body,
      ref: issue.ref,
      assets: parts.assets.get(issue.id) ?? [],
      labels: issue.labelIds.map((id) => parts.labels.get(id)).filter((l): l is LabelRecord => l !== undefined)
        .map((l) => labelToApi(l, api, owner.login, repo.name)),
      milestone: milestone ? milestoneToApi(milestone) : null,
      assignee: assignees[0] ?? null,
      // Gitea sends null, not [], when nobody is assigned.
      assignees: assignees.length ? assignees : null,
      state: issue.isClosed ? 'closed' : 'open',
      is_locked: issue.isLocked,
      comments: issue.numComments,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      due_date: issue.deadline,
      // `pullMergedAt` is set by the pulls plugin (IssuesService.setPullMerged) when the pull request is merged.
      pull_request: issue.isPull ? { merged: typeof issue.pullMergedAt === 'string', merged_at: typeof issue.pullMergedAt === 'string' ? issue.pullMergedAt : null, draft: false, html_url: `${root}${fullName}/pulls/${issue.number}` } : null,
      repository: { id: repo.id, name: repo.name, owner: owner.login, full_name: fullName },
      pin_order: issue.pinOrder,
    };
  }

  /** Comment API objects of comments on one issue, or (issue null) of a repository's comments. */
  async comments(list: CommentRecord[], issue: IssueRecord | Map<number, IssueRecord>, repo: RepoRecord, owner: Account, viewer: Caller | null):
    Promise<Array<Record<string, unknown>>> {
    const [accounts, assets] = await Promise.all([this.service.users.byIds(list.map((c) => c.posterId)), this.assets([], list.map((c) => c.id))]);
    const fullName = `${owner.login}/${repo.name}`;
    const users = new Map<number, ApiUser>();
    return list.map((comment) => this.comment(comment, issue instanceof Map ? issue.get(comment.issueId) : issue, fullName, accounts, assets.comments, users, viewer));
  }

  /** The JSON text of a page of comments (what `comments` gives), each comment's text reused as issue texts are. */
  async commentsJson(list: CommentRecord[], issue: IssueRecord | Map<number, IssueRecord>, repo: RepoRecord, owner: Account, viewer: Caller | null): Promise<JsonPieces> {
    if (list.length === 0) return joinPieces([]);
    const [accounts, assets] = await Promise.all([this.service.users.byIds(list.map((c) => c.posterId)), this.assets([], list.map((c) => c.id))]);
    const fullName = `${owner.login}/${repo.name}`;
    const users = new Map<number, ApiUser>();
    return joinPieces(list.map((comment) => {
      const parent = issue instanceof Map ? issue.get(comment.issueId) : issue;
      const poster = accounts.get(comment.posterId);
      const own = assets.comments.get(comment.id);
      return this.commentJson.cached(comment, parent, fullName, poster, own, viewer, this.seesEmail)
        ?? this.commentJson.keep(comment, this.commentJson.keyOf(parent, fullName, poster, own, viewer, this.seesEmail),
          this.comment(comment, parent, fullName, accounts, assets.comments, users, viewer));
    }));
  }

  private comment(comment: CommentRecord, parent: IssueRecord | undefined, fullName: string, accounts: Map<number, Account>,
    assets: Map<number, unknown[]>, users: Map<number, ApiUser>, viewer: Caller | null): Record<string, unknown> {
    const number = parent?.number ?? 0;
    const isPull = parent?.isPull === true;
    let user = users.get(comment.posterId);
    if (user === undefined) {
      const account = accounts.get(comment.posterId);
      user = account ? this.service.users.toApi(account, viewer) : GHOST;
      users.set(comment.posterId, user);
    }
    return {
      id: comment.id,
      html_url: `${this.urls.root}${fullName}/${isPull ? 'pulls' : 'issues'}/${number}#issuecomment-${comment.id}`,
      pull_request_url: isPull ? `${this.urls.root}${fullName}/pulls/${number}` : '',
      issue_url: isPull ? '' : `${this.urls.root}${fullName}/issues/${number}`,
      user,
      original_author: '',
      original_author_id: 0,
      body: comment.body,
      assets: assets.get(comment.id) ?? [],
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
    };
  }

  /** The attachments of issues and comments, from the registered source (none registered: none). */
  private assets(issueIds: number[], commentIds: number[]): ReturnType<IssueAssetSource> {
    const source = this.service.assetSource;
    if (!source || (issueIds.length === 0 && commentIds.length === 0)) return Promise.resolve({ issues: new Map(), comments: new Map() });
    return source(issueIds, commentIds);
  }

  async reactions(list: ReactionRecord[], viewer: Caller | null): Promise<Array<Record<string, unknown>>> {
    const users = await this.usersById(list.map((r) => r.userId), viewer);
    return list.map((r) => ({ user: users.get(r.userId) ?? GHOST, content: r.content, created_at: r.createdAt }));
  }
}
