// The orgs routes: organizations, their teams and team membership. One function per operation.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import type { Account, TeamPermission, TeamRecord } from '../../schemas/services.js';
import { users } from '../lib/request.js';
import { toApiOrg, toApiTeam } from './convert.js';
import type { Orgs } from './service.js';

type Rc<P = any, Q = any, B = any> = RequestContext<P, Q, B>;

function orgs(rc: Rc): Orgs {
  // This plugin's own implementation: more than the OrgsService contract other plugins see.
  return rc.app.services.get('orgs') as Orgs;
}

/** An organization by name (case-insensitive); users and unknown names are 404. */
async function orgByName(rc: Rc, name: string): Promise<Account> {
  const account = await users(rc).byName(name);
  if (!account || account.type !== 'org') throw fail.notFound();
  return account;
}

async function userByName(rc: Rc, name: string): Promise<Account> {
  const account = await users(rc).byName(name);
  if (!account) throw fail.notFound();
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

interface CreateOrgBody {
  username: string;
  full_name?: string;
  description?: string;
  website?: string;
  location?: string;
}

async function createOrgFor(rc: Rc, owner: Account, body: CreateOrgBody): Promise<Reply> {
  const org = await orgs(rc).createOrg({
    username: body.username,
    fullName: body.full_name,
    description: body.description,
    website: body.website,
    location: body.location,
  }, owner);
  // Read back so the reply is the stored document.
  const stored = (await users(rc).byId(org.id)) ?? org;
  return { status: 201, body: toApiOrg(stored, users(rc)) };
}

/** POST /orgs — the creator becomes the only member of the Owners team. */
export async function createOrg(rc: Rc<unknown, unknown, CreateOrgBody>): Promise<Reply> {
  const me = await users(rc).byId(rc.caller!.id);
  if (!me) throw fail.unauthorized();
  return createOrgFor(rc, me, rc.body);
}

/** POST /admin/users/{username}/orgs — a site admin creates an organization owned by that user. */
export async function adminCreateOrg(rc: Rc<{ username: string }, unknown, CreateOrgBody>): Promise<Reply> {
  const owner = await userByName(rc, rc.params.username);
  if (owner.type !== 'user') throw fail.validation('username', 'an organization cannot own an organization');
  return createOrgFor(rc, owner, rc.body);
}

/** GET /orgs/{org} */
export async function getOrg(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  return { status: 200, body: toApiOrg(org, users(rc)) };
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
  return { status: 200, body: page.map((o) => toApiOrg(o, users(rc))), headers };
}

/** GET /user/orgs — every organization the caller belongs to. */
export async function listMyOrgs(rc: Rc): Promise<Reply> {
  return orgListReply(rc, await orgs(rc).orgIdsOf(rc.caller!.id));
}

/**
 * GET /users/{username}/orgs — memberships are private (Gitea's default "concealed" membership): the user
 * themself and site admins see all of them, another member sees only the organizations they share.
 */
export async function listUserOrgs(rc: Rc<{ username: string }>): Promise<Reply> {
  const user = await userByName(rc, rc.params.username);
  const caller = rc.caller;
  let ids: number[] = [];
  if (caller && (caller.isAdmin || caller.id === user.id)) {
    ids = await orgs(rc).orgIdsOf(user.id);
  } else if (caller) {
    const mine = new Set(await orgs(rc).orgIdsOf(caller.id));
    ids = (await orgs(rc).orgIdsOf(user.id)).filter((id) => mine.has(id));
  }
  return orgListReply(rc, ids);
}

/** GET /orgs/{org}/teams — members and site admins; others 403 (the organization itself is public). */
export async function listTeams(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canView(rc, org.id, rc.caller))) throw fail.forbidden('only organization members may list its teams');
  const { page, headers } = pageOf(rc, await orgs(rc).teamsOfOrg(org.id));
  return { status: 200, body: page.map(toApiTeam), headers };
}

interface CreateTeamBody {
  name: string;
  description?: string;
  permission: Exclude<TeamPermission, 'owner'>;
  includes_all_repositories: boolean;
}

/** POST /orgs/{org}/teams — owners only. */
export async function createTeam(rc: Rc<{ org: string }, unknown, CreateTeamBody>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  if (!(await canManage(rc, org.id, rc.caller!))) throw fail.forbidden('only organization owners manage teams');
  const team = await orgs(rc).createTeam(org.id, {
    name: rc.body.name,
    description: rc.body.description,
    permission: rc.body.permission ?? 'read',
    includesAllRepos: rc.body.includes_all_repositories ?? false,
  });
  const stored = (await orgs(rc).teamById(team.id)) ?? team;
  return { status: 201, body: toApiTeam(stored) };
}

/** GET /teams/{id} */
export async function getTeam(rc: Rc<{ id: number }>): Promise<Reply> {
  return { status: 200, body: toApiTeam(await visibleTeam(rc, rc.params.id)) };
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

/** GET /orgs/{org}/members — every member for fellow members and site admins; memberships are concealed from others. */
export async function listOrgMembers(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const ids = (await canView(rc, org.id, rc.caller)) ? await orgs(rc).memberIdsOfOrg(org.id) : [];
  return userListReply(rc, ids);
}

/** GET /orgs/{org}/members/{username} — 204 member, 404 not (or not visible to the caller). */
export async function checkOrgMember(rc: Rc<{ org: string; username: string }>): Promise<Reply> {
  const org = await orgByName(rc, rc.params.org);
  const user = await userByName(rc, rc.params.username);
  if (!(await canView(rc, org.id, rc.caller))) throw fail.notFound();
  if (!(await orgs(rc).isMember(org.id, user.id))) throw fail.notFound();
  return { status: 204 };
}

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
