// The `pulls` plugin: pull requests and reviews with Gitea's routes and shapes, merged by real git in the bare base
// repository (no working tree). Pull requests share the issue numbers and machinery of the `issues` plugin; a
// repository with `has_pull_requests: false` answers 404 here.
import { definePlugin, type RouteDef } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { REPO_DELETED, type RepoRecord } from '../../schemas/services.js';
import '../../schemas/contracts/contents.js';
import '../../schemas/contracts/issues.js';
import '../../schemas/contracts/git.js';
import * as h from './handlers.js';
import * as r from './reviews.js';
import {
  PULL_SCHEMAS, createPullBody, createReviewBody, dismissBody, editPullBody, mergeBody, submitReviewBody,
} from './schemas.js';
import { COLLECTIONS, Pulls, type PullsSettings } from './service.js';

const repoParams = paramsSchema({ owner: nameParam, repo: nameParam });
const pullParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam });
// `{index}`, `{index}.diff` or `{index}.patch` (one route: the router cannot split a segment on the dot).
const pullOrDiffParams = paramsSchema({ owner: nameParam, repo: nameParam, index: { type: 'string', minLength: 1, maxLength: 32 } });
const baseHeadParams = paramsSchema({ owner: nameParam, repo: nameParam, index: nameParam, '*': { type: 'string', minLength: 1, maxLength: 512 } });
const reviewParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam, id: idParam });
const ref = (id: string) => ({ $ref: `forgekit/${id}` });
const empty = { 204: { type: 'null' } };
const ok = { 200: { type: 'null' } };

const listPullsQuery = listQuery({
  state: { type: 'string', enum: ['open', 'closed', 'all'] },
  sort: { type: 'string', enum: ['oldest', 'recentupdate', 'recentclose', 'leastupdate', 'mostcomment', 'leastcomment', 'priority'] },
  milestone: { type: 'integer', minimum: 0 },
  labels: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 50 }] },
  poster: { type: 'string', maxLength: 255 },
  base_branch: { type: 'string', maxLength: 255 },
});

/** Gitea's PullReviewRequestOptions. */
const reviewerNames = { type: ['array', 'null'], maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 255 } } as const;
const reviewRequestsBody = { type: 'object', additionalProperties: false, properties: { reviewers: reviewerNames, team_reviewers: reviewerNames } } as const;

const R = '/repos/:owner/:repo/pulls';
type Def = Omit<RouteDef, 'scope'>;
const routes: Def[] = [
  { method: 'GET', path: R, auth: 'optional', operationId: 'repoListPullRequests', summary: "List a repo's pull requests", schema: { params: repoParams, querystring: listPullsQuery, response: { 200: ref('PullRequestList') } }, handler: h.listPulls },
  { method: 'POST', path: R, auth: 'user', body: 'json', operationId: 'repoCreatePullRequest', summary: 'Create a pull request', schema: { params: repoParams, body: createPullBody, response: { 201: ref('PullRequest') } }, handler: h.createPull },
  { method: 'GET', path: `${R}/pinned`, auth: 'optional', operationId: 'repoListPinnedPullRequests', summary: "List a repo's pinned pull requests", schema: { params: repoParams, response: { 200: ref('PullRequestList') } }, handler: h.listPinnedPulls },
  { method: 'GET', path: `${R}/:index`, auth: 'optional', operationId: 'repoGetPullRequest', summary: 'Get a pull request (`{index}.diff` / `{index}.patch`: repoDownloadPullDiffOrPatch, text/plain)', schema: { params: pullOrDiffParams, querystring: { type: 'object', properties: { binary: { type: 'boolean' } } }, response: { 200: ref('PullRequest') } }, handler: h.getPull },
  { method: 'GET', path: `${R}/:index/*`, auth: 'optional', operationId: 'repoGetPullRequestByBaseHead', summary: 'Get a pull request by base and head', schema: { params: baseHeadParams, response: { 200: ref('PullRequest') } }, handler: h.getPullByBaseHead },
  { method: 'PATCH', path: `${R}/:index`, auth: 'user', body: 'json', operationId: 'repoEditPullRequest', summary: 'Update a pull request', schema: { params: pullParams, body: editPullBody, response: { 201: ref('PullRequest') } }, handler: h.editPull },
  { method: 'GET', path: `${R}/:index/commits`, auth: 'optional', operationId: 'repoGetPullRequestCommits', summary: 'Get commits for a pull request', schema: { params: pullParams, querystring: listQuery({ files: { type: 'boolean' }, verification: { type: 'boolean' } }), response: { 200: ref('CommitList') } }, handler: h.listCommits },
  { method: 'GET', path: `${R}/:index/files`, auth: 'optional', operationId: 'repoGetPullRequestFiles', summary: 'Get changed files for a pull request', schema: { params: pullParams, querystring: listQuery({ 'skip-to': { type: 'string', maxLength: 4096 }, whitespace: { type: 'string', enum: ['ignore-all', 'ignore-change', 'ignore-eol', 'show-all'] } }), response: { 200: ref('ChangedFileList') } }, handler: h.listFiles },
  { method: 'GET', path: `${R}/:index/merge`, auth: 'optional', operationId: 'repoPullRequestIsMerged', summary: 'Check if a pull request has been merged (204, or 404)', schema: { params: pullParams, response: empty }, handler: h.isMerged },
  { method: 'POST', path: `${R}/:index/merge`, auth: 'user', body: 'json', operationId: 'repoMergePullRequest', summary: 'Merge a pull request', schema: { params: pullParams, body: mergeBody, response: ok }, handler: h.mergePull },
  { method: 'POST', path: `${R}/:index/update`, auth: 'user', operationId: 'repoUpdatePullRequest', summary: "Merge PR's baseBranch into headBranch", schema: { params: pullParams, querystring: { type: 'object', properties: { style: { type: 'string', enum: ['merge', 'rebase'] } } }, response: ok }, handler: h.updatePull },
  // gitea-js sends both requested_reviewers bodies without a Content-Type: JSON taken as text/plain or untyped too.
  { method: 'POST', path: `${R}/:index/requested_reviewers`, auth: 'user', body: 'json', textPlainJson: true, bodyOptional: true, operationId: 'repoCreatePullReviewRequests', summary: 'Create review requests for a pull request', schema: { params: pullParams, body: reviewRequestsBody, response: { 201: ref('PullReviewList') } }, handler: r.addReviewRequests },
  { method: 'DELETE', path: `${R}/:index/requested_reviewers`, auth: 'user', body: 'json', textPlainJson: true, bodyOptional: true, operationId: 'repoDeletePullReviewRequests', summary: 'Cancel review requests for a pull request', schema: { params: pullParams, body: reviewRequestsBody, response: empty }, handler: r.removeReviewRequests },
  { method: 'GET', path: `${R}/:index/reviews`, auth: 'optional', operationId: 'repoListPullReviews', summary: 'List all reviews for a pull request', schema: { params: pullParams, querystring: listQuery(), response: { 200: ref('PullReviewList') } }, handler: r.listReviews },
  { method: 'POST', path: `${R}/:index/reviews`, auth: 'user', body: 'json', operationId: 'repoCreatePullReview', summary: 'Create a review to an pull request', schema: { params: pullParams, body: createReviewBody, response: { 200: ref('PullReview') } }, handler: r.createReview },
  { method: 'GET', path: `${R}/:index/reviews/:id`, auth: 'optional', operationId: 'repoGetPullReview', summary: 'Get a specific review for a pull request', schema: { params: reviewParams, response: { 200: ref('PullReview') } }, handler: r.getReview },
  { method: 'POST', path: `${R}/:index/reviews/:id`, auth: 'user', body: 'json', operationId: 'repoSubmitPullReview', summary: 'Submit a pending review to an pull request', schema: { params: reviewParams, body: submitReviewBody, response: { 200: ref('PullReview') } }, handler: r.submitReview },
  { method: 'DELETE', path: `${R}/:index/reviews/:id`, auth: 'user', operationId: 'repoDeletePullReview', summary: 'Delete a specific review from a pull request', schema: { params: reviewParams, response: empty }, handler: r.deleteReview },
  { method: 'GET', path: `${R}/:index/reviews/:id/comments`, auth: 'optional', operationId: 'repoGetPullReviewComments', summary: 'Get a specific review for a pull request', schema: { params: reviewParams, response: { 200: ref('PullReviewCommentList') } }, handler: r.listReviewComments },
  { method: 'POST', path: `${R}/:index/reviews/:id/dismissals`, auth: 'user', body: 'json', bodyOptional: true, operationId: 'repoDismissPullReview', summary: 'Dismiss a review for a pull request', schema: { params: reviewParams, body: dismissBody, response: { 200: ref('PullReview') } }, handler: r.dismissReview },
  { method: 'POST', path: `${R}/:index/reviews/:id/undismissals`, auth: 'user', operationId: 'repoUnDismissPullReview', summary: 'Cancel to dismiss a review for a pull request', schema: { params: reviewParams, response: { 200: ref('PullReview') } }, handler: r.undismissReview },
];

export default definePlugin<Pulls, PullsSettings>({
  name: 'pulls',
  dependencies: ['users', 'repos', 'git', 'issues', 'contents'],
  optionalDependencies: ['orgs', 'statuses'],
  schemas: PULL_SCHEMAS,
  collections: COLLECTIONS,
  routes: routes.map((route) => ({ ...route, scope: 'repository' as const })),
  settings: {
    type: 'object',
    properties: {
      // Background mergeability checks running at once (each a sequence of git processes); 0 runs none: they stay
      // queued (`checking`) in the store until a start with workers, and the merge route still checks for itself.
      checkConcurrency: { type: 'integer', minimum: 0, maximum: 64, default: 2 },
      // Queued checks held in memory; beyond it they wait in the store and are read again when the queue drains.
      checkQueueLimit: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 10_000 },
      // Pull request texts kept for list pages (about 2 KB each, their repositories not included); 0 serialises every
      // pull request on every page.
      jsonCacheEntries: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 4096 },
    },
    additionalProperties: false,
  },
  async start(ctx) {
    const service = new Pulls(ctx);
    ctx.events.on('git.push', (e) => service.onPush(e));
    ctx.events.on('issue.pull_changed', (e) => service.onIssueHalfChanged(e));
    ctx.events.on(REPO_DELETED, ({ repo }: { repo: RepoRecord }) => service.onRepoDeleted(repo));
    await service.start();
    return service;
  },
  async stop(ctx) {
    await (ctx.services.get('pulls') as Pulls).stop(Math.min(ctx.config.shutdownTimeoutMs, 10_000));
  },
});
