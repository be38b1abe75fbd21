// The users service: accounts (users and organizations share one namespace), emails, password checks.
import { createHash } from 'node:crypto';
import type { Caller, JsonPieces, PluginContext } from '../../core/plugin.js';
import { ForgeError, fail } from '../../core/errors.js';
import { isDuplicateKeyError, type Collection } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { ACCOUNT_DELETED, ACCOUNT_RENAMED, type Account, type AccountEdit, type AccountVisibility, type DeletionGuard, type EmailAddress, type NewOrgInput, type NewUserInput, type OrgChanges, type RenameParticipant, type NonPublicOwners, type UsersService, type VisibilityWitness, type VisibilityBatchWitness, type VisibilityWitnessHandle, type VisibilityWitnessOptions } from '../../schemas/services.js';
import { checkAccountName } from './names.js';
import { PasswordHasher } from './password.js';
import { Generations } from '../lib/generations.js';
import { FailureThrottle, type ThrottleRule } from './throttle.js';
import { seesEmail, toApiUser, toApiUserShown, visibilityOf } from './convert.js';
import { DocJson } from '../lib/doc-json.js';
import { crashPoint } from '../lib/crash-points.js';
import { AVATARS, AVATAR_MAX_BYTES, decodeBase64Image, sniffImage, type AvatarDoc } from './avatar.js';
import { UserIndex } from './search-index.js';
import { mapById } from '../lib/by-id.js';

export const USERS = 'users';
export const EMAILS = 'emails';

export interface EmailDoc {
  [key: string]: unknown;
  id: number;
  uid: number;
  email: string;
  lowerEmail: string;
  verified: boolean;
  createdAt: string;
}

// A pragmatic address check (what people type), not RFC 5322: one @, no spaces, a dot in the domain.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): string | null {
  if (email.length > 254 || !EMAIL.test(email)) return 'must be a valid email address';
  return null;
}

/** An organization's profile fields (CreateOrgOption / EditOrgOption limits); an empty email clears it. */
function checkOrgProfile(p: { email?: string; fullName?: string; description?: string; website?: string; location?: string }): void {
  if (p.email) {
    const problem = checkEmail(p.email);
    if (problem) throw fail.validation('email', problem);
  }
  const limits = { fullName: ['full_name', 100], description: ['description', 255], website: ['website', 255], location: ['location', 50] } as const;
  for (const [key, [field, max]] of Object.entries(limits)) {
    const value = p[key as keyof typeof limits];
    if (value !== undefined && [...value].length > max) throw fail.validation(field, `must be at most ${max} characters`);
  }
}

/**
 * Accounts are read without `grams`: accounts stored before the user search moved to memory (search-index.ts) carry
 * that field, which nothing reads any more, and copying it would cost every lookup. New and changed accounts lack it.
 */
const WITHOUT_GRAMS = { projection: { grams: 0 as const } };

/**
 * Gitea's IsUserVisibleToViewer / HasOrgOrUserVisible without the witnesses: true or false where the account's
 * visibility and the viewer decide, 'witnesses' where a relation must (organization membership, follows…). A restricted
 * viewer sees no limited or private user, and only the limited or private organizations a witness admits it to.
 */
function visibilityVerdict(id: number, type: 'user' | 'org', visibility: AccountVisibility, viewer: Caller | null): boolean | 'witnesses' {
  if (visibility === 'public') return true;
  if (!viewer) return false;
  if (viewer.isAdmin || viewer.id === id) return true;
  if (viewer.restricted === true) {
    if (type !== 'org') return false;
  } else if (visibility === 'limited') return true;
  return 'witnesses';
}

/** Successful password checks are remembered briefly so Basic-auth clients do not pay scrypt on every request. */
const PASSWORD_CACHE_MS = 60_000;
const PASSWORD_CACHE_MAX = 10_000;
/** A check that saw its account change while it ran is redone against the stored account this many times at most. */
const CHECK_ATTEMPTS = 3;

/** The users plugin's settings (defaults in the plugin's settings schema). */
export interface UsersSettings {
  /** Password hashes (scrypt, on libuv's pool) running at once; the rest wait, so file I/O always finds a thread. */
  maxConcurrentHashes: number;
  signInThrottle: { perAccount: ThrottleRule; perAddress: ThrottleRule };
  /** `/users/search` paging. */
  search: { defaultLimit: number; maxLimit: number };
}

/** Where a sign-in comes from (the client address keys the per-address throttle). */
export interface SignInClient {
  address: string;
}

/** Whether an account may sign in at all: not disabled (`active: false`) nor prohibited by a site admin. */
export function maySignIn(account: Account): boolean {
  return account.prohibitLogin !== true && account.active !== false;
}

/** Gitea's answer to a signed-in account that may not sign in (verifyAuthWithOptions). */
export function prohibited(): ForgeError {
  return fail.forbidden('This account is prohibited from signing in, please contact your site administrator.');
}

/** Viewers whose witness verdicts are kept, and verdicts per viewer (beyond: asked again, not kept). */
const SEEN_KEPT_VIEWERS = 256;
const SEEN_KEPT_VERDICTS = 2048;

export class Users implements UsersService {
  private readonly accounts: Collection<Account>;
  private readonly emails: Collection<EmailDoc>;
  private readonly passwordCache = new Map<string, { caller: Caller; uid: number; stamp: number; expires: number }>();
  /** Bumped per account when it is deleted or its password, admin flag or sign-in rights change. */
  private readonly generations = new Generations();
  readonly hasher: PasswordHasher;
  private readonly accountFailures: FailureThrottle;
  private readonly addressFailures: FailureThrottle;
  /**
   * A seam for tests: awaited after a password was hashed and before its verdict is used, so a test can hold a
   * check in flight while it changes the account. Never set in production.
   */
  beforeVerdict: (() => Promise<void>) | null = null;
  /** User JSON per stored account version, in two views: 0 without the email, 1 with it (its owner, site admins). */
  private readonly userJson: DocJson<Account>;
  /** The same texts as strings (`jsonText`), per stored account version: [without the email, with it]. */
  private readonly userText = new WeakMap<Account, [string | undefined, string | undefined]>();
  private readonly serializeUser: (value: unknown) => string;
  /** Users' search postings and every account's visibility (search-index.ts), loaded by `loadIndex` at start. */
  readonly index = new UserIndex();

  constructor(private readonly ctx: PluginContext<UsersSettings>) {
    const settings = ctx.settings;
    this.hasher = new PasswordHasher(settings.maxConcurrentHashes);
    this.accountFailures = new FailureThrottle(settings.signInThrottle.perAccount);
    this.addressFailures = new FailureThrottle(settings.signInThrottle.perAddress);
    this.accounts = ctx.store.collection<Account>(USERS);
    this.emails = ctx.store.collection<EmailDoc>(EMAILS);
    const serialize = ctx.serializer({ $ref: 'forgekit/User' });
    this.serializeUser = serialize;
    this.userJson = new DocJson<Account>((account, view) => serialize(toApiUserShown(account, view === 1, ctx.urls.root)));
  }

  /** The search index from the stored accounts (start). */
  async loadIndex(): Promise<void> {
    this.index.load(await this.accounts.find({}, { projection: { id: 1, type: 1, lowerName: 1, fullName: 1, visibility: 1 } }));
  }

  async byName(name: string): Promise<Account | null> {
    return this.accounts.findOne({ lowerName: name.toLowerCase() }, WITHOUT_GRAMS);
  }

  async byId(id: number): Promise<Account | null> {
    return this.accounts.findOne({ id }, WITHOUT_GRAMS);
  }

  /** Repeated ids are fine: an `$in` yields each document once (both adapters), so they are not deduped here. */
  async byIds(ids: number[]): Promise<Map<number, Account>> {
    if (ids.length === 0) return new Map();
    return mapById(await this.accounts.find({ id: { $in: ids } }, WITHOUT_GRAMS));
  }

  noreplyEmail(account: Pick<Account, 'login'>): string {
    return `${account.login.toLowerCase()}${this.noreplySuffix}`;
  }

  commitIdentity(account: Account): { name: string; email: string } {
    return { name: account.fullName || account.login, email: account.hideEmail === false && account.email ? account.email : this.noreplyEmail(account) };
  }

  /** `@noreply.<host>`, lower case. */
  private get noreplySuffix(): string {
    return `@noreply.${new URL(this.ctx.urls.root).hostname || 'localhost'}`.toLowerCase();
  }

  async byEmail(email: string): Promise<Account | null> {
    const lower = email.toLowerCase();
    if (!lower || lower.length > 254) return null;
    if (lower.endsWith(this.noreplySuffix)) {
      const account = await this.byName(lower.slice(0, -this.noreplySuffix.length));
      return account?.type === 'user' ? account : null;
    }
    const direct = await this.accounts.findOne({ lowerEmail: lower }, WITHOUT_GRAMS);
    if (direct) return direct;
    // An unverified address proves nothing: anyone may add it (Gitea: activated addresses only).
    const extra = await this.emails.findOne({ lowerEmail: lower, verified: true });
    return extra ? this.byId(extra.uid) : null;
  }

  toApi(account: Account, viewer: Caller | null) {
    return toApiUser(account, viewer, this.ctx.urls.root);
  }

  seesEmail(account: Account, viewer: Caller | null): boolean {
    return seesEmail(account, viewer);
  }

  jsonText(account: Account, viewer: Caller | null): string {
    const view = seesEmail(account, viewer) ? 1 : 0;
    let texts = this.userText.get(account);
    if (texts === undefined) {
      texts = [undefined, undefined];
      // Only frozen documents are the store's one object per version (doc-json.ts); a mutable object is not kept.
      if (Object.isFrozen(account)) this.userText.set(account, texts);
    }
    return (texts[view] ??= this.serializeUser(toApiUserShown(account, view === 1, this.ctx.urls.root)));
  }

  /** `envelope`: the list inside it, in the same buffer (user search's `{"ok":true,"data":…}`). */
  toJsonList(accounts: readonly Account[], viewer: Caller | null, envelope?: { before: Buffer; after: Buffer }): JsonPieces {
    return this.userJson.list(accounts, (account) => (seesEmail(account, viewer) ? 1 : 0), envelope);
  }

  checkName(name: string): string | null {
    return checkAccountName(name);
  }

  private async assertNameFree(name: string): Promise<void> {
    if (await this.byName(name)) throw fail.validation('username', `"${name}" is already taken`);
  }

  /**
   * 422 when an account's primary address or a verified address is `email`. An unverified secondary address of
   * someone else yields: it is dropped, so nobody can lock an address away from its owner by adding it first.
   */
  private async assertEmailFree(email: string, claimant?: number): Promise<void> {
    const lower = email.toLowerCase();
    if (await this.accounts.findOne({ lowerEmail: lower })) throw fail.validation('email', `"${email}" is already used`);
    const added = await this.emails.findOne({ lowerEmail: lower });
    if (!added) return;
    if (added.verified || added.uid === claimant) throw fail.validation('email', `"${email}" is already used`);
    await this.emails.deleteOne({ id: added.id, verified: false });
  }

  private async insertAccount(doc: Omit<Account, 'id'>): Promise<Account> {
    const account = { ...doc, id: await this.ctx.store.nextId(USERS) } as Account;
    try {
      const inserted = await this.accounts.insertOne(account);
      this.index.upsert(inserted);
      return inserted;
    } catch (err) {
      // A concurrent create won the race for the name or the email: the unique index is the last word.
      if (isDuplicateKeyError(err)) {
        const field = err.fields.includes('lowerEmail') ? 'email' : 'username';
        throw fail.validation(field, `"${field === 'email' ? doc.email : doc.login}" is already taken`);
      }
      throw err;
    }
  }

  async createUser(input: NewUserInput): Promise<Account> {
    const nameProblem = checkAccountName(input.username);
    if (nameProblem) throw fail.validation('username', nameProblem);
    const emailProblem = checkEmail(input.email);
    if (emailProblem) throw fail.validation('email', emailProblem);
    if (input.password.length < 6) throw fail.validation('password', 'must be at least 6 characters');
    await this.assertNameFree(input.username);
    await this.assertEmailFree(input.email);
    const { hash, salt } = await this.hasher.hash(input.password);
    const now = nowRfc3339();
    const fullName = input.fullName ?? '';
    return this.insertAccount({
      login: input.username,
      lowerName: input.username.toLowerCase(),
      type: 'user',
      fullName,
      email: input.email,
      lowerEmail: input.email.toLowerCase(),
      isAdmin: input.isAdmin === true,
      passwordHash: hash,
      passwordSalt: salt,
      description: '',
      website: '',
      location: '',
      numFollowers: 0,
      numFollowing: 0,
      numStars: 0,
      createdAt: now,
      updatedAt: now,
    });
  }

  async createOrg(input: NewOrgInput): Promise<Account> {
    const nameProblem = checkAccountName(input.username);
    if (nameProblem) throw fail.validation('username', nameProblem);
    checkOrgProfile({ email: input.email, fullName: input.fullName, description: input.description, website: input.website, location: input.location });
    await this.assertNameFree(input.username);
    const now = nowRfc3339();
    return this.insertAccount({
      login: input.username,
      lowerName: input.username.toLowerCase(),
      type: 'org',
      fullName: input.fullName ?? '',
      // An organization's contact address: no lowerEmail, so the sparse unique index ignores it and it signs nobody in.
      email: input.email ?? '',
      isAdmin: false,
      description: input.description ?? '',
      website: input.website ?? '',
      location: input.location ?? '',
      visibility: input.visibility ?? 'public',
      repoAdminChangeTeamAccess: input.repoAdminChangeTeamAccess === true,
      numFollowers: 0,
      numFollowing: 0,
      numStars: 0,
      createdAt: now,
      updatedAt: now,
    });
  }

  async setPassword(account: Account, password: string): Promise<void> {
    if (account.type !== 'user') throw fail.validation('username', 'is an organization');
    if (password.length < 6) throw fail.validation('password', 'must be at least 6 characters');
    const { hash, salt } = await this.hasher.hash(password);
    await this.accounts.updateOne({ id: account.id }, { $set: { passwordHash: hash, passwordSalt: salt, updatedAt: nowRfc3339() } });
    this.credentialsChanged(account.id);
  }

  checkSignIn(account: Account): void {
    if (!maySignIn(account)) throw prohibited();
    // Gitea's verifyAuthWithOptions: an account an admin marked must_change_password gets nothing done until it has.
    if (account.mustChangePassword === true) {
      throw fail.forbidden(`You must change your password. Change it at: ${this.ctx.urls.root}user/change_password`);
    }
  }

  async listAccounts(type: 'user' | 'org', skip: number, limit: number, filter: { loginName?: string } = {}): Promise<{ accounts: Account[]; total: number }> {
    const query = filter.loginName !== undefined ? { type, loginName: filter.loginName } : { type };
    const { docs: accounts, total } = await this.accounts.findAndCount(query, { sort: { lowerName: 1 }, skip, limit, ...WITHOUT_GRAMS });
    return { accounts, total };
  }

  async editAccount(account: Account, edit: AccountEdit): Promise<Account> {
    if (account.type !== 'user') throw fail.validation('username', 'is an organization');
    const set: Record<string, unknown> = {};
    let credentials = false;
    if (edit.email !== undefined && edit.email.toLowerCase() !== account.lowerEmail) {
      const problem = checkEmail(edit.email);
      if (problem) throw fail.validation('email', problem);
      // The account's own secondary address may become its primary one; anyone else's is taken.
      const own = await this.emails.findOne({ uid: account.id, lowerEmail: edit.email.toLowerCase() });
      if (own) await this.emails.deleteOne({ id: own.id });
      else await this.assertEmailFree(edit.email, account.id);
      set.email = edit.email;
      set.lowerEmail = edit.email.toLowerCase();
      credentials = true;
    } else if (edit.email !== undefined && edit.email !== account.email) {
      set.email = edit.email; // a change of case only
    }
    if (edit.password !== undefined) {
      if (edit.password.length < 6) throw fail.validation('password', 'must be at least 6 characters');
      const { hash, salt } = await this.hasher.hash(edit.password);
      set.passwordHash = hash;
      set.passwordSalt = salt;
      credentials = true;
    }
    if (edit.admin === false && account.isAdmin && (await this.accounts.count({ type: 'user', isAdmin: true })) <= 1) {
      throw fail.badRequest(`can not delete the last admin user [uid: ${account.id}]`);
    }
    const plain: Array<[keyof AccountEdit, string]> = [
      ['fullName', 'fullName'], ['website', 'website'], ['location', 'location'], ['description', 'description'],
      ['loginName', 'loginName'], ['visibility', 'visibility'],
      ['allowCreateOrganization', 'allowCreateOrganization'],
      ['allowGitHook', 'allowGitHook'], ['allowImportLocal', 'allowImportLocal'], ['maxRepoCreation', 'maxRepoCreation'],
      ['language', 'language'], ['theme', 'theme'], ['diffViewStyle', 'diffViewStyle'], ['hideEmail', 'hideEmail'],
      ['hideActivity', 'hideActivity'],
    ];
    for (const [from, to] of plain) if (edit[from] !== undefined) set[to] = edit[from];
    // Sign-in rights: these end sessions at once (`restricted` is carried by every cached caller).
    const rights: Array<[keyof AccountEdit, string]> = [
      ['active', 'active'], ['admin', 'isAdmin'], ['prohibitLogin', 'prohibitLogin'], ['mustChangePassword', 'mustChangePassword'],
      ['restricted', 'restricted'],
    ];
    for (const [from, to] of rights) {
      if (edit[from] !== undefined && edit[from] !== (account as Record<string, unknown>)[to]) {
        set[to] = edit[from];
        credentials = true;
      }
    }
    if (Object.keys(set).length === 0) return account;
    set.updatedAt = nowRfc3339();
    try {
      await this.accounts.updateOne({ id: account.id }, { $set: set });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.validation('email', `"${edit.email}" is already used`);
      throw err;
    }
    if (credentials) this.credentialsChanged(account.id);
    const stored = await this.byId(account.id);
    if (stored) this.index.upsert(stored);
    const after = stored ?? account;
    await this.accessChanged(account, after);
    return after;
  }

  /**
   * `access.changed` when an account's site-admin or restricted flag (what it may read) or its visibility (who may
   * read its repositories) changed. The change is stored already: a failing listener is logged only.
   */
  private async accessChanged(before: Account, after: Account): Promise<void> {
    const self = (before.isAdmin === true) !== (after.isAdmin === true) || (before.restricted === true) !== (after.restricted === true);
    const owner = visibilityOf(before) !== visibilityOf(after);
    if (!self && !owner) return;
    try {
      if (self) await this.ctx.events.emit('access.changed', { reason: 'account', userIds: [after.id] });
      if (owner) await this.ctx.events.emit('access.changed', { reason: 'account', ownerIds: [after.id] });
    } catch (err) {
      this.ctx.log.error({ err, event: 'access.changed' }, 'event listener failed');
    }
  }

  private readonly deletionGuards: DeletionGuard[] = [];

  addDeletionGuard(guard: DeletionGuard): void {
    this.deletionGuards.push(guard);
  }

  private readonly renameParticipants: RenameParticipant[] = [];

  addRenameParticipant(participant: RenameParticipant): void {
    this.renameParticipants.push(participant);
  }

  async renameAccount(account: Account, newName: string): Promise<Account> {
    if (account.type !== 'user') throw fail.validation('username', `${account.login} is an organization not a user`);
    const from = account.login;
    if (newName === from) return account;
    const problem = checkAccountName(newName);
    if (problem) throw fail.validation('new_username', problem);
    const other = await this.byName(newName);
    if (other && other.id !== account.id) throw fail.validation('new_username', 'The username is already taken.');
    const prepared: RenameParticipant[] = [];
    const abortAll = async () => {
      for (const p of prepared.reverse()) {
        try {
          await p.abort(account, from, newName);
        } catch (err) {
          this.ctx.log.error({ err, uid: account.id }, 'undoing a rename failed; it is finished or undone at the next start');
        }
      }
    };
    for (const p of this.renameParticipants) {
      let reason: string | null;
      try {
        reason = await p.prepare(account, from, newName);
      } catch (err) {
        await abortAll();
        throw err;
      }
      prepared.push(p);
      if (reason) {
        await abortAll();
        throw fail.validation('new_username', reason);
      }
    }
    crashPoint('account.rename:after-prepare');
    // The one step that decides: the account row changes in a single update (the unique name index is the last word).
    const renamed = {
      login: newName, lowerName: newName.toLowerCase(), updatedAt: nowRfc3339(),
    };
    let matched: number;
    try {
      matched = (await this.accounts.updateOne({ id: account.id, lowerName: account.lowerName }, { $set: renamed })).matched;
    } catch (err) {
      await abortAll();
      if (isDuplicateKeyError(err)) throw fail.validation('new_username', 'The username is already taken.');
      throw err;
    }
    if (matched === 0) {
      await abortAll();
      throw fail.conflict(`${from} was renamed or deleted meanwhile`);
    }
    crashPoint('account.rename:after-record');
    this.credentialsChanged(account.id);
    const stored = await this.byId(account.id);
    if (stored) this.index.upsert(stored);
    try {
      for (const p of this.renameParticipants) await p.commit(account, from, newName);
    } catch (err) {
      // Back to the old name: the participants undo what they did (or converge at the next start).
      await this.accounts.updateOne({ id: account.id }, {
        $set: { login: from, lowerName: account.lowerName, updatedAt: nowRfc3339() },
      });
      this.credentialsChanged(account.id);
      const back = await this.byId(account.id);
      if (back) this.index.upsert(back);
      await abortAll();
      throw err;
    }
    const after = (await this.byId(account.id)) ?? { ...account, ...renamed };
    try {
      await this.ctx.events.emit(ACCOUNT_RENAMED, { account: after, from });
    } catch (err) {
      this.ctx.log.error({ err, uid: account.id }, 'an account.renamed listener failed');
    }
    return after;
  }

  async deleteAccount(account: Account, options: { purge?: boolean } = {}): Promise<void> {
    const purge = options.purge === true;
    const blockers = (await Promise.all(this.deletionGuards.map((g) => g.blockers(account, { purge })))).flat();
    if (blockers.length) throw fail.validation(account.type === 'org' ? 'org' : 'username', `cannot be deleted: ${blockers.join('; ')}`);
    if (purge) for (const guard of this.deletionGuards) await guard.purge?.(account);
    // Dependents remove what refers to the account first (repos, keys, tokens, relations) and fix their counters.
    // The account stops signing in now (cached and running checks included), and again once its row is gone: a
    // check that read the row before the delete finished sees the second bump and is redone against nothing.
    this.credentialsChanged(account.id);
    await this.ctx.events.emit(ACCOUNT_DELETED, { account });
    await this.emails.deleteMany({ uid: account.id });
    await this.accounts.deleteOne({ id: account.id });
    this.index.remove(account.id);
    this.credentialsChanged(account.id);
  }

  /**
   * Call AFTER storing a change to an account's password, admin flag, sign-in rights, name or primary email: every
   * cached sign-in (password or token) of the account and every check already running for it become invalid.
   */
  credentialsChanged(uid: number): void {
    this.generations.bump(uid);
    for (const [key, entry] of this.passwordCache) if (entry.uid === uid) this.passwordCache.delete(key);
  }

  credentialStamp(): number {
    return this.generations.stamp();
  }

  credentialsCurrent(uid: number, stamp: number): boolean {
    return this.generations.current(uid, stamp);
  }

  async incrementCounter(id: number, field: 'numFollowers' | 'numFollowing' | 'numStars', delta: number): Promise<void> {
    await this.accounts.updateOne({ id }, { $inc: { [field]: delta } });
  }

  async emailsOf(userId: number): Promise<EmailAddress[]> {
    const account = await this.byId(userId);
    if (!account || account.type !== 'user') return [];
    const extra = await this.emails.find({ uid: userId }, { sort: { id: 1 } });
    return [
      { email: account.email, verified: true, primary: true },
      ...extra.map((e) => ({ email: e.email, verified: e.verified, primary: false })),
    ];
  }

  async addEmails(userId: number, emails: string[], verified: boolean): Promise<EmailAddress[]> {
    const unique = [...new Map(emails.map((e) => [e.toLowerCase(), e])).values()];
    for (const [i, email] of unique.entries()) {
      const problem = checkEmail(email);
      if (problem) throw fail.validation(`emails[${i}]`, problem);
      await this.assertEmailFree(email, userId);
    }
    const added: EmailAddress[] = [];
    const inserted: number[] = [];
    try {
      for (const email of unique) {
        const doc: EmailDoc = { id: await this.ctx.store.nextId(EMAILS), uid: userId, email, lowerEmail: email.toLowerCase(), verified, createdAt: nowRfc3339() };
        await this.emails.insertOne(doc);
        inserted.push(doc.id);
        added.push({ email, verified, primary: false });
      }
    } catch (err) {
      // All or nothing: a clash half-way removes what this request added.
      if (inserted.length) await this.emails.deleteMany({ id: { $in: inserted } });
      if (isDuplicateKeyError(err)) throw fail.validation('emails', 'an address is already used');
      throw err;
    }
    return added;
  }

  async removeEmails(account: Account, emails: string[]): Promise<void> {
    const lower = emails.map((e) => e.toLowerCase());
    if (account.lowerEmail && lower.includes(account.lowerEmail)) throw fail.validation('emails', 'the primary email address cannot be removed');
    const owned = await this.emails.find({ uid: account.id, lowerEmail: { $in: lower } });
    if (owned.length !== new Set(lower).size) throw fail.validation('emails', 'an address does not belong to this account');
    await this.emails.deleteMany({ uid: account.id, lowerEmail: { $in: lower } });
  }

  // ---- organizations' profile and account visibility ----

  async updateOrg(org: Account, changes: OrgChanges): Promise<Account> {
    if (org.type !== 'org') throw fail.validation('org', 'is not an organization');
    checkOrgProfile(changes);
    const set: Record<string, unknown> = {};
    for (const key of ['fullName', 'email', 'description', 'website', 'location', 'visibility', 'repoAdminChangeTeamAccess'] as const) {
      if (changes[key] !== undefined) set[key] = changes[key];
    }
    if (Object.keys(set).length === 0) return org;
    set.updatedAt = nowRfc3339();
    const after = await this.accounts.findOneAndUpdate({ id: org.id, type: 'org' }, { $set: set });
    if (!after) throw fail.notFound();
    this.index.upsert(after);
    await this.accessChanged(org, after);
    return after;
  }

  private readonly visibilityWitnesses: VisibilityWitness[] = [];
  private readonly batchWitnesses: Array<VisibilityBatchWitness | null> = [];
  /** Bumped by a witness's `changed()`: every kept answer (`seenKept`) made before it is void. */
  private witnessEpoch = 0;
  /**
   * Per viewer, the witnesses' verdicts about private users asked so far (id → seen), valid while `epoch` is the
   * current `witnessEpoch`. A signed-in `/users/search` asks about every private match on every request (100 in
   * the bench world: two membership reads and a follow read, ~40 µs); the same viewer asking again reads this.
   */
  private readonly seenKept = new Map<number, { epoch: number; verdicts: Map<number, boolean> }>();

  /** False once a witness that does not report its changes is registered: then no verdict is kept. */
  private verdictsKeepable = true;

  addVisibilityWitness(witness: VisibilityWitness, batch?: VisibilityBatchWitness, options: VisibilityWitnessOptions = {}): VisibilityWitnessHandle {
    this.visibilityWitnesses.push(witness);
    this.batchWitnesses.push(batch ?? null);
    if (options.reportsChanges !== true) {
      this.verdictsKeepable = false;
      this.seenKept.clear();
    }
    return { changed: () => void this.witnessEpoch++ };
  }

  /**
   * The private users among `ids` whom `viewer` (signed in, not a site admin) sees: itself, and whoever a witness
   * admits. Verdicts kept for this viewer answer at once; the witnesses are asked about the rest, once per witness for
   * all of them where the witness answers in bulk, else per account, and their verdicts are kept unless a witness
   * reported a change meanwhile (the answer may predate it).
   */
  async privateUsersSeenBy(ids: readonly number[], viewer: Caller): Promise<Set<number>> {
    const seen = new Set<number>();
    const epoch = this.witnessEpoch;
    let kept = this.seenKept.get(viewer.id);
    if (kept !== undefined && kept.epoch !== epoch) kept = undefined;
    let unknown: number[] = [];
    for (const id of ids) {
      if (id === viewer.id) seen.add(id);
      else {
        const verdict = kept?.verdicts.get(id);
        if (verdict === true) seen.add(id);
        else if (verdict === undefined) unknown.push(id);
      }
    }
    if (unknown.length === 0) return seen;
    const asked = unknown;
    const admitted = new Set<number>();
    for (const [i, batch] of this.batchWitnesses.entries()) {
      if (unknown.length === 0) break;
      if (batch) {
        for (const id of await batch(unknown, viewer.id)) admitted.add(id);
      } else {
        const witness = this.visibilityWitnesses[i]!;
        for (const id of unknown) if (await witness({ id, type: 'user', visibility: 'private' } as unknown as Account, viewer.id)) admitted.add(id);
      }
      unknown = unknown.filter((id) => !admitted.has(id));
    }
    for (const id of admitted) seen.add(id);
    if (this.verdictsKeepable && this.witnessEpoch === epoch) this.keepVerdicts(viewer.id, epoch, asked, admitted);
    return seen;
  }

  private keepVerdicts(viewerId: number, epoch: number, asked: readonly number[], admitted: ReadonlySet<number>): void {
    let kept = this.seenKept.get(viewerId);
    if (kept === undefined || kept.epoch !== epoch) {
      if (kept === undefined && this.seenKept.size >= SEEN_KEPT_VIEWERS) {
        // The oldest viewer goes (insertion order): a hit never rewrites the map.
        this.seenKept.delete(this.seenKept.keys().next().value!);
      }
      kept = { epoch, verdicts: new Map() };
      this.seenKept.set(viewerId, kept);
    }
    if (kept.verdicts.size + asked.length > SEEN_KEPT_VERDICTS) return;
    for (const id of asked) kept.verdicts.set(id, admitted.has(id));
  }

  async visibleTo(account: Account, viewer: Caller | null): Promise<boolean> {
    const verdict = visibilityVerdict(account.id, account.type, visibilityOf(account), viewer);
    return verdict === 'witnesses' ? this.witnessed(account, viewer!) : verdict;
  }

  /** True when a visibility witness (an organization membership, a follow…) shows `account` to `viewer`. */
  private async witnessed(account: Account, viewer: Caller): Promise<boolean> {
    for (const witness of this.visibilityWitnesses) if (await witness(account, viewer.id)) return true;
    return false;
  }

  /**
   * Ids of the accounts `viewer` does not see (see `visibleTo`): list filters exclude them. Empty for site admins and
   * while every account is public (the common case). Decided from the in-memory index without a promise per account:
   * an anonymous caller sees none of them (one array kept per index version), a signed-in one every limited account
   * (unless restricted), and the witnesses are asked about the private users in one batch. Per-account awaits made
   * member and follower lists cost ~200 µs for 400 non-public accounts even when the page was empty.
   */
  async hiddenIds(viewer: Caller | null, type?: 'user' | 'org'): Promise<number[]> {
    if (viewer?.isAdmin) return [];
    const rows = this.index.nonPublic();
    if (!viewer) return this.anonymousHidden(rows, type);
    return this.hiddenOf(rows, viewer, type);
  }

  /**
   * `hiddenIds` among `ids` only, in their order: what a list that already holds its candidate ids leaves out, at a
   * cost that grows with the list, not with every non-public account of the site.
   */
  async hiddenAmong(ids: readonly number[], viewer: Caller | null, type?: 'user' | 'org'): Promise<number[]> {
    if (viewer?.isAdmin || ids.length === 0) return [];
    const rows = this.index.nonPublic(ids);
    if (rows.length === 0) return [];
    if (!viewer) return rows.filter((row) => !type || row.type === type).map((row) => row.id);
    return this.hiddenOf(rows, viewer, type);
  }

  /** Which of `rows` (non-public accounts) a signed-in, non-admin `viewer` does not see, in their order. */
  private async hiddenOf(rows: ReturnType<UserIndex['nonPublic']>, viewer: Caller, type?: 'user' | 'org'): Promise<number[]> {
    const hidden = new Set<number>();
    const privateUsers: number[] = [];
    const orgs: Array<(typeof rows)[number]> = [];
    for (const row of rows) {
      if (type && row.type !== type) continue;
      const verdict = visibilityVerdict(row.id, row.type, row.visibility, viewer);
      if (verdict === false) hidden.add(row.id);
      // Users left to the witnesses are private ones (limited users are decided above): asked in one batch.
      else if (verdict === 'witnesses') (row.type === 'user' ? privateUsers.push(row.id) : orgs.push(row));
    }
    if (privateUsers.length) {
      const seen = await this.privateUsersSeenBy(privateUsers, viewer);
      for (const id of privateUsers) if (!seen.has(id)) hidden.add(id);
    }
    for (const row of orgs) if (!(await this.witnessed(row as unknown as Account, viewer))) hidden.add(row.id);
    // In the index's order, as before.
    return hidden.size ? rows.filter((row) => hidden.has(row.id)).map((row) => row.id) : [];
  }

  /** Every non-public account (of `type`): what an anonymous caller does not see; kept while the index's list is. */
  private anonymousHidden(rows: ReturnType<UserIndex['nonPublic']>, type?: 'user' | 'org'): number[] {
    const key = type ?? 'all';
    const kept = this.anonymousHiddenKept.get(key);
    if (kept && kept.rows === rows) return [...kept.ids];
    const ids = rows.filter((row) => !type || row.type === type).map((row) => row.id);
    this.anonymousHiddenKept.set(key, { rows, ids });
    return [...ids];
  }

  private readonly anonymousHiddenKept = new Map<string, { rows: ReturnType<UserIndex['nonPublic']>; ids: number[] }>();

  async accountPage(options: { type: 'user' | 'org'; visibility?: AccountVisibility[]; skip: number; limit: number }): Promise<{ accounts: Account[]; total: number }> {
    const filter: Record<string, unknown> = { type: options.type };
    if (options.visibility) {
      // Records made before the setting existed have none: they are public.
      const wanted = options.visibility;
      if (!wanted.includes('public')) filter.visibility = { $in: wanted };
      else if (wanted.length < 3) filter.visibility = { $nin: (['limited', 'private'] as const).filter((v) => !wanted.includes(v)) };
    }
    const { docs: accounts, total } = await this.accounts.findAndCount(filter, { sort: { lowerName: 1 }, skip: options.skip, limit: options.limit, projection: { grams: 0 } });
    return { accounts, total };
  }

  async setAvatar(uid: number, image: string | null): Promise<void> {
    const avatars = this.ctx.store.collection<AvatarDoc>(AVATARS);
    if (image === null) {
      await avatars.deleteOne({ uid });
      return;
    }
    const bytes = decodeBase64Image(image);
    if (!bytes) throw fail.validation('image', 'must be base64-encoded image data');
    if (bytes.length > AVATAR_MAX_BYTES) throw fail.validation('image', `must be at most ${AVATAR_MAX_BYTES} bytes`);
    const type = sniffImage(bytes);
    if (!type) throw fail.validation('image', 'must be a PNG, JPEG, GIF or WebP image');
    const doc: AvatarDoc = { uid, type, data: bytes.toString('base64'), updatedAt: nowRfc3339() };
    await avatars.updateOne({ uid }, { $set: doc }, { upsert: true });
  }

  nonPublicOwners(): NonPublicOwners {
    return this.index.nonPublicSets();
  }

  async nonPublicAccounts(ids?: number[]): Promise<Array<Pick<Account, 'id' | 'type'> & { visibility: AccountVisibility }>> {
    // From memory: repository access asks on every request (a copy: callers may keep or change what they get).
    return [...this.index.nonPublic(ids)];
  }

  async verifyLogin(login: string, password: string, client?: SignInClient): Promise<Caller | null> {
    const cacheKey = createHash('sha256').update(login).update('\0').update(password).digest('hex');
    const cached = this.passwordCache.get(cacheKey);
    if (cached && cached.expires > Date.now() && this.generations.current(cached.uid, cached.stamp)) return cached.caller;
    const address = `addr:${client?.address ?? ''}`;
    this.refuseLocked(this.addressFailures, address);
    for (let attempt = 0; attempt < CHECK_ATTEMPTS; attempt++) {
      const stamp = this.generations.stamp();
      const account = await this.signInAccount(login);
      const accountKey = account ? `uid:${account.id}` : `login:${login.toLowerCase()}`;
      this.refuseLocked(this.accountFailures, accountKey);
      const ok = account
        ? await this.hasher.verify(password, account.passwordHash!, account.passwordSalt!)
        : await this.hasher.verifyNothing(password);
      if (this.beforeVerdict) await this.beforeVerdict();
      // The account changed (deleted, new password, demoted) while the hash ran: decide again on what is stored now.
      if (account && !this.generations.current(account.id, stamp)) continue;
      if (!account || !ok) {
        this.accountFailures.fail(accountKey);
        this.addressFailures.fail(address);
        return null;
      }
      this.accountFailures.succeed(accountKey);
      // The right password of an account that may not sign in: Gitea's 403, never a cached sign-in.
      this.checkSignIn(account);
      const caller: Caller = { id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'password', restricted: account.restricted === true };
      if (this.passwordCache.size >= PASSWORD_CACHE_MAX) this.passwordCache.clear();
      this.passwordCache.set(cacheKey, { caller, uid: account.id, stamp, expires: Date.now() + PASSWORD_CACHE_MS });
      return caller;
    }
    return null;
  }

  /** The user a login names (user name, or the primary email only); organizations and password-less accounts: none. */
  private async signInAccount(login: string): Promise<Account | null> {
    const account = login.includes('@')
      ? await this.accounts.findOne({ lowerEmail: login.toLowerCase() }, WITHOUT_GRAMS)
      : await this.byName(login);
    if (!account || account.type !== 'user' || !account.passwordHash || !account.passwordSalt) return null;
    return account;
  }

  private refuseLocked(throttle: FailureThrottle, key: string): void {
    const seconds = throttle.retryAfter(key);
    if (seconds > 0) {
      throw new ForgeError('TOO_MANY_REQUESTS', `too many failed sign-ins; try again in ${seconds} s`, { 'Retry-After': String(seconds) });
    }
  }
}
