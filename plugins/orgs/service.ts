// Teams and team membership: the OrgsService other plugins use, plus the mutations the orgs routes perform.
import { fail } from '../../core/errors.js';
import type { Caller, JsonPieces, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { crashPoint } from '../lib/crash-points.js';
import { DocJson } from '../lib/doc-json.js';
import { toApiOrg } from './convert.js';
import type { AccessChangedEvent } from '../../schemas/events.js';
import { allUnits, settleUnits, toStored, unitsOf } from './units.js';
import {
  TEAM_DELETED,
  type Account,
  type AccountVisibility,
  type TeamUnits,
  type NewOrgInput,
  type OrgsService,
  type TeamPermission,
  type TeamRecord,
  type UsersService,
  type VisibilityWitnessHandle,
} from '../../schemas/services.js';

export const TEAMS = 'teams';
export const TEAM_MEMBERS = 'team_members';
export const OWNERS_TEAM_NAME = 'Owners';
/** One row per publicized membership (Gitea's org_user.is_public): absent = concealed, the default. */
export const PUBLIC_MEMBERS = 'org_public_members';

export interface PublicMemberRecord {
  [key: string]: unknown;
  orgId: number;
  userId: number;
  createdAt: string;
}
/** Organization creates in progress (see `createOrg`): what the start-up pass finishes after a crash. */
export const ORG_INTENTS = 'org_intents';

export interface OrgIntent {
  [key: string]: unknown;
  id: number;
  lowerName: string;
  ownerId: number;
  createdAt: string;
}

/** One row per (team, user). `owners` copies the team's isOwners flag so "is owner" is one indexed lookup. */
export interface MembershipRecord {
  [key: string]: unknown;
  teamId: number;
  orgId: number;
  userId: number;
  owners: boolean;
  createdAt: string;
}

/** Users whose teams are kept (beyond: the oldest goes). */
const TEAMS_KEPT_USERS = 4096;

export class Orgs implements OrgsService {
  readonly teams: Collection<TeamRecord>;
  readonly members: Collection<MembershipRecord>;
  readonly publicMembers: Collection<PublicMemberRecord>;
  private readonly intents: Collection<OrgIntent>;

  /**
   * Set at start: told right after every membership row written or deleted (a private user is visible to the users
   * sharing an organization with it), also a removal undone by `keepAnOwner`.
   */
  witness: VisibilityWitnessHandle | null = null;
  /** Bumped right after every membership or team row written or deleted: every kept `teamsKept` entry is void. */
  private membershipEpoch = 0;
  /**
   * Per user, its teams (frozen) and organizations as last read, while `epoch` is current. Every signed-in request
   * that checks access asks for them (repository access: `teamsOf`; hidden owners: `orgIdsOf`): two store reads each
   * time otherwise. Only this service writes the membership and team collections, so it knows every change.
   */
  private readonly teamsKept = new Map<number, { epoch: number; teams: readonly TeamRecord[]; orgIds: readonly number[] }>();

  /**
   * Organization JSON per stored account version (made on first use: the schema is compiled after construction), in
   * two views: 0 for anonymous callers (no email), 1 for signed-in ones (toApiOrg's rule).
   */
  private orgJson: DocJson<Account> | null = null;

  constructor(private readonly ctx: PluginContext) {
    this.intents = ctx.store.collection<OrgIntent>(ORG_INTENTS);
    this.publicMembers = ctx.store.collection<PublicMemberRecord>(PUBLIC_MEMBERS);
    this.teams = ctx.store.collection<TeamRecord>(TEAMS);
    this.members = ctx.store.collection<MembershipRecord>(TEAM_MEMBERS);
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  /** Organizations as a JSON array for `viewer`, each serialised once per stored version and view. */
  orgsJson(list: readonly Account[], viewer: Caller | null): JsonPieces {
    if (this.orgJson === null) {
      const serialize = this.ctx.serializer({ $ref: 'forgekit/Organization' });
      this.orgJson = new DocJson<Account>((org, view) => serialize(toApiOrg(org, this.users, view === 1)));
    }
    const view = viewer === null ? 0 : 1;
    return this.orgJson.list(list, () => view);
  }

  // ---- OrgsService ----

  async isOwner(orgId: number, userId: number): Promise<boolean> {
    return (await this.members.findOne({ userId, orgId, owners: true })) !== null;
  }

  async isMember(orgId: number, userId: number): Promise<boolean> {
    return (await this.members.findOne({ userId, orgId })) !== null;
  }

  async orgIdsOf(userId: number): Promise<number[]> {
    return [...(await this.membershipsOf(userId)).orgIds];
  }

  /** The user's teams (frozen records, ascending ids), optionally only those of these organizations. */
  async teamsOf(userId: number, orgIds?: number[]): Promise<TeamRecord[]> {
    const { teams } = await this.membershipsOf(userId);
    if (!orgIds) return [...teams];
    if (teams.length === 0) return [];
    const wanted = new Set(orgIds);
    return teams.filter((t) => wanted.has(t.orgId));
  }

  /** Every membership or team change: kept teams are void, and so are the users plugin's visibility verdicts. */
  private membershipChanged(): void {
    this.membershipEpoch++;
    this.witness?.changed();
  }

  /**
   * The user's teams and organizations: kept ones while no membership or team changed, else read (and kept unless a
   * change came while reading). An organization whose team is gone (a crash between the two deletes) still counts.
   */
  private async membershipsOf(userId: number): Promise<{ teams: readonly TeamRecord[]; orgIds: readonly number[] }> {
    const epoch = this.membershipEpoch;
    const kept = this.teamsKept.get(userId);
    if (kept !== undefined && kept.epoch === epoch) return kept;
    const rows = await this.members.find({ userId }, { projection: { teamId: 1, orgId: 1 } });
    const orgIds = Object.freeze([...new Set(rows.map((r) => r.orgId))].sort((a, b) => a - b));
    const teams = rows.length === 0 ? [] : await this.teams.find({ id: { $in: rows.map((r) => r.teamId) } }, { sort: { id: 1 } });
    const made = { epoch, teams: Object.freeze(teams.map((t) => Object.freeze(t))), orgIds };
    if (this.membershipEpoch === epoch) {
      // The oldest user goes first (insertion order): a hit never rewrites the map.
      if (kept === undefined && this.teamsKept.size >= TEAMS_KEPT_USERS) this.teamsKept.delete(this.teamsKept.keys().next().value!);
      this.teamsKept.set(userId, made);
    }
    return made;
  }

  membershipStamp(): number | null {
    const members = this.members.writeGeneration();
    const teams = this.teams.writeGeneration();
    // Both only grow, so their sum changes whenever either does.
    return members === null || teams === null ? null : members + teams;
  }

  async teamById(id: number): Promise<TeamRecord | null> {
    return this.teams.findOne({ id });
  }

  async teamByName(orgId: number, name: string): Promise<TeamRecord | null> {
    return this.teams.findOne({ orgId, lowerName: name.toLowerCase() });
  }

  async canCreateRepo(orgId: number, userId: number): Promise<boolean> {
    const rows = await this.members.find({ orgId, userId }, { projection: { teamId: 1, owners: 1 } });
    if (rows.some((r) => r.owners)) return true;
    if (rows.length === 0) return false;
    const teams = await this.teams.find({ id: { $in: rows.map((r) => r.teamId) } }, { projection: { canCreateOrgRepo: 1 } });
    return teams.some((t) => t.canCreateOrgRepo === true);
  }

  /**
   * The highest access any of the user's teams in the organization gives (Gitea's GetOrgUserMaxAuthorizeLevel):
   * `owner` for the Owners team; null when the user is in none.
   */
  async maxTeamPermission(orgId: number, userId: number): Promise<TeamPermission | null> {
    const rows = await this.members.find({ orgId, userId }, { projection: { teamId: 1 } });
    if (rows.length === 0) return null;
    const order: TeamPermission[] = ['none', 'read', 'write', 'admin', 'owner'];
    let best = 0;
    for (const team of await this.teams.find({ id: { $in: rows.map((r) => r.teamId) } })) best = Math.max(best, order.indexOf(team.permission));
    return order[best]!;
  }

  /** `GET /orgs`: public organizations, limited ones too for signed-in unrestricted callers, every one for site admins. */
  async visibleOrgPage(caller: Caller | null, page: { skip: number; limit: number }): Promise<{ orgs: Account[]; total: number }> {
    // Restricted accounts see public organizations only (Gitea's GetAll: limited ones need an unrestricted caller).
    const visibility: AccountVisibility[] | undefined = caller?.isAdmin ? undefined : caller && caller.restricted !== true ? ['public', 'limited'] : ['public'];
    const { accounts, total } = await this.users.accountPage({ type: 'org', visibility, ...page });
    return { orgs: accounts, total };
  }

  // ---- public membership ----

  async isPublicMember(orgId: number, userId: number): Promise<boolean> {
    return (await this.publicMembers.findOne({ orgId, userId })) !== null;
  }

  /** Publicizes (true) or conceals (false) a membership; 404 when the user is not a member. Idempotent. */
  async setPublicMembership(orgId: number, userId: number, visible: boolean): Promise<void> {
    if (!visible) {
      await this.publicMembers.deleteOne({ orgId, userId });
      return;
    }
    if (!(await this.isMember(orgId, userId))) throw fail.notFound();
    try {
      await this.publicMembers.insertOne({ orgId, userId, createdAt: nowRfc3339() });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    // Left the organization meanwhile: no public membership without a membership.
    if (!(await this.isMember(orgId, userId))) await this.publicMembers.deleteOne({ orgId, userId });
  }

  async publicMemberIds(orgId: number): Promise<number[]> {
    return (await this.publicMembers.find({ orgId }, { projection: { userId: 1 } })).map((r) => r.userId);
  }

  /** Organizations where the user's membership is public. */
  async publicOrgIdsOf(userId: number): Promise<number[]> {
    return (await this.publicMembers.find({ userId }, { projection: { orgId: 1 } })).map((r) => r.orgId);
  }

  /** A user who is in no team of the organization any more has no public membership either. */
  private async dropPublicIfGone(orgId: number, userId: number): Promise<void> {
    if (!(await this.isMember(orgId, userId))) await this.publicMembers.deleteOne({ orgId, userId });
  }

  /** Visibility witness: a private organization is seen by its members, a private user by those sharing an org. */
  async sharesOrg(account: Account, viewerId: number): Promise<boolean> {
    if (account.type === 'org') return this.isMember(account.id, viewerId);
    const theirs = new Set(await this.orgIdsOf(account.id));
    if (theirs.size === 0) return false;
    return (await this.orgIdsOf(viewerId)).some((id) => theirs.has(id));
  }

  /** The users among `userIds` that share an organization with `viewerId` (one membership read per side). */
  async usersSharingOrg(userIds: readonly number[], viewerId: number): Promise<Set<number>> {
    const out = new Set<number>();
    if (userIds.length === 0) return out;
    const mine = await this.orgIdsOf(viewerId);
    if (mine.length === 0) return out;
    const rows = await this.members.find({ userId: { $in: [...new Set(userIds)] }, orgId: { $in: mine } }, { projection: { userId: 1 } });
    for (const r of rows) out.add(r.userId);
    return out;
  }

  // ---- mutations behind the routes ----

  /**
   * Creates the organization account and its Owners team with `owner` in it; no half-made org is left behind: an
   * intent row (name, owner) is written first and removed last, and the start-up pass (`finishUnfinished`) completes
   * or rolls back any organization a crash interrupted.
   */
  async createOrg(input: NewOrgInput, owner: Account): Promise<Account> {
    const intent: OrgIntent = { id: await this.ctx.store.nextId(ORG_INTENTS), lowerName: input.username.toLowerCase(), ownerId: owner.id, createdAt: nowRfc3339() };
    await this.intents.insertOne(intent);
    try {
      const org = await this.users.createOrg(input);
      crashPoint('org.create:after-account');
      try {
        await this.ensureOwners(org.id, owner.id, 'org.create:after-team');
      } catch (err) {
        await this.users.deleteAccount(org);
        throw err;
      }
      return org;
    } finally {
      await this.intents.deleteOne({ id: intent.id });
    }
  }

  /** The Owners team of `orgId` with `ownerId` in it (idempotent: either may already exist). */
  private async ensureOwners(orgId: number, ownerId: number, point?: string): Promise<void> {
    let team = await this.ownersTeam(orgId);
    if (!team) {
      team = await this.insertTeam(orgId, { name: OWNERS_TEAM_NAME, description: '', permission: 'owner', includesAllRepos: true, isOwners: true, units: toStored(allUnits('admin')), canCreateOrgRepo: true });
      if (point) crashPoint(point);
    }
    await this.addMember(team, ownerId);
  }

  /**
   * Start-up repair of organization creates a crash interrupted: an org that exists gets its Owners team and
   * owner (finished, as the owner asked for it), unless the owner is gone (then the empty org is removed).
   */
  async finishUnfinished(): Promise<string[]> {
    const done: string[] = [];
    for (const intent of await this.intents.find({})) {
      const org = await this.users.byName(intent.lowerName);
      if (org && org.type === 'org' && !(await this.members.findOne({ orgId: org.id, owners: true }))) {
        const owner = await this.users.byId(intent.ownerId);
        if (owner) {
          await this.ensureOwners(org.id, owner.id);
          done.push(`organization ${org.login}: Owners team completed after a crash`);
        } else {
          await this.users.deleteAccount(org);
          done.push(`organization ${org.login}: its creator is gone; the half-made organization was removed`);
        }
      }
      await this.intents.deleteOne({ id: intent.id });
    }
    if (done.length) this.ctx.log.warn({ done }, 'orgs: repaired creates a crash interrupted');
    return done;
  }

  /** Organizations without any owner (made by an older version, or by hand): reported, never guessed at. */
  async ownerless(): Promise<string[]> {
    const orgs = await this.ctx.store.collection<Account>('users').find({ type: 'org' }, { projection: { id: 1, login: 1 } });
    const out: string[] = [];
    for (const org of orgs) {
      if (!(await this.members.findOne({ orgId: org.id, owners: true }))) out.push(`organization ${org.login} has no owner`);
    }
    return out;
  }

  async createTeam(orgId: number, input: {
    name: string; description?: string; permission: TeamPermission; includesAllRepos: boolean; canCreateOrgRepo: boolean;
    units?: string[]; unitsMap?: Record<string, string>;
  }): Promise<TeamRecord> {
    const existing = await this.teams.findOne({ orgId, lowerName: input.name.toLowerCase() });
    if (existing) throw fail.conflict(`team "${input.name}" already exists in this organization`);
    const settled = settleUnits(input.permission, { units: input.units, units_map: input.unitsMap });
    return this.insertTeam(orgId, {
      name: input.name, description: input.description ?? '', includesAllRepos: input.includesAllRepos, isOwners: false,
      canCreateOrgRepo: input.canCreateOrgRepo, permission: settled.permission, units: toStored(settled.units),
    });
  }

  /** `PATCH /teams/{id}` (Gitea's EditTeam): the Owners team keeps its permission, repositories and repo creation. */
  async editTeam(team: TeamRecord, input: {
    name?: string; description?: string; permission?: TeamPermission; includesAllRepos?: boolean; canCreateOrgRepo?: boolean;
    units?: string[]; unitsMap?: Record<string, string>;
  }): Promise<TeamRecord> {
    const set: Partial<TeamRecord> = {};
    if (input.name) {
      if (team.isOwners && input.name.toLowerCase() !== team.lowerName) throw fail.validation('name', 'the Owners team cannot be renamed');
      set.name = input.name;
      set.lowerName = input.name.toLowerCase();
    }
    if (input.description !== undefined) set.description = input.description;
    if (input.canCreateOrgRepo !== undefined) set.canCreateOrgRepo = team.isOwners || input.canCreateOrgRepo;
    if (!team.isOwners) {
      // Gitea changes includes_all_repositories only together with a permission.
      if (input.includesAllRepos !== undefined && input.permission !== undefined) set.includesAllRepos = input.includesAllRepos;
      const settled = settleUnits(input.permission ?? team.permission, { units: input.units, units_map: input.unitsMap }, unitsOf(team));
      set.permission = settled.permission;
      set.units = toStored(settled.units);
    }
    set.updatedAt = nowRfc3339();
    try {
      const after = await this.teams.findOneAndUpdate({ id: team.id }, { $set: set });
      this.membershipChanged();
      if (!after) throw fail.notFound();
      if (after.permission !== team.permission || after.includesAllRepos !== team.includesAllRepos || JSON.stringify(after.units) !== JSON.stringify(team.units)) {
        await this.accessChanged('team', { userIds: await this.memberIdsOfTeam(team.id), ownerIds: [team.orgId] });
      }
      return after;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.conflict(`team "${input.name}" already exists in this organization`);
      throw err;
    }
  }

  private async insertTeam(orgId: number, input: Pick<TeamRecord, 'name' | 'description' | 'permission' | 'includesAllRepos' | 'isOwners' | 'units' | 'canCreateOrgRepo'>): Promise<TeamRecord> {
    const now = nowRfc3339();
    const team: TeamRecord = {
      id: await this.ctx.store.nextId(TEAMS),
      orgId,
      name: input.name,
      lowerName: input.name.toLowerCase(),
      description: input.description,
      permission: input.permission,
      includesAllRepos: input.includesAllRepos,
      isOwners: input.isOwners,
      units: input.units,
      canCreateOrgRepo: input.isOwners || input.canCreateOrgRepo === true,
      createdAt: now,
      updatedAt: now,
    };
    try {
      const made = await this.teams.insertOne(team);
      this.membershipChanged();
      return made;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.conflict(`team "${input.name}" already exists in this organization`);
      throw err;
    }
  }

  async ownersTeam(orgId: number): Promise<TeamRecord | null> {
    return this.teams.findOne({ orgId, isOwners: true });
  }

  /** Idempotent: adding a member twice is a no-op. */
  async addMember(team: TeamRecord, userId: number): Promise<void> {
    try {
      await this.members.insertOne({ teamId: team.id, orgId: team.orgId, userId, owners: team.isOwners, createdAt: nowRfc3339() });
      this.membershipChanged();
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return;
    }
    await this.accessChanged('team_member', { userIds: [userId], ownerIds: [team.orgId] });
  }

  /** Idempotent; the Owners team never loses its last member (422). */
  async removeMember(team: TeamRecord, userId: number): Promise<void> {
    const removed = await this.members.findOneAndDelete({ teamId: team.id, userId });
    if (!removed) return;
    this.membershipChanged();
    if (team.isOwners) await this.keepAnOwner(team, [removed]);
    await this.dropPublicIfGone(team.orgId, userId);
    await this.accessChanged('team_member', { userIds: [userId], ownerIds: [team.orgId] });
  }

  /** Removes the user from every team of the organization (leaving it); the last owner cannot leave (422). */
  async removeFromOrg(orgId: number, userId: number): Promise<void> {
    const rows = await this.members.find({ userId, orgId });
    const removed: MembershipRecord[] = [];
    for (const row of rows) {
      const gone = await this.members.findOneAndDelete({ teamId: row.teamId, userId });
      if (!gone) continue;
      this.membershipChanged();
      removed.push(gone);
    }
    const ownerRows = removed.filter((r) => r.owners);
    if (ownerRows.length > 0) {
      const team = await this.teamById(ownerRows[0]!.teamId);
      if (team) await this.keepAnOwner(team, removed);
    }
    await this.dropPublicIfGone(orgId, userId);
    if (removed.length > 0) await this.accessChanged('org_member', { userIds: [userId], ownerIds: [orgId] });
  }

  /**
   * `access.changed` after a membership or team grant changed (subscribers keep copies of readability). The change is
   * stored already: a failing listener is logged, never turned into a failed request.
   */
  private async accessChanged(reason: AccessChangedEvent['reason'], scope: Omit<AccessChangedEvent, 'reason'>): Promise<void> {
    try {
      await this.ctx.events.emit('access.changed', { reason, ...scope });
    } catch (err) {
      this.ctx.log.error({ err, event: 'access.changed' }, 'event listener failed');
    }
  }

  /**
   * Delete first, then count: two concurrent removals of the last two owners cannot both succeed, because the
   * later one sees zero owners left and puts its rows back.
   */
  private async keepAnOwner(ownersTeam: TeamRecord, removed: MembershipRecord[]): Promise<void> {
    if ((await this.members.count({ teamId: ownersTeam.id })) > 0) return;
    for (const row of removed) {
      try {
        await this.members.insertOne(row);
        this.membershipChanged();
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
    throw fail.validation('username', 'the last owner of an organization cannot be removed');
  }

  async deleteTeam(team: TeamRecord): Promise<void> {
    if (team.isOwners) throw fail.validation('id', 'the Owners team cannot be deleted');
    const memberIds = await this.memberIdsOfTeam(team.id);
    await this.members.deleteMany({ teamId: team.id });
    this.membershipChanged();
    await this.teams.deleteOne({ id: team.id });
    this.membershipChanged();
    for (const userId of memberIds) await this.dropPublicIfGone(team.orgId, userId);
    await this.ctx.events.emit(TEAM_DELETED, { team });
    if (memberIds.length > 0) await this.accessChanged('team', { userIds: memberIds, ownerIds: [team.orgId] });
  }

  /** Distinct member user ids of an organization (any team). */
  async memberIdsOfOrg(orgId: number): Promise<number[]> {
    const rows = await this.members.find({ orgId }, { projection: { userId: 1 } });
    return [...new Set(rows.map((r) => r.userId))];
  }

  async memberIdsOfTeam(teamId: number): Promise<number[]> {
    const rows = await this.members.find({ teamId }, { projection: { userId: 1 } });
    return rows.map((r) => r.userId);
  }

  async teamsOfOrg(orgId: number): Promise<TeamRecord[]> {
    return this.teams.find({ orgId }, { sort: { lowerName: 1, id: 1 } });
  }

  /** A user who is the only owner of organizations cannot be deleted: the organizations would be ownerless. */
  async deletionBlockers(account: Account): Promise<string[]> {
    if (account.type !== 'user') return [];
    const ownerRows = await this.members.find({ userId: account.id, owners: true });
    const alone: number[] = [];
    for (const row of ownerRows) {
      if ((await this.members.count({ teamId: row.teamId })) <= 1) alone.push(row.orgId);
    }
    if (alone.length === 0) return [];
    const names = [...(await this.users.byIds(alone)).values()].map((o) => o.login).sort();
    return [`is the last owner of ${names.length === 1 ? 'organization' : 'organizations'} ${names.join(', ')}; add another owner or delete ${names.length === 1 ? 'it' : 'them'} first`];
  }

  /** `account.deleted`: an organization takes its teams with it; a user leaves every team. */
  async onAccountDeleted(account: Account): Promise<void> {
    if (account.type === 'org') {
      const teams = await this.teams.find({ orgId: account.id });
      await this.members.deleteMany({ orgId: account.id });
      this.membershipChanged();
      await this.publicMembers.deleteMany({ orgId: account.id });
      await this.teams.deleteMany({ orgId: account.id });
      this.membershipChanged();
      for (const team of teams) await this.ctx.events.emit(TEAM_DELETED, { team });
    } else {
      await this.members.deleteMany({ userId: account.id });
      this.membershipChanged();
      await this.publicMembers.deleteMany({ userId: account.id });
    }
  }
}
