// Who may do what on a repository: the caller's grants (own account, organization teams, team repository lists,
// collaborations) loaded from the store, and the access questions answered with them (rules: access.ts).
import { fail } from '../../core/errors.js';
import type { Caller, PluginContext } from '../../core/plugin.js';
import type { Collection, Filter } from '../../core/store/port.js';
import { ACCESS, type AccessMode, type Account, type NonPublicOwners, type OrgsService, type RepoRecord, type RepoUnit, type TeamRecord, type UsersService } from '../../schemas/services.js';
import { ANONYMOUS, Minus, newGrants, collaboratorMode, modeOf, raise, raiseUnits, teamMode, teamUnitModes, uniformUnits, unitModeOf, type AccessTarget, type Grants, type IdSet } from './access.js';
import type { Light } from './listing.js';
import { mapById } from '../lib/by-id.js';
import { repoByName } from './by-name.js';

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

/** Up to this many repositories in a grants scope (one repository's checks), collaborations are looked up per repository. */
const SCOPED_COLLABORATIONS_MAX = 4;

/** Signed-in callers whose complete grants are kept at most (the oldest kept first goes). */
const KEPT_GRANTS_MAX = 4096;

/**
 * What a caller's complete grants were made from: the caller's flags, the write generations of the rows they are read
 * from (collaborations, team repository lists, teams and memberships) and the non-public accounts (hidden owners).
 */
interface GrantsSources {
  isAdmin: boolean;
  restricted: boolean;
  collaborations: number;
  teamRepos: number;
  memberships: number;
  nonPublic: NonPublicOwners;
}

/** Records by id (ids that no longer exist are absent; a repeated id is fine: an `$in` yields each document once). */
export async function recordsByIds(repos: Collection<RepoRecord>, ids: number[]): Promise<Map<number, RepoRecord>> {
  if (ids.length === 0) return new Map();
  return mapById(await repos.find({ id: { $in: ids } }));
}

export class RepoAccess {
  constructor(
    private readonly ctx: PluginContext,
    private readonly repos: Collection<RepoRecord>,
    private readonly collaborations: Collection<CollaborationRecord>,
    private readonly teamRepos: Collection<TeamRepoRecord>,
  ) {}

  private get users(): UsersService {
    return this.ctx.services.get('users');
  }

  private get orgs(): OrgsService {
    return this.ctx.services.get('orgs');
  }

  /**
   * Everything that gives the caller access, from the orgs plugin (Owners and other teams) and this plugin's
   * team repository lists and collaborations. `scope` narrows the loading to some owners / repositories when the
   * answer is needed for a few repositories only (where complete grants cannot be kept: see `complete`); the rule
   * applied afterwards (`modeOf`) is the same.
   */
  async grants(caller: Caller | null, scope?: { ownerIds?: number[]; repoIds?: number[] }): Promise<Grants> {
    if (!caller) return this.anonymous();
    // Where grants can be kept, a scoped question is answered from the complete ones (the same modes for the
    // repositories in scope): loaded once and kept, they spare every later request of the caller its store reads.
    return this.complete(caller, scope);
  }

  /**
   * A signed-in caller's complete grants: the kept ones while nothing they were made from changed (every search and
   * list page asks for them: two or three store reads, the maps built anew), else loaded and kept — unless something
   * changed while loading. Where the store cannot see every write nothing is kept: the grants are loaded, narrowed to
   * `scope` when given. A kept object is shared by the requests that get it: nothing changes a Grants once made.
   */
  private async complete(caller: Caller, scope?: { ownerIds?: number[]; repoIds?: number[] }): Promise<Grants> {
    const before = this.sourcesOf(caller);
    if (before === null) return this.load(caller, scope);
    const kept = this.keptGrants.get(caller.id);
    if (kept !== undefined && sameSources(kept.from, before)) return kept.grants;
    this.completeLoads++;
    const grants = Object.freeze(await this.load(caller));
    const after = this.sourcesOf(caller);
    if (after !== null && sameSources(before, after)) {
      if (kept === undefined && this.keptGrants.size >= KEPT_GRANTS_MAX) this.keptGrants.delete(this.keptGrants.keys().next().value!);
      this.keptGrants.set(caller.id, { from: before, grants });
    }
    return grants;
  }

  private readonly keptGrants = new Map<number, { from: GrantsSources; grants: Grants }>();
  /** Complete grants loaded rather than kept ones reused (a test reads it to see the reuse happen). */
  completeLoads = 0;

  private sourcesOf(caller: Caller): GrantsSources | null {
    const collaborations = this.collaborations.writeGeneration();
    const teamRepos = this.teamRepos.writeGeneration();
    const memberships = this.orgs.membershipStamp();
    if (collaborations === null || teamRepos === null || memberships === null) return null;
    return { isAdmin: caller.isAdmin, restricted: caller.restricted === true, collaborations, teamRepos, memberships, nonPublic: this.users.nonPublicOwners() };
  }

  private async load(caller: Caller, scope?: { ownerIds?: number[]; repoIds?: number[] }): Promise<Grants> {
    const grants = newGrants(caller.id, caller.isAdmin);
    if (caller.restricted === true && !caller.isAdmin) grants.restricted = true;
    grants.ownerModes.set(caller.id, ACCESS.owner);
    const teams = await this.orgs.teamsOf(caller.id, scope?.ownerIds);
    if (!caller.isAdmin) {
      const hidden = this.hiddenFrom(caller, teams.map((t) => t.orgId));
      if (hidden) grants.hiddenOwners = hidden;
    }
    // Per-unit access only matters when some team sets units other than its permission (units_map): then every
    // team's units are kept, per owner and per listed repository (unitModeOf).
    const units = teams.some((t) => !uniformUnits(t)) ? { owners: new Map(), repos: new Map(), collaborations: new Set<number>() } : undefined;
    if (units) grants.units = units;
    const listed: TeamRecord[] = [];
    for (const team of teams) {
      if (team.includesAllRepos) {
        raise(grants.ownerModes, team.orgId, teamMode(team.permission));
        if (units) raiseUnits(units.owners, team.orgId, teamUnitModes(team));
      } else listed.push(team);
    }
    const repoScope = scope?.repoIds ? [...new Set(scope.repoIds)] : undefined;
    if (listed.length) {
      const byTeam = mapById(listed);
      const rows = repoScope
        ? (await this.teamRepos.find({ repoId: { $in: repoScope } })).filter((r) => byTeam.has(r.teamId))
        : await this.teamRepos.find({ teamId: { $in: [...byTeam.keys()] } });
      for (const row of rows) {
        const team = byTeam.get(row.teamId)!;
        raise(grants.repoModes, row.repoId, teamMode(team.permission));
        if (units) raiseUnits(units.repos, row.repoId, teamUnitModes(team));
      }
    }
    // Beyond a few repositories (a page's 30, a list hiding hundreds of a user's rows) the scope is matched against
    // all of the caller's own collaborations (a handful, one userId index lookup: ~2 µs): looked up per repository on
    // the (repoId, userId) index, each id is two tree descents (500 ids: ~330 µs per request).
    const collabFilter: Filter = repoScope && repoScope.length <= SCOPED_COLLABORATIONS_MAX ? { userId: caller.id, repoId: { $in: repoScope } } : { userId: caller.id };
    for (const row of await this.collaborations.find(collabFilter)) {
      raise(grants.repoModes, row.repoId, collaboratorMode(row.permission));
      units?.collaborations.add(row.repoId);
    }
    return grants;
  }

  /**
   * The owners whose repositories the caller may not see at all (Gitea's HasOrgOrUserVisible): limited and private
   * accounts for anonymous callers; private ones for signed-in callers, except their own account and organizations
   * they are a member of (`memberOf`); for restricted callers limited ones too, with the same exceptions. Site
   * admins: none. Undefined when none.
   * Bounded by the caller, not by how many accounts are hidden: the users service keeps the non-public ids as
   * shared sets; a caller gets one of them as it is, or less its own few exceptions (`Minus`, no copy).
   */
  hiddenFrom(caller: Caller | null, memberOf: Iterable<number>): IdSet | undefined {
    if (caller?.isAdmin) return undefined;
    const np = this.users.nonPublicOwners();
    // A restricted caller sees limited owners only as members, like private ones (Gitea's HasOrgOrUserVisible).
    const base = caller === null || caller.restricted === true ? np.all : np.private;
    if (base.size === 0) return undefined;
    if (caller === null) return base;
    let except: number[] | null = base.has(caller.id) ? [caller.id] : null;
    for (const id of memberOf) if (base.has(id)) (except ??= []).push(id);
    if (!except) return base;
    const hidden = new Minus(base, except);
    return hidden.size ? hidden : undefined;
  }

  /** An anonymous caller's grants: one object for as long as the non-public accounts stay the same. */
  private anonymous(): Grants {
    const np = this.users.nonPublicOwners();
    if (this.anonymousGrants?.from !== np) {
      const grants = np.all.size ? Object.freeze(newGrants(null, false, np.all)) : ANONYMOUS;
      this.anonymousGrants = { from: np, grants };
    }
    return this.anonymousGrants.grants;
  }

  private anonymousGrants: { from: NonPublicOwners; grants: Grants } | null = null;

  async accessMode(caller: Caller | null, repo: RepoRecord): Promise<AccessMode> {
    return (await this.modes(caller, repo)).mode;
  }

  /** The caller's overall mode on one repository, and its mode per unit (from the same grants: no more reads). */
  private async modes(caller: Caller | null, repo: RepoRecord): Promise<{ mode: AccessMode; unitMode: (unit: RepoUnit) => AccessMode }> {
    if (caller?.isAdmin) return { mode: ACCESS.owner, unitMode: () => ACCESS.owner };
    const grants = caller
      ? await this.grants(caller, { ownerIds: [repo.ownerId], repoIds: [repo.id] })
      : await this.grants(null, { ownerIds: [repo.ownerId] });
    const mode = modeOf(grants, repo);
    return { mode, unitMode: grants.units ? (unit) => unitModeOf(grants, repo, unit) : () => mode };
  }

  async resolve(caller: Caller | null, ownerName: string, name: string, minimum: AccessMode = ACCESS.read, unit?: RepoUnit):
    Promise<{ repo: RepoRecord; owner: Account; mode: AccessMode; unitMode: (unit: RepoUnit) => AccessMode }> {
    const owner = await this.users.byName(ownerName);
    if (!owner) throw fail.notFound();
    const repo = await repoByName(this.repos, owner.id, name.toLowerCase());
    if (!repo) throw fail.notFound();
    const { mode: overall, unitMode } = await this.modes(caller, repo);
    const mode = unit ? unitMode(unit) : overall;
    // Unreadable is indistinguishable from missing: never a 403 that would confirm a private repository exists.
    if (overall < ACCESS.read) throw fail.notFound();
    if (mode < ACCESS.read) {
      // Gitea: issues and pulls routes are 404 without their unit (mustEnableIssuesOrPulls, mustAllowPulls); the
      // other units' are 403 (reqRepoReader).
      if (unit === 'issues' || unit === 'pulls') throw fail.notFound();
      throw fail.forbidden(`this needs read access to the repository's ${unit} unit`);
    }
    if (mode < minimum) {
      throw fail.forbidden(`this needs ${['none', 'read', 'write', 'admin', 'owner'][minimum]} access to the repository${unit ? `'s ${unit} unit` : ''}`);
    }
    return { repo, owner, mode, unitMode };
  }

  /** The ids of `targets` the caller reads. */
  async readableOf(caller: Caller | null, targets: AccessTarget[]): Promise<Set<number>> {
    const grants = await this.grantsFor(caller, targets);
    return new Set(targets.filter((r) => modeOf(grants, r) >= ACCESS.read).map((r) => r.id));
  }

  async grantsFor(caller: Caller | null, targets: AccessTarget[]): Promise<Grants> {
    // A site admin's mode does not depend on memberships: skip loading them.
    if (caller?.isAdmin) return newGrants(caller.id, true);
    return this.grants(caller, { ownerIds: targets.map((t) => t.ownerId), repoIds: targets.map((t) => t.id) });
  }

  /** The caller's complete grants; a site admin's decide every mode by themselves (nothing to load). */
  async modeGrants(caller: Caller | null): Promise<Grants> {
    return caller?.isAdmin ? newGrants(caller.id, true) : this.grants(caller);
  }

  /**
   * The repositories the caller reads beyond "the public side" (every public repository of an owner the caller may
   * see), as light rows: private ones it is granted, public ones of hidden owners it is granted (a collaborator on a
   * limited/private account's public repository), and for a restricted caller every repository it reads at all
   * (it has no public side). All private repositories for a site admin. Read from the grants: no scan.
   */
  async grantedReadable(caller: Caller | null, grants: Grants, ownerId?: number): Promise<Array<Light & AccessTarget>> {
    if (!caller) return [];
    const projection = { id: 1, lowerName: 1, ownerId: 1, private: 1 } as const;
    if (grants.admin) return this.repos.find(ownerId === undefined ? { private: true } : { ownerId, private: true }, { projection }) as any;
    const restricted = grants.restricted === true;
    const onPublicSide = (r: AccessTarget) => !r.private && !restricted && !grants.hiddenOwners?.has(r.ownerId);
    const owners = [...grants.ownerModes].filter(([id, mode]) => mode >= ACCESS.read && (ownerId === undefined || id === ownerId)).map(([id]) => id);
    const out = new Map<number, Light & AccessTarget>();
    if (owners.length) {
      const byOwner = owners.length === 1 ? owners[0] : { $in: owners };
      // A restricted caller has no public side: all of these owners' repositories are extras.
      const filter = restricted ? { ownerId: byOwner } : { ownerId: byOwner, private: true };
      for (const r of await this.repos.find(filter, { projection }) as any[]) out.set(r.id, r);
    }
    const ids = [...grants.repoModes.keys()].filter((id) => !out.has(id));
    if (ids.length) {
      for (const r of await this.repos.find({ id: { $in: ids } }, { projection }) as any[]) {
        if (!onPublicSide(r) && (ownerId === undefined || r.ownerId === ownerId)) out.set(r.id, r);
      }
    }
    return [...out.values()].filter((r) => modeOf(grants, r) >= ACCESS.read);
  }

  /** The organizations `userId` belongs to (any team). */
  async memberOrgIds(userId: number): Promise<number[]> {
    return [...new Set((await this.orgs.teamsOf(userId)).map((t) => t.orgId))];
  }

  /**
   * Ids of `grantedReadable` (sorted): what a list needs beyond the public side; and among them, per unit asked, those
   * whose unit the caller may not read (a team's units_map; empty unless some team sets units).
   */
  async grantedReadableIds(caller: Caller | null, units: readonly RepoUnit[] = []): Promise<{ ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }> {
    return this.idsFrom(caller, await this.grants(caller), units);
  }

  private async idsFrom(caller: Caller | null, grants: Grants, units: readonly RepoUnit[]): Promise<{ ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }> {
    const rows = await this.grantedReadable(caller, grants);
    const blind: Partial<Record<RepoUnit, number[]>> = {};
    if (grants.units) {
      for (const unit of units) {
        const ids = rows.filter((r) => unitModeOf(grants, r, unit) < ACCESS.read).map((r) => r.id);
        if (ids.length) blind[unit] = ids;
      }
    }
    return { ids: rows.map((r) => r.id).sort((a, b) => a - b), blind };
  }

  /** `grantedReadableIds` with whole owners kept whole (ReposService.grantedReadableScope). */
  async grantedReadableScope(caller: Caller | null, units: readonly RepoUnit[] = []): Promise<{ ownerIds: number[]; ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }> {
    const grants = await this.grants(caller);
    // Per-unit teams decide per repository, a restricted caller reads an owner's public repositories only through
    // grants too, and a site admin's set is every private repository: the list of ids, as before.
    if (!caller || grants.admin || grants.units || grants.restricted) return { ownerIds: [], ...(await this.idsFrom(caller, grants, units)) };
    const ownerIds = [...grants.ownerModes].filter(([, mode]) => mode >= ACCESS.read).map(([id]) => id).sort((a, b) => a - b);
    const whole = new Set(ownerIds);
    const ids: number[] = [];
    const listed = [...grants.repoModes.keys()];
    if (listed.length) {
      for (const r of await this.repos.find({ id: { $in: listed } }, { projection: { id: 1, ownerId: 1, private: 1 } })) {
        // Covered by its owner, or on the public side (public, owner not hidden): not listed again.
        if (r.private ? whole.has(r.ownerId) : !grants.hiddenOwners?.has(r.ownerId)) continue;
        if (modeOf(grants, r) >= ACCESS.read) ids.push(r.id);
      }
    }
    return { ownerIds, ids: ids.sort((a, b) => a - b), blind: {} };
  }
}

function sameSources(a: GrantsSources, b: GrantsSources): boolean {
  return a.isAdmin === b.isAdmin && a.restricted === b.restricted && a.collaborations === b.collaborations && a.teamRepos === b.teamRepos
    && a.memberships === b.memberships && a.nonPublic === b.nonPublic;
}
