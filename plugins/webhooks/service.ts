// Webhooks: hooks of repositories, of owners (users and organizations) and of the system; every matching event is
// recorded as a delivery row inside the event handler (before the change is acknowledged), then sent by the queue.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fail } from '../../core/errors.js';
import type { PluginContext } from '../../core/plugin.js';
import type { Collection, IndexSpec } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { WebhookQueueStats, WebhooksService } from '../../schemas/contracts/webhooks.js';
import { compileGlob, GlobSyntaxError } from '../lib/glob.js';
import { SecretBox } from '../lib/secret-box.js';
import { expandEvents, type HookEventType } from './event-types.js';
import { checkTarget, HostMatchList, TargetRefused, parseTargetUrl } from './hosts.js';
import { Payloads, type Outgoing } from './payloads.js';
import { DeliveryQueue } from './queue.js';
import type { SendTarget } from './sender.js';

export const HOOKS = 'webhooks';
export const DELIVERIES = 'webhook_deliveries';

export const HOOK_INDEXES: IndexSpec[] = [
  { fields: { repoId: 1, id: 1 } },
  { fields: { ownerId: 1, id: 1 } },
  { fields: { kind: 1, id: 1 } },
];

export const DELIVERY_INDEXES: IndexSpec[] = [
  { fields: { uuid: 1 }, unique: true },
  { fields: { hookId: 1, id: 1 } },
  { fields: { state: 1, id: 1 } },
];

export interface WebhookSettings {
  allowedHostList: string;
  deliverTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  concurrency: number;
  maxResponseBytes: number;
  historyPerHook: number;
}

export type HookKind = 'repo' | 'owner' | 'system';

export interface HookRecord {
  [key: string]: unknown;
  id: number;
  kind: HookKind;
  repoId: number | null;
  ownerId: number | null;
  type: 'gitea' | 'gogs';
  url: string;
  contentType: 'json' | 'form';
  httpMethod: 'POST' | 'GET';
  /** Sealed with the plugin's SecretBox, '' for none. */
  secret: string;
  /** Sealed, '' for none. */
  authorization: string;
  events: HookEventType[];
  branchFilter: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  [key: string]: unknown;
  id: number;
  uuid: string;
  hookId: number;
  type: HookEventType;
  /** The JSON text sent (and signed). */
  payload: string;
  /** The hook's target when the delivery was recorded: used if the hook is gone by the time it is sent. */
  target: SendTarget;
  state: DeliveryState;
  attempts: number;
  /** Epoch ms before which no attempt is made (retry backoff). */
  nextAttemptAt: number;
  createdAt: string;
  deliveredAt: string;
  redeliveryOf: number;
  error: string;
  request: { url: string; method: string; headers: Record<string, string> } | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  durationMs: number;
}

/** The hook fields an API call sets (already validated). */
export interface HookInput {
  type?: string;
  config?: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  authorization_header?: string;
  active?: boolean;
}

export class Webhooks implements WebhooksService {
  readonly hooks: Collection<HookRecord>;
  readonly deliveries: Collection<DeliveryRecord>;
  readonly settings: WebhookSettings;
  readonly allowed: HostMatchList;
  readonly payloads: Payloads;
  readonly queue: DeliveryQueue;
  private box: SecretBox | undefined;

  constructor(private readonly ctx: PluginContext<WebhookSettings>) {
    this.settings = ctx.settings as WebhookSettings;
    this.hooks = ctx.store.collection<HookRecord>(HOOKS);
    this.deliveries = ctx.store.collection<DeliveryRecord>(DELIVERIES);
    try {
      this.allowed = new HostMatchList(this.settings.allowedHostList);
    } catch (err) {
      throw new Error(`plugins.webhooks.allowedHostList: ${(err as Error).message}`);
    }
    this.payloads = new Payloads(ctx);
    this.queue = new DeliveryQueue(this, ctx.log);
  }

  async start(): Promise<void> {
    this.box = await SecretBox.open(path.join(path.resolve(this.ctx.config.dataDir), 'secrets', 'webhooks.key'));
    await this.queue.start();
  }

  stop(graceMs: number): Promise<void> {
    return this.queue.stop(graceMs);
  }

  stats(): WebhookQueueStats {
    return this.queue.stats();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  seal(plain: string): string {
    return plain ? this.box!.seal(plain) : '';
  }

  unseal(sealed: string): string {
    return sealed ? this.box!.unseal(sealed) ?? '' : '';
  }

  targetOf(hook: Pick<HookRecord, 'url' | 'contentType' | 'httpMethod' | 'secret' | 'authorization'>): SendTarget {
    return { url: hook.url, contentType: hook.contentType, httpMethod: hook.httpMethod, secret: hook.secret, authorization: hook.authorization };
  }

  // ---- hooks ----

  async byId(kind: HookKind, scopeId: number | null, id: number): Promise<HookRecord> {
    const filter: Record<string, unknown> = { id, kind };
    if (kind === 'repo') filter.repoId = scopeId;
    if (kind === 'owner') filter.ownerId = scopeId;
    const hook = await this.hooks.findOne(filter);
    if (!hook) throw fail.notFound();
    return hook;
  }

  async list(kind: HookKind, scopeId: number | null, skip: number, limit: number): Promise<{ rows: HookRecord[]; total: number }> {
    const filter: Record<string, unknown> = kind === 'repo' ? { repoId: scopeId } : kind === 'owner' ? { ownerId: scopeId } : { kind: 'system' };
    const { docs: rows, total } = await this.hooks.findAndCount(filter, { sort: { id: 1 }, skip, limit });
    return { rows, total };
  }

  /** Checks a target URL now: refused (loopback, private… unless allowed) → 422 naming config.url. */
  private async checkUrl(url: string): Promise<void> {
    try {
      parseTargetUrl(url);
      await checkTarget(url, this.allowed, undefined, true);
    } catch (err) {
      if (err instanceof TargetRefused) throw fail.validation('config.url', err.message);
      throw err;
    }
  }

  private checkBranchFilter(filter: string): void {
    if (!filter || filter === '*') return;
    try {
      compileGlob(filter);
    } catch (err) {
      if (err instanceof GlobSyntaxError) throw fail.validation('branch_filter', `is not a valid glob pattern: ${err.message}`);
      throw err;
    }
  }

  async create(kind: HookKind, scopeId: number | null, input: HookInput): Promise<HookRecord> {
    const type = input.type;
    if (type !== 'gitea' && type !== 'gogs') throw fail.validation('type', `invalid hook type: ${type} (this server sends gitea and gogs hooks)`);
    const config = input.config ?? {};
    for (const name of ['url', 'content_type']) if (config[name] === undefined) throw fail.validation('config', `missing config option: ${name}`);
    const contentType = config.content_type;
    if (contentType !== 'json' && contentType !== 'form') throw fail.validation('config.content_type', 'invalid content type (json or form)');
    const httpMethod = (config.http_method ?? 'POST').toUpperCase();
    if (httpMethod !== 'POST' && httpMethod !== 'GET') throw fail.validation('config.http_method', 'must be POST or GET');
    await this.checkUrl(config.url!);
    const branchFilter = input.branch_filter ?? '';
    this.checkBranchFilter(branchFilter);
    const now = nowRfc3339();
    const record: HookRecord = {
      id: await this.ctx.store.nextId(HOOKS),
      kind,
      repoId: kind === 'repo' ? scopeId : null,
      ownerId: kind === 'owner' ? scopeId : null,
      type,
      url: config.url!,
      contentType,
      httpMethod,
      secret: this.seal(config.secret ?? ''),
      authorization: this.seal(input.authorization_header ?? ''),
      events: expandEvents(input.events ?? []),
      branchFilter,
      active: input.active ?? false,
      createdAt: now,
      updatedAt: now,
    };
    return this.hooks.insertOne(record);
  }

  /** Gitea's editHook: config keys replace what they name, `events` is always re-read (none → push). */
  async edit(hook: HookRecord, input: HookInput): Promise<HookRecord> {
    const set: Partial<HookRecord> = { updatedAt: nowRfc3339() };
    const config = input.config;
    if (config) {
      if (config.url !== undefined) {
        await this.checkUrl(config.url);
        set.url = config.url;
      }
      if (config.content_type !== undefined) {
        if (config.content_type !== 'json' && config.content_type !== 'form') throw fail.validation('config.content_type', 'invalid content type (json or form)');
        set.contentType = config.content_type;
      }
      if (config.http_method !== undefined) {
        const m = config.http_method.toUpperCase();
        if (m !== 'POST' && m !== 'GET') throw fail.validation('config.http_method', 'must be POST or GET');
        set.httpMethod = m;
      }
      if (config.secret !== undefined) set.secret = this.seal(config.secret);
    }
    set.events = expandEvents(input.events ?? []);
    if (input.branch_filter !== undefined) {
      this.checkBranchFilter(input.branch_filter);
      set.branchFilter = input.branch_filter;
    }
    if (input.authorization_header !== undefined) set.authorization = this.seal(input.authorization_header);
    if (input.active !== undefined) set.active = input.active;
    const updated = await this.hooks.findOneAndUpdate({ id: hook.id }, { $set: set });
    if (!updated) throw fail.notFound();
    return updated;
  }

  async remove(hook: HookRecord): Promise<void> {
    await this.hooks.deleteOne({ id: hook.id });
    const dropped = await this.deliveries.deleteMany({ hookId: hook.id, state: 'pending' });
    await this.deliveries.deleteMany({ hookId: hook.id });
    this.queue.forget(hook.id, dropped);
  }

  // ---- events → deliveries ----

  /** The active hooks an event of this repository reaches: its own, its owner's, and system hooks. */
  private async hooksFor(repo: RepoRecord): Promise<HookRecord[]> {
    const [own, owner, system] = await Promise.all([
      this.hooks.find({ repoId: repo.id }),
      this.hooks.find({ ownerId: repo.ownerId }),
      this.hooks.find({ kind: 'system' }),
    ]);
    return [...own, ...owner, ...system].filter((h) => h.active);
  }

  /** Records one delivery per hook that wants this payload; returns how many were recorded. */
  async enqueue(out: Outgoing | null, only?: HookRecord, known?: HookRecord[]): Promise<number> {
    if (!out) return 0;
    const candidates = only ? [only] : known ?? await this.hooksFor(out.repo);
    const chosen = only ? candidates : candidates.filter((h) => h.events.includes(out.type) && branchPasses(h.branchFilter, out.branch));
    if (chosen.length === 0) return 0;
    const payload = JSON.stringify(out.payload, null, 2);
    return (await this.record(chosen.map((h) => ({ hook: h, type: out.type, payload, redeliveryOf: 0 })))).length;
  }

  async record(items: Array<{ hook: HookRecord; type: HookEventType; payload: string; redeliveryOf: number }>): Promise<DeliveryRecord[]> {
    const now = nowRfc3339();
    const rows: DeliveryRecord[] = [];
    for (const { hook, type, payload, redeliveryOf } of items) {
      rows.push({
        id: await this.ctx.store.nextId(DELIVERIES),
        uuid: randomUUID(),
        hookId: hook.id,
        type,
        payload,
        target: this.targetOf(hook),
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 0,
        createdAt: now,
        deliveredAt: '',
        redeliveryOf,
        error: '',
        request: null,
        response: null,
        durationMs: 0,
      });
    }
    const stored = await this.deliveries.insertMany(rows);
    this.queue.added(stored.length);
    return stored;
  }

  /** A finished delivery sent again: a new delivery row (new UUID) with the same payload. */
  async redeliver(hook: HookRecord, delivery: DeliveryRecord): Promise<DeliveryRecord> {
    const [row] = await this.record([{ hook, type: delivery.type, payload: delivery.payload, redeliveryOf: delivery.id }]);
    return row!;
  }

  /** Gitea's test delivery: a push of the repository's latest commit (or a fake commit when it has none). */
  async test(hook: HookRecord, repo: RepoRecord, owner: Account, senderId: number, ref: string | undefined): Promise<void> {
    const branch = ref || repo.defaultBranch || 'master';
    // The branch's head commit as the git service reads it (message, author, files), or Gitea's fake commit.
    const read = this.ctx.services.has('git') ? await this.ctx.services.get('git').commitOf(repo, owner, branch) : null;
    const ghost = { name: 'Ghost', email: '', username: 'Ghost' };
    const commit = read ?? {
      id: '0000000000000000000000000000000000000000',
      message: 'This is a fake commit',
      timestamp: nowRfc3339(),
      author: ghost, committer: ghost, added: [], removed: [], modified: [],
    };
    const out = await this.payloads.push({
      repo, owner, pusherId: senderId, via: 'api', ref: `refs/heads/${branch}`,
      before: commit.id, after: commit.id, commits: [commit], totalCommits: 1,
    });
    await this.enqueue(out, hook);
  }

  /**
   * Called by every event handler with the repositories whose hooks may hear of it: when none has an active hook the
   * payload is never built (an event costs three indexed lookups). A failure is logged, never thrown at the
   * emitting request.
   */
  async dispatch(what: string, repos: RepoRecord[], build: () => Promise<Outgoing | Outgoing[] | null>): Promise<void> {
    try {
      const known = new Map<number, HookRecord[]>();
      for (const repo of repos) known.set(repo.id, await this.hooksFor(repo));
      if (![...known.values()].some((hooks) => hooks.length > 0)) return;
      const out = await build();
      for (const o of Array.isArray(out) ? out : [out]) if (o) await this.enqueue(o, undefined, known.get(o.repo.id));
    } catch (err) {
      this.ctx.log.error({ err, event: what }, 'recording webhook deliveries failed');
    }
  }

  async onRepoDeleted(repo: RepoRecord, owner: Account | null): Promise<void> {
    await this.dispatch('repo.deleted', [repo], () => this.payloads.repositoryAction('deleted', repo, owner, null));
    // The repository's hooks go with their history; their pending deliveries (this one included) are still sent from
    // their snapshot, then dropped.
    const gone = await this.hooks.find({ repoId: repo.id }, { projection: { id: 1 } });
    if (gone.length === 0) return;
    await this.hooks.deleteMany({ repoId: repo.id });
    await this.deliveries.deleteMany({ hookId: { $in: gone.map((h) => h.id) }, state: { $ne: 'pending' } });
  }

  async onAccountDeleted(account: Account): Promise<void> {
    const hooks = await this.hooks.find({ ownerId: account.id });
    for (const hook of hooks) await this.remove(hook);
  }
}

/** Gitea's checkBranch: no filter or `*` passes everything; a payload without a branch is never filtered. */
export function branchPasses(filter: string, branch: string | undefined): boolean {
  if (branch === undefined || filter === '' || filter === '*') return true;
  try {
    return compileGlob(filter).test(branch);
  } catch {
    return false;
  }
}
