// Plugin `repos`: repositories, who may do what on them (the access service every plugin uses), lists and search.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, ownerRepoParams, paramsSchema, searchPagingSettings } from '../../schemas/common.js';
import { RESOURCE_SCHEMAS, ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED, REPO_UPDATED, TEAM_DELETED, type ReposService } from '../../schemas/services.js';
import * as h from './handlers.js';
import { collaboratorBody, createRepoBody, editRepoBody, searchQuery } from './schemas.js';
import { COLLABORATIONS, LEFTOVERS, REPO_INDEXES, REPOS, Repos, TEAM_REPOS, type ReposSettings } from './service.js';

const repoResponse = (status: number) => ({ [status]: ref('forgekit/Repository') });
const collaboratorParams = paramsSchema({ owner: nameParam, repo: nameParam, collaborator: nameParam });
const teamRepoParams = paramsSchema({ id: idParam, org: nameParam, repo: nameParam });
const list = listQuery();

export default definePlugin<ReposService, ReposSettings>({
  name: 'repos',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      /** What `ssh_url` advertises; an empty domain is the root URL's host. env FORGEKIT_SSH_PORT sets the port. */
      ssh: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: {
          domain: { type: 'string', default: '' },
          port: { type: 'integer', minimum: 1, maximum: 65535, default: 22 },
          user: { type: 'string', minLength: 1, default: 'git' },
        },
      },
      search: searchPagingSettings,
      /** Repositories whose serialised JSON is kept for reuse in lists (0: none). */
      jsonCacheEntries: { type: 'integer', minimum: 0, default: 20000 },
    },
  },
  dependencies: ['users', 'orgs'],
  schemas: [...RESOURCE_SCHEMAS],
  collections: [
    { name: REPOS, indexes: REPO_INDEXES },
    {
      name: COLLABORATIONS,
      indexes: [
        { fields: { repoId: 1, userId: 1 }, unique: true },
        { fields: { repoId: 1 } },
        { fields: { userId: 1 } },
      ],
    },
    { name: LEFTOVERS, indexes: [{ fields: { repoId: 1 }, unique: true }] },
    {
      name: TEAM_REPOS,
      indexes: [
        { fields: { teamId: 1, repoId: 1 }, unique: true },
        { fields: { teamId: 1 } },
        { fields: { repoId: 1 } },
      ],
    },
  ],
  async start(ctx) {
    const service = new Repos(ctx);
    await service.rollBackUnfinished();
    await service.loadIndex();
    // Changes made outside this plugin's update paths (a topics plugin's `setTopics`) reach the index this way.
    ctx.events.on(REPO_UPDATED, ({ repo }) => service.index.upsert(repo));
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => service.onAccountDeleted(account));
    ctx.events.on(TEAM_DELETED, ({ team }) => service.onTeamDeleted(team));
    ctx.services.get('users').addDeletionGuard({
      blockers: (account, { purge }) => service.deletionBlockers(account, purge),
      purge: (account) => service.purgeOwnedBy(account),
    });
    return service;
  },
  routes: [
    {
      operationId: 'createCurrentUserRepo', summary: 'Create a repository',
      scope: ['user', 'repository'] as const, method: 'POST', path: '/user/repos', auth: 'user', body: 'json', handler: h.createUserRepo,
      schema: { body: createRepoBody, response: repoResponse(201) },
    },
    {
      operationId: 'adminCreateRepo', summary: 'Create a repository on behalf of a user',
      scope: 'admin', method: 'POST', path: '/admin/users/:username/repos', auth: 'admin', body: 'json', handler: h.adminCreateRepo,
      schema: { params: paramsSchema({ username: nameParam }), body: createRepoBody, response: repoResponse(201) },
    },
    {
      operationId: 'createOrgRepoDeprecated', summary: 'Create a repository in an organization',
      scope: ['organization', 'repository'] as const, method: 'POST', path: '/org/:org/repos', auth: 'user', body: 'json', handler: h.createOrgRepo,
      schema: { params: paramsSchema({ org: nameParam }), body: createRepoBody, response: repoResponse(201) },
    },
    {
      // The path later Gitea versions use for the same operation.
      operationId: 'createOrgRepo', summary: 'Create a repository in an organization',
      scope: 'organization', method: 'POST', path: '/orgs/:org/repos', auth: 'user', body: 'json', handler: h.createOrgRepo,
      schema: { params: paramsSchema({ org: nameParam }), body: createRepoBody, response: repoResponse(201) },
    },
    {
      operationId: 'repoSearch', summary: 'Search for repositories',
      scope: 'repository', method: 'GET', path: '/repos/search', auth: 'optional', handler: h.search,
      schema: { querystring: searchQuery, response: { 200: ref('forgekit/SearchResults'), 500: ref('forgekit/SearchError') } },
    },
    {
      operationId: 'repoGet', summary: 'Get a repository',
      scope: 'repository', method: 'GET', path: '/repos/:owner/:repo', auth: 'optional', handler: h.getRepo,
      schema: { params: ownerRepoParams, response: repoResponse(200) },
    },
    {
      operationId: 'repoEdit', summary: 'Edit a repository\'s properties. Only fields that are set will be changed.',
      scope: 'repository', method: 'PATCH', path: '/repos/:owner/:repo', auth: 'user', body: 'json', handler: h.editRepo,
      schema: { params: ownerRepoParams, body: editRepoBody, response: repoResponse(200) },
    },
    {
      operationId: 'repoDelete', summary: 'Delete a repository',
      scope: 'repository', method: 'DELETE', path: '/repos/:owner/:repo', auth: 'user', handler: h.deleteRepo,
      schema: { params: ownerRepoParams },
    },
    {
      operationId: 'repoListCollaborators', summary: 'List a repository\'s collaborators',
      scope: 'repository', method: 'GET', path: '/repos/:owner/:repo/collaborators', auth: 'user', handler: h.listCollaborators,
      schema: { params: ownerRepoParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      operationId: 'repoCheckCollaborator', summary: 'Check if a user is a collaborator of a repository',
      scope: 'repository', method: 'GET', path: '/repos/:owner/:repo/collaborators/:collaborator', auth: 'user', handler: h.checkCollaborator,
      schema: { params: collaboratorParams },
    },
    {
      operationId: 'repoAddCollaborator', summary: 'Add or Update a collaborator to a repository',
      scope: 'repository', method: 'PUT', path: '/repos/:owner/:repo/collaborators/:collaborator', auth: 'user', body: 'json', bodyOptional: true,
      handler: h.addCollaborator,
      schema: { params: collaboratorParams, body: collaboratorBody },
    },
    {
      operationId: 'repoDeleteCollaborator', summary: 'Delete a collaborator from a repository',
      scope: 'repository', method: 'DELETE', path: '/repos/:owner/:repo/collaborators/:collaborator', auth: 'user', handler: h.removeCollaborator,
      schema: { params: collaboratorParams },
    },
    {
      operationId: 'orgListTeamRepos', summary: 'List a team\'s repos',
      scope: 'organization', method: 'GET', path: '/teams/:id/repos', auth: 'user', handler: h.listTeamRepos,
      schema: { params: paramsSchema({ id: idParam }), querystring: list, response: { 200: ref('forgekit/RepositoryList') } },
    },
    {
      operationId: 'orgListTeamRepo', summary: 'List a particular repo of team', scope: 'organization',
      method: 'GET', path: '/teams/:id/repos/:org/:repo', auth: 'user', handler: h.getTeamRepo,
      schema: { params: teamRepoParams, response: repoResponse(200) },
    },
    {
      operationId: 'repoGetById', summary: 'Get a repository by id', scope: 'repository',
      method: 'GET', path: '/repositories/:id', auth: 'optional', handler: h.getRepoById,
      schema: { params: paramsSchema({ id: idParam }), response: repoResponse(200) },
    },
    {
      operationId: 'orgAddTeamRepository', summary: 'Add a repository to a team',
      scope: 'organization', method: 'PUT', path: '/teams/:id/repos/:org/:repo', auth: 'user', handler: h.addTeamRepo,
      schema: { params: teamRepoParams },
    },
    {
      operationId: 'orgRemoveTeamRepository', summary: 'Remove a repository from a team',
      scope: 'organization', method: 'DELETE', path: '/teams/:id/repos/:org/:repo', auth: 'user', handler: h.removeTeamRepo,
      schema: { params: teamRepoParams },
    },
    {
      operationId: 'userCurrentListRepos', summary: 'List the repos that the authenticated user owns',
      scope: ['user', 'repository'] as const, method: 'GET', path: '/user/repos', auth: 'user', handler: h.listMyRepos,
      schema: { querystring: list, response: { 200: ref('forgekit/RepositoryList') } },
    },
    {
      operationId: 'orgListRepos', summary: 'List an organization\'s repos',
      scope: 'organization', method: 'GET', path: '/orgs/:org/repos', auth: 'optional', handler: h.listOrgRepos,
      schema: { params: paramsSchema({ org: nameParam }), querystring: list, response: { 200: ref('forgekit/RepositoryList') } },
    },
    {
      operationId: 'userListRepos', summary: 'List the repos owned by the given user',
      scope: ['user', 'repository'] as const, method: 'GET', path: '/users/:username/repos', auth: 'optional', handler: h.listUserRepos,
      schema: { params: paramsSchema({ username: nameParam }), querystring: list, response: { 200: ref('forgekit/RepositoryList') } },
    },
  ],
});
