// Stored repository record → the API Repository object, for one caller's access mode.
import type { AccessMode, ApiRepository, ApiUser, RepoRecord } from '../../schemas/services.js';
import { permissionsOf } from './access.js';
import { settingsOf } from './settings.js';

export interface RepoUrls {
  /** Public root URL with a trailing slash. */
  root: string;
  ssh: { domain: string; port: number; user: string };
}

/** Resolves the ssh settings: the domain defaults to the root URL's host name. */
export function repoUrls(root: string, ssh: Partial<RepoUrls['ssh']> | undefined): RepoUrls {
  return {
    root,
    ssh: {
      domain: ssh?.domain || new URL(root).hostname.replace(/^\[(.*)\]$/, '$1'),
      port: ssh?.port ?? 22,
      user: ssh?.user || 'git',
    },
  };
}

export function sshUrl(urls: RepoUrls, fullName: string): string {
  const { user, domain, port } = urls.ssh;
  const host = domain.includes(':') ? `[${domain}]` : domain;
  return port === 22 ? `${user}@${host}:${fullName}.git` : `ssh://${user}@${host}:${port}/${fullName}.git`;
}

export function toApiRepo(
  repo: RepoRecord,
  owner: ApiUser,
  mode: AccessMode,
  urls: RepoUrls,
  parent: ApiRepository | null,
): ApiRepository {
  const fullName = `${owner.login}/${repo.name}`;
  const out: ApiRepository = {
    id: repo.id,
    owner,
    name: repo.name,
    full_name: fullName,
    description: repo.description ?? '',
    empty: repo.empty ?? true,
    private: repo.private,
    fork: repo.fork,
    parent,
    mirror: repo.mirror,
    size: repo.size ?? 0,
    html_url: urls.root + fullName,
    ssh_url: sshUrl(urls, fullName),
    clone_url: `${urls.root}${fullName}.git`,
    website: repo.website ?? '',
    stars_count: repo.numStars ?? 0,
    forks_count: repo.numForks ?? 0,
    watchers_count: repo.numWatches ?? 0,
    open_issues_count: typeof repo.numOpenIssues === 'number' ? repo.numOpenIssues : 0,
    default_branch: repo.defaultBranch || 'master',
    created_at: repo.createdAt,
    updated_at: repo.updatedAt,
    permissions: permissionsOf(mode),
    ...settingsOf(repo),
  };
  if (repo.mirror) {
    out.mirror_updated = repo.mirrorUpdated ?? null;
    out.mirror_error = repo.mirrorError ?? null;
  }
  return out;
}
