// `GET /repos/search` over the in-memory index (memory-index.ts): the caller's visibility as a small set of private
// ids (public repositories are a side of their own), Gitea's filters as index constraints, and the page as a merge
// that stops after `skip + limit`. Name order (ties by id) is the index's own order, backwards the same merge from
// the postings' ends; other orders are the index's sorted pages (few matches sorted, many: a kept order walked until
// the page is full). `priority_owner_id`: that owner's part first, then the rest without it, each stopping at the page.
import type { Caller } from '../../core/plugin.js';
import { ACCESS } from '../../schemas/services.js';
import { modeOf, type Grants } from './access.js';
import type { RepoAccess } from './repo-access.js';
import { withGrants, type PageRequest, type PageResult, type RepoPages } from './pages.js';
import { queryWith, shapedQuery, SORT_KEYS, type Flag, type IndexQuery, type RepoIndex, type Visibility } from './memory-index.js';

export type SearchSort = 'alpha' | 'created' | 'updated' | 'size' | 'git_size' | 'id' | 'stars' | 'forks';
export const SEARCH_SORTS: readonly SearchSort[] = ['alpha', 'created', 'updated', 'size', 'git_size', 'id', 'stars', 'forks'];
export type SearchMode = 'fork' | 'source' | 'mirror' | 'collaborative';

/** Gitea's SearchRepoOptions as the API sets them. */
export interface SearchOptions {
  q: string;
  uid?: number;
  /** `topic=true`: `q` is a topic the repository carries (exactly). */
  topicOnly?: boolean;
  includeDesc?: boolean;
  priorityOwnerId?: number;
  starredBy?: number;
  /** `private=false` leaves private repositories out even for a signed-in caller. */
  private?: boolean;
  isPrivate?: boolean;
  archived?: boolean;
  template?: boolean;
  exclusive?: boolean;
  mode?: SearchMode;
  sort?: SearchSort;
  order?: 'asc' | 'desc';
}

/** Who starred what: the stars plugin registers it (absent when stars are disabled: nothing is starred). */
export type StarredSource = (userId: number) => Promise<number[]>;

/**
 * A caller's owner whose private repositories are at least this many is searched through its postings, not as a set
 * of ids checked and sorted on every request; at most this many such owners (each is a part of the page's merge).
 */
const PRIVATE_OWNER_MIN = 64;
const PRIVATE_OWNERS_MAX = 16;

/** A caller's private and public scopes as made from one Grants object at one index generation. */
interface KeptScopes {
  generation: number;
  privateScope: { privateIds: number[]; privateOwners?: number[] };
  publicScope: { publicOwners?: number[]; grantedPublicIds?: number[] };
}

export class RepoSearch {
  starred: StarredSource | null = null;
  /**
   * Scopes per Grants object: a signed-in caller's complete grants are one kept object while its sources stay the
   * same (RepoAccess), so its scopes are made once per index generation instead of once per request.
   */
  private readonly scopes = new WeakMap<Grants, KeptScopes>();

  constructor(
    private readonly index: RepoIndex,
    private readonly pages: RepoPages,
    private readonly access: RepoAccess,
  ) {}

  /** The caller's scopes: kept ones while the same Grants object meets the same index generation, else made. */
  private scopesOf(grants: Grants): KeptScopes {
    const generation = this.index.generation;
    // A site admin's grants are made per request and read nothing: no entry for them.
    if (grants.admin) return { generation, privateScope: { privateIds: [] }, publicScope: {} };
    let kept = this.scopes.get(grants);
    if (kept === undefined || kept.generation !== generation) {
      const privateScope = this.privateScope(grants);
      // In the index's order once here, not once per page (the page filters them by the query, keeping the order).
      privateScope.privateIds.sort(this.index.order);
      kept = { generation, privateScope, publicScope: this.publicScope(grants) };
      this.scopes.set(grants, kept);
    }
    return kept;
  }

  /**
   * The private repositories the caller reads (through the index: no store reads beyond the grants): owners whose
   * every private repository it reads and that have many are searched through their postings (`privateOwners`), the
   * rest are a set of ids.
   */
  privateScope(grants: Grants): { privateIds: number[]; privateOwners?: number[] } {
    const out = new Set<number>();
    const owners: number[] = [];
    for (const [owner, mode] of grants.ownerModes) {
      if (mode < ACCESS.read) continue;
      if (this.index.privateCount(owner) >= PRIVATE_OWNER_MIN && owners.length < PRIVATE_OWNERS_MAX) owners.push(owner);
      else for (const id of this.index.privateOf(owner)) out.add(id);
    }
    const whole = new Set(owners);
    for (const [id, mode] of grants.repoModes) {
      if (mode < ACCESS.read || out.has(id)) continue;
      const e = this.index.entries.get(id);
      if (e?.private && !whole.has(e.ownerId)) out.add(id);
    }
    return { privateIds: [...out], privateOwners: owners.length ? owners : undefined };
  }

  /**
   * What the caller reads outside the public side of the index: for a restricted caller the public side is its
   * whole-owner grants only (`publicOwners`), else every owner not hidden; public repositories granted one by one
   * beyond that are `grantedPublicIds` (few: collaborations and team lists).
   */
  publicScope(grants: Grants): { publicOwners?: number[]; grantedPublicIds?: number[] } {
    if (grants.admin) return {};
    const publicOwners = grants.restricted ? [...grants.ownerModes].filter(([, m]) => m >= ACCESS.read).map(([o]) => o) : undefined;
    const owners = publicOwners ? new Set(publicOwners) : null;
    const granted: number[] = [];
    for (const [id, mode] of grants.repoModes) {
      if (mode < ACCESS.read) continue;
      const e = this.index.entries.get(id);
      if (!e || e.private) continue;
      const onPublicSide = owners ? owners.has(e.ownerId) : !grants.hiddenOwners?.has(e.ownerId);
      if (!onPublicSide && modeOf(grants, e) >= ACCESS.read) granted.push(id);
    }
    return { publicOwners, grantedPublicIds: granted.length ? granted : undefined };
  }

  async search(caller: Caller | null, opts: SearchOptions, page: PageRequest): Promise<PageResult> {
    const q = opts.q.trim().toLowerCase();
    const grants = await this.access.modeGrants(caller);
    const query = shapedQuery({}); // fields set below keep its one shape
    if (q !== '') {
      if (opts.topicOnly) query.topic = q;
      else {
        if (q.length > 255 && !opts.includeDesc) return { repos: [], total: 0, grants };
        query.text = { q, desc: opts.includeDesc === true };
      }
    }
    const flags: Partial<Record<Flag, boolean>> = {};
    if (opts.archived !== undefined) flags.archived = opts.archived;
    if (opts.template !== undefined) flags.template = opts.template;
    let collaborate: boolean | undefined = opts.exclusive ? false : undefined;
    switch (opts.mode) {
      case 'fork': flags.fork = true; break;
      case 'mirror': flags.mirror = true; break;
      case 'source': flags.fork = false; flags.mirror = false; break;
      case 'collaborative': flags.mirror = false; collaborate = true; break;
      default: break;
    }
    if (Object.keys(flags).length) query.flags = flags;
    if (opts.uid !== undefined) {
      const reached = collaborate === false ? [] : await this.reachedBy(opts.uid);
      if (collaborate === false || (collaborate === undefined && reached.length === 0)) query.owners = [opts.uid];
      else {
        const ids = new Set(reached);
        if (collaborate === undefined) for (const id of this.ownedIds(opts.uid)) ids.add(id);
        query.ids = ids;
      }
    }
    if (opts.starredBy !== undefined) {
      const starred = this.starred ? await this.starred(opts.starredBy) : [];
      if (query.ids) {
        const both = new Set(starred.filter((id) => query.ids!.has(id)));
        query.ids = both;
      } else query.ids = new Set(starred);
    }
    const signedPrivate = caller !== null && opts.private !== false;
    // Every field present, in one order (no spreads): the index reads visibilities of one shape.
    const scopes = this.scopesOf(grants);
    const privateScope = signedPrivate && !grants.admin && opts.isPrivate !== false ? scopes.privateScope : null;
    const publicScope = scopes.publicScope;
    const vis: Visibility = {
      public: opts.isPrivate !== true,
      hiddenOwners: grants.admin ? undefined : grants.hiddenOwners,
      privateAll: signedPrivate && grants.admin && opts.isPrivate !== false,
      privateIds: privateScope?.privateIds,
      privateIdsInOrder: true,
      privateOwners: privateScope?.privateOwners,
      publicOwners: publicScope.publicOwners,
      grantedPublicIds: publicScope.grantedPublicIds,
    };
    const sort = opts.sort ?? 'alpha';
    const desc = opts.order === 'desc';
    const priority = opts.priorityOwnerId;
    if (this.index.sortPlan === 'collect' && (priority !== undefined || (sort === 'alpha' && desc))) {
      // The reference plan (tests compare the others with it): every match, sorted.
      return withGrants(await this.pages.pageOfIds(this.collected(query, vis, sort, desc, priority, page)), grants);
    }
    const n = page.skip + page.limit;
    // Name order (either way): the index's merge. Other orders: its sorted pages (the matches sorted when few, else
    // its kept order walked until the page is full). A priority owner's matches come first: that owner's part of the
    // order, then the rest of it without that owner, each stopping once the page is full; the total is both totals.
    const part = (q: IndexQuery, want: number) => (sort === 'alpha'
      ? this.index.search(q, vis, want, desc)
      : this.index.sorted(q, vis, sort === 'git_size' ? 'size' : sort, desc, want));
    if (priority === undefined) {
      const { head, total } = part(query, n);
      return withGrants(await this.pages.pageOfIds({ ids: head.slice(page.skip, n), total }), grants);
    }
    const first = part(queryWith(query, query.owners ? query.owners.filter((o) => o === priority) : [priority], query.notOwner, query.notOwners), n);
    const rest = part(queryWith(query, query.owners, priority, query.notOwners), Math.max(0, n - first.head.length));
    const head = [...first.head, ...rest.head];
    return withGrants(await this.pages.pageOfIds({ ids: head.slice(page.skip, n), total: first.total + rest.total }), grants);
  }

  /** Every match, sorted (priority owner first, then the key, ties by id in the same direction): the reference plan. */
  private collected(query: IndexQuery, vis: Visibility, sort: SearchSort, desc: boolean, p: number | undefined, page: PageRequest): { ids: number[]; total: number } {
    const matches = this.index.all(query, vis).map((id) => this.index.entries.get(id)!);
    const dir = desc ? -1 : 1;
    const key = sort === 'alpha' ? null : SORT_KEYS[sort === 'git_size' ? 'size' : sort];
    matches.sort((a, b) => {
      if (p !== undefined && (a.ownerId === p) !== (b.ownerId === p)) return a.ownerId === p ? -1 : 1;
      if (key) {
        const d = key(a) - key(b);
        if (d !== 0) return d * dir;
        return (a.id - b.id) * dir;
      }
      return this.index.order(a.id, b.id) * dir;
    });
    return { ids: matches.slice(page.skip, page.skip + page.limit).map((e) => e.id), total: matches.length };
  }

  private ownedIds(ownerId: number): number[] {
    return this.index.search(shapedQuery({ owners: [ownerId] }), { public: true, privateAll: true }, Infinity).head;
  }

  /**
   * Repositories `uid` reaches without owning them (Gitea's "collaborative"): collaborations, team grants, every
   * repository of an owner whose repositories all reach them, and the public repositories of their organizations.
   */
  private async reachedBy(uid: number): Promise<number[]> {
    const grants = await this.access.grants({ id: uid, isAdmin: false } as Caller);
    const out = new Set<number>();
    for (const [owner, mode] of grants.ownerModes) {
      if (owner === uid || mode < ACCESS.read) continue;
      for (const id of this.ownedIds(owner)) out.add(id);
    }
    for (const [id, mode] of grants.repoModes) {
      const e = this.index.entries.get(id);
      if (e && e.ownerId !== uid && modeOf(grants, e) >= ACCESS.read && mode >= ACCESS.read) out.add(id);
    }
    for (const orgId of await this.access.memberOrgIds(uid)) {
      if (orgId === uid) continue;
      for (const id of this.index.search(shapedQuery({ owners: [orgId] }), { public: true, privateAll: false }, Infinity).head) out.add(id);
    }
    return [...out];
  }
}
