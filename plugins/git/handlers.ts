// The git plugin's API routes: templates and licenses, forks, migrations and mirror-sync.
import { fail, ForgeError } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import { ACCESS, type Account, type RepoRecord } from '../../schemas/services.js';
import { orgsIfEnabled as orgs, repos, users } from '../lib/request.js';
import { toGitignore, toLicense, toLicenseEntry } from './convert.js';
import type { GitService } from './service.js';

type Rc<P = any, Q = any, B = any> = RequestContext<P, Q, B>;
type OwnerRepo = { owner: string; repo: string };

function git(rc: Rc): GitService {
  return rc.app.services.get('git');
}

async function one(rc: Rc, repo: RepoRecord): Promise<Record<string, unknown>> {
  const [api] = await repos(rc).toApi([repo], rc.caller);
  if (!api) throw fail.notFound();
  return api;
}

// ---- templates ----

/** GET /gitignore/templates */
export async function listGitignores(rc: Rc): Promise<Reply> {
  return { status: 200, body: git(rc).templates.gitignoreNames() };
}

/** GET /gitignore/templates/{name} */
export async function getGitignore(rc: Rc<{ name: string }>): Promise<Reply> {
  const t = git(rc).templates.gitignore(rc.params.name);
  if (!t) throw fail.notFound();
  return { status: 200, body: toGitignore(t.name, t.content) };
}

/** GET /licenses */
export async function listLicenses(rc: Rc): Promise<Reply> {
  return { status: 200, body: git(rc).templates.licenseList().map((l) => toLicenseEntry(l, rc.app.urls.api)) };
}

/** GET /licenses/{name} */
export async function getLicense(rc: Rc<{ name: string }>): Promise<Reply> {
  const templates = git(rc).templates;
  const info = templates.licenseInfo(rc.params.name);
  if (!info) throw fail.notFound();
  return { status: 200, body: toLicense(info, templates.licenseText(info.key), rc.app.urls.api) };
}

// ---- forks ----

/** GET /repos/{owner}/{repo}/forks — the forks the caller can read, oldest first. */
export async function listForks(rc: Rc<OwnerRepo>): Promise<Reply> {
  const service = repos(rc);
  const { repo: parent } = await service.resolve(rc.caller, rc.params.owner, rc.params.repo);
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const { repos: page, total } = await service.forksOf(rc.caller, parent.id, win);
  return { status: 200, type: 'json-text', body: await service.toJsonList(page, rc.caller), headers: pageHeaders(rc, total, win) };
}

interface ForkBody {
  organization?: string;
  name?: string;
}

/** POST /repos/{owner}/{repo}/forks — 202 with the new fork. */
export async function createFork(rc: Rc<OwnerRepo, unknown, ForkBody>): Promise<Reply> {
  const caller = rc.caller!;
  const g = git(rc);
  const { repo: parent, owner: parentOwner } = await repos(rc).resolve(caller, rc.params.owner, rc.params.repo);
  let target: Account | null;
  if (rc.body.organization !== undefined) {
    target = await users(rc).byName(rc.body.organization);
    if (!target || target.type !== 'org') throw fail.validation('organization', 'organization does not exist');
    const membership = orgs(rc);
    if (!caller.isAdmin && !(membership && (await membership.isMember(target.id, caller.id)))) {
      throw fail.forbidden('you are not a member of this organization');
    }
  } else {
    target = await users(rc).byId(caller.id);
    if (!target) throw fail.unauthorized();
  }
  const existing = await repos(rc).forkOf(target.id, parent.id);
  if (existing) throw fail.conflict(`${target.login} already has a fork of ${parentOwner.login}/${parent.name}: ${target.login}/${existing.name}`);
  const fork = await repos(rc).create(target, {
    name: rc.body.name ?? parent.name,
    description: parent.description,
    website: parent.website,
    private: parent.private,
    defaultBranch: parent.defaultBranch || undefined,
    fork: true,
    forkId: parent.id,
  }, caller, g.forkStorage(parent, parentOwner));
  return { status: 202, body: await one(rc, fork) };
}

// ---- migrations and mirrors ----

interface MigrateBody {
  clone_addr: string;
  repo_name: string;
  uid?: number;
  repo_owner?: string;
  mirror?: boolean;
  private?: boolean;
  description?: string;
  auth_username?: string;
  auth_password?: string;
}

/** Who the migrated repository belongs to: `uid` or `repo_owner`, else the caller; must be the caller, an org they own, or anyone for admins. */
async function migrationOwner(rc: Rc, caller: Caller, body: MigrateBody): Promise<Account> {
  let owner: Account | null;
  if (body.uid !== undefined && body.uid !== 0) {
    owner = await users(rc).byId(body.uid);
    if (!owner) throw fail.validation('uid', 'user does not exist');
  } else if (body.repo_owner !== undefined && body.repo_owner !== '') {
    owner = await users(rc).byName(body.repo_owner);
    if (!owner) throw fail.validation('repo_owner', 'user does not exist');
  } else {
    owner = await users(rc).byId(caller.id);
    if (!owner) throw fail.unauthorized();
  }
  if (owner.id === caller.id || caller.isAdmin) return owner;
  if (owner.type === 'org') {
    const membership = orgs(rc);
    if (membership && (await membership.isOwner(owner.id, caller.id))) return owner;
    throw fail.forbidden('Given user is not owner of organization.');
  }
  throw fail.forbidden('you may only migrate into your own account or an organization you own');
}

/** POST /repos/migrate — 201 with the new repository (a mirror when `mirror` is true). */
export async function migrate(rc: Rc<unknown, unknown, MigrateBody>): Promise<Reply> {
  const caller = rc.caller!;
  const b = rc.body;
  const g = git(rc);
  const owner = await migrationOwner(rc, caller, b);
  const remote = await g.checkRemote(b.clone_addr);
  // Gitea's CanImportLocal: a local path needs the server's permission (checked above) and the caller's own —
  // a site admin, or an account an admin gave `allow_import_local`.
  if (remote.kind === 'local' && !caller.isAdmin && (await users(rc).byId(caller.id))?.allowImportLocal !== true) {
    throw fail.validation('clone_addr', 'You are not allowed to import local repositories.');
  }
  const credentials = {
    username: b.auth_username || remote.username || null,
    password: b.auth_password || remote.password || null,
  };
  const mirror = b.mirror === true;
  const repo = await repos(rc).create(owner, {
    name: b.repo_name,
    description: b.description,
    private: b.private,
    mirror,
  }, caller, g.migrateStorage(remote, mirror, credentials));
  return { status: 201, body: await one(rc, repo) };
}

/** POST /repos/{owner}/{repo}/mirror-sync — write access first, then 200 and the sync runs in the background. */
export async function mirrorSync(rc: Rc<OwnerRepo>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.write);
  // Gitea's mustNotBeArchived runs before the mirror check: 423 Locked.
  if (repo.archived === true) throw new ForgeError('LOCKED', `${rc.params.owner}/${rc.params.repo} is archived`);
  if (!repo.mirror) throw fail.badRequest('Repository is not a mirror');
  git(rc).requestSync(repo.id);
  return { status: 200 };
}

// ---- server-side git hooks ----

/**
 * /repos/{owner}/{repo}/hooks/git[/{id}] — Gitea's git hook editor. forgekit never runs server-side hook scripts
 * (arbitrary code on the server: Gitea's DISABLE_GIT_HOOKS, on by default), so after the usual checks (unreadable:
 * 404, not a repository admin: 403) every caller gets Gitea's answer for an account that may not edit git hooks —
 * with hooks disabled Gitea refuses everyone, whatever `allow_git_hook` says.
 */
export async function gitHooksDisabled(rc: Rc<OwnerRepo>): Promise<Reply> {
  await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  throw fail.forbidden('must be allowed to edit Git hooks (this server runs no server-side git hooks)');
}
