// The pulls plugin's resources (gitea-js PullRequest, PullReview, PullReviewComment, ChangedFile) and request bodies.
import type { JsonSchema } from '../../core/plugin.js';
import { RepositorySchema, UserSchema } from '../../schemas/resources.js';

const str = { type: 'string' } as const;
const nstr = { type: ['string', 'null'] } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
// Inline copies (no nested $ref at the top of a property): see plugins/issues/schemas.ts.
const user = { type: 'object', properties: UserSchema.properties, required: [...UserSchema.required] } as const;
const nullableUser = { type: ['object', 'null'], properties: UserSchema.properties, required: [...UserSchema.required] } as const;
const nullableRepo = { type: ['object', 'null'], properties: RepositorySchema.properties, required: [...RepositorySchema.required] } as const;

const label = {
  type: 'object',
  properties: { id: int, name: str, exclusive: bool, is_archived: bool, color: str, description: str, url: str },
  required: ['id', 'name', 'exclusive', 'is_archived', 'color', 'description', 'url'],
} as const;
const milestone = {
  type: ['object', 'null'],
  properties: {
    id: int, title: str, description: str, state: str, open_issues: int, closed_issues: int, created_at: str, updated_at: nstr, closed_at: nstr, due_on: nstr,
  },
  required: ['id', 'title', 'description', 'state', 'open_issues', 'closed_issues', 'created_at', 'updated_at', 'closed_at', 'due_on'],
} as const;
const team = {
  type: 'object',
  properties: { id: int, name: str, description: str, permission: str, includes_all_repositories: bool },
  required: ['id', 'name', 'description', 'permission', 'includes_all_repositories'],
} as const;
const branchInfo = {
  type: 'object',
  properties: { label: str, ref: str, sha: str, repo_id: int, repo: nullableRepo },
  required: ['label', 'ref', 'sha', 'repo_id', 'repo'],
} as const;

export const PullRequestSchema: JsonSchema = {
  $id: 'forgekit/PullRequest',
  type: 'object',
  properties: {
    id: int, url: str, number: int, user, title: str, body: str,
    labels: { type: 'array', items: label },
    milestone,
    assignee: nullableUser,
    assignees: { type: ['array', 'null'], items: user },
    requested_reviewers: { type: 'array', items: user },
    requested_reviewers_teams: { type: 'array', items: team },
    state: { type: 'string', enum: ['open', 'closed'] },
    draft: bool, is_locked: bool, comments: int, review_comments: int, additions: int, deletions: int, changed_files: int,
    html_url: str, diff_url: str, patch_url: str,
    mergeable: bool, merged: bool, merged_at: nstr, merge_commit_sha: nstr, merged_by: nullableUser,
    allow_maintainer_edit: bool,
    base: branchInfo, head: branchInfo,
    merge_base: str,
    /** forgekit: the files `merge-tree` found in conflict (empty when mergeable). */
    conflicted_files: { type: 'array', items: str },
    due_date: nstr, created_at: str, updated_at: str, closed_at: nstr, pin_order: int,
  },
  required: ['id', 'url', 'number', 'user', 'title', 'body', 'labels', 'milestone', 'assignee', 'assignees', 'requested_reviewers',
    'requested_reviewers_teams', 'state', 'draft', 'is_locked', 'comments', 'review_comments', 'additions', 'deletions', 'changed_files',
    'html_url', 'diff_url', 'patch_url', 'mergeable', 'merged', 'merged_at', 'merge_commit_sha', 'merged_by', 'allow_maintainer_edit',
    'base', 'head', 'merge_base', 'conflicted_files', 'due_date', 'created_at', 'updated_at', 'closed_at', 'pin_order'],
};
/**
 * A PullRequest without its branches, and a branch without its repository: the list writes a page as these two
 * serialised around the repositories' kept JSON (convert.ts, `pullsJson`). Not registered: compiled by the plugin.
 */
export const PullRequestFieldsSchema: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(Object.entries(PullRequestSchema.properties as Record<string, unknown>).filter(([k]) => k !== 'base' && k !== 'head')),
  required: (PullRequestSchema.required as string[]).filter((k) => k !== 'base' && k !== 'head'),
};
export const BranchFieldsSchema: JsonSchema = {
  type: 'object',
  properties: { label: str, ref: str, sha: str, repo_id: int },
  required: ['label', 'ref', 'sha', 'repo_id'],
};
export const PullRequestListSchema: JsonSchema = { $id: 'forgekit/PullRequestList', type: 'array', items: { $ref: 'forgekit/PullRequest' } };

export const PullReviewSchema: JsonSchema = {
  $id: 'forgekit/PullReview',
  type: 'object',
  properties: {
    id: int, user: nullableUser, team: { type: ['object', 'null'], properties: team.properties, required: team.required },
    state: { type: 'string', enum: ['PENDING', 'APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'REQUEST_REVIEW'] },
    body: str, commit_id: str, stale: bool, official: bool, dismissed: bool, comments_count: int,
    submitted_at: str, updated_at: str, html_url: str, pull_request_url: str,
  },
  required: ['id', 'user', 'team', 'state', 'body', 'commit_id', 'stale', 'official', 'dismissed', 'comments_count', 'submitted_at',
    'updated_at', 'html_url', 'pull_request_url'],
};
export const PullReviewListSchema: JsonSchema = { $id: 'forgekit/PullReviewList', type: 'array', items: { $ref: 'forgekit/PullReview' } };

export const PullReviewCommentSchema: JsonSchema = {
  $id: 'forgekit/PullReviewComment',
  type: 'object',
  properties: {
    id: int, body: str, user: nullableUser, resolver: nullableUser, pull_request_review_id: int, created_at: str, updated_at: str,
    path: str, commit_id: str, original_commit_id: str, diff_hunk: str, position: int, original_position: int, html_url: str,
    pull_request_url: str,
  },
  required: ['id', 'body', 'user', 'resolver', 'pull_request_review_id', 'created_at', 'updated_at', 'path', 'commit_id',
    'original_commit_id', 'diff_hunk', 'position', 'original_position', 'html_url', 'pull_request_url'],
};
export const PullReviewCommentListSchema: JsonSchema = { $id: 'forgekit/PullReviewCommentList', type: 'array', items: { $ref: 'forgekit/PullReviewComment' } };

export const ChangedFileSchema: JsonSchema = {
  $id: 'forgekit/ChangedFile',
  type: 'object',
  properties: {
    filename: str, previous_filename: str, status: str, additions: int, deletions: int, changes: int, html_url: str, contents_url: str, raw_url: str,
  },
  required: ['filename', 'previous_filename', 'status', 'additions', 'deletions', 'changes', 'html_url', 'contents_url', 'raw_url'],
};
export const ChangedFileListSchema: JsonSchema = { $id: 'forgekit/ChangedFileList', type: 'array', items: { $ref: 'forgekit/ChangedFile' } };

export const PULL_SCHEMAS: JsonSchema[] = [
  PullRequestSchema, PullRequestListSchema, PullReviewSchema, PullReviewListSchema, PullReviewCommentSchema, PullReviewCommentListSchema,
  ChangedFileSchema, ChangedFileListSchema,
];

const names = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 255 }, maxItems: 100 } as const;
const ids = { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 100 } as const;
const date = { type: ['string', 'null'], format: 'date-time' } as const;

export const createPullBody: JsonSchema = {
  type: 'object',
  properties: {
    head: { type: 'string', minLength: 1, maxLength: 512 },
    base: { type: 'string', minLength: 1, maxLength: 255 },
    title: { type: 'string', minLength: 1, maxLength: 255 },
    body: { type: 'string', maxLength: 65536 },
    assignee: { type: 'string', maxLength: 255 },
    assignees: names,
    milestone: { type: 'integer', minimum: 0 },
    labels: ids,
    due_date: date,
    reviewers: names,
    team_reviewers: names,
  },
  required: ['head', 'base', 'title'],
};

export const editPullBody: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 255 },
    body: { type: ['string', 'null'], maxLength: 65536 },
    base: { type: 'string', maxLength: 255 },
    assignee: { type: 'string', maxLength: 255 },
    assignees: { type: ['array', 'null'], items: names.items, maxItems: 100 },
    milestone: { type: 'integer', minimum: 0 },
    labels: { type: ['array', 'null'], items: ids.items, maxItems: 100 },
    state: { type: ['string', 'null'], enum: ['open', 'closed', null] },
    due_date: date,
    unset_due_date: { type: ['boolean', 'null'] },
    allow_maintainer_edit: { type: ['boolean', 'null'] },
  },
};

export const mergeBody: JsonSchema = {
  type: 'object',
  properties: {
    Do: { type: 'string', enum: ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'] },
    MergeTitleField: { type: 'string', maxLength: 1024 },
    MergeMessageField: { type: 'string', maxLength: 65536 },
    MergeCommitID: { type: 'string', maxLength: 64 },
    head_commit_id: { type: 'string', maxLength: 64 },
    delete_branch_after_merge: { type: 'boolean' },
    force_merge: { type: 'boolean' },
    merge_when_checks_succeed: { type: 'boolean' },
  },
  required: ['Do'],
};

const reviewEvent = { type: 'string', enum: ['APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'PENDING', 'APPROVE', 'REQUEST_REVIEW', ''] } as const;

export const createReviewBody: JsonSchema = {
  type: 'object',
  properties: {
    body: { type: 'string', maxLength: 65536 },
    event: reviewEvent,
    commit_id: { type: 'string', maxLength: 64 },
    comments: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1, maxLength: 4096 },
          body: { type: 'string', maxLength: 65536 },
          old_position: { type: 'integer', minimum: 0, maximum: 100000000 },
          new_position: { type: 'integer', minimum: 0, maximum: 100000000 },
        },
        required: ['path'],
      },
    },
  },
};

export const submitReviewBody: JsonSchema = {
  type: 'object',
  properties: { body: { type: 'string', maxLength: 65536 }, event: reviewEvent },
};

export const dismissBody: JsonSchema = {
  type: 'object',
  properties: { message: { type: 'string', maxLength: 65536 }, priors: { type: 'boolean' } },
};

export const reviewRequestsBody: JsonSchema = {
  type: 'object',
  properties: { reviewers: names, team_reviewers: names },
};
