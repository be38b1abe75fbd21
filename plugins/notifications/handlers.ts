// Notification routes: the caller's threads (all repositories or one), marking them read/unread/pinned, one thread,
// and the unread count.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, SignedInContext } from '../../core/plugin.js';
import { nowRfc3339, toRfc3339 } from '../../core/time.js';
import { ACCESS } from '../../schemas/services.js';
import { repos } from '../lib/request.js';
import { callerOf, Notifications, type NotificationRecord, type NotificationStatus, type SubjectType, type ThreadQuery } from './service.js';

const svc = (rc: SignedInContext<any, any>): Notifications => rc.app.services.get('notifications');

interface ListQuery {
  all?: boolean;
  'status-types'?: NotificationStatus[];
  'subject-type'?: Array<'issue' | 'pull' | 'commit' | 'repository'>;
  since?: string;
  before?: string;
  page?: number;
  limit?: number;
}

interface MarkQuery {
  last_read_at?: string;
  all?: string;
  'status-types'?: NotificationStatus[];
  'to-status'?: NotificationStatus;
}

const SUBJECT: Record<string, SubjectType> = { issue: 'Issue', pull: 'Pull', commit: 'Commit', repository: 'Repository' };

/** An RFC 3339 time as stored (UTC, whole seconds); 422 naming the parameter otherwise. */
function instant(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = Date.parse(raw);
  if (!/^\d{4}-\d\d-\d\dT/.test(raw) || Number.isNaN(ms)) throw fail.validation(name, 'must be an RFC 3339 time');
  return toRfc3339(Math.floor(ms / 1000) * 1000);
}

/** The API objects of threads for their owner (or a site admin reading one). */
async function toApi(rc: SignedInContext, rows: NotificationRecord[]): Promise<Record<string, unknown>[]> {
  const repoIds = [...new Set(rows.map((r) => r.repoId))];
  const records = await repos(rc).byIds(repoIds);
  const list = repoIds.map((id) => records.get(id)).filter((r) => r !== undefined);
  const apis = await repos(rc).toApi(list, rc.caller);
  const byId = new Map(list.map((r, i) => [r.id, apis[i]!]));
  return rows.map((r) => ({
    id: r.id,
    repository: byId.get(r.repoId) ?? null,
    subject: Notifications.subjectOf(r),
    unread: r.status === 'unread',
    pinned: r.status === 'pinned',
    updated_at: r.updatedAt,
    url: `${rc.app.urls.api}notifications/threads/${r.id}`,
  }));
}

function listQuery(q: ListQuery | undefined, repoId?: number): ThreadQuery {
  const statuses: NotificationStatus[] = q?.['status-types']?.length ? q['status-types'] : q?.all ? [] : ['unread', 'pinned'];
  return {
    repoId,
    statuses,
    subjectTypes: (q?.['subject-type'] ?? []).map((t) => SUBJECT[t]!),
    since: instant(q?.since, 'since'),
    before: instant(q?.before, 'before'),
  };
}

async function list(rc: SignedInContext<any, ListQuery>, repoId?: number): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const { rows, total } = await svc(rc).page(rc.caller, listQuery(rc.query, repoId), win);
  // JSON text: each repository's text comes from the repos plugin's per-version cache (a page of 30 threads embeds
  // up to 30 Repository objects: rendering and serialising them was most of a page's cost).
  const repoIds = [...new Set(rows.map((r) => r.repoId))];
  const records = await repos(rc).byIds(repoIds);
  const texts = await repos(rc).toJsonTexts(repoIds.map((id) => records.get(id)).filter((r) => r !== undefined), rc.caller);
  return { status: 200, type: 'json-text', body: svc(rc).threadsJson(rows, texts, `${rc.app.urls.api}notifications/threads/`), headers: pageHeaders(rc, total, win) };
}

async function mark(rc: SignedInContext<any, MarkQuery>, repoId?: number): Promise<Reply> {
  const q = rc.query ?? {};
  const lastRead = instant(q.last_read_at, 'last_read_at') ?? nowRfc3339();
  const all = q.all === 'true' || q.all === '1';
  const statuses: NotificationStatus[] = all ? [] : q['status-types']?.length ? q['status-types'] : ['unread'];
  const to = q['to-status'] ?? 'read';
  const limit = rc.app.config.pagination.maxLimit;
  const { rows, total } = await svc(rc).markAll(rc.caller, { repoId, statuses, before: lastRead }, to, limit);
  // Gitea answers 205 with every changed thread; we send the newest `maxLimit` of them and count all in X-Total-Count.
  return { status: 205, body: await toApi(rc, rows), headers: { 'X-Total-Count': String(total) } };
}

/** GET /notifications */
export const listAll = (rc: SignedInContext<unknown, ListQuery>): Promise<Reply> => list(rc);

/** PUT /notifications */
export const markAll = (rc: SignedInContext<unknown, MarkQuery>): Promise<Reply> => mark(rc);

/** GET /repos/{owner}/{repo}/notifications */
export async function listRepo(rc: SignedInContext<{ owner: string; repo: string }, ListQuery>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.read);
  return list(rc, repo.id);
}

/** PUT /repos/{owner}/{repo}/notifications */
export async function markRepo(rc: SignedInContext<{ owner: string; repo: string }, MarkQuery>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.read);
  return mark(rc, repo.id);
}

/** A thread for its owner (or a site admin: Gitea's 403 for anyone else), 404 once its repository is unreadable. */
async function ownThread(rc: SignedInContext<{ id: number }>): Promise<NotificationRecord> {
  const row = await svc(rc).thread(rc.params.id);
  if (!row) throw fail.notFound();
  if (row.userId !== rc.caller.id && !rc.caller.isAdmin) throw fail.forbidden('this notification thread belongs to another user');
  const repo = await repos(rc).byId(row.repoId);
  // The live check (a safety net: the row's `hidden` flag says the same unless an access change is being settled).
  let ownerCaller: Caller | null = rc.caller;
  if (row.userId !== rc.caller.id) {
    const owner = await rc.app.services.get('users').byId(row.userId);
    ownerCaller = owner ? callerOf(owner) : null;
  }
  if (!repo || !ownerCaller || (await repos(rc).accessMode(ownerCaller, repo)) < ACCESS.read) throw fail.notFound();
  return row;
}

/** GET /notifications/threads/{id} */
export async function getThread(rc: SignedInContext<{ id: number }>): Promise<Reply> {
  const row = await ownThread(rc);
  return { status: 200, body: (await toApi(rc, [row]))[0] };
}

/** PATCH /notifications/threads/{id}?to-status= (205, as Gitea). */
export async function markThread(rc: SignedInContext<{ id: number }, { 'to-status'?: NotificationStatus }>): Promise<Reply> {
  const row = await ownThread(rc);
  const updated = await svc(rc).setStatus(row, rc.query?.['to-status'] ?? 'read');
  return { status: 205, body: (await toApi(rc, [updated]))[0] };
}

/** GET /notifications/new */
export async function countNew(rc: SignedInContext): Promise<Reply> {
  return { status: 200, body: { new: await svc(rc).countUnread(rc.caller) } };
}

