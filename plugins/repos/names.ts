// Repository name and field rules (decisions.md "Repositories"): one place for create, fork and migrate.

export const REPO_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;
export const DESCRIPTION_MAX = 255;
export const WEBSITE_MAX = 255;

/** null when acceptable, else why not (the caller reports it as a 422 on `name`). */
export function checkRepoName(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 100) return 'must be at most 100 characters';
  if (!REPO_NAME_PATTERN.test(name)) return 'may only contain letters, digits, "-", "_" and "."';
  if (name === '.' || name === '..') return `"${name}" is reserved`;
  const lower = name.toLowerCase();
  if (lower.endsWith('.git')) return 'must not end with ".git"';
  if (lower.endsWith('.wiki')) return 'must not end with ".wiki"';
  return null;
}

/**
 * A branch name git would accept as `refs/heads/<name>` (git check-ref-format, simplified to the rules that
 * matter for a default branch): no control characters, spaces or ~^:?*[\, no "..", "@{", "//", no leading or
 * trailing "/" or ".", no component starting with "." or ending with ".lock".
 */
export function checkBranchName(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 255) return 'must be at most 255 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'contains a character git does not allow in branch names';
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return 'is not a valid branch name';
  if (name === '@' || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return 'is not a valid branch name';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return 'is not a valid branch name';
  if (name.startsWith('-')) return 'must not start with "-"';
  return null;
}
