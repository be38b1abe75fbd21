// Pagination for every list: page/limit window with configured defaults, X-Total-Count and a Link header that
// keeps the other query parameters.
import { dropOldestTenth } from './bounded-map.js';
import type { RequestContext } from './plugin.js';

export interface PageWindow {
  page: number;
  limit: number;
  skip: number;
}

export interface PageDefaults {
  defaultLimit: number;
  maxLimit: number;
}

/** page < 1 → 1; limit < 1 → default; limit > max → max (never an error, like the reference server). */
export function pageWindow(query: { page?: number; limit?: number }, defaults: PageDefaults): PageWindow {
  const page = query.page !== undefined && query.page >= 1 ? Math.floor(query.page) : 1;
  let limit = query.limit !== undefined && query.limit >= 1 ? Math.floor(query.limit) : defaults.defaultLimit;
  if (limit > defaults.maxLimit) limit = defaults.maxLimit;
  return { page, limit, skip: (page - 1) * limit };
}

/** `X-Total-Count` and `Link` (first/prev/next/last) for a page of a list of `total` items. */
export function pageHeaders(rc: Pick<RequestContext, 'app' | 'path' | 'rawQuery' | 'req'>, total: number, win: Pick<PageWindow, 'page' | 'limit'>): Record<string, string> {
  const headers: Record<string, string> = { 'X-Total-Count': String(total) };
  const last = Math.max(1, Math.ceil(total / win.limit));
  if (win.page >= last && win.page <= 1) return headers;
  const template = linkTemplate(rc, win.limit);
  // The same page of a list of the same length as last time (a client polling it): the same Link text.
  if (template.page !== win.page || template.last !== last) {
    const { head, tail } = template;
    const href = (page: number) => `${head}page=${page}${tail}`;
    const links: string[] = [];
    if (win.page < last) links.push(`${href(win.page + 1)}; rel="next"`, `${href(last)}; rel="last"`);
    if (win.page > 1) links.push(`${href(1)}; rel="first"`, `${href(Math.min(win.page - 1, last))}; rel="prev"`);
    template.link = links.join(', ');
    template.page = win.page;
    template.last = last;
  }
  if (template.link !== '') headers.Link = template.link;
  return headers;
}

/**
 * A list URL's Link text around its page number (`<base?…` before `page=N`, `…>` after it), and the whole Link value
 * last made from it, for `page` of `last` pages.
 */
interface LinkTemplate {
  /** What it was made for: a request URL names its path, but not the server's base URL or the default limit. */
  readonly api: string;
  readonly path: string;
  readonly limit: number;
  readonly head: string;
  readonly tail: string;
  page: number;
  last: number;
  link: string;
}

/**
 * Templates by request URL, for the lists clients page through again and again (a poller, a UI). Keyed by the URL as
 * it came (one flat string: no key is built per request), each checked against the base, path and limit it was made
 * for. Bounded; the oldest tenth goes when full. A query that may carry credentials (`token`, or anything
 * percent-encoded) is never kept, so no secret stays in this map.
 */
const templates = new Map<string, LinkTemplate>();
const MAX_TEMPLATES = 2048;

function linkTemplate(rc: Pick<RequestContext, 'app' | 'path' | 'rawQuery' | 'req'>, limit: number): LinkTemplate {
  const raw = rc.rawQuery;
  const api = rc.app.urls.api;
  const url = rc.req.url;
  const key = raw.includes('token') || raw.includes('%') ? null : typeof url === 'string' ? url : `${rc.path}?${raw}`;
  if (key !== null) {
    const hit = templates.get(key);
    if (hit !== undefined && hit.limit === limit && hit.api === api && hit.path === rc.path) return hit;
  }
  // Every link is the same query but for its page: the text before `page=` and after its number, made once.
  let head = `<${linkBase(rc)}?`;
  let tail = '';
  let pageSeen = false;
  const limitPair = `limit=${limit}`;
  for (const part of linkQuery(raw)) {
    if (part === PAGE) {
      pageSeen = true;
      continue;
    }
    const piece = part === LIMIT ? limitPair : part;
    if (pageSeen) tail += `&${piece}`;
    else head += `${piece}&`;
  }
  const made: LinkTemplate = { api, path: rc.path, limit, head, tail: `${tail}>`, page: 0, last: 0, link: '' };
  if (key !== null) {
    if (templates.size >= MAX_TEMPLATES) dropOldestTenth(templates, MAX_TEMPLATES);
    templates.set(key, made);
  }
  return made;
}

const PAGE = Symbol('page');
const LIMIT = Symbol('limit');
/** Characters a query pair may keep as it came (nothing that could end the `<…>` of a Link or need quoting). */
const SAFE_PAIR = /^[A-Za-z0-9\-._~%+=!*'(),;:@/?]*$/;

function decodeKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * The request's query for Link URLs: credentials (`token`, `access_token`) dropped wherever and however encoded,
 * the first `page` and `limit` marked to be replaced (later repeats dropped; missing ones appended in that order),
 * every other pair kept in place: as sent when it is plain, re-encoded otherwise.
 */
function linkQuery(rawQuery: string): Array<string | typeof PAGE | typeof LIMIT> {
  const out: Array<string | typeof PAGE | typeof LIMIT> = [];
  let page = false;
  let limit = false;
  if (rawQuery) {
    for (const pair of rawQuery.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const rawKey = eq < 0 ? pair : pair.slice(0, eq);
      const key = rawKey.includes('%') || rawKey.includes('+') ? decodeKey(rawKey) : rawKey;
      if (key === 'token' || key === 'access_token') continue;
      if (key === 'page') {
        if (!page) out.push(PAGE);
        page = true;
      } else if (key === 'limit') {
        if (!limit) out.push(LIMIT);
        limit = true;
      } else if (SAFE_PAIR.test(pair)) {
        out.push(pair);
      } else {
        out.push(new URLSearchParams([[key, decodeKey(eq < 0 ? '' : pair.slice(eq + 1))]]).toString());
      }
    }
  }
  if (!page) out.push(PAGE);
  if (!limit) out.push(LIMIT);
  return out;
}

function linkBase(rc: Pick<RequestContext, 'app' | 'path' | 'req'>): string {
  // rc.path is relative to the API prefix; urls.api ends with a slash.
  return rc.app.urls.api + rc.path.replace(/^\//, '');
}
