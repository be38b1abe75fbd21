// The `statuses` plugin's service: commit statuses per repository and commit, their combined state, and the check a
// pull-request merge makes against branch protection's required contexts.
import type { RepoRecord } from '../services.js';

/** Gitea's CommitStatusState values. */
export type CommitStatusState = 'pending' | 'success' | 'error' | 'failure' | 'warning';

/** A stored commit status (owned by the `statuses` plugin). */
export interface CommitStatusRecord {
  [key: string]: unknown;
  id: number;
  repoId: number;
  /** Full 40-hex (or 64-hex) commit id. */
  sha: string;
  /** 1-based position among this commit's statuses (Gitea's `index`). */
  index: number;
  state: CommitStatusState;
  targetUrl: string;
  description: string;
  context: string;
  creatorId: number;
  createdAt: string;
  updatedAt: string;
}

export interface CombinedState {
  /** The worst state of the latest status per context (Gitea's precedence); null when the commit has none. */
  state: CommitStatusState | null;
  /** The latest status of each context, oldest first. */
  statuses: CommitStatusRecord[];
}

export interface StatusesService {
  /** The latest status of each context for a commit and their combined state. */
  combined(repo: RepoRecord, sha: string): Promise<CombinedState>;
  /**
   * The state a merge sees for branch protection's required contexts (Gitea's MergeRequiredContextsCommitStatus):
   * each pattern (a glob) takes the latest matching status, a pattern nothing matches counts as `pending`, and the
   * worst wins; with no patterns, the combined state (`success` for a commit without statuses).
   */
  requiredState(repo: RepoRecord, sha: string, requiredContexts: readonly string[]): Promise<CommitStatusState>;
  /** Gitea's order: error < failure < warning < pending < success (lower is worse). */
  worst(a: CommitStatusState, b: CommitStatusState): CommitStatusState;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    statuses: StatusesService;
  }
}
