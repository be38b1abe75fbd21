// Handler plumbing every plugin needs: the signed-in caller, the shared services, an account named in the path.
import { fail } from '../../core/errors.js';
import type { Caller, ServiceRegistry } from '../../core/plugin.js';
import type { Account, OrgsService, ReposService, UsersService } from '../../schemas/services.js';

/** What these helpers read of a request context (structural, so any route's typed context fits). */
export interface WithCaller { readonly caller: Caller | null }
export interface WithServices { readonly app: { readonly services: ServiceRegistry } }

/** The authenticated caller, or 401. */
export function me(rc: WithCaller): Caller {
  if (!rc.caller) throw fail.unauthorized();
  return rc.caller;
}

/** The users service (every plugin using it declares `users` as a dependency). */
export function users(rc: WithServices): UsersService {
  return rc.app.services.get('users');
}

/** The repos service (for plugins depending on `repos`). */
export function repos(rc: WithServices): ReposService {
  return rc.app.services.get('repos');
}

/** The orgs service when the plugin is enabled, else null (for plugins listing `orgs` as an optional dependency). */
export function orgsIfEnabled(rc: WithServices): OrgsService | null {
  return rc.app.services.has('orgs') ? rc.app.services.get('orgs') : null;
}

/**
 * The user or organization of that name, or 404 — also when the caller may not see it (a limited account to anonymous
 * callers, a private one to strangers: Gitea's visibility rules), so nothing listed under it leaks.
 */
export async function accountOr404(rc: WithServices & WithCaller, name: string): Promise<Account> {
  const account = await users(rc).byName(name);
  if (!account || !(await users(rc).visibleTo(account, rc.caller))) throw fail.notFound();
  return account;
}
