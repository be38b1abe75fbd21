// Review routes: list, get, create (pending or submitted), submit, delete, dismiss/undismiss, line comments, and
// requested reviewers (users and teams).
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply } from '../../core/plugin.js';
import { nowRfc3339 } from '../../core/time.js';
import { ACCESS, type AccessMode } from '../../schemas/services.js';
import { pullOf, service, type Rc } from './handlers.js';
import { REVIEW_COMMENTS, REVIEWS, type PullContext, type ReviewRecord, type ReviewState } from './service.js';

type PullParams = { owner: string; repo: string; index: number };
type ReviewParams = PullParams & { id: number };

/** Gitea accepts `APPROVE` (gitea-js's ReviewStateType is `APPROVED`); empty or absent means pending. */
function stateOf(event: string | undefined): ReviewState {
  if (!event || event === 'PENDING') return 'PENDING';
  if (event === 'APPROVE' || event === 'APPROVED') return 'APPROVED';
  if (event === 'REQUEST_CHANGES') return 'REQUEST_CHANGES';
  if (event === 'COMMENT') return 'COMMENT';
  throw fail.validation('event', `${event} is not a review state that can be submitted`);
}

async function reviewOf(rc: Rc<ReviewParams>, minimum: AccessMode = ACCESS.read) {
  const found = await pullOf(rc, minimum);
  const review = await service(rc).reviews.findOne({ id: rc.params.id, pullId: found.c.pr.id });
  // Someone else's pending review is not visible (Gitea shows a pending review to its author only).
  if (!review || (review.state === 'PENDING' && review.reviewerId !== rc.caller?.id)) throw fail.notFound();
  return { ...found, review };
}

async function one(rc: Rc, c: PullContext, review: ReviewRecord): Promise<Record<string, unknown>> {
  const [api] = await service(rc).render.reviews([review], c, rc.caller);
  return api!;
}

/** The diff hunk of a line comment: the hunk of `path` containing the line, up to that line (Gitea's diff_hunk). */
async function hunkFor(rc: Rc, c: PullContext, path: string, line: number, old: boolean): Promise<string> {
  const s = service(rc);
  const from = c.pr.mergeBase || c.pr.baseSha;
  if (!from || !c.pr.headSha || line <= 0) return '';
  const r = await s.ops.exec(s.dirOf(c.base), ['diff', '-M', from, c.pr.headSha, '--', path]);
  if (r.code !== 0) return '';
  const lines = r.stdout.split('\n');
  let header = -1;
  let oldLine = 0;
  let newLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l);
    if (m) {
      header = i;
      oldLine = Number(m[1]);
      newLine = Number(m[2]);
      continue;
    }
    if (header < 0) continue;
    const isOld = l.startsWith('-');
    const isNew = l.startsWith('+');
    const hit = old ? !isNew && oldLine === line : !isOld && newLine === line;
    if (hit) return lines.slice(header, i + 1).join('\n');
    if (!isNew) oldLine++;
    if (!isOld) newLine++;
  }
  return '';
}

interface NewComment {
  path: string;
  body?: string;
  old_position?: number;
  new_position?: number;
}

async function addComments(rc: Rc, c: PullContext, review: ReviewRecord, comments: NewComment[]): Promise<void> {
  const s = service(rc);
  if (comments.length === 0) return;
  const from = c.pr.mergeBase || c.pr.baseSha;
  const changed = from && c.pr.headSha ? new Set((await s.ops.changedFiles(s.dirOf(c.base), from, c.pr.headSha)).flatMap((f) => [f.filename, f.previousFilename ?? ''])) : new Set<string>();
  for (const cm of comments) {
    if (!changed.has(cm.path)) throw fail.validation('comments', `${cm.path} is not changed by this pull request`);
    if (!cm.body?.trim()) throw fail.validation('comments', 'a line comment needs a body');
    if (!cm.new_position && !cm.old_position) throw fail.validation('comments', 'a line comment needs new_position or old_position');
  }
  for (const cm of comments) {
    const old = !cm.new_position;
    const now = nowRfc3339();
    await s.comments.insertOne({
      id: await rc.app.store.nextId(REVIEW_COMMENTS), reviewId: review.id, pullId: c.pr.id, repoId: c.pr.repoId, posterId: rc.caller!.id,
      path: cm.path, body: cm.body!, oldPosition: cm.old_position ?? 0, newPosition: cm.new_position ?? 0,
      commitId: review.commitId || c.pr.headSha, originalCommitId: review.commitId || c.pr.headSha,
      diffHunk: await hunkFor(rc, c, cm.path, old ? cm.old_position! : cm.new_position!, old), createdAt: now, updatedAt: now,
    });
  }
}

/** Approving or requesting changes on your own pull request is refused (Gitea: 422). */
function checkOwn(c: PullContext, callerId: number, state: ReviewState): void {
  if (c.issue.posterId === callerId && (state === 'APPROVED' || state === 'REQUEST_CHANGES')) {
    throw fail.validation('event', `${state === 'APPROVED' ? 'approving' : 'requesting changes on'} your own pull request is not allowed`);
  }
}

/** GET /repos/{owner}/{repo}/pulls/{index}/reviews */
export async function listReviews(rc: Rc<PullParams, { page?: number; limit?: number }>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const mine = rc.caller?.id ?? -1;
  const filter = { pullId: found.c.pr.id, $or: [{ state: { $ne: 'PENDING' } }, { reviewerId: mine }] };
  const { docs: rows, total } = await s.reviews.findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  return { status: 200, body: await s.render.reviews(rows, found.c, rc.caller), headers: pageHeaders(rc, total, win) };
}

/** GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id} */
export async function getReview(rc: Rc<ReviewParams>): Promise<Reply> {
  const found = await reviewOf(rc);
  return { status: 200, body: await one(rc, found.c, found.review) };
}

interface CreateReviewBody {
  body?: string;
  event?: string;
  commit_id?: string;
  comments?: NewComment[];
}

/** POST /repos/{owner}/{repo}/pulls/{index}/reviews: a pending review (no event) or a submitted one. */
export async function createReview(rc: Rc<PullParams, unknown, CreateReviewBody>): Promise<Reply> {
  const found = await pullOf(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  const caller = rc.caller!;
  const { c } = found;
  const b = rc.body;
  const state = stateOf(b.event);
  checkOwn(c, caller.id, state);
  if (c.issue.isLocked && found.mode < ACCESS.write) throw fail.forbidden('the pull request is locked');
  const comments = b.comments ?? [];
  if ((state === 'COMMENT' || state === 'REQUEST_CHANGES') && !b.body?.trim() && comments.length === 0) {
    throw fail.validation('body', 'a review that comments or requests changes needs a body or line comments');
  }
  const commitId = (b.commit_id ?? '').trim().toLowerCase() || c.pr.headSha;
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commitId)) throw fail.validation('commit_id', 'must be a full commit id');
  const now = nowRfc3339();
  // One pending review per reviewer: a new one continues it (Gitea).
  let review = await s.reviews.findOne({ pullId: c.pr.id, reviewerId: caller.id, state: 'PENDING' });
  if (!review) {
    review = await s.reviews.insertOne({
      id: await rc.app.store.nextId(REVIEWS), pullId: c.pr.id, repoId: c.pr.repoId, reviewerId: caller.id, teamId: 0, state: 'PENDING',
      body: '', commitId, official: false, dismissed: false, stale: false, submittedAt: null, createdAt: now, updatedAt: now,
    });
  }
  await addComments(rc, c, review, comments);
  if (state !== 'PENDING') {
    const official = await s.isOfficial(found.repo, caller.id);
    review = (await s.reviews.findOneAndUpdate({ id: review.id }, {
      $set: { state, body: b.body ?? '', commitId, official, submittedAt: now, updatedAt: now, stale: commitId !== c.pr.headSha },
    }))!;
    await s.submitted(c.pr, review, caller.id);
  } else if (b.body !== undefined) {
    review = (await s.reviews.findOneAndUpdate({ id: review.id }, { $set: { body: b.body, updatedAt: now } }))!;
  }
  return { status: 200, body: await one(rc, c, review) };
}

/** POST /repos/{owner}/{repo}/pulls/{index}/reviews/{id}: submits the caller's pending review. */
export async function submitReview(rc: Rc<ReviewParams, unknown, { body?: string; event?: string }>): Promise<Reply> {
  const found = await reviewOf(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  const caller = rc.caller!;
  const { c, review } = found;
  if (review.reviewerId !== caller.id) throw fail.forbidden('only the reviewer may submit a review');
  if (review.state !== 'PENDING') throw fail.validation('id', 'only a pending review can be submitted');
  const state = stateOf(rc.body.event);
  if (state === 'PENDING') throw fail.validation('event', 'a review is submitted as APPROVED, REQUEST_CHANGES or COMMENT');
  checkOwn(c, caller.id, state);
  const body = rc.body.body ?? review.body;
  const nComments = await s.comments.count({ reviewId: review.id });
  if ((state === 'COMMENT' || state === 'REQUEST_CHANGES') && !body.trim() && nComments === 0) {
    throw fail.validation('body', 'a review that comments or requests changes needs a body or line comments');
  }
  const now = nowRfc3339();
  const official = await s.isOfficial(found.repo, caller.id);
  const commitId = c.pr.headSha;
  const after = await s.reviews.findOneAndUpdate({ id: review.id, state: 'PENDING' }, {
    $set: { state, body, official, commitId, submittedAt: now, updatedAt: now, stale: false },
  });
  if (!after) throw fail.validation('id', 'only a pending review can be submitted');
  await s.comments.updateMany({ reviewId: review.id }, { $set: { commitId } });
  await s.submitted(c.pr, after, caller.id);
  return { status: 200, body: await one(rc, c, after) };
}

/** DELETE /repos/{owner}/{repo}/pulls/{index}/reviews/{id}: the reviewer or a repository admin. */
export async function deleteReview(rc: Rc<ReviewParams>): Promise<Reply> {
  const found = await reviewOf(rc);
  const s = service(rc);
  const caller = rc.caller!;
  if (found.review.reviewerId !== caller.id && found.mode < ACCESS.admin) throw fail.forbidden('only the reviewer or a repository admin may delete a review');
  if (found.review.state === 'REQUEST_REVIEW') throw fail.validation('id', 'a review request is removed through requested_reviewers');
  await s.reviews.deleteOne({ id: found.review.id });
  await s.comments.deleteMany({ reviewId: found.review.id });
  return { status: 204 };
}

/** GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments */
export async function listReviewComments(rc: Rc<ReviewParams>): Promise<Reply> {
  const found = await reviewOf(rc);
  const s = service(rc);
  const rows = await s.comments.find({ reviewId: found.review.id }, { sort: { id: 1 } });
  return { status: 200, body: await s.render.reviewComments(rows, found.c, rc.caller) };
}

/** POST .../reviews/{id}/dismissals (repository admins): approvals and change requests only. */
export async function dismissReview(rc: Rc<ReviewParams, unknown, { message?: string; priors?: boolean }>): Promise<Reply> {
  const found = await reviewOf(rc, ACCESS.admin);
  const s = service(rc);
  const { review, c } = found;
  if (review.state !== 'APPROVED' && review.state !== 'REQUEST_CHANGES') throw fail.validation('id', 'only approvals and change requests can be dismissed');
  if (found.c.pr.hasMerged || found.c.issue.isClosed) throw fail.validation('id', 'the pull request is closed');
  const now = nowRfc3339();
  const after = (await s.reviews.findOneAndUpdate({ id: review.id }, { $set: { dismissed: true, updatedAt: now } }))!;
  if (rc.body.priors) {
    await s.reviews.updateMany({ pullId: c.pr.id, reviewerId: review.reviewerId, id: { $lt: review.id }, state: { $in: ['APPROVED', 'REQUEST_CHANGES'] } },
      { $set: { dismissed: true, updatedAt: now } });
  }
  return { status: 200, body: await one(rc, c, after) };
}

/** POST .../reviews/{id}/undismissals (repository admins). */
export async function undismissReview(rc: Rc<ReviewParams>): Promise<Reply> {
  const found = await reviewOf(rc, ACCESS.admin);
  const s = service(rc);
  const { review, c } = found;
  if (review.state !== 'APPROVED' && review.state !== 'REQUEST_CHANGES') throw fail.validation('id', 'only approvals and change requests can be dismissed');
  const after = (await s.reviews.findOneAndUpdate({ id: review.id }, { $set: { dismissed: false, updatedAt: nowRfc3339() } }))!;
  return { status: 200, body: await one(rc, c, after) };
}

interface RequestBody {
  reviewers?: string[] | null;
  team_reviewers?: string[] | null;
}

async function resolveRequests(rc: Rc<PullParams, unknown, RequestBody>) {
  const found = await pullOf(rc);
  const s = service(rc);
  const caller = rc.caller!;
  // The poster and writers may ask for reviews (Gitea's IsValidReviewRequest: a reader asks only as the poster).
  if (found.mode < ACCESS.write && found.c.issue.posterId !== caller.id) throw fail.forbidden('only the poster or a writer may request reviews');
  const userIds: number[] = [];
  for (const name of rc.body.reviewers ?? []) {
    const account = await s.users.byName(name);
    if (!account || account.type !== 'user') throw fail.validation('reviewers', `user ${name} does not exist`);
    if (account.id === found.c.issue.posterId) throw fail.validation('reviewers', 'the poster cannot be requested to review');
    const mode = await s.repos.accessMode({ id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'token', restricted: account.restricted === true }, found.repo);
    if (mode < ACCESS.read) throw fail.validation('reviewers', `${account.login} cannot read this repository`);
    if (!userIds.includes(account.id)) userIds.push(account.id);
  }
  const teamIds: number[] = [];
  const teamNames = rc.body.team_reviewers ?? [];
  if (teamNames.length) {
    if (found.owner.type !== 'org' || !rc.app.services.has('orgs')) throw fail.validation('team_reviewers', 'only repositories of an organization have teams');
    const teams = await rc.app.services.get('orgs').teamsOfOrg(found.owner.id);
    for (const name of teamNames) {
      const team = teams.find((t) => t.lowerName === name.toLowerCase());
      if (!team) throw fail.validation('team_reviewers', `team ${name} does not exist`);
      if (!teamIds.includes(team.id)) teamIds.push(team.id);
    }
  }
  return { found, userIds, teamIds };
}

/** POST /repos/{owner}/{repo}/pulls/{index}/requested_reviewers: 201 with the review requests. */
export async function addReviewRequests(rc: Rc<PullParams, unknown, RequestBody>): Promise<Reply> {
  const { found, userIds, teamIds } = await resolveRequests(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  const rows: ReviewRecord[] = [];
  for (const id of userIds) rows.push(await s.requestReview(found.c.pr, rc.caller!, id, 0));
  for (const id of teamIds) rows.push(await s.requestReview(found.c.pr, rc.caller!, 0, id));
  return { status: 201, body: await s.render.reviews(rows, found.c, rc.caller) };
}

/** DELETE /repos/{owner}/{repo}/pulls/{index}/requested_reviewers: 204. */
export async function removeReviewRequests(rc: Rc<PullParams, unknown, RequestBody>): Promise<Reply> {
  const { found, userIds, teamIds } = await resolveRequests(rc);
  const s = service(rc);
  s.repos.assertWritable(found.repo);
  for (const id of userIds) await s.removeReviewRequest(found.c.pr, rc.caller!, id, 0);
  for (const id of teamIds) await s.removeReviewRequest(found.c.pr, rc.caller!, 0, id);
  return { status: 204 };
}

