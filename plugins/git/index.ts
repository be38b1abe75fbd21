// Plugin `git`: a real bare git repository behind every repository record — auto-init, forks, migrations and
// mirrors, and clone/push over git's smart HTTP protocol at `/<owner>/<repo>.git`.
import { definePlugin, type JsonSchema } from '../../core/plugin.js';
import { listQuery, nameParam, ownerRepoParams, paramsSchema } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { REPO_UPDATED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { MIRRORS, OWNER_MOVES, GitService, type GitSettings } from './service.js';
import * as smart from './smart-http.js';
import { adopt, deleteUnadopted, listUnadopted } from './unadopted.js';

const nameParams = paramsSchema({ name: nameParam });
const gitParams = paramsSchema({ owner: nameParam, repo: nameParam });

const licenseEntry: JsonSchema = {
  type: 'object',
  properties: { key: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' } },
  required: ['key', 'name', 'url'],
};

const licenseSchema: JsonSchema = {
  type: 'object',
  properties: { ...licenseEntry.properties, body: { type: 'string' }, implementation: { type: 'string' } },
  required: ['key', 'name', 'url', 'body', 'implementation'],
};

const gitignoreSchema: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, source: { type: 'string' } },
  required: ['name', 'source'],
};

/** Gitea's CreateForkOption (plus `name`, which later Gitea accepts); both optional. */
const forkBody: JsonSchema = {
  type: 'object',
  properties: {
    organization: { type: 'string', minLength: 1, maxLength: 255 },
    name: { type: 'string', minLength: 1, maxLength: 255 },
  },
};

/** Gitea's MigrateRepoOption (`uid` from 2017, `repo_owner` from later versions; either or neither). */
const migrateBody: JsonSchema = {
  type: 'object',
  properties: {
    clone_addr: { type: 'string', minLength: 1, maxLength: 2048 },
    repo_name: { type: 'string', minLength: 1, maxLength: 255 },
    uid: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    repo_owner: { type: 'string', maxLength: 255 },
    mirror: { type: 'boolean' },
    private: { type: 'boolean' },
    description: { type: 'string', maxLength: 255 },
    auth_username: { type: 'string', maxLength: 1024 },
    auth_password: { type: 'string', maxLength: 4096 },
  },
  required: ['clone_addr', 'repo_name'],
};

export default definePlugin<GitService, GitSettings>({
  name: 'git',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      gitBinary: { type: 'string', minLength: 1, default: 'git' },
      timeoutMs: { type: 'integer', minimum: 1000, default: 600000 },
      /** env FORGEKIT_MIGRATE_ALLOW_LOCAL */
      migrateAllowLocal: { type: 'boolean', default: false },
      mirrorIntervalMs: { type: 'integer', minimum: 0, default: 28800000 },
      catFileMaxRepos: { type: 'integer', minimum: 1, default: 32 },
      catFileIdleMs: { type: 'integer', minimum: 0, default: 60000 },
      transferIdleMs: { type: 'integer', minimum: 100, default: 120_000, description: 'a clone, fetch or push over smart HTTP is cut after this long without a byte either way (no total limit)' },
      maxTransfers: { type: 'integer', minimum: 1, default: 32, description: 'git transfer processes at once, server-wide (503 beyond)' },
      maxTransfersPerRepo: { type: 'integer', minimum: 1, default: 8, description: 'git transfer processes at once per repository (429 beyond)' },
      transferRetryAfterSeconds: { type: 'integer', minimum: 1, default: 5 },
      maxPushBytes: { type: 'integer', minimum: 0, default: 1024 * 1024 * 1024, description: 'largest pack one push may send (git refuses it: `pack exceeds maximum allowed size`); 0 = no limit' },
    },
  },
  dependencies: ['users', 'repos'],
  optionalDependencies: ['orgs', 'admin'],
  collections: [{
    name: MIRRORS,
    indexes: [
      { fields: { repoId: 1 }, unique: true },
      { fields: { nextSyncAt: 1 } },
    ],
  }, { name: OWNER_MOVES, indexes: [{ fields: { uid: 1 }, unique: true }] }],
  async start(ctx) {
    const service = new GitService(ctx);
    await service.start();
    await service.recoverOwnerMoves();
    ctx.services.get('users').addRenameParticipant(service.renameParticipant());
    // Storage a crash left for records rolled back at start goes before requests come.
    await ctx.services.get('repos').setStorage(service);
    const mirrors = service.mirrorTask();
    if (mirrors && ctx.services.has('admin')) ctx.services.get('admin').addCronTask(mirrors);
    ctx.events.on(REPO_UPDATED, async ({ repo, before }) => {
      try {
        await service.onRepoUpdated(repo, before);
      } catch (err) {
        ctx.log.error({ err, repoId: repo.id }, 'moving HEAD to the new default branch failed');
      }
    });
    return service;
  },
  async stop(ctx) {
    // The kernel has already let in-flight requests finish; what is left is background syncs.
    await ctx.services.get('git').stop(Math.min(ctx.config.shutdownTimeoutMs, 10_000));
  },
  routes: [
    {
      operationId: 'listGitignoresTemplates', summary: 'Returns a list of all gitignore templates',
      scope: 'misc', method: 'GET', path: '/gitignore/templates', auth: 'public', handler: h.listGitignores,
      schema: { response: { 200: { type: 'array', items: { type: 'string' } } } },
    },
    {
      operationId: 'getGitignoreTemplateInfo', summary: 'Returns information about a gitignore template',
      scope: 'misc', method: 'GET', path: '/gitignore/templates/:name', auth: 'public', handler: h.getGitignore,
      schema: { params: nameParams, response: { 200: gitignoreSchema } },
    },
    {
      operationId: 'listLicenseTemplates', summary: 'Returns a list of all license templates',
      scope: 'misc', method: 'GET', path: '/licenses', auth: 'public', handler: h.listLicenses,
      schema: { response: { 200: { type: 'array', items: licenseEntry } } },
    },
    {
      operationId: 'getLicenseTemplateInfo', summary: 'Returns information about a license template',
      scope: 'misc', method: 'GET', path: '/licenses/:name', auth: 'public', handler: h.getLicense,
      schema: { params: nameParams, response: { 200: licenseSchema } },
    },
    {
      operationId: 'listForks', summary: 'List a repository\'s forks',
      scope: 'repository', method: 'GET', path: '/repos/:owner/:repo/forks', auth: 'optional', handler: h.listForks,
      schema: { params: ownerRepoParams, querystring: listQuery(), response: { 200: ref('forgekit/RepositoryList') } },
    },
    {
      operationId: 'createFork', summary: 'Fork a repository',
      scope: 'repository', method: 'POST', path: '/repos/:owner/:repo/forks', auth: 'user', body: 'json', bodyOptional: true, handler: h.createFork,
      schema: { params: ownerRepoParams, body: forkBody, response: { 202: ref('forgekit/Repository') } },
    },
    {
      operationId: 'repoMigrate', summary: 'Migrate a remote git repository',
      scope: 'repository', method: 'POST', path: '/repos/migrate', auth: 'user', body: 'json', handler: h.migrate,
      schema: { body: migrateBody, response: { 201: ref('forgekit/Repository') } },
    },
    {
      operationId: 'repoMirrorSync', summary: 'Sync a mirrored repository',
      scope: 'repository', method: 'POST', path: '/repos/:owner/:repo/mirror-sync', auth: 'user', handler: h.mirrorSync,
      schema: { params: ownerRepoParams },
    },
    {
      operationId: 'adminUnadoptedList', summary: 'List unadopted repositories', scope: 'admin', method: 'GET', path: '/admin/unadopted', auth: 'admin',
      schema: { querystring: listQuery({ pattern: { type: 'string', maxLength: 255 }, query: { type: 'string', maxLength: 255 } }), response: { 200: { type: 'array', items: { type: 'string' } } } },
      handler: listUnadopted,
    },
    {
      operationId: 'adminAdoptRepository', summary: 'Adopt unadopted files as a repository', scope: 'admin',
      method: 'POST', path: '/admin/unadopted/:owner/:repo', auth: 'admin', schema: { params: ownerRepoParams }, handler: adopt,
    },
    {
      operationId: 'adminDeleteUnadoptedRepository', summary: 'Delete unadopted files', scope: 'admin',
      method: 'DELETE', path: '/admin/unadopted/:owner/:repo', auth: 'admin', schema: { params: ownerRepoParams }, handler: deleteUnadopted,
    },
    // Gitea's git hook editor: refused to everyone (no server-side hooks here; see gitHooksDisabled).
    ...([
      ['GET', '', 'repoListGitHooks', 'List the Git hooks in a repository'],
      ['GET', '/:id', 'repoGetGitHook', 'Get a Git hook'],
      ['PATCH', '/:id', 'repoEditGitHook', 'Edit a Git hook in a repository'],
      ['DELETE', '/:id', 'repoDeleteGitHook', 'Delete a Git hook in a repository'],
    ] as const).map(([method, tail, operationId, summary]) => ({
      operationId, summary, scope: 'repository' as const, method, path: `/repos/:owner/:repo/hooks/git${tail}`, auth: 'user' as const,
      ...(method === 'PATCH' ? { body: 'json' as const } : {}),
      schema: {
        params: tail ? paramsSchema({ owner: nameParam, repo: nameParam, id: { type: 'string', minLength: 1, maxLength: 100 } }) : ownerRepoParams,
        ...(method === 'PATCH' ? { body: { type: 'object', properties: { content: { type: 'string', maxLength: 1048576 } } } } : {}),
      },
      handler: h.gitHooksDisabled,
    })),
    // git smart HTTP, outside the API prefix.
    {
      operationId: 'gitInfoRefs', summary: 'Git smart HTTP: advertise refs',
      scope: 'repository', method: 'GET', path: '/:owner/:repo/info/refs', mount: 'root', auth: 'optional', handler: smart.infoRefs,
      schema: { params: gitParams, querystring: { type: 'object', properties: { service: { type: 'string' } } } },
    },
    {
      operationId: 'gitUploadPack', summary: 'Git smart HTTP: fetch and clone',
      scope: 'repository', scopeLevel: 'read', method: 'POST', path: '/:owner/:repo/git-upload-pack', mount: 'root', auth: 'optional', body: 'stream', handler: smart.uploadPack,
      schema: { params: gitParams },
    },
    {
      operationId: 'gitReceivePack', summary: 'Git smart HTTP: push',
      scope: 'repository', method: 'POST', path: '/:owner/:repo/git-receive-pack', mount: 'root', auth: 'optional', body: 'stream', handler: smart.receivePack,
      schema: { params: gitParams },
    },
  ],
});
