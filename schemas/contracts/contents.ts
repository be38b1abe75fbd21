// The `contents` plugin's service as other plugins see it: the branch protection rule that applies to a branch
// (pull-request merges check required approvals, status contexts and the merge allow-list against it).
import type { Account, RepoRecord } from '../services.js';

/** The fields of a branch protection rule a merge decides with (Gitea's ProtectedBranch). */
export interface BranchProtectionRule {
  rule_name: string;
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  enable_merge_whitelist: boolean;
  merge_whitelist_usernames: string[];
  merge_whitelist_teams: string[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals: number;
  enable_approvals_whitelist: boolean;
  approvals_whitelist_username: string[];
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  ignore_stale_approvals: boolean;
}

/** Gitea's PayloadCommitVerification: whether a commit's signature checks out with a key a user uploaded. */
export interface CommitVerification {
  verified: boolean;
  reason: string;
  signature: string;
  payload: string;
  signer: { name: string; email: string; username: string } | null;
}

export interface ContentsService {
  /** The signature verification of a commit (as the commit routes report it); null when the commit is not there. */
  commitVerification(repo: RepoRecord, owner: Account, sha: string): Promise<CommitVerification | null>;
  /** The rule that applies to a branch of the repository (an exact name first, then the first matching glob), or null. */
  protectionFor(repoId: number, branch: string): Promise<BranchProtectionRule | null>;
  /**
   * Gitea's IsUserMergeWhitelisted under a rule: write access (`mode`), and when the rule has a merge allow-list, the
   * user on it by name or through one of the listed teams of the owning organization.
   */
  mayMerge(repo: RepoRecord, rule: BranchProtectionRule | null, user: { id: number; login: string }, mode: number): Promise<boolean>;
  /** Entries per /git/trees page and the largest blob served with content (`GET /settings/api` reports them). */
  readonly limits: { readonly treePageSize: number; readonly maxBlobBytes: number };
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    contents: ContentsService;
  }
}
