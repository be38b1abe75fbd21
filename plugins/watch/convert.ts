// Stored watch rows → API shapes: WatchInfo for one subscription, Repositories for the subscription lists.
import type { Urls } from '../../core/plugin.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { RepoRelationRow } from '../lib/repo-relations.js';

export { repoListJson } from '../lib/repo-relations.js';

/** One subscription: user `uid` watches repository `repoId` (the shared relation row; see plugins/lib/repo-relations.ts). */
export type WatchRow = RepoRelationRow;

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
