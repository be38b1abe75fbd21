// Pagination for every list: page/limit window with configured defaults, X-Total-Count and a Link header that
// keeps the other query parameters.
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
  const base = linkBase(rc);
  const params = new URLSearchParams(rc.rawQuery);
  params.delete('token');
  params.delete('access_token');
  const href = (page: number) => {
    params.set('page', String(page));
    params.set('limit', String(win.limit));
    return `<${base}?${params.toString()}>`;
  };
  const links: string[] = [];
  if (win.page < last) links.push(`${href(win.page + 1)}; rel="next"`, `${href(last)}; rel="last"`);
  if (win.page > 1) links.push(`${href(1)}; rel="first"`, `${href(Math.min(win.page - 1, last))}; rel="prev"`);
  if (links.length) headers.Link = links.join(', ');
  return headers;
}

function linkBase(rc: Pick<RequestContext, 'app' | 'path' | 'req'>): string {
  // rc.path is relative to the API prefix; urls.api ends with a slash.
  return rc.app.urls.api + rc.path.replace(/^\//, '');
}
