// The organization and team resources plus the request bodies of the orgs plugin, as $id'd JSON schemas.
import type { JsonSchema } from '../../core/plugin.js';

export const OrganizationSchema = {
  $id: 'forgekit/Organization',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    username: { type: 'string' },
    full_name: { type: 'string' },
    avatar_url: { type: 'string' },
    description: { type: 'string' },
    website: { type: 'string' },
    location: { type: 'string' },
  },
  required: ['id', 'username', 'full_name', 'avatar_url', 'description', 'website', 'location'],
} as const;

export const OrganizationListSchema = {
  $id: 'forgekit/OrganizationList',
  type: 'array',
  items: { $ref: 'forgekit/Organization' },
} as const;

export const TeamSchema = {
  $id: 'forgekit/Team',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    // read | write | admin; `owner` for the organization's Owners team.
    permission: { type: 'string' },
    includes_all_repositories: { type: 'boolean' },
  },
  required: ['id', 'name', 'description', 'permission', 'includes_all_repositories'],
} as const;

export const TeamListSchema = { $id: 'forgekit/TeamList', type: 'array', items: { $ref: 'forgekit/Team' } } as const;

/** `POST /orgs` and `POST /admin/users/{username}/orgs` (Gitea's CreateOrgOption). */
export const createOrgBody: JsonSchema = {
  type: 'object',
  properties: {
    username: { type: 'string' },
    full_name: { type: 'string', maxLength: 100 },
    description: { type: 'string', maxLength: 255 },
    website: { type: 'string', maxLength: 255 },
    location: { type: 'string', maxLength: 50 },
  },
  required: ['username'],
};

/** `POST /orgs/{org}/teams` (Gitea's CreateTeamOption; `owner` is reserved for the Owners team). */
export const createTeamBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 30, pattern: '^[A-Za-z0-9_.-]+$' },
    description: { type: 'string', maxLength: 255 },
    permission: { type: 'string', enum: ['read', 'write', 'admin'], default: 'read' },
    includes_all_repositories: { type: 'boolean', default: false },
  },
  required: ['name'],
};
