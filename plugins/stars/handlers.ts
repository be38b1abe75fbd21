// Star operations: the caller's stars (list, check, star, unstar) and any user's starred list.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import type { UsersService } from '../../schemas/services.js';
import { toApiRepos } from './convert.js';
import type { Stars } from './service.js';

type Rc<P = Record<string, never>, Q = PageQuery> = RequestContext<P, Q, unknown>;
interface PageQuery { page?: number; limit?: number }
type OwnerRepo = { owner: string; repo: string };

const NO_CONTENT: Reply = { status: 204 };

function stars(rc: Rc<any, any>): Stars {
  return rc.app.services.get<Stars>('stars');
}

function me(rc: Rc<any, any>): Caller {
  if (!rc.caller) throw fail.unauthorized();
  return rc.caller;
}

async function list(rc: Rc<any>, uid: number): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const service = stars(rc);
  const { rows, records, total } = await service.page(rc.caller, uid, win);
  const body = await toApiRepos(rows, records, service.repos, rc.caller);
  return { status: 200, body, headers: pageHeaders(rc, total, win) };
}

/** GET /user/starred — the caller's stars, newest first (only repositories the caller can still read). */
export async function listMine(rc: Rc): Promise<Reply> {
  return list(rc, me(rc).id);
}

/** GET /users/{username}/starred — public data: private repositories only for callers who can read them. */
export async function listOfUser(rc: Rc<{ username: string }>): Promise<Reply> {
  const account = await rc.app.services.get<UsersService>('users').byName(rc.params.username);
  if (!account) throw fail.notFound();
  return list(rc, account.id);
}

/** GET /user/starred/{owner}/{repo} — 204 when starred, 404 when not (or when the caller cannot read the repository). */
export async function check(rc: Rc<OwnerRepo, unknown>): Promise<Reply> {
  const caller = me(rc);
  const service = stars(rc);
  const { repo } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  if (!(await service.isStarred(caller.id, repo.id))) throw fail.notFound();
  return NO_CONTENT;
}

/** PUT /user/starred/{owner}/{repo} — idempotent. */
export async function star(rc: Rc<OwnerRepo, unknown>): Promise<Reply> {
  const caller = me(rc);
  const service = stars(rc);
  const { repo } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  await service.star(caller.id, repo);
  return NO_CONTENT;
}

/** DELETE /user/starred/{owner}/{repo} — idempotent. */
export async function unstar(rc: Rc<OwnerRepo, unknown>): Promise<Reply> {
  const caller = me(rc);
  const service = stars(rc);
  const { repo } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  await service.unstar(caller.id, repo.id);
  return NO_CONTENT;
}
