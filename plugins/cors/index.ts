// The `cors` plugin: Cross-Origin Resource Sharing for the API (browser clients such as gitea-js in a web page), as
// Gitea's `[cors]` section (go-chi/cors): off until the operator lists allowed origins; preflight `OPTIONS` requests
// are answered here (204) before routing, and the API's replies to an allowed origin carry its headers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { definePlugin, type BeforeRouteInfo } from '../../core/plugin.js';

export interface CorsSettings {
  /** Origins allowed (`https://app.example.com`, one `*` wildcard as in `https://*.example.com`, or `*` for any); empty: CORS off. */
  allowedOrigins: string[];
  allowedMethods: string[];
  /** Request headers a browser may send besides `Authorization` and `X-Gitea-OTP` (always allowed, as Gitea). */
  allowedHeaders: string[];
  /** Response headers a browser script may read (paging needs `Link` and `X-Total-Count`). */
  exposedHeaders: string[];
  allowCredentials: boolean;
  /** How long a browser may cache a preflight answer. */
  maxAgeSeconds: number;
}

const stringList = (defaults: string[], description: string) => ({
  type: 'array', items: { type: 'string', minLength: 1, maxLength: 255 }, maxItems: 100, default: defaults, description,
});

/** Tests an Origin header against the configured list: exact (case-insensitive), `*`, or one `*` wildcard. */
export function originMatcher(allowed: readonly string[]): (origin: string) => boolean {
  if (allowed.includes('*')) return () => true;
  const exact = new Set<string>();
  const wild: Array<[string, string]> = [];
  for (const entry of allowed) {
    const lower = entry.toLowerCase();
    const star = lower.indexOf('*');
    if (star === -1) exact.add(lower);
    else wild.push([lower.slice(0, star), lower.slice(star + 1)]);
  }
  return (origin) => {
    const o = origin.toLowerCase();
    if (exact.has(o)) return true;
    return wild.some(([pre, post]) => o.length >= pre.length + post.length && o.startsWith(pre) && o.endsWith(post));
  };
}

/** The before-route stage for these settings, or null when CORS is off. */
export function corsHook(s: Readonly<CorsSettings>, apiPrefix: string): ((req: IncomingMessage, res: ServerResponse, info: BeforeRouteInfo) => boolean) | null {
  if (s.allowedOrigins.length === 0) return null;
  const originAllowed = originMatcher(s.allowedOrigins);
  const anyOrigin = s.allowedOrigins.includes('*');
  const methods = new Set(s.allowedMethods.map((m) => m.toUpperCase()));
  const headers = new Set(['authorization', 'x-gitea-otp', ...s.allowedHeaders.map((h) => h.toLowerCase())]);
  const anyHeader = headers.has('*');
  const exposed = s.exposedHeaders.join(', ');
  const underApi = (path: string) => path === apiPrefix || path.startsWith(apiPrefix + '/');

  /** Allow-Origin: `*` for any origin without credentials (a browser refuses `*` with them), else the origin itself. */
  const allowOrigin = (res: ServerResponse, origin: string) => {
    res.setHeader('Access-Control-Allow-Origin', anyOrigin && !s.allowCredentials ? '*' : origin);
    if (s.allowCredentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
  };

  return (req, res, info) => {
    if (!underApi(info.path)) return false;
    const origin = req.headers.origin;
    const requested = req.headers['access-control-request-method'];
    if (info.method === 'OPTIONS' && typeof requested === 'string') {
      // A preflight: answered here whatever the verdict; without the headers the browser refuses the request.
      res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      const wanted = String(req.headers['access-control-request-headers'] ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
      if (typeof origin === 'string' && originAllowed(origin) && methods.has(requested.toUpperCase()) && (anyHeader || wanted.every((h) => headers.has(h)))) {
        allowOrigin(res, origin);
        res.setHeader('Access-Control-Allow-Methods', requested.toUpperCase());
        if (wanted.length) res.setHeader('Access-Control-Allow-Headers', wanted.join(', '));
        if (s.maxAgeSeconds > 0) res.setHeader('Access-Control-Max-Age', String(s.maxAgeSeconds));
      }
      res.statusCode = 204;
      res.end();
      return true;
    }
    res.setHeader('Vary', 'Origin');
    if (typeof origin === 'string' && originAllowed(origin)) {
      allowOrigin(res, origin);
      if (exposed) res.setHeader('Access-Control-Expose-Headers', exposed);
    }
    return false;
  };
}

export default definePlugin<void, CorsSettings>({
  name: 'cors',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      allowedOrigins: stringList([], 'origins allowed to call the API from a browser; empty: CORS off (Gitea [cors] ENABLED=false)'),
      allowedMethods: stringList(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], 'methods a preflight may ask for'),
      allowedHeaders: stringList(['Content-Type', 'User-Agent'], 'request headers besides Authorization and X-Gitea-OTP'),
      exposedHeaders: stringList(['Link', 'X-Total-Count'], 'response headers scripts may read'),
      allowCredentials: { type: 'boolean', default: false },
      maxAgeSeconds: { type: 'integer', minimum: 0, maximum: 86400, default: 600 },
    },
  },
  start(ctx) {
    const hook = corsHook(ctx.settings, ctx.config.apiPrefix);
    if (hook) ctx.kernel.beforeRoute(hook);
  },
});
