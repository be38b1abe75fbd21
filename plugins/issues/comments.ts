// Comment and reaction routes: comments per issue and per repository, create/edit/delete, reactions on both.
import { fail } from '../../core/errors.js';
import { pageHeaders } from '../../core/pagination.js';
import type { Reply } from '../../core/plugin.js';
import { toRfc3339 } from '../../core/time.js';
import type { CommentRecord, IssueRecord } from '../../schemas/contracts/issues.js';
import type { Filter } from '../../core/store/port.js';
import { canWrite, changeContext, issueOf, readableKinds, refuseArchived, repoOf, service, window, type Rc, type RepoAccess } from './handlers.js';
import { REACTION_CONTENTS } from './service.js';
import { mapById } from '../lib/by-id.js';

type IssuePath = { owner: string; repo: string; index: number };
type CommentPath = { owner: string; repo: string; id: number };

function timeRange(query: { since?: string; before?: string }): Filter | undefined {
  const out: Record<string, string> = {};
  for (const [key, op] of [['since', '$gte'], ['before', '$lte']] as const) {
    const value = query[key];
    if (!value) continue;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw fail.validation(key, 'must be an RFC 3339 date-time');
    out[op] = toRfc3339(key === 'since' ? Math.ceil(ms / 1000) * 1000 : Math.floor(ms / 1000) * 1000);
  }
  return Object.keys(out).length ? out : undefined;
}

/** GET /repos/{owner}/{repo}/issues/{index}/comments: oldest first; all of them unless page/limit ask for a page. */
export async function listIssueComments(rc: Rc<IssuePath, { since?: string; before?: string; page?: number; limit?: number }>): Promise<Reply> {
  const found = await issueOf(rc);
  const s = service(rc);
  const query = rc.query ?? {};
  const filter: Filter = { issueId: found.issue.id };
  const range = timeRange(query);
  if (range) filter.updatedAt = range;
  const paged = query.page !== undefined || query.limit !== undefined;
  const win = window(rc);
  const { docs: rows, total } = await s.comments.findAndCount(filter, paged ? { sort: { id: 1 }, skip: win.skip, limit: win.limit } : { sort: { id: 1 } });
  const body = await s.render.commentsJson(rows, found.issue, found.repo, found.owner, rc.caller);
  return { status: 200, type: 'json-text', body, headers: paged ? pageHeaders(rc, total, win) : { 'X-Total-Count': String(total) } };
}

/** GET /repos/{owner}/{repo}/issues/comments: every comment of the repository, oldest first, paged. */
export async function listRepoComments(rc: Rc<{ owner: string; repo: string }, { since?: string; before?: string }>): Promise<Reply> {
  const { found, issues: canIssues, pulls: canPulls } = await readableKinds(rc);
  const s = service(rc);
  const filter: Filter = { repoId: found.repo.id };
  // A caller who reads only one kind (a team's units_map) sees only the comments of that kind.
  if (canIssues !== canPulls) {
    const pullIds = (await s.issues.find({ repoId: found.repo.id, isPull: true }, { projection: { id: 1 } })).map((i) => i.id);
    filter.issueId = canPulls ? { $in: pullIds } : { $nin: pullIds };
  }
  const range = timeRange(rc.query ?? {});
  if (range) filter.updatedAt = range;
  const win = window(rc);
  const { docs: rows, total } = await s.comments.findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  const issues = await s.issues.find({ id: { $in: rows.map((c) => c.issueId) } });
  const body = await s.render.commentsJson(rows, mapById(issues), found.repo, found.owner, rc.caller);
  return { status: 200, type: 'json-text', body, headers: pageHeaders(rc, total, win) };
}

/** Comments on a locked issue come from writers only (Gitea). */
function checkLocked(found: RepoAccess, issue: IssueRecord): void {
  if (issue.isLocked && !canWrite(found)) throw fail.forbidden('the issue is locked: only writers may comment or react');
}

/** POST /repos/{owner}/{repo}/issues/{index}/comments */
export async function createComment(rc: Rc<IssuePath, unknown, { body: string }>): Promise<Reply> {
  const found = await issueOf(rc);
  refuseArchived(found);
  checkLocked(found, found.issue);
  const s = service(rc);
  const comment = await s.addComment(changeContext(rc, found), found.issue, rc.body.body);
  return { status: 201, body: await s.commentToApi(comment, found.issue, found.repo, found.owner, rc.caller) };
}

async function commentOf(rc: Rc<CommentPath>): Promise<RepoAccess & { comment: CommentRecord; issue: IssueRecord }> {
  const found = await repoOf(rc);
  const s = service(rc);
  const comment = await s.comments.findOne({ id: rc.params.id });
  if (!comment || comment.repoId !== found.repo.id) throw fail.notFound();
  const issue = await s.byId(comment.issueId);
  if (!issue) throw fail.notFound();
  return { ...found, comment, issue };
}

/** GET /repos/{owner}/{repo}/issues/comments/{id} */
export async function getComment(rc: Rc<CommentPath>): Promise<Reply> {
  const found = await commentOf(rc);
  return { status: 200, body: await service(rc).commentToApi(found.comment, found.issue, found.repo, found.owner, rc.caller) };
}

function checkCommentAuthor(rc: Rc, found: RepoAccess & { comment: CommentRecord }): void {
  if (found.comment.posterId !== rc.caller!.id && !canWrite(found)) throw fail.forbidden('only the poster or a writer may change this comment');
}

/** PATCH /repos/{owner}/{repo}/issues/comments/{id} */
export async function editComment(rc: Rc<CommentPath, unknown, { body: string }>): Promise<Reply> {
  const found = await commentOf(rc);
  refuseArchived(found);
  checkCommentAuthor(rc, found);
  const s = service(rc);
  const comment = await s.editComment(changeContext(rc, found), found.issue, found.comment, rc.body.body);
  return { status: 200, body: await s.commentToApi(comment, found.issue, found.repo, found.owner, rc.caller) };
}

/** DELETE /repos/{owner}/{repo}/issues/comments/{id} */
export async function deleteComment(rc: Rc<CommentPath>): Promise<Reply> {
  const found = await commentOf(rc);
  checkCommentAuthor(rc, found);
  await service(rc).deleteComment(changeContext(rc, found), found.issue, found.comment);
  return { status: 204 };
}

// ---- reactions ----

function checkContent(content: string): string {
  // Gitea refuses a reaction its configuration does not allow with 403.
  if (!REACTION_CONTENTS.includes(content)) throw fail.forbidden(`'${content}' is not an allowed reaction`);
  return content;
}

/** GET /repos/{owner}/{repo}/issues/{index}/reactions (paged) */
export async function listIssueReactions(rc: Rc<IssuePath>): Promise<Reply> {
  const found = await issueOf(rc);
  const s = service(rc);
  const win = window(rc);
  const filter = { issueId: found.issue.id, commentId: 0 };
  const { docs: rows, total } = await s.reactions.findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  return { status: 200, body: await s.render.reactions(rows, rc.caller), headers: pageHeaders(rc, total, win) };
}

/** POST /repos/{owner}/{repo}/issues/{index}/reactions: 201 new, 200 already there. */
export async function postIssueReaction(rc: Rc<IssuePath, unknown, { content: string }>): Promise<Reply> {
  const found = await issueOf(rc);
  checkLocked(found, found.issue);
  const s = service(rc);
  const { row, created } = await s.react(found.issue, 0, rc.caller!.id, checkContent(rc.body.content));
  return { status: created ? 201 : 200, body: (await s.render.reactions([row], rc.caller))[0] };
}

/** DELETE /repos/{owner}/{repo}/issues/{index}/reactions: 200, also when there was none. */
export async function deleteIssueReaction(rc: Rc<IssuePath, unknown, { content: string }>): Promise<Reply> {
  const found = await issueOf(rc);
  checkLocked(found, found.issue);
  await service(rc).unreact(found.issue, 0, rc.caller!.id, checkContent(rc.body.content));
  return { status: 200 };
}

/** GET /repos/{owner}/{repo}/issues/comments/{id}/reactions */
export async function listCommentReactions(rc: Rc<CommentPath>): Promise<Reply> {
  const found = await commentOf(rc);
  const s = service(rc);
  const rows = await s.reactions.find({ issueId: found.issue.id, commentId: found.comment.id }, { sort: { id: 1 } });
  return { status: 200, body: await s.render.reactions(rows, rc.caller) };
}

/** POST /repos/{owner}/{repo}/issues/comments/{id}/reactions */
export async function postCommentReaction(rc: Rc<CommentPath, unknown, { content: string }>): Promise<Reply> {
  const found = await commentOf(rc);
  checkLocked(found, found.issue);
  const s = service(rc);
  const { row, created } = await s.react(found.issue, found.comment.id, rc.caller!.id, checkContent(rc.body.content));
  return { status: created ? 201 : 200, body: (await s.render.reactions([row], rc.caller))[0] };
}

/** DELETE /repos/{owner}/{repo}/issues/comments/{id}/reactions */
export async function deleteCommentReaction(rc: Rc<CommentPath, unknown, { content: string }>): Promise<Reply> {
  const found = await commentOf(rc);
  checkLocked(found, found.issue);
  await service(rc).unreact(found.issue, found.comment.id, rc.caller!.id, checkContent(rc.body.content));
  return { status: 200 };
}

