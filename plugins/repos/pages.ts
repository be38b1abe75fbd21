// Paged repository lists in name order (case-insensitive, ties by id): an owner's, the caller's, a team's, the forks
// of a repository. A page is read from the store at its offset when it can be, else merged from a sorted head and
// the few extra repositories the caller reaches by grants (listing.ts).
import type { Caller } from '../../core/plugin.js';
import type { Collection, Filter } from '../../core/store/port.js';
import { ACCESS, type Account, type RepoRecord, type TeamRecord } from '../../schemas/services.js';
import { modeOf, type AccessTarget, type Grants } from './access.js';
import { recordsByIds, type RepoAccess, type TeamRepoRecord } from './repo-access.js';
import { mergeWindow, orderTies, sliceSorted, type Light } from './listing.js';
import { mapById } from '../lib/by-id.js';

export interface PageRequest {
  skip: number;
  limit: number;
}

export interface PageResult {
  repos: RepoRecord[];
  total: number;
  /** The caller's complete grants when the page was chosen with them: rendering the page reuses them. */
  grants?: Grants;
}

/**
 * A page with the grants it was chosen with, as a fresh literal: spreading the page (`{ ...page, grants }`) cost
 * ~0.5 µs of the 3.8 µs an anonymous 30-row owner list takes in process.
 */
export function withGrants(page: PageResult, grants: Grants): PageResult {
  return { repos: page.repos, total: page.total, grants };
}

const LIGHT = { projection: { id: 1, lowerName: 1 } } as const;

export class RepoPages {
  constructor(
    private readonly repos: Collection<RepoRecord>,
    private readonly teamRepos: Collection<TeamRepoRecord>,
    private readonly access: RepoAccess,
  ) {}

  /** Records for ids, in the given order, skipping ids that no longer exist. */
  async inOrder(ids: number[]): Promise<RepoRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.repos.find({ id: { $in: ids } });
    // The port promises no order for an `$in`; the embedded store answers distinct ids in the order given, and then
    // the rows are the page as they are (no map of them).
    if (rows.length === ids.length && rows.every((r, i) => r.id === ids[i])) return rows;
    const map = mapById(rows);
    return ids.map((id) => map.get(id)).filter((r): r is RepoRecord => r !== undefined);
  }

  /** `GET /repos/{owner}/{repo}/forks`: the forks of `parentId` the caller can read, oldest first. */
  async forksOf(caller: Caller | null, parentId: number, page: PageRequest): Promise<PageResult> {
    const rows = await this.repos.find({ forkId: parentId }, { sort: { id: 1 }, projection: { id: 1, ownerId: 1, private: 1 } });
    let visible = rows.map((r) => r.id);
    if (caller?.isAdmin !== true) {
      // Private forks, and forks whose owner the caller may not see, need a grant.
      const grants = await this.access.grants(caller, { ownerIds: rows.map((r) => r.ownerId), repoIds: rows.map((r) => r.id) });
      visible = rows.filter((r) => modeOf(grants, r) >= ACCESS.read).map((r) => r.id);
    }
    return this.pageOfIds({ ids: visible.slice(page.skip, page.skip + page.limit), total: visible.length });
  }

  /** `GET /users/{username}/repos`: that owner's repositories the caller can read. */
  async listOwnedBy(caller: Caller | null, owner: Account, page: PageRequest): Promise<PageResult> {
    return this.listOwnedById(caller, owner.id, page);
  }

  private async listOwnedById(caller: Caller | null, ownerId: number, page: PageRequest): Promise<PageResult> {
    // The complete grants (not scoped to the owner): a fork's parent may belong to anyone, and rendering reuses them.
    const grants = await this.access.modeGrants(caller);
    const ownerMode = grants.ownerModes.get(ownerId) ?? ACCESS.none;
    if (grants.admin || ownerMode >= ACCESS.read) return withGrants(await this.sortedPage({ ownerId }, [], page), grants);
    const extras = caller ? await this.access.grantedReadable(caller, grants, ownerId) : [];
    // An owner hidden from the caller shows none of its public repositories but those granted (in `extras`), and a
    // restricted caller sees only what it is granted (id -1 matches nothing).
    const publicPart: Filter = grants.restricted || grants.hiddenOwners?.has(ownerId) ? { ownerId, private: false, id: -1 } : { ownerId, private: false };
    return withGrants(await this.sortedPage(publicPart, extras, page), grants);
  }

  /** `GET /user/repos`: everything the caller owns or reaches through an organization, a team or a collaboration. */
  async listForCaller(caller: Caller, page: PageRequest): Promise<PageResult> {
    const grants = await this.access.grants(caller);
    const owners = [...grants.ownerModes.keys()];
    const ownerSet = new Set(owners);
    const extraIds = [...grants.repoModes.keys()];
    const extras = extraIds.length
      ? ((await this.repos.find({ id: { $in: extraIds } }, { projection: { id: 1, lowerName: 1, ownerId: 1 } })) as any[])
        .filter((r) => !ownerSet.has(r.ownerId))
      : [];
    const filter = owners.length === 1 ? { ownerId: owners[0] } : { ownerId: { $in: owners } };
    return withGrants(await this.sortedPage(filter, extras, page), grants);
  }

  /** The team's repositories in name order: all of the org's for `includes_all_repositories` teams. */
  async teamRepoPage(team: TeamRecord, caller: Caller, page: PageRequest): Promise<PageResult> {
    // Only what the caller reads: a team id is no window onto repositories its viewer cannot read.
    if (team.includesAllRepos) return this.listOwnedById(caller, team.orgId, page);
    const grants = await this.access.modeGrants(caller);
    const ids = (await this.teamRepos.find({ teamId: team.id }, { projection: { repoId: 1 } })).map((r) => r.repoId);
    const rows = ids.length
      ? ((await this.repos.find({ id: { $in: ids } }, { projection: { id: 1, lowerName: 1, ownerId: 1, private: 1 } })) as unknown as Array<Light & AccessTarget>)
      : [];
    const readable = rows.filter((r) => modeOf(grants, r) >= ACCESS.read);
    return withGrants(await this.pageOfIds(sliceSorted(readable, page.skip, page.limit)), grants);
  }

  /** A page of `filter` (served by the store in name order) merged with `extras`, which are disjoint from it. */
  async sortedPage(filter: Filter, extras: Light[], page: PageRequest): Promise<PageResult> {
    if (extras.length === 0 && page.skip > 0) {
      // The page read at its offset (a covered index walk jumps there, and its range is the count).
      const { docs, total } = await this.repos.findAndCount(filter, { sort: { lowerName: 1 }, skip: page.skip - 1, limit: page.limit + 2 });
      const window = windowInOrder(docs, page.limit);
      if (window) return { repos: window, total };
    }
    const { head, total } = await this.headInOrder(filter, page.skip + page.limit);
    if (extras.length === 0) return { repos: head.slice(page.skip), total };
    const merged = mergeWindow(head, total, extras, page.skip, page.limit);
    return { repos: await this.recordsOf(merged.items, extras), total: merged.total };
  }

  /** The records of a merged page: its head items are records already; the extras on it (projections) are read. */
  private async recordsOf(items: Light[], extras: Light[]): Promise<RepoRecord[]> {
    // Without extras (every first page of an owner's list) the page is head records only.
    if (extras.length === 0) return items as RepoRecord[];
    const projected = new Set(extras);
    const missing: number[] = [];
    for (const item of items) if (projected.has(item)) missing.push(item.id);
    if (missing.length === 0) return items as RepoRecord[];
    const read = await recordsByIds(this.repos, missing);
    const repos: RepoRecord[] = [];
    for (const item of items) {
      const r = projected.has(item) ? read.get(item.id) : (item as RepoRecord);
      if (r) repos.push(r);
    }
    return repos;
  }

  /**
   * The first `n` matches of `filter` in (lowerName, id) order. The store sorts by the single field `lowerName` (so
   * the embedded adapter can walk an index and stop early, and MongoDB can use an index for the sort); the matches
   * that tie with the last one are then fetched by equality, so the id tie-break is exact.
   */
  private async headInOrder(filter: Filter, n: number): Promise<{ head: RepoRecord[]; total: number }> {
    // One more than needed: when it sorts after the n-th, nothing ties with the n-th beyond the head.
    const { docs: head, total } = await this.repos.findAndCount(filter, { sort: { lowerName: 1 }, limit: n + 1 });
    if (head.length <= n || head[n]!.lowerName !== head[n - 1]!.lowerName) return { head: orderTies(head.slice(0, n)), total };
    // The n-th name has more repositories than the head holds: the slots it fills go to the lowest ids of all of
    // them (the store picks them by id; names can be shared by hundreds of owners).
    const last = head[n - 1]!.lowerName;
    const before = head.filter((r) => r.lowerName !== last);
    const tied = await this.repos.find({ ...filter, lowerName: last }, { sort: { id: 1 }, limit: n - before.length });
    return { head: [...orderTies(before), ...tied], total };
  }

  async pageOfIds({ ids, total }: { ids: number[]; total: number }): Promise<PageResult> {
    return { repos: await this.inOrder(ids), total };
  }
}

/**
 * The page of a list read at its offset with one row either side (`skip - 1`, `limit + 2`), in (lowerName, id)
 * order; null when a name crosses either edge of the page (then only the head settles the id order).
 */
function windowInOrder(rows: RepoRecord[], limit: number): RepoRecord[] | null {
  if (rows.length === 0) return [];
  if (rows.length > 1 && rows[0]!.lowerName === rows[1]!.lowerName) return null;
  if (rows.length === limit + 2 && rows[limit]!.lowerName === rows[limit + 1]!.lowerName) return null;
  return orderTies(rows.slice(1, limit + 1));
}
