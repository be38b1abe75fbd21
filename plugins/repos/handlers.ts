// The repos routes: create, read, edit, delete, collaborators, team repositories, lists and search.
import { fail, isForgeError } from '../../core/errors.js';
import { pageHeaders, pageWindow, type PageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { ACCESS, type Account, type OrgsService, type RepoRecord, type TeamRecord } from '../../schemas/services.js';
import { users } from '../lib/request.js';
import type { CollaboratorPermission, PageResult, Repos } from './service.js';
import type { SearchMode, SearchOptions, SearchSort } from './search.js';

type Rc<P = any, Q = any, B = any> = RequestContext<P, Q, B>;
type OwnerRepo = { owner: string; repo: string };

function repos(rc: Rc): Repos {
  // This plugin's own implementation: more than the ReposService contract other plugins see.
  return rc.app.services.get('repos') as Repos;
}

function orgs(rc: Rc): OrgsService {
  return rc.app.services.get('orgs');
}

async function one(rc: Rc, repo: RepoRecord): Promise<Record<string, unknown>> {
  const [api] = await repos(rc).toApi([repo], rc.caller);
  if (!api) throw fail.notFound();
  return api;
}

/**
 * A 200 with one repository's JSON from the texts lists reuse (serialised once per stored version, json-cache.ts):
 * the same bytes as serialising `one`, without building and serialising the object per request.
 */
async function oneReply(rc: Rc, repo: RepoRecord): Promise<Reply> {
  const body = (await repos(rc).toJsonTexts([repo], rc.caller)).get(repo.id);
  if (!body) throw fail.notFound();
  return { status: 200, type: 'json-text', body };
}

async function listReply(rc: Rc, result: PageResult, win: PageWindow): Promise<Reply> {
  return { status: 200, type: 'json-text', body: await repos(rc).toJsonList(result.repos, rc.caller, { grants: result.grants }), headers: pageHeaders(rc, result.total, win) };
}

function listWindow(rc: Rc): PageWindow {
  return pageWindow(rc.query ?? {}, rc.app.config.pagination);
}

interface CreateRepoBody {
  name: string;
  description?: string;
  private?: boolean;
  auto_init?: boolean;
  gitignores?: string;
  license?: string;
  readme?: string;
  default_branch?: string;
  template?: boolean;
}

async function createFor(rc: Rc<unknown, unknown, CreateRepoBody>, owner: Account): Promise<Reply> {
  const b = rc.body;
  const autoInit = b.auto_init === true;
  const repo = await repos(rc).create(owner, {
    name: b.name,
    description: b.description,
    private: b.private,
    // Honoured by auto_init (the first commit's branch) and by the first push's HEAD.
    defaultBranch: b.default_branch,
    template: b.template,
    init: {
      autoInit,
      gitignores: b.gitignores ?? '',
      license: b.license ?? '',
      // decisions.md: auto_init without a readme uses the Default template (Gitea 2017 answered 500).
      readme: autoInit && !b.readme ? 'Default' : b.readme ?? '',
    },
  }, rc.caller);
  return { status: 201, body: await one(rc, repo) };
}

/** POST /user/repos */
export async function createUserRepo(rc: Rc<unknown, unknown, CreateRepoBody>): Promise<Reply> {
  const me = await users(rc).byId(rc.caller!.id);
  if (!me) throw fail.unauthorized();
  return createFor(rc, me);
}

/** POST /admin/users/{username}/repos — a site admin creates a repository owned by that user (or organization). */
export async function adminCreateRepo(rc: Rc<{ username: string }, unknown, CreateRepoBody>): Promise<Reply> {
  const owner = await users(rc).byName(rc.params.username);
  if (!owner) throw fail.notFound();
  return createFor(rc, owner);
}

/** POST /org/{org}/repos — org owners (and site admins); unknown org 422, not an owner 403. */
export async function createOrgRepo(rc: Rc<{ org: string }, unknown, CreateRepoBody>): Promise<Reply> {
  const org = await users(rc).byName(rc.params.org);
  if (!org || org.type !== 'org') throw fail.validation('org', 'organization does not exist');
  const caller = rc.caller!;
  // Owners, and members of a team with can_create_org_repo (Gitea's CanCreateOrgRepo).
  if (!caller.isAdmin && !(await orgs(rc).canCreateRepo(org.id, caller.id))) {
    throw fail.forbidden('Given user is not allowed to create repositories in this organization.');
  }
  return createFor(rc, org);
}

/** GET /repos/{owner}/{repo} */
export async function getRepo(rc: Rc<OwnerRepo>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo);
  return oneReply(rc, repo);
}

/** GET /repositories/{id} — the same answer by id; unreadable is as missing as unknown (404). */
export async function getRepoById(rc: Rc<{ id: number }>): Promise<Reply> {
  const repo = await repos(rc).byId(rc.params.id);
  if (!repo || (await repos(rc).accessMode(rc.caller, repo)) < ACCESS.read) throw fail.notFound();
  return oneReply(rc, repo);
}

interface EditRepoBody {
  name?: string;
  description?: string;
  website?: string;
  private?: boolean;
  default_branch?: string;
  archived?: boolean;
  template?: boolean;
}

/** PATCH /repos/{owner}/{repo} — admin access. */
export async function editRepo(rc: Rc<OwnerRepo, unknown, EditRepoBody>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  if (rc.body.name !== undefined && rc.body.name !== repo.name) {
    throw fail.validation('name', `renaming a repository is not supported here; the name stays "${repo.name}"`);
  }
  const updated = await repos(rc).update(repo, {
    description: rc.body.description,
    website: rc.body.website,
    private: rc.body.private,
    defaultBranch: rc.body.default_branch,
    archived: rc.body.archived,
    template: rc.body.template,
    settings: rc.body as unknown as Record<string, unknown>,
  });
  return { status: 200, body: await one(rc, updated) };
}

/** DELETE /repos/{owner}/{repo} — owner access (the owning user, the org's owners, site admins). */
export async function deleteRepo(rc: Rc<OwnerRepo>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.owner);
  await repos(rc).delete(repo);
  return { status: 204 };
}

// ---- collaborators ----

/** GET /repos/{owner}/{repo}/collaborators — write access (who may push is not public). */
export async function listCollaborators(rc: Rc<OwnerRepo>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.write);
  const accounts = await users(rc).byIds(await repos(rc).collaboratorIds(repo));
  const list = [...accounts.values()]
    .sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
  const win = listWindow(rc);
  return {
    status: 200,
    body: list.slice(win.skip, win.skip + win.limit).map((u) => users(rc).toApi(u, rc.caller)),
    headers: pageHeaders(rc, list.length, win),
  };
}

/** GET /repos/{owner}/{repo}/collaborators/{collaborator} — 204 / 404. */
export async function checkCollaborator(rc: Rc<OwnerRepo & { collaborator: string }>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.write);
  const user = await users(rc).byName(rc.params.collaborator);
  if (!user || !(await repos(rc).isCollaborator(repo, user.id))) throw fail.notFound();
  return { status: 204 };
}

/** PUT /repos/{owner}/{repo}/collaborators/{collaborator} — admin access; body `{permission}` (default write). */
export async function addCollaborator(rc: Rc<OwnerRepo & { collaborator: string }, unknown, { permission?: CollaboratorPermission }>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  const user = await users(rc).byName(rc.params.collaborator);
  if (!user) throw fail.validation('collaborator', 'user does not exist');
  if (user.type !== 'user') throw fail.validation('collaborator', 'an organization cannot be a collaborator');
  if (user.id === repo.ownerId) throw fail.validation('collaborator', 'the owner of a repository cannot be its collaborator');
  await repos(rc).setCollaborator(repo, user.id, rc.body?.permission ?? 'write');
  return { status: 204 };
}

/** DELETE /repos/{owner}/{repo}/collaborators/{collaborator} — admin access; idempotent. */
export async function removeCollaborator(rc: Rc<OwnerRepo & { collaborator: string }>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  const user = await users(rc).byName(rc.params.collaborator);
  if (!user) throw fail.validation('collaborator', 'user does not exist');
  await repos(rc).removeCollaborator(repo, user.id);
  return { status: 204 };
}

// ---- team repositories ----

/** A team the caller may see (members of its organization, site admins); anything else is 404. */
async function visibleTeam(rc: Rc, id: number): Promise<TeamRecord> {
  const team = await orgs(rc).teamById(id);
  const caller = rc.caller!;
  if (!team || !(caller.isAdmin || (await orgs(rc).isMember(team.orgId, caller.id)))) throw fail.notFound();
  return team;
}

async function managedTeamRepo(rc: Rc<{ id: number; org: string; repo: string }>): Promise<{ team: TeamRecord; repo: RepoRecord }> {
  const team = await visibleTeam(rc, rc.params.id);
  const caller = rc.caller!;
  if (!caller.isAdmin && !(await orgs(rc).isOwner(team.orgId, caller.id))) throw fail.forbidden('only organization owners manage teams');
  const { repo } = await repos(rc).resolve(caller, rc.params.org, rc.params.repo);
  if (repo.ownerId !== team.orgId) throw fail.validation('repo', "the repository does not belong to the team's organization");
  return { team, repo };
}

/** GET /teams/{id}/repos */
export async function listTeamRepos(rc: Rc<{ id: number }>): Promise<Reply> {
  const team = await visibleTeam(rc, rc.params.id);
  const win = listWindow(rc);
  return listReply(rc, await repos(rc).teamRepoPage(team, rc.caller!, win), win);
}

/** GET /teams/{id}/repos/{org}/{repo} — the repository when the team reaches it, else 404. */
export async function getTeamRepo(rc: Rc<{ id: number; org: string; repo: string }>): Promise<Reply> {
  const team = await visibleTeam(rc, rc.params.id);
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.org, rc.params.repo);
  if (!(await repos(rc).teamRepoIds(team)).includes(repo.id)) throw fail.notFound();
  return { status: 200, body: await one(rc, repo) };
}

/** PUT /teams/{id}/repos/{org}/{repo} — idempotent 204. */
export async function addTeamRepo(rc: Rc<{ id: number; org: string; repo: string }>): Promise<Reply> {
  const { team, repo } = await managedTeamRepo(rc);
  await repos(rc).addTeamRepo(team, repo);
  return { status: 204 };
}

/** DELETE /teams/{id}/repos/{org}/{repo} — idempotent 204. */
export async function removeTeamRepo(rc: Rc<{ id: number; org: string; repo: string }>): Promise<Reply> {
  const { team, repo } = await managedTeamRepo(rc);
  await repos(rc).removeTeamRepo(team, repo);
  return { status: 204 };
}

// ---- lists and search ----

/** GET /user/repos */
export async function listMyRepos(rc: Rc): Promise<Reply> {
  const win = listWindow(rc);
  return listReply(rc, await repos(rc).listForCaller(rc.caller!, win), win);
}

/** GET /users/{username}/repos */
export async function listUserRepos(rc: Rc<{ username: string }>): Promise<Reply> {
  const owner = await users(rc).byName(rc.params.username);
  // A limited or private owner the caller may not see: as unknown (Gitea's visibility rules).
  if (!owner || !(await users(rc).visibleTo(owner, rc.caller))) throw fail.notFound();
  const win = listWindow(rc);
  return listReply(rc, await repos(rc).listOwnedBy(rc.caller, owner, win), win);
}

/** GET /orgs/{org}/repos — like `/users/{org}/repos`, for organizations only. */
export async function listOrgRepos(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await users(rc).byName(rc.params.org);
  if (!org || org.type !== 'org' || !(await users(rc).visibleTo(org, rc.caller))) throw fail.notFound();
  const win = listWindow(rc);
  return listReply(rc, await repos(rc).listOwnedBy(rc.caller, org, win), win);
}

/** The query of `GET /repos/search` (schemas.ts). */
interface SearchQuery {
  q?: string; uid?: number; page?: number; limit?: number; topic?: boolean; includeDesc?: boolean; priority_owner_id?: number;
  starredBy?: number; private?: boolean; is_private?: boolean; template?: boolean; archived?: boolean;
  exclusive?: boolean; mode?: SearchMode | ''; sort?: SearchSort | ''; order?: 'asc' | 'desc' | '';
}

/** GET /repos/search — `{ok:true,data}`; an internal failure is `500 {ok:false,error}`, never internals. */
export async function search(rc: Rc<unknown, SearchQuery>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.settings.search);
  const qs = rc.query;
  const positive = (n: number | undefined) => (n !== undefined && n > 0 ? n : undefined);
  try {
    const options: SearchOptions = {
      q: qs.q ?? '',
      uid: positive(qs.uid),
      topicOnly: qs.topic === true,
      includeDesc: qs.includeDesc === true,
      priorityOwnerId: positive(qs.priority_owner_id),
      starredBy: positive(qs.starredBy),
      private: qs.private,
      isPrivate: qs.is_private,
      archived: qs.archived,
      template: qs.template,
      exclusive: qs.exclusive === true,
      mode: qs.mode || undefined,
      // Gitea: `order` alone changes nothing; `sort` without `order` is ascending.
      sort: qs.sort || undefined,
      order: qs.sort ? (qs.order || 'asc') : undefined,
    };
    const result = await repos(rc).search(rc.caller, options, win);
    const body = await repos(rc).toJsonList(result.repos, rc.caller, { envelope: { before: '{"ok":true,"data":', after: '}' }, grants: result.grants });
    return { status: 200, type: 'json-text', body, headers: pageHeaders(rc, result.total, win) };
  } catch (err) {
    if (isForgeError(err) && err.status < 500) throw err;
    rc.log.error({ err }, 'repository search failed');
    return { status: 500, body: { ok: false, error: 'search failed' } };
  }
}
