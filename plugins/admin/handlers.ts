// Site administration: create and delete user accounts.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { users } from '../lib/request.js';

interface CreateUserBody {
  username: string;
  email: string;
  password: string;
  full_name?: string;
  admin?: boolean;
}

export async function createUser(rc: RequestContext<unknown, unknown, CreateUserBody>): Promise<Reply> {
  const { username, email, password, full_name: fullName, admin } = rc.body;
  const account = await users(rc).createUser({ username, email, password, fullName, isAdmin: admin === true });
  return { status: 201, body: users(rc).toApi(account, rc.caller) };
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
