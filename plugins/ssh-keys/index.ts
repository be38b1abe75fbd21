// The `ssh-keys` plugin: users' SSH public keys (/user/keys, /users/{username}/keys, /{username}.keys).
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, paramsSchema, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { createSshKeysService } from './service.js';

const idParams = paramsSchema({ id: idParam });
const createBody = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255 },
    key: { type: 'string', minLength: 1, maxLength: 65536 },
  },
  required: ['title', 'key'],
};

/** Gitea's CreateKeyOption (`read_only` is for deploy keys; accepted and meaningless for a user key, as in Gitea). */
const adminCreateBody = { ...createBody, properties: { ...createBody.properties, read_only: { type: 'boolean' } } };

/** Minimum key size in bits per family; -1 refuses the type. */
const minimumSize = (bits: number) => ({ type: 'integer', minimum: -1, default: bits });

export default definePlugin({
  name: 'ssh-keys',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      minimumSizes: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: { ed25519: minimumSize(256), ecdsa: minimumSize(256), rsa: minimumSize(2048), dsa: minimumSize(-1) },
      },
    },
  },
  dependencies: ['users'],
  collections: [{
    name: h.COLLECTION,
    indexes: [
      { fields: { ownerId: 1 } },
      { fields: { fingerprint: 1 }, unique: true },
      { fields: { ownerId: 1, title: 1 }, unique: true },
      { fields: { id: 1 }, unique: true },
    ],
  }],
  routes: [
    { operationId: 'userCurrentListKeys', summary: 'List the authenticated user\'s public keys', scope: 'user', method: 'GET', path: '/user/keys', auth: 'user', schema: { querystring: listQuery({ fingerprint: { type: 'string', maxLength: 255 } }), response: { 200: ref('forgekit/PublicKeyList') } }, handler: h.listMine },
    { operationId: 'userCurrentPostKey', summary: 'Create a public key', scope: 'user', method: 'POST', path: '/user/keys', auth: 'user', body: 'json', schema: { body: createBody, response: { 201: ref('forgekit/PublicKey') } }, handler: h.create },
    { operationId: 'userCurrentGetKey', summary: 'Get a public key', scope: 'user', method: 'GET', path: '/user/keys/:id', auth: 'user', schema: { params: idParams, response: { 200: ref('forgekit/PublicKey') } }, handler: h.getMine },
    { operationId: 'userCurrentDeleteKey', summary: 'Delete a public key', scope: 'user', method: 'DELETE', path: '/user/keys/:id', auth: 'user', schema: { params: idParams }, handler: h.remove },
    { operationId: 'userListKeys', summary: 'List the given user\'s public keys', scope: 'user', method: 'GET', path: '/users/:username/keys', auth: 'optional', schema: { params: usernameParams, querystring: listQuery({ fingerprint: { type: 'string', maxLength: 255 } }), response: { 200: ref('forgekit/PublicKeyList') } }, handler: h.listOfUser },
    {
      operationId: 'adminCreatePublicKey', summary: 'Add a public key on behalf of a user', scope: 'admin',
      method: 'POST', path: '/admin/users/:username/keys', auth: 'admin', body: 'json',
      schema: { params: usernameParams, body: adminCreateBody, response: { 201: ref('forgekit/PublicKey') } }, handler: h.adminCreate,
    },
    {
      operationId: 'adminDeleteUserPublicKey', summary: "Delete a user's public key", scope: 'admin',
      method: 'DELETE', path: '/admin/users/:username/keys/:id', auth: 'admin',
      schema: { params: paramsSchema({ username: usernameParams.properties.username, id: idParam }) }, handler: h.adminRemove,
    },
    { operationId: 'userListKeysText', summary: 'The given user\'s SSH public keys, one per line', scope: 'misc', method: 'GET', path: '/:username.keys', mount: 'root', auth: 'public', schema: { params: usernameParams }, handler: h.plainText },
  ],
  start(ctx) {
    ctx.events.on(ACCOUNT_DELETED, async ({ account }) => {
      await h.deleteOwnedBy(ctx.store.collection(h.COLLECTION), account.id);
    });
    return createSshKeysService(ctx);
  },
});
