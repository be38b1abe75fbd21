// Watches with exact counters: one row per (user, repository); the repository's `numWatches` moves only with a row.
import type { PluginContext } from '../../core/plugin.js';
import type { IndexSpec } from '../../core/store/port.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import { REPO_RELATION_INDEXES, RepoRelations, repoRelationListQuery } from '../lib/repo-relations.js';
import type { WatchRow } from './convert.js';
import type { WatchService } from '../../schemas/contracts/watch.js';

export const WATCHES = 'watches';

/** The shared relation indexes and list query (see plugins/lib/repo-relations.ts), exported for tests and benches. */
export const WATCH_INDEXES: IndexSpec[] = REPO_RELATION_INDEXES;
export const watchListQuery = repoRelationListQuery;

/** Users keep no watch counter: only the repository's `numWatches` moves (and `repo.deleted` just drops the rows). */
export class Watches extends RepoRelations<WatchRow> implements WatchService {
  constructor(ctx: PluginContext) {
    super(ctx, { collection: WATCHES, repoCounter: 'numWatches' });
  }

  /** Idempotent: returns the row (this call's or the existing one); the counter moves only when this call inserted it. */
  async watch(uid: number, repo: RepoRecord): Promise<WatchRow> {
    const { row, outcome } = await this.add(uid, repo);
    // A concurrent PUT created it and counted it; answer with that row (unless it is already gone again).
    if (outcome === 'raced') return (await this.get(uid, repo.id)) ?? row;
    return row;
  }

  async isWatching(uid: number, repoId: number): Promise<boolean> {
    return (await this.rows.findOne({ uid, repoId }, { projection: { id: 1 } })) !== null;
  }

  async watcherIds(repoId: number): Promise<number[]> {
    return (await this.rows.find({ repoId }, { projection: { uid: 1 } })).map((r) => r.uid);
  }

  /** Idempotent: decrements only when this call deleted the row. */
  async unwatch(uid: number, repoId: number): Promise<void> {
    await this.remove(uid, repoId);
  }

  /** `repo.created`: the owner watches its new repository; for an organization, the user who created it. */
  async onRepoCreated(repo: RepoRecord, owner: Account | undefined, creatorId: number | null | undefined): Promise<void> {
    const uid = owner?.type === 'user' ? owner.id : creatorId;
    if (typeof uid === 'number') await this.watch(uid, repo);
  }
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** This plugin's own service (its handlers reach it through the registry); no other plugin depends on it. */
    watch: Watches;
  }
}
