// The `tokens` plugin: access tokens (create, list, delete) and token authentication for every transport.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema, usernameParams } from '../../schemas/common.js';
import { AccessTokenSchema, AccessTokenListSchema, ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED } from '../../schemas/services.js';
import { Tokens, TOKENS } from './service.js';
import * as h from './handlers.js';

export default definePlugin<Tokens>({
  name: 'tokens',
  dependencies: ['users'],
  schemas: [AccessTokenSchema, AccessTokenListSchema],
  collections: [
    { name: TOKENS, indexes: [{ fields: { id: 1 }, unique: true }, { fields: { hash: 1 }, unique: true }, { fields: { uid: 1, id: -1 } }] },
  ],
  start(ctx) {
    const tokens = new Tokens(ctx);
    ctx.auth.provide({ token: (value) => tokens.verify(value) });
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => tokens.deleteAllOf(account.id));
    return tokens;
  },
  routes: [
    {
      operationId: 'userGetTokens', summary: 'List the authenticated user\'s access tokens',
      method: 'GET', path: '/users/:username/tokens', auth: 'basic',
      schema: { params: usernameParams, querystring: listQuery(), response: { 200: ref('forgekit/AccessTokenList') } },
      handler: h.listTokens,
    },
    {
      operationId: 'userCreateToken', summary: 'Create an access token',
      method: 'POST', path: '/users/:username/tokens', auth: 'basic', body: 'json',
      schema: {
        params: usernameParams,
        body: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['name'] },
        response: { 201: ref('forgekit/AccessToken') },
      },
      handler: h.createToken,
    },
    {
      operationId: 'userDeleteAccessToken', summary: 'delete an access token',
      // Gitea's `{token}`: an id, or else the token's name.
      method: 'DELETE', path: '/users/:username/tokens/:id', auth: 'basic',
      schema: { params: paramsSchema({ username: nameParam, id: { type: 'string', minLength: 1, maxLength: 255 } }) },
      handler: h.deleteToken,
    },
  ],
});
