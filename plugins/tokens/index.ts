// The `tokens` plugin: access tokens (create, list, delete) and token authentication for every transport.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema, usernameParams } from '../../schemas/common.js';
import { AccessTokenSchema, AccessTokenListSchema, ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED } from '../../schemas/services.js';
import { Tokens, TOKENS } from './service.js';
import * as h from './handlers.js';
import type { TokensSettings } from './handlers.js';
import { parseScopes } from '../../core/scopes.js';

export default definePlugin<Tokens, TokensSettings>({
  name: 'tokens',
  dependencies: ['users'],
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      defaultScopes: {
        type: 'array', items: { type: 'string', maxLength: 100 }, maxItems: 32, default: [],
        description: 'scopes of a token created without any (e.g. ["all"] for old clients); empty: refused with 400, as Gitea 1.23',
      },
    },
  },
  schemas: [AccessTokenSchema, AccessTokenListSchema],
  collections: [
    { name: TOKENS, indexes: [{ fields: { id: 1 }, unique: true }, { fields: { hash: 1 }, unique: true }, { fields: { uid: 1, id: -1 } }] },
  ],
  start(ctx) {
    parseScopes(ctx.settings.defaultScopes); // an unknown scope in the configuration stops the boot
    const tokens = new Tokens(ctx);
    ctx.auth.provide({ token: (value) => tokens.verify(value) });
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => tokens.deleteAllOf(account.id));
    return tokens;
  },
  routes: [
    {
      operationId: 'userGetTokens', summary: 'List the authenticated user\'s access tokens',
      scope: 'user', method: 'GET', path: '/users/:username/tokens', auth: 'basic',
      schema: { params: usernameParams, querystring: listQuery(), response: { 200: ref('forgekit/AccessTokenList') } },
      handler: h.listTokens,
    },
    {
      operationId: 'userCreateToken', summary: 'Create an access token',
      scope: 'user', method: 'POST', path: '/users/:username/tokens', auth: 'basic', body: 'json',
      schema: {
        params: usernameParams,
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 255 },
            scopes: { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 1024 } },
          },
          required: ['name'],
        },
        response: { 201: ref('forgekit/AccessToken') },
      },
      handler: h.createToken,
    },
    {
      operationId: 'userDeleteAccessToken', summary: 'delete an access token',
      // Gitea's `{token}`: an id, or else the token's name.
      scope: 'user', method: 'DELETE', path: '/users/:username/tokens/:id', auth: 'basic',
      schema: { params: paramsSchema({ username: nameParam, id: { type: 'string', minLength: 1, maxLength: 255 } }) },
      handler: h.deleteToken,
    },
  ],
});
