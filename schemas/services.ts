// The services plugins expose to their dependents: the typed vocabulary plugins share without importing each other.
import type { Caller, JsonPieces } from '../core/plugin.js';

/** A stored account: an individual user or an organization (they share one namespace, like Gitea). */
export interface Account {
  [key: string]: unknown;
  id: number;
  login: string;
  /** Lower-cased login: every lookup by name goes through it (unique index). */
  lowerName: string;
  type: 'user' | 'org';
  fullName: string;
  email: string;
  /** Absent for organizations. */
  lowerEmail?: string;
  isAdmin: boolean;
  /** scrypt hash and salt (hex); absent for organizations. Never serialised. */
  passwordHash?: string;
  passwordSalt?: string;
  description: string;
  website: string;
  location: string;
  numFollowers: number;
  numFollowing: number;
  numStars: number;
  createdAt: string;
  updatedAt: string;
}

export interface ApiUser {
  id: number;
  login: string;
  login_name: string;
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  html_url: string;
  language: string;
  is_admin: boolean;
  last_login: string | null;
  created: string;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  visibility: 'public' | 'limited' | 'private';
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
  username: string;
}

export interface NewUserInput {
  username: string;
  email: string;
  password: string;
  fullName?: string;
  isAdmin?: boolean;
}

/**
 * What a site admin (`PATCH /admin/users/{u}`, Gitea's EditUserOption) or the account itself (`PATCH /user/settings`)
 * may change; absent fields stay as they are. Stored on the account under the camelCase names in brackets.
 */
export interface AccountEdit {
  email?: string;
  password?: string;
  fullName?: string;
  website?: string;
  location?: string;
  description?: string;
  /** [loginName] the name at the authentication source (forgekit has only the local one, source 0). */
  loginName?: string;
  /** [active] false: the account may not sign in (Gitea's inactive accounts). */
  active?: boolean;
  /** [isAdmin] */
  admin?: boolean;
  /** [prohibitLogin] the account may not sign in. */
  prohibitLogin?: boolean;
  /** [restricted] Gitea's restricted accounts. */
  restricted?: boolean;
  /** [visibility] public | limited | private. */
  visibility?: 'public' | 'limited' | 'private';
  /** [mustChangePassword] */
  mustChangePassword?: boolean;
  /** [allowCreateOrganization] */
  allowCreateOrganization?: boolean;
  /** [allowGitHook] */
  allowGitHook?: boolean;
  /** [allowImportLocal] */
  allowImportLocal?: boolean;
  /** [maxRepoCreation] -1: the site default. */
  maxRepoCreation?: number;
  /** User settings: [language] [theme] [diffViewStyle] [hideEmail] [hideActivity]. */
  language?: string;
  theme?: string;
  diffViewStyle?: string;
  hideEmail?: boolean;
  hideActivity?: boolean;
}

export interface NewOrgInput {
  username: string;
  fullName?: string;
  description?: string;
  website?: string;
  location?: string;
  /** The organization's contact address (shown to signed-in callers; no uniqueness, it signs nobody in). */
  email?: string;
  visibility?: AccountVisibility;
  repoAdminChangeTeamAccess?: boolean;
}

/** Who sees an account (Gitea's VisibleType): everyone, signed-in callers, or members (orgs) / acquaintances (users). */
export type AccountVisibility = 'public' | 'limited' | 'private';

/** What `PATCH /orgs/{org}` changes (Gitea's EditOrgOption); absent keys stay as they are. */
export interface OrgChanges {
  fullName?: string;
  email?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: AccountVisibility;
  repoAdminChangeTeamAccess?: boolean;
}

/**
 * A plugin's say in whether a viewer sees a private account (Gitea's IsUserVisibleToViewer / HasOrgOrUserVisible):
 * orgs answers membership (an organization's members, users sharing an organization), follow answers "the private
 * user follows the viewer". Any witness saying yes makes the account visible.
 */
export type VisibilityWitness = (account: Account, viewerId: number) => Promise<boolean>;

/**
 * The same question for many private users at once (a user search's private matches): the ids among `userIds` the
 * witness makes visible to `viewerId`, in one or two store reads instead of one per account.
 */
export type VisibilityBatchWitness = (userIds: readonly number[], viewerId: number) => Promise<Set<number>>;

/**
 * What `addVisibilityWitness` gives back. A witness registered with `{ reportsChanges: true }` promises to call
 * `changed()` right after EVERY write that can change one of its answers (memberships, follows), also one undone
 * later or followed by a failure: then the users plugin keeps each viewer's verdicts about private users until such
 * a call (an answer read before the write and kept is void from that call on; until it, the write is not yet seen,
 * as if it had come a moment later). While any registered witness does not report changes, nothing is kept.
 */
export interface VisibilityWitnessHandle {
  changed(): void;
}

export interface VisibilityWitnessOptions {
  /** The witness calls its handle's `changed()` after every write that can change an answer (see the handle). */
  reportsChanges?: boolean;
}

export interface EmailAddress {
  email: string;
  verified: boolean;
  primary: boolean;
}

/** Exposed by the `users` plugin. */
export interface JsonListOptions {
  readableOnly?: boolean;
  envelope?: { before: string; after: string };
}

export interface UsersService {
  /** Case-insensitive lookup of a user or organization. */
  byName(name: string): Promise<Account | null>;
  byId(id: number): Promise<Account | null>;
  /** The accounts of these ids (ids may repeat; ids of no account are absent). */
  byIds(ids: number[]): Promise<Map<number, Account>>;
  /**
   * The user whose primary address, one of whose verified addresses, or whose no-reply address (`noreplyEmail`) is
   * `email` (case-insensitive); null when none (organizations have no address). For attributing commits to
   * accounts, as Gitea's GetUserByEmail.
   */
  byEmail(email: string): Promise<Account | null>;
  /**
   * The account's no-reply address `<login>@noreply.<host>` (Gitea's placeholder email): what commits forgekit writes
   * and webhook payloads carry instead of the address the API hides (decisions.md).
   */
  noreplyEmail(account: Pick<Account, 'login'>): string;
  /**
   * Who a commit forgekit writes for the account is from (auto-init, API file edits, tags, merges): its full name (or
   * login) and its no-reply address, or its email when the account chose to show it (`hide_email: false`;
   * decisions.md: a public clone must not reveal what the API hides).
   */
  commitIdentity(account: Account): { name: string; email: string };
  /** The API User shape for a viewer: email only for the account itself and site admins. */
  toApi(account: Account, viewer: Caller | null): ApiUser;
  /** Whether `viewer` sees the account's email in its User object (what makes two renderings of it differ). */
  seesEmail(account: Account, viewer: Caller | null): boolean;
  /**
   * The JSON text of `toApi(account, viewer)` (the User schema's serialisation), made once per stored account
   * version and view: for replies that embed an owner in each item (repository lists). The same string object is
   * returned while the account is unchanged, so callers may compare texts by identity first.
   */
  jsonText(account: Account, viewer: Caller | null): string;
  /**
   * The UTF-8 JSON of a UserList as `viewer` sees it (what `toApi` gives), built from pieces serialised once per
   * account version and view: for list replies with `type: 'json-text'` (the same convention as repos' `toJsonList`).
   */
  toJsonList(accounts: readonly Account[], viewer: Caller | null): JsonPieces;
  /** Validates (422 naming the field) and creates; duplicates of name or email → 422. */
  createUser(input: NewUserInput): Promise<Account>;
  createOrg(input: NewOrgInput): Promise<Account>;
  /**
   * Applies an edit to a user (422 naming the field for a bad value, 400 when it would demote the last site admin);
   * a change of password, admin flag, sign-in rights or primary email ends cached sign-ins at once. Returns the stored
   * account.
   */
  editAccount(account: Account, edit: AccountEdit): Promise<Account>;
  /**
   * Throws Gitea's 403 ("This account is prohibited from signing in…") for an account that may not sign in
   * (`prohibit_login`, or `active: false`); call it once a credential of the account was found valid.
   */
  checkSignIn(account: Account): void;
  /** A page of accounts of one type in name order (Gitea's admin lists), and how many there are. */
  listAccounts(type: 'user' | 'org', skip: number, limit: number, filter?: { loginName?: string }): Promise<{ accounts: Account[]; total: number }>;
  // ---- organizations' profile and account visibility (orgs engineer) ----
  /** Validates (422 naming the field) and stores an organization's profile changes; returns the stored account. */
  updateOrg(org: Account, changes: OrgChanges): Promise<Account>;
  /**
   * Whether `viewer` sees `account` (its profile and everything listed under it): public accounts everyone, limited
   * ones signed-in callers, private ones the account itself, site admins, and whoever a visibility witness accepts.
   */
  visibleTo(account: Account, viewer: Caller | null): Promise<boolean>;
  /** Ids of the accounts (of one type, or all) `viewer` does not see: list filters exclude them. Empty for admins. */
  hiddenIds(viewer: Caller | null, type?: 'user' | 'org'): Promise<number[]>;
  /** `hiddenIds` among `ids` only: its cost grows with `ids`, not with the site's non-public accounts. */
  hiddenAmong(ids: readonly number[], viewer: Caller | null, type?: 'user' | 'org'): Promise<number[]>;
  /** Registers a visibility witness (plugins call it at start); the handle reports changes of its answers. */
  addVisibilityWitness(witness: VisibilityWitness, batch?: VisibilityBatchWitness, options?: VisibilityWitnessOptions): VisibilityWitnessHandle;
  /** A page of accounts of one type with one of these visibilities (all when absent), in name order, and the total. */
  accountPage(options: { type: 'user' | 'org'; visibility?: AccountVisibility[]; skip: number; limit: number }): Promise<{ accounts: Account[]; total: number }>;
  /**
   * Stores an uploaded avatar for an account (Gitea's UpdateUserAvatarOption `image`: base64 PNG, JPEG, GIF or WebP,
   * sniffed; 422 naming `image` otherwise) — organizations' avatars come through here; `null` removes it.
   */
  setAvatar(uid: number, image: string | null): Promise<void>;
  /** The accounts that are not public (limited or private), optionally among `ids`: index-backed, usually few. */
  nonPublicAccounts(ids?: number[]): Promise<Array<Pick<Account, 'id' | 'type'> & { visibility: AccountVisibility }>>;
  /**
   * The same accounts' ids as shared sets, from memory: the same objects (never changed) until a non-public account
   * comes, goes or changes visibility, so callers may derive answers once per object (repository access does).
   */
  nonPublicOwners(): NonPublicOwners;
  /** Replaces a user's password (422 naming `password` when too short); signs out cached password checks. */
  setPassword(account: Account, password: string): Promise<void>;
  /**
   * Removes the account; emits `account.deleted` with `{ account }` first so owners of related rows clean up. Never
   * cascades silently: when a deletion guard names a blocker (repositories it owns, organizations it alone owns)
   * it throws 422 naming them; with `purge` the guards first remove what they can (repositories) and only what
   * remains blocks.
   */
  deleteAccount(account: Account, options?: { purge?: boolean }): Promise<void>;
  /** Registers what blocks (or, with purge, is removed before) an account's deletion; plugins call it at start. */
  addDeletionGuard(guard: DeletionGuard): void;
  /**
   * Renames a user (Gitea's admin rename): the name is checked (422) and must be free (422); every rename participant
   * prepares (a reason is a 422 and nothing changes), the account row changes in one update, then the participants
   * commit (a failure there puts the old name back and aborts them). Emits `account.renamed`. Same name: no-op.
   */
  renameAccount(account: Account, newName: string): Promise<Account>;
  /** Registers what else must follow an account's name (the git plugin's directories); plugins call it at start. */
  addRenameParticipant(participant: RenameParticipant): void;
  /** null when the name is acceptable, else the reason (charset, length, reserved, taken is not checked here). */
  checkName(name: string): string | null;
  /** Adds `delta` to a counter field (`numFollowers`, `numFollowing`, `numStars`) atomically. */
  incrementCounter(id: number, field: 'numFollowers' | 'numFollowing' | 'numStars', delta: number): Promise<void>;
  /** The account's email addresses: the primary (always verified) plus added ones. */
  emailsOf(userId: number): Promise<EmailAddress[]>;
  /**
   * Call AFTER storing a change to an account's password, admin flag, sign-in rights, name or primary email: cached
   * sign-ins (passwords and tokens) of that account, and checks already running for it, stop counting at once.
   */
  credentialsChanged(uid: number): void;
  /** The credential generation now: take it before reading what a credential check depends on. */
  credentialStamp(): number;
  /** False once the account changed (or was deleted) after `stamp` was taken: a result from then is stale. */
  credentialsCurrent(uid: number, stamp: number): boolean;
}

/** A plugin's say in an account deletion (see `UsersService.deleteAccount`). */
export interface DeletionGuard {
  /** What still blocks deleting `account` (e.g. `owns repositories a/x, a/y`); empty when nothing does. */
  blockers(account: Account, options: { purge: boolean }): Promise<string[]>;
  /** With `purge`, removes what this guard's blockers would name (called only when no guard blocks a purge). */
  purge?(account: Account): Promise<void>;
}

/**
 * A plugin's part in an account rename (see `UsersService.renameAccount`). `from`/`to` are the logins as typed. A
 * participant that keeps state on disk records what it is about to do in `prepare` and converges to the account's
 * stored name at its next start, so a crash between the steps leaves nothing half-renamed.
 */
export interface RenameParticipant {
  /** Before the account changes: why it cannot be renamed (a 422), or null. */
  prepare(account: Account, from: string, to: string): Promise<string | null>;
  /** After the account row carries the new name. */
  commit(account: Account, from: string, to: string): Promise<void>;
  /** The rename is abandoned after `prepare` (or a failed `commit`): back to `from`. */
  abort(account: Account, from: string, to: string): Promise<void>;
}

/** Event names emitted by the users plugin. */
export const ACCOUNT_DELETED = 'account.deleted';
export const ACCOUNT_RENAMED = 'account.renamed';

/** Access levels, ordered: a higher mode includes every lower one. */
export const ACCESS = { none: 0, read: 1, write: 2, admin: 3, owner: 4 } as const;
export type AccessMode = (typeof ACCESS)[keyof typeof ACCESS];

/** A stored repository record (owned by the `repos` plugin). */
export interface RepoRecord {
  [key: string]: unknown;
  id: number;
  ownerId: number;
  name: string;
  lowerName: string;
  description: string;
  website: string;
  private: boolean;
  fork: boolean;
  /** The parent's id for forks, else null. */
  forkId: number | null;
  mirror: boolean;
  /** Maintained by the git storage capability when enabled; true / 0 otherwise. */
  empty: boolean;
  size: number;
  defaultBranch: string;
  numStars: number;
  numForks: number;
  numWatches: number;
  createdAt: string;
  updatedAt: string;
  mirrorUpdated: string | null;
  mirrorError: string | null;
  /** The repository's topics (Gitea's rules: lower case, at most 25), in name order; absent on records made before topics. */
  topics?: string[];
}

/** What the caller sees of a repository: the API Repository object. */
export type ApiRepository = Record<string, unknown>;

export interface RepoInitOptions {
  autoInit: boolean;
  gitignores: string;
  license: string;
  readme: string;
}

/**
 * The git storage capability registers itself with the repos service. Repos calls it inside create/delete so a
 * failure half-way leaves neither a record without storage nor storage without a record.
 */
export interface RepoStorageProvider {
  /** Checks templates etc. before anything is created; returns the reason (422) or null. */
  checkInit(init: RepoInitOptions): string | null;
  /** Creates the storage for a freshly inserted record; returns the initial `empty` and `size`. */
  create(repo: RepoRecord, owner: Account, init: RepoInitOptions): Promise<{ empty: boolean; size: number }>;
  /** Removes the storage of a deleted record. */
  remove(repo: RepoRecord, owner: Account): Promise<void>;
}

/** Exposed by the `repos` plugin: the one place that answers "what may this caller do on this repo?". */
/** A repository's counters that other plugins move (`ReposService.incrementCounter`). */
export type RepoCounter = 'numStars' | 'numForks' | 'numWatches' | 'numIssues' | 'numOpenIssues' | 'attachmentsSize';

export interface ReposService {
  byOwnerAndName(owner: string, name: string): Promise<RepoRecord | null>;
  byId(id: number): Promise<RepoRecord | null>;
  /** The records of these ids (ids may repeat; ids of no repository are absent). */
  byIds(ids: number[]): Promise<Map<number, RepoRecord>>;
  /** The lower-case names of every repository record of an owner (the git plugin's unadopted directories). */
  lowerNamesOf(ownerId: number): Promise<Set<string>>;
  /** The ids of every repository record of an owner (copies of the owner's visibility follow it). */
  idsOwnedBy(ownerId: number): Promise<number[]>;
  accessMode(caller: Caller | null, repo: RepoRecord): Promise<AccessMode>;
  /** Ids of the repository's collaborators (any permission). */
  collaboratorIds(repo: RepoRecord): Promise<number[]>;
  /**
   * Looks up owner/name for the caller. Missing or unreadable → 404 (never 403); readable but below `minimum`
   * → 403. Returns the record, its owner and the caller's mode. With `unit`, the mode is the caller's access to that
   * unit (a team's units_map, Gitea's UnitAccessMode): an unreadable unit is a 404 for issues and pulls (Gitea's
   * mustEnableIssuesOrPulls / mustAllowPulls) and a 403 for the others (reqRepoReader), below `minimum` a 403.
   * `unitMode` answers for any unit from the same grants (an issue route that finds a pull request asks for `pulls`).
   */
  resolve(caller: Caller | null, owner: string, name: string, minimum?: AccessMode, unit?: RepoUnit):
    Promise<{ repo: RepoRecord; owner: Account; mode: AccessMode; unitMode: (unit: RepoUnit) => AccessMode }>;
  /**
   * Throws 403 when the repository is archived (read-only, decisions.md): every operation that changes its content
   * (git push, file edits, issues, releases, mirror syncs) calls this after `resolve`. Settings stay editable
   * (`PATCH {archived:false}` unarchives).
   */
  assertWritable(repo: RepoRecord): void;
  /** Which of these repository ids the caller can read (for list filtering). */
  readableIds(caller: Caller | null, ids: number[]): Promise<Set<number>>;
  /** The owner's fork of a repository, if it has one. */
  forkOf(ownerId: number, parentId: number): Promise<RepoRecord | null>;
  /** The forks of a repository that the caller can read, oldest first: one page of them and how many there are. */
  forksOf(caller: Caller | null, parentId: number, page: { skip: number; limit: number }): Promise<{ repos: RepoRecord[]; total: number }>;
  /**
   * Whether the caller reads every public repository of the owners it may see (false for a restricted account, which
   * reads only what it is granted: lists must then take `grantedReadableIds` alone).
   */
  readsPublic(caller: Caller | null): boolean;
  /**
   * Ids of the repositories the caller reads beyond the public repositories of owners it may see (for index-backed
   * list filters): the private ones it reads, public ones of hidden owners it is granted, and for a restricted caller
   * every repository it reads. `blind` lists, per unit asked, those of them whose unit the caller may not read (a
   * team's units_map: issue search leaves their issues or pull requests out).
   */
  grantedReadableIds(caller: Caller | null, units?: readonly RepoUnit[]): Promise<{ ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }>;
  /**
   * The same set as `grantedReadableIds`, with whole owners kept whole: `ownerIds` are accounts all of whose private
   * repositories the caller reads (its own; organizations where one of its teams includes every repository), `ids`
   * the other repositories it reads beyond the public side. A list filters "owner in `ownerIds` and private" instead
   * of naming each repository, so its cost follows the caller's grants, not how many repositories they cover. Callers
   * whose grants are per repository anyway (restricted accounts, teams with per-unit access) get `ownerIds: []` and
   * every id, as from `grantedReadableIds`.
   */
  grantedReadableScope(caller: Caller | null, units?: readonly RepoUnit[]): Promise<{ ownerIds: number[]; ids: number[]; blind: Partial<Record<RepoUnit, number[]>> }>;
  /** API objects for the caller, in the given order, with owners, permissions and parents filled in. */
  toApi(repos: RepoRecord[], caller: Caller | null): Promise<ApiRepository[]>;
  /**
   * The UTF-8 JSON of a RepositoryList (what `toApi` would serialise to), built from pieces serialised once per
   * stored version: for list replies with `type: 'json-text'`. `readableOnly` leaves out repositories the caller
   * cannot read (rows of denormalised lists that lag a change); `envelope` wraps the array (e.g. `{"ok":true,"data":`
   * and `}`).
   */
  toJsonList(repos: RepoRecord[], caller: Caller | null, options?: JsonListOptions): Promise<JsonPieces>;
  /**
   * Each repository's Repository JSON text (as `toJsonList` writes it, from the same per-version cache), by id, for
   * replies that embed repositories in objects of their own; repositories whose owner is gone are absent.
   */
  toJsonTexts(repos: RepoRecord[], caller: Caller | null): Promise<Map<number, JsonPieces>>;
  incrementCounter(id: number, field: RepoCounter, delta: number): Promise<void>;
  /** Moves several counters of one repository in one update (an issue opened moves `numIssues` and `numOpenIssues`). */
  incrementCounters(id: number, deltas: Partial<Record<RepoCounter, number>>): Promise<void>;
  /**
   * Updates storage-derived fields (`empty`, `size`, mirror status) as given; `updatedAt` only when passed (a push
   * moved refs).
   */
  updateFields(id: number, fields: Partial<Pick<RepoRecord, 'empty' | 'size' | 'mirrorUpdated' | 'mirrorError' | 'defaultBranch' | 'updatedAt'>>): Promise<void>;
  /**
   * Creates a repository record plus its storage; validates the name (422) and uniqueness (409). With `forkId` the
   * parent's `numForks` is incremented here (callers must not). Emits `repo.created` before returning the record
   * read back. `storage` overrides the registered provider's functions for this one call (forks clone instead).
   */
  create(owner: Account, input: {
    name: string; description?: string; private?: boolean; website?: string; defaultBranch?: string; template?: boolean;
    fork?: boolean; forkId?: number | null; mirror?: boolean; init?: RepoInitOptions;
    /** The storage exists already (adoption): a create a crash interrupts is rolled back without removing it. */
    adopt?: boolean;
  }, creator: Caller | null, storage?: Partial<RepoStorageProvider>): Promise<RepoRecord>;
  /**
   * Removes the record, its name-index entry, collaborations and team grants; its forks become standalone
   * (`fork: false`, `forkId: null`); a fork's parent gets `numForks` −1; emits `repo.deleted { repo, owner }`
   * (stars and watches clean up), then removes the storage. Deleting twice is a no-op.
   */
  delete(repo: RepoRecord): Promise<void>;
  /** Registers the storage provider; resolves once storage left by records rolled back at start is removed. */
  setStorage(provider: RepoStorageProvider): Promise<void>;
  /** The stars plugin registers who starred what, for `/repos/search?starredBy=` (repos cannot read its rows). */
  setStarredSource(source: (userId: number) => Promise<number[]>): void;
  /**
   * Replaces the repository's topics (already validated and normalised by the `topics` plugin), emits `repo.updated`
   * and returns the record after the change (null when the repository is gone). `updated_at` is left alone, as in Gitea.
   */
  setTopics(repoId: number, topics: string[]): Promise<RepoRecord | null>;
  /** True when the caller reads every repository (site admins): skip id filters instead of listing every id. */
  readsAll(caller: Caller | null): boolean;
  /** The repository ids a team reaches: its repository list, or every repository of its organization (includes_all). */
  teamRepoIds(team: TeamRecord): Promise<number[]>;
  /**
   * Owners (users, organizations) whose repositories the caller may not see at all (Gitea's HasOrgOrUserVisible):
   * limited ones for anonymous callers, private ones for non-members. Their public repositories are left out of
   * every list; a collaborator still reaches the repository itself. Empty for site admins and when all are public.
   */
  hiddenOwnerIds(caller: Caller | null): Promise<number[]>;
  /** The Permission object for an access mode: `{admin: >=admin, push: >=write, pull: >=read}`. */
  permissionsOf(mode: AccessMode): { admin: boolean; push: boolean; pull: boolean };
}

/** Ids of the accounts (users and organizations) that are not public, by visibility, and both together. */
export interface NonPublicOwners {
  readonly limited: ReadonlySet<number>;
  readonly private: ReadonlySet<number>;
  readonly all: ReadonlySet<number>;
}

/** Events emitted by the repos plugin, payload `{ repo, owner, creatorId }` / `{ repo, owner }`. */
export const REPO_CREATED = 'repo.created';
export const REPO_DELETED = 'repo.deleted';
/** Payload `{ repo, before }` after a PATCH (e.g. `private` changed). */
export const REPO_UPDATED = 'repo.updated';

/**
 * A team's grant: read/write/admin from the API; `owner` only for an organization's Owners team; `none` when a units
 * map gives no unit any access (Gitea's MinUnitAccessMode).
 */
export type TeamPermission = 'none' | 'read' | 'write' | 'admin' | 'owner';

/**
 * A repository unit whose access a team can set (Gitea's unit keys without `repo.`): `code` (contents, git, pushes),
 * `issues`, `pulls`, `releases`, `wiki`.
 */
export type RepoUnit = 'code' | 'issues' | 'pulls' | 'releases' | 'wiki';

/** A team's access per repository unit (Gitea's unit keys, e.g. `repo.code`, `repo.issues`). */
export type TeamUnits = Record<string, 'none' | 'read' | 'write' | 'admin'>;

/** A stored team (owned by the `orgs` plugin). */
export interface TeamRecord {
  [key: string]: unknown;
  id: number;
  orgId: number;
  name: string;
  lowerName: string;
  description: string;
  permission: TeamPermission;
  /** The team's permission applies to every repository of the organization (always true for Owners). */
  includesAllRepos: boolean;
  /** The organization's Owners team: cannot be deleted, its last member cannot leave. */
  isOwners: boolean;
  /**
   * Access per unit, keyed without the `repo.` prefix (`code`, `issues`: the store forbids dots in field names);
   * absent on teams made before units were stored (every unit at `permission`).
   */
  units?: TeamUnits;
  /** Members may create repositories in the organization (always true for Owners). */
  canCreateOrgRepo?: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Exposed by the `orgs` plugin: organization ownership and team membership. */
export interface OrgsService {
  /** Whether the user is in the organization's Owners team. */
  isOwner(orgId: number, userId: number): Promise<boolean>;
  /** Whether the user is in any team of the organization. */
  isMember(orgId: number, userId: number): Promise<boolean>;
  /** Organizations the user belongs to (any team), ascending ids. */
  orgIdsOf(userId: number): Promise<number[]>;
  /** The teams the user is a member of, optionally only in these organizations. */
  teamsOf(userId: number, orgIds?: number[]): Promise<TeamRecord[]>;
  teamById(id: number): Promise<TeamRecord | null>;
  /** A team of the organization by name (case-insensitive). */
  teamByName(orgId: number, name: string): Promise<TeamRecord | null>;
  /** Every team of the organization, in name order (the pulls plugin resolves `team_reviewers` names with it). */
  teamsOfOrg(orgId: number): Promise<TeamRecord[]>;
  /** The user ids in a team. */
  memberIdsOfTeam(teamId: number): Promise<number[]>;
  /** Whether the user may create repositories in the organization (an owner, or in a team with can_create_org_repo). */
  canCreateRepo(orgId: number, userId: number): Promise<boolean>;
  /**
   * A number that grows with every change to teams or memberships (the store's write generations of both), read at
   * once; null where the store cannot see every write (another server's, on a shared database): then nothing derived
   * from memberships may be kept.
   */
  membershipStamp(): number | null;
}

/** Emitted by the orgs plugin after a team is deleted, payload `{ team }` (repos drops the team's grants). */
export const TEAM_DELETED = 'team.deleted';

declare module '../core/plugin.js' {
  interface ForgeServices {
    users: UsersService;
    repos: ReposService;
    orgs: OrgsService;
  }
}
