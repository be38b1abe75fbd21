// The `issues` plugin: issues, comments, reactions, labels (repository and organization), milestones, assignees and
// issue subscriptions, with Gitea's routes and shapes. A repository with `has_issues: false` answers 404 here.
import { definePlugin, type JsonSchema, type RouteDef } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED, REPO_DELETED, REPO_UPDATED, type Account, type RepoRecord } from '../../schemas/services.js';
import type { IssuesService } from '../../schemas/contracts/issues.js';
import * as c from './comments.js';
import * as h from './handlers.js';
import * as l from './labels.js';
import * as m from './milestones.js';
import {
  ISSUE_SCHEMAS, commentBody, createIssueBody, createLabelBody, createMilestoneBody, editIssueBody, editLabelBody, editMilestoneBody,
  issueLabelsBody, lockBody, reactionBody,
} from './schemas.js';
import { COLLECTIONS, Issues } from './service.js';

const repoParams = paramsSchema({ owner: nameParam, repo: nameParam });
const issueParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam });
const issueLabelParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam, id: idParam });
const issueUserParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam, user: nameParam });
const issuePinParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam, position: { type: 'integer', minimum: 1, maximum: 1000000 } });
const issueCommentParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam, id: idParam });
const deadlineBody = { type: 'object', properties: { due_date: { type: ['string', 'null'], format: 'date-time' } } };
const deadlineResponse = { type: 'object', properties: { due_date: { type: ['string', 'null'] } }, required: ['due_date'] };
const pinAllowedResponse = { type: 'object', properties: { issues: { type: 'boolean' }, pull_requests: { type: 'boolean' } }, required: ['issues', 'pull_requests'] };
const commentParams = paramsSchema({ owner: nameParam, repo: nameParam, id: idParam });
const labelParams = paramsSchema({ owner: nameParam, repo: nameParam, id: idParam });
const milestoneParams = paramsSchema({ owner: nameParam, repo: nameParam, id: { type: 'string', minLength: 1, maxLength: 255 } });
const orgParams = paramsSchema({ org: nameParam });
const orgLabelParams = paramsSchema({ org: nameParam, id: idParam });

const dateQuery = { type: 'string', maxLength: 64 } as const;
const filterProps = {
  state: { type: 'string', enum: ['open', 'closed', 'all'] },
  labels: { type: 'string', maxLength: 2048 },
  milestones: { type: 'string', maxLength: 2048 },
  q: { type: 'string', maxLength: 255 },
  type: { type: 'string', enum: ['issues', 'pulls'] },
  since: dateQuery,
  before: dateQuery,
} as const;
const listIssuesQuery = listQuery({
  ...filterProps, created_by: { type: 'string', maxLength: 255 }, assigned_by: { type: 'string', maxLength: 255 }, mentioned_by: { type: 'string', maxLength: 255 },
});
const searchQuery = listQuery({
  ...filterProps, assigned: { type: 'boolean' }, created: { type: 'boolean' }, mentioned: { type: 'boolean' }, review_requested: { type: 'boolean' },
  reviewed: { type: 'boolean' }, owner: { type: 'string', maxLength: 255 }, team: { type: 'string', maxLength: 255 }, priority_repo_id: { type: 'integer' },
});
const commentsQuery = listQuery({ since: dateQuery, before: dateQuery });
const milestonesQuery = listQuery({ state: { type: 'string', enum: ['open', 'closed', 'all'] }, name: { type: 'string', maxLength: 255 } });

const issue = { 200: ref('forgekit/Issue') };
const issueList = { 200: ref('forgekit/IssueList') };
const userList = { 200: ref('forgekit/UserList') };
const labelList = { 200: ref('forgekit/LabelList') };
const empty = { 204: { type: 'null' } };

type Def = Omit<RouteDef, 'scope'>;
const routes: Def[] = [
  // ---- issues ----
  { method: 'GET', path: '/repos/issues/search', auth: 'optional', operationId: 'issueSearchIssues', summary: 'Search for issues across the repositories the caller can read', schema: { querystring: searchQuery, response: issueList }, handler: h.searchIssues },
  { method: 'GET', path: '/repos/:owner/:repo/issues', auth: 'optional', operationId: 'issueListIssues', summary: "List a repository's issues", schema: { params: repoParams, querystring: listIssuesQuery, response: issueList }, handler: h.listIssues },
  { method: 'POST', path: '/repos/:owner/:repo/issues', auth: 'user', body: 'json', operationId: 'issueCreateIssue', summary: 'Create an issue', schema: { params: repoParams, body: createIssueBody, response: { 201: ref('forgekit/Issue') } }, handler: h.createIssue },
  { method: 'GET', path: '/repos/:owner/:repo/issues/pinned', auth: 'optional', operationId: 'repoListPinnedIssues', summary: "List a repository's pinned issues", schema: { params: repoParams, response: issueList }, handler: h.listPinnedIssues },
  { method: 'GET', path: '/repos/:owner/:repo/issues/:index', auth: 'optional', operationId: 'issueGetIssue', summary: 'Get an issue', schema: { params: issueParams, response: issue }, handler: h.getIssue },
  { method: 'PATCH', path: '/repos/:owner/:repo/issues/:index', auth: 'user', body: 'json', operationId: 'issueEditIssue', summary: 'Edit an issue (the poster, or a writer for every field)', schema: { params: issueParams, body: editIssueBody, response: { 201: ref('forgekit/Issue') } }, handler: h.editIssue },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index', auth: 'user', operationId: 'issueDelete', summary: 'Delete an issue (repository admins)', schema: { params: issueParams, response: empty }, handler: h.deleteIssue },
  { method: 'PUT', path: '/repos/:owner/:repo/issues/:index/lock', auth: 'user', body: 'json', bodyOptional: true, operationId: 'issueLockIssue', summary: 'Lock an issue', schema: { params: issueParams, body: lockBody, response: empty }, handler: h.lockIssue },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/lock', auth: 'user', operationId: 'issueUnlockIssue', summary: 'Unlock an issue', schema: { params: issueParams, response: empty }, handler: h.unlockIssue },
  { method: 'POST', path: '/repos/:owner/:repo/issues/:index/deadline', auth: 'user', body: 'json', operationId: 'issueEditIssueDeadline', summary: "Set or clear an issue's due date", schema: { params: issueParams, body: deadlineBody, response: { 201: deadlineResponse } }, handler: h.editIssueDeadline },
  { method: 'GET', path: '/repos/:owner/:repo/new_pin_allowed', auth: 'optional', operationId: 'repoNewPinAllowed', summary: 'Whether another issue or pull request can be pinned', schema: { params: repoParams, response: { 200: pinAllowedResponse } }, handler: h.newPinAllowed },
  { method: 'POST', path: '/repos/:owner/:repo/issues/:index/pin', auth: 'user', operationId: 'pinIssue', summary: 'Pin an issue', schema: { params: issueParams, response: empty }, handler: h.pinIssue },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/pin', auth: 'user', operationId: 'unpinIssue', summary: 'Unpin an issue', schema: { params: issueParams, response: empty }, handler: h.unpinIssue },
  { method: 'PATCH', path: '/repos/:owner/:repo/issues/:index/pin/:position', auth: 'user', operationId: 'moveIssuePin', summary: 'Move a pinned issue to a position', schema: { params: issuePinParams, response: empty }, handler: h.moveIssuePin },
  { method: 'GET', path: '/repos/:owner/:repo/assignees', auth: 'optional', operationId: 'repoGetAssignees', summary: 'The users who may be assigned to issues of a repository', schema: { params: repoParams, response: userList }, handler: h.listAssignees },
  { method: 'GET', path: '/repos/:owner/:repo/issues/:index/subscriptions', auth: 'optional', operationId: 'issueSubscriptions', summary: "List an issue's subscribers", schema: { params: issueParams, querystring: listQuery(), response: userList }, handler: h.listSubscriptions },
  { method: 'GET', path: '/repos/:owner/:repo/issues/:index/subscriptions/check', auth: 'user', operationId: 'issueCheckSubscription', summary: 'Whether the caller is subscribed to an issue', schema: { params: issueParams, response: { 200: ref('forgekit/WatchInfo') } }, handler: h.checkSubscription },
  { method: 'PUT', path: '/repos/:owner/:repo/issues/:index/subscriptions/:user', auth: 'user', operationId: 'issueAddSubscription', summary: 'Subscribe a user to an issue (201 added, 200 already)', schema: { params: issueUserParams, response: { 200: { type: 'null' }, 201: { type: 'null' } } }, handler: h.addSubscription },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/subscriptions/:user', auth: 'user', operationId: 'issueDeleteSubscription', summary: 'Unsubscribe a user from an issue (201 removed, 200 was not)', schema: { params: issueUserParams, response: { 200: { type: 'null' }, 201: { type: 'null' } } }, handler: h.deleteSubscription },

  // ---- comments ----
  { method: 'GET', path: '/repos/:owner/:repo/issues/comments', auth: 'optional', operationId: 'issueGetRepoComments', summary: "List a repository's comments", schema: { params: repoParams, querystring: commentsQuery, response: { 200: ref('forgekit/CommentList') } }, handler: c.listRepoComments },
  { method: 'GET', path: '/repos/:owner/:repo/issues/comments/:id', auth: 'optional', operationId: 'issueGetComment', summary: 'Get a comment', schema: { params: commentParams, response: { 200: ref('forgekit/Comment') } }, handler: c.getComment },
  { method: 'PATCH', path: '/repos/:owner/:repo/issues/comments/:id', auth: 'user', body: 'json', operationId: 'issueEditComment', summary: 'Edit a comment (its poster or a writer)', schema: { params: commentParams, body: commentBody, response: { 200: ref('forgekit/Comment') } }, handler: c.editComment },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/comments/:id', auth: 'user', operationId: 'issueDeleteComment', summary: 'Delete a comment (its poster or a writer)', schema: { params: commentParams, response: empty }, handler: c.deleteComment },
  { method: 'PATCH', path: '/repos/:owner/:repo/issues/:index/comments/:id', auth: 'user', body: 'json', operationId: 'issueEditCommentDeprecated', summary: 'Edit a comment (deprecated path)', schema: { params: issueCommentParams, body: commentBody, response: { 200: ref('forgekit/Comment') } }, handler: c.editComment },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/comments/:id', auth: 'user', operationId: 'issueDeleteCommentDeprecated', summary: 'Delete a comment (deprecated path)', schema: { params: issueCommentParams, response: empty }, handler: c.deleteComment },
  { method: 'GET', path: '/repos/:owner/:repo/issues/:index/comments', auth: 'optional', operationId: 'issueGetComments', summary: "List an issue's comments", schema: { params: issueParams, querystring: commentsQuery, response: { 200: ref('forgekit/CommentList') } }, handler: c.listIssueComments },
  { method: 'POST', path: '/repos/:owner/:repo/issues/:index/comments', auth: 'user', body: 'json', operationId: 'issueCreateComment', summary: 'Comment on an issue', schema: { params: issueParams, body: commentBody, response: { 201: ref('forgekit/Comment') } }, handler: c.createComment },

  // ---- reactions ----
  { method: 'GET', path: '/repos/:owner/:repo/issues/:index/reactions', auth: 'optional', operationId: 'issueGetIssueReactions', summary: "List an issue's reactions", schema: { params: issueParams, querystring: listQuery(), response: { 200: ref('forgekit/ReactionList') } }, handler: c.listIssueReactions },
  { method: 'POST', path: '/repos/:owner/:repo/issues/:index/reactions', auth: 'user', body: 'json', operationId: 'issuePostIssueReaction', summary: 'Add a reaction to an issue (201 added, 200 already there)', schema: { params: issueParams, body: reactionBody, response: { 200: ref('forgekit/Reaction'), 201: ref('forgekit/Reaction') } }, handler: c.postIssueReaction },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/reactions', auth: 'user', body: 'json', operationId: 'issueDeleteIssueReaction', summary: 'Remove a reaction from an issue', schema: { params: issueParams, body: reactionBody, response: { 200: { type: 'null' } } }, handler: c.deleteIssueReaction },
  { method: 'GET', path: '/repos/:owner/:repo/issues/comments/:id/reactions', auth: 'optional', operationId: 'issueGetCommentReactions', summary: "List a comment's reactions", schema: { params: commentParams, response: { 200: ref('forgekit/ReactionList') } }, handler: c.listCommentReactions },
  { method: 'POST', path: '/repos/:owner/:repo/issues/comments/:id/reactions', auth: 'user', body: 'json', operationId: 'issuePostCommentReaction', summary: 'Add a reaction to a comment (201 added, 200 already there)', schema: { params: commentParams, body: reactionBody, response: { 200: ref('forgekit/Reaction'), 201: ref('forgekit/Reaction') } }, handler: c.postCommentReaction },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/comments/:id/reactions', auth: 'user', body: 'json', operationId: 'issueDeleteCommentReaction', summary: 'Remove a reaction from a comment', schema: { params: commentParams, body: reactionBody, response: { 200: { type: 'null' } } }, handler: c.deleteCommentReaction },

  // ---- labels ----
  { method: 'GET', path: '/repos/:owner/:repo/labels', auth: 'optional', operationId: 'issueListLabels', summary: "List a repository's labels", schema: { params: repoParams, querystring: listQuery(), response: labelList }, handler: l.listRepoLabels },
  { method: 'POST', path: '/repos/:owner/:repo/labels', auth: 'user', body: 'json', operationId: 'issueCreateLabel', summary: 'Create a label', schema: { params: repoParams, body: createLabelBody, response: { 201: ref('forgekit/Label') } }, handler: l.createRepoLabel },
  { method: 'GET', path: '/repos/:owner/:repo/labels/:id', auth: 'optional', operationId: 'issueGetLabel', summary: 'Get a label', schema: { params: labelParams, response: { 200: ref('forgekit/Label') } }, handler: l.getRepoLabel },
  { method: 'PATCH', path: '/repos/:owner/:repo/labels/:id', auth: 'user', body: 'json', operationId: 'issueEditLabel', summary: 'Edit a label', schema: { params: labelParams, body: editLabelBody, response: { 200: ref('forgekit/Label') } }, handler: l.editRepoLabel },
  { method: 'DELETE', path: '/repos/:owner/:repo/labels/:id', auth: 'user', operationId: 'issueDeleteLabel', summary: 'Delete a label', schema: { params: labelParams, response: empty }, handler: l.deleteRepoLabel },
  { method: 'GET', path: '/orgs/:org/labels', auth: 'optional', operationId: 'orgListLabels', summary: "List an organization's labels", schema: { params: orgParams, querystring: listQuery(), response: labelList }, handler: l.listOrgLabels },
  { method: 'POST', path: '/orgs/:org/labels', auth: 'user', body: 'json', operationId: 'orgCreateLabel', summary: 'Create an organization label', schema: { params: orgParams, body: createLabelBody, response: { 201: ref('forgekit/Label') } }, handler: l.createOrgLabel },
  { method: 'GET', path: '/orgs/:org/labels/:id', auth: 'optional', operationId: 'orgGetLabel', summary: 'Get an organization label', schema: { params: orgLabelParams, response: { 200: ref('forgekit/Label') } }, handler: l.getOrgLabel },
  { method: 'PATCH', path: '/orgs/:org/labels/:id', auth: 'user', body: 'json', operationId: 'orgEditLabel', summary: 'Edit an organization label', schema: { params: orgLabelParams, body: editLabelBody, response: { 200: ref('forgekit/Label') } }, handler: l.editOrgLabel },
  { method: 'DELETE', path: '/orgs/:org/labels/:id', auth: 'user', operationId: 'orgDeleteLabel', summary: 'Delete an organization label', schema: { params: orgLabelParams, response: empty }, handler: l.deleteOrgLabel },
  { method: 'GET', path: '/repos/:owner/:repo/issues/:index/labels', auth: 'optional', operationId: 'issueGetLabels', summary: "Get an issue's labels", schema: { params: issueParams, response: labelList }, handler: l.getIssueLabels },
  { method: 'POST', path: '/repos/:owner/:repo/issues/:index/labels', auth: 'user', body: 'json', operationId: 'issueAddLabel', summary: 'Add labels to an issue', schema: { params: issueParams, body: issueLabelsBody, response: labelList }, handler: l.addIssueLabels },
  { method: 'PUT', path: '/repos/:owner/:repo/issues/:index/labels', auth: 'user', body: 'json', operationId: 'issueReplaceLabels', summary: "Replace an issue's labels", schema: { params: issueParams, body: issueLabelsBody, response: labelList }, handler: l.replaceIssueLabels },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/labels', auth: 'user', operationId: 'issueClearLabels', summary: "Remove every label from an issue", schema: { params: issueParams, response: empty }, handler: l.clearIssueLabels },
  { method: 'DELETE', path: '/repos/:owner/:repo/issues/:index/labels/:id', auth: 'user', operationId: 'issueRemoveLabel', summary: 'Remove a label from an issue', schema: { params: issueLabelParams, response: empty }, handler: l.removeIssueLabel },

  // ---- milestones ----
  { method: 'GET', path: '/repos/:owner/:repo/milestones', auth: 'optional', operationId: 'issueGetMilestonesList', summary: "List a repository's milestones", schema: { params: repoParams, querystring: milestonesQuery, response: { 200: ref('forgekit/MilestoneList') } }, handler: m.listMilestones },
  { method: 'POST', path: '/repos/:owner/:repo/milestones', auth: 'user', body: 'json', operationId: 'issueCreateMilestone', summary: 'Create a milestone', schema: { params: repoParams, body: createMilestoneBody, response: { 201: ref('forgekit/Milestone') } }, handler: m.createMilestone },
  { method: 'GET', path: '/repos/:owner/:repo/milestones/:id', auth: 'optional', operationId: 'issueGetMilestone', summary: 'Get a milestone by id or title', schema: { params: milestoneParams, response: { 200: ref('forgekit/Milestone') } }, handler: m.getMilestone },
  { method: 'PATCH', path: '/repos/:owner/:repo/milestones/:id', auth: 'user', body: 'json', operationId: 'issueEditMilestone', summary: 'Edit a milestone', schema: { params: milestoneParams, body: editMilestoneBody, response: { 200: ref('forgekit/Milestone') } }, handler: m.editMilestone },
  { method: 'DELETE', path: '/repos/:owner/:repo/milestones/:id', auth: 'user', operationId: 'issueDeleteMilestone', summary: 'Delete a milestone', schema: { params: milestoneParams, response: empty }, handler: m.deleteMilestone },
];

export default definePlugin<IssuesService>({
  name: 'issues',
  settings: {
    type: 'object',
    properties: {
      maxPinned: { type: 'integer', minimum: 0, maximum: 100, default: 3 },
      // Issue texts kept for list pages (about 1.6 KB each); 0 serialises every issue on every page.
      jsonCacheEntries: { type: 'integer', minimum: 0, default: 20000 },
    },
    additionalProperties: false,
  },
  dependencies: ['users', 'repos'],
  optionalDependencies: ['orgs', 'markup', 'watch'],
  schemas: ISSUE_SCHEMAS as JsonSchema[],
  collections: COLLECTIONS,
  async start(ctx) {
    const service = new Issues(ctx);
    await service.repair();
    await service.dropStoredGrams();
    await service.recordUnitsOff();
    ctx.events.on(REPO_UPDATED, ({ repo, before }: { repo: RepoRecord; before?: RepoRecord }) => service.onRepoUpdated(repo, before));
    ctx.events.on(REPO_DELETED, ({ repo }: { repo: RepoRecord }) => service.onRepoDeleted(repo));
    ctx.events.on(ACCOUNT_DELETED, ({ account }: { account: Account }) => service.onAccountDeleted(account));
    // In the background: the server answers meanwhile (`q` searches check texts themselves until it is done).
    service.startTextIndex();
    ctx.kernel.background('issues: q trigram index', service.textIndexReady);
    return service;
  },
  async stop(ctx) {
    const service = ctx.services.get('issues') as Issues;
    service.stopTextIndex();
    await service.textIndexReady;
  },
  // Gitea: repository issue routes need the issue scope; organization labels live in its organization group.
  routes: routes.map((r) => ({ ...r, scope: r.path.startsWith('/orgs/') ? 'organization' as const : 'issue' as const })),
});
