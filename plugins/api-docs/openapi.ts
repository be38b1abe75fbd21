// OpenAPI 3.1 beside the Swagger 2.0 description: the same generated document, restated (components instead of
// definitions, request bodies instead of body parameters, media types on every response). Built once at start.
import type { JsonSchema } from '../../core/plugin.js';

const PARAM_SCHEMA_KEYS = ['type', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'enum', 'items', 'pattern', 'default'];

/** Rewrites Swagger 2.0 `$ref`s to their OpenAPI 3.1 places, deeply. */
function moveRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(moveRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof v === 'string'
      ? v.replace(/^#\/definitions\//, '#/components/schemas/').replace(/^#\/responses\//, '#/components/responses/')
      : moveRefs(v);
  }
  return out;
}

function response(r: JsonSchema): JsonSchema {
  if (r.$ref) return r;
  const out: JsonSchema = { description: r.description ?? '' };
  if (r.schema) out.content = { [r.schema.type === 'string' ? 'text/plain' : 'application/json']: { schema: r.schema } };
  if (r.headers) out.headers = Object.fromEntries(Object.entries<JsonSchema>(r.headers).map(([name, h]) => [name, { description: h.description, schema: { type: h.type } }]));
  return out;
}

function operation(op: JsonSchema): JsonSchema {
  const { parameters = [], responses = {}, consumes, produces: _produces, ...rest } = op;
  const out: JsonSchema = { ...rest };
  const params = (parameters as JsonSchema[]).filter((p) => p.in !== 'body').map((p) => ({
    name: p.name, in: p.in, required: p.in === 'path' ? true : p.required === true,
    ...(p.description ? { description: p.description } : {}),
    schema: Object.fromEntries(PARAM_SCHEMA_KEYS.filter((k) => p[k] !== undefined).map((k) => [k, p[k]])),
  }));
  if (params.length) out.parameters = params;
  const body = (parameters as JsonSchema[]).find((p) => p.in === 'body');
  if (body) out.requestBody = { required: body.required === true, content: { [consumes?.[0] ?? 'application/json']: { schema: body.schema ?? {} } } };
  out.responses = Object.fromEntries(Object.entries<JsonSchema>(responses).map(([status, r]) => [status, response(r)]));
  return out;
}

function paths(items: Record<string, JsonSchema> | undefined): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(items ?? {}).map(([p, item]) => [p, Object.fromEntries(Object.entries<JsonSchema>(item).map(([m, op]) => [m, operation(op)]))]));
}

function securityScheme(s: JsonSchema): JsonSchema {
  if (s.type === 'basic') return { type: 'http', scheme: 'basic', ...(s.description ? { description: s.description } : {}) };
  return s;
}

/** The OpenAPI 3.1 form of a generated Swagger 2.0 document. */
export function toOpenApi31(swagger: JsonSchema): JsonSchema {
  return moveRefs({
    openapi: '3.1.0',
    info: swagger.info,
    servers: [{ url: swagger.basePath ?? '/' }],
    tags: swagger.tags,
    security: swagger.security,
    paths: paths(swagger.paths),
    // Routes mounted at the site root (outside `servers[0].url`), as in the Swagger document.
    'x-root-paths': paths(swagger['x-root-paths']),
    components: {
      schemas: swagger.definitions ?? {},
      responses: Object.fromEntries(Object.entries<JsonSchema>(swagger.responses ?? {}).map(([name, r]) => [name, response(r)])),
      securitySchemes: Object.fromEntries(Object.entries<JsonSchema>(swagger.securityDefinitions ?? {}).map(([name, s]) => [name, securityScheme(s)])),
    },
  }) as JsonSchema;
}
