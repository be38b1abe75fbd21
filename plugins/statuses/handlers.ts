// Commit status routes: create, list (by commit id or ref) and the combined status of a ref.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { ACCESS, type Account, type RepoRecord } from '../../schemas/services.js';
import { requireState, toApiStatus, type NewStatus, type Statuses } from './service.js';
import type { CommitStatusRecord } from '../../schemas/contracts/statuses.js';

/** Gitea's stand-in for a deleted account. */
const GHOST = { id: -1, login: 'Ghost', full_name: '', email: '', avatar_url: '', username: 'Ghost' };

type Params = { owner: string; repo: string; sha?: string; ref?: string };
type Rc<Q = unknown, B = unknown> = RequestContext<Params, Q, B>;

function statuses(rc: Rc<any, any>): Statuses {
  return rc.app.services.get('statuses') as Statuses; // the contract, implemented by this plugin's class
}

/** A ref or commit id to the commit id statuses are kept under; 404 for a ref that names nothing. */
async function commitOf(rc: Rc<any, any>, repo: RepoRecord, owner: Account, ref: string): Promise<string> {
  const sha = await statuses(rc).resolve(repo, owner, ref);
  if (sha) return sha;
  // An id git does not know (yet): Gitea lists (empty) statuses for any commit id.
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(ref)) return ref.toLowerCase();
  throw fail.notFound();
}

async function creators(rc: Rc<any, any>, rows: CommitStatusRecord[]): Promise<Map<number, unknown>> {
  const users = rc.app.services.get('users');
  const accounts = await users.byIds([...new Set(rows.map((r) => r.creatorId))]);
  const out = new Map<number, unknown>();
  for (const [id, account] of accounts) out.set(id, users.toApi(account, rc.caller));
  return out;
}

/** POST /repos/{owner}/{repo}/statuses/{sha} */
export async function create(rc: Rc<unknown, NewStatus>): Promise<Reply> {
  const { repo, owner } = await rc.app.services.get('repos').resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.write);
  const body = rc.body;
  requireState(body.state);
  if (body.target_url) checkTargetUrl(body.target_url);
  const sha = await statuses(rc).resolve(repo, owner, rc.params.sha!);
  if (!sha) throw fail.notFound();
  const record = await statuses(rc).create(repo, owner, rc.caller!, sha, body);
  const creator = (await creators(rc, [record])).get(record.creatorId) ?? GHOST;
  return { status: 201, body: toApiStatus(rc.app, repo, owner, record, creator) };
}

/** Gitea accepts any URL; we keep to http(s) so a status link can never be `javascript:`. */
function checkTargetUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail.validation('target_url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail.validation('target_url', 'must be an http or https URL');
}

interface ListQuery { page?: number; limit?: number; sort?: string; state?: string }

async function list(rc: Rc<ListQuery>, ref: string): Promise<Reply> {
  const { repo, owner } = await rc.app.services.get('repos').resolve(rc.caller, rc.params.owner, rc.params.repo);
  const sha = await commitOf(rc, repo, owner, ref);
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const { rows, total } = await statuses(rc).page(repo.id, sha, { sort: rc.query?.sort, state: rc.query?.state, skip: win.skip, limit: win.limit });
  const people = await creators(rc, rows);
  return {
    status: 200,
    body: rows.map((r) => toApiStatus(rc.app, repo, owner, r, people.get(r.creatorId) ?? GHOST)),
    headers: pageHeaders(rc, total, win),
  };
}

/** GET /repos/{owner}/{repo}/statuses/{sha} */
export const listBySha = (rc: Rc<ListQuery>): Promise<Reply> => list(rc, rc.params.sha!);

/** GET /repos/{owner}/{repo}/commits/{ref}/statuses */
export const listByRef = (rc: Rc<ListQuery>): Promise<Reply> => list(rc, rc.params.ref!);

/** GET /repos/{owner}/{repo}/commits/{ref}/status — the latest status per context and their combined state. */
export async function combined(rc: Rc<{ page?: number; limit?: number }>): Promise<Reply> {
  const reposService = rc.app.services.get('repos');
  const { repo, owner } = await reposService.resolve(rc.caller, rc.params.owner, rc.params.repo);
  const sha = await commitOf(rc, repo, owner, rc.params.ref!);
  const { state, statuses: latest } = await statuses(rc).combined(repo, sha);
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const rows = latest.slice(win.skip, win.skip + win.limit);
  const people = await creators(rc, rows);
  const [apiRepo] = await reposService.toApi([repo], rc.caller);
  const base = `${rc.app.urls.api}repos/${encodeURIComponent(owner.login)}/${encodeURIComponent(repo.name)}`;
  return {
    status: 200,
    body: {
      // Gitea: a commit without statuses combines to an empty state.
      state: state ?? '',
      sha,
      total_count: latest.length,
      statuses: rows.map((r) => toApiStatus(rc.app, repo, owner, r, people.get(r.creatorId) ?? GHOST)),
      repository: apiRepo,
      commit_url: `${base}/commits/${sha}`,
      url: `${base}/commits/${sha}/status`,
    },
    headers: pageHeaders(rc, latest.length, win),
  };
}
