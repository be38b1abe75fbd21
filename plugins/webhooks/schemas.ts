// The webhooks plugin's resources (gitea-js Hook; forgekit's HookDelivery) and request bodies
// (CreateHookOption, EditHookOption).
import type { JsonSchema } from '../../core/plugin.js';

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

export const HookSchema = {
  $id: 'forgekit/Hook',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    type: { type: 'string' },
    branch_filter: { type: 'string' },
    config: stringMap,
    events: { type: 'array', items: { type: 'string' } },
    authorization_header: { type: 'string' },
    active: { type: 'boolean' },
    updated_at: { type: 'string' },
    created_at: { type: 'string' },
  },
  required: ['id', 'type', 'branch_filter', 'config', 'events', 'authorization_header', 'active', 'updated_at', 'created_at'],
} as const;

export const HookListSchema = { $id: 'forgekit/HookList', type: 'array', items: { $ref: 'forgekit/Hook' } } as const;

/** One recorded delivery: what was sent (headers, body) and what came back (status, headers, body cut to a bound). */
export const HookDeliverySchema = {
  $id: 'forgekit/HookDelivery',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    uuid: { type: 'string' },
    hook_id: { type: 'integer' },
    event: { type: 'string' },
    event_type: { type: 'string' },
    state: { type: 'string' },
    is_succeed: { type: 'boolean' },
    attempts: { type: 'integer' },
    redelivery_of: { type: 'integer' },
    created_at: { type: 'string' },
    delivered_at: { type: 'string' },
    duration_ms: { type: 'integer' },
    error: { type: 'string' },
    request: {
      type: 'object',
      properties: { url: { type: 'string' }, http_method: { type: 'string' }, headers: stringMap, body: { type: 'string' } },
      required: ['url', 'http_method', 'headers', 'body'],
    },
    response: {
      type: 'object',
      properties: { status: { type: 'integer' }, headers: stringMap, body: { type: 'string' } },
      required: ['status', 'headers', 'body'],
    },
  },
  required: ['id', 'uuid', 'hook_id', 'event', 'event_type', 'state', 'is_succeed', 'attempts', 'redelivery_of', 'created_at',
    'delivered_at', 'duration_ms', 'error', 'request', 'response'],
} as const;

export const HookDeliveryListSchema = { $id: 'forgekit/HookDeliveryList', type: 'array', items: { $ref: 'forgekit/HookDelivery' } } as const;

const configSchema = { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 }, maxProperties: 32 } as const;
const eventsSchema = { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 64 } as const;

/** Gitea's CreateHookOption (`type` and `config` with `url` and `content_type` required). */
export const createHookBody: JsonSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', maxLength: 32 },
    config: configSchema,
    events: eventsSchema,
    branch_filter: { type: 'string', maxLength: 1024 },
    authorization_header: { type: 'string', maxLength: 4096 },
    active: { type: 'boolean' },
  },
  required: ['type', 'config'],
};

/** Gitea's EditHookOption. */
export const editHookBody: JsonSchema = {
  type: 'object',
  properties: {
    config: configSchema,
    events: eventsSchema,
    branch_filter: { type: 'string', maxLength: 1024 },
    authorization_header: { type: 'string', maxLength: 4096 },
    active: { type: 'boolean' },
  },
};

/** The plugin's settings (`config.plugins.webhooks`), defaults included. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /** Gitea's webhook.ALLOWED_HOST_LIST; env FORGEKIT_WEBHOOK_ALLOWED_HOSTS. */
    allowedHostList: { type: 'string', default: 'external' },
    deliverTimeoutMs: { type: 'integer', minimum: 1, default: 5000 },
    maxAttempts: { type: 'integer', minimum: 1, maximum: 100, default: 6 },
    retryBaseMs: { type: 'integer', minimum: 0, default: 2000 },
    retryMaxMs: { type: 'integer', minimum: 0, default: 600000 },
    concurrency: { type: 'integer', minimum: 1, maximum: 256, default: 4 },
    maxResponseBytes: { type: 'integer', minimum: 0, default: 65536 },
    historyPerHook: { type: 'integer', minimum: 1, default: 100 },
  },
};
