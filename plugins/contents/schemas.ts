// The contents plugin's resource schemas (gitea-js: Branch, Tag, Commit, ContentsResponse, FileResponse, …) and
// request bodies. Responses are serialised from these: a field not listed here never leaves.
import type { JsonSchema } from '../../core/plugin.js';
import { UserSchema } from '../../schemas/resources.js';

const str = { type: 'string' } as const;
const nstr = { type: ['string', 'null'] } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer' } as const;
const strs = { type: 'array', items: str } as const;
const nstrs = { type: ['array', 'null'], items: str } as const;

/** A User, or null when no account matches a commit's email (spelled out: a nullable $ref does not serialise). */
const nullableUser: JsonSchema = { type: ['object', 'null'], properties: UserSchema.properties, required: [...UserSchema.required] };

const payloadUser: JsonSchema = { type: 'object', properties: { name: str, email: str, username: str }, required: ['name', 'email', 'username'] };

export const VerificationSchema: JsonSchema = {
  $id: 'forgekit/PayloadCommitVerification',
  type: 'object',
  properties: {
    verified: bool, reason: str, signature: str, payload: str,
    signer: { type: ['object', 'null'], properties: payloadUser.properties },
  },
  required: ['verified', 'reason', 'signature', 'payload', 'signer'],
};

const verification = { $ref: 'forgekit/PayloadCommitVerification' };

export const PayloadCommitSchema: JsonSchema = {
  $id: 'forgekit/PayloadCommit',
  type: 'object',
  properties: {
    id: str, message: str, url: str, author: payloadUser, committer: payloadUser, verification, timestamp: str,
    added: nstrs, removed: nstrs, modified: nstrs,
  },
  required: ['id', 'message', 'url', 'author', 'committer', 'verification', 'timestamp', 'added', 'removed', 'modified'],
};

export const BranchSchema: JsonSchema = {
  $id: 'forgekit/Branch',
  type: 'object',
  properties: {
    name: str,
    commit: { $ref: 'forgekit/PayloadCommit' },
    protected: bool,
    required_approvals: int,
    enable_status_check: bool,
    status_check_contexts: strs,
    user_can_push: bool,
    user_can_merge: bool,
    effective_branch_protection_name: str,
  },
  required: ['name', 'commit', 'protected', 'required_approvals', 'enable_status_check', 'status_check_contexts', 'user_can_push',
    'user_can_merge', 'effective_branch_protection_name'],
};

const commitMeta: JsonSchema = { type: 'object', properties: { url: str, sha: str, created: str }, required: ['url', 'sha', 'created'] };
const commitUser: JsonSchema = { type: 'object', properties: { name: str, email: str, date: str }, required: ['name', 'email', 'date'] };

export const TagSchema: JsonSchema = {
  $id: 'forgekit/Tag',
  type: 'object',
  properties: { name: str, message: str, id: str, commit: commitMeta, zipball_url: str, tarball_url: str },
  required: ['name', 'message', 'id', 'commit', 'zipball_url', 'tarball_url'],
};

export const AnnotatedTagSchema: JsonSchema = {
  $id: 'forgekit/AnnotatedTag',
  type: 'object',
  properties: {
    tag: str, sha: str, url: str, message: str, tagger: commitUser,
    object: { type: 'object', properties: { type: str, url: str, sha: str }, required: ['type', 'url', 'sha'] },
    verification,
  },
  required: ['tag', 'sha', 'url', 'message', 'tagger', 'object', 'verification'],
};

export const CommitSchema: JsonSchema = {
  $id: 'forgekit/Commit',
  type: 'object',
  properties: {
    url: str, sha: str, created: str, html_url: str,
    commit: {
      type: 'object',
      properties: { url: str, author: commitUser, committer: commitUser, message: str, tree: commitMeta, verification },
      required: ['url', 'author', 'committer', 'message', 'tree', 'verification'],
    },
    author: nullableUser,
    committer: nullableUser,
    parents: { type: 'array', items: commitMeta },
    files: { type: ['array', 'null'], items: { type: 'object', properties: { filename: str, status: str }, required: ['filename', 'status'] } },
    stats: { type: ['object', 'null'], properties: { total: int, additions: int, deletions: int }, required: ['total', 'additions', 'deletions'] },
  },
  required: ['url', 'sha', 'created', 'html_url', 'commit', 'author', 'committer', 'parents', 'files', 'stats'],
};

export const CommitListSchema: JsonSchema = { $id: 'forgekit/CommitList', type: 'array', items: { $ref: 'forgekit/Commit' } };

export const CompareSchema: JsonSchema = {
  $id: 'forgekit/Compare',
  type: 'object',
  properties: { total_commits: int, commits: { $ref: 'forgekit/CommitList' } },
  required: ['total_commits', 'commits'],
};

export const ContentsSchema: JsonSchema = {
  $id: 'forgekit/ContentsResponse',
  type: 'object',
  properties: {
    name: str, path: str, sha: str, last_commit_sha: str, type: str, size: int,
    encoding: nstr, content: nstr, target: nstr,
    url: str, html_url: str, git_url: str, download_url: nstr, submodule_git_url: nstr,
    _links: { type: 'object', properties: { self: str, git: str, html: str }, required: ['self', 'git', 'html'] },
  },
  required: ['name', 'path', 'sha', 'last_commit_sha', 'type', 'size', 'encoding', 'content', 'target', 'url', 'html_url', 'git_url',
    'download_url', 'submodule_git_url', '_links'],
};

export const ContentsListSchema: JsonSchema = { $id: 'forgekit/ContentsList', type: 'array', items: { $ref: 'forgekit/ContentsResponse' } };

const fileCommit: JsonSchema = {
  type: 'object',
  properties: {
    url: str, html_url: str, sha: str, created: str, author: commitUser, committer: commitUser, message: str,
    parents: { type: 'array', items: commitMeta }, tree: commitMeta,
  },
  required: ['url', 'html_url', 'sha', 'created', 'author', 'committer', 'message', 'parents', 'tree'],
};

export const FileResponseSchema: JsonSchema = {
  $id: 'forgekit/FileResponse',
  type: 'object',
  properties: { content: { $ref: 'forgekit/ContentsResponse' }, commit: fileCommit, verification },
  required: ['content', 'commit', 'verification'],
};

export const FileDeleteResponseSchema: JsonSchema = {
  $id: 'forgekit/FileDeleteResponse',
  type: 'object',
  properties: { content: { type: 'null' }, commit: fileCommit, verification },
  required: ['content', 'commit', 'verification'],
};

export const FilesResponseSchema: JsonSchema = {
  $id: 'forgekit/FilesResponse',
  type: 'object',
  properties: {
    // A deleted file is null in the list.
    files: { type: 'array', items: { type: ['object', 'null'], properties: ContentsSchema.properties } },
    commit: fileCommit, verification,
  },
  required: ['files', 'commit', 'verification'],
};

const gitEntry: JsonSchema = {
  type: 'object',
  properties: { path: str, mode: str, type: str, size: int, sha: str, url: str },
  required: ['path', 'mode', 'type', 'size', 'sha', 'url'],
};

export const GitTreeSchema: JsonSchema = {
  $id: 'forgekit/GitTreeResponse',
  type: 'object',
  properties: { sha: str, url: str, tree: { type: 'array', items: gitEntry }, truncated: bool, page: int, total_count: int },
  required: ['sha', 'url', 'tree', 'truncated', 'page', 'total_count'],
};

export const GitBlobSchema: JsonSchema = {
  $id: 'forgekit/GitBlobResponse',
  type: 'object',
  properties: { content: nstr, encoding: nstr, url: str, sha: str, size: int },
  required: ['content', 'encoding', 'url', 'sha', 'size'],
};

export const ReferenceSchema: JsonSchema = {
  $id: 'forgekit/Reference',
  type: 'object',
  properties: {
    ref: str, url: str,
    object: { type: 'object', properties: { type: str, sha: str, url: str }, required: ['type', 'sha', 'url'] },
  },
  required: ['ref', 'url', 'object'],
};

export const NoteSchema: JsonSchema = {
  $id: 'forgekit/Note',
  type: 'object',
  properties: { message: str, commit: { $ref: 'forgekit/Commit' } },
  required: ['message', 'commit'],
};

export const BranchProtectionSchema: JsonSchema = {
  $id: 'forgekit/BranchProtection',
  type: 'object',
  properties: {
    branch_name: str, rule_name: str, priority: int,
    enable_push: bool, enable_push_whitelist: bool, push_whitelist_usernames: strs, push_whitelist_teams: strs,
    push_whitelist_deploy_keys: bool,
    enable_force_push: bool, enable_force_push_allowlist: bool, force_push_allowlist_usernames: strs,
    force_push_allowlist_teams: strs, force_push_allowlist_deploy_keys: bool,
    enable_merge_whitelist: bool, merge_whitelist_usernames: strs, merge_whitelist_teams: strs,
    enable_status_check: bool, status_check_contexts: strs,
    required_approvals: int, enable_approvals_whitelist: bool, approvals_whitelist_username: strs, approvals_whitelist_teams: strs,
    block_on_rejected_reviews: bool, block_on_official_review_requests: bool, block_on_outdated_branch: bool,
    dismiss_stale_approvals: bool, ignore_stale_approvals: bool, require_signed_commits: bool,
    protected_file_patterns: str, unprotected_file_patterns: str, block_admin_merge_override: bool,
    created_at: str, updated_at: str,
  },
  required: ['branch_name', 'rule_name', 'priority', 'enable_push', 'enable_push_whitelist', 'push_whitelist_usernames',
    'push_whitelist_teams', 'push_whitelist_deploy_keys', 'enable_force_push', 'enable_force_push_allowlist',
    'force_push_allowlist_usernames', 'force_push_allowlist_teams', 'force_push_allowlist_deploy_keys', 'enable_merge_whitelist',
    'merge_whitelist_usernames', 'merge_whitelist_teams', 'enable_status_check', 'status_check_contexts', 'required_approvals',
    'enable_approvals_whitelist', 'approvals_whitelist_username', 'approvals_whitelist_teams', 'block_on_rejected_reviews',
    'block_on_official_review_requests', 'block_on_outdated_branch', 'dismiss_stale_approvals', 'ignore_stale_approvals',
    'require_signed_commits', 'protected_file_patterns', 'unprotected_file_patterns', 'block_admin_merge_override', 'created_at', 'updated_at'],
};

export const CONTENTS_SCHEMAS: JsonSchema[] = [
  VerificationSchema, PayloadCommitSchema, BranchSchema, TagSchema, AnnotatedTagSchema, CommitSchema, CommitListSchema, CompareSchema,
  ContentsSchema, ContentsListSchema, FileResponseSchema, FileDeleteResponseSchema, FilesResponseSchema, GitTreeSchema, GitBlobSchema,
  ReferenceSchema, NoteSchema, BranchProtectionSchema,
];

// ---- request bodies ----

const identity: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 255 }, email: { type: 'string', maxLength: 255 } },
};

const commitOptions: Record<string, JsonSchema> = {
  message: { type: 'string', maxLength: 65536 },
  branch: { type: 'string', maxLength: 255 },
  new_branch: { type: 'string', maxLength: 255 },
  author: identity,
  committer: identity,
  dates: { type: 'object', properties: { author: { type: 'string', format: 'date-time' }, committer: { type: 'string', format: 'date-time' } } },
  signoff: { type: 'boolean' },
};

export const createFileBody: JsonSchema = {
  type: 'object', properties: { ...commitOptions, content: { type: 'string' } }, required: ['content'],
};

export const updateFileBody: JsonSchema = {
  type: 'object',
  properties: { ...commitOptions, content: { type: 'string' }, sha: { type: 'string', maxLength: 64 }, from_path: { type: 'string', maxLength: 4096 } },
  required: ['content', 'sha'],
};

export const deleteFileBody: JsonSchema = {
  type: 'object', properties: { ...commitOptions, sha: { type: 'string', maxLength: 64 } }, required: ['sha'],
};

export const changeFilesBody: JsonSchema = {
  type: 'object',
  properties: {
    ...commitOptions,
    files: {
      type: 'array', minItems: 1, maxItems: 1000,
      items: {
        type: 'object',
        properties: {
          operation: { enum: ['create', 'update', 'delete'] },
          path: { type: 'string', minLength: 1, maxLength: 4096 },
          content: { type: 'string' },
          sha: { type: 'string', maxLength: 64 },
          from_path: { type: 'string', maxLength: 4096 },
        },
        required: ['operation', 'path'],
      },
    },
  },
  required: ['files'],
};

export const createBranchBody: JsonSchema = {
  type: 'object',
  properties: {
    new_branch_name: { type: 'string', minLength: 1, maxLength: 255 },
    old_branch_name: { type: 'string', maxLength: 255 },
    old_ref_name: { type: 'string', maxLength: 255 },
  },
  required: ['new_branch_name'],
};

export const renameBranchBody: JsonSchema = {
  type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['name'],
};

export const createTagBody: JsonSchema = {
  type: 'object',
  properties: {
    tag_name: { type: 'string', minLength: 1, maxLength: 255 },
    message: { type: 'string', maxLength: 65536 },
    target: { type: 'string', maxLength: 255 },
  },
  required: ['tag_name'],
};

const nameList = { type: 'array', maxItems: 500, items: { type: 'string', maxLength: 255 } } as const;

const protectionProps: Record<string, JsonSchema> = {
  priority: { type: 'integer', minimum: 0, maximum: 2147483647 },
  enable_push: bool, enable_push_whitelist: bool, push_whitelist_usernames: nameList, push_whitelist_teams: nameList,
  push_whitelist_deploy_keys: bool,
  enable_force_push: bool, enable_force_push_allowlist: bool, force_push_allowlist_usernames: nameList,
  force_push_allowlist_teams: nameList, force_push_allowlist_deploy_keys: bool,
  enable_merge_whitelist: bool, merge_whitelist_usernames: nameList, merge_whitelist_teams: nameList,
  enable_status_check: bool, status_check_contexts: nameList,
  required_approvals: { type: 'integer', minimum: 0, maximum: 1000 },
  enable_approvals_whitelist: bool, approvals_whitelist_username: nameList, approvals_whitelist_teams: nameList,
  block_on_rejected_reviews: bool, block_on_official_review_requests: bool, block_on_outdated_branch: bool,
  dismiss_stale_approvals: bool, ignore_stale_approvals: bool, require_signed_commits: bool,
  protected_file_patterns: { type: 'string', maxLength: 4096 }, unprotected_file_patterns: { type: 'string', maxLength: 4096 },
  block_admin_merge_override: bool,
};

export const createProtectionBody: JsonSchema = {
  type: 'object',
  properties: { ...protectionProps, branch_name: { type: 'string', maxLength: 255 }, rule_name: { type: 'string', maxLength: 255 } },
};

export const editProtectionBody: JsonSchema = { type: 'object', properties: protectionProps };
