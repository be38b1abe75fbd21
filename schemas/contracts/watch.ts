// The `watch` plugin's service as other plugins see it: who watches a repository (notifications fan out to them).

export interface WatchService {
  /** Ids of the accounts watching the repository. */
  watcherIds(repoId: number): Promise<number[]>;
  /** Whether the account watches the repository. */
  isWatching(uid: number, repoId: number): Promise<boolean>;
}
