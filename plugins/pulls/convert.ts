// Stored pull requests, reviews and review comments → Gitea's API objects (PullRequest, PullReview,
// PullReviewComment, ChangedFile, Commit): the only place they are shaped.
import type { Caller, JsonPieces } from '../../core/plugin.js';
import type { IssueRecord } from '../../schemas/contracts/issues.js';
import { LIST_CLOSE, LIST_OPEN } from '../lib/doc-json.js';
import { PullTextCache } from './pull-json.js';
import { BranchFieldsSchema, PullRequestFieldsSchema } from './schemas.js';
import type { Account, ApiUser, RepoRecord } from '../../schemas/services.js';
import type { CommitVerification } from '../../schemas/contracts/contents.js';
import type { ChangedFileInfo, CommitInfo } from './git-ops.js';
import type { PullContext, PullRecord, Pulls, ReviewCommentRecord, ReviewRecord } from './service.js';

type Side = { repo: RepoRecord; owner: Account };
type RepoView = (side: Side | null) => Promise<Record<string, unknown> | null>;
type Serialize = (value: unknown) => string;

/** A branch of a pull request without its repository (PRBranchInfo's other fields). */
interface BranchFields {
  label: string;
  ref: string;
  sha: string;
  repo_id: number;
}

/** A pull request's fields but its branches, and its branches without their repositories. */
interface PullParts {
  fields: Record<string, unknown>;
  base: BranchFields;
  head: BranchFields;
}

/** What a list read for its whole page, handed to `parts`. */
interface KnownParts {
  requests: ReviewRecord[];
  issue: Record<string, unknown>;
  reviewComments: number;
  accounts: Map<number, Account>;
}

const NULL = Buffer.from('null');
const COMMA = Buffer.from(',');
const BRANCHES_END = Buffer.from('}}');

export class PullRenderer {
  /** A PullRequest's JSON without `base` and `head`, and a branch's without `repo` (`pullsJson` writes the rest). */
  private readonly serializeFields: Serialize;
  private readonly serializeBranch: Serialize;
  /** Each listed pull request's own text, while nothing it shows changed. */
  readonly cache: PullTextCache;

  constructor(private readonly s: Pulls) {
    this.serializeFields = s.ctx.serializer(PullRequestFieldsSchema);
    this.serializeBranch = s.ctx.serializer(BranchFieldsSchema);
    this.cache = new PullTextCache(s.ctx.settings.jsonCacheEntries ?? 4096);
  }

  private get urls() {
    return this.s.ctx.urls;
  }

  async user(id: number, viewer: Caller | null): Promise<ApiUser | null> {
    if (!id) return null;
    const account = await this.s.users.byId(id);
    return account ? this.s.users.toApi(account, viewer) : null;
  }

  /** Whether the viewer sees a branch's repository: a private fork never leaks through the pull requests of a public base. */
  private async shows(side: Side | null, viewer: Caller | null, event: boolean): Promise<boolean> {
    return side !== null && (event || (await this.s.repos.accessMode(viewer, side.repo)) >= 1);
  }

  /** A branch's repository as the viewer sees it; null when the viewer cannot read it. Events carry it as the anonymous API shows it. */
  private async repoApi(side: Side | null, viewer: Caller | null, event: boolean): Promise<Record<string, unknown> | null> {
    if (!side || !(await this.shows(side, viewer, event))) return null;
    const [api] = await this.s.repos.toApi([side.repo], viewer);
    return api ?? null;
  }

  /** PullRequest objects (each with its issue half, branches and reviewers) as `viewer` sees them. */
  async pulls(list: PullRecord[], viewer: Caller | null, base?: Side, event = false): Promise<Array<Record<string, unknown>>> {
    // One list shares its repositories: each is rendered once for the page, not once per pull request.
    const repos = new Map<number, Promise<Record<string, unknown> | null>>();
    const cached: RepoView = (side) => {
      if (!side) return Promise.resolve(null);
      let hit = repos.get(side.repo.id);
      if (!hit) repos.set(side.repo.id, hit = this.repoApi(side, viewer, event));
      return hit;
    };
    return (await Promise.all(list.map(async (pr) => {
      const c = await this.s.contextOf(pr, base);
      return c ? this.pull(c, viewer, event, cached) : null;
    }))).filter((x): x is Record<string, unknown> => x !== null);
  }

  async pull(c: PullContext, viewer: Caller | null, event = false, repoView?: RepoView): Promise<Record<string, unknown>> {
    const view: RepoView = repoView ?? ((side) => this.repoApi(side, viewer, event));
    const [parts, baseRepo, headRepo] = await Promise.all([this.parts(c, viewer), view(c.base), c.head === c.base ? null : view(c.head)]);
    return {
      ...parts.fields,
      base: { ...parts.base, repo: baseRepo },
      head: { ...parts.head, repo: c.head === c.base ? baseRepo : headRepo },
    };
  }

  /**
   * A PullRequestList as JSON text: each pull request's own text (kept while nothing it shows changed, pull-json.ts)
   * around its branches' repositories taken from the repos plugin's per-version JSON (a page of 50 pull requests
   * embeds 100 Repository objects, ~90% of its bytes). The same objects as `pulls`, in pieces. `issues` are the pull
   * requests' issue halves when the caller already read them (by issue id).
   */
  async pullsJson(list: PullRecord[], viewer: Caller | null, base: Side, issues?: ReadonlyMap<number, IssueRecord>): Promise<JsonPieces> {
    const contexts = (await Promise.all(list.map((pr) => this.s.contextOf(pr, base, issues?.get(pr.issueId))))).filter((c): c is PullContext => c !== null);
    // The repositories shown: the base (the caller read it to get here) and the heads the caller may read.
    const sides = new Map<number, Side>();
    for (const c of contexts) {
      sides.set(c.base.repo.id, c.base);
      if (c.head && !sides.has(c.head.repo.id)) sides.set(c.head.repo.id, c.head);
    }
    const shown: RepoRecord[] = [];
    for (const side of sides.values()) if (await this.shows(side, viewer, false)) shown.push(side.repo);
    const [texts, own] = await Promise.all([this.s.repos.toJsonTexts(shown, viewer), this.ownTexts(contexts, viewer, base)]);
    const out: Buffer[] = [LIST_OPEN];
    const pushRepo = (side: Side | null) => {
      const text = side ? texts.get(side.repo.id) : undefined;
      if (text) for (const piece of text) out.push(piece);
      else out.push(NULL);
    };
    contexts.forEach((c, i) => {
      if (i > 0) out.push(COMMA);
      out.push(own[i]!.open);
      pushRepo(c.base);
      out.push(own[i]!.middle);
      pushRepo(c.head);
      out.push(BRANCHES_END);
    });
    out.push(LIST_CLOSE);
    return out;
  }

  /** Each pull request's text but its repositories: the kept one where nothing it shows changed, else made now. */
  private async ownTexts(contexts: PullContext[], viewer: Caller | null, base: Side): Promise<Array<{ open: Buffer; middle: Buffer }>> {
    // What the texts show besides their records, read for the whole page: review requests (one query), review
    // comment counts, the reviewers' and mergers' accounts (one lookup), the issue halves' kept JSON.
    const requests = new Map<number, ReviewRecord[]>();
    const asked = await this.s.reviews.find({ pullId: { $in: contexts.map((c) => c.pr.id) }, state: 'REQUEST_REVIEW' }, { sort: { id: 1 } });
    for (const r of asked) {
      const list = requests.get(r.pullId);
      if (list) list.push(r);
      else requests.set(r.pullId, [r]);
    }
    const accountIds: number[] = [];
    for (const r of asked) if (r.reviewerId) accountIds.push(r.reviewerId);
    for (const c of contexts) if (c.pr.hasMerged && c.pr.mergedById) accountIds.push(c.pr.mergedById);
    // The issue halves' kept JSON only serves as keys: none when nothing is kept.
    const keeps = this.cache.keeps;
    const [counts, accounts, kept] = await Promise.all([
      Promise.all(contexts.map((c) => this.s.comments.count({ pullId: c.pr.id }))),
      accountIds.length ? this.s.users.byIds(accountIds) : Promise.resolve(new Map<number, Account>()),
      keeps ? this.s.issues.keptJson(contexts.map((c) => c.issue), base.repo, base.owner, viewer) : Promise.resolve(null),
    ]);
    const out = new Array<{ open: Buffer; middle: Buffer }>(contexts.length);
    const keys = new Array<unknown[] | null>(contexts.length);
    const missed: number[] = [];
    contexts.forEach((c, i) => {
      const key = kept ? this.keyOf(c, kept[i]!, counts[i]!, requests.get(c.pr.id) ?? [], accounts, viewer) : null;
      const hit = key && this.cache.get(c.pr.id, key);
      if (hit) out[i] = hit;
      else {
        keys[i] = key;
        missed.push(i);
      }
    });
    if (missed.length === 0) return out;
    // The issue halves of the others in one rendering (their posters, assignees, labels and milestones read once).
    const halves = await this.s.issues.toApiList(missed.map((i) => contexts[i]!.issue), base.repo, base.owner, viewer);
    const made = await Promise.all(missed.map((i, k) => this.parts(contexts[i]!, viewer, {
      requests: requests.get(contexts[i]!.pr.id) ?? [], issue: halves[k]!, reviewComments: counts[i]!, accounts,
    })));
    // Two strings a pull request, encoded together into one Buffer (a Buffer per string took a new 8 KB pool every
    // few pull requests).
    const strings: string[] = [];
    for (const p of made) {
      strings.push(`${this.serializeFields(p.fields).slice(0, -1)},"base":${this.serializeBranch(p.base).slice(0, -1)},"repo":`);
      strings.push(`},"head":${this.serializeBranch(p.head).slice(0, -1)},"repo":`);
    }
    const encoded = encodeAll(strings);
    missed.forEach((i, k) => {
      const text = { open: encoded[2 * k]!, middle: encoded[2 * k + 1]! };
      this.cache.keep(contexts[i]!.pr.id, keys[i]!, text.open, text.middle);
      out[i] = text;
    });
    return out;
  }

  /**
   * Everything a pull request's own text shows besides its record (pull-json.ts), as a flat list compared by
   * identity; null when it shows a team (teams are not followed: such a text is made every time).
   */
  private keyOf(c: PullContext, issueText: Buffer, reviewComments: number, requests: ReviewRecord[], accounts: Map<number, Account>, viewer: Caller | null): unknown[] | null {
    const { pr, issue, base, head } = c;
    const key: unknown[] = [pr, issue, issueText, base.repo.id, base.repo.name, base.owner.login, head?.repo.id ?? 0, head?.owner.login ?? '', reviewComments, requests.length];
    const addAccount = (id: number) => {
      const account = accounts.get(id);
      key.push(account, account !== undefined && this.s.users.seesEmail(account, viewer));
    };
    for (const r of requests) {
      if (!r.reviewerId && r.teamId) return null;
      key.push(r);
      addAccount(r.reviewerId);
    }
    if (pr.hasMerged) addAccount(pr.mergedById);
    return key;
  }

  /**
   * Everything of a PullRequest but its branches' repositories. `known`: what the caller already read for a page (its
   * review requests, issue half, review comment count and the reviewers' and merger's accounts).
   */
  private async parts(c: PullContext, viewer: Caller | null, known?: KnownParts): Promise<PullParts> {
    const { pr, base, head } = c;
    const issue = known?.issue ?? (await this.s.issues.toApi(c.issue, base.repo, base.owner, viewer));
    const fullName = `${base.owner.login}/${base.repo.name}`;
    const html = `${this.urls.root}${fullName}/pulls/${pr.number}`;
    const requests = known?.requests ?? (await this.s.reviews.find({ pullId: pr.id, state: 'REQUEST_REVIEW' }, { sort: { id: 1 } }));
    const userOf = async (id: number): Promise<ApiUser | null> => {
      const account = known?.accounts.get(id);
      return account ? this.s.users.toApi(account, viewer) : this.user(id, viewer);
    };
    const reviewers: ApiUser[] = [];
    const teams: Array<Record<string, unknown>> = [];
    for (const r of requests) {
      if (r.reviewerId) {
        const u = await userOf(r.reviewerId);
        if (u) reviewers.push(u);
      } else if (r.teamId && this.s.ctx.services.has('orgs')) {
        const team = await this.s.ctx.services.get('orgs').teamById(r.teamId);
        if (team) teams.push(teamToApi(team));
      }
    }
    const headLabel = head && head.repo.id !== base.repo.id ? `${head.owner.login}:${pr.headBranch}` : pr.headBranch;
    const reviewComments = known?.reviewComments ?? (await this.s.comments.count({ pullId: pr.id }));
    const fields = {
      id: pr.id,
      url: html,
      number: pr.number,
      user: issue.user,
      title: issue.title,
      body: issue.body,
      labels: issue.labels,
      milestone: issue.milestone,
      assignee: issue.assignee,
      assignees: issue.assignees,
      requested_reviewers: reviewers,
      requested_reviewers_teams: teams,
      state: issue.state,
      draft: isWorkInProgress(c.issue.title),
      is_locked: issue.is_locked,
      comments: issue.comments,
      review_comments: reviewComments,
      additions: pr.additions,
      deletions: pr.deletions,
      changed_files: pr.changedFiles,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      mergeable: !pr.hasMerged && (pr.status === 'mergeable' || pr.status === 'empty'),
      merged: pr.hasMerged,
      merged_at: pr.mergedAt,
      merge_commit_sha: pr.mergeCommitSha,
      merged_by: pr.hasMerged ? await userOf(pr.mergedById) : null,
      allow_maintainer_edit: pr.allowMaintainerEdit,
      merge_base: pr.mergeBase,
      conflicted_files: pr.conflictedFiles,
      due_date: issue.due_date,
      created_at: issue.created_at,
      updated_at: issue.updated_at,
      closed_at: issue.closed_at,
      pin_order: issue.pin_order,
    };
    return {
      fields,
      base: { label: pr.baseBranch, ref: pr.baseBranch, sha: pr.baseSha, repo_id: base.repo.id },
      head: { label: headLabel, ref: pr.headBranch, sha: pr.headSha, repo_id: head?.repo.id ?? 0 },
    };
  }

  async reviews(list: ReviewRecord[], c: PullContext, viewer: Caller | null): Promise<Array<Record<string, unknown>>> {
    const fullName = `${c.base.owner.login}/${c.base.repo.name}`;
    const out: Array<Record<string, unknown>> = [];
    for (const r of list) {
      const team = r.teamId && this.s.ctx.services.has('orgs') ? await this.s.ctx.services.get('orgs').teamById(r.teamId) : null;
      out.push({
        id: r.id,
        user: await this.user(r.reviewerId, viewer),
        team: team ? teamToApi(team) : null,
        state: r.state,
        body: r.body,
        commit_id: r.commitId,
        stale: r.stale || (r.commitId !== '' && r.commitId !== c.pr.headSha && r.state !== 'REQUEST_REVIEW' && r.state !== 'PENDING'),
        official: r.official,
        dismissed: r.dismissed,
        comments_count: await this.s.comments.count({ reviewId: r.id }),
        submitted_at: r.submittedAt ?? r.createdAt,
        updated_at: r.updatedAt,
        html_url: `${this.urls.root}${fullName}/pulls/${c.pr.number}#issuecomment-${r.id}`,
        pull_request_url: `${this.urls.root}${fullName}/pulls/${c.pr.number}`,
      });
    }
    return out;
  }

  async reviewComments(list: ReviewCommentRecord[], c: PullContext, viewer: Caller | null): Promise<Array<Record<string, unknown>>> {
    const fullName = `${c.base.owner.login}/${c.base.repo.name}`;
    const out: Array<Record<string, unknown>> = [];
    for (const r of list) {
      out.push({
        id: r.id,
        body: r.body,
        user: await this.user(r.posterId, viewer),
        resolver: null,
        pull_request_review_id: r.reviewId,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
        path: r.path,
        commit_id: r.commitId,
        original_commit_id: r.originalCommitId,
        diff_hunk: r.diffHunk,
        position: r.newPosition,
        original_position: r.oldPosition,
        html_url: `${this.urls.root}${fullName}/pulls/${c.pr.number}#issuecomment-${r.id}`,
        pull_request_url: `${this.urls.root}${fullName}/pulls/${c.pr.number}`,
      });
    }
    return out;
  }

  files(list: ChangedFileInfo[], c: PullContext): Array<Record<string, unknown>> {
    const fullName = `${c.base.owner.login}/${c.base.repo.name}`;
    const sha = c.pr.headSha;
    return list.map((f) => {
      const path = f.filename.split('/').map(encodeURIComponent).join('/');
      return {
        filename: f.filename,
        previous_filename: f.previousFilename ?? '',
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        changes: f.additions + f.deletions,
        html_url: `${this.urls.root}${fullName}/src/commit/${sha}/${path}`,
        contents_url: `${this.urls.api}repos/${fullName}/contents/${path}?ref=${sha}`,
        raw_url: `${this.urls.root}${fullName}/raw/commit/${sha}/${path}`,
      };
    });
  }

  commit(info: CommitInfo, c: PullContext, users: Map<string, ApiUser>, files: ChangedFileInfo[] | null, verification: CommitVerification | null = null): Record<string, unknown> {
    const fullName = `${c.base.owner.login}/${c.base.repo.name}`;
    const api = `${this.urls.api}repos/${fullName}`;
    const stats = files ? {
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      total: files.reduce((n, f) => n + f.additions + f.deletions, 0),
    } : null;
    return {
      url: `${api}/git/commits/${info.sha}`,
      sha: info.sha,
      created: info.committer.date,
      html_url: `${this.urls.root}${fullName}/commit/${info.sha}`,
      commit: {
        url: `${api}/git/commits/${info.sha}`,
        author: { name: info.author.name, email: info.author.email, date: info.author.date },
        committer: { name: info.committer.name, email: info.committer.email, date: info.committer.date },
        message: info.message,
        tree: { url: `${api}/git/trees/${info.tree}`, sha: info.tree, created: info.committer.date },
        // Checked by the contents plugin (ContentsService.commitVerification); unchecked when it is off.
        verification: verification ?? { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', payload: '', signer: null },
      },
      author: users.get(info.author.email.toLowerCase()) ?? null,
      committer: users.get(info.committer.email.toLowerCase()) ?? null,
      parents: info.parents.map((p) => ({ url: `${api}/git/commits/${p}`, sha: p, created: info.committer.date })),
      files: files ? files.map((f) => ({ filename: f.filename, status: f.status })) : null,
      stats,
    };
  }
}

/** UTF-8 bytes of each string, as views of one Buffer holding them all. */
function encodeAll(texts: readonly string[]): Buffer[] {
  let length = 0;
  for (const text of texts) length += Buffer.byteLength(text);
  const bytes = Buffer.allocUnsafe(length);
  const views: Buffer[] = [];
  let at = 0;
  for (const text of texts) {
    const n = bytes.write(text, at);
    views.push(bytes.subarray(at, at + n));
    at += n;
  }
  return views;
}

/**
 * Gitea's IsWorkInProgress: the title starts with one of `[repository.pull-request] WORK_IN_PROGRESS_PREFIXES`
 * (default `WIP:` and `[WIP]`, case-insensitive). Such a pull request is a `draft` and cannot be merged.
 */
export function isWorkInProgress(title: string): boolean {
  return /^\s*(\[wip\]|wip:)/i.test(title);
}

export function teamToApi(team: { id: number; name: string; description: string; permission: string; includesAllRepos: boolean }): Record<string, unknown> {
  return { id: team.id, name: team.name, description: team.description, permission: team.permission, includes_all_repositories: team.includesAllRepos };
}
