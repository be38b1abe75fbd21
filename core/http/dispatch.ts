// Stage 2: one request from arrival to handler — before-route hooks, route, auth, validate, body, gate, handler —
// then the reply (stage 3, reply.ts) or the error reply (stage 4, error-reply.ts), one log line and the observers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth.js';
import { ForgeError, fail } from '../errors.js';
import { missingScopes, type ScopeDemand } from '../scopes.js';
import type { Caller, Handler, PluginContext, RequestContext } from '../plugin.js';
import type { Router } from '../router.js';
import { discardBody, hasBody, isJsonMediaType, mediaType, readBody } from './body.js';
import type { CompiledRoute } from './compile.js';
import type { ErrorSender } from './error-reply.js';
import type { Gate } from './gate.js';
import { RESPONSE_HEADERS, setHeaders } from './headers.js';
import type { Hooks } from './hooks.js';
import { exemptFromRequestTimeout } from './lifecycle.js';
import type { ReplySender } from './reply.js';
import type { RequestLogLine } from './request-log.js';

/** A node:http listener, with Express's optional `next` for paths no route matches. */
export type Dispatch = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => Promise<void>;

/** Requests under way, for a graceful close: new replies say `Connection: close`, and close waits for the last. */
export class InFlight {
  count = 0;
  closing = false;
  private readonly idle: Array<() => void> = [];

  /** Resolves once no request is under way. */
  whenIdle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  finished(): void {
    this.count--;
    if (this.count === 0) while (this.idle.length) this.idle.shift()!();
  }
}

export interface DispatchDeps {
  router: Router<CompiledRoute>;
  auth: Authenticator;
  log: Logger;
  logRequest: RequestLogLine;
  hooks: Hooks;
  inFlight: InFlight;
  sendReply: ReplySender;
  sendError: ErrorSender;
  /** Mount prefix stripped from incoming paths (no trailing slash; '' for none). */
  prefix: string;
  apiPrefix: string;
}

/**
 * What a handler gets. A class, not an object literal: a literal with a getter (`log`) is created in V8's dictionary
 * mode, which made every `rc.params`, `rc.caller`… read a hash lookup (callgrind: about 3,000 instructions per
 * request spent building the dictionary alone).
 */
class HandlerContext implements RequestContext {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly id: string,
    readonly params: any,
    readonly query: any,
    readonly body: any,
    readonly caller: Caller | null,
    readonly app: PluginContext,
    readonly path: string,
    readonly rawQuery: string,
    private readonly logger: () => Logger,
  ) {}

  /** The request's child logger, made on first use. */
  get log(): Logger {
    return this.logger();
  }
}

export function createDispatch(deps: DispatchDeps): Dispatch {
  const { router, auth, log, logRequest, hooks, inFlight, sendReply, sendError, prefix, apiPrefix } = deps;
  let requestCounter = 0;
  const requestPrefix = Date.now().toString(36);

  return async function dispatch(req, res, next) {
    const started = performance.now();
    const id = `${requestPrefix}-${(++requestCounter).toString(36)}`;
    let childLog: Logger | undefined;
    const reqLog = () => (childLog ??= log.child({ reqId: id }));
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q === -1 ? url : url.slice(0, q);
    const rawQuery = q === -1 ? '' : url.slice(q + 1);
    if (prefix && (path === prefix || path.startsWith(prefix + '/'))) path = path.slice(prefix.length) || '/';
    const method = req.method ?? 'GET';
    let status = 500;
    let route: CompiledRoute | null = null;
    let gate: Gate | undefined;
    inFlight.count++;
    try {
      if (inFlight.closing) res.setHeader('Connection', 'close');
      // Stage 2a: before routing (CORS preflight); a hook that answered ends the request here.
      const beforeRoute = hooks.beforeRouteHook;
      if (beforeRoute !== null && beforeRoute(req, res, { id, path, method })) {
        status = res.statusCode;
        return;
      }
      // 2b: route.
      const match = router.find(method, path);
      if (!match) {
        if (next) {
          status = 0;
          next();
          return;
        }
        throw notRouted(router, method, path);
      }
      route = match.route;
      // 2c: auth, then params and query validated (coerced) by their schemas.
      const rawQueryObject = rawQuery ? (querystring.parse(rawQuery) as Record<string, unknown>) : {};
      let caller: Caller | null = null;
      if (route.def.auth !== 'public') {
        const known = auth.authenticate(req, rawQueryObject, route.def.auth);
        caller = known instanceof Promise ? await known : known;
      }
      if (caller !== null && caller.scopes !== undefined && route.scopes !== null) checkScopes(caller.scopes, route.scopes);
      const params = route.params ? route.params(match.params) : match.params;
      const query = route.query ? route.query(rawQueryObject) : rawQueryObject;
      // 2d: body bytes first; 2e: a gated route waits for its turn holding only those; then the body is parsed.
      const bodyKind = route.def.body ?? 'none';
      const raw = bodyKind === 'json' ? await readJsonBytes(req, route) : bodyKind === 'text' ? await readBody(req, route.bodyLimit, route.discardLimit) : null;
      if (route.gate) {
        gate = route.gate;
        const turn = gate.enter();
        if (turn) await turn;
      }
      let body: unknown;
      if (bodyKind === 'json') body = parseJsonBody(raw, route);
      else if (bodyKind === 'text') body = raw!.toString('utf8');
      else if (bodyKind === 'stream') {
        streamHead(res, id); // the handler writes the response itself
        exemptFromRequestTimeout(req, res);
      }
      // 'none': an unread body is drained by node:http itself once the response is finished (IncomingMessage._dump).
      // 2f: the handler; stage 3: its reply.
      const apiPath = route.def.mount === 'root' ? path : path.slice(apiPrefix.length) || '/';
      const rc = new HandlerContext(req, res, id, params, query, body, caller, route.app, apiPath, rawQuery, reqLog);
      // The auth stage guaranteed the caller the route's level promises its handler's type (CallerOf<auth>).
      const reply = await (route.def.handler as Handler)(rc);
      if (reply) {
        sendReply(res, id, route, reply);
        status = reply.status;
      } else {
        status = res.statusCode;
      }
    } catch (err) {
      // Stage 4: errors.
      status = sendError(res, id, err, reqLog);
    } finally {
      gate?.leave();
      if (status !== 0) {
        const ms = Math.round((performance.now() - started) * 100) / 100;
        // One line per request; the path never carries the query string, so tokens never reach the log.
        logRequest(id, method, path, status, ms);
        const observer = hooks.observer;
        if (observer !== null) observer({ method, route: route === null ? null : route.path, plugin: route === null ? null : route.plugin, status, ms });
      }
      inFlight.finished();
    }
  };
}

/** 405 with Allow when the path answers other methods, 404 otherwise. */
function notRouted(router: Router<CompiledRoute>, method: string, path: string): ForgeError {
  const allowed = router.allowed(path);
  if (allowed.length) return new ForgeError('METHOD_NOT_ALLOWED', `method ${method} is not allowed here`, { Allow: allowed.join(', ') });
  return new ForgeError('NOT_FOUND');
}

/** A token used outside its scopes: 403 naming what is missing, in Gitea's words (clients match on them). */
function checkScopes(granted: number, demand: ScopeDemand): void {
  const missing = missingScopes(granted, demand);
  if (missing !== null) throw fail.forbidden(`token does not have at least one of required scope(s): [${missing.join(' ')}]`);
}

/** A stream route writes its own head: the kernel's headers are set on the response before its handler runs. */
function streamHead(res: ServerResponse, id: string): void {
  res.setHeader('X-Request-Id', id);
  setHeaders(res, RESPONSE_HEADERS);
}

/** The bytes of a JSON body; null for a route whose body is optional and was not sent. */
async function readJsonBytes(req: IncomingMessage, route: CompiledRoute): Promise<Buffer | null> {
  const type = mediaType(req);
  if (!hasBody(req) && !type) {
    if (route.def.bodyOptional) return null;
    throw new ForgeError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type application/json is required');
  }
  // A route may take JSON sent as text/plain or with no type (clients generated from Gitea's swagger do that).
  if (!isJsonMediaType(type) && !(route.def.textPlainJson === true && (type === 'text/plain' || type === ''))) {
    await discardBody(req, route.discardLimit);
    throw new ForgeError('UNSUPPORTED_MEDIA_TYPE', type ? `unsupported Content-Type ${type}; use application/json` : 'Content-Type application/json is required');
  }
  return readBody(req, route.bodyLimit, route.discardLimit);
}

/** Parses (400) and validates (422) a JSON body; an empty body is `{}`. */
function parseJsonBody(raw: Buffer | null, route: CompiledRoute): unknown {
  let value: unknown = {};
  const text = raw === null ? '' : raw.toString('utf8');
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ForgeError('BAD_JSON', `malformed JSON body: ${(err as Error).message}`);
    }
  }
  return route.body ? route.body(value) : value;
}
