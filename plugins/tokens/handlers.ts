// Token management under /users/{username}/tokens: Basic auth as that user (or a site admin), path user respected.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageWindow, pageHeaders } from '../../core/pagination.js';
import type { Account } from '../../schemas/services.js';
import { users } from '../lib/request.js';
import { grantedBits, type TokenDoc } from './service.js';
import { parseScopes, scopeNames, ScopeError } from '../../core/scopes.js';

/** The tokens plugin's settings (defaults in its settings schema). */
export interface TokensSettings {
  /** Scopes a token created without any gets; empty: such a request is refused, as Gitea 1.23 does. */
  defaultScopes: string[];
}

const tokens = (rc: RequestContext) => rc.app.services.get('tokens');

/** The path user, when the caller is that user or a site admin; 404 when unknown, 403 for anyone else. */
async function pathUser(rc: RequestContext<{ username: string }>): Promise<Account> {
  const account = await users(rc).byName(rc.params.username);
  if (!account || account.type !== 'user') throw fail.notFound();
  if (account.id !== rc.caller!.id && !rc.caller!.isAdmin) throw fail.forbidden('you may only manage your own tokens');
  return account;
}

const listed = (doc: TokenDoc) => ({ id: doc.id, name: doc.name, sha1: '', token_last_eight: doc.lastEight, scopes: scopeNames(grantedBits(doc)) });

export async function listTokens(rc: RequestContext<{ username: string }, { page?: number; limit?: number }>): Promise<Reply> {
  const account = await pathUser(rc);
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const [docs, total] = await Promise.all([tokens(rc).list(account.id, win.skip, win.limit), tokens(rc).count(account.id)]);
  return { status: 200, body: docs.map(listed), headers: pageHeaders(rc, total, win) };
}

/**
 * POST /users/{username}/tokens — Gitea's CreateAccessTokenOption `{name, scopes}`. Names are unique per account and
 * scopes are Gitea's (400 with Gitea's messages otherwise); no scope at all takes `defaultScopes` (none by default:
 * 400 "access token must have a scope", as Gitea 1.23).
 */
export async function createToken(rc: RequestContext<{ username: string }, unknown, { name: string; scopes?: string[] }>): Promise<Reply> {
  const account = await pathUser(rc);
  const settings = rc.app.settings as Readonly<TokensSettings>;
  let bits: number;
  try {
    bits = parseScopes(rc.body.scopes ?? []);
    if (bits === 0) bits = parseScopes(settings.defaultScopes);
  } catch (err) {
    if (err instanceof ScopeError) throw fail.badRequest(`invalid access token scope provided: ${err.message}`);
    throw err;
  }
  if (bits === 0) throw fail.badRequest('access token must have a scope');
  if ((await tokens(rc).byName(account.id, rc.body.name)).length) throw fail.badRequest('access token name has been used already');
  const scopes = scopeNames(bits);
  const { doc, token } = await tokens(rc).create(account.id, rc.body.name, scopes.join(','));
  // The only time the value is ever shown.
  return { status: 201, body: { id: doc.id, name: doc.name, sha1: token, token_last_eight: doc.lastEight, scopes } };
}

/** DELETE /users/{username}/tokens/{token} — by id, and when no token has that id, by name (Gitea); two of that name → 422. */
export async function deleteToken(rc: RequestContext<{ username: string; id: string }>): Promise<Reply> {
  const account = await pathUser(rc);
  const key = rc.params.id;
  if (/^[1-9][0-9]{0,15}$/.test(key) && (await tokens(rc).delete(account.id, Number(key)))) return { status: 204 };
  const named = await tokens(rc).byName(account.id, key);
  if (named.length > 1) throw fail.validation('token', `more than one token is named "${key}": delete it by id`);
  if (named.length === 0 || !(await tokens(rc).delete(account.id, named[0]!.id))) throw fail.notFound();
  return { status: 204 };
}
