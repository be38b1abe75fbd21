// The `stars` plugin: users star repositories; exact `stars_count` on repositories and star counts on users.
import { definePlugin } from '../../core/plugin.js';
import { listQuery, ownerRepoParams, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { REPO_RELATION_RETIRED_INDEXES, relationIntents } from '../lib/repo-relations.js';
import * as h from './handlers.js';
import { STAR_INDEXES, STARS, Stars } from './service.js';

const repoList = { 200: ref('forgekit/RepositoryList') };
const list = listQuery();

export default definePlugin<Stars>({
  name: 'stars',
  dependencies: ['users', 'repos'],
  collections: [{ name: STARS, indexes: STAR_INDEXES, retiredIndexes: REPO_RELATION_RETIRED_INDEXES }, relationIntents(STARS)],
  async start(ctx) {
    const service = new Stars(ctx);
    await service.start();
    // `/repos/search?starredBy=`: the repos plugin asks for a user's starred repository ids.
    ctx.services.get('repos').setStarredSource(async (uid) => (await service.rows.find({ uid }, { projection: { repoId: 1 } })).map((r) => r.repoId));
    return service;
  },
  routes: [
    { operationId: 'userCurrentListStarred', summary: 'The repos that the authenticated user has starred', scope: ['user', 'repository'] as const, method: 'GET', path: '/user/starred', auth: 'user', schema: { querystring: list, response: repoList }, handler: h.listMine },
    { operationId: 'userCurrentCheckStarring', summary: 'Whether the authenticated is starring the repo', scope: ['user', 'repository'] as const, method: 'GET', path: '/user/starred/:owner/:repo', auth: 'user', schema: { params: ownerRepoParams }, handler: h.check },
    { operationId: 'userCurrentPutStar', summary: 'Star the given repo', scope: ['user', 'repository'] as const, method: 'PUT', path: '/user/starred/:owner/:repo', auth: 'user', schema: { params: ownerRepoParams }, handler: h.star },
    { operationId: 'userCurrentDeleteStar', summary: 'Unstar the given repo', scope: ['user', 'repository'] as const, method: 'DELETE', path: '/user/starred/:owner/:repo', auth: 'user', schema: { params: ownerRepoParams }, handler: h.unstar },
    {
      operationId: 'userListStarred', summary: 'The repos that the given user has starred',
      scope: 'user', method: 'GET', path: '/users/:username/starred', auth: 'optional',
      schema: { params: usernameParams, querystring: list, response: repoList }, handler: h.listOfUser,
    },
  ],
});
