// Account name rules: the charset and length users and organizations share, and the names the URL space reserves.

export const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
export const NAME_MAX = 40;

/** Names that collide with routes or well-known paths (Gitea's reserved user names, plus our own). */
const RESERVED = new Set([
  '.', '..', '-', '_', 'admin', 'api', 'assets', 'attachments', 'avatar', 'avatars', 'captcha', 'commits', 'css',
  'debug', 'error', 'explore', 'favicon.ico', 'ghost', 'help', 'img', 'install', 'issues', 'js', 'less', 'login',
  'manifest.json', 'metrics', 'milestones', 'new', 'notifications', 'org', 'orgs', 'plugins', 'pulls', 'raw', 'repo',
  'repos', 'robots.txt', 'search', 'serviceworker.js', 'stars', 'static', 'swagger', 'swagger.v1.json', 'template',
  'user', 'users', 'v1', 'v2',
]);

/** Suffixes that would shadow site-root routes (`/{name}.keys`, `/{name}.gpg`) or look like repositories. */
const RESERVED_SUFFIXES = ['.keys', '.gpg', '.git', '.wiki', '.atom', '.rss'];

/** null when acceptable, else why not. */
export function checkAccountName(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > NAME_MAX) return `must be at most ${NAME_MAX} characters`;
  if (!NAME_PATTERN.test(name)) return 'may only contain letters, digits, "-", "_" and "."';
  const lower = name.toLowerCase();
  if (RESERVED.has(lower)) return `"${name}" is reserved`;
  if (/^[.-]/.test(name)) return 'must not start with "." or "-"';
  const suffix = RESERVED_SUFFIXES.find((s) => lower.endsWith(s));
  if (suffix) return `must not end with "${suffix}"`;
  return null;
}
