// Stored repository record → the API Repository object, for one caller's access mode.
import type { AccessMode, ApiRepository, ApiUser, RepoRecord } from '../../schemas/services.js';
import { permissionsOf } from './access.js';
import { settingsOf } from './settings.js';

export interface RepoUrls {
  /** Public root URL with a trailing slash. */
  root: string;
  /** Public API base with a trailing slash (`<root>api/v1/`). */
  api: string;
  ssh: { domain: string; port: number; user: string };
}

/** Resolves the ssh settings (`plugins.repos.ssh`): an empty domain is the root URL's host name. */
export function repoUrls(root: string, ssh: RepoUrls['ssh'], api = `${root}api/v1/`): RepoUrls {
  return { root, api, ssh: { ...ssh, domain: ssh.domain || new URL(root).hostname.replace(/^\[(.*)\]$/, '$1') } };
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
    template: repo.template === true,
    parent,
    mirror: repo.mirror,
    // KiB: the git objects plus release attachments (`attachmentsSize`, bytes, kept by the releases plugin).
    size: (repo.size ?? 0) + Math.ceil((typeof repo.attachmentsSize === 'number' ? repo.attachmentsSize : 0) / 1024),
    // No language detection: Gitea's empty values.
    language: '',
    languages_url: `${urls.api}repos/${fullName}/languages`,
    html_url: urls.root + fullName,
    url: `${urls.api}repos/${fullName}`,
    // Gitea's Link(): the repository's path under the site root.
    link: new URL(urls.root).pathname + fullName,
    ssh_url: sshUrl(urls, fullName),
    clone_url: `${urls.root}${fullName}.git`,
    original_url: (repo.originalUrl as string | undefined) ?? '',
    website: repo.website ?? '',
    stars_count: repo.numStars ?? 0,
    forks_count: repo.numForks ?? 0,
    watchers_count: repo.numWatches ?? 0,
    // Counters a later capability (issues, pulls, releases) maintains on the record; 0 until it exists.
    open_issues_count: (repo.numOpenIssues as number | undefined) ?? 0,
    open_pr_counter: (repo.numOpenPulls as number | undefined) ?? 0,
    release_counter: (repo.numReleases as number | undefined) ?? 0,
    default_branch: repo.defaultBranch || 'master',
    archived: repo.archived === true,
    created_at: repo.createdAt,
    updated_at: repo.updatedAt,
    archived_at: repo.archived === true ? (repo.archivedAt as string | undefined) ?? repo.updatedAt : null,
    permissions: permissionsOf(mode),
    ...settingsOf(repo),
  };
  if (repo.mirror) {
    out.mirror_updated = repo.mirrorUpdated ?? null;
    out.mirror_error = repo.mirrorError ?? null;
  }
  out.avatar_url = '';
  out.internal = false;
  out.mirror_interval = (repo.mirrorInterval as string | undefined) ?? '';
  out.object_format_name = 'sha1';
  out.topics = Array.isArray(repo.topics) ? repo.topics : [];
  out.licenses = [];
  return out;
}
