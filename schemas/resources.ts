// The API resources as $id'd JSON schemas: responses are serialised from these, so a field not listed here never leaves.

/** Repository settings Gitea clients read (Renovate refuses a repository without the `allow_*` merge flags). */
const REPO_SETTING_TYPES = {
  has_issues: 'boolean', has_wiki: 'boolean', has_pull_requests: 'boolean', has_projects: 'boolean', has_releases: 'boolean',
  has_packages: 'boolean', has_actions: 'boolean', ignore_whitespace_conflicts: 'boolean', allow_merge_commits: 'boolean',
  allow_rebase: 'boolean', allow_rebase_explicit: 'boolean', allow_squash_merge: 'boolean', allow_fast_forward_only_merge: 'boolean',
  allow_rebase_update: 'boolean', default_delete_branch_after_merge: 'boolean', default_merge_style: 'string',
  default_allow_maintainer_edit: 'boolean',
} as const;
export const REPO_SETTING_NAMES = Object.keys(REPO_SETTING_TYPES) as Array<keyof typeof REPO_SETTING_TYPES>;
const REPO_SETTING_PROPERTIES = Object.fromEntries(Object.entries(REPO_SETTING_TYPES).map(([k, type]) => [k, { type }])) as
  { [K in keyof typeof REPO_SETTING_TYPES]: { type: (typeof REPO_SETTING_TYPES)[K] } };

const timestamp = { type: 'string' } as const; // RFC 3339, e.g. 2026-11-22T10:42:52Z
const nullableTimestamp = { type: ['string', 'null'] } as const;

export const ErrorSchema = {
  $id: 'forgekit/Error',
  type: 'object',
  properties: { message: { type: 'string' }, url: { type: 'string' } },
  required: ['message', 'url'],
} as const;

export const UserSchema = {
  $id: 'forgekit/User',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    login: { type: 'string' },
    // Local accounts sign in with their login: Gitea's login_name (external source name) and source_id are empty.
    login_name: { type: 'string' },
    source_id: { type: 'integer' },
    full_name: { type: 'string' },
    email: { type: 'string' },
    avatar_url: { type: 'string' },
    html_url: { type: 'string' },
    language: { type: 'string' },
    // is_admin, last_login, active and prohibit_login show to the account itself and site admins (Gitea's rule);
    // everyone else reads false / null / true / false.
    is_admin: { type: 'boolean' },
    last_login: nullableTimestamp,
    created: timestamp,
    restricted: { type: 'boolean' },
    active: { type: 'boolean' },
    prohibit_login: { type: 'boolean' },
    location: { type: 'string' },
    website: { type: 'string' },
    description: { type: 'string' },
    visibility: { type: 'string', enum: ['public', 'limited', 'private'] },
    followers_count: { type: 'integer' },
    following_count: { type: 'integer' },
    starred_repos_count: { type: 'integer' },
    username: { type: 'string' },
  },
  required: ['id', 'login', 'login_name', 'source_id', 'full_name', 'email', 'avatar_url', 'html_url', 'language', 'is_admin',
    'last_login', 'created', 'restricted', 'active', 'prohibit_login', 'location', 'website', 'description', 'visibility',
    'followers_count', 'following_count', 'starred_repos_count', 'username'],
} as const;

export const UserListSchema = { $id: 'forgekit/UserList', type: 'array', items: { $ref: 'forgekit/User' } } as const;

export const PermissionSchema = {
  $id: 'forgekit/Permission',
  type: 'object',
  properties: { admin: { type: 'boolean' }, push: { type: 'boolean' }, pull: { type: 'boolean' } },
  required: ['admin', 'push', 'pull'],
} as const;

/** The Repository properties, in wire order; `parent` is filled in by RepositorySchema. */
function repositoryProperties(parent: Record<string, unknown>) {
  return {
    id: { type: 'integer' },
    owner: { $ref: 'forgekit/User' },
    name: { type: 'string' },
    full_name: { type: 'string' },
    description: { type: 'string' },
    empty: { type: 'boolean' },
    private: { type: 'boolean' },
    fork: { type: 'boolean' },
    template: { type: 'boolean' },
    parent,
    mirror: { type: 'boolean' },
    size: { type: 'integer' },
    language: { type: 'string' },
    languages_url: { type: 'string' },
    html_url: { type: 'string' },
    url: { type: 'string' },
    link: { type: 'string' },
    ssh_url: { type: 'string' },
    clone_url: { type: 'string' },
    original_url: { type: 'string' },
    website: { type: 'string' },
    stars_count: { type: 'integer' },
    forks_count: { type: 'integer' },
    watchers_count: { type: 'integer' },
    open_issues_count: { type: 'integer' },
    open_pr_counter: { type: 'integer' },
    release_counter: { type: 'integer' },
    default_branch: { type: 'string' },
    archived: { type: 'boolean' },
    created_at: timestamp,
    updated_at: timestamp,
    // null while the repository is not archived (never the zero time).
    archived_at: nullableTimestamp,
    permissions: { $ref: 'forgekit/Permission' },
    // Settings (plugins/repos/settings.ts): stored, PATCHable, defaults for records made before they existed.
    ...REPO_SETTING_PROPERTIES,
    // Mirrors only: when the last sync finished and its error, if it failed (null otherwise).
    mirror_updated: nullableTimestamp,
    mirror_error: { type: ['string', 'null'] },
    avatar_url: { type: 'string' },
    internal: { type: 'boolean' },
    mirror_interval: { type: 'string' },
    object_format_name: { type: 'string', enum: ['sha1', 'sha256'] },
    topics: { type: 'array', items: { type: 'string' } },
    licenses: { type: 'array', items: { type: 'string' } },
  } as const;
}

const repositoryRequired = ['id', 'owner', 'name', 'full_name', 'description', 'empty', 'private', 'fork', 'template', 'parent',
  'mirror', 'size', 'language', 'languages_url', 'html_url', 'url', 'link', 'ssh_url', 'clone_url', 'original_url', 'website',
  'stars_count', 'forks_count', 'watchers_count', 'open_issues_count', 'open_pr_counter', 'release_counter', 'default_branch',
  'archived', 'created_at', 'updated_at', 'archived_at', 'permissions', ...REPO_SETTING_NAMES, 'avatar_url', 'internal',
  'mirror_interval', 'object_format_name', 'topics', 'licenses'] as const;

export const RepositorySchema = {
  $id: 'forgekit/Repository',
  type: 'object',
  properties: repositoryProperties({
    // For forks: the parent repository (with parent: null); otherwise null. Spelled out instead of
    // `anyOf: [null, {$ref}]`: fast-json-stringify resolves an anyOf through Ajv at request time, and Ajv resolves
    // `forgekit/User` inside `forgekit/Repository` as the relative URI `forgekit/forgekit/User`.
    type: ['object', 'null'],
    properties: repositoryProperties({ type: 'null' }),
    required: repositoryRequired,
  }),
  required: repositoryRequired,
} as const;

export const RepositoryListSchema = {
  $id: 'forgekit/RepositoryList',
  type: 'array',
  items: { $ref: 'forgekit/Repository' },
} as const;

export const SearchResultsSchema = {
  $id: 'forgekit/SearchResults',
  type: 'object',
  properties: { ok: { type: 'boolean' }, data: { $ref: 'forgekit/RepositoryList' } },
  required: ['ok', 'data'],
} as const;

export const SearchErrorSchema = {
  $id: 'forgekit/SearchError',
  type: 'object',
  properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
  required: ['ok', 'error'],
} as const;

export const PublicKeySchema = {
  $id: 'forgekit/PublicKey',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    key: { type: 'string' },
    url: { type: 'string' },
    title: { type: 'string' },
    fingerprint: { type: 'string' },
    created_at: timestamp,
    // Only for the key's owner and site admins (Gitea's appendPrivateInformation).
    key_type: { type: 'string' },
    read_only: { type: 'boolean' },
    user: { $ref: 'forgekit/User' },
  },
  required: ['id', 'key', 'url', 'title', 'fingerprint', 'created_at'],
} as const;

export const PublicKeyListSchema = { $id: 'forgekit/PublicKeyList', type: 'array', items: { $ref: 'forgekit/PublicKey' } } as const;

export const GPGKeyEmailSchema = {
  $id: 'forgekit/GPGKeyEmail',
  type: 'object',
  properties: { email: { type: 'string' }, verified: { type: 'boolean' } },
  required: ['email', 'verified'],
} as const;

export const GPGKeySchema = {
  $id: 'forgekit/GPGKey',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    primary_key_id: { type: 'string' },
    key_id: { type: 'string' },
    public_key: { type: 'string' },
    // Always arrays (subkeys carry `[]` for both), never null as in Gitea 2017.
    emails: { type: 'array', items: { $ref: 'forgekit/GPGKeyEmail' } },
    subkeys: { type: 'array', items: { $ref: 'forgekit/GPGKey' } },
    can_sign: { type: 'boolean' },
    can_encrypt_comms: { type: 'boolean' },
    can_encrypt_storage: { type: 'boolean' },
    can_certify: { type: 'boolean' },
    created_at: timestamp,
    expires_at: nullableTimestamp,
    // One of the key's identities is a verified address of its owner (subkeys: their primary's).
    verified: { type: 'boolean' },
  },
  required: ['id', 'primary_key_id', 'key_id', 'public_key', 'emails', 'subkeys', 'can_sign', 'can_encrypt_comms',
    'can_encrypt_storage', 'can_certify', 'created_at', 'expires_at', 'verified'],
} as const;

export const GPGKeyListSchema = { $id: 'forgekit/GPGKeyList', type: 'array', items: { $ref: 'forgekit/GPGKey' } } as const;

export const AccessTokenSchema = {
  $id: 'forgekit/AccessToken',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    // The token value: only in the creation response; "" in lists.
    sha1: { type: 'string' },
    token_last_eight: { type: 'string' },
    // Gitea's normalised scope names (`all`, `write:repository`, `read:user`, …).
    scopes: { type: 'array', items: { type: 'string' } },
  },
  required: ['id', 'name', 'sha1', 'token_last_eight', 'scopes'],
} as const;

export const AccessTokenListSchema = {
  $id: 'forgekit/AccessTokenList',
  type: 'array',
  items: { $ref: 'forgekit/AccessToken' },
} as const;

export const WatchInfoSchema = {
  $id: 'forgekit/WatchInfo',
  type: 'object',
  properties: {
    subscribed: { type: 'boolean' },
    ignored: { type: 'boolean' },
    reason: { type: 'null' },
    created_at: timestamp,
    url: { type: 'string' },
    repository_url: { type: 'string' },
  },
  required: ['subscribed', 'ignored', 'reason', 'created_at', 'url', 'repository_url'],
} as const;

export const ServerVersionSchema = {
  $id: 'forgekit/ServerVersion',
  type: 'object',
  properties: { Version: { type: 'string' }, version: { type: 'string' } },
  required: ['Version', 'version'],
} as const;

/** Gitea's Attachment (release assets, and issue and comment attachments): the file behind `browser_download_url`. */
export const AttachmentSchema = {
  $id: 'forgekit/Attachment', type: 'object',
  required: ['id', 'name', 'size', 'download_count', 'created_at', 'uuid', 'browser_download_url'],
  properties: {
    id: { type: 'integer' }, name: { type: 'string' }, size: { type: 'integer' }, download_count: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' }, uuid: { type: 'string' }, browser_download_url: { type: 'string' },
  },
} as const;

export const AttachmentListSchema = { $id: 'forgekit/AttachmentList', type: 'array', items: { $ref: 'forgekit/Attachment' } } as const;

/** Every resource schema, for plugins that $ref them. Registering one twice is harmless. */
export const RESOURCE_SCHEMAS = [
  ErrorSchema, UserSchema, UserListSchema, PermissionSchema, RepositorySchema, RepositoryListSchema,
  SearchResultsSchema, SearchErrorSchema, PublicKeySchema, PublicKeyListSchema, GPGKeyEmailSchema, GPGKeySchema,
  GPGKeyListSchema, AccessTokenSchema, AccessTokenListSchema, WatchInfoSchema, ServerVersionSchema, AttachmentSchema,
  AttachmentListSchema,
];

/** `{ $ref }` shorthand for route schemas. */
export const ref = (id: string) => ({ $ref: id });
