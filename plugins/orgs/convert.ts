// Stored organization accounts and teams → the API's Organization and Team objects.
import type { Account, TeamRecord, UsersService } from '../../schemas/services.js';

export function toApiOrg(org: Account, users: UsersService): Record<string, unknown> {
  return {
    id: org.id,
    username: org.login,
    full_name: org.fullName ?? '',
    // The avatar rule lives with the accounts; an organization's avatar does not depend on the viewer.
    avatar_url: users.toApi(org, null).avatar_url,
    description: org.description ?? '',
    website: org.website ?? '',
    location: org.location ?? '',
  };
}

export function toApiTeam(team: TeamRecord): Record<string, unknown> {
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    permission: team.permission,
    includes_all_repositories: team.includesAllRepos,
  };
}
