// Follow operations: the caller's followers/following, checks, follow/unfollow, and any user's public lists.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { accountOr404, me, users } from '../lib/request.js';
import { accountsInOrder } from './convert.js';
import type { Follows, FollowSide } from './service.js';

type Rc<P = Record<string, never>, Q = PageQuery> = RequestContext<P, Q, unknown>;
interface PageQuery { page?: number; limit?: number }

const NO_CONTENT: Reply = { status: 204 };

function follows(rc: Rc<any, any>): Follows {
  return rc.app.services.get('follow');
}

async function list(rc: Rc<any>, side: FollowSide, uid: number): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const u = users(rc);
  const { ids, total } = await follows(rc).visiblePage(side, uid, win, (among) => u.hiddenAmong(among, rc.caller, 'user'),
    () => u.hiddenIds(rc.caller, 'user'));
  const accounts = accountsInOrder(ids, await users(rc).byIds(ids));
  // Users as `toApi` shows them to this caller, from JSON made once per account version.
  return { status: 200, type: 'json-text', body: users(rc).toJsonList(accounts, rc.caller), headers: pageHeaders(rc, total, win) };
}

/** GET /user/followers */
export async function listMyFollowers(rc: Rc): Promise<Reply> {
  return list(rc, 'followers', me(rc).id);
}

/** GET /user/following */
export async function listMyFollowing(rc: Rc): Promise<Reply> {
  return list(rc, 'following', me(rc).id);
}

/** GET /users/{username}/followers — public data, anonymous callers allowed. */
export async function listFollowers(rc: Rc<{ username: string }>): Promise<Reply> {
  return list(rc, 'followers', (await accountOr404(rc, rc.params.username)).id);
}

/** GET /users/{username}/following */
export async function listFollowing(rc: Rc<{ username: string }>): Promise<Reply> {
  return list(rc, 'following', (await accountOr404(rc, rc.params.username)).id);
}

/** GET /user/following/{username} — 204 when the caller follows them, 404 otherwise (unknown user too). */
export async function checkMyFollowing(rc: Rc<{ username: string }, unknown>): Promise<Reply> {
  const caller = me(rc);
  const target = await accountOr404(rc, rc.params.username);
  if (!(await follows(rc).isFollowing(caller.id, target.id))) throw fail.notFound();
  return NO_CONTENT;
}

/** GET /users/{username}/following/{target} — `username` is resolved first, then `target`. */
export async function checkFollowing(rc: Rc<{ username: string; target: string }, unknown>): Promise<Reply> {
  const user = await accountOr404(rc, rc.params.username);
  const target = await accountOr404(rc, rc.params.target);
  if (!(await follows(rc).isFollowing(user.id, target.id))) throw fail.notFound();
  return NO_CONTENT;
}

/** PUT /user/following/{username} — idempotent; following yourself is a no-op; organizations can be followed. */
export async function follow(rc: Rc<{ username: string }, unknown>): Promise<Reply> {
  const caller = me(rc);
  const target = await accountOr404(rc, rc.params.username);
  await follows(rc).follow(caller.id, target);
  return NO_CONTENT;
}

/** DELETE /user/following/{username} — idempotent. */
export async function unfollow(rc: Rc<{ username: string }, unknown>): Promise<Reply> {
  const caller = me(rc);
  const target = await accountOr404(rc, rc.params.username);
  await follows(rc).unfollow(caller.id, target.id);
  return NO_CONTENT;
}
