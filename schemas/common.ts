// Shared request-parameter schemas: path parameters, pagination and ids, reused by every plugin's routes.
import type { JsonSchema } from '../core/plugin.js';

/** A user or organization name in a path (validated loosely here; lookups decide 404). */
export const nameParam = { type: 'string', minLength: 1, maxLength: 255 } as const;

/** A positive int64 id in a path. */
export const idParam = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

export function paramsSchema(props: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties: props, required: Object.keys(props), additionalProperties: false };
}

export const ownerRepoParams = paramsSchema({ owner: nameParam, repo: nameParam });
export const usernameParams = paramsSchema({ username: nameParam });

/** `page` (1-based) and `limit`; out-of-range values are clamped by the kernel's pagination helper. */
export const pageProps = {
  page: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  limit: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
} as const;

/** A querystring schema with pagination plus the given properties. Unknown parameters are ignored. */
export function listQuery(extra: Record<string, JsonSchema> = {}): JsonSchema {
  return { type: 'object', properties: { ...pageProps, ...extra } };
}

/** The settings of a search route's paging (`plugins.<name>.search`): the defaults live here only. */
export const searchPagingSettings = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    defaultLimit: { type: 'integer', minimum: 1, default: 10 },
    maxLimit: { type: 'integer', minimum: 1, default: 50 },
  },
} as const;
