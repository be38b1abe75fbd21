// Watch operations: a repository's subscription for the caller (read, set, remove) and the subscription lists.
import { fail } from '../../core/errors.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { callerAndRepo, listHandlers, type OwnerRepoRc } from '../lib/repo-relations.js';
import { toWatchInfo } from './convert.js';
import type { Watches } from './service.js';

function watches(rc: RequestContext<unknown, unknown, unknown>): Watches {
  return rc.app.services.get('watch');
}

/**
 * GET /user/subscriptions — the repositories the caller watches, newest first (only ones still readable);
 * GET /users/{username}/subscriptions — public data: private repositories only for callers who can read them.
 */
export const { listMine, listOfUser } = listHandlers(watches);

/** GET /repos/{owner}/{repo}/subscription — 200 WatchInfo when watching, 404 when not (or the repo is unreadable). */
export async function get(rc: OwnerRepoRc): Promise<Reply> {
  const service = watches(rc);
  const { caller, repo, owner } = await callerAndRepo(rc, service);
  const row = await service.get(caller.id, repo.id);
  if (!row) throw fail.notFound();
  return { status: 200, body: toWatchInfo(row, owner, repo, rc.app.urls) };
}

/** PUT /repos/{owner}/{repo}/subscription — idempotent, 200 WatchInfo. */
export async function watch(rc: OwnerRepoRc): Promise<Reply> {
  const service = watches(rc);
  const { caller, repo, owner } = await callerAndRepo(rc, service);
  const row = await service.watch(caller.id, repo);
  return { status: 200, body: toWatchInfo(row, owner, repo, rc.app.urls) };
}

/** DELETE /repos/{owner}/{repo}/subscription — idempotent, 204. */
export async function unwatch(rc: OwnerRepoRc): Promise<Reply> {
  const service = watches(rc);
  const { caller, repo } = await callerAndRepo(rc, service);
  await service.unwatch(caller.id, repo.id);
  return { status: 204 };
}
