// Plugin `contents`: what is inside a repository — branches, tags, commits, files, trees, blobs, refs, notes, archives —
// read and written through the API over the real git repositories of the `git` plugin (its typed service).
import { definePlugin, type JsonSchema, type RouteDef } from '../../core/plugin.js';
import { listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import '../../schemas/contracts/git.js';
import type { BranchProtectionRule, ContentsService } from '../../schemas/contracts/contents.js';
import { ACCESS, type Account, type RepoRecord } from '../../schemas/services.js';
import * as h from './handlers.js';
import * as w from './handlers-write.js';
import { PROTECTION_RENAMES, PROTECTIONS, Protections, type ProtectionRecord } from './protection.js';
import {
  CONTENTS_SCHEMAS, changeFilesBody, createBranchBody, createFileBody, createProtectionBody, createTagBody, deleteFileBody,
  editProtectionBody, renameBranchBody, updateFileBody,
} from './schemas.js';
import { Contents, SETTINGS_SCHEMA, type ContentsSettings } from './service.js';
import { Writer } from './write.js';
import { makeVerifier } from './verify.js';

const base = { owner: nameParam, repo: nameParam };
const repoParams = paramsSchema(base);
const rest = { type: 'string', maxLength: 4096 } as const;
const wildParams = paramsSchema({ ...base, '*': rest });
const shaParams = paramsSchema({ ...base, sha: { type: 'string', minLength: 1, maxLength: 300 } });
const nameParams = paramsSchema({ ...base, name: nameParam });
const refQuery: JsonSchema = { type: 'object', properties: { ref: { type: 'string', maxLength: 255 } } };
const ref = (id: string) => ({ $ref: `forgekit/${id}` });
const list = (id: string) => ({ type: 'array', items: ref(id) });
const bool = { type: 'boolean' } as const;

export interface ContentsPluginService extends ContentsService {
  contents: Contents;
  protections: Protections;
  writer: Writer;
}

const R = '/repos/:owner/:repo';

function route(method: RouteDef['method'], path: string, operationId: string, summary: string, handler: RouteDef['handler'], extra: Partial<RouteDef> = {}): RouteDef {
  const write = method !== 'GET';
  return {
    method, path, operationId, summary, scope: 'repository', auth: write ? 'user' : 'optional', handler,
    ...(write && !extra.body ? { body: 'json' } : {}),
    ...extra,
  };
}

const routes: RouteDef[] = [
  // branches
  route('GET', `${R}/branches`, 'repoListBranches', "List a repository's branches", h.listBranches,
    { schema: { params: repoParams, querystring: listQuery(), response: { 200: list('Branch') } } }),
  route('POST', `${R}/branches`, 'repoCreateBranch', 'Create a branch', w.createBranch,
    { schema: { params: repoParams, body: createBranchBody, response: { 201: ref('Branch') } } }),
  route('GET', `${R}/branches/*`, 'repoGetBranch', 'Retrieve a specific branch from a repository, including its effective branch protection', h.getBranch,
    { schema: { params: wildParams, response: { 200: ref('Branch') } } }),
  route('DELETE', `${R}/branches/*`, 'repoDeleteBranch', 'Delete a specific branch from a repository', w.deleteBranch,
    { body: 'none', schema: { params: wildParams } }),
  route('PATCH', `${R}/branches/*`, 'repoUpdateBranch', 'Update a branch (rename)', w.renameBranch,
    { schema: { params: wildParams, body: renameBranchBody } }),
  // branch protection
  route('GET', `${R}/branch_protections`, 'repoListBranchProtection', 'List branch protections for a repository', w.listProtections,
    { schema: { params: repoParams, response: { 200: list('BranchProtection') } } }),
  route('POST', `${R}/branch_protections`, 'repoCreateBranchProtection', 'Create a branch protections for a repository', w.createProtection,
    { schema: { params: repoParams, body: createProtectionBody, response: { 201: ref('BranchProtection') } } }),
  route('GET', `${R}/branch_protections/:name`, 'repoGetBranchProtection', 'Get a specific branch protection for the repository', w.getProtection,
    { schema: { params: nameParams, response: { 200: ref('BranchProtection') } } }),
  route('PATCH', `${R}/branch_protections/:name`, 'repoEditBranchProtection', 'Edit a branch protections for a repository', w.editProtection,
    { schema: { params: nameParams, body: editProtectionBody, response: { 200: ref('BranchProtection') } } }),
  route('DELETE', `${R}/branch_protections/:name`, 'repoDeleteBranchProtection', 'Delete a specific branch protection for the repository', w.deleteProtection,
    { body: 'none', schema: { params: nameParams } }),
  // tags
  route('GET', `${R}/tags`, 'repoListTags', "List a repository's tags", h.listTags,
    { schema: { params: repoParams, querystring: listQuery(), response: { 200: list('Tag') } } }),
  route('POST', `${R}/tags`, 'repoCreateTag', 'Create a new git tag in a repository', w.createTag,
    { schema: { params: repoParams, body: createTagBody, response: { 201: ref('Tag') } } }),
  route('GET', `${R}/tags/*`, 'repoGetTag', 'Get the tag of a repository by tag name', h.getTag,
    { schema: { params: wildParams, response: { 200: ref('Tag') } } }),
  route('DELETE', `${R}/tags/*`, 'repoDeleteTag', "Delete a repository's tag by name", w.deleteTag,
    { body: 'none', schema: { params: wildParams } }),
  route('GET', `${R}/git/tags/:sha`, 'getAnnotatedTag', 'Gets the tag object of an annotated tag (not lightweight tags)', h.getAnnotatedTag,
    { schema: { params: shaParams, response: { 200: ref('AnnotatedTag') } } }),
  // commits
  route('GET', `${R}/commits`, 'repoGetAllCommits', 'Get a list of all commits from a repository', h.listCommits, {
    schema: {
      params: repoParams,
      querystring: listQuery({
        sha: { type: 'string', maxLength: 255 }, path: { type: 'string', maxLength: 4096 }, not: { type: 'string', maxLength: 255 },
        since: { type: 'string', maxLength: 64 }, until: { type: 'string', maxLength: 64 }, stat: bool, verification: bool, files: bool,
      }),
      response: { 200: ref('CommitList') },
    },
  }),
  route('GET', `${R}/git/commits/:sha`, 'repoGetSingleCommit', 'Get a single commit from a repository (`{sha}.diff` / `{sha}.patch`: repoDownloadCommitDiffOrPatch)', h.getCommit, {
    schema: {
      params: shaParams,
      querystring: { type: 'object', properties: { stat: bool, verification: bool, files: bool } },
      response: { 200: ref('Commit') },
    },
  }),
  route('GET', `${R}/compare/*`, 'repoCompareDiff', 'Get commit comparison information', h.compare,
    { schema: { params: wildParams, querystring: listQuery(), response: { 200: ref('Compare') } } }),
  // git data
  route('GET', `${R}/git/refs`, 'repoListAllGitRefs', 'Get specified ref or filtered repository\'s refs', h.listAllRefs,
    { schema: { params: repoParams, response: { 200: list('Reference') } } }),
  route('GET', `${R}/git/refs/*`, 'repoListGitRefs', "Get specified ref or filtered repository's refs", h.listRefs,
    { schema: { params: wildParams, response: { 200: list('Reference') } } }),
  route('GET', `${R}/git/trees/:sha`, 'getTree', 'Gets the tree of a repository.', h.getTree, {
    schema: {
      params: shaParams,
      querystring: { type: 'object', properties: { recursive: bool, page: { type: 'integer', minimum: -2147483648, maximum: 2147483647 }, per_page: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } } },
      response: { 200: ref('GitTreeResponse') },
    },
  }),
  route('GET', `${R}/git/blobs/:sha`, 'getBlob', 'Gets the blob of a repository.', h.getBlob,
    { schema: { params: shaParams, response: { 200: ref('GitBlobResponse') } } }),
  route('GET', `${R}/git/notes/:sha`, 'repoGetNote', "Get a note corresponding to a single commit from a repository", h.getNote, {
    schema: { params: shaParams, querystring: { type: 'object', properties: { verification: bool, files: bool } }, response: { 200: ref('Note') } },
  }),
  // files
  route('GET', `${R}/contents`, 'repoGetContentsList', 'Gets the metadata of all the entries of the root dir', h.getContentsList,
    { schema: { params: repoParams, querystring: refQuery, response: { 200: ref('ContentsList') } } }),
  route('POST', `${R}/contents`, 'repoChangeFiles', 'Modify multiple files in a repository', w.changeFiles,
    { schema: { params: repoParams, body: changeFilesBody, response: { 201: ref('FilesResponse') } } }),
  route('GET', `${R}/contents/*`, 'repoGetContents', 'Gets the metadata and contents (if a file) of an entry in a repository, or a list of entries if a dir', h.getContents, {
    schema: {
      params: wildParams, querystring: refQuery,
      response: { 200: { anyOf: [ref('ContentsResponse'), ref('ContentsList')] } },
    },
  }),
  route('POST', `${R}/contents/*`, 'repoCreateFile', 'Create a file in a repository', w.createFile,
    { schema: { params: wildParams, body: createFileBody, response: { 201: ref('FileResponse') } } }),
  route('PUT', `${R}/contents/*`, 'repoUpdateFile', 'Update a file in a repository', w.updateFile,
    { schema: { params: wildParams, body: updateFileBody, response: { 200: ref('FileResponse') } } }),
  route('DELETE', `${R}/contents/*`, 'repoDeleteFile', 'Delete a file in a repository', w.deleteFile,
    { schema: { params: wildParams, body: deleteFileBody, response: { 200: ref('FileDeleteResponse') } } }),
  route('GET', `${R}/raw/*`, 'repoGetRawFile', 'Get a file from a repository', h.getRaw,
    { schema: { params: wildParams, querystring: refQuery } }),
  route('GET', `${R}/media/*`, 'repoGetRawFileOrLfs', 'Get a file or it\'s LFS object from a repository', h.getRaw,
    { schema: { params: wildParams, querystring: refQuery } }),
  route('GET', `${R}/archive/*`, 'repoGetArchive', 'Get an archive of a repository', h.getArchive,
    { schema: { params: wildParams } }),
  route('GET', `${R}/languages`, 'repoGetLanguages', 'Get languages and number of bytes of code written', h.getLanguages,
    { schema: { params: repoParams, response: { 200: { type: 'object', additionalProperties: { type: 'integer' } } } } }),
  route('GET', `${R}/editorconfig/*`, 'repoGetEditorConfig', 'Get the EditorConfig definitions of a file in a repository', h.getEditorConfig,
    { schema: { params: wildParams, querystring: refQuery, response: { 200: { type: 'object', additionalProperties: { type: 'string' } } } } }),
];

export default definePlugin<ContentsPluginService, ContentsSettings>({
  name: 'contents',
  dependencies: ['users', 'repos', 'git'],
  optionalDependencies: ['gpg-keys', 'releases', 'orgs'],
  settings: SETTINGS_SCHEMA,
  collections: [
    { name: PROTECTIONS, indexes: [{ fields: { repoId: 1, rule_name: 1 }, unique: true }] },
    { name: PROTECTION_RENAMES, indexes: [{ fields: { uid: 1 }, unique: true }] },
  ],
  schemas: CONTENTS_SCHEMAS,
  routes,
  async start(ctx) {
    const contents = new Contents(ctx);
    contents.verifier = makeVerifier(ctx);
    const protections = new Protections(ctx);
    // Rules name users by login: a rename rewrites them as a rename participant, recorded before the account row
    // changes, so a crash in between is finished at the next start (the old name must grant nothing to its next owner).
    const users = ctx.services.get('users');
    users.addRenameParticipant(protections.renameParticipant());
    await protections.finishRenames((id) => users.byId(id));
    const writer = new Writer(contents);
    const git = ctx.services.get('git');
    git.addPushGuard((attempt) => protections.guard(
      attempt,
      async (dir, a, b) => {
        // Over smart HTTP and SSH the pack is not received yet when guards run: an unknown new commit cannot be judged
        // here (null: the guard then lists the ref in PushAttempt.fastForwardRefs, and forgekit's pre-receive hook judges it).
        const known = await git.reader(dir).info(b);
        if (!known) return null;
        try {
          await git.run(dir, ['merge-base', '--is-ancestor', a, b]);
          return true;
        } catch {
          return false;
        }
      },
      (repo, owner) => git.repoDir(repo, owner),
    ));
    ctx.events.on('repo.deleted', async ({ repo }) => {
      try {
        await protections.rows.deleteMany({ repoId: repo.id });
      } catch (err) {
        ctx.log.error({ err, repoId: repo.id }, 'removing branch protections failed');
      }
    });
    // The pulls plugin reads the rule of a merge's base branch through this (schemas/contracts/contents.ts).
    const protectionFor = async (repoId: number, branch: string) => protections.forBranch(await protections.list(repoId), branch);
    const limits = { treePageSize: ctx.settings.treePageSize, maxBlobBytes: ctx.settings.maxBlobBytes };
    // Webhook payloads carry each commit's verification (schemas/contracts/contents.ts).
    const commitVerification = async (repo: RepoRecord, owner: Account, sha: string) => {
      const commit = await contents.openResolved(repo, owner, ACCESS.owner).rr.commit(sha);
      return commit ? contents.verifier(commit) : null;
    };
    const mayMerge = (repo: RepoRecord, rule: BranchProtectionRule | null, user: { id: number; login: string }, mode: number) =>
      protections.canMerge(rule as ProtectionRecord | null, protections.pusher(repo, user, mode));
    return { contents, protections, writer, protectionFor, mayMerge, limits, commitVerification };
  },
});
