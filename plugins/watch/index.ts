// The `watch` plugin: repository subscriptions (owners watch what they create) with an exact `watchers_count`.
import { definePlugin } from '../../core/plugin.js';
import { listQuery, ownerRepoParams, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { REPO_CREATED } from '../../schemas/services.js';
import { REPO_RELATION_RETIRED_INDEXES, relationIntents } from '../lib/repo-relations.js';
import * as h from './handlers.js';
import { WATCH_INDEXES, WATCHES, Watches } from './service.js';

const repoList = { 200: ref('forgekit/RepositoryList') };
const watchInfo = { 200: ref('forgekit/WatchInfo') };
const list = listQuery();

export default definePlugin<Watches>({
  name: 'watch',
  dependencies: ['users', 'repos'],
  collections: [{ name: WATCHES, indexes: WATCH_INDEXES, retiredIndexes: REPO_RELATION_RETIRED_INDEXES }, relationIntents(WATCHES)],
  async start(ctx) {
    const service = new Watches(ctx);
    await service.start();
    ctx.events.on(REPO_CREATED, ({ repo, owner, creatorId }) =>
      service.onRepoCreated(repo, owner, creatorId));
    return service;
  },
  routes: [
    {
      operationId: 'userCurrentCheckSubscription', summary: 'Check if the current user is watching a repo',
      scope: 'repository', method: 'GET', path: '/repos/:owner/:repo/subscription', auth: 'user',
      schema: { params: ownerRepoParams, response: watchInfo }, handler: h.get,
    },
    {
      operationId: 'userCurrentPutSubscription', summary: 'Watch a repo',
      scope: 'repository', method: 'PUT', path: '/repos/:owner/:repo/subscription', auth: 'user',
      schema: { params: ownerRepoParams, response: watchInfo }, handler: h.watch,
    },
    { operationId: 'userCurrentDeleteSubscription', summary: 'Unwatch a repo', scope: 'repository', method: 'DELETE', path: '/repos/:owner/:repo/subscription', auth: 'user', schema: { params: ownerRepoParams }, handler: h.unwatch },
    { operationId: 'userCurrentListSubscriptions', summary: 'List repositories watched by the authenticated user', scope: 'user', method: 'GET', path: '/user/subscriptions', auth: 'user', schema: { querystring: list, response: repoList }, handler: h.listMine },
    {
      operationId: 'userListSubscriptions', summary: 'List the repositories watched by a user',
      scope: 'user', method: 'GET', path: '/users/:username/subscriptions', auth: 'optional',
      schema: { params: usernameParams, querystring: list, response: repoList }, handler: h.listOfUser,
    },
  ],
});
