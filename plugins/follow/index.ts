// The `follow` plugin: who follows whom (users and organizations), with exact follower/following counters.
import { definePlugin } from '../../core/plugin.js';
import { listQuery, nameParam, paramsSchema, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { FOLLOW_INDEXES, FOLLOW_INTENTS, FOLLOWS, Follows } from './service.js';

const userList = { 200: ref('forgekit/UserList') };
const list = listQuery();

export default definePlugin<Follows>({
  name: 'follow',
  dependencies: ['users'],
  collections: [{ name: FOLLOWS, indexes: FOLLOW_INDEXES }, FOLLOW_INTENTS],
  async start(ctx) {
    const service = new Follows(ctx);
    await service.repair();
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => service.onAccountDeleted(account));
    // A private user is seen by the users they follow (Gitea's IsUserVisibleToViewer).
    service.witness = ctx.services.get('users').addVisibilityWitness(
      (account, viewerId) => (account.type === 'user' ? service.isFollowing(account.id, viewerId) : Promise.resolve(false)),
      (ids, viewerId) => service.followersAmong(ids, viewerId),
      { reportsChanges: true });
    return service;
  },
  routes: [
    { operationId: 'userCurrentListFollowers', summary: 'List the authenticated user\'s followers', scope: 'user', method: 'GET', path: '/user/followers', auth: 'user', schema: { querystring: list, response: userList }, handler: h.listMyFollowers },
    { operationId: 'userCurrentListFollowing', summary: 'List the users that the authenticated user is following', scope: 'user', method: 'GET', path: '/user/following', auth: 'user', schema: { querystring: list, response: userList }, handler: h.listMyFollowing },
    { operationId: 'userCurrentCheckFollowing', summary: 'Check whether a user is followed by the authenticated user', scope: 'user', method: 'GET', path: '/user/following/:username', auth: 'user', schema: { params: usernameParams }, handler: h.checkMyFollowing },
    { operationId: 'userCurrentPutFollow', summary: 'Follow a user', scope: 'user', method: 'PUT', path: '/user/following/:username', auth: 'user', schema: { params: usernameParams }, handler: h.follow },
    { operationId: 'userCurrentDeleteFollow', summary: 'Unfollow a user', scope: 'user', method: 'DELETE', path: '/user/following/:username', auth: 'user', schema: { params: usernameParams }, handler: h.unfollow },
    {
      operationId: 'userListFollowers', summary: 'List the given user\'s followers',
      scope: 'user', method: 'GET', path: '/users/:username/followers', auth: 'optional',
      schema: { params: usernameParams, querystring: list, response: userList }, handler: h.listFollowers,
    },
    {
      operationId: 'userListFollowing', summary: 'List the users that the given user is following',
      scope: 'user', method: 'GET', path: '/users/:username/following', auth: 'optional',
      schema: { params: usernameParams, querystring: list, response: userList }, handler: h.listFollowing,
    },
    {
      operationId: 'userCheckFollowing', summary: 'Check if one user is following another user',
      scope: 'user', method: 'GET', path: '/users/:username/following/:target', auth: 'optional',
      schema: { params: paramsSchema({ username: nameParam, target: nameParam }) }, handler: h.checkFollowing,
    },
  ],
});
