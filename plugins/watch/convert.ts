// Stored watch rows → API shapes: WatchInfo for one subscription, Repositories for the subscription lists.
import type { Caller, Urls } from '../../core/plugin.js';
import type { Account, ApiRepository, RepoRecord, ReposService } from '../../schemas/services.js';

/**
 * One subscription: user `uid` watches repository `repoId`. `repoPrivate` and `repoOwnerId` are copies of the
 * repository's fields (kept in step on `repo.updated`) so a list can hide private repositories through an index.
 */
export interface WatchRow {
  [key: string]: unknown;
  id: number;
  uid: number;
  repoId: number;
  repoOwnerId: number;
  repoPrivate: boolean;
  createdAt: string;
}

export interface WatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: null;
  created_at: string;
  url: string;
  repository_url: string;
}

/** decisions.md: `created_at` is when the watch was made; the URLs carry the `repos/` segment Gitea 2017 forgot. */
export function toWatchInfo(row: WatchRow, owner: Account, repo: RepoRecord, urls: Urls): WatchInfo {
  const repositoryUrl = `${urls.api}repos/${encodeURIComponent(owner.login)}/${encodeURIComponent(repo.name)}`;
  return {
    subscribed: true,
    ignored: false,
    reason: null,
    created_at: row.createdAt,
    url: `${repositoryUrl}/subscription`,
    repository_url: repositoryUrl,
  };
}

/**
 * The repositories of `rows` in row order as the caller sees them. A repository deleted meanwhile is skipped, and
 * so is one the caller turns out not to read (the denormalised copy lagging a concurrent change): never a leak.
 */
export async function toApiRepos(rows: WatchRow[], records: Map<number, RepoRecord>, repos: ReposService, caller: Caller | null): Promise<ApiRepository[]> {
  const ordered: RepoRecord[] = [];
  for (const row of rows) {
    const repo = records.get(row.repoId);
    if (repo) ordered.push(repo);
  }
  const api = await repos.toApi(ordered, caller);
  return api.filter((r) => (r.permissions as { pull?: boolean } | undefined)?.pull === true);
}
