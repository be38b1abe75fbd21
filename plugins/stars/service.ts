// Stars with exact counters: one row per (user, repository); `numStars` on both move only with a row.
import type { PluginContext } from '../../core/plugin.js';
import type { IndexSpec } from '../../core/store/port.js';
import type { RepoRecord } from '../../schemas/services.js';
import { REPO_RELATION_INDEXES, RepoRelations, repoRelationListQuery } from '../lib/repo-relations.js';
import type { StarRow } from './convert.js';

export const STARS = 'stars';

/** The shared relation indexes and list query (see plugins/lib/repo-relations.ts), exported for tests and benches. */
export const STAR_INDEXES: IndexSpec[] = REPO_RELATION_INDEXES;
export const starListQuery = repoRelationListQuery;

export class Stars extends RepoRelations<StarRow> {
  constructor(ctx: PluginContext) {
    super(ctx, { collection: STARS, repoCounter: 'numStars', userCounter: 'numStars' });
  }

  async isStarred(uid: number, repoId: number): Promise<boolean> {
    return (await this.rows.findOne({ uid, repoId }, { projection: { id: 1 } })) !== null;
  }

  /** Idempotent: the counters move only when this call's insert created the row. */
  async star(uid: number, repo: RepoRecord): Promise<void> {
    await this.add(uid, repo);
  }

  /** Idempotent: decrements only when this call deleted the row. */
  async unstar(uid: number, repoId: number): Promise<void> {
    await this.remove(uid, repoId);
  }
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** This plugin's own service (its handlers reach it through the registry); no other plugin depends on it. */
    stars: Stars;
  }
}
