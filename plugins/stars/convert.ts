// Stored star rows → API Repositories: the starred records in row order, shaped for the caller by the repos service.
import type { Caller } from '../../core/plugin.js';
import type { ApiRepository, RepoRecord, ReposService } from '../../schemas/services.js';

/**
 * One star: user `uid` starred repository `repoId`. `repoPrivate` and `repoOwnerId` are copies of the repository's
 * fields (kept in step on `repo.updated`) so a list can hide private repositories through an index.
 */
export interface StarRow {
  [key: string]: unknown;
  id: number;
  uid: number;
  repoId: number;
  repoOwnerId: number;
  repoPrivate: boolean;
  createdAt: string;
}

/**
 * The repositories of `rows` in row order as the caller sees them. A repository deleted meanwhile is skipped, and
 * so is one the caller turns out not to read (the denormalised copy lagging a concurrent change): never a leak.
 */
export async function toApiRepos(rows: StarRow[], records: Map<number, RepoRecord>, repos: ReposService, caller: Caller | null): Promise<ApiRepository[]> {
  const ordered: RepoRecord[] = [];
  for (const row of rows) {
    const repo = records.get(row.repoId);
    if (repo) ordered.push(repo);
  }
  const api = await repos.toApi(ordered, caller);
  return api.filter((r) => (r.permissions as { pull?: boolean } | undefined)?.pull === true);
}
