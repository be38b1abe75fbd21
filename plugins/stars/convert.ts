// Stored star rows → API Repositories: the starred records in row order, shaped for the caller by the repos service.
import type { RepoRelationRow } from '../lib/repo-relations.js';

export { repoListJson } from '../lib/repo-relations.js';

/** One star: user `uid` starred repository `repoId` (the shared relation row; see plugins/lib/repo-relations.ts). */
export type StarRow = RepoRelationRow;
