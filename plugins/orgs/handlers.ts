// The orgs routes: organizations, their teams, membership and public membership. One function per operation.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import type { Account, AccountVisibility, TeamPermission, TeamRecord } from '../../schemas/services.js';
import { users } from '../lib/request.js';
import { toApiOrg, toApiTeam } from './convert.js';
import type { Orgs } from './service.js';

type Rc<P = any, Q = any, B = any> = RequestContext<P, Q, B>;

export function orgs(rc: Rc): Orgs {
  // This plugin's own implementation: more than the OrgsService contract other plugins see.
  return rc.app.services.get('orgs') as Orgs;
}

/**
 * An organization by name (case-insensitive) that the caller may see; users, unknown names and organizations hidden
 * from the caller (limited: anonymous callers; private: non-members) are all 404 (Gitea's HasOrgOrUserVisible).
 */
async function orgByName(rc: Rc, name: string): Promise<Account> {
  const account = await users(rc).byName(name);
  if (!account || account.type !== 'org' || !(await users(rc).visibleTo(account, rc.caller))) throw fail.notFound();
  return account;
}

/** A user the caller may see (hidden accounts are as missing as unknown ones). */
async function userByName(rc: Rc, name: string): Promise<Account> {
  const account = await users(rc).byName(name);
  if (!account || !(await users(rc).visibleTo(account, rc.caller))) throw fail.notFound();
  return account;
}

function pageOf<T>(rc: Rc, items: T[]): { page: T[]; headers: Record<string, string> } {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  return { page: items.slice(win.skip, win.skip + win.limit), headers: pageHeaders(rc, items.length, win) };
}

async function canManage(rc: Rc, orgId: number, caller: Caller): Promise<boolean> {
  return caller.isAdmin || (await orgs(rc).isOwner(orgId, caller.id));
}

async function canView(rc: Rc, orgId: number, caller: Caller | null): Promise<boolean> {
  return caller !== null && (caller.isAdmin || (await orgs(rc).isMember(orgId, caller.id)));
}

/** A team the caller may see (members of its organization, site admins); anything else is 404. */
async function visibleTeam(rc: Rc, id: number): Promise<TeamRecord> {
  const team = await orgs(rc).teamById(id);
  if (!team || !(await canView(rc, team.orgId, rc.caller))) throw fail.notFound();
  return team;
}

async function managedTeam(rc: Rc, id: number): Promise<TeamRecord> {
  const team = await visibleTeam(rc, id);
  if (!(await canManage(rc, team.orgId, rc.caller!))) throw fail.forbidden('only organization owners manage teams');
  return team;
}

function apiOrg(rc: Rc, org: Account): Record<string, unknown> {
  return toApiOrg(org, users(rc), rc.caller !== null);
}

/** Teams with their organization (Gitea's ToTeam with the organization loaded). */
async function apiTeams(rc: Rc, teams: TeamRecord[]): Promise<Record<string, unknown>[]> {
  const owners = await users(rc).byIds([...new Set(teams.map((t) => t.orgId))]);
  return teams.flatMap((team) => {
    const org = owners.get(team.orgId);
    return org ? [toApiTeam(team, apiOrg(rc, org))] : [];
  });
}

async function apiTeam(rc: Rc, team: TeamRecord): Promise<Record<string, unknown>> {
  const [one] = await apiTeams(rc, [team]);
  if (!one) throw fail.notFound();
  return one;
}

interface OrgProfileBody {
  full_name?: string;
  email?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: AccountVisibility;
  repo_admin_change_team_access?: boolean;
}

interface CreateOrgBody extends OrgProfileBody {
  username: string;
}

async function createOrgFor(rc: Rc, owner: Account, body: CreateOrgBody): Promise<Reply> {
  const org = await orgs(rc).createOrg({
    username: body.username,
    fullName: body.full_name,
    email: body.email,
    description: body.description,
    website: body.website,
    location: body.location,
    visibility: body.visibility,
    repoAdminChangeTeamAccess: body.repo_admin_change_team_access,
  }, owner);
  // Read back so the reply is the stored document.
  const stored = (await users(rc).byId(org.id)) ?? org;
  return { status: 201, body: apiOrg(rc, stored) };
}

/** POST /orgs — the creator becomes the only member of the Owners team. */
export async function createOrg(rc: Rc<unknown, unknown, CreateOrgBody>): Promise<Reply> {
  const me = await users(rc).byId(rc.caller!.id);
  if (!me) throw fail.unauthorized();
  // Gitea's CanCreateOrganization: site admins always; others unless an admin set allow_create_organization false.
  if (!me.isAdmin && me.allowCreateOrganization === false) throw fail.forbidden('you are not allowed to create organizations');
  return createOrgFor(rc, me, rc.body);
}

/** POST /admin/users/{username}/orgs — a site admin creates an organization owned by that user. */
export async function adminCreateOrg(rc: Rc<{ username: string }, unknown, CreateOrgBody>): Promise<Reply> {
  const owner = await userByName(rc, rc.params.username);
  if (owner.type !== 'user') throw fail.validation('username', 'an organization cannot own an organization');
  return createOrgFor(rc, owner, rc.body);
}

/** GET /orgs — every organization the caller may see, in name order (Gitea's orgGetAll). */
export async function listAllOrgs(rc: Rc): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const { orgs: page, total } = await orgs(rc).visibleOrgPage(rc.caller, win);
  return { status: 200, type: 'json-text', body: orgs(rc).orgsJson(page, rc.caller), headers: pageHeaders(rc, total, win) };
}

/** GET /orgs/{org} */
export async function getOrg(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  return { status: 200, body: apiOrg(rc, org) };
}

/** PATCH /orgs/{org} — owners and site admins (Gitea's EditOrgOption: only the fields sent change). */
export async function editOrg(rc: Rc<{ org: string }, unknown, OrgProfileBody>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canManage(rc, org.id, rc.caller!))) throw fail.forbidden('only organization owners may edit it');
  const b = rc.body ?? {};
  const after = await users(rc).updateOrg(org, {
    fullName: b.full_name,
    email: b.email,
    description: b.description,
    website: b.website,
    location: b.location,
    visibility: b.visibility,
    repoAdminChangeTeamAccess: b.repo_admin_change_team_access,
  });
  return { status: 200, body: apiOrg(rc, after) };
}

/** DELETE /orgs/{org} — owners and site admins; the org's repositories and teams go with it. */
export async function deleteOrg(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canManage(rc, org.id, rc.caller!))) throw fail.forbidden('only organization owners may delete it');
  await users(rc).deleteAccount(org);
  return { status: 204 };
}

async function orgListReply(rc: Rc, orgIds: number[]): Promise<Reply> {
  const accounts = await users(rc).byIds(orgIds);
  const list = [...accounts.values()].filter((a) => a.type === 'org')
    .sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
  const { page, headers } = pageOf(rc, list);
  return { status: 200, type: 'json-text', body: orgs(rc).orgsJson(page, rc.caller), headers };
}

/** GET /user/orgs — every organization the caller belongs to. */
export async function listMyOrgs(rc: Rc): Promise<Reply> {
  return orgListReply(rc, await orgs(rc).orgIdsOf(rc.caller!.id));
}

/**
 * GET /users/{username}/orgs — Gitea's rule: the user themself and site admins see every organization; everyone
 * else sees the memberships the user made public, in public organizations (limited ones too for signed-in callers).
 */
export async function listUserOrgs(rc: Rc<{ username: string }>): Promise<Reply> {
  const user = await userByName(rc, rc.params.username);
  const caller = rc.caller;
  if (caller && (caller.isAdmin || caller.id === user.id)) return orgListReply(rc, await orgs(rc).orgIdsOf(user.id));
  const accounts = await users(rc).byIds(await orgs(rc).publicOrgIdsOf(user.id));
  // A restricted caller sees limited organizations only as a member (Gitea's HasOrgOrUserVisible).
  const mine = caller?.restricted === true ? new Set(await orgs(rc).orgIdsOf(caller.id)) : null;
  const shown = [...accounts.values()].filter((o) => o.visibility !== 'private'
    && (o.visibility !== 'limited' || (caller !== null && (mine === null || mine.has(o.id)))));
  return orgListReply(rc, shown.map((o) => o.id));
}

/** GET /users/{username}/orgs/{org}/permissions — what the user may do in the organization (Gitea's rules). */
export async function getUserOrgPermissions(rc: Rc<{ username: string; org: string }>): Promise<Reply> {
  const user = await userByName(rc, rc.params.username);
  const org = await orgByName(rc, rc.params.org);
  const level = await orgs(rc).maxTeamPermission(org.id, user.id);
  const rank = level ? ['none', 'read', 'write', 'admin', 'owner'].indexOf(level) : 0;
  return {
    status: 200,
    body: {
      can_read: rank >= 1,
      can_write: rank >= 2,
      is_admin: rank >= 3,
      is_owner: rank >= 4,
      can_create_repository: await orgs(rc).canCreateRepo(org.id, user.id),
    },
  };
}

/** GET /orgs/{org}/teams — members and site admins; others 403 (the organization itself is visible to them). */
export async function listTeams(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canView(rc, org.id, rc.caller))) throw fail.forbidden('only organization members may list its teams');
  const { page, headers } = pageOf(rc, await orgs(rc).teamsOfOrg(org.id));
  return { status: 200, body: await apiTeams(rc, page), headers };
}

/** GET /user/teams — every team the caller is in, across its organizations, by id (Gitea's ListUserTeams). */
export async function listMyTeams(rc: Rc): Promise<Reply> {
  const { page, headers } = pageOf(rc, await orgs(rc).teamsOf(rc.caller!.id));
  return { status: 200, body: await apiTeams(rc, page), headers };
}

/** GET /orgs/{org}/teams/search — `q` in the name (and the description with include_desc), `{ok, data}`. */
export async function searchTeams(rc: Rc<{ org: string }, { q?: string; include_desc?: boolean }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canView(rc, org.id, rc.caller))) throw fail.forbidden('only organization members may search its teams');
  const q = (rc.query.q ?? '').trim().toLowerCase();
  const includeDesc = rc.query.include_desc !== false;
  const found = (await orgs(rc).teamsOfOrg(org.id))
    .filter((t) => q === '' || t.lowerName.includes(q) || (includeDesc && t.description.toLowerCase().includes(q)));
  const { page, headers } = pageOf(rc, found);
  return { status: 200, body: { ok: true, data: await apiTeams(rc, page) }, headers };
}

interface TeamBody {
  name?: string;
  description?: string;
  permission?: Exclude<TeamPermission, 'owner' | 'none'>;
  includes_all_repositories?: boolean;
  can_create_org_repo?: boolean;
  units?: string[];
  units_map?: Record<string, string>;
}

/** POST /orgs/{org}/teams — owners only. */
export async function createTeam(rc: Rc<{ org: string }, unknown, TeamBody & { name: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canManage(rc, org.id, rc.caller!))) throw fail.forbidden('only organization owners manage teams');
  const b = rc.body;
  const team = await orgs(rc).createTeam(org.id, {
    name: b.name,
    description: b.description,
    permission: b.permission ?? 'read',
    includesAllRepos: b.includes_all_repositories ?? false,
    canCreateOrgRepo: b.can_create_org_repo ?? false,
    units: b.units,
    unitsMap: b.units_map,
  });
  const stored = (await orgs(rc).teamById(team.id)) ?? team;
  return { status: 201, body: await apiTeam(rc, stored) };
}

/** GET /teams/{id} */
export async function getTeam(rc: Rc<{ id: number }>): Promise<Reply> {
  return { status: 200, body: await apiTeam(rc, await visibleTeam(rc, rc.params.id)) };
}

/** PATCH /teams/{id} — owners only (Gitea's EditTeam; the Owners team keeps its permission and repositories). */
export async function editTeam(rc: Rc<{ id: number }, unknown, TeamBody>): Promise<Reply> {
  const team = await managedTeam(rc, rc.params.id);
  const b = rc.body ?? {};
  const after = await orgs(rc).editTeam(team, {
    name: b.name,
    description: b.description,
    permission: b.permission,
    includesAllRepos: b.includes_all_repositories,
    canCreateOrgRepo: b.can_create_org_repo,
    units: b.units,
    unitsMap: b.units_map,
  });
  return { status: 200, body: await apiTeam(rc, after) };
}

/** DELETE /teams/{id} — owners only; the Owners team stays (422). */
export async function deleteTeam(rc: Rc<{ id: number }>): Promise<Reply> {
  const team = await managedTeam(rc, rc.params.id);
  await orgs(rc).deleteTeam(team);
  return { status: 204 };
}

async function userListReply(rc: Rc, ids: number[]): Promise<Reply> {
  const accounts = await users(rc).byIds(ids);
  const list = [...accounts.values()]
    .sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
  const { page, headers } = pageOf(rc, list);
  // Users as `toApi` shows them to this caller, from JSON made once per account version.
  return { status: 200, type: 'json-text', body: users(rc).toJsonList(page, rc.caller), headers };
}

/** GET /teams/{id}/members */
export async function listTeamMembers(rc: Rc<{ id: number }>): Promise<Reply> {
  const team = await visibleTeam(rc, rc.params.id);
  return userListReply(rc, await orgs(rc).memberIdsOfTeam(team.id));
}

/** GET /teams/{id}/members/{username} — the member as a User; 404 when not in the team. */
export async function getTeamMember(rc: Rc<{ id: number; username: string }>): Promise<Reply> {
  const team = await visibleTeam(rc, rc.params.id);
  const user = await userByName(rc, rc.params.username);
  if (!(await orgs(rc).memberIdsOfTeam(team.id)).includes(user.id)) throw fail.notFound();
  return { status: 200, body: users(rc).toApi(user, rc.caller) };
}

/** PUT /teams/{id}/members/{username} — idempotent 204. */
export async function addTeamMember(rc: Rc<{ id: number; username: string }>): Promise<Reply> {
  const team = await managedTeam(rc, rc.params.id);
  const user = await userByName(rc, rc.params.username);
  if (user.type !== 'user') throw fail.validation('username', 'an organization cannot be a team member');
  await orgs(rc).addMember(team, user.id);
  return { status: 204 };
}

/** DELETE /teams/{id}/members/{username} — idempotent 204; the last owner stays (422). */
export async function removeTeamMember(rc: Rc<{ id: number; username: string }>): Promise<Reply> {
  const team = await managedTeam(rc, rc.params.id);
  const user = await userByName(rc, rc.params.username);
  await orgs(rc).removeMember(team, user.id);
  return { status: 204 };
}

/** Members the caller may see: hidden (private) users are left out for callers who are not members or admins. */
async function withoutHidden(rc: Rc, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return ids;
  const hidden = new Set(await users(rc).hiddenAmong(ids, rc.caller, 'user'));
  return hidden.size ? ids.filter((id) => !hidden.has(id)) : ids;
}

/**
 * GET /orgs/{org}/members — members and site admins see every member; everyone else the public members (Gitea's
 * FindOrgMembers with IsDoerMember false).
 */
export async function listOrgMembers(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (await canView(rc, org.id, rc.caller)) return userListReply(rc, await orgs(rc).memberIdsOfOrg(org.id));
  return userListReply(rc, await withoutHidden(rc, await orgs(rc).publicMemberIds(org.id)));
}

/** GET /orgs/{org}/public_members — the members whose membership is public, for everyone who sees the org. */
export async function listPublicMembers(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const ids = await orgs(rc).publicMemberIds(org.id);
  return userListReply(rc, (await canView(rc, org.id, rc.caller)) ? ids : await withoutHidden(rc, ids));
}

/**
 * GET /orgs/{org}/members/{username} — Gitea's rule: members and site admins get 204/404; a non-member asking about
 * themself 404; anyone else is redirected (303) to the public membership check.
 */
export async function checkOrgMember(rc: Rc<{ org: string; username: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const user = await userByName(rc, rc.params.username);
  const caller = rc.caller;
  if (await canView(rc, org.id, caller)) {
    if (!(await orgs(rc).isMember(org.id, user.id))) throw fail.notFound();
    return { status: 204 };
  }
  if (caller && caller.id === user.id) throw fail.notFound();
  const location = `${rc.app.urls.api}orgs/${encodeURIComponent(org.login)}/public_members/${encodeURIComponent(user.login)}`;
  return { status: 303, headers: { Location: location } };
}

/** GET /orgs/{org}/public_members/{username} — 204 when the user's membership is public, else 404. */
export async function checkPublicMember(rc: Rc<{ org: string; username: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const user = await userByName(rc, rc.params.username);
  if (!(await orgs(rc).isPublicMember(org.id, user.id))) throw fail.notFound();
  return { status: 204 };
}

/** PUT/DELETE /orgs/{org}/public_members/{username} — the member themself, an owner or a site admin (else 403). */
async function setPublic(rc: Rc<{ org: string; username: string }>, visible: boolean): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const user = await userByName(rc, rc.params.username);
  const caller = rc.caller!;
  if (caller.id !== user.id && !(await canManage(rc, org.id, caller))) {
    throw fail.forbidden(visible ? 'cannot publicize another member' : 'cannot conceal another member');
  }
  await orgs(rc).setPublicMembership(org.id, user.id, visible);
  return { status: 204 };
}

export const publicizeMember = (rc: Rc<{ org: string; username: string }>) => setPublic(rc, true);
export const concealMember = (rc: Rc<{ org: string; username: string }>) => setPublic(rc, false);

/** DELETE /orgs/{org}/members/{username} — owners (or the member leaving); the last owner stays (422). */
export async function removeOrgMember(rc: Rc<{ org: string; username: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const user = await userByName(rc, rc.params.username);
  const caller = rc.caller!;
  if (caller.id !== user.id && !(await canManage(rc, org.id, caller))) {
    throw fail.forbidden('only organization owners remove members');
  }
  await orgs(rc).removeFromOrg(org.id, user.id);
  return { status: 204 };
}

/**
 * POST /orgs/{org}/avatar — owners; Gitea's UpdateUserAvatarOption `{image}` (base64). Read as text and parsed here
 * whatever the Content-Type: gitea-js sends this body as text/plain (Gitea's swagger names no media type).
 */
export async function updateOrgAvatar(rc: Rc<{ org: string }, unknown, { image: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canManage(rc, org.id, rc.caller!))) throw fail.forbidden('only organization owners change its avatar');
  await users(rc).setAvatar(org.id, rc.body.image);
  return { status: 204 };
}

/** DELETE /orgs/{org}/avatar — owners; back to the generated identicon. */
export async function deleteOrgAvatar(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canManage(rc, org.id, rc.caller!))) throw fail.forbidden('only organization owners change its avatar');
  await users(rc).setAvatar(org.id, null);
  return { status: 204 };
}
