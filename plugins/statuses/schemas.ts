// The statuses plugin's resources (gitea-js CommitStatus, CombinedStatus) and its request bodies.
import type { JsonSchema } from '../../core/plugin.js';
import { STATES } from './service.js';

export const CommitStatusSchema = {
  $id: 'forgekit/CommitStatus',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    status: { type: 'string' },
    target_url: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
    context: { type: 'string' },
    creator: { $ref: 'forgekit/User' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
  required: ['id', 'status', 'target_url', 'description', 'url', 'context', 'creator', 'created_at', 'updated_at'],
} as const;

export const CommitStatusListSchema = { $id: 'forgekit/CommitStatusList', type: 'array', items: { $ref: 'forgekit/CommitStatus' } } as const;

export const CombinedStatusSchema = {
  $id: 'forgekit/CombinedStatus',
  type: 'object',
  properties: {
    state: { type: 'string' },
    sha: { type: 'string' },
    total_count: { type: 'integer' },
    statuses: { $ref: 'forgekit/CommitStatusList' },
    repository: { $ref: 'forgekit/Repository' },
    commit_url: { type: 'string' },
    url: { type: 'string' },
  },
  required: ['state', 'sha', 'total_count', 'statuses', 'repository', 'commit_url', 'url'],
} as const;

/** Gitea's CreateStatusOption. */
export const createStatusBody: JsonSchema = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: [...STATES] },
    target_url: { type: 'string', maxLength: 2048 },
    description: { type: 'string', maxLength: 1024 },
    context: { type: 'string', maxLength: 255 },
  },
  required: ['state'],
};

export const listStatusQuery: JsonSchema = {
  sort: { type: 'string', enum: ['oldest', 'recentupdate', 'leastupdate', 'leastindex', 'highestindex'] },
  state: { type: 'string', enum: [...STATES] },
};
