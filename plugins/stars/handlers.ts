// Star operations: the caller's stars (list, check, star, unstar) and any user's starred list.
import { fail } from '../../core/errors.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { callerAndRepo, listHandlers, type OwnerRepoRc } from '../lib/repo-relations.js';
import type { Stars } from './service.js';

const NO_CONTENT: Reply = { status: 204 };

function stars(rc: RequestContext<unknown, unknown, unknown>): Stars {
  return rc.app.services.get('stars');
}

/**
 * GET /user/starred — the caller's stars, newest first (only repositories the caller can still read);
 * GET /users/{username}/starred — public data: private repositories only for callers who can read them.
 */
export const { listMine, listOfUser } = listHandlers(stars);

/** GET /user/starred/{owner}/{repo} — 204 when starred, 404 when not (or when the caller cannot read the repository). */
export async function check(rc: OwnerRepoRc): Promise<Reply> {
  const service = stars(rc);
  const { caller, repo } = await callerAndRepo(rc, service);
  if (!(await service.isStarred(caller.id, repo.id))) throw fail.notFound();
  return NO_CONTENT;
}

/** PUT /user/starred/{owner}/{repo} — idempotent. */
export async function star(rc: OwnerRepoRc): Promise<Reply> {
  const service = stars(rc);
  const { caller, repo } = await callerAndRepo(rc, service);
  await service.star(caller.id, repo);
  return NO_CONTENT;
}

/** DELETE /user/starred/{owner}/{repo} — idempotent. */
export async function unstar(rc: OwnerRepoRc): Promise<Reply> {
  const service = stars(rc);
  const { caller, repo } = await callerAndRepo(rc, service);
  await service.unstar(caller.id, repo.id);
  return NO_CONTENT;
}
