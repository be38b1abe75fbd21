// The only commands the SSH server runs: git's three transport services on one `owner/repo(.git)` path. Everything
// else is refused before any lookup, with a reason the client sees.

export type GitSshService = 'upload-pack' | 'receive-pack' | 'upload-archive';

export interface GitSshCommand {
  service: GitSshService;
  owner: string;
  repo: string;
}

const SERVICES: Record<string, GitSshService> = {
  'git-upload-pack': 'upload-pack',
  'git-receive-pack': 'receive-pack',
  'git-upload-archive': 'upload-archive',
};

/** An owner or repository name as forgekit allows them (no dots-only names, no path separators). */
const SEGMENT = /^[A-Za-z0-9_.-]{1,100}$/;

export class CommandError extends Error {
  override name = 'CommandError';
}

/**
 * Parses `git-upload-pack 'owner/repo.git'` — the path quoted or not, with or without a leading slash, `.git`
 * optional. Anything else (another program, extra arguments, shell syntax, `..`, more path segments) throws.
 */
export function parseGitCommand(command: string): GitSshCommand {
  if (command.length > 512) throw new CommandError('command too long');
  const match = /^(git-upload-pack|git-receive-pack|git-upload-archive) +(.+)$/.exec(command.trim());
  if (!match) throw new CommandError('only git-upload-pack, git-receive-pack and git-upload-archive are allowed');
  let path = match[2]!;
  const quoted = /^'([^']*)'$/.exec(path) ?? /^"([^"]*)"$/.exec(path);
  if (quoted) path = quoted[1]!;
  path = path.replace(/^\//, '');
  const parts = path.split('/');
  if (parts.length !== 2) throw new CommandError('the path must be owner/repo.git');
  const owner = parts[0]!;
  let repo = parts[1]!;
  if (repo.toLowerCase().endsWith('.git')) repo = repo.slice(0, -4);
  for (const name of [owner, repo]) {
    if (!SEGMENT.test(name) || name === '.' || name === '..') throw new CommandError('the path must be owner/repo.git');
  }
  return { service: SERVICES[match[1]!]!, owner, repo };
}

/** `GIT_PROTOCOL` is the one environment variable a client may set (protocol v2 negotiation). */
export function acceptedEnv(name: string, value: string): boolean {
  return name === 'GIT_PROTOCOL' && /^[A-Za-z0-9=:._,-]{1,256}$/.test(value);
}
