// Plugin `statuses`: commit statuses (CI results) per commit, listed, combined, and read by pull-request merges.
import { definePlugin } from '../../core/plugin.js';
import { listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import * as h from './handlers.js';
import { CombinedStatusSchema, CommitStatusListSchema, CommitStatusSchema, createStatusBody, listStatusQuery } from './schemas.js';
import { STATUS_INDEXES, STATUSES, Statuses } from './service.js';
import '../../schemas/contracts/statuses.js';

const refParam = { type: 'string', minLength: 1, maxLength: 255 } as const;
const shaParams = paramsSchema({ owner: nameParam, repo: nameParam, sha: refParam });
const refParams = paramsSchema({ owner: nameParam, repo: nameParam, ref: refParam });
const listResponse = { 200: ref('forgekit/CommitStatusList') };

export default definePlugin<Statuses>({
  name: 'statuses',
  dependencies: ['users', 'repos'],
  optionalDependencies: ['git'],
  collections: [{ name: STATUSES, indexes: STATUS_INDEXES }],
  schemas: [CommitStatusSchema, CommitStatusListSchema, CombinedStatusSchema],
  start(ctx) {
    const service = new Statuses(ctx);
    ctx.events.on('repo.deleted', ({ repo }) => service.onRepoDeleted(repo));
    return service;
  },
  routes: [
    {
      method: 'POST', path: '/repos/:owner/:repo/statuses/:sha', auth: 'user', body: 'json', handler: h.create,
      operationId: 'repoCreateStatus', summary: 'Create a commit status', scope: 'repository',
      schema: { params: shaParams, body: createStatusBody, response: { 201: ref('forgekit/CommitStatus') } },
    },
    {
      method: 'GET', path: '/repos/:owner/:repo/statuses/:sha', auth: 'optional', handler: h.listBySha,
      operationId: 'repoListStatuses', summary: "Get a commit's statuses", scope: 'repository',
      schema: { params: shaParams, querystring: listQuery(listStatusQuery), response: listResponse },
    },
    {
      method: 'GET', path: '/repos/:owner/:repo/commits/:ref/statuses', auth: 'optional', handler: h.listByRef,
      operationId: 'repoListStatusesByRef', summary: "Get a commit's statuses, by branch/tag/commit reference", scope: 'repository',
      schema: { params: refParams, querystring: listQuery(listStatusQuery), response: listResponse },
    },
    {
      method: 'GET', path: '/repos/:owner/:repo/commits/:ref/status', auth: 'optional', handler: h.combined,
      operationId: 'repoGetCombinedStatusByRef', summary: "Get a commit's combined status, by branch/tag/commit reference", scope: 'repository',
      schema: { params: refParams, querystring: listQuery(), response: { 200: ref('forgekit/CombinedStatus') } },
    },
  ],
});
