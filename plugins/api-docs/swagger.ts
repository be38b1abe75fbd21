// Builds the Swagger 2.0 description of the served API from the compiled routes and the same JSON schemas Ajv and
// the serialisers use: what is served is what is described, and a disabled plugin's routes are simply absent.
import type { HttpMethod, JsonSchema, RouteDef } from '../../core/plugin.js';

/** One served route (the kernel's compiled route list): owning plugin, method, full find-my-way path, definition. */
export interface DescribedRoute {
  readonly plugin: string;
  readonly method: HttpMethod;
  /** The full route template as served, e.g. `/api/v1/repos/:owner/:repo`. */
  readonly path: string;
  readonly def: RouteDef;
}

export interface SwaggerOptions {
  routes: readonly DescribedRoute[];
  /** Every `$id`'d shared schema a route may `$ref` (resources plus the plugins' own). */
  schemas: readonly JsonSchema[];
  /** Where the API is mounted (`/api/v1`): Swagger's `basePath`; routes outside it go to `x-root-paths`. */
  apiPrefix: string;
  /** Swagger's `basePath`: the API's public path (the prefix under the root URL, e.g. `/forge/api/v1`); default apiPrefix. */
  basePath?: string;
  version: string;
  /** The docs page every error `url` points at. */
  docsUrl: string;
}

/** The security schemes, one per auth transport the kernel accepts (core/auth.ts). */
export const SECURITY_DEFINITIONS = {
  AuthorizationHeaderToken: {
    type: 'apiKey', in: 'header', name: 'Authorization',
    description: 'An access token in the Authorization header: `token <token>`.',
  },
  BearerToken: {
    type: 'apiKey', in: 'header', name: 'Authorization',
    description: 'An access token as a bearer token: `Bearer <token>` (the same header, the other prefix).',
  },
  Token: { type: 'apiKey', in: 'query', name: 'token', description: 'An access token in the `token` query parameter.' },
  AccessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'An access token in the `access_token` query parameter.' },
  BasicAuth: { type: 'basic', description: 'User name (or email) and password, or an access token as the password.' },
} as const;

const TOKEN_SCHEMES = ['AuthorizationHeaderToken', 'BearerToken', 'Token', 'AccessToken'] as const;
const ALL_SCHEMES = [...TOKEN_SCHEMES, 'BasicAuth'].map((name) => ({ [name]: [] as string[] }));

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Entity', 500: 'Internal Server Error',
};

/** The shared error responses (`#/responses/...`), each with the kernel's `{ message, url }` body. */
const ERROR_RESPONSES: Record<string, { status: number; description: string; empty?: boolean }> = {
  badRequest: { status: 400, description: 'The body is not well-formed JSON, or the request cannot apply here.' },
  unauthorized: { status: 401, description: 'No caller, or credentials that are not valid.' },
  forbidden: { status: 403, description: 'The caller may not do this.' },
  notFound: { status: 404, description: 'Not found, or not visible to the caller. Empty body.', empty: true },
  conflict: { status: 409, description: 'The resource already exists.' },
  payloadTooLarge: { status: 413, description: 'The body is larger than the limit.' },
  unsupportedMediaType: { status: 415, description: 'A JSON body was sent without a JSON Content-Type.' },
  validationError: { status: 422, description: 'The input breaks a rule; the message names the field.' },
};

/** Keywords of JSON Schema (draft 7 / 2019) that Swagger 2.0's schema object does not have. */
const DROPPED = new Set([
  '$id', '$schema', '$comment', '$defs', 'definitions', 'examples', 'if', 'then', 'else', 'not', 'patternProperties', 'propertyNames',
  'contains', 'dependencies', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'nullable',
  'const', 'anyOf', 'oneOf', 'exclusiveMinimum', 'exclusiveMaximum', 'type', 'required', 'items', 'properties', 'additionalProperties',
  'allOf', '$ref',
]);

/** `forgekit/User` → `User` (definition names are the last segment of the `$id`). */
export function definitionName(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** Converts one JSON schema to a Swagger 2.0 schema object, noting every `$ref`'d shared schema in `refs`. */
export function toSwaggerSchema(schema: JsonSchema | boolean | undefined, refs: Set<string>): JsonSchema {
  if (schema === undefined || schema === true) return {};
  if (schema === false) return { 'x-forbidden': true };
  if (typeof schema.$ref === 'string') {
    const id = schema.$ref.split('#')[0]!;
    refs.add(id);
    return { $ref: `#/definitions/${definitionName(id)}` };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) if (!DROPPED.has(key) && !key.startsWith('x-')) out[key] = value;

  // `type: ['string', 'null']` → `type: string` + `x-nullable` (Swagger 2.0 has one type per schema).
  let types: string[] = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.includes('null')) {
    out['x-nullable'] = true;
    types = types.filter((t) => t !== 'null');
  }
  if (schema.const !== undefined) out.enum = [schema.const];
  if (types.length === 1) out.type = types[0];
  else if (types.length > 1) out['x-types'] = types;

  // A choice between shapes has no Swagger 2.0 form: describe the first, keep the rest as an extension.
  const choice = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(choice) && choice.length > 0) {
    const first = toSwaggerSchema(choice[0], refs);
    if (Object.keys(out).length === 0 && first.$ref) return first;
    Object.assign(out, { ...first, ...out });
    if (choice.length > 1) out['x-one-of'] = choice.map((c: JsonSchema) => toSwaggerSchema(c, refs));
  }
  if (Array.isArray(schema.allOf)) out.allOf = schema.allOf.map((s: JsonSchema) => toSwaggerSchema(s, refs));

  // Draft 6+ numeric bounds → Swagger 2.0's boolean flags.
  if (typeof schema.exclusiveMinimum === 'number') Object.assign(out, { minimum: schema.exclusiveMinimum, exclusiveMinimum: true });
  else if (typeof schema.exclusiveMinimum === 'boolean') out.exclusiveMinimum = schema.exclusiveMinimum;
  if (typeof schema.exclusiveMaximum === 'number') Object.assign(out, { maximum: schema.exclusiveMaximum, exclusiveMaximum: true });
  else if (typeof schema.exclusiveMaximum === 'boolean') out.exclusiveMaximum = schema.exclusiveMaximum;

  if (schema.properties && typeof schema.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, toSwaggerSchema(v as JsonSchema, refs)]));
  }
  if (Array.isArray(schema.required) && schema.required.length > 0) out.required = [...new Set(schema.required)];
  if (schema.additionalProperties !== undefined) {
    out.additionalProperties = typeof schema.additionalProperties === 'boolean' ? schema.additionalProperties : toSwaggerSchema(schema.additionalProperties, refs);
  }
  if (schema.items !== undefined) {
    // A tuple (`items: [...]`) has no Swagger 2.0 form: any item.
    out.items = Array.isArray(schema.items) ? {} : toSwaggerSchema(schema.items, refs);
  } else if (out.type === 'array') {
    out.items = {};
  }
  return out;
}

const PARAM_KEYS = ['format', 'enum', 'default', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'description', 'multipleOf', 'minItems', 'maxItems', 'uniqueItems'];
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/** A path or query parameter: Swagger 2.0 wants a primitive (or an array of primitives) described inline. */
function toParameter(name: string, where: 'path' | 'query', schema: JsonSchema | undefined, required: boolean): JsonSchema {
  const s = toSwaggerSchema(schema ?? { type: 'string' }, new Set());
  const param: JsonSchema = { name, in: where, required: where === 'path' ? true : required };
  let type = s.type as string | undefined;
  if (type === 'array') {
    const items = s.items && PRIMITIVES.has(s.items.type) ? { type: s.items.type, ...pick(s.items, PARAM_KEYS) } : { type: 'string' };
    Object.assign(param, { type: 'array', items, collectionFormat: 'multi' });
  } else {
    if (!type || !PRIMITIVES.has(type)) type = Array.isArray(s['x-types']) && PRIMITIVES.has(s['x-types'][0]) ? s['x-types'][0] : 'string';
    param.type = type;
  }
  Object.assign(param, pick(s, PARAM_KEYS));
  if (where === 'path') delete param.default;
  return param;
}

function pick(source: JsonSchema, keys: string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

/** `/repos/:owner/:repo` → `/repos/{owner}/{repo}` plus the parameter names in order (regex constraints dropped). */
export function toSwaggerPath(path: string): { path: string; names: string[] } {
  const names: string[] = [];
  const converted = path
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => {
      names.push(name);
      return `{${name}}`;
    })
    .replace(/\*$/, () => {
      names.push('wildcard');
      return '{wildcard}';
    });
  return { path: converted, names };
}

function successResponses(route: DescribedRoute, refs: Set<string>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const declared = route.def.schema?.response ?? {};
  for (const [status, schema] of Object.entries(declared)) {
    const code = Number(status);
    const isError = code >= 400;
    out[status] = {
      description: STATUS_TEXT[code] ?? `HTTP ${status}`,
      ...(code === 204 ? {} : { schema: isError && isErrorShape(schema) ? { $ref: '#/definitions/Error' } : toSwaggerSchema(schema, refs) }),
    };
    if (isError && isErrorShape(schema)) refs.add('forgekit/Error');
  }
  if (!Object.keys(out).some((s) => Number(s) < 300)) {
    // No success schema declared: the route answers without a JSON body (a check, a toggle, a deletion) or with text.
    const def = route.def;
    const text = def.mount === 'root';
    out[text ? '200' : def.method === 'POST' && def.body === 'stream' ? '200' : '204'] = text
      ? { description: 'OK', schema: { type: 'string' } }
      : { description: 'No Content' };
  }
  return out;
}

function isErrorShape(schema: JsonSchema): boolean {
  return schema?.$ref === 'forgekit/Error' || schema?.$ref === 'forgekit/SearchError';
}

function errorResponses(route: DescribedRoute, pathParams: number): Record<string, JsonSchema> {
  const def = route.def;
  const out: Record<string, JsonSchema> = {};
  const add = (name: keyof typeof ERROR_RESPONSES) => {
    out[String(ERROR_RESPONSES[name]!.status)] = { $ref: `#/responses/${name}` };
  };
  if (def.body === 'json') ['badRequest', 'payloadTooLarge', 'unsupportedMediaType'].forEach((n) => add(n as never));
  if (def.body === 'text') add('payloadTooLarge');
  if (def.auth !== 'public') add('unauthorized');
  if (def.auth === 'admin' || def.method !== 'GET') add('forbidden');
  if (pathParams > 0 || def.auth !== 'public') add('notFound');
  if (def.body === 'json' || def.schema?.querystring || def.schema?.params) add('validationError');
  if (def.method === 'POST' && def.body === 'json') add('conflict');
  return out;
}

function security(def: RouteDef): JsonSchema[] | undefined {
  if (def.auth === 'public') return [];
  if (def.auth === 'basic') return [{ BasicAuth: [] }];
  return undefined; // the document-wide list: every transport
}

function operation(route: DescribedRoute, refs: Set<string>): JsonSchema {
  const def = route.def;
  const schema = def.schema ?? {};
  const { names } = toSwaggerPath(route.path);
  const parameters: JsonSchema[] = [];
  const paramProps: Record<string, JsonSchema> = schema.params?.properties ?? {};
  for (const name of names) parameters.push(toParameter(name, 'path', paramProps[name], true));
  const query = schema.querystring;
  if (query?.properties) {
    const required = new Set<string>(query.required ?? []);
    for (const [name, s] of Object.entries(query.properties)) parameters.push(toParameter(name, 'query', s as JsonSchema, required.has(name)));
  }
  const op: JsonSchema = {
    tags: [route.plugin],
    operationId: def.operationId ?? fallbackOperationId(route),
    summary: def.summary ?? `${def.method} ${route.path}`,
    parameters,
  };
  if (def.body === 'json') {
    op.consumes = ['application/json'];
    parameters.push({ name: 'body', in: 'body', required: !def.bodyOptional, schema: schema.body ? toSwaggerSchema(schema.body, refs) : { type: 'object' } });
  } else if (def.body === 'text') {
    op.consumes = ['text/plain'];
    parameters.push({ name: 'body', in: 'body', required: true, schema: { type: 'string' } });
  } else if (def.body === 'stream') {
    op.consumes = ['application/octet-stream'];
    parameters.push({ name: 'body', in: 'body', required: true, schema: { type: 'string', format: 'binary' } });
  }
  op.responses = { ...errorResponses(route, names.length), ...successResponses(route, refs) };
  const sec = security(def);
  if (sec) op.security = sec;
  return op;
}

/** A stable name for a route without one (a route of a third-party plugin): plugin + method + path words. */
function fallbackOperationId(route: DescribedRoute): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter((w) => w && !/^v\d+$/.test(w) && w !== 'api');
  const camel = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  return route.plugin.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase()) + camel(route.method.toLowerCase()) + words.map(camel).join('');
}

/** The Swagger 2.0 document. Root-mounted routes (git smart HTTP, `/{user}.keys`…) are listed in `x-root-paths`. */
export function buildSwagger(options: SwaggerOptions): JsonSchema {
  const prefix = options.apiPrefix.replace(/\/$/, '');
  const refs = new Set<string>();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const rootPaths: Record<string, Record<string, JsonSchema>> = {};
  const tags = new Set<string>();
  for (const route of options.routes) {
    const underApi = prefix !== '' && (route.path === prefix || route.path.startsWith(prefix + '/'));
    const relative = underApi ? route.path.slice(prefix.length) || '/' : route.path;
    const target = underApi ? paths : rootPaths;
    const { path } = toSwaggerPath(relative);
    (target[path] ??= {})[route.method.toLowerCase()] = operation(route, refs);
    tags.add(route.plugin);
  }

  // Definitions: every shared schema reached from a route, transitively.
  const byId = new Map(options.schemas.filter((s) => typeof s.$id === 'string').map((s) => [s.$id as string, s]));
  const definitions: Record<string, JsonSchema> = {};
  refs.add('forgekit/Error');
  const pending = [...refs];
  const done = new Set<string>();
  while (pending.length) {
    const id = pending.pop()!;
    if (done.has(id)) continue;
    done.add(id);
    const schema = byId.get(id);
    const found = new Set<string>();
    definitions[definitionName(id)] = schema ? toSwaggerSchema(schema, found) : { type: 'object', description: `unknown schema ${id}` };
    for (const next of found) if (!done.has(next)) pending.push(next);
  }
  if (!byId.has('forgekit/Error')) {
    definitions.Error = { type: 'object', properties: { message: { type: 'string' }, url: { type: 'string' } }, required: ['message', 'url'] };
  }

  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([name, r]) => [name, r.empty ? { description: r.description } : { description: r.description, schema: { $ref: '#/definitions/Error' } }]),
  );

  return {
    swagger: '2.0',
    info: {
      title: 'forgekit API',
      description: `forgekit serves the Gitea API dialect. Errors are JSON \`{ message, url }\`; \`url\` points at ${options.docsUrl}.`,
      version: options.version,
      license: { name: 'MIT', url: 'http://opensource.org/licenses/MIT' },
    },
    basePath: (options.basePath ?? prefix).replace(/(.)\/$/, '$1') || '/',
    schemes: ['http', 'https'],
    consumes: ['application/json', 'text/plain'],
    produces: ['application/json', 'text/html'],
    tags: [...tags].map((name) => ({ name, description: `Routes of the \`${name}\` plugin` })),
    securityDefinitions: SECURITY_DEFINITIONS,
    security: ALL_SCHEMES,
    paths: sortKeys(paths),
    definitions: sortKeys(definitions),
    responses,
    'x-root-paths': sortKeys(rootPaths),
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
