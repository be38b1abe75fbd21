// ReposService: repository records, the one access check every plugin uses, listings and the name search.
import { ForgeError, fail } from '../../core/errors.js';
import type { Caller, ForgeEvents, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type Filter, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import {
  ACCESS,
  REPO_CREATED,
  REPO_DELETED,
  REPO_UPDATED,
  type AccessMode,
  type Account,
  type ApiRepository,
  type JsonListOptions,
  type OrgsService,
  type RepoInitOptions,
  type RepoRecord,
  type RepoStorageProvider,
  type ReposService,
  type TeamRecord,
  type UsersService,
} from '../../schemas/services.js';
import { ANONYMOUS, collaboratorMode, modeOf, permissionsOf, raise, teamMode, type AccessTarget, type Grants } from './access.js';
import { repoUrls, toApiRepo, type RepoUrls } from './convert.js';
import { RepoJsonCache } from './json-cache.js';
import { UserSchema } from '../../schemas/resources.js';
import { mergeWindow, orderTies, sliceSorted, type Light } from './listing.js';
import { checkBranchName, checkRepoName, DESCRIPTION_MAX, WEBSITE_MAX } from './names.js';
import { GRAM_DF_COLLECTION, gramFilter, NameIndex, SEARCH_COLLECTION, type GramDfDoc, type SearchDoc } from './search-index.js';

export const REPOS = 'repos';
export const COLLABORATIONS = 'collaborations';
export const TEAM_REPOS = 'team_repos';

/** The repositories collection's indexes. A string key is as good a uniqueness guard as a compound unique index. */
export const REPO_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  // `<ownerId>:<lowerName>`: one name per owner, case-insensitively, even under concurrent creates.
  { fields: { ownerKey: 1 }, unique: true, sparse: true },
  { fields: { ownerId: 1 } },
  { fields: { forkId: 1 } },
  // Name order: the embedded store walks this index for a sorted page; MongoDB sorts with it.
  { fields: { lowerName: 1 } },
  // `count({private: false})` is an index lookup on the embedded store.
  { fields: { private: 1 } },
  // An owner's repositories in name order: both adapters walk this index for a page and stop after it.
  { fields: { ownerId: 1, lowerName: 1 } },
  // The same for what everyone sees of an owner (`private: false`): the page and its count from the index.
  { fields: { ownerId: 1, private: 1, lowerName: 1 } },
];

export type CollaboratorPermission = 'read' | 'write' | 'admin';

export interface CollaborationRecord {
  [key: string]: unknown;
  repoId: number;
  userId: number;
  permission: CollaboratorPermission;
  createdAt: string;
}

export interface TeamRepoRecord {
  [key: string]: unknown;
  teamId: number;
  orgId: number;
  repoId: number;
  createdAt: string;
}

export interface CreateInput {
  name: string;
  description?: string;
  private?: boolean;
  website?: string;
  defaultBranch?: string;
  fork?: boolean;
  forkId?: number | null;
  mirror?: boolean;
  init?: RepoInitOptions;
}

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

export interface RepoListOptions extends JsonListOptions {
  /** The caller's complete (unscoped) grants, already loaded: they cover every repository and parent shown. */
  grants?: Grants;
}

const LIGHT = { projection: { id: 1, lowerName: 1 } } as const;
const NO_INIT: RepoInitOptions = { autoInit: false, gitignores: '', license: '', readme: '' };

/** The unique key of a repository name within its owner (names compare case-insensitively). */
export function ownerKeyOf(ownerId: number, lowerName: string): string {
  return `${ownerId}:${lowerName}`;
}

export class Repos implements ReposService {
  readonly repos: Collection<RepoRecord>;
  readonly collaborations: Collection<CollaborationRecord>;
  readonly teamRepos: Collection<TeamRepoRecord>;
  readonly nameIndex: NameIndex;
  readonly urls: RepoUrls;
  private storage: RepoStorageProvider | null = null;
  private readonly json: RepoJsonCache;

  constructor(private readonly ctx: PluginContext) {
    this.repos = ctx.store.collection<RepoRecord>(REPOS);
    this.collaborations = ctx.store.collection<CollaborationRecord>(COLLABORATIONS);
    this.teamRepos = ctx.store.collection<TeamRepoRecord>(TEAM_REPOS);
    this.nameIndex = new NameIndex(ctx.store.collection<SearchDoc>(SEARCH_COLLECTION), ctx.store.collection<GramDfDoc>(GRAM_DF_COLLECTION));
    this.urls = repoUrls(ctx.urls.root, ctx.settings.ssh);
    this.json = new RepoJsonCache(
      ctx.serializer({ $ref: 'forgekit/Repository' }),
      ctx.serializer({ $ref: 'forgekit/Permission' }),
      ctx.serializer({ $ref: 'forgekit/User' }),
      Object.keys(UserSchema.properties),
      ctx.settings.jsonCacheEntries ?? 20000,
    );
  }

  get users(): UsersService {
    return this.ctx.services.get<UsersService>('users');
  }

  get orgs(): OrgsService {
    return this.ctx.services.get<OrgsService>('orgs');
  }

  // ---- lookups ----

  async byOwnerAndName(owner: string, name: string): Promise<RepoRecord | null> {
    const account = await this.users.byName(owner);
    if (!account) return null;
    return this.repos.findOne({ ownerId: account.id, lowerName: name.toLowerCase() });
  }

  async byId(id: number): Promise<RepoRecord | null> {
    return this.repos.findOne({ id });
  }

  async byIds(ids: number[]): Promise<Map<number, RepoRecord>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.repos.find({ id: { $in: unique } });
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Records for ids, in the given order, skipping ids that no longer exist. */
  async inOrder(ids: number[]): Promise<RepoRecord[]> {
    const map = await this.byIds(ids);
    return ids.map((id) => map.get(id)).filter((r): r is RepoRecord => r !== undefined);
  }

  // ---- access ----

  readsAll(caller: Caller | null): boolean {
    return caller?.isAdmin === true;
  }

  permissionsOf(mode: AccessMode) {
    return permissionsOf(mode);
  }

  /**
   * Everything that gives the caller access, from the orgs plugin (Owners and other teams) and this plugin's
   * team repository lists and collaborations. `scope` narrows the loading to some owners / repositories when the
   * answer is needed for a few repositories only; the rule applied afterwards (`modeOf`) is the same.
   */
  async grants(caller: Caller | null, scope?: { ownerIds?: number[]; repoIds?: number[] }): Promise<Grants> {
    if (!caller) return ANONYMOUS;
    const grants: Grants = { userId: caller.id, admin: caller.isAdmin, ownerModes: new Map(), repoModes: new Map() };
    grants.ownerModes.set(caller.id, ACCESS.owner);
    const teams = await this.orgs.teamsOf(caller.id, scope?.ownerIds);
    const listed: TeamRecord[] = [];
    for (const team of teams) {
      if (team.includesAllRepos) raise(grants.ownerModes, team.orgId, teamMode(team.permission));
      else listed.push(team);
    }
    const repoScope = scope?.repoIds ? [...new Set(scope.repoIds)] : undefined;
    if (listed.length) {
      const byTeam = new Map(listed.map((t) => [t.id, t]));
      const rows = repoScope
        ? (await this.teamRepos.find({ repoId: { $in: repoScope } })).filter((r) => byTeam.has(r.teamId))
        : await this.teamRepos.find({ teamId: { $in: [...byTeam.keys()] } });
      for (const row of rows) raise(grants.repoModes, row.repoId, teamMode(byTeam.get(row.teamId)!.permission));
    }
    const collabFilter: Filter = repoScope ? { userId: caller.id, repoId: { $in: repoScope } } : { userId: caller.id };
    for (const row of await this.collaborations.find(collabFilter)) raise(grants.repoModes, row.repoId, collaboratorMode(row.permission));
    return grants;
  }

  async accessMode(caller: Caller | null, repo: RepoRecord): Promise<AccessMode> {
    if (!caller) return modeOf(ANONYMOUS, repo);
    if (caller.isAdmin) return ACCESS.owner;
    return modeOf(await this.grants(caller, { ownerIds: [repo.ownerId], repoIds: [repo.id] }), repo);
  }

  async resolve(caller: Caller | null, ownerName: string, name: string, minimum: AccessMode = ACCESS.read):
    Promise<{ repo: RepoRecord; owner: Account; mode: AccessMode }> {
    const owner = await this.users.byName(ownerName);
    if (!owner) throw fail.notFound();
    const repo = await this.repos.findOne({ ownerId: owner.id, lowerName: name.toLowerCase() });
    if (!repo) throw fail.notFound();
    const mode = await this.accessMode(caller, repo);
    // Unreadable is indistinguishable from missing: never a 403 that would confirm a private repository exists.
    if (mode < ACCESS.read) throw fail.notFound();
    if (mode < minimum) throw fail.forbidden(`this needs ${['none', 'read', 'write', 'admin', 'owner'][minimum]} access to the repository`);
    return { repo, owner, mode };
  }

  async readableIds(caller: Caller | null, ids: number[]): Promise<Set<number>> {
    const records = [...(await this.byIds(ids)).values()];
    const grants = await this.grantsFor(caller, records);
    return new Set(records.filter((r) => modeOf(grants, r) >= ACCESS.read).map((r) => r.id));
  }

  private async grantsFor(caller: Caller | null, targets: AccessTarget[]): Promise<Grants> {
    // A site admin's mode does not depend on memberships: skip loading them.
    if (caller?.isAdmin) return { ...ANONYMOUS, userId: caller.id, admin: true };
    return this.grants(caller, { ownerIds: targets.map((t) => t.ownerId), repoIds: targets.map((t) => t.id) });
  }

  /** The caller's complete grants; a site admin's decide every mode by themselves (nothing to load). */
  private async modeGrants(caller: Caller | null): Promise<Grants> {
    return caller?.isAdmin ? { ...ANONYMOUS, userId: caller.id, admin: true } : this.grants(caller);
  }

  /** Private repositories the caller reads, as light rows (all of them for a site admin). */
  private async privateReadable(caller: Caller | null, grants: Grants, ownerId?: number): Promise<Array<Light & AccessTarget>> {
    if (!caller) return [];
    const projection = { id: 1, lowerName: 1, ownerId: 1, private: 1 } as const;
    if (grants.admin) return this.repos.find(ownerId === undefined ? { private: true } : { ownerId, private: true }, { projection }) as any;
    const owners = [...grants.ownerModes.keys()].filter((id) => ownerId === undefined || id === ownerId);
    const out = new Map<number, Light & AccessTarget>();
    if (owners.length) {
      const filter = owners.length === 1 ? { ownerId: owners[0], private: true } : { ownerId: { $in: owners }, private: true };
      for (const r of await this.repos.find(filter, { projection }) as any[]) out.set(r.id, r);
    }
    const ids = [...grants.repoModes.keys()].filter((id) => !out.has(id));
    if (ids.length) {
      for (const r of await this.repos.find({ id: { $in: ids } }, { projection }) as any[]) {
        if (r.private && (ownerId === undefined || r.ownerId === ownerId)) out.set(r.id, r);
      }
    }
    return [...out.values()].filter((r) => modeOf(grants, r) >= ACCESS.read);
  }

  async privateReadableIds(caller: Caller | null): Promise<number[]> {
    const grants = await this.grants(caller);
    return (await this.privateReadable(caller, grants)).map((r) => r.id).sort((a, b) => a - b);
  }

  // ---- API objects ----

  /** What rendering `repos` for `caller` needs: parents (for forks), owners, and the caller's grants. */
  private async renderContext(repos: RepoRecord[], caller: Caller | null, known?: Grants) {
    const parentIds = repos.map((r) => r.forkId).filter((id): id is number => typeof id === 'number');
    const parents = parentIds.length ? await this.byIds(parentIds) : new Map<number, RepoRecord>();
    const all = parents.size ? [...repos, ...parents.values()] : repos;
    const [owners, grants] = await Promise.all([
      this.users.byIds(all.map((r) => r.ownerId)),
      known ?? this.grantsFor(caller, all),
    ]);
    const render = (repo: RepoRecord, parent: ApiRepository | null): ApiRepository | null => {
      const owner = owners.get(repo.ownerId);
      if (!owner) return null;
      return toApiRepo(repo, this.users.toApi(owner, caller), modeOf(grants, repo), this.urls, parent);
    };
    /** The parent as this caller may see it: null unless it is readable (it may have been made private). */
    const parentOf = (repo: RepoRecord): ApiRepository | null => {
      const parentRecord = typeof repo.forkId === 'number' ? parents.get(repo.forkId) : undefined;
      return parentRecord && modeOf(grants, parentRecord) >= ACCESS.read ? render(parentRecord, null) : null;
    };
    return { owners, grants, render, parentOf };
  }

  async toApi(repos: RepoRecord[], caller: Caller | null): Promise<ApiRepository[]> {
    if (repos.length === 0) return [];
    const { render, parentOf } = await this.renderContext(repos, caller);
    const out: ApiRepository[] = [];
    for (const repo of repos) {
      const api = render(repo, parentOf(repo));
      if (api) out.push(api);
    }
    return out;
  }

  async toJsonList(repos: RepoRecord[], caller: Caller | null, options: RepoListOptions = {}): Promise<Buffer> {
    const out: Buffer[] = [Buffer.from(`${options.envelope?.before ?? ''}[`)];
    const end = Buffer.from(`]${options.envelope?.after ?? ''}`);
    if (repos.length === 0) {
      out.push(end);
      return Buffer.concat(out);
    }
    const { owners, grants, render, parentOf } = await this.renderContext(repos, caller, options.grants);
    const ownerJson = new Map<number, string>();
    let first = true;
    for (const repo of repos) {
      const owner = owners.get(repo.ownerId);
      if (!owner) continue;
      const mode = modeOf(grants, repo);
      if (options.readableOnly && mode < ACCESS.read) continue;
      const parent = parentOf(repo);
      if (parent) {
        out.push(this.json.serialize(first, render(repo, parent)!));
      } else {
        let ownerText = ownerJson.get(owner.id);
        if (ownerText === undefined) {
          ownerText = this.json.ownerText(owner, this.users.toApi(owner, caller));
          ownerJson.set(owner.id, ownerText);
        }
        this.json.append(out, first, repo, ownerText, mode, () => render(repo, null)!);
      }
      first = false;
    }
    out.push(end);
    return Buffer.concat(out);
  }

  // ---- counters and storage fields ----

  async incrementCounter(id: number, field: 'numStars' | 'numForks' | 'numWatches' | 'numIssues' | 'numOpenIssues', delta: number): Promise<void> {
    await this.repos.updateOne({ id }, { $inc: { [field]: delta } });
  }

  async updateFields(id: number, fields: Partial<Pick<RepoRecord, 'empty' | 'size' | 'mirrorUpdated' | 'mirrorError' | 'defaultBranch'>>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await this.repos.updateOne({ id }, { $set: fields });
  }

  setStorage(provider: RepoStorageProvider): void {
    this.storage = provider;
  }

  // ---- create / update / delete ----

  /** The change already happened: a failing listener is logged, never turned into a failed request. */
  private async emit<K extends keyof ForgeEvents>(event: K, payload: ForgeEvents[K]): Promise<void> {
    try {
      await this.ctx.events.emit(event, payload);
    } catch (err) {
      this.ctx.log.error({ err, event }, 'event listener failed');
    }
  }

  async create(owner: Account, input: CreateInput, creator: Caller | null, storage?: Partial<RepoStorageProvider>): Promise<RepoRecord> {
    const name = input.name;
    const reason = checkRepoName(name);
    if (reason) throw fail.validation('name', reason);
    const description = input.description ?? '';
    if ([...description].length > DESCRIPTION_MAX) throw fail.validation('description', `must be at most ${DESCRIPTION_MAX} characters`);
    const website = input.website ?? '';
    if ([...website].length > WEBSITE_MAX) throw fail.validation('website', `must be at most ${WEBSITE_MAX} characters`);
    if (input.defaultBranch) {
      const bad = checkBranchName(input.defaultBranch);
      if (bad) throw fail.validation('default_branch', bad);
    }
    const init = input.init ?? NO_INIT;
    const checkInit = storage?.checkInit ?? this.storage?.checkInit.bind(this.storage);
    const createStorage = storage?.create ?? this.storage?.create.bind(this.storage);
    if (checkInit) {
      const problem = checkInit(init);
      if (problem) throw new ForgeError('VALIDATION', problem);
    }
    const lowerName = name.toLowerCase();
    if (await this.repos.findOne({ ownerId: owner.id, lowerName })) {
      throw fail.conflict(`repository ${owner.login}/${name} already exists`);
    }
    const now = nowRfc3339();
    const record: RepoRecord = {
      id: await this.ctx.store.nextId(REPOS),
      ownerId: owner.id,
      name,
      lowerName,
      ownerKey: ownerKeyOf(owner.id, lowerName),
      description,
      website,
      private: input.private === true,
      fork: input.fork === true,
      forkId: input.forkId ?? null,
      mirror: input.mirror === true,
      empty: true,
      size: 0,
      defaultBranch: input.defaultBranch ?? '',
      numStars: 0,
      numForks: 0,
      numWatches: 0,
      createdAt: now,
      updatedAt: now,
      mirrorUpdated: null,
      mirrorError: null,
    };
    try {
      await this.repos.insertOne(record);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.conflict(`repository ${owner.login}/${name} already exists`);
      throw err;
    }
    try {
      await this.nameIndex.add(record);
      if (createStorage) {
        const made = await createStorage(record, owner, init);
        await this.repos.updateOne({ id: record.id }, { $set: { empty: made.empty, size: made.size } });
      }
    } catch (err) {
      // No record without storage: undo the insert (and the index entry) before reporting the failure.
      await this.repos.deleteOne({ id: record.id });
      await this.nameIndex.remove(record);
      throw err;
    }
    if (typeof record.forkId === 'number') await this.incrementCounter(record.forkId, 'numForks', 1);
    const stored = (await this.byId(record.id)) ?? record;
    await this.emit(REPO_CREATED, { repo: stored, owner, creatorId: creator?.id ?? null });
    // Read back again: listeners (the owner's auto-watch) change counters.
    return (await this.byId(record.id)) ?? stored;
  }

  async update(repo: RepoRecord, changes: { description?: string; website?: string; private?: boolean; defaultBranch?: string }): Promise<RepoRecord> {
    const set: Partial<RepoRecord> = {};
    if (changes.description !== undefined) {
      if ([...changes.description].length > DESCRIPTION_MAX) throw fail.validation('description', `must be at most ${DESCRIPTION_MAX} characters`);
      set.description = changes.description;
    }
    if (changes.website !== undefined) {
      if ([...changes.website].length > WEBSITE_MAX) throw fail.validation('website', `must be at most ${WEBSITE_MAX} characters`);
      set.website = changes.website;
    }
    if (changes.defaultBranch !== undefined) {
      const bad = checkBranchName(changes.defaultBranch);
      if (bad) throw fail.validation('default_branch', bad);
      set.defaultBranch = changes.defaultBranch;
    }
    if (changes.private !== undefined) set.private = changes.private;
    if (Object.keys(set).length === 0) return repo;
    set.updatedAt = nowRfc3339();
    const after = await this.repos.findOneAndUpdate({ id: repo.id }, { $set: set });
    if (!after) throw fail.notFound();
    if (set.private !== undefined && set.private !== repo.private) await this.nameIndex.setPrivate(repo.id, set.private);
    await this.emit(REPO_UPDATED, { repo: after, before: repo });
    return after;
  }

  async delete(repo: RepoRecord): Promise<void> {
    const gone = await this.repos.findOneAndDelete({ id: repo.id });
    if (!gone) return; // already deleted by a concurrent request
    await this.nameIndex.remove(gone);
    await this.collaborations.deleteMany({ repoId: gone.id });
    await this.teamRepos.deleteMany({ repoId: gone.id });
    // Forks survive as standalone repositories.
    await this.repos.updateMany({ forkId: gone.id }, { $set: { forkId: null, fork: false } });
    if (typeof gone.forkId === 'number') await this.incrementCounter(gone.forkId, 'numForks', -1);
    const owner = await this.users.byId(gone.ownerId);
    await this.emit(REPO_DELETED, { repo: gone, owner });
    if (this.storage && owner) {
      try {
        await this.storage.remove(gone, owner);
      } catch (err) {
        this.ctx.log.error({ err, repoId: gone.id }, 'removing repository storage failed');
      }
    }
  }

  /** `account.deleted`: the account's repositories go, and so do its collaborations elsewhere. */
  async onAccountDeleted(account: Account): Promise<void> {
    for (const repo of await this.repos.find({ ownerId: account.id })) await this.delete(repo);
    await this.collaborations.deleteMany({ userId: account.id });
  }

  async onTeamDeleted(team: TeamRecord): Promise<void> {
    await this.teamRepos.deleteMany({ teamId: team.id });
  }

  // ---- collaborators and team repositories ----

  /** Adds the collaborator or changes their permission (idempotent). */
  async setCollaborator(repo: RepoRecord, userId: number, permission: CollaboratorPermission): Promise<void> {
    const updated = await this.collaborations.updateOne({ repoId: repo.id, userId }, { $set: { permission } });
    if (updated.matched > 0) return;
    try {
      await this.collaborations.insertOne({ repoId: repo.id, userId, permission, createdAt: nowRfc3339() });
    } catch (err) {
      // A concurrent PUT inserted first: apply this request's permission to that row.
      if (!isDuplicateKeyError(err)) throw err;
      await this.collaborations.updateOne({ repoId: repo.id, userId }, { $set: { permission } });
    }
  }

  async removeCollaborator(repo: RepoRecord, userId: number): Promise<void> {
    await this.collaborations.deleteOne({ repoId: repo.id, userId });
  }

  async isCollaborator(repo: RepoRecord, userId: number): Promise<boolean> {
    return (await this.collaborations.findOne({ repoId: repo.id, userId })) !== null;
  }

  async collaboratorIds(repo: RepoRecord): Promise<number[]> {
    return (await this.collaborations.find({ repoId: repo.id }, { projection: { userId: 1 } })).map((r) => r.userId);
  }

  async addTeamRepo(team: TeamRecord, repo: RepoRecord): Promise<void> {
    try {
      await this.teamRepos.insertOne({ teamId: team.id, orgId: team.orgId, repoId: repo.id, createdAt: nowRfc3339() });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  async removeTeamRepo(team: TeamRecord, repo: RepoRecord): Promise<void> {
    await this.teamRepos.deleteOne({ teamId: team.id, repoId: repo.id });
  }

  /** The team's repositories in name order: all of the org's for `includes_all_repositories` teams. */
  async teamRepoPage(team: TeamRecord, page: PageRequest): Promise<PageResult> {
    if (team.includesAllRepos) return this.sortedPage({ ownerId: team.orgId }, [], page);
    const ids = (await this.teamRepos.find({ teamId: team.id }, { projection: { repoId: 1 } })).map((r) => r.repoId);
    const rows = ids.length ? await this.repos.find({ id: { $in: ids } }, LIGHT) : [];
    return this.pageOfIds(sliceSorted(rows as Light[], page.skip, page.limit));
  }

  // ---- lists ----

  /** A page of `filter` (served by the store in name order) merged with `extras`, which are disjoint from it. */
  private async sortedPage(filter: Filter, extras: Light[], page: PageRequest): Promise<PageResult> {
    const [window, total] = await Promise.all([extras.length ? null : this.windowInOrder(filter, page), this.repos.count(filter)]);
    if (window) return { repos: window, total };
    const head = await this.headInOrder(filter, page.skip + page.limit);
    // The head rows are the records: only extras on the page are read again.
    return this.pageOfRecords(mergeWindow(head, total, extras, page.skip, page.limit), head);
  }

  /**
   * The page of `filter` alone, read from the store at its offset (a covered index walk jumps there) instead of
   * from the start; null when a name crosses either edge of the page (then only the head settles the id order).
   */
  private async windowInOrder(filter: Filter, page: PageRequest): Promise<RepoRecord[] | null> {
    if (page.skip === 0) return null;
    // One row either side of the page shows whether a name is shared across an edge.
    const rows = await this.repos.find(filter, { sort: { lowerName: 1 }, skip: page.skip - 1, limit: page.limit + 2 });
    if (rows.length === 0) return [];
    if (rows.length > 1 && rows[0]!.lowerName === rows[1]!.lowerName) return null;
    if (rows.length === page.limit + 2 && rows[page.limit]!.lowerName === rows[page.limit + 1]!.lowerName) return null;
    return orderTies(rows.slice(1, page.limit + 1));
  }

  /**
   * The first `n` matches of `filter` in (lowerName, id) order. The store sorts by the single field `lowerName` (so
   * the embedded adapter can walk an index and stop early, and MongoDB can use an index for the sort); the matches
   * that tie with the last one are then fetched by equality, so the id tie-break is exact.
   */
  private async headInOrder(filter: Filter, n: number): Promise<RepoRecord[]> {
    // One more than needed: when it sorts after the n-th, nothing ties with the n-th beyond the head.
    const head = await this.repos.find(filter, { sort: { lowerName: 1 }, limit: n + 1 });
    if (head.length <= n || head[n]!.lowerName !== head[n - 1]!.lowerName) return orderTies(head.slice(0, n));
    // The n-th name has more repositories than the head holds: the slots it fills go to the lowest ids of all of
    // them (the store picks them by id; names can be shared by hundreds of owners).
    const last = head[n - 1]!.lowerName;
    const before = head.filter((r) => r.lowerName !== last);
    return [...orderTies(before), ...(await this.repos.find({ ...filter, lowerName: last }, { sort: { id: 1 }, limit: n - before.length }))];
  }

  private async pageOfIds({ ids, total }: { ids: number[]; total: number }): Promise<PageResult> {
    return { repos: await this.inOrder(ids), total };
  }

  /** Like pageOfIds, with the records already in hand taken as they are (only the others are read). */
  private async pageOfRecords({ ids, total }: { ids: number[]; total: number }, known: RepoRecord[]): Promise<PageResult> {
    // Without extras the page is a run of the head itself.
    const at = ids.length ? known.findIndex((r) => r.id === ids[0]) : -1;
    if (at >= 0 && ids.every((id, i) => known[at + i]?.id === id)) return { repos: known.slice(at, at + ids.length), total };
    const byId = new Map<number, RepoRecord>();
    for (const r of known) byId.set(r.id, r);
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length) for (const [id, r] of await this.byIds(missing)) byId.set(id, r);
    const repos: RepoRecord[] = [];
    for (const id of ids) {
      const r = byId.get(id);
      if (r) repos.push(r);
    }
    return { repos, total };
  }

  /** `GET /users/{username}/repos`: that owner's repositories the caller can read. */
  async listOwnedBy(caller: Caller | null, owner: Account, page: PageRequest): Promise<PageResult> {
    // The complete grants (not scoped to the owner): a fork's parent may belong to anyone, and rendering reuses them.
    const grants = await this.modeGrants(caller);
    const ownerMode = grants.ownerModes.get(owner.id) ?? ACCESS.none;
    if (grants.admin || ownerMode >= ACCESS.read) return { ...(await this.sortedPage({ ownerId: owner.id }, [], page)), grants };
    const extras = caller ? await this.privateReadable(caller, grants, owner.id) : [];
    return { ...(await this.sortedPage({ ownerId: owner.id, private: false }, extras, page)), grants };
  }

  /** `GET /user/repos`: everything the caller owns or reaches through an organization, a team or a collaboration. */
  async listForCaller(caller: Caller, page: PageRequest): Promise<PageResult> {
    const grants = await this.grants(caller);
    const owners = [...grants.ownerModes.keys()];
    const ownerSet = new Set(owners);
    const extraIds = [...grants.repoModes.keys()];
    const extras = extraIds.length
      ? ((await this.repos.find({ id: { $in: extraIds } }, { projection: { id: 1, lowerName: 1, ownerId: 1 } })) as any[])
        .filter((r) => !ownerSet.has(r.ownerId))
      : [];
    const filter = owners.length === 1 ? { ownerId: owners[0] } : { ownerId: { $in: owners } };
    return { ...(await this.sortedPage(filter, extras, page)), grants };
  }

  /**
   * `GET /repos/search`: `q` a literal, case-insensitive substring of the name (empty: every visible repository),
   * `uid` an owner filter; public repositories plus the private ones the caller can read; name order.
   */
  async search(caller: Caller | null, q: string, uid: number | undefined, page: PageRequest): Promise<PageResult> {
    const needle = q.trim().toLowerCase();
    if (needle.length > 100) return { repos: [], total: 0 }; // longer than any repository name
    const grants = await this.modeGrants(caller);
    // Every repository in scope is readable: site admins, or an owner whose every repository the caller reads.
    const readsAll = grants.admin || (uid !== undefined && (grants.ownerModes.get(uid) ?? ACCESS.none) >= ACCESS.read);
    const scope: Filter = uid !== undefined ? { ownerId: uid } : {};
    const result = await this.searchPage(caller, grants, readsAll, needle, uid, scope, page);
    return { ...result, grants };
  }

  private async searchPage(caller: Caller | null, grants: Grants, readsAll: boolean, needle: string, uid: number | undefined,
    scope: Filter, page: PageRequest): Promise<PageResult> {
    const n = page.skip + page.limit;
    /** A private search document passes when the caller reads that repository. */
    const accept = (d: SearchDoc) => !d.private || readsAll || modeOf(grants, { id: d.repoId, ownerId: d.ownerId, private: true }) >= ACCESS.read;
    // Private repositories beyond the walked ones come from the caller's own grants (owned, organizations, teams,
    // collaborations), which are few, so a query never loads private candidates it would then drop.
    const extrasFor = async (): Promise<Light[]> => readsAll || !caller
      ? []
      : (await this.privateReadable(caller, grants, uid)).filter((r) => r.lowerName.includes(needle));
    if (needle === '') return this.sortedPage(readsAll ? scope : { ...scope, private: false }, await extrasFor(), page);
    const gram = await this.nameIndex.planGram(needle);
    // Up to 3 characters the query is its own gram: the posting's size is the number of matches.
    const short = gram === needle;
    const posting = await this.nameIndex.postingSize(gram, readsAll);
    if (uid !== undefined) {
      const ownerSize = await this.nameIndex.docs.count(scope);
      // An owner with fewer repositories than the gram has documents: every name of the owner checked in order
      // (private ones too), which gives the page and the total at once.
      if (ownerSize <= posting) return this.pageOfIds(sliceSorted(await this.nameIndex.walkNames(scope, needle, Infinity, 1, accept), page.skip, page.limit));
      const found = await this.nameIndex.candidates(needle, { ...gramFilter(gram, readsAll), ...scope }, accept);
      return this.pageOfIds(sliceSorted([...found, ...(await extrasFor())], page.skip, page.limit));
    }
    const walked: Filter = readsAll ? {} : { private: false };
    const domain = readsAll ? await this.nameIndex.docs.count({}) : await this.nameIndex.docs.count(walked);
    // A short query whose matches are common: names read in order until the page is full (expected rows:
    // n ÷ the share of matches), when that is fewer than the posting holds; else the posting, checked and sorted.
    if (short && ((n + 1) * domain) / Math.max(posting, 1) <= posting) {
      const extras = await extrasFor();
      const head = await this.nameIndex.walkNames(walked, needle, n, posting / Math.max(domain, 1));
      const { ids } = mergeWindow(head, posting, extras, page.skip, page.limit);
      return this.pageOfIds({ ids, total: posting + extras.length });
    }
    const found = await this.nameIndex.candidates(needle, gramFilter(gram, readsAll), accept);
    return this.pageOfIds(sliceSorted([...found, ...(await extrasFor())], page.skip, page.limit));
  }
}

