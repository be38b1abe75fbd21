// Request bodies and query strings of the repos plugin.
import type { JsonSchema } from '../../core/plugin.js';
import { listQuery } from '../../schemas/common.js';
import { settingsBodyProperties } from './settings.js';

/** The spec's CreateRepoOption. Name rules are checked by the service so every creator gets the same messages. */
export const createRepoBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string', maxLength: 255 },
    private: { type: 'boolean' },
    auto_init: { type: 'boolean' },
    gitignores: { type: 'string', maxLength: 1024 },
    license: { type: 'string', maxLength: 255 },
    readme: { type: 'string', maxLength: 255 },
    default_branch: { type: 'string', minLength: 1, maxLength: 255 },
    template: { type: 'boolean' },
    // Only SHA-1 repositories exist here; asking for sha256 is a 422 rather than a silent sha1.
    object_format_name: { type: 'string', enum: ['sha1'] },
  },
  required: ['name'],
};

/**
 * Gitea's EditRepoOption: unknown keys are ignored. Renaming is not served: a `name` other than the current one is a
 * 422 (never a 200 that silently keeps the old name); the current name is accepted, as clients send the whole option.
 */
export const editRepoBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: 'string', maxLength: 255 },
    website: { type: 'string', maxLength: 255 },
    private: { type: 'boolean' },
    default_branch: { type: 'string', minLength: 1, maxLength: 255 },
    archived: { type: 'boolean' },
    template: { type: 'boolean' },
    ...settingsBodyProperties,
  },
};

export const collaboratorBody: JsonSchema = {
  type: 'object',
  properties: { permission: { type: 'string', enum: ['read', 'write', 'admin'] } },
};

const id = { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 };

/** Gitea's `/repos/search` query (routers/api/v1/repo/repo.go Search); an unknown mode, sort or order is a 422. */
export const searchQuery: JsonSchema = listQuery({
  q: { type: 'string' },
  uid: id,
  topic: { type: 'boolean' },
  includeDesc: { type: 'boolean' },
  priority_owner_id: id,
  starredBy: id,
  private: { type: 'boolean' },
  is_private: { type: 'boolean' },
  template: { type: 'boolean' },
  archived: { type: 'boolean' },
  exclusive: { type: 'boolean' },
  mode: { type: 'string', enum: ['fork', 'source', 'mirror', 'collaborative', ''] },
  sort: { type: 'string', enum: ['alpha', 'created', 'updated', 'size', 'git_size', 'id', 'stars', 'forks', ''] },
  order: { type: 'string', enum: ['asc', 'desc', ''] },
});
