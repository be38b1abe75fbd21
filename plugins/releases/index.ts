// Plugin `releases`: a repository's releases (made from tags through the git service) and their attachments,
// uploaded as streams into the data dir and downloaded through `browser_download_url` — and, with the issues plugin,
// the attachments of issues and comments (issue-assets.ts), stored and served the same way.
import { definePlugin, type RouteDef } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, ownerRepoParams, paramsSchema } from '../../schemas/common.js';
import { ACCOUNT_DELETED, REPO_DELETED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { Releases, type ReleaseSettings } from './service.js';
import { ATTACHMENT_INDEXES, ATTACHMENTS, RELEASE_INDEXES, RELEASES, type AttachmentRecord } from './store.js';
import { attachmentToApi } from './convert.js';
import { commentAssets, issueAssets } from './issue-assets.js';
import '../../schemas/contracts/issues.js';
import '../../schemas/contracts/git.js';

const date = { type: 'string', format: 'date-time' } as const;
const ReleaseSchema = {
  $id: 'forgekit/Release', type: 'object',
  required: ['id', 'tag_name', 'target_commitish', 'name', 'body', 'url', 'html_url', 'tarball_url', 'zipball_url', 'upload_url',
    'draft', 'prerelease', 'created_at', 'published_at', 'author', 'assets'],
  properties: {
    id: { type: 'integer' }, tag_name: { type: 'string' }, target_commitish: { type: 'string' }, name: { type: 'string' },
    body: { type: 'string' }, url: { type: 'string' }, html_url: { type: 'string' }, tarball_url: { type: 'string' },
    zipball_url: { type: 'string' }, upload_url: { type: 'string' }, draft: { type: 'boolean' }, prerelease: { type: 'boolean' },
    created_at: date, published_at: date, author: { $ref: 'forgekit/User' }, assets: { $ref: 'forgekit/AttachmentList' },
  },
};
const ReleaseListSchema = { $id: 'forgekit/ReleaseList', type: 'array', items: { $ref: 'forgekit/Release' } };

const tagName = { type: 'string', minLength: 1, maxLength: 255 } as const;
const releaseFields = {
  tag_name: tagName,
  target_commitish: { type: 'string', maxLength: 255 },
  name: { type: 'string', maxLength: 255 },
  body: { type: 'string', maxLength: 1048576 },
  draft: { type: 'boolean' },
  prerelease: { type: 'boolean' },
};
const createBody = { type: 'object', required: ['tag_name'], additionalProperties: false, properties: releaseFields };
const editBody = { type: 'object', additionalProperties: false, properties: { ...releaseFields, tag_name: { type: 'string', maxLength: 255 } } };
const editAssetBody = { type: 'object', additionalProperties: false, properties: { name: { type: 'string', maxLength: 1024 } } };

const R = '/repos/:owner/:repo/releases';
const idParams = paramsSchema({ owner: nameParam, repo: nameParam, id: idParam });
const assetParams = paramsSchema({ owner: nameParam, repo: nameParam, id: idParam, attachment_id: idParam });
const tagParams = paramsSchema({ owner: nameParam, repo: nameParam, '*': tagName });
const issueParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam });
const issueAssetParams = paramsSchema({ owner: nameParam, repo: nameParam, index: idParam, attachment_id: idParam });
const uploadQuery = { type: 'object', properties: { name: { type: 'string', maxLength: 1024 } } };
const I = '/repos/:owner/:repo/issues';

/** The five attachment operations of an issue (`:index`) or a comment (`comments/:id`), as Gitea names them. */
function attachmentRoutes(kind: 'Issue' | 'IssueComment', base: string, params: object, itemParams: object, h: typeof issueAssets): RouteDef[] {
  const what = kind === 'Issue' ? 'an issue' : 'a comment';
  return [
    { method: 'GET', path: `${base}/assets`, auth: 'optional', handler: h.list, scope: 'issue',
      operationId: `issueList${kind}Attachments`, summary: `List ${what}'s attachments`,
      schema: { params, response: { 200: { $ref: 'forgekit/AttachmentList' } } } },
    { method: 'POST', path: `${base}/assets`, auth: 'user', body: 'stream', handler: h.upload, scope: 'issue',
      operationId: `issueCreate${kind}Attachment`, summary: `Create ${what} attachment (multipart/form-data \`attachment\`, or the raw file with \`name\`)`,
      schema: { params, querystring: uploadQuery, response: attachment(201) } },
    { method: 'GET', path: `${base}/assets/:attachment_id`, auth: 'optional', handler: h.get, scope: 'issue',
      operationId: `issueGet${kind}Attachment`, summary: `Get ${what} attachment`,
      schema: { params: itemParams, response: attachment(200) } },
    { method: 'PATCH', path: `${base}/assets/:attachment_id`, auth: 'user', body: 'json', handler: h.edit, scope: 'issue',
      operationId: `issueEdit${kind}Attachment`, summary: `Edit ${what} attachment`,
      schema: { params: itemParams, body: editAssetBody, response: attachment(201) } },
    { method: 'DELETE', path: `${base}/assets/:attachment_id`, auth: 'user', handler: h.remove, scope: 'issue',
      operationId: `issueDelete${kind}Attachment`, summary: `Delete ${what} attachment`,
      schema: { params: itemParams } },
  ] as RouteDef[];
}
const release = (status: number) => ({ [status]: { $ref: 'forgekit/Release' } });
const attachment = (status: number) => ({ [status]: { $ref: 'forgekit/Attachment' } });

export default definePlugin<Releases, ReleaseSettings>({
  name: 'releases',
  dependencies: ['users', 'repos', 'git'],
  optionalDependencies: ['issues'],
  settings: {
    type: 'object', additionalProperties: false,
    properties: {
      attachments: {
        type: 'object', additionalProperties: false, default: {},
        properties: {
          // Gitea's [repository.release] FILE_MAX_SIZE (2048 MiB) and ALLOWED_TYPES (empty: any).
          maxSize: { type: 'integer', minimum: 1, default: 2147483648 },
          allowedTypes: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        },
      },
    },
  },
  collections: [{ name: RELEASES, indexes: RELEASE_INDEXES }, { name: ATTACHMENTS, indexes: ATTACHMENT_INDEXES }],
  schemas: [ReleaseSchema, ReleaseListSchema],
  async start(ctx) {
    const service = new Releases(ctx);
    await service.files.start();
    await service.loadAttachmentCounts();
    ctx.events.on(REPO_DELETED, ({ repo }) => service.onRepoDeleted(repo));
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => service.onAccountDeleted(account));
    // Issue and comment attachments: shown in the issues plugin's `assets`, removed with their issue or comment.
    if (ctx.services.has('issues')) {
      const root = ctx.urls.root;
      const toMap = (rows: AttachmentRecord[], key: (a: AttachmentRecord) => number) => {
        const out = new Map<number, Array<Record<string, unknown>>>();
        for (const a of rows) {
          const list = out.get(key(a)) ?? [];
          list.push(attachmentToApi(root, a));
          out.set(key(a), list);
        }
        return out;
      };
      ctx.services.get('issues').setAssetSource(async (issueIds, commentIds) => {
        const { issues, comments } = await service.ofIssues(issueIds, commentIds);
        return { issues: toMap(issues, (a) => a.issueId ?? 0), comments: toMap(comments, (a) => a.commentId ?? 0) };
      });
      ctx.events.on('issue.changed', (e) => (e.action === 'deleted' ? service.onIssueGone(e.issueId) : undefined));
      ctx.events.on('issue_comment.changed', (e) => (e.action === 'deleted' ? service.onIssueGone(e.issueId, Number(e.comment.id)) : undefined));
    }
    ctx.events.on('git.ref.deleted', ({ repo, ref, refType }) => (refType === 'tag' ? service.onTagDeleted(repo, ref) : undefined));
    return service;
  },
  routes: [
    {
      method: 'GET', path: R, auth: 'optional', handler: h.list,
      operationId: 'repoListReleases', summary: "List a repo's releases", scope: 'repository',
      schema: {
        params: ownerRepoParams, querystring: listQuery({ draft: { type: 'boolean' }, 'pre-release': { type: 'boolean' } }),
        response: { 200: { $ref: 'forgekit/ReleaseList' } },
      },
    },
    {
      method: 'POST', path: R, auth: 'user', body: 'json', handler: h.create,
      operationId: 'repoCreateRelease', summary: 'Create a release', scope: 'repository',
      schema: { params: ownerRepoParams, body: createBody, response: release(201) },
    },
    {
      method: 'GET', path: `${R}/latest`, auth: 'optional', handler: h.latest,
      operationId: 'repoGetLatestRelease', summary: 'Gets the most recent non-prerelease, non-draft release of a repository, sorted by created_at', scope: 'repository',
      schema: { params: ownerRepoParams, response: release(200) },
    },
    {
      method: 'GET', path: `${R}/tags/*`, auth: 'optional', handler: h.getByTag,
      operationId: 'repoGetReleaseByTag', summary: 'Get a release by tag name', scope: 'repository',
      schema: { params: tagParams, response: release(200) },
    },
    {
      method: 'DELETE', path: `${R}/tags/*`, auth: 'user', handler: h.removeByTag,
      operationId: 'repoDeleteReleaseByTag', summary: 'Delete a release by tag name', scope: 'repository',
      schema: { params: tagParams },
    },
    {
      method: 'GET', path: `${R}/:id`, auth: 'optional', handler: h.get,
      operationId: 'repoGetRelease', summary: 'Get a release', scope: 'repository',
      schema: { params: idParams, response: release(200) },
    },
    {
      method: 'PATCH', path: `${R}/:id`, auth: 'user', body: 'json', handler: h.edit,
      operationId: 'repoEditRelease', summary: 'Update a release', scope: 'repository',
      schema: { params: idParams, body: editBody, response: release(200) },
    },
    {
      method: 'DELETE', path: `${R}/:id`, auth: 'user', handler: h.remove,
      operationId: 'repoDeleteRelease', summary: 'Delete a release', scope: 'repository',
      schema: { params: idParams },
    },
    {
      method: 'GET', path: `${R}/:id/assets`, auth: 'optional', handler: h.listAssets,
      operationId: 'repoListReleaseAttachments', summary: "List release's attachments", scope: 'repository',
      schema: { params: idParams, response: { 200: { $ref: 'forgekit/AttachmentList' } } },
    },
    {
      method: 'POST', path: `${R}/:id/assets`, auth: 'user', body: 'stream', handler: h.upload,
      operationId: 'repoCreateReleaseAttachment', summary: 'Create a release attachment (multipart/form-data `attachment`, or the raw file with `name`)', scope: 'repository',
      schema: { params: idParams, querystring: { type: 'object', properties: { name: { type: 'string', maxLength: 1024 } } }, response: attachment(201) },
    },
    {
      method: 'GET', path: `${R}/:id/assets/:attachment_id`, auth: 'optional', handler: h.getAsset,
      operationId: 'repoGetReleaseAttachment', summary: 'Get a release attachment', scope: 'repository',
      schema: { params: assetParams, response: attachment(200) },
    },
    {
      method: 'PATCH', path: `${R}/:id/assets/:attachment_id`, auth: 'user', body: 'json', handler: h.editAsset,
      operationId: 'repoEditReleaseAttachment', summary: 'Edit a release attachment', scope: 'repository',
      schema: { params: assetParams, body: editAssetBody, response: attachment(201) },
    },
    {
      method: 'DELETE', path: `${R}/:id/assets/:attachment_id`, auth: 'user', handler: h.removeAsset,
      operationId: 'repoDeleteReleaseAttachment', summary: 'Delete a release attachment', scope: 'repository',
      schema: { params: assetParams },
    },
    {
      method: 'GET', path: '/attachments/:uuid', mount: 'root', auth: 'optional', body: 'stream', handler: h.download,
      operationId: 'forgekitDownloadAttachment', summary: 'Download an attachment (browser_download_url)', scope: 'repository',
      schema: { params: paramsSchema({ uuid: { type: 'string', minLength: 1, maxLength: 64 } }) },
    },
    ...attachmentRoutes('Issue', `${I}/:index`, issueParams, issueAssetParams, issueAssets),
    ...attachmentRoutes('IssueComment', `${I}/comments/:id`, idParams, assetParams, commentAssets),
  ],
});
