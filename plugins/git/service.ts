// The git capability: the storage provider behind every repository record, forks, migrations and mirror syncs.
import type { ChildProcess } from 'node:child_process';
import { rename } from 'node:fs/promises';
import { crashPoint } from '../lib/crash-points.js';
import path from 'node:path';
import { ForgeError, fail } from '../../core/errors.js';
import type { Caller, PluginContext } from '../../core/plugin.js';
import type { Collection } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { ACCESS, type Account, type RenameParticipant, type RepoInitOptions, type RepoRecord, type RepoStorageProvider, type ReposService, type UsersService } from '../../schemas/services.js';
import { checkRemote, RemoteRefused, type Remote } from './remote-url.js';
import { GitError, GitRunner, gitMessage } from './runner.js';
import { GitStorage, UnsafePathError, type CloneOptions, type RepoStats } from './storage.js';
import { SyncQueue } from './sync-queue.js';
import { TransferLimits } from './transfers.js';
import { Templates } from './templates.js';
import { SecretBox } from '../lib/secret-box.js';
import { CatFilePool } from './cat-file.js';
import { PushProcessor, readRefs } from './push.js';
import { fastForwardOptions, installFastForwardHook } from './fast-forward-hook.js';
import type { GitRunOptions, GitService as GitServiceContract, GitStats, ObjectReader, PushAttempt, PushGuard } from '../../schemas/contracts/git.js';
import type { PushCommit, PushTransport } from '../../schemas/events.js';
import type { CronTask } from '../../schemas/contracts/admin.js';

export const MIRRORS = 'git_mirrors';
/** Owner directories being moved by an account rename (crash safety: converged to the account's name at start). */
export const OWNER_MOVES = 'git_owner_moves';

export interface OwnerMoveRecord {
  [key: string]: unknown;
  uid: number;
  /** Lower-case logins: the directory names. */
  from: string;
  to: string;
}

/** Where a mirror fetches from; credentials live here, never in the repository's git config or in logs. */
export interface MirrorRecord {
  [key: string]: unknown;
  repoId: number;
  url: string;
  kind: Remote['kind'];
  username: string | null;
  /** Sealed with the plugin's SecretBox (`v1:...`), never stored in clear. */
  password: string | null;
  /** Epoch milliseconds of the next periodic sync. */
  nextSyncAt: number;
}

/** `plugins.git.*` (defaults in the plugin's settings schema). */
export interface GitSettings {
  gitBinary: string;
  timeoutMs: number;
  migrateAllowLocal: boolean;
  mirrorIntervalMs: number;
  /** Repositories with live `git cat-file` readers at once. */
  catFileMaxRepos: number;
  /** A reader unused this long is closed. */
  catFileIdleMs: number;
  /** A smart HTTP transfer without a byte either way this long is cut. */
  transferIdleMs: number;
  maxTransfers: number;
  maxTransfersPerRepo: number;
  transferRetryAfterSeconds: number;
  /** receive.maxInputSize of every push (0 = none). */
  maxPushBytes: number;
}

const DEFAULT_BRANCH = 'master';
const SYNC_CONCURRENCY = 2;
/** How often the periodic sync looks for due mirrors (or the interval itself, when shorter). */
const SCHEDULER_TICK_MS = 60_000;

export class GitService implements RepoStorageProvider, GitServiceContract {
  readonly settings: GitSettings;
  readonly runner: GitRunner;
  readonly storage: GitStorage;
  readonly templates = new Templates();
  readonly queue: SyncQueue;
  readonly mirrors: Collection<MirrorRecord>;
  readonly catFiles: CatFilePool;
  readonly pushes: PushProcessor;
  readonly transfers: TransferLimits;
  private timer: NodeJS.Timeout | undefined;
  private box: SecretBox | undefined;
  /** Where forgekit's own receive-pack hook lives (fast-forward-hook.ts); set by start(). */
  private hooksDir: string | undefined;

  constructor(private readonly ctx: PluginContext<GitSettings>) {
    this.settings = ctx.settings;
    const dataDir = path.resolve(ctx.config.dataDir);
    this.runner = new GitRunner({ binary: this.settings.gitBinary, home: path.join(dataDir, 'git-home'), timeoutMs: this.settings.timeoutMs, log: ctx.log });
    this.storage = new GitStorage(this.runner, path.join(dataDir, 'repositories'), ctx.log);
    this.queue = new SyncQueue((id) => this.sync(id), SYNC_CONCURRENCY, ctx.log);
    this.mirrors = ctx.store.collection<MirrorRecord>(MIRRORS);
    this.catFiles = new CatFilePool(this.runner, { maxRepos: this.settings.catFileMaxRepos, idleMs: this.settings.catFileIdleMs }, ctx.log);
    this.transfers = new TransferLimits({
      maxTransfers: this.settings.maxTransfers,
      maxTransfersPerRepo: this.settings.maxTransfersPerRepo,
      retryAfterSeconds: this.settings.transferRetryAfterSeconds,
    });
    this.pushes = new PushProcessor({ runner: this.runner, storage: this.storage, events: ctx.events, log: ctx.log, repos: () => this.repos });
  }

  get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  async stats(): Promise<GitStats> {
    return {
      running: this.runner.running,
      catFileProcesses: this.catFiles.processes,
      catFileRepositories: this.catFiles.repositories,
      mirrorsDue: await this.mirrors.count({ nextSyncAt: { $lte: Date.now() } }),
      mirrorSyncsQueued: this.queue.size,
    };
  }

  async start(): Promise<void> {
    const [, , box, hooksDir] = await Promise.all([
      this.runner.start(),
      this.templates.load(),
      SecretBox.open(path.join(path.resolve(this.ctx.config.dataDir), 'secrets', 'mirror-credentials.key')),
      installFastForwardHook(this.ctx.config.dataDir),
    ]);
    this.box = box;
    this.hooksDir = hooksDir;
    this.catFiles.start();
    try {
      await this.storage.start();
    } catch (err) {
      throw new Error(`the git plugin needs the git executable ("${this.settings.gitBinary}"): ${(err as Error).message}`);
    }
    const interval = this.settings.mirrorIntervalMs;
    if (interval > 0) {
      this.tickStarted = Date.now();
      this.timer = setInterval(() => {
        this.tickStarted = Date.now();
        void this.scheduleDue();
      }, this.tickMs);
      this.timer.unref();
    }
  }

  async stop(graceMs: number): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const queueDone = this.queue.stop();
    this.catFiles.close();
    await this.runner.stop(graceMs);
    await queueDone;
  }

  // ---- RepoStorageProvider ----

  checkInit(init: RepoInitOptions): string | null {
    return this.templates.check(init);
  }

  async create(repo: RepoRecord, owner: Account, init: RepoInitOptions): Promise<{ empty: boolean; size: number }> {
    const dir = this.repoDir(repo, owner);
    const branch = repo.defaultBranch || DEFAULT_BRANCH;
    await this.storage.prepare(dir);
    try {
      await this.storage.init(dir, branch);
      let stats: RepoStats = { empty: true, size: 0 }; // a fresh `git init` has no objects
      if (init.autoInit) {
        const files = this.templates.initFiles(init, {
          owner: owner.fullName || owner.login,
          year: new Date().getUTCFullYear(),
          repoName: repo.name,
          description: repo.description ?? '',
          cloneUrl: `${this.ctx.urls.root}${owner.login}/${repo.name}.git`,
        });
        await this.storage.commitFiles(dir, branch, files, this.identity(owner), 'Initial commit\n');
        stats = { empty: false, size: await this.storage.size(dir) };
      }
      if (!repo.defaultBranch) await this.repos.updateFields(repo.id, { defaultBranch: branch });
      return stats;
    } catch (err) {
      await this.storage.remove(dir);
      throw err;
    }
  }

  async remove(repo: RepoRecord, owner: Account): Promise<void> {
    this.queue.forget(repo.id);
    this.catFiles.forget(this.repoDir(repo, owner));
    await this.mirrors.deleteOne({ repoId: repo.id });
    await this.storage.remove(this.repoDir(repo, owner));
  }

  // ---- account renames: the owner's directory follows its name ----

  private get moves(): Collection<OwnerMoveRecord> {
    return this.ctx.store.collection<OwnerMoveRecord>(OWNER_MOVES);
  }

  /**
   * The git plugin's part in an account rename: `<root>/<old>` becomes `<root>/<new>` (one rename(2)). The move is
   * recorded before the account changes and dropped after the directory moved; `recoverOwnerMoves` finishes or undoes
   * a recorded move at start, whichever matches the account's stored name.
   */
  renameParticipant(): RenameParticipant {
    const same = (from: string, to: string) => from.toLowerCase() === to.toLowerCase();
    return {
      prepare: async (account, from, to) => {
        if (same(from, to)) return null;
        if (await this.storage.exists(this.storage.ownerDir(to))) {
          return `repository files already exist for ${to.toLowerCase()} (GET /admin/unadopted lists them); delete or move them first`;
        }
        await this.moves.updateOne({ uid: account.id }, { $set: { uid: account.id, from: from.toLowerCase(), to: to.toLowerCase() } }, { upsert: true });
        return null;
      },
      commit: async (account, from, to) => {
        if (same(from, to)) return;
        crashPoint('account.rename:before-move');
        const moved = await this.storage.moveOwner(from, to);
        if (moved === 'target-exists') throw new Error(`cannot move the repositories of ${from}: ${to.toLowerCase()} exists on disk`);
        this.catFiles.forgetUnder(this.storage.ownerDir(from));
        crashPoint('account.rename:after-move');
        await this.moves.deleteOne({ uid: account.id });
      },
      abort: async (account, from, to) => {
        if (same(from, to)) return;
        await this.converge(from.toLowerCase(), to.toLowerCase(), from.toLowerCase());
        await this.moves.deleteOne({ uid: account.id });
      },
    };
  }

  /** Puts the owner directory at `want` (one of `from`/`to`) when it is at the other one. */
  private async converge(from: string, to: string, want: string): Promise<void> {
    const other = want === to ? from : to;
    const [atWant, atOther] = await Promise.all([this.storage.exists(this.storage.ownerDir(want)), this.storage.exists(this.storage.ownerDir(other))]);
    if (!atWant && atOther) {
      this.catFiles.forgetUnder(this.storage.ownerDir(other));
      await rename(this.storage.ownerDir(other), this.storage.ownerDir(want));
    }
  }

  /** Start: moves a crash interrupted are finished or undone to match each account's stored name. */
  async recoverOwnerMoves(): Promise<string[]> {
    const done: string[] = [];
    for (const move of await this.moves.find({})) {
      const account = await this.users.byId(move.uid);
      if (account && (account.lowerName === move.from || account.lowerName === move.to)) {
        await this.converge(move.from, move.to, account.lowerName);
        done.push(`${move.from} -> ${move.to}: repositories at ${account.lowerName}`);
      }
      await this.moves.deleteOne({ uid: move.uid });
    }
    if (done.length) this.ctx.log.warn({ done }, 'git: finished owner directory moves a crash interrupted');
    return done;
  }

  // ---- the service other plugins use (schemas/contracts/git.ts) ----

  run(dir: string, args: string[], options: GitRunOptions = {}): Promise<{ stdout: string; stderr: string }> {
    return this.runner.run(['--git-dir', dir, ...args], options);
  }

  spawn(dir: string, args: string[], options: GitRunOptions = {}): ChildProcess {
    return this.runner.spawn(['--git-dir', dir, ...args], options);
  }

  reader(dir: string): ObjectReader {
    return this.catFiles.reader(dir);
  }

  async commitOf(repo: RepoRecord, owner: Account, rev: string): Promise<PushCommit | null> {
    // eslint-disable-next-line no-control-regex
    if (!rev || rev.length > 255 || rev.startsWith('-') || /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{/.test(rev)) return null;
    const dir = this.repoDir(repo, owner);
    const reader = this.reader(dir);
    const full = /^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(rev);
    let sha: string | null = null;
    for (const candidate of full ? [rev.toLowerCase()] : [`refs/heads/${rev}`, `refs/tags/${rev}`, rev]) {
      sha = await reader.resolve(`${candidate}^{commit}`);
      if (sha) break;
    }
    if (!sha) return null;
    return this.pushes.commitWithFiles(dir, sha);
  }

  async readRefs(repo: RepoRecord, owner?: Account): Promise<Map<string, string>> {
    const account = owner ?? (await this.users.byId(repo.ownerId));
    if (!account) return new Map();
    return readRefs(this.runner, this.repoDir(repo, account));
  }

  addPushGuard(guard: PushGuard): void {
    this.pushes.addGuard(guard);
  }

  /**
   * How receive-pack runs for a push its guards accepted: `-c` options (git refuses a pack over `maxPushBytes`
   * itself; refs a guard needs fast-forward only get forgekit's pre-receive hook, fast-forward-hook.ts) and environment.
   * Smart HTTP and SSH both use it.
   */
  receivePackOptions(attempt: Pick<PushAttempt, 'fastForwardRefs'>): { config: string[]; env: Record<string, string> } {
    const config: string[] = [];
    if (this.settings.maxPushBytes > 0) config.push('-c', `receive.maxInputSize=${this.settings.maxPushBytes}`);
    const refs = attempt.fastForwardRefs ?? [];
    if (refs.length > 0 && !this.hooksDir) throw new Error('the fast-forward hook is not installed (the git plugin has not started)');
    const ff = fastForwardOptions(this.hooksDir ?? '', refs);
    return { config: [...config, ...ff.config], env: ff.env };
  }

  checkPush(attempt: PushAttempt): Promise<string | null> {
    return this.pushes.check(attempt);
  }

  async afterPush(repo: RepoRecord, owner: Account, before: Map<string, string>, pusherId: number | null, via: PushTransport): Promise<void> {
    const fresh = (await this.repos.byId(repo.id)) ?? repo;
    await this.pushes.afterPush(this.repoDir(fresh, owner), fresh, owner, before, pusherId, via);
  }

  // ---- helpers used by the handlers ----

  /** The repository's directory; a name the file system must not see is a 422 (the name rules should stop it first). */
  repoDir(repo: RepoRecord, owner: Account): string {
    try {
      return this.storage.repoDir(owner.login, repo.name);
    } catch (err) {
      if (err instanceof UnsafePathError) throw fail.validation('name', err.message);
      throw err;
    }
  }

  /**
   * Who commits what forgekit writes itself (auto-init): the account's no-reply address `<login>@noreply.<host>`,
   * never its email (decisions.md): an anonymous clone must not reveal what the API hides.
   */
  identity(owner: Account): { name: string; email: string } {
    return this.users.commitIdentity(owner);
  }

  /** Re-reads `empty`, `size` and the default branch from disk after a push, fork or sync. */
  async refresh(repo: RepoRecord, owner: Account): Promise<RepoStats> {
    const dir = this.repoDir(repo, owner);
    const head = await this.storage.settleHead(dir, repo.defaultBranch || DEFAULT_BRANCH);
    const stats = await this.storage.stats(dir);
    const fields: Parameters<ReposService['updateFields']>[1] = { empty: stats.empty, size: stats.size };
    if (head && head !== repo.defaultBranch) fields.defaultBranch = head;
    await this.repos.updateFields(repo.id, fields);
    return stats;
  }

  /** `repo.updated` with a new default branch: HEAD follows when that branch exists (or nothing is pushed yet). */
  async onRepoUpdated(repo: RepoRecord, before: RepoRecord): Promise<void> {
    if (!repo.defaultBranch || repo.defaultBranch === before.defaultBranch) return;
    const owner = await this.users.byId(repo.ownerId);
    if (!owner) return;
    const dir = this.repoDir(repo, owner);
    const branches = await this.storage.branches(dir);
    if (branches.length === 0 || branches.includes(repo.defaultBranch)) await this.storage.setHead(dir, repo.defaultBranch);
  }

  // ---- forks ----

  /** The storage half of a fork: a bare clone of the parent, same default branch. */
  forkStorage(parent: RepoRecord, parentOwner: Account): Partial<RepoStorageProvider> {
    return {
      checkInit: () => null,
      create: async (fork, forkOwner) => {
        const source = this.repoDir(parent, parentOwner);
        const dir = this.repoDir(fork, forkOwner);
        await this.storage.prepare(dir);
        try {
          const parentStats = await this.storage.stats(source);
          if (parentStats.empty) {
            await this.storage.init(dir, (await this.storage.headBranch(source)) ?? (parent.defaultBranch || DEFAULT_BRANCH));
          } else {
            await this.storage.cloneLocal(source, dir);
          }
          const head = await this.storage.headBranch(dir);
          if (head && head !== fork.defaultBranch) await this.repos.updateFields(fork.id, { defaultBranch: head });
          return await this.storage.stats(dir);
        } catch (err) {
          await this.storage.remove(dir);
          throw err;
        }
      },
    };
  }

  // ---- migrations and mirrors ----

  /** Checks a clone address against this server's policy; a refusal is a 422 on `clone_addr`. */
  async checkRemote(address: string): Promise<Remote> {
    try {
      return await checkRemote(address, {
        allowLocal: this.settings.migrateAllowLocal,
        forbiddenRoots: [path.resolve(this.ctx.config.dataDir)],
      });
    } catch (err) {
      if (err instanceof RemoteRefused) throw fail.validation('clone_addr', err.message);
      throw err;
    }
  }

  /**
   * git options for talking to a remote: only the protocols the policy allows, no redirects (a redirect could lead
   * to an address that was never checked), DNS pinned to the checked addresses, credentials in the environment.
   */
  remoteOptions(remote: Remote, credentials: { username?: string | null; password?: string | null }): CloneOptions {
    const config = [
      'protocol.allow=never',
      'protocol.http.allow=always',
      'protocol.https.allow=always',
      'protocol.git.allow=always',
      `protocol.file.allow=${this.settings.migrateAllowLocal ? 'always' : 'never'}`,
      'http.followRedirects=false',
      'credential.helper=',
      'core.askPass=',
    ];
    if (remote.pin) config.push(`http.curloptResolve=${remote.pin}`);
    const env: Record<string, string> = {};
    if (remote.kind === 'http' && (credentials.username || credentials.password)) {
      const basic = Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`).toString('base64');
      env.GIT_CONFIG_COUNT = '1';
      env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
      env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basic}`;
    }
    return { config, env, noLocal: remote.kind === 'local' };
  }

  /** The storage half of a migration: clone (mirror or one-off copy), remember the mirror's source. */
  migrateStorage(remote: Remote, mirror: boolean, credentials: { username: string | null; password: string | null }): Partial<RepoStorageProvider> {
    return {
      checkInit: () => null,
      create: async (repo, owner) => {
        const dir = this.repoDir(repo, owner);
        await this.storage.prepare(dir);
        try {
          try {
            await this.storage.cloneRemote(remote.url, dir, mirror, this.remoteOptions(remote, credentials));
          } catch (err) {
            if (err instanceof GitError) {
              throw fail.validation('clone_addr', err.timedOut ? 'cloning timed out' : `cannot clone: ${gitMessage(err.stderr) || err.message}`);
            }
            throw err;
          }
          const head = await this.storage.headBranch(dir);
          if (head && head !== repo.defaultBranch) await this.repos.updateFields(repo.id, { defaultBranch: head });
          if (mirror) {
            await this.mirrors.updateOne({ repoId: repo.id }, {
              $set: {
                repoId: repo.id, url: remote.url, kind: remote.kind,
                username: credentials.username, password: credentials.password ? this.box!.seal(credentials.password) : null,
                nextSyncAt: Date.now() + this.settings.mirrorIntervalMs,
              },
            }, { upsert: true });
            await this.repos.updateFields(repo.id, { mirrorUpdated: nowRfc3339(), mirrorError: null });
          }
          return await this.storage.stats(dir);
        } catch (err) {
          await this.storage.remove(dir);
          if (mirror) await this.mirrors.deleteOne({ repoId: repo.id });
          throw err;
        }
      },
    };
  }

  /** Queues a sync (mirror-sync and the periodic timer). */
  requestSync(repoId: number): void {
    this.queue.enqueue(repoId);
  }

  /**
   * One sync: re-check the source against the policy (DNS may have changed since), `git remote update --prune`,
   * then refresh the record. Failures are logged and recorded on the repository (`mirror_error`).
   */
  async sync(repoId: number): Promise<void> {
    const repo = await this.repos.byId(repoId);
    if (!repo || !repo.mirror) return;
    const owner = await this.users.byId(repo.ownerId);
    const source = await this.mirrors.findOne({ repoId });
    if (!owner || !source) return;
    await this.mirrors.updateOne({ repoId }, { $set: { nextSyncAt: Date.now() + this.settings.mirrorIntervalMs } });
    let error: string | null = null;
    try {
      const remote = await checkRemote(source.url, {
        allowLocal: this.settings.migrateAllowLocal,
        forbiddenRoots: [path.resolve(this.ctx.config.dataDir)],
      });
      const password = source.password ? this.box!.unseal(source.password) : null;
      if (source.password && password === null) throw new Error('the stored mirror credentials cannot be unsealed (key changed?)');
      await this.storage.fetchMirror(this.repoDir(repo, owner), this.remoteOptions(remote, { username: source.username, password }));
      await this.refresh(repo, owner);
    } catch (err) {
      if (err instanceof RemoteRefused) error = `source refused: ${err.message}`;
      else if (err instanceof GitError) error = err.timedOut ? 'sync timed out' : gitMessage(err.stderr) || err.message;
      else error = 'sync failed';
      this.ctx.log.warn({ repoId, error, err: err instanceof GitError || err instanceof RemoteRefused ? undefined : err }, 'mirror sync failed');
    }
    // The repository may have been deleted while git ran.
    if (await this.repos.byId(repoId)) await this.repos.updateFields(repoId, { mirrorUpdated: nowRfc3339(), mirrorError: error });
  }

  /** How often the periodic sync looks for due mirrors. */
  private get tickMs(): number {
    return Math.min(this.settings.mirrorIntervalMs, SCHEDULER_TICK_MS);
  }

  private tickStarted = 0;
  private lastScheduled: Date | null = null;
  private schedules = 0;

  /**
   * The periodic sync as Gitea's `update_mirrors` cron task (listed and run by the admin plugin): queues every mirror
   * whose next sync time has come. Null when periodic syncs are off (`mirrorIntervalMs: 0`).
   */
  mirrorTask(): CronTask | null {
    if (this.settings.mirrorIntervalMs <= 0) return null;
    const tick = this.tickMs;
    return {
      name: 'update_mirrors',
      schedule: `@every ${tick % 60_000 === 0 ? `${tick / 60_000}m` : `${tick / 1000}s`}`,
      next: () => (this.timer ? new Date(this.tickStarted + tick) : null),
      prev: () => this.lastScheduled,
      execTimes: () => this.schedules,
      run: () => this.scheduleDue(),
    };
  }

  /** The periodic sync: every mirror whose next sync time has come. */
  async scheduleDue(): Promise<void> {
    this.lastScheduled = new Date();
    this.schedules++;
    try {
      const due = await this.mirrors.find({ nextSyncAt: { $lte: Date.now() } }, { projection: { repoId: 1 } });
      for (const m of due) this.queue.enqueue(m.repoId);
    } catch (err) {
      this.ctx.log.error({ err }, 'scheduling mirror syncs failed');
    }
  }

  // ---- access for git over HTTP ----

  /**
   * Resolves a repository for a git client. An anonymous client that cannot read (or, for push, write) is asked to
   * authenticate (401 with a Basic challenge) whether or not the repository exists, so nothing leaks.
   */
  async resolveForGit(caller: Caller | null, owner: string, name: string, write: boolean): Promise<{ repo: RepoRecord; owner: Account }> {
    try {
      // Clones and pushes are the code unit (a team's units_map may give it less, or more, than the team's permission).
      const found = await this.repos.resolve(caller, owner, name, write ? ACCESS.write : ACCESS.read, 'code');
      if (write && found.repo.mirror) throw fail.forbidden('this repository is a mirror: pushing is not allowed');
      if (write) this.repos.assertWritable(found.repo);
      return found;
    } catch (err) {
      if (!caller && err instanceof ForgeError && (err.status === 404 || err.status === 403)) throw fail.unauthorized();
      throw err;
    }
  }
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** This plugin's own service (its handlers reach it through the registry); no other plugin depends on it. */
    git: GitService;
  }
}
