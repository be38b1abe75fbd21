// Branch protection rules (`/branch_protections`): stored per repository, matched to branch names (exact name or a
// glob: `*` within a segment, `**` across), and enforced on every push and API write through the git service's guard.
import { fail } from '../../core/errors.js';
import type { Collection } from '../../core/store/port.js';
import { DuplicateKeyError } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { ZERO_SHA, type PushAttempt } from '../../schemas/contracts/git.js';
import { ACCESS, type Account, type RenameParticipant, type RepoRecord } from '../../schemas/services.js';
import type { PluginContext } from '../../core/plugin.js';

export const PROTECTIONS = 'branch_protections';
/** Account renames in progress (`{uid, from, to}`), written before the account row changes: finished at start. */
export const PROTECTION_RENAMES = 'branch_protection_renames';

export interface ProtectionRecord {
  [key: string]: unknown;
  repoId: number;
  rule_name: string;
  priority: number;
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  push_whitelist_teams: string[];
  push_whitelist_deploy_keys: boolean;
  enable_force_push: boolean;
  enable_force_push_allowlist: boolean;
  force_push_allowlist_usernames: string[];
  force_push_allowlist_teams: string[];
  force_push_allowlist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_usernames: string[];
  merge_whitelist_teams: string[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals: number;
  enable_approvals_whitelist: boolean;
  approvals_whitelist_username: string[];
  approvals_whitelist_teams: string[];
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  ignore_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
  block_admin_merge_override: boolean;
  created_at: string;
  updated_at: string;
}

const DEFAULTS: Omit<ProtectionRecord, 'repoId' | 'rule_name' | 'created_at' | 'updated_at'> = {
  priority: 0,
  enable_push: false, enable_push_whitelist: false, push_whitelist_usernames: [], push_whitelist_teams: [], push_whitelist_deploy_keys: false,
  enable_force_push: false, enable_force_push_allowlist: false, force_push_allowlist_usernames: [], force_push_allowlist_teams: [],
  force_push_allowlist_deploy_keys: false,
  enable_merge_whitelist: false, merge_whitelist_usernames: [], merge_whitelist_teams: [],
  enable_status_check: false, status_check_contexts: [],
  required_approvals: 0, enable_approvals_whitelist: false, approvals_whitelist_username: [], approvals_whitelist_teams: [],
  block_on_rejected_reviews: false, block_on_official_review_requests: false, block_on_outdated_branch: false,
  dismiss_stale_approvals: false, ignore_stale_approvals: false, require_signed_commits: false,
  protected_file_patterns: '', unprotected_file_patterns: '', block_admin_merge_override: false,
};

const FIELDS = Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>;

/** Glob rule names (`release/*`, `**`) match like Gitea's: `*` stays within a segment, `**` crosses them. */
export function ruleMatches(rule: string, branch: string): boolean {
  if (!/[*?[]/.test(rule)) return rule === branch;
  let re = '';
  for (let i = 0; i < rule.length; i++) {
    const c = rule[i]!;
    if (c === '*' && rule[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(branch);
}

export function toApi(r: ProtectionRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { branch_name: r.rule_name, rule_name: r.rule_name };
  for (const f of FIELDS) out[f] = r[f];
  out.created_at = r.created_at;
  out.updated_at = r.updated_at;
  return out;
}

export class Protections {
  readonly rows: Collection<ProtectionRecord>;

  constructor(private readonly ctx: PluginContext) {
    this.rows = ctx.store.collection<ProtectionRecord>(PROTECTIONS);
  }

  async list(repoId: number): Promise<ProtectionRecord[]> {
    const rows = await this.rows.find({ repoId });
    // Gitea orders by priority, then name; an exact name wins over a glob in `forBranch`.
    return rows.sort((a, b) => a.priority - b.priority || (a.rule_name < b.rule_name ? -1 : a.rule_name > b.rule_name ? 1 : 0));
  }

  /**
   * An account renamed (`account.renamed`): the rules name users by login (as Gitea's API does), so every list that
   * names the old login names the new one — the old name must grant nothing to whoever takes it next.
   */
  async renameUser(from: string, to: string): Promise<number> {
    const lower = from.toLowerCase();
    const lists = ['push_whitelist_usernames', 'force_push_allowlist_usernames', 'merge_whitelist_usernames', 'approvals_whitelist_username'] as const;
    let changed = 0;
    for (const row of await this.rows.find({})) {
      const set: Record<string, string[]> = {};
      for (const list of lists) {
        const names = row[list];
        if (Array.isArray(names) && names.some((n) => n.toLowerCase() === lower)) set[list] = names.map((n) => (n.toLowerCase() === lower ? to : n));
      }
      if (Object.keys(set).length === 0) continue;
      await this.rows.updateOne({ repoId: row.repoId, rule_name: row.rule_name }, { $set: set });
      changed++;
    }
    return changed;
  }

  /**
   * The users plugin's rename participant: `prepare` records the rename before the account row changes, `commit`
   * rewrites the lists and drops the record, `abort` drops it. A record left by a crash is finished by `finishRenames`.
   */
  renameParticipant(): RenameParticipant {
    const pending = this.ctx.store.collection<{ uid: number; from: string; to: string }>(PROTECTION_RENAMES);
    return {
      prepare: async (account, from, to) => {
        await pending.updateOne({ uid: account.id }, { $set: { uid: account.id, from, to } }, { upsert: true });
        return null;
      },
      commit: async (account, from, to) => {
        await this.renameUser(from, to);
        await pending.deleteMany({ uid: account.id });
      },
      abort: async (account) => {
        await pending.deleteMany({ uid: account.id });
      },
    };
  }

  /** Start: renames a crash interrupted — the lists follow the name the account has now (either one). */
  async finishRenames(accountById: (id: number) => Promise<Account | null>): Promise<number> {
    const pending = this.ctx.store.collection<{ uid: number; from: string; to: string }>(PROTECTION_RENAMES);
    let finished = 0;
    for (const row of await pending.find({})) {
      const account = await accountById(row.uid);
      if (account && account.login.toLowerCase() === row.to.toLowerCase()) {
        await this.renameUser(row.from, account.login);
        finished++;
      }
      await pending.deleteMany({ uid: row.uid });
    }
    return finished;
  }

  get(repoId: number, name: string): Promise<ProtectionRecord | null> {
    return this.rows.findOne({ repoId, rule_name: name });
  }

  /** The rule that applies to a branch: an exact name first, then the first matching glob by priority. */
  forBranch(rules: ProtectionRecord[], branch: string): ProtectionRecord | null {
    return rules.find((r) => r.rule_name === branch) ?? rules.find((r) => ruleMatches(r.rule_name, branch)) ?? null;
  }

  async create(repoId: number, body: Record<string, unknown>): Promise<ProtectionRecord> {
    const name = String(body.rule_name || body.branch_name || '').trim();
    if (!name) throw fail.validation('rule_name', 'is required');
    // eslint-disable-next-line no-control-regex
    if (name.length > 255 || /[\x00-\x1f\x7f]/.test(name)) throw fail.validation('rule_name', 'is not a valid rule name');
    const now = nowRfc3339();
    const doc: ProtectionRecord = { ...DEFAULTS, repoId, rule_name: name, created_at: now, updated_at: now } as ProtectionRecord;
    for (const f of FIELDS) if (body[f] !== undefined) (doc as Record<string, unknown>)[f] = body[f];
    try {
      return await this.rows.insertOne(doc);
    } catch (err) {
      // Gitea answers an existing rule with 403.
      if (err instanceof DuplicateKeyError) throw fail.forbidden(`branch protection for ${name} already exists`);
      throw err;
    }
  }

  async edit(repoId: number, name: string, body: Record<string, unknown>): Promise<ProtectionRecord | null> {
    const set: Record<string, unknown> = { updated_at: nowRfc3339() };
    for (const f of FIELDS) if (body[f] !== undefined) set[f] = body[f];
    return this.rows.findOneAndUpdate({ repoId, rule_name: name }, { $set: set });
  }

  async remove(repoId: number, name: string): Promise<boolean> {
    return (await this.rows.deleteOne({ repoId, rule_name: name })) > 0;
  }

  /**
   * Who is pushing or merging, as the allow-lists need it: the account (null for anonymous), its access mode on the
   * repository, whether it pushes with a deploy key, and (fetched once, only when a rule lists teams) the names of the
   * owning organization's teams it is in.
   */
  pusher(repo: RepoRecord, account: { id: number; login: string } | null, mode: number, deployKey = false): Pusher {
    let teams: Promise<Set<string>> | undefined;
    const orgs = this.ctx.services.has('orgs') ? this.ctx.services.get('orgs') : null;
    return {
      login: account?.login ?? null,
      mode,
      deployKey,
      teams: () => (teams ??= !account || deployKey || !orgs
        ? Promise.resolve(new Set<string>())
        : orgs.teamsOf(account.id, [repo.ownerId]).then((list) => new Set(list.filter((t) => t.orgId === repo.ownerId).map((t) => t.name.toLowerCase())))),
    };
  }

  /** The user is on an allow-list by name, or through one of the listed teams of the owning organization. */
  private async listed(p: Pusher, users: string[], teams: string[]): Promise<boolean> {
    const login = p.login?.toLowerCase();
    if (login && users.some((u) => u.toLowerCase() === login)) return true;
    if (!login || teams.length === 0) return false;
    const mine = await p.teams();
    return teams.some((t) => mine.has(t.toLowerCase()));
  }

  /**
   * Gitea's CanUserPush (and, for deploy keys, its pre-receive rule): pushing enabled, then the allow-list when there
   * is one — users, teams, or deploy keys when `push_whitelist_deploy_keys` — else write access.
   */
  async canPush(rule: ProtectionRecord | null, p: Pusher): Promise<boolean> {
    if (p.mode < ACCESS.write) return false;
    if (!rule) return true;
    if (!rule.enable_push) return false;
    if (!rule.enable_push_whitelist) return true;
    if (p.deployKey) return rule.push_whitelist_deploy_keys;
    return this.listed(p, rule.push_whitelist_usernames, rule.push_whitelist_teams);
  }

  /** Gitea's IsUserMergeWhitelisted: write access, and the merge allow-list (users or teams) when enabled. */
  async canMerge(rule: ProtectionRecord | null, p: Pusher): Promise<boolean> {
    if (p.mode < ACCESS.write || p.deployKey) return false;
    if (!rule || !rule.enable_merge_whitelist) return true;
    return this.listed(p, rule.merge_whitelist_usernames, rule.merge_whitelist_teams);
  }

  /**
   * Gitea's CanUserForcePush: force pushes enabled and the pusher may push at all; with an allow-list, the pusher on
   * it by name or team — a deploy key when `force_push_allowlist_deploy_keys`.
   */
  async mayForcePush(rule: ProtectionRecord, p: Pusher): Promise<boolean> {
    if (!rule.enable_force_push || !(await this.canPush(rule, p))) return false;
    if (!rule.enable_force_push_allowlist) return true;
    if (p.deployKey) return rule.force_push_allowlist_deploy_keys;
    return this.listed(p, rule.force_push_allowlist_usernames, rule.force_push_allowlist_teams);
  }

  /**
   * The push guard: every update of a protected branch needs push permission under its rule; deleting a protected
   * branch is refused; a non-fast-forward needs force push allowed. Tags and unprotected branches pass.
   */
  async guard(attempt: PushAttempt, isAncestor: (dir: string, a: string, b: string) => Promise<boolean | null>, dirOf: (r: RepoRecord, o: Account) => string): Promise<string | null> {
    const heads = attempt.updates.filter((u) => u.ref.startsWith('refs/heads/'));
    if (heads.length === 0) return null;
    if (attempt.pusherId === null) return null; // system changes (merges run by the server) decide for themselves
    const rules = await this.list(attempt.repo.id);
    if (rules.length === 0) return null;
    const account = await this.ctx.services.get('users').byId(attempt.pusherId);
    const deployKey = attempt.deployKeyId != null;
    // A deploy key that got this far has a write grant on the repository (the SSH server checked it).
    const mode = deployKey ? ACCESS.write
      : account ? await this.ctx.services.get('repos').accessMode({ id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'token', restricted: account.restricted === true }, attempt.repo)
        : ACCESS.none;
    const pusher = this.pusher(attempt.repo, deployKey ? null : account, mode, deployKey);
    for (const u of heads) {
      const branch = u.ref.slice('refs/heads/'.length);
      const rule = this.forBranch(rules, branch);
      if (!rule) continue;
      if (u.newSha === ZERO_SHA) return `branch ${branch} is protected: it cannot be deleted`;
      if (!(await this.canPush(rule, pusher))) return `branch ${branch} is protected: you are not allowed to push to it`;
      if (u.oldSha === ZERO_SHA) continue;
      const fastForward = await isAncestor(dirOf(attempt.repo, attempt.owner), u.oldSha, u.newSha);
      if (fastForward === true) continue;
      if (await this.mayForcePush(rule, pusher)) continue;
      if (fastForward === false) return `branch ${branch} is protected: force push is not allowed`;
      // The new commit is in the pack still to come: forgekit's pre-receive hook checks the fast-forward once it is in.
      (attempt.fastForwardRefs ??= []).push(u.ref);
    }
    return null;
  }
}

/** See Protections.pusher. */
export interface Pusher {
  login: string | null;
  mode: number;
  deployKey: boolean;
  teams: () => Promise<Set<string>>;
}
