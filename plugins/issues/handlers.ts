// Issue routes: list, search, create, read, edit, delete, lock, pin, assignees and subscriptions.
import { fail, ForgeError } from '../../core/errors.js';
import { pageHeaders, pageWindow, type PageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import { toRfc3339 } from '../../core/time.js';
import { ACCESS, type Account, type AccessMode, type RepoRecord } from '../../schemas/services.js';
import type { IssueChangeContext, IssueRecord } from '../../schemas/contracts/issues.js';
import type { RepoAndOwner } from './convert.js';
import type { IssueQuery, Issues } from './service.js';

export type Rc<P = any, Q = any, B = any> = RequestContext<P, Q, B>;

export function service(rc: Rc): Issues {
  return rc.app.services.get('issues') as Issues; // the contract, implemented by this plugin's class
}

export interface RepoAccess {
  repo: RepoRecord;
  owner: Account;
  mode: AccessMode;
}

/** The repository of the path for the caller: 404 when unreadable or when its issues are switched off. */
export async function repoOf(rc: Rc<{ owner: string; repo: string }>, minimum: AccessMode = ACCESS.read): Promise<RepoAccess> {
  const found = await readableRepo(rc);
  return withUnit(found, 'issues', minimum);
}

/** The repository for the caller (overall access), 404 when its issues are switched off; units are checked after. */
async function readableRepo(rc: Rc<{ owner: string; repo: string }>) {
  const found = await service(rc).repos.resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.read);
  // `has_issues: false` (the repository setting) turns every issue route off, read defensively: the field is optional.
  if (found.repo.hasIssues === false || found.repo.has_issues === false) throw fail.notFound();
  return found;
}

/**
 * Which kinds the caller may read in the repository (Gitea's ListRepoIssueComments): both, issues only or pull
 * requests only; 404 when neither (or the repository's issues are switched off).
 */
export async function readableKinds(rc: Rc<{ owner: string; repo: string }>): Promise<{ found: RepoAccess; issues: boolean; pulls: boolean }> {
  const readable = await readableRepo(rc);
  const issues = readable.unitMode('issues') >= ACCESS.read;
  const pulls = readable.unitMode('pulls') >= ACCESS.read;
  if (!issues && !pulls) throw fail.notFound();
  return { found: withUnit(readable, issues ? 'issues' : 'pulls', ACCESS.read), issues, pulls };
}

/**
 * The caller's mode on the issues (or, for a pull request, the pulls) unit: a team whose units_map leaves it out gets
 * 404 (Gitea's mustEnableIssuesOrPulls / CanReadIssuesOrPulls), below `minimum` 403.
 */
function withUnit(found: RepoAccess & { unitMode: (unit: 'issues' | 'pulls') => AccessMode }, unit: 'issues' | 'pulls', minimum: AccessMode): RepoAccess {
  const mode = found.unitMode(unit);
  if (mode < ACCESS.read) throw fail.notFound();
  if (mode < minimum) throw fail.forbidden(`this needs ${['none', 'read', 'write', 'admin', 'owner'][minimum]} access to the repository's ${unit}`);
  return { repo: found.repo, owner: found.owner, mode };
}

export async function issueOf(rc: Rc<{ owner: string; repo: string; index: number }>, minimum: AccessMode = ACCESS.read):
  Promise<RepoAccess & { issue: IssueRecord }> {
  const found = await readableRepo(rc);
  const issue = await service(rc).byNumber(found.repo.id, rc.params.index);
  // Unreadable units first: an issue number says nothing to a caller who may not read issues.
  if (!issue) {
    withUnit(found, 'issues', ACCESS.read);
    throw fail.notFound();
  }
  return { ...withUnit(found, issue.isPull ? 'pulls' : 'issues', minimum), issue };
}

/**
 * 423 Locked for an archived repository where Gitea's API has mustNotBeArchived: new issues, new comments and comment
 * edits. (Gitea's API leaves the other issue writes open on archived repositories; so does forgekit.)
 */
export function refuseArchived(found: RepoAccess): void {
  if (found.repo.archived === true) throw new ForgeError('LOCKED', `${found.owner.login}/${found.repo.name} is archived`);
}

export function changeContext(rc: Rc, found: RepoAccess): IssueChangeContext {
  return { repo: found.repo, owner: found.owner, caller: rc.caller as Caller };
}

export function canWrite(found: RepoAccess): boolean {
  return found.mode >= ACCESS.write;
}

export function window(rc: Rc): PageWindow {
  return pageWindow(rc.query ?? {}, rc.app.config.pagination);
}

async function renderOne(rc: Rc, found: RepoAccess, issue: IssueRecord): Promise<Record<string, unknown>> {
  return service(rc).toApi(issue, found.repo, found.owner, rc.caller);
}

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** An RFC 3339 query date as stored timestamps compare (UTC, whole seconds). */
function storedTime(value: string | undefined, roundUp: boolean): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw fail.validation(roundUp ? 'before' : 'since', 'must be an RFC 3339 date-time');
  return toRfc3339(roundUp ? Math.floor(ms / 1000) * 1000 : Math.ceil(ms / 1000) * 1000);
}

async function userIdFilter(rc: Rc, name: string | undefined): Promise<number | undefined> {
  if (!name) return undefined;
  const account = await service(rc).users.byName(name);
  if (!account) throw fail.notFound();
  return account.id;
}

interface ListQuery {
  state?: 'open' | 'closed' | 'all';
  labels?: string;
  milestones?: string;
  q?: string;
  type?: 'issues' | 'pulls';
  since?: string;
  before?: string;
  created_by?: string;
  assigned_by?: string;
  mentioned_by?: string;
  page?: number;
  limit?: number;
}

function stateFilter(state: string | undefined): boolean | undefined {
  return state === 'all' ? undefined : state === 'closed';
}

function typeFilter(type: string | undefined): boolean | undefined {
  return type === 'pulls' ? true : type === 'issues' ? false : undefined;
}

/** GET /repos/{owner}/{repo}/issues */
export async function listIssues(rc: Rc<{ owner: string; repo: string }, ListQuery>): Promise<Reply> {
  const query = rc.query ?? {};
  // Gitea's ListIssues by unit: a type the caller may not read is a 404; without a type, only the readable kind is
  // listed (pull requests alone for a team without the issues unit), and a 404 when neither is.
  const readable = await readableRepo(rc);
  let isPull = typeFilter(query.type);
  const canIssues = readable.unitMode('issues') >= ACCESS.read;
  const canPulls = readable.unitMode('pulls') >= ACCESS.read;
  if (isPull === undefined && canIssues !== canPulls) isPull = canPulls;
  const found = withUnit(readable, isPull === true || (isPull === undefined && !canIssues) ? 'pulls' : 'issues', ACCESS.read);
  const s = service(rc);
  const win = window(rc);
  const q: IssueQuery = {
    repoId: found.repo.id,
    isClosed: stateFilter(query.state),
    isPull,
    since: storedTime(query.since, false),
    before: storedTime(query.before, true),
    posterId: await userIdFilter(rc, query.created_by),
    assigneeId: await userIdFilter(rc, query.assigned_by),
    mentionId: await userIdFilter(rc, query.mentioned_by),
    q: query.q || undefined,
    skip: win.skip,
    limit: win.limit,
  };
  // Names that match no label or milestone are discarded (Gitea); a filter left with nothing matches nothing.
  const labelNames = splitList(query.labels);
  if (labelNames.length) {
    const usable = await s.labels.find(s.labelScope(found.repo, found.owner));
    const groups = labelNames.map((name) => usable.filter((l) => l.name === name || String(l.id) === name).map((l) => l.id))
      .filter((g) => g.length > 0);
    if (groups.length) q.labelGroups = groups;
  }
  const milestoneRefs = splitList(query.milestones);
  if (milestoneRefs.length) {
    const all = await s.milestones.find({ repoId: found.repo.id });
    const ids = all.filter((m) => milestoneRefs.some((r) => r.toLowerCase() === m.lowerTitle || r === String(m.id))).map((m) => m.id);
    if (ids.length) q.milestoneIds = ids;
  }
  const { total, issues } = await s.list(q);
  const body = await s.render.issuesJson(issues, new Map([[found.repo.id, found]]), rc.caller);
  return { status: 200, type: 'json-text', body, headers: pageHeaders(rc, total, win) };
}

interface SearchQuery extends ListQuery {
  assigned?: boolean;
  created?: boolean;
  mentioned?: boolean;
  owner?: string;
  team?: string;
}

/** GET /repos/issues/search: issues of every repository the caller can read. */
export async function searchIssues(rc: Rc<unknown, SearchQuery>): Promise<Reply> {
  const s = service(rc);
  const query = rc.query ?? {};
  const win = window(rc);
  const caller = rc.caller;
  const q: IssueQuery = {
    isClosed: stateFilter(query.state),
    isPull: typeFilter(query.type),
    since: storedTime(query.since, false),
    before: storedTime(query.before, true),
    q: query.q || undefined,
    skip: win.skip,
    limit: win.limit,
  };
  if (query.assigned || query.created || query.mentioned) {
    if (!caller) throw fail.unauthorized();
    if (query.created) q.posterId = caller.id;
    if (query.assigned) q.assigneeId = caller.id;
    if (query.mentioned) q.mentionId = caller.id;
  }
  const issuesOff = s.issuesOffRepoIds();
  if (issuesOff.length) q.excludeRepoIds = issuesOff;
  if (!s.repos.readsAll(caller)) {
    // Whole owners stay whole (their private rows by owner), so the count is a range per owner, not per repository.
    const granted = await s.repos.grantedReadableScope(caller, ['issues', 'pulls']);
    q.visiblePrivateRepoIds = granted.ids;
    if (granted.ownerIds.length) q.visiblePrivateOwnerIds = granted.ownerIds;
    // Teams whose units_map leaves out issues or pulls: those of their repositories stay out of the search.
    if (granted.blind.issues) q.excludeRepoIds = [...(q.excludeRepoIds ?? []), ...granted.blind.issues];
    if (granted.blind.pulls) q.excludePullRepoIds = granted.blind.pulls;
    // A restricted caller reads no public repository by itself: only the granted ones above.
    if (!s.repos.readsPublic(caller)) q.noPublicRepos = true;
    // Public repositories of owners the caller may not see (limited/private accounts) stay out too.
    const hiddenOwners = await s.repos.hiddenOwnerIds(caller);
    if (hiddenOwners.length) q.hiddenOwnerIds = hiddenOwners;
  }
  if (query.owner) {
    const owner = await s.users.byName(query.owner);
    if (!owner || !(await s.users.visibleTo(owner, caller))) throw fail.notFound();
    q.repoOwnerId = owner.id;
    if (query.team) {
      if (owner.type !== 'org') throw fail.badRequest('team can only be used with an organization as owner');
      // The team's repositories (its list, or all of the org's): the orgs service finds the team, repos its list.
      const orgs = s.orgs;
      const team = orgs ? await orgs.teamByName(owner.id, query.team) : null;
      if (!team) throw fail.notFound();
      q.repoIds = await s.repos.teamRepoIds(team);
    }
  } else if (query.team) {
    throw fail.badRequest('team needs owner');
  }
  const labelNames = splitList(query.labels);
  if (labelNames.length) {
    const labels = await s.labels.find({ name: { $in: labelNames } });
    const groups = labelNames.map((name) => labels.filter((l) => l.name === name).map((l) => l.id));
    // A name no repository has: nothing can match all of them.
    if (groups.some((g) => g.length === 0)) return { status: 200, body: [], headers: pageHeaders(rc, 0, win) };
    q.labelGroups = groups;
  }
  const milestoneNames = splitList(query.milestones).map((n) => n.toLowerCase());
  if (milestoneNames.length) {
    const milestones = await s.milestones.find({ lowerTitle: { $in: milestoneNames } });
    if (milestones.length === 0) return { status: 200, body: [], headers: pageHeaders(rc, 0, win) };
    q.milestoneIds = milestones.map((m) => m.id);
  }
  const { total, issues } = await s.list(q);
  const repoMap = new Map<number, RepoAndOwner>();
  const repos = await s.repos.byIds(issues.map((i) => i.repoId)); // repeats are fine: an `$in` yields each row once
  // The repositories' owners and the page's posters and assignees: one lookup.
  const userIds: number[] = [];
  for (const repo of repos.values()) userIds.push(repo.ownerId);
  for (const issue of issues) {
    userIds.push(issue.posterId);
    for (const id of issue.assigneeIds) userIds.push(id);
  }
  const accounts = await s.users.byIds(userIds);
  for (const [id, repo] of repos) {
    const owner = accounts.get(repo.ownerId);
    if (owner) repoMap.set(id, { repo, owner });
  }
  const visible = issues.filter((i) => repoMap.has(i.repoId));
  return { status: 200, type: 'json-text', body: await s.render.issuesJson(visible, repoMap, caller, accounts), headers: pageHeaders(rc, total, win) };
}

interface CreateIssueBody {
  title: string;
  body?: string;
  ref?: string;
  assignee?: string;
  assignees?: string[];
  due_date?: string | null;
  milestone?: number;
  labels?: number[];
  closed?: boolean;
}

async function assigneeIds(rc: Rc, names: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const account = await service(rc).users.byName(name);
    if (!account) throw fail.validation('assignees', `user ${name} does not exist`);
    if (!ids.includes(account.id)) ids.push(account.id);
  }
  return ids;
}

/** POST /repos/{owner}/{repo}/issues: readers open issues; labels, milestone, assignees and due date only from writers. */
export async function createIssue(rc: Rc<{ owner: string; repo: string }, unknown, CreateIssueBody>): Promise<Reply> {
  const found = await repoOf(rc);
  refuseArchived(found);
  const b = rc.body;
  const writer = canWrite(found);
  const names = [...(b.assignees ?? []), ...(b.assignee ? [b.assignee] : [])];
  const issue = await service(rc).create(changeContext(rc, found), {
    title: b.title,
    body: b.body,
    ref: b.ref,
    closed: b.closed,
    // Gitea drops what a reader may not set instead of refusing the issue.
    labelIds: writer ? b.labels : undefined,
    milestoneId: writer ? b.milestone : undefined,
    assigneeIds: writer ? await assigneeIds(rc, names) : undefined,
    deadline: writer && b.due_date ? storedTime(b.due_date, false) : null,
  });
  return { status: 201, body: await renderOne(rc, found, issue) };
}

/** GET /repos/{owner}/{repo}/issues/{index} */
export async function getIssue(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc);
  return { status: 200, body: await renderOne(rc, found, found.issue) };
}

interface EditIssueBody {
  title?: string;
  body?: string | null;
  ref?: string | null;
  assignee?: string | null;
  assignees?: string[] | null;
  milestone?: number | null;
  state?: 'open' | 'closed' | null;
  due_date?: string | null;
  unset_due_date?: boolean | null;
}

/** PATCH /repos/{owner}/{repo}/issues/{index}: the poster edits text and state; writers everything. 201 (Gitea). */
export async function editIssue(rc: Rc<{ owner: string; repo: string; index: number }, unknown, EditIssueBody>): Promise<Reply> {
  const found = await issueOf(rc);
  const s = service(rc);
  const c = changeContext(rc, found);
  const writer = canWrite(found);
  const caller = rc.caller!;
  if (!writer && found.issue.posterId !== caller.id) throw fail.forbidden('only the poster or a writer may edit this issue');
  const b = rc.body;
  // A writer-only field from the poster is refused rather than dropped: the client asked for a change it cannot make.
  if (!writer && (b.ref != null || b.assignee != null || b.assignees != null || b.milestone != null || b.due_date != null || b.unset_due_date)) {
    throw fail.forbidden('only writers may change the ref, assignees, milestone or due date');
  }
  let issue = found.issue;
  const set: { title?: string; body?: string; ref?: string; deadline?: string | null } = {};
  if (b.title !== undefined) set.title = b.title;
  if (b.body != null) set.body = b.body;
  if (b.ref != null) set.ref = b.ref;
  if (b.unset_due_date) set.deadline = null;
  else if (b.due_date) set.deadline = storedTime(b.due_date, false)!;
  if (Object.keys(set).length) issue = await s.edit(c, issue, set);
  if (b.assignees != null || b.assignee != null) {
    const names = b.assignees ?? (b.assignee ? [b.assignee] : []);
    issue = await s.setAssignees(c, issue, await assigneeIds(rc, names));
  }
  if (b.milestone != null) issue = await s.setMilestone(c, issue, b.milestone);
  if (b.state != null) issue = (await s.setClosed(c, issue, b.state === 'closed')) ?? (await s.byId(issue.id)) ?? issue;
  return { status: 201, body: await renderOne(rc, found, issue) };
}

/** DELETE /repos/{owner}/{repo}/issues/{index}: repository admins only. */
export async function deleteIssue(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc, ACCESS.admin);
  await service(rc).deleteIssue(changeContext(rc, found), found.issue);
  return { status: 204 };
}

/** PUT /repos/{owner}/{repo}/issues/{index}/lock */
export async function lockIssue(rc: Rc<{ owner: string; repo: string; index: number }, unknown, { lock_reason?: string }>): Promise<Reply> {
  const found = await issueOf(rc, ACCESS.write);
  await service(rc).setLocked(changeContext(rc, found), found.issue, true, rc.body?.lock_reason ?? '');
  return { status: 204 };
}

/** DELETE /repos/{owner}/{repo}/issues/{index}/lock */
export async function unlockIssue(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc, ACCESS.write);
  await service(rc).setLocked(changeContext(rc, found), found.issue, false);
  return { status: 204 };
}

/** POST /repos/{owner}/{repo}/issues/{index}/deadline: 201 IssueDeadline (writers). */
export async function editIssueDeadline(rc: Rc<{ owner: string; repo: string; index: number }, unknown, { due_date?: string | null }>): Promise<Reply> {
  const found = await issueOf(rc);
  if (!canWrite(found)) throw fail.forbidden('only writers may change the due date');
  const deadline = rc.body.due_date ? storedTime(rc.body.due_date, false)! : null;
  const issue = await service(rc).edit(changeContext(rc, found), found.issue, { deadline });
  return { status: 201, body: { due_date: issue.deadline } };
}

/** How many issues (and pull requests) a repository may pin (plugin setting `maxPinned`, Gitea's default 3). */
function maxPinned(rc: Rc): number {
  return (rc.app.settings as { maxPinned: number }).maxPinned;
}

/** GET /repos/{owner}/{repo}/new_pin_allowed */
export async function newPinAllowed(rc: Rc<{ owner: string; repo: string }>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  const [issues, pulls] = await Promise.all([
    s.issues.count({ repoId: found.repo.id, pinOrder: { $gt: 0 }, isPull: false }),
    s.issues.count({ repoId: found.repo.id, pinOrder: { $gt: 0 }, isPull: true }),
  ]);
  return { status: 200, body: { issues: issues < maxPinned(rc), pull_requests: pulls < maxPinned(rc) } };
}

/** POST /repos/{owner}/{repo}/issues/{index}/pin: 400 when the repository already pins the maximum (Gitea). */
export async function pinIssue(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc, ACCESS.write);
  const s = service(rc);
  if (found.issue.pinOrder === 0) {
    const pinned = await s.issues.count({ repoId: found.repo.id, pinOrder: { $gt: 0 }, isPull: found.issue.isPull });
    if (pinned >= maxPinned(rc)) throw fail.badRequest(`at most ${maxPinned(rc)} issues can be pinned`);
  }
  await s.setPinned(changeContext(rc, found), found.issue, true);
  return { status: 204 };
}

/** DELETE /repos/{owner}/{repo}/issues/{index}/pin */
export async function unpinIssue(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc, ACCESS.write);
  await service(rc).setPinned(changeContext(rc, found), found.issue, false);
  return { status: 204 };
}

/** PATCH /repos/{owner}/{repo}/issues/{index}/pin/{position} */
export async function moveIssuePin(rc: Rc<{ owner: string; repo: string; index: number; position: number }>): Promise<Reply> {
  const found = await issueOf(rc, ACCESS.write);
  await service(rc).movePin(found.issue, rc.params.position);
  return { status: 204 };
}

/** GET /repos/{owner}/{repo}/issues/pinned */
export async function listPinnedIssues(rc: Rc<{ owner: string; repo: string }>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  const pinned = await s.issues.find({ repoId: found.repo.id, pinOrder: { $gt: 0 }, isPull: false }, { sort: { pinOrder: 1 } });
  return { status: 200, body: await s.render.issues(pinned, new Map([[found.repo.id, found]]), rc.caller) };
}

/** Accounts that can write to the repository (Gitea's CanBeAssigned): owner, collaborators, organization teams. */
async function assignableIds(rc: Rc, found: RepoAccess): Promise<number[]> {
  const s = service(rc);
  const candidates = new Set<number>();
  if (found.owner.type === 'user') candidates.add(found.owner.id);
  for (const id of await s.repos.collaboratorIds(found.repo)) candidates.add(id);
  // An organization's repository: the members of its teams that write to it (their access is checked below).
  const orgs = s.orgs;
  if (found.owner.type === 'org' && orgs) {
    for (const team of await orgs.teamsOfOrg(found.owner.id)) {
      if (team.permission === 'none' || team.permission === 'read') continue;
      if (!team.includesAllRepos && !(await s.repos.teamRepoIds(team)).includes(found.repo.id)) continue;
      for (const id of await orgs.memberIdsOfTeam(team.id)) candidates.add(id);
    }
  }
  const accounts = await s.users.byIds([...candidates]);
  const out: number[] = [];
  for (const account of accounts.values()) {
    const mode = await s.repos.accessMode({ id: account.id, login: account.login, isAdmin: false, via: 'token' }, found.repo);
    if (mode >= ACCESS.write) out.push(account.id);
  }
  return out.sort((a, b) => a - b);
}

/** GET /repos/{owner}/{repo}/assignees */
export async function listAssignees(rc: Rc<{ owner: string; repo: string }>): Promise<Reply> {
  const found = await repoOf(rc);
  const s = service(rc);
  const ids = await assignableIds(rc, found);
  const users = await s.render.usersById(ids, rc.caller);
  return { status: 200, body: ids.map((id) => users.get(id)).filter((u) => u !== undefined) };
}

/** GET /repos/{owner}/{repo}/issues/{index}/subscriptions */
export async function listSubscriptions(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc);
  const s = service(rc);
  const win = window(rc);
  const filter = { issueId: found.issue.id, isWatching: { $ne: false } };
  const { docs: rows, total } = await s.watches.findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  const users = await s.render.usersById(rows.map((r) => r.userId), rc.caller);
  return { status: 200, body: rows.map((r) => users.get(r.userId)).filter((u) => u !== undefined), headers: pageHeaders(rc, total, win) };
}

/** GET /repos/{owner}/{repo}/issues/{index}/subscriptions/check */
export async function checkSubscription(rc: Rc<{ owner: string; repo: string; index: number }>): Promise<Reply> {
  const found = await issueOf(rc);
  const s = service(rc);
  const { subscribed, row } = await s.isSubscribed(found.issue, rc.caller!.id);
  const api = rc.app.urls.api;
  const fullName = `${found.owner.login}/${found.repo.name}`;
  return {
    status: 200,
    body: {
      subscribed, ignored: false, reason: null, created_at: row?.createdAt ?? found.issue.createdAt,
      url: `${api}repos/${fullName}/issues/${found.issue.number}`, repository_url: `${api}repos/${fullName}`,
    },
  };
}

async function subscriptionTarget(rc: Rc<{ owner: string; repo: string; index: number; user: string }>) {
  const found = await issueOf(rc);
  const target = await service(rc).users.byName(rc.params.user);
  if (!target || target.type !== 'user') throw fail.notFound();
  const caller = rc.caller!;
  if (target.id !== caller.id && !caller.isAdmin) throw fail.forbidden('a user can only subscribe or unsubscribe themselves');
  return { found, target };
}

/** PUT /repos/{owner}/{repo}/issues/{index}/subscriptions/{user}: 201 subscribed, 200 already (Gitea). */
export async function addSubscription(rc: Rc<{ owner: string; repo: string; index: number; user: string }>): Promise<Reply> {
  const { found, target } = await subscriptionTarget(rc);
  if (target.id !== rc.caller!.id && (await service(rc).repos.accessMode({ id: target.id, login: target.login, isAdmin: target.isAdmin === true, via: 'token', restricted: target.restricted === true }, found.repo)) < ACCESS.read) {
    throw fail.validation('user', `${target.login} cannot read this repository`);
  }
  const added = await service(rc).watch(found.issue, target.id, true);
  return { status: added ? 201 : 200 };
}

/** DELETE /repos/{owner}/{repo}/issues/{index}/subscriptions/{user}: 201 unsubscribed, 200 was not (Gitea). */
export async function deleteSubscription(rc: Rc<{ owner: string; repo: string; index: number; user: string }>): Promise<Reply> {
  const { found, target } = await subscriptionTarget(rc);
  const removed = await service(rc).unwatch(found.issue, target.id);
  return { status: removed ? 201 : 200 };
}
