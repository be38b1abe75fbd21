// The `follow` plugin: who follows whom (users and organizations), with exact follower/following counters.
import { definePlugin } from '../../core/plugin.js';
import { listQuery, nameParam, paramsSchema, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED, type Account } from '../../schemas/services.js';
import * as h from './handlers.js';
import { FOLLOW_INDEXES, FOLLOWS, Follows } from './service.js';

const userList = { 200: ref('forgekit/UserList') };
const list = listQuery();

export default definePlugin<Follows>({
  name: 'follow',
  dependencies: ['users'],
  collections: [{ name: FOLLOWS, indexes: FOLLOW_INDEXES }],
  start(ctx) {
    const service = new Follows(ctx);
    ctx.events.on(ACCOUNT_DELETED, ({ account }: { account: Account }) => service.onAccountDeleted(account));
    return service;
  },
  routes: [
    { method: 'GET', path: '/user/followers', auth: 'user', schema: { querystring: list, response: userList }, handler: h.listMyFollowers },
    { method: 'GET', path: '/user/following', auth: 'user', schema: { querystring: list, response: userList }, handler: h.listMyFollowing },
    { method: 'GET', path: '/user/following/:username', auth: 'user', schema: { params: usernameParams }, handler: h.checkMyFollowing },
    { method: 'PUT', path: '/user/following/:username', auth: 'user', schema: { params: usernameParams }, handler: h.follow },
    { method: 'DELETE', path: '/user/following/:username', auth: 'user', schema: { params: usernameParams }, handler: h.unfollow },
    {
      method: 'GET', path: '/users/:username/followers', auth: 'optional',
      schema: { params: usernameParams, querystring: list, response: userList }, handler: h.listFollowers,
    },
    {
      method: 'GET', path: '/users/:username/following', auth: 'optional',
      schema: { params: usernameParams, querystring: list, response: userList }, handler: h.listFollowing,
    },
    {
      method: 'GET', path: '/users/:username/following/:target', auth: 'optional',
      schema: { params: paramsSchema({ username: nameParam, target: nameParam }) }, handler: h.checkFollowing,
    },
  ],
});
