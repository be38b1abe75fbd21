// Stored organization accounts and teams → the API's Organization and Team objects.
import type { Account, TeamRecord, UsersService } from '../../schemas/services.js';
import { UNIT_KEYS, unitsOf } from './units.js';

/** An organization as a caller sees it: its contact address only for signed-in callers (Gitea's orgGet). */
export function toApiOrg(org: Account, users: UsersService, signedIn: boolean): Record<string, unknown> {
  const visibility = org.visibility === 'limited' || org.visibility === 'private' ? org.visibility : 'public';
  return {
    id: org.id,
    name: org.login,
    username: org.login,
    full_name: org.fullName ?? '',
    email: signedIn ? org.email ?? '' : '',
    // The avatar rule lives with the accounts; an organization's avatar does not depend on the viewer.
    avatar_url: users.toApi(org, null).avatar_url,
    description: org.description ?? '',
    website: org.website ?? '',
    location: org.location ?? '',
    visibility,
    repo_admin_change_team_access: org.repoAdminChangeTeamAccess === true,
  };
}

/** A team with its units (Gitea's `units` names and `units_map` access per unit) and its organization. */
export function toApiTeam(team: TeamRecord, org: Record<string, unknown>): Record<string, unknown> {
  const units = unitsOf(team);
  // Every unit the team has a row for, `none` included (Gitea's GetUnitNames/GetUnitsMap).
  const granted = UNIT_KEYS.filter((key) => units[key] !== undefined);
  const unitsMap: Record<string, string> = {};
  for (const key of granted) unitsMap[key] = units[key]!;
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization: org,
    permission: team.permission,
    includes_all_repositories: team.includesAllRepos,
    can_create_org_repo: team.isOwners || team.canCreateOrgRepo === true,
    units: granted,
    units_map: unitsMap,
  };
}
