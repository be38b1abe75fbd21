// The permission model in one pure function: an access mode from the caller's grants, and the Permission object.
import { ACCESS, type AccessMode, type RepoUnit, type TeamPermission, type TeamRecord } from '../../schemas/services.js';

/**
 * Everything that grants a caller access, loaded once per request:
 * - ownerModes: owners whose every repository the caller reaches (themself and orgs they own: owner; orgs where
 *   a team with `includes_all_repositories` gives them a mode: that mode);
 * - repoModes: single repositories granted by a team's repository list or a collaboration.
 */
export interface Grants {
  userId: number | null;
  admin: boolean;
  ownerModes: Map<number, AccessMode>;
  repoModes: Map<number, AccessMode>;
  /**
   * Owners the caller may not see (Gitea's HasOrgOrUserVisible: limited owners for anonymous callers, private ones
   * for non-members): their public repositories give no read access; only an explicit grant (a collaboration)
   * does. Absent = none hidden.
   */
  hiddenOwners?: IdSet;
  /**
   * A restricted account (Gitea's IsRestricted): a public repository gives it nothing by itself, only its grants
   * (own account, teams, collaborations) do.
   */
  restricted?: boolean;
  /**
   * Per-unit access of the caller's teams (Gitea's team units), present only when one of its teams gives some unit
   * other than the team's permission: the per-unit maximum over the teams reaching a whole owner (`owners`) or a
   * listed repository (`repos`), and the repositories the caller collaborates on (a collaborator's units all get
   * its overall mode, as Gitea does).
   */
  units?: { owners: Map<number, UnitModes>; repos: Map<number, UnitModes>; collaborations: Set<number> };
}

/**
 * A set of ids as the access rules read it: a Set, or a shared set less a few of its members (`Minus`) — the owners
 * hidden from a caller are the shared non-public set less the caller's own account and organizations.
 */
export interface IdSet extends Iterable<number> {
  readonly size: number;
  has(id: number): boolean;
}

/** `base` without `except` (few): built without copying `base`. */
export class Minus implements IdSet {
  readonly size: number;
  readonly except: ReadonlySet<number>;

  constructor(readonly base: ReadonlySet<number>, except: Iterable<number>) {
    const out = new Set<number>();
    for (const id of except) if (base.has(id)) out.add(id);
    this.except = out;
    this.size = base.size - out.size;
  }

  has(id: number): boolean {
    return this.base.has(id) && !this.except.has(id);
  }

  *[Symbol.iterator](): Iterator<number> {
    for (const id of this.base) if (!this.except.has(id)) yield id;
  }
}

/** Access per repository unit (absent: none). */
export type UnitModes = Partial<Record<RepoUnit, AccessMode>>;

/** The units forgekit has routes for (Gitea's unit keys without `repo.`). */
export const REPO_UNITS: readonly RepoUnit[] = ['code', 'issues', 'pulls', 'releases', 'wiki'];

/** A team's units as access modes (stored keys have no `repo.` prefix; a team stored without units: all at its permission). */
export function teamUnitModes(team: TeamRecord): UnitModes {
  const mode = ACCESS[team.permission];
  const out: UnitModes = {};
  for (const unit of REPO_UNITS) {
    const stored = team.units ? team.units[unit] : team.permission === 'owner' ? 'admin' : team.permission;
    out[unit] = stored === undefined ? ACCESS.none : ACCESS[stored];
  }
  // Admin and owner teams reach every unit at their permission (Gitea: HasAdminAccess).
  if (mode >= ACCESS.admin) for (const unit of REPO_UNITS) out[unit] = mode;
  return out;
}

/** Whether a team gives every unit exactly its permission (then the permission alone decides, as before units). */
export function uniformUnits(team: TeamRecord): boolean {
  if (!team.units || ACCESS[team.permission] >= ACCESS.admin) return true;
  for (const unit of REPO_UNITS) if ((team.units[unit] ?? 'none') !== team.permission) return false;
  return true;
}

/** Raises every unit of `into` to at least `from`'s. */
export function raiseUnits(map: Map<number, UnitModes>, key: number, from: UnitModes): void {
  const into = map.get(key);
  if (!into) {
    map.set(key, { ...from });
    return;
  }
  for (const unit of REPO_UNITS) if ((from[unit] ?? 0) > (into[unit] ?? 0)) into[unit] = from[unit];
}

/**
 * The caller's access to one unit of a repository (Gitea's Permission.UnitAccessMode): the overall mode unless a team
 * reaching the repository sets units, then the maximum of the teams' unit access, the overall mode for a
 * collaborator, and read on a public repository the caller may see by itself. Admin and above reach every unit.
 */
export function unitModeOf(grants: Grants, repo: AccessTarget, unit: RepoUnit): AccessMode {
  const mode = modeOf(grants, repo);
  const units = grants.units;
  if (!units || mode >= ACCESS.admin) return mode;
  const byOwner = units.owners.get(repo.ownerId);
  const byRepo = units.repos.get(repo.id);
  if (!byOwner && !byRepo) return mode;
  let out: AccessMode = units.collaborations.has(repo.id)
    ? mode
    : repo.private || grants.restricted === true || grants.hiddenOwners?.has(repo.ownerId) ? ACCESS.none : ACCESS.read;
  const a = byOwner?.[unit] ?? ACCESS.none;
  const b = byRepo?.[unit] ?? ACCESS.none;
  if (a > out) out = a;
  if (b > out) out = b;
  return out;
}

export interface AccessTarget {
  id: number;
  ownerId: number;
  private: boolean;
}

/**
 * Grants in their one shape (every field present, `undefined` when absent): `modeOf` reads grants per repository of
 * a page, and grants built in several shapes (anonymous, admin, a member with hidden owners, one with units) made
 * those reads polymorphic. Fill them in by assignment, never by spreading.
 */
export function newGrants(userId: number | null, admin: boolean, hiddenOwners?: IdSet): Grants {
  return { userId, admin, ownerModes: new Map(), repoModes: new Map(), hiddenOwners, restricted: undefined, units: undefined };
}

export const ANONYMOUS: Grants = Object.freeze(newGrants(null, false));

/**
 * none < read < write < admin < owner; a public repository gives read to everyone whose owner they may see, restricted
 * accounts aside; site admins are owners.
 */
export function modeOf(grants: Grants, repo: AccessTarget): AccessMode {
  if (grants.admin) return ACCESS.owner;
  let mode: AccessMode = repo.private || grants.restricted === true || grants.hiddenOwners?.has(repo.ownerId) ? ACCESS.none : ACCESS.read;
  const byOwner = grants.ownerModes.get(repo.ownerId);
  if (byOwner !== undefined && byOwner > mode) mode = byOwner;
  const byRepo = grants.repoModes.get(repo.id);
  if (byRepo !== undefined && byRepo > mode) mode = byRepo;
  return mode;
}

/**
 * The mode a Repository's `permissions` object is made from (Gitea's convert.ToRepo): `admin` from the overall mode,
 * `push`/`pull` from the code unit — so below admin, the code unit's mode (at most write).
 */
export function permissionMode(grants: Grants, repo: AccessTarget): AccessMode {
  const mode = modeOf(grants, repo);
  if (!grants.units || mode >= ACCESS.admin) return mode;
  const code = unitModeOf(grants, repo, 'code');
  return code > ACCESS.write ? ACCESS.write : code;
}

export function teamMode(permission: TeamPermission): AccessMode {
  return ACCESS[permission];
}

export function collaboratorMode(permission: 'read' | 'write' | 'admin'): AccessMode {
  return ACCESS[permission];
}

export function modeName(mode: AccessMode): 'none' | 'read' | 'write' | 'admin' | 'owner' {
  return (['none', 'read', 'write', 'admin', 'owner'] as const)[mode];
}

export function permissionsOf(mode: AccessMode): { admin: boolean; push: boolean; pull: boolean } {
  return { admin: mode >= ACCESS.admin, push: mode >= ACCESS.write, pull: mode >= ACCESS.read };
}

/** Keeps the higher mode when several grants reach the same key. */
export function raise<K>(map: Map<K, AccessMode>, key: K, mode: AccessMode): void {
  const current = map.get(key);
  if (current === undefined || mode > current) map.set(key, mode);
}
