// Pull request routes: list, create, get (by number or by base/head), edit, diff/patch, files, commits, merge, update.
import { fail, ForgeError } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import { toRfc3339 } from '../../core/time.js';
import { ACCESS, type Account, type AccessMode, type RepoRecord } from '../../schemas/services.js';
import type { IssueChangeContext, IssueListQuery } from '../../schemas/contracts/issues.js';
import { MergeRefusal, styleAllowed, type MergeStyle, type PullContext, type PullRecord, type Pulls } from './service.js';

export type Rc<P = any, Q = any, B = any> = RequestContext<P, Q, B>;
type RepoParams = { owner: string; repo: string };
type PullParams = RepoParams & { index: number };

export function service(rc: Rc): Pulls {
  return rc.app.services.get('pulls');
}

export interface RepoAccess {
  repo: RepoRecord;
  owner: Account;
  mode: AccessMode;
}

/** The base repository for the caller: 404 when unreadable or when its pull requests are switched off. */
export async function repoOf(rc: Rc<RepoParams>, minimum: AccessMode = ACCESS.read): Promise<RepoAccess> {
  // The pulls unit: a team without it gets 404, as Gitea's mustAllowPulls.
  const found = await service(rc).repos.resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.read, 'pulls');
  if (found.repo.hasPullRequests === false || found.repo.has_pull_requests === false) throw fail.notFound();
  if (found.mode < minimum) throw fail.forbidden(`this needs ${['none', 'read', 'write', 'admin', 'owner'][minimum]} access to the repository`);
  return found;
}

export async function pullOf(rc: Rc<PullParams>, minimum: AccessMode = ACCESS.read): Promise<RepoAccess & { c: PullContext }> {
  const found = await repoOf(rc, minimum);
  const pr = await service(rc).byNumber(found.repo.id, Number(rc.params.index));
  if (!pr) throw fail.notFound();
  const c = await service(rc).contextOf(pr, found);
  if (!c) throw fail.notFound();
  return { ...found, c };
}

function changeContext(rc: Rc, found: RepoAccess): IssueChangeContext {
  return { repo: found.repo, owner: found.owner, caller: rc.caller as Caller };
}

function refusal(err: unknown): never {
  if (err instanceof MergeRefusal) {
    if (err.status === 404) throw fail.notFound();
    if (err.status === 405) throw new ForgeError('METHOD_NOT_ALLOWED', err.message);
    if (err.status === 403) throw fail.forbidden(err.message);
    if (err.status === 422) throw fail.validation('body', err.message);
    throw fail.conflict(err.message);
  }
  throw err;
}

async function render(rc: Rc, found: RepoAccess, pr: PullRecord): Promise<Record<string, unknown>> {
  const [api] = await service(rc).render.pulls([pr], rc.caller, found);
  if (!api) throw fail.notFound();
  return api;
}

async function userIds(rc: Rc, names: string[], field: string): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const account = await service(rc).users.byName(name);
    if (!account || account.type !== 'user') throw fail.validation(field, `user ${name} does not exist`);
    if (!ids.includes(account.id)) ids.push(account.id);
  }
  return ids;
}

// ---- list ----

interface ListQuery {
  state?: 'open' | 'closed' | 'all';
  sort?: 'oldest' | 'recentupdate' | 'recentclose' | 'leastupdate' | 'mostcomment' | 'leastcomment' | 'priority';
  milestone?: number;
  labels?: number | number[];
  poster?: string;
  base_branch?: string;
  page?: number;
  limit?: number;
}

const SORTS: Record<string, Record<string, 1 | -1>> = {
  oldest: { id: 1 },
  recentupdate: { updatedAt: -1, id: -1 },
  leastupdate: { updatedAt: 1, id: 1 },
  recentclose: { closedAt: -1, id: -1 },
  mostcomment: { numComments: -1, id: -1 },
  leastcomment: { numComments: 1, id: 1 },
  priority: { pinOrder: -1, id: -1 },
};

/** GET /repos/{owner}/{repo}/pulls: Gitea's filters (state default open, sort, milestone, labels, poster, base_branch). */
export async function listPulls(rc: Rc<RepoParams, ListQuery>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  const query = rc.query ?? {};
  const win = pageWindow(query, rc.app.config.pagination);
  const q: IssueListQuery = {
    repoId: found.repo.id, isPull: true, skip: win.skip, limit: win.limit,
    isClosed: query.state === 'all' ? undefined : query.state === 'closed',
    sort: query.sort ? SORTS[query.sort] : undefined,
  };
  if (query.poster) {
    const poster = await s.users.byName(query.poster);
    if (!poster) throw fail.badRequest(`user ${query.poster} does not exist`);
    q.posterId = poster.id;
  }
  if (query.milestone) q.milestoneIds = [query.milestone];
  const labels = query.labels === undefined ? [] : Array.isArray(query.labels) ? query.labels : [query.labels];
  if (labels.length) q.labelGroups = labels.map((id) => [id]);
  if (query.base_branch) {
    const rows = await s.pulls.find({ repoId: found.repo.id, baseBranch: query.base_branch });
    q.ids = rows.map((r) => r.issueId);
  }
  const { total, issues } = await s.issues.list(q);
  const prs = await s.pulls.find({ issueId: { $in: issues.map((i) => i.id) } });
  const byIssue = new Map(prs.map((p) => [p.issueId, p]));
  const ordered = issues.map((i) => byIssue.get(i.id)).filter((p): p is PullRecord => p !== undefined);
  const body = await s.render.pullsJson(ordered, rc.caller, found, new Map(issues.map((i) => [i.id, i])));
  return { status: 200, type: 'json-text', body, headers: pageHeaders(rc, total, win) };
}

/** GET /repos/{owner}/{repo}/pulls/pinned */
export async function listPinnedPulls(rc: Rc<RepoParams>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  const { issues } = await s.issues.list({ repoId: found.repo.id, isPull: true, skip: 0, limit: 1000, sort: { pinOrder: 1 } });
  const pinned = issues.filter((i) => i.pinOrder > 0).sort((a, b) => a.pinOrder - b.pinOrder);
  const prs = await s.pulls.find({ issueId: { $in: pinned.map((i) => i.id) } });
  const byIssue = new Map(prs.map((p) => [p.issueId, p]));
  const ordered = pinned.map((i) => byIssue.get(i.id)).filter((p): p is PullRecord => p !== undefined);
  return { status: 200, body: await s.render.pulls(ordered, rc.caller, found) };
}

// ---- create ----

interface CreateBody {
  head: string;
  base: string;
  title: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  milestone?: number;
  labels?: number[];
  due_date?: string | null;
  reviewers?: string[];
  team_reviewers?: string[];
}

/**
 * The head of `head` (`branch`, `owner:branch` or `owner/repo:branch`): the base repository itself, the named
 * owner's fork of it, or (for a fork as base) its parent. A repository the caller cannot read is a 404.
 */
async function headOf(rc: Rc, found: RepoAccess, head: string): Promise<{ repo: RepoRecord; owner: Account; branch: string }> {
  const s = service(rc);
  const colon = head.indexOf(':');
  if (colon < 0) return { repo: found.repo, owner: found.owner, branch: head };
  const who = head.slice(0, colon);
  const branch = head.slice(colon + 1);
  if (!who || !branch) throw fail.validation('head', 'must be a branch, owner:branch or owner/repo:branch');
  let repo: RepoRecord | null = null;
  if (who.includes('/')) {
    const [o, n] = who.split('/', 2);
    repo = await s.repos.byOwnerAndName(o!, n!);
  } else {
    const account = await s.users.byName(who);
    if (!account) throw fail.notFound();
    if (account.id === found.owner.id) repo = found.repo;
    else repo = (await s.repos.forkOf(account.id, found.repo.id))
      ?? (found.repo.forkId ? await s.repos.byId(found.repo.forkId).then((p) => (p && p.ownerId === account.id ? p : null)) : null);
  }
  if (!repo) throw fail.notFound();
  // The head must be the base itself or in its fork family (a fork of it, its parent, or a sibling fork).
  const related = repo.id === found.repo.id || repo.forkId === found.repo.id || found.repo.forkId === repo.id
    || (repo.forkId !== null && repo.forkId === found.repo.forkId);
  if (!related) throw fail.validation('head', 'the head repository is not a fork of the base repository');
  if ((await s.repos.accessMode(rc.caller, repo)) < ACCESS.read) throw fail.notFound();
  const owner = repo.id === found.repo.id ? found.owner : await s.users.byId(repo.ownerId);
  if (!owner) throw fail.notFound();
  return { repo, owner, branch };
}

async function reviewerIds(rc: Rc, found: RepoAccess, names: string[], posterId: number): Promise<number[]> {
  const s = service(rc);
  const ids = await userIds(rc, names, 'reviewers');
  for (const id of ids) {
    const account = (await s.users.byId(id))!;
    if (id === posterId) throw fail.validation('reviewers', 'the poster cannot be requested to review');
    const mode = await s.repos.accessMode({ id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'token', restricted: account.restricted === true }, found.repo);
    if (mode < ACCESS.read) throw fail.validation('reviewers', `${account.login} cannot read this repository`);
  }
  return ids;
}

async function teamIds(rc: Rc, found: RepoAccess, names: string[]): Promise<number[]> {
  if (names.length === 0) return [];
  if (found.owner.type !== 'org' || !rc.app.services.has('orgs')) throw fail.validation('team_reviewers', 'only repositories of an organization have teams');
  const teams = await rc.app.services.get('orgs').teamsOfOrg(found.owner.id);
  const ids: number[] = [];
  for (const name of names) {
    const team = teams.find((t) => t.lowerName === name.toLowerCase());
    if (!team) throw fail.validation('team_reviewers', `team ${name} does not exist`);
    if (!ids.includes(team.id)) ids.push(team.id);
  }
  return ids;
}

/** POST /repos/{owner}/{repo}/pulls: 201 PullRequest; the same open head/base pair again is a 409. */
export async function createPull(rc: Rc<RepoParams, unknown, CreateBody>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  const b = rc.body;
  const head = await headOf(rc, found, b.head.trim());
  const baseBranch = b.base.trim();
  if (head.repo.id === found.repo.id && head.branch === baseBranch) {
    throw fail.validation('head', 'Invalid PullRequest: There are no changes between the head and the base');
  }
  const writer = found.mode >= ACCESS.write;
  const caller = rc.caller!;
  const names = [...(b.assignees ?? []), ...(b.assignee ? [b.assignee] : [])];
  const pr = await s.create(changeContext(rc, found), {
    head: { repo: head.repo, owner: head.owner }, headBranch: head.branch, baseBranch,
    title: b.title, body: b.body,
    // Like the issues plugin: what only writers may set is dropped for others.
    assigneeIds: writer ? await userIds(rc, names, 'assignees') : undefined,
    labelIds: writer ? b.labels : undefined,
    milestoneId: writer ? b.milestone : undefined,
    deadline: writer && b.due_date ? toRfc3339(Date.parse(b.due_date)) : null,
    reviewerIds: await reviewerIds(rc, found, b.reviewers ?? [], caller.id),
    teamIds: await teamIds(rc, found, b.team_reviewers ?? []),
  });
  return { status: 201, body: await render(rc, found, pr) };
}

// ---- read ----

/** GET /repos/{owner}/{repo}/pulls/{index} (and `{index}.diff` / `{index}.patch`: repoDownloadPullDiffOrPatch). */
export async function getPull(rc: Rc<RepoParams & { index: string }, { binary?: boolean }>): Promise<Reply> {
  const m = /^(\d{1,15})(?:\.(diff|patch))?$/.exec(rc.params.index);
  if (!m) throw fail.notFound();
  const params = { ...rc.params, index: Number(m[1]) };
  const found = await pullOf({ ...rc, params } as Rc<PullParams>);
  const s = service(rc);
  if (!m[2]) return { status: 200, body: await render(rc, found, found.c.pr) };
  const { pr } = found.c;
  const dir = s.dirOf(found.c.base);
  const from = pr.mergeBase || pr.baseSha;
  if (!from || !pr.headSha) return { status: 200, type: 'text', body: '' };
  const binary = rc.query?.binary === true;
  const text = m[2] === 'diff' ? await s.ops.diff(dir, from, pr.headSha, binary) : await s.ops.patch(dir, from, pr.headSha, binary);
  return { status: 200, type: 'text', body: text };
}

/** GET /repos/{owner}/{repo}/pulls/{base}/{head}: the open (or latest) pull request of that pair. */
export async function getPullByBaseHead(rc: Rc<RepoParams & { index: string; '*': string }>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  const base = rc.params.index;
  const headParam = rc.params['*'];
  let headRepoId = found.repo.id;
  let branch = headParam;
  const colon = headParam.indexOf(':');
  if (colon >= 0) {
    const who = headParam.slice(0, colon);
    branch = headParam.slice(colon + 1);
    const [o, n] = who.includes('/') ? who.split('/', 2) : [who, found.repo.name];
    const repo = await s.repos.byOwnerAndName(o!, n!);
    if (!repo || (await s.repos.accessMode(rc.caller, repo)) < ACCESS.read) throw fail.notFound();
    headRepoId = repo.id;
  }
  const rows = await s.pulls.find({ repoId: found.repo.id, baseBranch: base, headRepoId, headBranch: branch }, { sort: { id: -1 } });
  if (rows.length === 0) throw fail.notFound();
  // The open one first (Gitea's GetPullRequestByBaseHeadInfo takes the latest).
  let chosen = rows[0]!;
  for (const row of rows) {
    const issue = await s.issues.byId(row.issueId);
    if (issue && !issue.isClosed) {
      chosen = row;
      break;
    }
  }
  return { status: 200, body: await render(rc, found, chosen) };
}

/** GET /repos/{owner}/{repo}/pulls/{index}/files: ChangedFile list, paged. */
export async function listFiles(rc: Rc<PullParams, { page?: number; limit?: number }>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  const { pr } = found.c;
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const from = pr.mergeBase || pr.baseSha;
  const files = from && pr.headSha ? await s.ops.changedFiles(s.dirOf(found.c.base), from, pr.headSha) : [];
  const page = files.slice(win.skip, win.skip + win.limit);
  return { status: 200, body: s.render.files(page, found.c), headers: pageHeaders(rc, files.length, win) };
}

/** GET /repos/{owner}/{repo}/pulls/{index}/commits: the head's commits not in the base, newest first. */
export async function listCommits(rc: Rc<PullParams, { page?: number; limit?: number; files?: boolean; verification?: boolean }>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  const { pr } = found.c;
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const from = pr.mergeBase || pr.baseSha;
  if (!from || !pr.headSha) return { status: 200, body: [], headers: pageHeaders(rc, 0, win) };
  const dir = s.dirOf(found.c.base);
  const { total, commits } = await s.ops.commits(dir, from, pr.headSha, win.skip, win.limit);
  const withFiles = rc.query?.files !== false;
  const users = await usersByEmail(rc, commits.flatMap((c) => [c.author.email, c.committer.email]));
  const body = [];
  const verify = rc.query?.verification !== false ? s.contents : null;
  for (const commit of commits) {
    const files = withFiles ? await s.ops.changedFiles(dir, commit.parents[0] ?? '4b825dc642cb6eb9a060e54bf8d69288fbee4904', commit.sha) : null;
    const verification = verify ? await verify.commitVerification(found.c.base.repo, found.c.base.owner, commit.sha) : null;
    body.push(s.render.commit(commit, found.c, users, files, verification));
  }
  return { status: 200, body, headers: pageHeaders(rc, total, win) };
}

/** Accounts behind commit emails (primary, verified or no-reply addresses: UsersService.byEmail), as API users. */
async function usersByEmail(rc: Rc, emails: string[]) {
  const s = service(rc);
  const out = new Map<string, ReturnType<typeof s.users.toApi>>();
  for (const raw of new Set(emails.map((e) => e.toLowerCase()))) {
    const account = raw ? await s.users.byEmail(raw) : null;
    if (account) out.set(raw, s.users.toApi(account, rc.caller));
  }
  return out;
}

// ---- edit ----

interface EditBody {
  title?: string;
  body?: string | null;
  base?: string;
  assignee?: string;
  assignees?: string[] | null;
  milestone?: number;
  labels?: number[] | null;
  state?: 'open' | 'closed' | null;
  due_date?: string | null;
  unset_due_date?: boolean | null;
  allow_maintainer_edit?: boolean | null;
}

/** PATCH /repos/{owner}/{repo}/pulls/{index}: the poster edits text and state; writers everything. 201 (Gitea). */
export async function editPull(rc: Rc<PullParams, unknown, EditBody>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  const caller = rc.caller!;
  const writer = found.mode >= ACCESS.write;
  let { issue, pr } = found.c;
  if (!writer && issue.posterId !== caller.id) throw fail.forbidden('only the poster or a writer may edit this pull request');
  const b = rc.body;
  const c = changeContext(rc, found);
  const set: { title?: string; body?: string; deadline?: string | null } = {};
  if (b.title) set.title = b.title;
  if (b.body != null) set.body = b.body;
  if (b.unset_due_date) set.deadline = null;
  else if (b.due_date) set.deadline = toRfc3339(Date.parse(b.due_date));
  if (Object.keys(set).length) issue = await s.issues.edit(c, issue, set);
  if (writer && (b.assignees != null || b.assignee)) {
    issue = await s.issues.setAssignees(c, issue, await userIds(rc, b.assignees ?? (b.assignee ? [b.assignee] : []), 'assignees'));
  }
  if (writer && b.milestone !== undefined && b.milestone !== issue.milestoneId) issue = await s.issues.setMilestone(c, issue, b.milestone);
  if (writer && b.labels != null) issue = await s.issues.replaceLabels(c, issue, b.labels);
  if (b.state != null) {
    if (pr.hasMerged) throw new ForgeError('VALIDATION', 'cannot change state of this pull request, it was already merged');
    const closed = b.state === 'closed';
    if (!closed && issue.isClosed) {
      const dup = await s.pulls.find({ repoId: pr.repoId, headRepoId: pr.headRepoId, headBranch: pr.headBranch, baseBranch: pr.baseBranch, hasMerged: false });
      for (const other of dup) {
        if (other.id === pr.id) continue;
        const oi = await s.issues.byId(other.issueId);
        if (oi && !oi.isClosed) throw fail.conflict('another open pull request exists for these targets');
      }
    }
    // The issues service announces closed/reopened (issue.pull_changed → pull_request.changed).
    const changed = await s.issues.setClosed(c, issue, closed);
    if (changed) {
      issue = changed;
      if (!closed) await s.refresh(pr.id);
    }
  }
  if (!pr.hasMerged && b.base && b.base !== pr.baseBranch) {
    if (!writer && issue.posterId !== caller.id) throw fail.forbidden('only the poster or a writer may change the base');
    if (!(await s.ops.branchSha(s.dirOf(found.c.base), b.base))) throw fail.notFound();
    if (issue.isClosed) throw fail.validation('base', 'the pull request is closed');
    const from = pr.baseBranch;
    pr = (await s.pulls.findOneAndUpdate({ id: pr.id, hasMerged: false }, { $set: { baseBranch: b.base } })) ?? pr;
    pr = (await s.refresh(pr.id)) ?? pr;
    await s.emit('edited', pr, caller.id, { changes: { ref: { from } } });
  }
  if (b.allow_maintainer_edit != null && b.allow_maintainer_edit !== pr.allowMaintainerEdit) {
    if (issue.posterId !== caller.id && !writer) throw fail.forbidden('only the poster may allow maintainer edits');
    pr = (await s.pulls.findOneAndUpdate({ id: pr.id }, { $set: { allowMaintainerEdit: b.allow_maintainer_edit } })) ?? pr;
  }
  const fresh = (await s.pulls.findOne({ id: pr.id })) ?? pr;
  return { status: 201, body: await render(rc, found, fresh) };
}

// ---- merge ----

/** GET /repos/{owner}/{repo}/pulls/{index}/merge: 204 when merged, 404 otherwise. */
export async function isMerged(rc: Rc<PullParams>): Promise<Reply> {
  const found = await pullOf(rc);
  if (!found.c.pr.hasMerged) throw fail.notFound();
  return { status: 204 };
}

interface MergeBody {
  Do: MergeStyle;
  MergeTitleField?: string;
  MergeMessageField?: string;
  MergeCommitID?: string;
  head_commit_id?: string;
  delete_branch_after_merge?: boolean;
  force_merge?: boolean;
  merge_when_checks_succeed?: boolean;
}

/**
 * POST /repos/{owner}/{repo}/pulls/{index}/merge: 200 when merged. A style the repository does not allow is a 405,
 * protection and state refusals 405 (Gitea), conflicts, a moved base or a stale `head_commit_id` 409.
 */
export async function mergePull(rc: Rc<PullParams, unknown, MergeBody>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  const b = rc.body;
  const caller = rc.caller!;
  if (b.merge_when_checks_succeed) {
    throw fail.validation('merge_when_checks_succeed', 'scheduled merges (merge when checks succeed) are not supported: merge once the checks pass');
  }
  const style = b.Do;
  try {
    if (!styleAllowed(found.repo, style)) throw new MergeRefusal(405, `${style} is not allowed an allowed merge style for this repository`);
    // The mergeability the check reads must be current: a branch may have moved without a push event (a fork).
    const fresh = (await s.refresh(found.c.pr.id)) ?? found.c.pr;
    const c = { ...found.c, pr: fresh };
    await s.checkMergeable(c, caller, found.mode, style, b.force_merge === true);
    if (style === 'manually-merged') {
      await s.markManuallyMerged(c, caller, (b.MergeCommitID ?? '').trim().toLowerCase());
      return { status: 200 };
    }
    let message = (b.MergeTitleField ?? '').trim() || await s.defaultMessage(c, style);
    const extra = (b.MergeMessageField ?? '').trim();
    if (extra) message += `\n\n${extra}`;
    await s.merge(c, caller, style, message, (b.head_commit_id ?? '').trim().toLowerCase());
    const deleteBranch = b.delete_branch_after_merge ?? (found.repo.defaultDeleteBranchAfterMerge === true);
    if (deleteBranch) await deleteHeadBranch(rc, c);
  } catch (err) {
    refusal(err);
  }
  return { status: 200 };
}

/**
 * After a merge: the head branch goes when the caller may delete it, it is not protected or the default branch, and
 * no other open pull request uses it as head (Gitea's checks); otherwise it stays and the merge still succeeds.
 */
async function deleteHeadBranch(rc: Rc, c: PullContext): Promise<void> {
  const s = service(rc);
  const head = c.head;
  if (!head || head.repo.defaultBranch === c.pr.headBranch) return;
  const caller = rc.caller!;
  if ((await s.repos.accessMode(caller, head.repo)) < ACCESS.write) return;
  const others = await s.pulls.find({ headRepoId: head.repo.id, headBranch: c.pr.headBranch, hasMerged: false });
  for (const other of others) {
    const issue = await s.issues.byId(other.issueId);
    if (issue && !issue.isClosed) return;
  }
  const dir = s.dirOf(head);
  const sha = await s.ops.branchSha(dir, c.pr.headBranch);
  if (!sha) return;
  const ref = `refs/heads/${c.pr.headBranch}`;
  const before = await s.git.readRefs(head.repo, head.owner);
  const refused = await s.git.checkPush({ repo: head.repo, owner: head.owner, pusherId: caller.id, via: 'api', updates: [{ ref, oldSha: sha, newSha: '0'.repeat(40) }] });
  if (refused) return;
  const r = await s.ops.exec(dir, ['update-ref', '-d', ref, sha]);
  if (r.code === 0) await s.git.afterPush(head.repo, head.owner, before, caller.id, 'api');
}

/** POST /repos/{owner}/{repo}/pulls/{index}/update?style=merge|rebase: brings the base into the head branch. */
export async function updatePull(rc: Rc<PullParams, { style?: 'merge' | 'rebase' }>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  const caller = rc.caller!;
  const { c } = found;
  if (c.pr.hasMerged || c.issue.isClosed) throw fail.validation('index', 'the pull request is closed or merged');
  if (!c.head) throw fail.notFound();
  s.repos.assertWritable(c.head.repo);
  const style = rc.query?.style ?? 'merge';
  if (style === 'rebase' && found.repo.allowRebaseUpdate === false) throw fail.forbidden('updating by rebase is not allowed in this repository');
  // Who may push to the head: a writer of the head repository, or a base writer when the poster allows maintainer edits.
  const headMode = await s.repos.accessMode(caller, c.head.repo);
  const maintainer = c.pr.allowMaintainerEdit && found.mode >= ACCESS.write;
  if (headMode < ACCESS.write && !maintainer) throw fail.forbidden('you may not push to the head branch');
  try {
    await s.updateHead(c, caller, style);
  } catch (err) {
    refusal(err);
  }
  return { status: 200 };
}
