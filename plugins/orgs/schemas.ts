// The organization and team resources plus the request bodies of the orgs plugin, as $id'd JSON schemas.
import type { JsonSchema } from '../../core/plugin.js';
import { UNIT_KEYS } from './units.js';

const VISIBILITY = { type: 'string', enum: ['public', 'limited', 'private'] } as const;

/** Gitea's Organization (modern shape: `name` and `username` both carry the login). */
export const OrganizationSchema = {
  $id: 'forgekit/Organization',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    username: { type: 'string' },
    full_name: { type: 'string' },
    email: { type: 'string' },
    avatar_url: { type: 'string' },
    description: { type: 'string' },
    website: { type: 'string' },
    location: { type: 'string' },
    visibility: { type: 'string' },
    repo_admin_change_team_access: { type: 'boolean' },
  },
  required: ['id', 'name', 'username', 'full_name', 'email', 'avatar_url', 'description', 'website', 'location', 'visibility', 'repo_admin_change_team_access'],
} as const;

export const OrganizationListSchema = {
  $id: 'forgekit/OrganizationList',
  type: 'array',
  items: { $ref: 'forgekit/Organization' },
} as const;

/** Gitea's OrganizationPermissions (`GET /users/{username}/orgs/{org}/permissions`). */
export const OrganizationPermissionsSchema = {
  $id: 'forgekit/OrganizationPermissions',
  type: 'object',
  properties: {
    can_create_repository: { type: 'boolean' },
    can_read: { type: 'boolean' },
    can_write: { type: 'boolean' },
    is_admin: { type: 'boolean' },
    is_owner: { type: 'boolean' },
  },
  required: ['can_create_repository', 'can_read', 'can_write', 'is_admin', 'is_owner'],
} as const;

export const TeamSchema = {
  $id: 'forgekit/Team',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    organization: { $ref: 'forgekit/Organization' },
    // none | read | write | admin; `owner` for the organization's Owners team.
    permission: { type: 'string' },
    includes_all_repositories: { type: 'boolean' },
    can_create_org_repo: { type: 'boolean' },
    units: { type: 'array', items: { type: 'string' } },
    units_map: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['id', 'name', 'description', 'organization', 'permission', 'includes_all_repositories', 'can_create_org_repo', 'units', 'units_map'],
} as const;

export const TeamListSchema = { $id: 'forgekit/TeamList', type: 'array', items: { $ref: 'forgekit/Team' } } as const;

/** `GET /orgs/{org}/teams/search`: Gitea's `{ok, data}` envelope. */
export const TeamSearchResultsSchema = {
  $id: 'forgekit/TeamSearchResults',
  type: 'object',
  properties: { ok: { type: 'boolean' }, data: { $ref: 'forgekit/TeamList' } },
  required: ['ok', 'data'],
} as const;

const profile = {
  full_name: { type: 'string', maxLength: 100 },
  email: { type: 'string', maxLength: 255 },
  description: { type: 'string', maxLength: 255 },
  website: { type: 'string', maxLength: 255 },
  location: { type: 'string', maxLength: 50 },
  visibility: VISIBILITY,
  repo_admin_change_team_access: { type: 'boolean' },
} as const;

/** `POST /orgs` and `POST /admin/users/{username}/orgs` (Gitea's CreateOrgOption). */
export const createOrgBody: JsonSchema = {
  type: 'object',
  properties: { username: { type: 'string' }, ...profile },
  required: ['username'],
};

/** `PATCH /orgs/{org}` (Gitea's EditOrgOption): only the fields sent change. */
export const editOrgBody: JsonSchema = { type: 'object', properties: { ...profile } };

const teamFields = {
  description: { type: 'string', maxLength: 255 },
  permission: { type: 'string', enum: ['read', 'write', 'admin'] },
  includes_all_repositories: { type: 'boolean' },
  can_create_org_repo: { type: 'boolean' },
  units: { type: 'array', maxItems: UNIT_KEYS.length, items: { type: 'string', enum: [...UNIT_KEYS] } },
  units_map: {
    type: 'object',
    propertyNames: { enum: [...UNIT_KEYS] },
    additionalProperties: { type: 'string', enum: ['none', 'read', 'write', 'admin'] },
  },
} as const;

const teamName = { type: 'string', minLength: 1, maxLength: 30, pattern: '^[A-Za-z0-9_.-]+$' } as const;

/** `POST /orgs/{org}/teams` (Gitea's CreateTeamOption; `owner` is reserved for the Owners team). */
export const createTeamBody: JsonSchema = {
  type: 'object',
  properties: { name: teamName, ...teamFields },
  required: ['name'],
};

/** `PATCH /teams/{id}` (Gitea's EditTeamOption; `name` is required by its swagger, an empty one keeps the name). */
export const editTeamBody: JsonSchema = {
  type: 'object',
  properties: { name: { anyOf: [teamName, { type: 'string', maxLength: 0 }] }, ...teamFields },
};
