// ReposService: repository records (create, update, delete, collaborators, team lists) and the one place other
// plugins ask about repositories. Access (grants.ts), rendering (render.ts), paged lists (pages.ts) and the name
// search (search.ts) are parts it delegates to.
import { ForgeError, fail } from '../../core/errors.js';
import type { Caller, ForgeEvents, JsonPieces, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection, type IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { AccessChangedEvent } from '../../schemas/events.js';
import {
  ACCESS,
  REPO_CREATED,
  REPO_DELETED,
  REPO_UPDATED,
  type AccessMode,
  type Account,
  type ApiRepository,
  type RepoInitOptions,
  type RepoCounter,
  type RepoRecord,
  type RepoStorageProvider,
  type RepoUnit,
  type ReposService,
  type TeamRecord,
  type UsersService,
} from '../../schemas/services.js';
import { permissionsOf } from './access.js';
import { repoUrls, type RepoUrls } from './convert.js';
import { RepoAccess, recordsByIds, type CollaborationRecord, type CollaboratorPermission, type TeamRepoRecord } from './repo-access.js';
import { checkBranchName, checkRepoName, DESCRIPTION_MAX, WEBSITE_MAX } from './names.js';
import { settingChanges } from './settings.js';
import { RepoPages, type PageRequest, type PageResult } from './pages.js';
import { RepoRender, type RepoListOptions } from './render.js';
import { RepoSearch, type SearchOptions, type StarredSource } from './search.js';
import { RepoIndex, secondsOf, type Entry } from './memory-index.js';
import { ownerKeyOf, repoByName } from './by-name.js';

export type { CollaborationRecord, CollaboratorPermission, TeamRepoRecord } from './repo-access.js';
export type { PageRequest, PageResult } from './pages.js';
export type { RepoListOptions } from './render.js';
import { crashPoint } from '../lib/crash-points.js';

export const REPOS = 'repos';
export const COLLABORATIONS = 'collaborations';
export const TEAM_REPOS = 'team_repos';
/**
 * Storage of records rolled back at start, still to be removed: written before the record goes, removed after the
 * storage has, so a crash in between leaves a row that the next start's removal finds (not an orphan directory).
 */
export const LEFTOVERS = 'repo_leftover_storage';

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




/** `plugins.repos.*` (defaults in the plugin's settings schema). */
export interface ReposSettings {
  ssh: { domain: string; port: number; user: string };
  search: { defaultLimit: number; maxLimit: number };
  jsonCacheEntries: number;
}

export interface CreateInput {
  name: string;
  description?: string;
  private?: boolean;
  website?: string;
  defaultBranch?: string;
  template?: boolean;
  fork?: boolean;
  forkId?: number | null;
  mirror?: boolean;
  init?: RepoInitOptions;
  /**
   * The storage exists already and is taken over (an admin adopting a git directory without a record): a create a
   * crash interrupts is rolled back without removing that storage.
   */
  adopt?: boolean;
}




const NO_INIT: RepoInitOptions = { autoInit: false, gitignores: '', license: '', readme: '' };


export class Repos implements ReposService {
  readonly repos: Collection<RepoRecord>;
  readonly collaborations: Collection<CollaborationRecord>;
  readonly teamRepos: Collection<TeamRepoRecord>;
  private readonly leftovers: Collection<{ repoId: number; repo: RepoRecord }>;
  /** Every repository's compact search entry and postings (memory-index.ts), loaded by `loadIndex` at start. */
  readonly index = new RepoIndex();
  readonly urls: RepoUrls;
  readonly access: RepoAccess;
  private readonly render: RepoRender;
  private readonly pages: RepoPages;
  private readonly names: RepoSearch;
  private storage: RepoStorageProvider | null = null;

  constructor(private readonly ctx: PluginContext<ReposSettings>) {
    this.repos = ctx.store.collection<RepoRecord>(REPOS);
    this.collaborations = ctx.store.collection<CollaborationRecord>(COLLABORATIONS);
    this.teamRepos = ctx.store.collection<TeamRepoRecord>(TEAM_REPOS);
    this.leftovers = ctx.store.collection<{ repoId: number; repo: RepoRecord }>(LEFTOVERS);
    this.urls = repoUrls(ctx.urls.root, ctx.settings.ssh, ctx.urls.api);
    this.access = new RepoAccess(ctx, this.repos, this.collaborations, this.teamRepos);
    this.render = new RepoRender(ctx, this.repos, this.access, this.urls);
    this.pages = new RepoPages(this.repos, this.teamRepos, this.access);
    this.names = new RepoSearch(this.index, this.pages, this.access);
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  // ---- lookups ----

  async byOwnerAndName(owner: string, name: string): Promise<RepoRecord | null> {
    const account = await this.users.byName(owner);
    if (!account) return null;
    return repoByName(this.repos, account.id, name.toLowerCase());
  }

  async byId(id: number): Promise<RepoRecord | null> {
    return this.repos.findOne({ id });
  }

  async lowerNamesOf(ownerId: number): Promise<Set<string>> {
    return new Set((await this.repos.find({ ownerId }, { projection: { lowerName: 1 } })).map((r) => r.lowerName));
  }

  async idsOwnedBy(ownerId: number): Promise<number[]> {
    return (await this.repos.find({ ownerId }, { projection: { id: 1 } })).map((r) => r.id);
  }

  async byIds(ids: number[]): Promise<Map<number, RepoRecord>> {
    return recordsByIds(this.repos, ids);
  }

  // ---- access ----

  readsAll(caller: Caller | null): boolean {
    return caller?.isAdmin === true;
  }

  permissionsOf(mode: AccessMode) {
    return permissionsOf(mode);
  }

  accessMode(caller: Caller | null, repo: RepoRecord): Promise<AccessMode> {
    return this.access.accessMode(caller, repo);
  }

  resolve(caller: Caller | null, ownerName: string, name: string, minimum: AccessMode = ACCESS.read, unit?: RepoUnit):
    Promise<{ repo: RepoRecord; owner: Account; mode: AccessMode; unitMode: (unit: RepoUnit) => AccessMode }> {
    return this.access.resolve(caller, ownerName, name, minimum, unit);
  }

  assertWritable(repo: RepoRecord): void {
    if (repo.archived === true) throw fail.forbidden('this repository is archived: it is read-only');
  }

  /**
   * Decided on the index's copy of each repository (owner, visibility: kept in step right after every store write),
   * not on records read from the store: a list hiding a user's private rows asks this for hundreds of ids per request.
   */
  readableIds(caller: Caller | null, ids: number[]): Promise<Set<number>> {
    const targets: Entry[] = [];
    for (const id of ids) {
      const e = this.index.entries.get(id);
      if (e) targets.push(e);
    }
    return this.access.readableOf(caller, targets);
  }

  readsPublic(caller: Caller | null): boolean {
    return caller?.restricted !== true || caller.isAdmin;
  }

  grantedReadableIds(caller: Caller | null, units?: readonly RepoUnit[]): Promise<{ ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }> {
    return this.access.grantedReadableIds(caller, units);
  }

  grantedReadableScope(caller: Caller | null, units?: readonly RepoUnit[]): Promise<{ ownerIds: number[]; ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }> {
    return this.access.grantedReadableScope(caller, units);
  }

  // ---- API objects ----

  toApi(repos: RepoRecord[], caller: Caller | null): Promise<ApiRepository[]> {
    return this.render.toApi(repos, caller);
  }

  toJsonList(repos: RepoRecord[], caller: Caller | null, options: RepoListOptions = {}): Promise<JsonPieces> {
    return this.render.toJsonList(repos, caller, options);
  }

  toJsonTexts(repos: RepoRecord[], caller: Caller | null): Promise<Map<number, JsonPieces>> {
    return this.render.toJsonTexts(repos, caller);
  }

  // ---- counters and storage fields ----

  async incrementCounter(id: number, field: RepoCounter, delta: number): Promise<void> {
    await this.incrementCounters(id, { [field]: delta });
  }

  async incrementCounters(id: number, deltas: Partial<Record<RepoCounter, number>>): Promise<void> {
    const inc: Record<string, number> = {};
    for (const [field, delta] of Object.entries(deltas)) if (delta) inc[field] = delta;
    if (Object.keys(inc).length === 0) return;
    await this.repos.updateOne({ id }, { $inc: inc });
    if (inc.numStars) this.index.bump(id, 'stars', inc.numStars);
    if (inc.numForks) this.index.bump(id, 'forks', inc.numForks);
  }

  async updateFields(id: number, fields: Partial<Pick<RepoRecord, 'empty' | 'size' | 'mirrorUpdated' | 'mirrorError' | 'defaultBranch'>>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await this.repos.updateOne({ id }, { $set: fields });
    if (typeof fields.size === 'number') this.index.patch(id, { size: fields.size });
    const updatedAt = (fields as { updatedAt?: string }).updatedAt;
    if (typeof updatedAt === 'string') this.index.patch(id, { updated: secondsOf(updatedAt) });
  }

  /** The search index from the stored records (start, after the crash repair). */
  async loadIndex(): Promise<void> {
    const projection = {
      id: 1, ownerId: 1, lowerName: 1, description: 1, private: 1, fork: 1, mirror: 1, archived: 1, template: 1,
      createdAt: 1, updatedAt: 1, size: 1, numStars: 1, numForks: 1, topics: 1,
    } as const;
    this.index.load(await this.repos.find({}, { projection }) as RepoRecord[]);
  }

  /** The stars plugin tells search who starred what (`starredBy`). */
  setStarredSource(source: StarredSource): void {
    this.names.starred = source;
  }

  /** The storage provider registers (after the start-up rollback); the storage that rollback left is removed first. */
  setStorage(provider: RepoStorageProvider): Promise<void> {
    this.storage = provider;
    this.leftoverRemoval = this.removeLeftovers(provider);
    return this.leftoverRemoval;
  }

  /** Removes the storage of records rolled back at start (rows of LEFTOVERS), each row after its storage. */
  private async removeLeftovers(provider: RepoStorageProvider): Promise<void> {
    for (const { repoId, repo } of await this.leftovers.find({})) {
      const owner = await this.users.byId(repo.ownerId);
      try {
        if (owner) await provider.remove(repo, owner);
        await this.leftovers.deleteOne({ repoId });
      } catch (err) {
        this.ctx.log.error({ err, repoId }, 'removing the storage of a rolled-back repository failed');
      }
    }
  }

  private leftoverRemoval: Promise<void> = Promise.resolve();

  async setTopics(repoId: number, topics: string[]): Promise<RepoRecord | null> {
    const before = await this.byId(repoId);
    if (!before) return null;
    const after = await this.repos.findOneAndUpdate({ id: repoId }, { $set: { topics: [...topics] } });
    if (!after) return null;
    this.index.upsert(after);
    await this.emit(REPO_UPDATED, { repo: after, before });
    return after;
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
    await this.leftoverRemoval; // a name a crash left half-made gets a clean directory
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
    // Gitea's CanCreateRepo: an owner's max_repo_creation (-1: no limit of its own) caps its repositories; site admins
    // creating are not held to it.
    const limit = typeof owner.maxRepoCreation === 'number' ? owner.maxRepoCreation : -1;
    if (limit >= 0 && !creator?.isAdmin && (await this.repos.count({ ownerId: owner.id })) >= limit) {
      throw fail.forbidden(`user has reached maximum limit of repositories [limit: ${limit}]`);
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
      template: input.template === true,
    };
    // Crash safety: the record carries `creating` until its storage exists and the parent's fork count is raised;
    // a crash in between leaves a record that the start-up pass (`rollBackUnfinished`) removes.
    record.creating = true;
    if (input.adopt === true) record.adopting = true;
    try {
      await this.repos.insertOne(record);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.conflict(`repository ${owner.login}/${name} already exists`);
      throw err;
    }
    crashPoint('repo.create:after-record');
    try {
      this.index.upsert(record);
      if (createStorage) {
        const made = await createStorage(record, owner, init);
        crashPoint('repo.create:after-storage');
        await this.repos.updateOne({ id: record.id }, { $set: { empty: made.empty, size: made.size } });
      }
    } catch (err) {
      // No record without storage: undo the insert (and the index entry) before reporting the failure.
      await this.repos.deleteOne({ id: record.id });
      this.index.remove(record.id);
      throw err;
    }
    if (typeof record.forkId === 'number') await this.incrementCounter(record.forkId, 'numForks', 1);
    await this.repos.updateOne({ id: record.id }, { $unset: { creating: true, adopting: true } });
    delete record.creating;
    delete record.adopting;
    const stored = (await this.byId(record.id)) ?? record;
    await this.emit(REPO_CREATED, { repo: stored, owner, creatorId: creator?.id ?? null });
    // Read back again: listeners (the owner's auto-watch) change counters.
    return (await this.byId(record.id)) ?? stored;
  }

  async update(repo: RepoRecord, changes: {
    description?: string; website?: string; private?: boolean; defaultBranch?: string; archived?: boolean; template?: boolean;
    /** EditRepoOption settings by API name (plugins/repos/settings.ts); other keys are ignored. */
    settings?: Record<string, unknown>;
  }): Promise<RepoRecord> {
    const set: Partial<RepoRecord> = {};
    if (changes.template !== undefined) set.template = changes.template;
    if (changes.archived !== undefined && changes.archived !== (repo.archived === true)) {
      set.archived = changes.archived;
      set.archivedAt = changes.archived ? nowRfc3339() : null;
    }
    if (changes.settings) {
      const result = settingChanges(repo, changes.settings);
      if ('problem' in result) throw fail.validation(...result.problem);
      Object.assign(set, result.set);
    }
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
    this.index.upsert(after);
    await this.emit(REPO_UPDATED, { repo: after, before: repo });
    return after;
  }

  async delete(repo: RepoRecord): Promise<void> {
    const gone = await this.repos.findOneAndDelete({ id: repo.id });
    if (!gone) return; // already deleted by a concurrent request
    this.index.remove(gone.id);
    await this.collaborations.deleteMany({ repoId: gone.id });
    await this.teamRepos.deleteMany({ repoId: gone.id });
    // Forks survive as standalone repositories.
    const forks = await this.repos.find({ forkId: gone.id }, { projection: { id: 1 } });
    await this.repos.updateMany({ forkId: gone.id }, { $set: { forkId: null, fork: false } });
    for (const f of forks) {
      const after = await this.repos.findOne({ id: f.id });
      if (after) this.index.upsert(after);
    }
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

  /**
   * Start-up repair: records a crash left half-made (`creating`: storage or fork count possibly missing) are rolled
   * back — the create was never acknowledged. A parent's `numForks` is recounted. Returns what was removed.
   */
  async rollBackUnfinished(): Promise<string[]> {
    const removed: string[] = [];
    for (const repo of await this.repos.find({ creating: true })) {
      // Adopted storage was there before the record and stays (unadopted again); made storage goes, once a storage
      // provider registers (`setStorage`): the row that says so is written before the record goes.
      if (repo.adopting !== true) await this.leftovers.updateOne({ repoId: repo.id }, { $set: { repoId: repo.id, repo } }, { upsert: true });
      await this.repos.deleteOne({ id: repo.id, creating: true });
      this.index.remove(repo.id);
      await this.collaborations.deleteMany({ repoId: repo.id });
      await this.teamRepos.deleteMany({ repoId: repo.id });
      if (typeof repo.forkId === 'number') {
        const forks = await this.repos.count({ forkId: repo.forkId });
        await this.repos.updateOne({ id: repo.forkId }, { $set: { numForks: forks } });
      }
      removed.push(`repository ${repo.ownerId}/${repo.name} (id ${repo.id}): half-made by a crash, rolled back`);
    }
    if (removed.length) this.ctx.log.warn({ removed }, 'repos: rolled back creates a crash interrupted');
    return removed;
  }

  /** What of this plugin blocks deleting `account`: the repositories it owns, unless they are to be purged. */
  async deletionBlockers(account: Account, purge: boolean): Promise<string[]> {
    if (purge && account.type === 'user') return [];
    const owned = await this.repos.find({ ownerId: account.id }, { projection: { name: 1 }, sort: { lowerName: 1 }, limit: 11 });
    if (owned.length === 0) return [];
    const total = owned.length > 10 ? await this.repos.count({ ownerId: account.id }) : owned.length;
    const names = owned.slice(0, 10).map((r) => `${account.login}/${r.name}`).join(', ');
    return [`owns ${total} ${total === 1 ? 'repository' : 'repositories'} (${names}${total > 10 ? ', …' : ''}); delete or transfer them first`];
  }

  /** `purge=true`: the account's repositories go before the account does. */
  async purgeOwnedBy(account: Account): Promise<void> {
    for (const repo of await this.repos.find({ ownerId: account.id })) await this.delete(repo);
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
    await this.accessChanged('collaborator', { userIds: [userId], repoIds: [repo.id] });
  }

  async removeCollaborator(repo: RepoRecord, userId: number): Promise<void> {
    await this.collaborations.deleteOne({ repoId: repo.id, userId });
    await this.accessChanged('collaborator', { userIds: [userId], repoIds: [repo.id] });
  }

  /** `access.changed` after a grant of this plugin changed (subscribers keep copies of readability). */
  private async accessChanged(reason: AccessChangedEvent['reason'], scope: Omit<AccessChangedEvent, 'reason'>): Promise<void> {
    await this.emit('access.changed', { reason, ...scope });
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
    await this.accessChanged('team_repository', { repoIds: [repo.id] });
  }

  async removeTeamRepo(team: TeamRecord, repo: RepoRecord): Promise<void> {
    await this.teamRepos.deleteOne({ teamId: team.id, repoId: repo.id });
    await this.accessChanged('team_repository', { repoIds: [repo.id] });
  }

  async teamRepoIds(team: TeamRecord): Promise<number[]> {
    if (team.includesAllRepos) return (await this.repos.find({ ownerId: team.orgId }, { projection: { id: 1 } })).map((r) => r.id);
    return (await this.teamRepos.find({ teamId: team.id }, { projection: { repoId: 1 } })).map((r) => r.repoId);
  }

  /**
   * The owners the caller may not see (limited/private accounts) that own public repositories: what a list of
   * public rows must leave out. Only those: an account with no public repository has no public row to hide, and
   * the hidden accounts are many (every limited or private user) where the owning ones are few; the index keeps
   * that answer per shared set until a hidden account gets its first public repository.
   */
  async hiddenOwnerIds(caller: Caller | null): Promise<number[]> {
    if (caller?.isAdmin) return [];
    const memberOf = caller ? await this.ctx.services.get('orgs').orgIdsOf(caller.id) : [];
    const hidden = this.access.hiddenFrom(caller, memberOf);
    return hidden ? this.index.ownersWithRepos('pub', hidden) : [];
  }

  /** The team's repositories the caller reads, in name order (all of the org's for `includes_all_repositories` teams). */
  teamRepoPage(team: TeamRecord, caller: Caller, page: PageRequest): Promise<PageResult> {
    return this.pages.teamRepoPage(team, caller, page);
  }

  // ---- lists ----

  /** The owner's fork of `parentId`, if it has one. */
  async forkOf(ownerId: number, parentId: number): Promise<RepoRecord | null> {
    return this.repos.findOne({ ownerId, forkId: parentId });
  }

  forksOf(caller: Caller | null, parentId: number, page: PageRequest): Promise<PageResult> {
    return this.pages.forksOf(caller, parentId, page);
  }

  /** `GET /users/{username}/repos`: that owner's repositories the caller can read. */
  listOwnedBy(caller: Caller | null, owner: Account, page: PageRequest): Promise<PageResult> {
    return this.pages.listOwnedBy(caller, owner, page);
  }

  /** `GET /user/repos`: everything the caller owns or reaches through an organization, a team or a collaboration. */
  listForCaller(caller: Caller, page: PageRequest): Promise<PageResult> {
    return this.pages.listForCaller(caller, page);
  }

  /** `GET /repos/search` (search.ts). */
  search(caller: Caller | null, options: SearchOptions, page: PageRequest): Promise<PageResult> {
    return this.names.search(caller, options, page);
  }

}

