// Watch operations: a repository's subscription for the caller (read, set, remove) and the subscription lists.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import type { UsersService } from '../../schemas/services.js';
import { toApiRepos, toWatchInfo } from './convert.js';
import type { Watches } from './service.js';

type Rc<P = Record<string, never>, Q = PageQuery> = RequestContext<P, Q, unknown>;
interface PageQuery { page?: number; limit?: number }
type OwnerRepo = { owner: string; repo: string };

function watches(rc: Rc<any, any>): Watches {
  return rc.app.services.get<Watches>('watch');
}

function me(rc: Rc<any, any>): Caller {
  if (!rc.caller) throw fail.unauthorized();
  return rc.caller;
}

async function list(rc: Rc<any>, uid: number): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const service = watches(rc);
  const { rows, records, total } = await service.page(rc.caller, uid, win);
  const body = await toApiRepos(rows, records, service.repos, rc.caller);
  return { status: 200, body, headers: pageHeaders(rc, total, win) };
}

/** GET /user/subscriptions — the repositories the caller watches, newest first (only ones still readable). */
export async function listMine(rc: Rc): Promise<Reply> {
  return list(rc, me(rc).id);
}

/** GET /users/{username}/subscriptions — public data: private repositories only for callers who can read them. */
export async function listOfUser(rc: Rc<{ username: string }>): Promise<Reply> {
  const account = await rc.app.services.get<UsersService>('users').byName(rc.params.username);
  if (!account) throw fail.notFound();
  return list(rc, account.id);
}

/** GET /repos/{owner}/{repo}/subscription — 200 WatchInfo when watching, 404 when not (or the repo is unreadable). */
export async function get(rc: Rc<OwnerRepo, unknown>): Promise<Reply> {
  const caller = me(rc);
  const service = watches(rc);
  const { repo, owner } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  const row = await service.get(caller.id, repo.id);
  if (!row) throw fail.notFound();
  return { status: 200, body: toWatchInfo(row, owner, repo, rc.app.urls) };
}

/** PUT /repos/{owner}/{repo}/subscription — idempotent, 200 WatchInfo. */
export async function watch(rc: Rc<OwnerRepo, unknown>): Promise<Reply> {
  const caller = me(rc);
  const service = watches(rc);
  const { repo, owner } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  const row = await service.watch(caller.id, repo);
  return { status: 200, body: toWatchInfo(row, owner, repo, rc.app.urls) };
}

/** DELETE /repos/{owner}/{repo}/subscription — idempotent, 204. */
export async function unwatch(rc: Rc<OwnerRepo, unknown>): Promise<Reply> {
  const caller = me(rc);
  const service = watches(rc);
  const { repo } = await service.repos.resolve(caller, rc.params.owner, rc.params.repo);
  await service.unwatch(caller.id, repo.id);
  return { status: 204 };
}
