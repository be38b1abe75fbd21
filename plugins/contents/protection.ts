// Branch protection rules (`/branch_protections`): stored per repository, matched to branch names (exact name or a
// glob: `*` within a segment, `**` across), and enforced on every push and API write through the git service's guard.
import { fail } from '../../core/errors.js';
import type { Collection } from '../../core/store/port.js';
import { DuplicateKeyError } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { ZERO_SHA, type PushAttempt } from '../../schemas/contracts/git.js';
import { ACCESS, type Account, type RepoRecord } from '../../schemas/services.js';
import type { PluginContext } from '../../core/plugin.js';

export const PROTECTIONS = 'branch_protections';

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

  /** Whether `userId` may push to a branch under this rule (admins of the repository too, like Gitea's whitelist). */
  canPush(rule: ProtectionRecord | null, login: string | null, mode: number): boolean {
    if (!rule) return mode >= ACCESS.write;
    if (!rule.enable_push) return false;
    if (!rule.enable_push_whitelist) return mode >= ACCESS.write;
    return login !== null && rule.push_whitelist_usernames.some((u) => u.toLowerCase() === login.toLowerCase());
  }

  canMerge(rule: ProtectionRecord | null, login: string | null, mode: number): boolean {
    if (mode < ACCESS.write) return false;
    if (!rule || !rule.enable_merge_whitelist) return true;
    return login !== null && rule.merge_whitelist_usernames.some((u) => u.toLowerCase() === login.toLowerCase());
  }

  /**
   * The push guard: every update of a protected branch needs push permission under its rule; deleting a protected
   * branch is refused; a non-fast-forward needs force push allowed. Tags and unprotected branches pass.
   */
  /** Gitea's force-push rule: enabled, and the pusher on the allow-list when there is one (usernames only, here). */
  mayForcePush(rule: ProtectionRecord, login: string | null): boolean {
    return rule.enable_force_push
      && (!rule.enable_force_push_allowlist || rule.force_push_allowlist_usernames.some((n) => n.toLowerCase() === login?.toLowerCase()));
  }

  /** Whether the repository has a protected branch this pusher may not force-push (SSH then runs fast-forward-only). */
  async forbidsForcePush(repoId: number, pusherId: number | null): Promise<boolean> {
    if (pusherId === null) return false;
    const rules = await this.list(repoId);
    if (rules.length === 0) return false;
    const pusher = await this.ctx.services.get('users').byId(pusherId);
    return rules.some((rule) => !this.mayForcePush(rule, pusher?.login ?? null));
  }

  async guard(attempt: PushAttempt, isAncestor: (dir: string, a: string, b: string) => Promise<boolean | null>, dirOf: (r: RepoRecord, o: Account) => string): Promise<string | null> {
    const heads = attempt.updates.filter((u) => u.ref.startsWith('refs/heads/'));
    if (heads.length === 0) return null;
    const rules = await this.list(attempt.repo.id);
    if (rules.length === 0) return null;
    const users = this.ctx.services.get('users');
    const pusher = attempt.pusherId === null ? null : await users.byId(attempt.pusherId);
    const mode = pusher ? await this.ctx.services.get('repos').accessMode({ id: pusher.id, login: pusher.login, isAdmin: pusher.isAdmin, via: 'token', restricted: pusher.restricted === true }, attempt.repo) : ACCESS.owner;
    for (const u of heads) {
      const branch = u.ref.slice('refs/heads/'.length);
      const rule = this.forBranch(rules, branch);
      if (!rule) continue;
      if (attempt.pusherId === null) continue; // system changes (merges run by the server) decide for themselves
      if (u.newSha === ZERO_SHA) return `branch ${branch} is protected: it cannot be deleted`;
      if (!this.canPush(rule, pusher?.login ?? null, mode)) return `branch ${branch} is protected: you are not allowed to push to it`;
      if (u.oldSha === ZERO_SHA) continue;
      const fastForward = await isAncestor(dirOf(attempt.repo, attempt.owner), u.oldSha, u.newSha);
      if (fastForward === true) continue;
      if (this.mayForcePush(rule, pusher?.login ?? null)) continue;
      if (fastForward === false) return `branch ${branch} is protected: force push is not allowed`;
      // The new commit is in the pack still to come: git checks the fast-forward once it has it.
      attempt.requireFastForward = true;
    }
    return null;
  }
}
