// The issues plugin's resources (Gitea's Issue, Comment, Label, Milestone, Reaction) and request bodies.
import type { JsonSchema } from '../../core/plugin.js';
import { UserSchema } from '../../schemas/resources.js';

const timestamp = { type: 'string' } as const;
const nullableTimestamp = { type: ['string', 'null'] } as const;
// Inline copies (no nested $ref): fast-json-stringify resolves a nested `forgekit/User` relative to the parent's $id.
const userProps = UserSchema.properties;
const userRequired = [...UserSchema.required];
const nullableUser = { type: ['object', 'null'], properties: userProps, required: userRequired } as const;
const user = { type: 'object', properties: userProps, required: userRequired } as const;

const labelProps = {
  id: { type: 'integer' },
  name: { type: 'string' },
  exclusive: { type: 'boolean' },
  is_archived: { type: 'boolean' },
  color: { type: 'string' },
  description: { type: 'string' },
  url: { type: 'string' },
} as const;
const labelRequired = ['id', 'name', 'exclusive', 'is_archived', 'color', 'description', 'url'];

export const LabelSchema = { $id: 'forgekit/Label', type: 'object', properties: labelProps, required: labelRequired } as const;
export const LabelListSchema = { $id: 'forgekit/LabelList', type: 'array', items: { $ref: 'forgekit/Label' } } as const;

const milestoneProps = {
  id: { type: 'integer' },
  title: { type: 'string' },
  description: { type: 'string' },
  state: { type: 'string', enum: ['open', 'closed'] },
  open_issues: { type: 'integer' },
  closed_issues: { type: 'integer' },
  created_at: timestamp,
  updated_at: nullableTimestamp,
  closed_at: nullableTimestamp,
  due_on: nullableTimestamp,
} as const;
const milestoneRequired = ['id', 'title', 'description', 'state', 'open_issues', 'closed_issues', 'created_at', 'updated_at', 'closed_at', 'due_on'];

export const MilestoneSchema = { $id: 'forgekit/Milestone', type: 'object', properties: milestoneProps, required: milestoneRequired } as const;
export const MilestoneListSchema = { $id: 'forgekit/MilestoneList', type: 'array', items: { $ref: 'forgekit/Milestone' } } as const;

export const IssueSchema = {
  $id: 'forgekit/Issue',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    url: { type: 'string' },
    html_url: { type: 'string' },
    number: { type: 'integer' },
    user,
    original_author: { type: 'string' },
    original_author_id: { type: 'integer' },
    title: { type: 'string' },
    body: { type: 'string' },
    ref: { type: 'string' },
    assets: { $ref: 'forgekit/AttachmentList' },
    labels: { type: 'array', items: { type: 'object', properties: labelProps, required: labelRequired } },
    milestone: { type: ['object', 'null'], properties: milestoneProps, required: milestoneRequired },
    assignee: nullableUser,
    assignees: { type: ['array', 'null'], items: user },
    state: { type: 'string', enum: ['open', 'closed'] },
    is_locked: { type: 'boolean' },
    comments: { type: 'integer' },
    created_at: timestamp,
    updated_at: timestamp,
    closed_at: nullableTimestamp,
    due_date: nullableTimestamp,
    pull_request: {
      type: ['object', 'null'],
      properties: { merged: { type: 'boolean' }, merged_at: nullableTimestamp, draft: { type: 'boolean' }, html_url: { type: 'string' } },
    },
    repository: {
      type: 'object',
      properties: { id: { type: 'integer' }, name: { type: 'string' }, owner: { type: 'string' }, full_name: { type: 'string' } },
      required: ['id', 'name', 'owner', 'full_name'],
    },
    pin_order: { type: 'integer' },
  },
  required: ['id', 'url', 'html_url', 'number', 'user', 'original_author', 'original_author_id', 'title', 'body', 'ref', 'assets',
    'labels', 'milestone', 'assignee', 'assignees', 'state', 'is_locked', 'comments', 'created_at', 'updated_at', 'closed_at',
    'due_date', 'pull_request', 'repository', 'pin_order'],
} as const;
export const IssueListSchema = { $id: 'forgekit/IssueList', type: 'array', items: { $ref: 'forgekit/Issue' } } as const;

export const CommentSchema = {
  $id: 'forgekit/Comment',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    html_url: { type: 'string' },
    pull_request_url: { type: 'string' },
    issue_url: { type: 'string' },
    user,
    original_author: { type: 'string' },
    original_author_id: { type: 'integer' },
    body: { type: 'string' },
    assets: { $ref: 'forgekit/AttachmentList' },
    created_at: timestamp,
    updated_at: timestamp,
  },
  required: ['id', 'html_url', 'pull_request_url', 'issue_url', 'user', 'original_author', 'original_author_id', 'body', 'assets',
    'created_at', 'updated_at'],
} as const;
export const CommentListSchema = { $id: 'forgekit/CommentList', type: 'array', items: { $ref: 'forgekit/Comment' } } as const;

export const ReactionSchema = {
  $id: 'forgekit/Reaction',
  type: 'object',
  properties: { user, content: { type: 'string' }, created_at: timestamp },
  required: ['user', 'content', 'created_at'],
} as const;
export const ReactionListSchema = { $id: 'forgekit/ReactionList', type: 'array', items: { $ref: 'forgekit/Reaction' } } as const;

export const ISSUE_SCHEMAS = [LabelSchema, LabelListSchema, MilestoneSchema, MilestoneListSchema, IssueSchema, IssueListSchema,
  CommentSchema, CommentListSchema, ReactionSchema, ReactionListSchema];

// ---- request bodies (Gitea's *Option structs) ----

const int64 = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const login = { type: 'string', maxLength: 255 } as const;

/** CreateIssueOption */
export const createIssueBody: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255 },
    body: { type: 'string', maxLength: 65536 },
    ref: { type: 'string', maxLength: 255 },
    assignee: login,
    assignees: { type: 'array', maxItems: 50, items: login },
    due_date: nullableDateTime,
    milestone: int64,
    labels: { type: 'array', maxItems: 50, items: int64 },
    closed: { type: 'boolean' },
  },
  required: ['title'],
};

/** EditIssueOption */
export const editIssueBody: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255 },
    body: { type: ['string', 'null'], maxLength: 65536 },
    ref: { type: ['string', 'null'], maxLength: 255 },
    assignee: { type: ['string', 'null'], maxLength: 255 },
    assignees: { type: ['array', 'null'], maxItems: 50, items: login },
    milestone: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    state: { type: ['string', 'null'], enum: ['open', 'closed', null] },
    due_date: nullableDateTime,
    unset_due_date: { type: ['boolean', 'null'] },
  },
};

/** CreateIssueCommentOption / EditIssueCommentOption */
export const commentBody: JsonSchema = {
  type: 'object',
  properties: { body: { type: 'string', minLength: 1, maxLength: 65536 } },
  required: ['body'],
};

/** EditReactionOption */
export const reactionBody: JsonSchema = {
  type: 'object',
  properties: { content: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['content'],
};

/** CreateLabelOption */
export const createLabelBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 50 },
    color: { type: 'string', maxLength: 7 },
    description: { type: 'string', maxLength: 200 },
    exclusive: { type: 'boolean' },
    is_archived: { type: 'boolean' },
  },
  required: ['name', 'color'],
};

/** EditLabelOption */
export const editLabelBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 50 },
    color: { type: 'string', maxLength: 7 },
    description: { type: 'string', maxLength: 200 },
    exclusive: { type: 'boolean' },
    is_archived: { type: 'boolean' },
  },
};

/** IssueLabelsOption: label ids, or names (modern Gitea accepts both). */
export const issueLabelsBody: JsonSchema = {
  type: 'object',
  properties: {
    labels: { type: 'array', maxItems: 100, items: { anyOf: [int64, { type: 'string', minLength: 1, maxLength: 50 }] } },
  },
};

/** CreateMilestoneOption */
export const createMilestoneBody: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: 'string', maxLength: 65536 },
    due_on: nullableDateTime,
    state: { type: 'string', enum: ['open', 'closed'] },
  },
  required: ['title'],
};

/** EditMilestoneOption */
export const editMilestoneBody: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: ['string', 'null'], maxLength: 65536 },
    due_on: nullableDateTime,
    state: { type: ['string', 'null'], enum: ['open', 'closed', null] },
  },
};

/** LockIssueOption */
export const lockBody: JsonSchema = {
  type: 'object',
  properties: { lock_reason: { type: 'string', maxLength: 255 } },
};

export { dateTime };
