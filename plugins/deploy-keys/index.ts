// The `deploy-keys` plugin: per-repository SSH keys (/repos/{owner}/{repo}/keys) that the SSH server accepts for
// that repository alone. Fingerprints are shared with users' keys: one key is one identity.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import type { DeployKeyRecord, DeployKeysService } from '../../schemas/contracts/deploy-keys.js';
import { DEPLOY_KEY_LIST_SCHEMA, DEPLOY_KEY_SCHEMA } from './convert.js';
import * as h from './handlers.js';

const repoParams = paramsSchema({ owner: nameParam, repo: nameParam });
const keyParams = paramsSchema({ owner: nameParam, repo: nameParam, id: idParam });
const createBody = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255 },
    key: { type: 'string', minLength: 1, maxLength: 65536 },
    read_only: { type: 'boolean' },
  },
  required: ['title', 'key'],
};

export default definePlugin<DeployKeysService>({
  name: 'deploy-keys',
  dependencies: ['repos', 'ssh-keys'],
  schemas: [DEPLOY_KEY_SCHEMA, DEPLOY_KEY_LIST_SCHEMA],
  collections: [{
    name: h.COLLECTION,
    indexes: [
      { fields: { id: 1 }, unique: true },
      { fields: { repoId: 1, fingerprint: 1 }, unique: true },
      { fields: { repoId: 1, title: 1 }, unique: true },
      { fields: { fingerprint: 1 } },
    ],
  }],
  routes: [
    {
      method: 'GET', path: '/repos/:owner/:repo/keys', auth: 'user', scope: 'repository', operationId: 'repoListKeys',
      summary: "List a repository's deploy keys",
      schema: {
        params: repoParams,
        querystring: listQuery({ key_id: idParam, fingerprint: { type: 'string', maxLength: 200 } }),
        response: { 200: { $ref: 'forgekit/DeployKeyList' } },
      },
      handler: h.list,
    },
    {
      method: 'POST', path: '/repos/:owner/:repo/keys', auth: 'user', scope: 'repository', operationId: 'repoCreateKey',
      summary: 'Add a deploy key to a repository', body: 'json',
      schema: { params: repoParams, body: createBody, response: { 201: { $ref: 'forgekit/DeployKey' } } },
      handler: h.create,
    },
    {
      method: 'GET', path: '/repos/:owner/:repo/keys/:id', auth: 'user', scope: 'repository', operationId: 'repoGetKey',
      summary: "Get a repository's deploy key by id",
      schema: { params: keyParams, response: { 200: { $ref: 'forgekit/DeployKey' } } },
      handler: h.get,
    },
    {
      method: 'DELETE', path: '/repos/:owner/:repo/keys/:id', auth: 'user', scope: 'repository', operationId: 'repoDeleteKey',
      summary: 'Delete a deploy key from a repository',
      schema: { params: keyParams },
      handler: h.remove,
    },
  ],
  start(ctx) {
    const keys = ctx.store.collection<DeployKeyRecord>(h.COLLECTION);
    ctx.events.on('repo.deleted', async ({ repo }) => {
      await keys.deleteMany({ repoId: repo.id });
    });
    ctx.services.get('ssh-keys').addFingerprintGuard(async (fingerprint) =>
      (await keys.findOne({ fingerprint })) ? 'this key is already used as a deploy key' : null);
    return { byFingerprint: (fingerprint: string) => keys.find({ fingerprint }, { sort: { id: 1 } }) };
  },
});
