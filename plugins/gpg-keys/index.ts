// The `gpg-keys` plugin: users' OpenPGP public keys (/user/gpg_keys, /users/{username}/gpg_keys, /{username}.gpg).
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, paramsSchema, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { gpgKeysService } from './service.js';
import type { GpgKeysService } from '../../schemas/contracts/gpg-keys.js';

const idParams = paramsSchema({ id: idParam });
const createBody = {
  type: 'object',
  properties: { armored_public_key: { type: 'string', minLength: 1 } },
  required: ['armored_public_key'],
};

export default definePlugin<GpgKeysService, h.GpgKeysSettings>({
  name: 'gpg-keys',
  dependencies: ['users'],
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxKeyBytes: { type: 'integer', minimum: 1024, default: 65536, description: 'most bytes of an uploaded armored key (422 beyond)' },
      maxKeysPerUser: { type: 'integer', minimum: 1, default: 32, description: 'most GPG keys an account keeps (422 beyond)' },
      exportCacheEntries: { type: 'integer', minimum: 0, default: 1000, description: 'accounts whose /{username}.gpg export is kept in memory' },
    },
  },
  collections: [{ name: h.VERSIONS, indexes: [{ fields: { ownerId: 1 }, unique: true }] }, {
    name: h.COLLECTION,
    indexes: [
      { fields: { ownerId: 1, primaryKeyId: 1 } },
      { fields: { primaryKeyId: 1 } },
      { fields: { keyId: 1 }, unique: true },
      { fields: { id: 1 }, unique: true },
    ],
  }],
  routes: [
    { operationId: 'userCurrentListGpgKeys', summary: 'List the authenticated user\'s GPG keys', scope: 'user', method: 'GET', path: '/user/gpg_keys', auth: 'user', schema: { querystring: listQuery(), response: { 200: ref('forgekit/GPGKeyList') } }, handler: h.listMine },
    { operationId: 'userCurrentPostGpgKey', summary: 'Create a GPG key', scope: 'user', method: 'POST', path: '/user/gpg_keys', auth: 'user', body: 'json', schema: { body: createBody, response: { 201: ref('forgekit/GPGKey') } }, handler: h.create },
    { operationId: 'userCurrentGetGpgKey', summary: 'Get a GPG key', scope: 'user', method: 'GET', path: '/user/gpg_keys/:id', auth: 'user', schema: { params: idParams, response: { 200: ref('forgekit/GPGKey') } }, handler: h.getMine },
    { operationId: 'userCurrentDeleteGpgKey', summary: 'Remove a GPG key', scope: 'user', method: 'DELETE', path: '/user/gpg_keys/:id', auth: 'user', schema: { params: idParams }, handler: h.remove },
    { operationId: 'userListGpgKeys', summary: 'List the given user\'s GPG keys', scope: 'user', method: 'GET', path: '/users/:username/gpg_keys', auth: 'optional', schema: { params: usernameParams, querystring: listQuery(), response: { 200: ref('forgekit/GPGKeyList') } }, handler: h.listOfUser },
    { operationId: 'userListGpgKeysArmored', summary: 'The given user\'s GPG public keys, ASCII-armored', scope: 'misc', method: 'GET', path: '/:username.gpg', mount: 'root', auth: 'public', schema: { params: usernameParams }, handler: h.plainText },
  ],
  start(ctx) {
    ctx.events.on(ACCOUNT_DELETED, async ({ account }) => {
      await ctx.store.collection(h.COLLECTION).deleteMany({ ownerId: account.id });
      await ctx.store.collection(h.VERSIONS).deleteMany({ ownerId: account.id });
    });
    return gpgKeysService(ctx.store, h.COLLECTION);
  },
});
