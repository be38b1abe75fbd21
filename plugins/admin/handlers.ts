// Site administration: list, create, edit and delete user accounts (Gitea's /admin/users).
import type { RequestContext, Reply } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { AccountEdit } from '../../schemas/services.js';
import { users } from '../lib/request.js';

type Visibility = 'public' | 'limited' | 'private';

interface CreateUserBody {
  username: string;
  email: string;
  password: string;
  full_name?: string;
  admin?: boolean;
  login_name?: string;
  source_id?: number;
  must_change_password?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
}

/** Gitea's EditUserOption. */
export interface EditUserBody {
  email?: string;
  full_name?: string;
  login_name?: string;
  source_id?: number;
  active?: boolean;
  admin?: boolean;
  allow_create_organization?: boolean;
  allow_git_hook?: boolean;
  allow_import_local?: boolean;
  max_repo_creation?: number;
  prohibit_login?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
  website?: string;
  location?: string;
  description?: string;
  password?: string;
  must_change_password?: boolean;
}

/** forgekit has one authentication source, the local one (Gitea's source 0). */
function checkSource(sourceId: number | undefined): void {
  if (sourceId !== undefined && sourceId !== 0) throw fail.validation('source_id', 'only the local authentication source (0) exists');
}

export async function createUser(rc: RequestContext<unknown, unknown, CreateUserBody>): Promise<Reply> {
  const { username, email, password, full_name: fullName, admin } = rc.body;
  checkSource(rc.body.source_id);
  let account = await users(rc).createUser({ username, email, password, fullName, isAdmin: admin === true });
  const extra: AccountEdit = {
    loginName: rc.body.login_name, mustChangePassword: rc.body.must_change_password, restricted: rc.body.restricted, visibility: rc.body.visibility,
  };
  if (Object.values(extra).some((v) => v !== undefined)) account = await users(rc).editAccount(account, extra);
  return { status: 201, body: users(rc).toApi(account, rc.caller) };
}

/** GET /admin/users — every individual account in name order, paged (Gitea's admin SearchUsers). */
export async function listUsers(rc: RequestContext<unknown, { page?: number; limit?: number; source_id?: number; login_name?: string }>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  if (rc.query.source_id !== undefined && rc.query.source_id !== 0) return { status: 200, body: [], headers: pageHeaders(rc, 0, win) };
  const filter = rc.query.login_name !== undefined && rc.query.login_name !== '' ? { loginName: rc.query.login_name } : {};
  const { accounts, total } = await users(rc).listAccounts('user', win.skip, win.limit, filter);
  return { status: 200, type: 'json-text', body: users(rc).toJsonList(accounts, rc.caller), headers: pageHeaders(rc, total, win) };
}

/**
 * PATCH /admin/users/{username} — Gitea's EditUserOption: absent fields stay; a new password, demotion, disabled or
 * prohibited sign-in takes effect at once (cached sign-ins end); the last site admin cannot be demoted (400).
 */
export async function editUser(rc: RequestContext<{ username: string }, unknown, EditUserBody>): Promise<Reply> {
  const account = await users(rc).byName(rc.params.username);
  if (!account || account.type !== 'user') throw fail.notFound();
  const b = rc.body;
  checkSource(b.source_id);
  const updated = await users(rc).editAccount(account, {
    email: b.email, password: b.password, fullName: b.full_name, loginName: b.login_name, active: b.active, admin: b.admin,
    allowCreateOrganization: b.allow_create_organization, allowGitHook: b.allow_git_hook, allowImportLocal: b.allow_import_local,
    maxRepoCreation: b.max_repo_creation, prohibitLogin: b.prohibit_login, restricted: b.restricted, visibility: b.visibility,
    website: b.website, location: b.location, description: b.description, mustChangePassword: b.must_change_password,
  });
  return { status: 200, body: users(rc).toApi(updated, rc.caller) };
}

/** DELETE /admin/users/{username}[?purge=true] — 422 naming what blocks it (owned repositories unless purged, solely owned orgs). */
export async function deleteUser(rc: RequestContext<{ username: string }, { purge?: boolean }>): Promise<Reply> {
  const account = await users(rc).byName(rc.params.username);
  if (!account) throw fail.notFound();
  if (account.type !== 'user') throw fail.validation('username', 'is an organization; delete it with DELETE /orgs/{org}');
  if (account.id === rc.caller!.id) throw fail.validation('username', 'site administrators cannot delete their own account');
  await users(rc).deleteAccount(account, { purge: rc.query.purge === true });
  return { status: 204 };
}

/**
 * POST /admin/users/{username}/rename — 204; the new name is checked and must be free (422), an organization is a
 * 422 (Gitea's words). The account row, its repositories' directory and every cached sign-in follow (users service).
 */
export async function renameUser(rc: RequestContext<{ username: string }, unknown, { new_username: string }>): Promise<Reply> {
  const account = await users(rc).byName(rc.params.username);
  if (!account) throw fail.notFound();
  await users(rc).renameAccount(account, rc.body.new_username);
  rc.log.info({ from: account.login, to: rc.body.new_username, admin: rc.caller!.login }, 'user renamed by a site admin');
  return { status: 204 };
}
