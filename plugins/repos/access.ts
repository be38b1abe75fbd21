// The permission model in one pure function: an access mode from the caller's grants, and the Permission object.
import { ACCESS, type AccessMode, type TeamPermission } from '../../schemas/services.js';

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
  hiddenOwners?: ReadonlySet<number>;
  /**
   * A restricted account (Gitea's IsRestricted): a public repository gives it nothing by itself, only its grants
   * (own account, teams, collaborations) do.
   */
  restricted?: boolean;
}

export interface AccessTarget {
  id: number;
  ownerId: number;
  private: boolean;
}

export const ANONYMOUS: Grants = Object.freeze({
  userId: null,
  admin: false,
  ownerModes: new Map<number, AccessMode>(),
  repoModes: new Map<number, AccessMode>(),
}) as Grants;

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
