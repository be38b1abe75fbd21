// Commit statuses: stored per repository and commit, numbered per commit, combined with Gitea's precedence.
import { ForgeError, fail } from '../../core/errors.js';
import type { Caller, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type Filter, type IndexSpec, type SortSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { CombinedState, CommitStatusRecord, CommitStatusState, StatusesService } from '../../schemas/contracts/statuses.js';
import { globMatch } from '../lib/glob.js';

export const STATUSES = 'commit_statuses';

export const STATUS_INDEXES: IndexSpec[] = [
  { fields: { repoId: 1, sha: 1, index: 1 }, unique: true },
  { fields: { repoId: 1, sha: 1, id: 1 } },
];

export const STATES: readonly CommitStatusState[] = ['pending', 'success', 'error', 'failure', 'warning'];

/** Gitea's commitStatusPriorities: lower is worse. */
const PRIORITY: Record<CommitStatusState, number> = { error: 0, failure: 1, warning: 2, pending: 3, success: 4 };

/** Gitea's sort options for status lists; anything else (or none) is newest first. */
const SORTS: Record<string, SortSpec> = {
  oldest: { id: 1 },
  recentupdate: { updatedAt: -1, id: -1 },
  leastupdate: { updatedAt: 1, id: 1 },
  leastindex: { index: 1 },
  highestindex: { index: -1 },
};
const NEWEST: SortSpec = { id: -1 };

/** The state of every context that has a status, at most this many (a bound on the combined view). */
const MAX_STATUSES_PER_COMMIT = 10_000;


export interface NewStatus {
  state: CommitStatusState;
  target_url?: string;
  description?: string;
  context?: string;
}

export class Statuses implements StatusesService {
  readonly col: Collection<CommitStatusRecord>;

  constructor(private readonly ctx: PluginContext) {
    this.col = ctx.store.collection<CommitStatusRecord>(STATUSES);
  }

  worst(a: CommitStatusState, b: CommitStatusState): CommitStatusState {
    return PRIORITY[b] < PRIORITY[a] ? b : a;
  }

  /**
   * A ref to a full commit id through git. Null when git is off or nothing matches; a caller that was given a full
   * commit id may still use it (Gitea lists statuses of any id).
   */
  async resolve(repo: RepoRecord, owner: Account, ref: string): Promise<string | null> {
    const full = /^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(ref);
    if (!this.ctx.services.has('git')) return full ? ref.toLowerCase() : null;
    // Nothing git would read as more than a name: no revision syntax, no option look-alikes.
    // eslint-disable-next-line no-control-regex
    if (!ref || ref.length > 255 || ref.startsWith('-') || /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{/.test(ref)) return null;
    const git = this.ctx.services.get('git');
    // The git plugin's pooled cat-file reader: no process per request. Branches first, then tags, then ids.
    const reader = git.reader(git.repoDir(repo, owner));
    for (const candidate of full ? [ref.toLowerCase()] : [`refs/heads/${ref}`, `refs/tags/${ref}`, ref]) {
      const sha = await reader.resolve(`${candidate}^{commit}`);
      if (sha) return sha;
    }
    return null;
  }

  async create(repo: RepoRecord, owner: Account, caller: Caller, sha: string, input: NewStatus): Promise<CommitStatusRecord> {
    const now = nowRfc3339();
    for (let attempt = 0; attempt < 20; attempt++) {
      const last = await this.col.find({ repoId: repo.id, sha }, { sort: { index: -1 }, limit: 1, projection: { index: 1 } });
      const record: CommitStatusRecord = {
        id: await this.ctx.store.nextId(STATUSES),
        repoId: repo.id,
        sha,
        index: (last[0]?.index ?? 0) + 1,
        state: input.state,
        targetUrl: input.target_url ?? '',
        description: input.description ?? '',
        context: input.context ?? '',
        creatorId: caller.id,
        createdAt: now,
        updatedAt: now,
      };
      try {
        const stored = await this.col.insertOne(record);
        await this.emit(repo, owner, caller, stored);
        return stored;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
    throw new ForgeError('CONFLICT', 'too many concurrent statuses for this commit, try again');
  }

  private async emit(repo: RepoRecord, owner: Account, caller: Caller, record: CommitStatusRecord): Promise<void> {
    if (!this.ctx.events.has('status.created')) return;
    try {
      const creator = await this.ctx.services.get('users').byId(caller.id);
      const status = toApiStatus(this.ctx, repo, owner, record, creator ? this.ctx.services.get('users').toApi(creator, null) : null);
      await this.ctx.events.emit('status.created', { repo, owner, senderId: caller.id, sha: record.sha, status });
    } catch (err) {
      this.ctx.log.error({ err, repoId: repo.id }, 'a status.created listener failed');
    }
  }

  /** One page of a commit's statuses, Gitea's sort and state filter. */
  async page(repoId: number, sha: string, opts: { sort?: string; state?: string; skip: number; limit: number }): Promise<{ rows: CommitStatusRecord[]; total: number }> {
    const filter: Filter = { repoId, sha };
    if (opts.state) filter.state = opts.state;
    const sort = (opts.sort && SORTS[opts.sort]) || NEWEST;
    const { docs: rows, total } = await this.col.findAndCount(filter, { sort, skip: opts.skip, limit: opts.limit });
    return { rows, total };
  }

  /** The latest status per context, oldest first. */
  async latest(repoId: number, sha: string): Promise<CommitStatusRecord[]> {
    const all = await this.col.find({ repoId, sha }, { sort: { id: -1 }, limit: MAX_STATUSES_PER_COMMIT });
    const seen = new Map<string, CommitStatusRecord>();
    for (const s of all) if (!seen.has(s.context)) seen.set(s.context, s);
    return [...seen.values()].sort((a, b) => a.id - b.id);
  }

  async combined(repo: RepoRecord, sha: string): Promise<CombinedState> {
    const statuses = await this.latest(repo.id, sha);
    let state: CommitStatusState | null = null;
    for (const s of statuses) state = state === null ? s.state : this.worst(state, s.state);
    return { state, statuses };
  }

  async requiredState(repo: RepoRecord, sha: string, requiredContexts: readonly string[]): Promise<CommitStatusState> {
    const { state, statuses } = await this.combined(repo, sha);
    if (requiredContexts.length === 0) return state ?? 'success';
    const newestFirst = [...statuses].reverse();
    let result: CommitStatusState = 'success';
    for (const pattern of requiredContexts) {
      const match = newestFirst.find((s) => globMatch(pattern, s.context));
      result = this.worst(result, match?.state ?? 'pending');
    }
    return result;
  }

  async onRepoDeleted(repo: RepoRecord): Promise<void> {
    await this.col.deleteMany({ repoId: repo.id });
  }
}

/** The API CommitStatus (gitea-js `CommitStatus`). */
export function toApiStatus(ctx: Pick<PluginContext, 'urls'>, repo: RepoRecord, owner: Account, s: CommitStatusRecord, creator: unknown): Record<string, unknown> {
  return {
    id: s.id,
    status: s.state,
    target_url: s.targetUrl,
    description: s.description,
    url: `${ctx.urls.api}repos/${encodeURIComponent(owner.login)}/${encodeURIComponent(repo.name)}/statuses/${s.sha}`,
    context: s.context,
    creator,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

export function requireState(state: unknown): CommitStatusState {
  if (typeof state === 'string' && (STATES as readonly string[]).includes(state)) return state as CommitStatusState;
  throw fail.validation('state', `must be one of ${STATES.join(', ')}`);
}
