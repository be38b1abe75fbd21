// URL helpers for gfm rendering: which links are relative, and where relative links and images resolve.

/** A scheme (`http:`, `mailto:`, `javascript:` …) or a protocol-relative `//host`: not ours to rewrite. */
const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

export function isAbsoluteUrl(url: string): boolean {
  return ABSOLUTE.test(url.trim());
}

/** Only http(s) contexts are used as they are; anything else is a path under the root URL. */
const HTTP_URL = /^https?:\/\//i;

/**
 * The URL prefix of a render: `Context` joined to the root URL (`owner/repo` → `<root>owner/repo/`), or `Context`
 * itself when it is an absolute http(s) URL. Always ends with a slash, so relative links resolve beneath it.
 */
export function contextPrefix(rootUrl: string, context: string): string {
  const ctx = context.trim();
  let prefix: string;
  if (HTTP_URL.test(ctx)) {
    prefix = ctx;
  } else {
    // Leading slashes, `./` and backslashes would otherwise climb out of the root or turn protocol-relative.
    const path = ctx.replace(/\\/g, '/').replace(/^(?:\.?\/)+/, '');
    prefix = rootUrl + path;
  }
  try {
    const url = new URL(prefix);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return rootUrl;
    url.search = '';
    url.hash = '';
    let href = url.href;
    if (!href.endsWith('/')) href += '/';
    return href;
  } catch {
    return rootUrl;
  }
}

/**
 * Resolves a relative link under `base` (which ends with a slash). A leading `/` is taken as relative to the base
 * too, like the reference server's path join; fragment-only links stay as they are. Returns null when the result
 * is not a valid URL.
 */
export function resolveUnder(base: string, link: string): string | null {
  const trimmed = link.trim();
  if (trimmed === '' || trimmed.startsWith('#') || isAbsoluteUrl(trimmed)) return link;
  const rel = trimmed.replace(/\\/g, '/').replace(/^(?:\.?\/)+/, '');
  try {
    return new URL(rel, base).href;
  } catch {
    return null;
  }
}

/**
 * The base for images: the first `/src/` in the prefix's path becomes `/raw/`, so an image referenced from a tree
 * view (`owner/repo/src/branch/main`) is fetched as the file's raw bytes.
 */
export function rawPrefix(prefix: string): string {
  try {
    const url = new URL(prefix);
    url.pathname = url.pathname.replace('/src/', '/raw/');
    return url.href;
  } catch {
    return prefix;
  }
}
