// The plugin contract: what a capability plugin declares and what the kernel hands it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CollectionSpec, Store } from './store/port.js';
import type { ForgeConfig } from './config.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route.
 * - public: credentials are not even looked at (version, markup).
 * - optional: a caller is resolved when credentials are sent; bad credentials are a 401.
 * - user: a signed-in caller (token or password) is required, 401 otherwise.
 * - basic: Basic auth with a real password is required (token management).
 * - admin: a signed-in site administrator; 401 without a caller, 403 for a non-admin.
 */
export type AuthLevel = 'public' | 'optional' | 'user' | 'basic' | 'admin';

export interface Caller {
  id: number;
  login: string;
  isAdmin: boolean;
  /**
   * How the caller proved who they are. Basic auth with a token as password counts as 'token'; 'ssh' is a key
   * accepted by the SSH server (never seen by HTTP routes).
   */
  via: 'token' | 'password' | 'ssh';
  /**
   * A token caller's scopes as a bitmap (core/scopes.ts); undefined for every other caller (a password or an SSH key
   * has its account's full access). Routes check it against their `scope` before the handler runs.
   */
  scopes?: number;
  /**
   * Gitea's restricted account (`restricted: true`, set by a site admin): it reads only what it is granted (its own
   * repositories, collaborations, its teams' repositories) and sees only public accounts and its own organizations.
   * Set where the caller is built, from the account already read; absent means not restricted.
   */
  restricted?: boolean;
}

// JSON Schema objects are plain data; Ajv and fast-json-stringify check them at boot.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonSchema = Record<string, any>;

export interface RouteSchemas {
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  /** Response schema per status code; JSON bodies are serialised from these. */
  response?: Record<number, JsonSchema>;
}

/**
 * How the request body is read before the handler runs.
 * - json: Content-Type must be JSON (415), parsed (400), validated against schemas.body (422). Keys are matched
 *   to the schema's property names case-insensitively, like the reference server's decoder.
 * - text: read as UTF-8 text whatever the Content-Type.
 * - none: no body expected (anything sent is drained and ignored).
 * - stream: left unread; the handler consumes `rc.req` itself (streaming uploads).
 */
export type BodyKind = 'json' | 'text' | 'none' | 'stream';

/**
 * UTF-8 JSON text in pieces, written in this order: a list joined from per-document text kept between requests.
 * The kernel copies the pieces into reused memory at write time (core/http/reply-arena.ts), so a reply made of
 * pieces allocates no buffer of its own; the pieces themselves are only read.
 */
export type JsonPieces = readonly Buffer[];

export interface Reply {
  status: number;
  /**
   * JSON value serialised with the route's response schema, or a string/Buffer for html/text, or for `json-text`
   * JSON text (string, UTF-8 bytes, or `JsonPieces`) the plugin already produced with serializers from
   * `PluginContext.serializer` for this route's response schema (pieces serialised once and reused: the kernel writes
   * the text as it is).
   */
  body?: unknown;
  type?: 'json' | 'json-text' | 'html' | 'text';
  headers?: Record<string, string | number | string[]>;
}

/**
 * The caller a route's auth level guarantees: none on public routes, maybe one on optional routes, always one on
 * user, basic and admin routes (the kernel answers 401/403 before the handler runs otherwise).
 */
export type CallerOf<A extends AuthLevel> = A extends 'public' ? null : A extends 'optional' ? Caller | null : Caller;

/**
 * What a handler gets, typed by the route's validated params `P`, query `Q`, body `B` and auth level `A` (on a
 * `user`/`basic`/`admin` route `rc.caller` is a `Caller`, never null). The types of `P`, `Q` and `B` are the ones the
 * route's schemas guarantee after validation and coercion; keep them beside the schemas.
 */
export interface RequestContext<P = any, Q = any, B = any, A extends AuthLevel = AuthLevel> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly id: string;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly caller: CallerOf<A>;
  readonly log: Logger;
  /** The owning plugin's context: store, settings, services. */
  readonly app: PluginContext;
  /** Path of this request under the API prefix or root (no query string), e.g. `/repos/search`. */
  readonly path: string;
  /** The raw query string (without `?`), for Link headers that keep the query. */
  readonly rawQuery: string;
}

/** The request context of a route that requires a signed-in caller (`user`, `basic` or `admin`). */
export type SignedInContext<P = any, Q = any, B = any> = RequestContext<P, Q, B, 'user' | 'basic' | 'admin'>;

/** A handler returns a Reply, or undefined when it wrote the response itself (stream routes). */
export type Handler<P = any, Q = any, B = any, A extends AuthLevel = AuthLevel> = (rc: RequestContext<P, Q, B, A>) => Promise<Reply | void>;

/** Gitea's token scope categories; a route's access is `read:<category>` for GET, `write:<category>` otherwise. */
export type ScopeCategory =
  | 'activitypub' | 'admin' | 'issue' | 'misc' | 'notification' | 'organization' | 'package' | 'repository' | 'user';

/**
 * One route. `A` is its auth level, `P`/`Q`/`B` the types its params, querystring and body schemas guarantee: the
 * handler's `rc` is typed by them, and a handler that needs a signed-in caller does not fit a public or optional
 * route (a compile error). A plugin's `routes` list is a list of `AnyRoute`, so each literal is checked against its
 * own `auth`; `defineRoute` types an inline handler's params, query and body.
 */
export interface RouteDef<A extends AuthLevel = AuthLevel, P = any, Q = any, B = any> {
  method: HttpMethod;
  /** find-my-way path, e.g. `/repos/:owner/:repo`. */
  path: string;
  auth: A;
  /**
   * Gitea's operationId for this operation (e.g. `repoGetContents`), so generated clients keep their method names;
   * the API description uses it. Routes Gitea does not have get a forgekit name in the same style.
   */
  operationId?: string;
  /** One line for the API description. */
  summary?: string;
  /**
   * The token scope category (or categories, all required) guarding this route, as Gitea's router groups have them
   * (`tokenRequiresScopes`): a token caller needs `read:<category>` for GET and `write:<category>` for other methods,
   * else 403 naming the missing scope. `misc` demands nothing (Gitea's miscellaneous routes need no scope). Every
   * route declares one (test/core/route-scopes.test.ts); password and SSH callers are not limited by scopes.
   */
  scope?: ScopeCategory | readonly ScopeCategory[];
  /** Overrides the level the method implies (git's POST git-upload-pack is a read). */
  scopeLevel?: 'read' | 'write';
  /** `api` (default) mounts under the API prefix (`/api/v1`); `root` mounts at the site root. */
  mount?: 'api' | 'root';
  body?: BodyKind;
  /** For json bodies: accept a request with no body at all (treated as `{}`). */
  bodyOptional?: boolean;
  /**
   * For json bodies: also accept `text/plain` (and a missing Content-Type) and parse the body as JSON. Gitea's swagger
   * names no media type for a few operations, so generated clients (gitea-js: orgUpdateAvatar, userUpdateAvatar,
   * issueCreate/RemoveIssueBlocking, issueCreate/RemoveIssueDependencies, repoCreate/DeletePullReviewRequests,
   * userCreate/UpdateOAuth2Application) send their JSON as text/plain; Gitea decodes it anyway. Off by default: 415.
   */
  textPlainJson?: boolean;
  /**
   * Overrides the configured body size limit for this route (bytes), or derives it at boot from the config and the
   * owning plugin's settings (defaults applied, as `ctx.settings`).
   */
  bodyLimit?: number | ((config: ForgeConfig, settings: Readonly<Record<string, any>>) => number);
  /**
   * At most this many requests of this route are handled at once (0: no limit). Later ones wait in arrival order
   * after their body has been read as bytes and before it is parsed: meant for routes whose work runs on a small
   * pool (the markup workers), so a queue of requests holds raw bytes rather than parsed strings.
   */
  concurrency?: number | ((config: ForgeConfig, settings: Readonly<Record<string, any>>) => number);
  schema?: RouteSchemas;
  handler: Handler<P, Q, B, A>;
}

/** A route of any auth level: each member's handler is checked against that member's own level. */
export type AnyRoute = { [A in AuthLevel]: RouteDef<A> }[AuthLevel];

/**
 * Typing helper for a route with an inline handler: `defineRoute<'user', { id: number }>({ … handler: async (rc) =>
 * … rc.params.id … rc.caller.login })`. Returns its argument unchanged.
 */
export function defineRoute<A extends AuthLevel, P = any, Q = any, B = any>(route: RouteDef<A, P, Q, B>): RouteDef<A, P, Q, B> {
  return route;
}

/**
 * The typed service map: each plugin that exposes a service augments it by declaration merging, in its own files
 * (or in `schemas/services.ts` for the shared vocabulary):
 *
 *     declare module '../../core/plugin.js' { interface ForgeServices { contents: ContentsService } }
 *
 * `services.get('contents')` is then typed, and a wrong name or shape is a compile error.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ForgeServices {}

/**
 * The typed event map: event name → payload. The emitting plugin declares its events the same way
 * (`declare module … { interface ForgeEvents { 'issue.created': IssueEvent } }`); `emit` and `on` check payloads.
 * Emitters await `emit` before they reply, so a subscriber that records something durable (a webhook delivery)
 * has done so before the client sees the change acknowledged.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ForgeEvents {}

export interface ServiceRegistry {
  /**
   * The service a dependency (or this plugin itself) exposed from `start`, typed by `ForgeServices`. Throws for a
   * plugin that is not a declared dependency. There is no untyped form: a plugin exposing a service declares it in
   * the map (declaration merging: `declare module '…/core/plugin.js' { interface ForgeServices { name: Service } }`,
   * in `schemas/contracts/<plugin>.ts` when other plugins use it, beside the class otherwise), so a wrong name or
   * shape is a compile error. A plugin's own handlers may narrow the contract to their implementation class (`as`).
   */
  get<K extends keyof ForgeServices>(pluginName: K): ForgeServices[K];
  /** Whether an optional dependency is enabled and exposes a service. */
  has(pluginName: string): boolean;
}

export type EventHandler<P = any> = (payload: P) => Promise<void> | void;

/** Plugin-to-plugin notifications (e.g. "account.deleted"); emit awaits every handler in registration order. */
export interface EventBus {
  on<K extends keyof ForgeEvents>(event: K, handler: EventHandler<ForgeEvents[K]>): void;
  emit<K extends keyof ForgeEvents>(event: K, payload: ForgeEvents[K]): Promise<void>;
  /** Whether anything listens to the event (skip building a costly payload nobody reads). */
  has(event: keyof ForgeEvents): boolean;
}

export interface CredentialVerifiers {
  /**
   * Checks a login (user name or email) and password; resolves the caller or null. `client.address` is the peer's
   * address (throttling); the verifier may throw a ForgeError (429 when sign-ins from there are locked).
   */
  password?: (login: string, password: string, client: { address: string }) => Promise<Caller | null>;
  /**
   * Checks an access token value: the caller or null, or a promise of it. A verifier that knows the answer at once (a
   * token it has just checked) returns it as it is, so the request awaits nothing for it.
   */
  token?: (token: string) => Caller | null | Promise<Caller | null>;
}

export interface AuthRegistry {
  /** The identity plugins register how passwords and tokens are checked; the kernel owns the transports. */
  provide(verifiers: CredentialVerifiers): void;
}

export interface Urls {
  /** Public root URL with a trailing slash, e.g. `http://127.0.0.1:3000/`. */
  readonly root: string;
  /** Public API base with a trailing slash, e.g. `http://127.0.0.1:3000/api/v1/`. */
  readonly api: string;
  /** The URL error bodies point at (the served API description). */
  readonly docs: string;
}

/** One compiled route as the kernel serves it: the API description and the metrics are built from these. */
export interface RouteInfo {
  /** The plugin that declared the route. */
  readonly plugin: string;
  readonly method: HttpMethod;
  /** The full route template as served, e.g. `/api/v1/repos/:owner/:repo` (never a raw URL). */
  readonly path: string;
  readonly def: AnyRoute;
  /** Set when the route declares a `concurrency` limit: places taken and requests waiting right now (metrics, tests). */
  readonly gate?: { readonly limit: number; readonly active: number; readonly waiting: number };
}

/** What a before-route hook sees besides `req`/`res`. */
export interface BeforeRouteInfo {
  /** The request id (also the `X-Request-Id` header of a kernel-written reply). */
  readonly id: string;
  /** The request path: mount prefix removed, no query string. */
  readonly path: string;
  readonly method: string;
}

/**
 * Runs for every request before the router (e.g. a CORS preflight `OPTIONS`). Return true when the hook answered
 * the request itself (it wrote and ended `res`): routing, auth and the handler are skipped, and the request is
 * logged and observed with `res.statusCode`. Return false to continue; a hook may still `res.setHeader(...)` headers
 * that every reply of this request then carries. Synchronous on purpose: it runs on every request.
 */
export type BeforeRouteHook = (req: IncomingMessage, res: ServerResponse, info: BeforeRouteInfo) => boolean;

/** What the kernel reports once per finished request (not for requests handed to an embedder's `next`). */
export interface FinishedRequest {
  readonly method: string;
  /** The matched route's template (`RouteInfo.path`), or null when no route matched (404, 405, a before-route hook). */
  readonly route: string | null;
  /** The plugin owning the matched route, or null. */
  readonly plugin: string | null;
  readonly status: number;
  /** Milliseconds from the request's arrival to its reply being handed to node:http. */
  readonly ms: number;
}

/** Called once per finished request (metrics). Synchronous and cheap: it runs on every request; it must not throw. */
export type RequestObserver = (request: FinishedRequest) => void;

/**
 * The kernel's extension points for plugins (see "Kernel stages" in the README). Hooks are registered from a plugin's
 * `start` (before the server answers anything); several registrations of one kind run in registration order.
 */
export interface KernelHooks {
  /** Every compiled route, in declaration order (plugins in start order). Read-only. */
  routes(): readonly RouteInfo[];
  /**
   * Every shared `$id`'d schema the routes may `$ref` (the embedder's, then the enabled plugins' in start order), as
   * registered with the validator. Read-only.
   */
  schemas(): readonly JsonSchema[];
  /** Adds a stage before routing (CORS preflight). */
  beforeRoute(hook: BeforeRouteHook): void;
  /** Adds an observer of finished requests (metrics per route template). */
  onRequestFinished(observer: RequestObserver): void;
  /**
   * Work started at boot that goes on after the server listens (requests are answered meanwhile), named for the
   * operator (`issues: q trigram index`). The kernel tracks it: `Forge.settled()` resolves once all of it has ended,
   * and a failure is logged. The plugin still owns it (stops it in `stop`).
   */
  background(name: string, work: Promise<unknown>): void;
}

export interface PluginContext<T = Record<string, any>> {
  readonly name: string;
  readonly config: ForgeConfig;
  /**
   * This plugin's own settings: `config.plugins[name]` validated against the plugin's `settings` schema with its
   * defaults applied (Ajv `useDefaults`), frozen; `{}` when the plugin declares none and none are configured.
   */
  readonly settings: Readonly<T>;
  readonly store: Store;
  readonly log: Logger;
  readonly services: ServiceRegistry;
  readonly events: EventBus;
  readonly auth: AuthRegistry;
  readonly urls: Urls;
  /** The kernel's extension points: the compiled route list, a before-route stage, a finished-request observer. */
  readonly kernel: KernelHooks;
  /**
   * A serializer compiled from a schema (which may `$ref` the shared resource schemas), for plugins that serialise
   * pieces of a response themselves and answer with `type: 'json-text'`. Compile at start, not per request.
   */
  serializer(schema: JsonSchema): (value: unknown) => string;
}

export interface Plugin<S = unknown, T = any> {
  name: string;
  /**
   * The JSON schema of this plugin's settings (`config.plugins[name]`), defaults included (`default` keywords). The
   * kernel validates the configured slice with it at boot (a bad value stops the boot naming
   * `plugins.<name>.<key>`) and hands the result, defaults filled in, to `ctx.settings`. Declare every key here:
   * the defaults live in this one place.
   */
  settings?: JsonSchema;
  /** Plugins that must be enabled and started first; their services become reachable. */
  dependencies?: string[];
  /** Plugins used when enabled (their services/events), never required. */
  optionalDependencies?: string[];
  /** Collections this plugin owns, with their indexes. */
  collections?: CollectionSpec[];
  /** Shared JSON schemas (each with an `$id`) this plugin contributes for `$ref`s. */
  schemas?: JsonSchema[];
  routes?: AnyRoute[];
  /** Runs after the store is open and dependencies have started; returns this plugin's service. */
  start?(ctx: PluginContext<T>): Promise<S> | S;
  /** Runs at shutdown, in reverse start order. */
  stop?(ctx: PluginContext<T>): Promise<void> | void;
}

/** Typing helper only: returns its argument unchanged. */
export function definePlugin<S, T = any>(plugin: Plugin<S, T>): Plugin<S, T> {
  return plugin;
}
