// What an SSH session may do: who a key is (a user's key, or a deploy key of some repositories), which repository
// a git command may reach, and running git's transport service over the channel like smart HTTP does.
import type { ChildProcess } from 'node:child_process';
import { ForgeError } from '../../core/errors.js';
import type { Caller, ServiceRegistry } from '../../core/plugin.js';
import type { DeployKeyRecord } from '../../schemas/contracts/deploy-keys.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { PushTransport } from '../../schemas/events.js';
import type { PushAttempt, RefUpdate } from '../../schemas/contracts/git.js';
import type { GitSshCommand } from './command.js';

/** Who authenticated with a key. */
export type SshIdentity =
  | { kind: 'user'; caller: Caller; account: Account }
  | { kind: 'deploy'; grants: DeployKeyRecord[]; fingerprint: string };

/** A repository a command may use, resolved for the identity. */
export interface SshTarget {
  repo: RepoRecord;
  owner: Account;
  dir: string;
  write: boolean;
  /** Who a push is attributed to (a deploy key pushes as the repository's owner, as in Gitea). */
  pusherId: number;
  /** The deploy key's grant on this repository, when a deploy key is used (branch protection's deploy-key lists). */
  deployKeyId: number | null;
}

/**
 * The part of the git plugin's service this plugin uses. The git plugin owns repositories on disk and the git
 * processes; `readRefs`/`afterPush` (push processing shared by every transport) are used when present.
 */
export interface GitHost {
  readonly runner: { spawn(args: string[], options?: { env?: Record<string, string> }): ChildProcess };
  readonly storage: { exists(dir: string): Promise<boolean> };
  repoDir(repo: RepoRecord, owner: Account): string;
  resolveForGit(caller: Caller | null, owner: string, name: string, write: boolean): Promise<{ repo: RepoRecord; owner: Account }>;
  refresh(repo: RepoRecord, owner: Account): Promise<unknown>;
  readRefs?(repo: RepoRecord, owner: Account): Promise<Map<string, string>>;
  checkPush?(attempt: PushAttempt): Promise<string | null>;
  afterPush?(repo: RepoRecord, owner: Account, before: Map<string, string>, pusherId: number | null, via: PushTransport): Promise<void>;
  receivePackOptions(attempt: Pick<PushAttempt, 'fastForwardRefs'>): { config: string[]; env: Record<string, string> };
}

/** A refusal the client is told about (its message is safe to show). */
export class RefusedError extends Error {
  override name = 'RefusedError';
}

const NOT_FOUND = 'repository not found, or you do not have access to it';

export class GitBridge {
  constructor(private readonly services: ServiceRegistry) {}

  private get git(): GitHost {
    return this.services.get('git');
  }

  /** The identity behind a key fingerprint: a user's key first, else its deploy grants; null when unknown. */
  async identify(fingerprint: string): Promise<SshIdentity | null> {
    const userKey = await this.services.get('ssh-keys').userKeyByFingerprint(fingerprint);
    if (userKey) {
      const account = await this.services.get('users').byId(userKey.ownerId);
      if (!account || account.type !== 'user') return null;
      // Accounts that may not sign in (fields the users plugin keeps; absent means allowed).
      if (account.prohibitLogin === true || account.active === false) return null;
      return { kind: 'user', account, caller: { id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'ssh', restricted: account.restricted === true } };
    }
    if (!this.services.has('deploy-keys')) return null;
    const grants = await this.services.get('deploy-keys').byFingerprint(fingerprint);
    return grants.length > 0 ? { kind: 'deploy', grants, fingerprint } : null;
  }

  /** The repository the command names, if the identity may use it this way; refusals say why, never what exists. */
  async authorize(identity: SshIdentity, command: GitSshCommand): Promise<SshTarget> {
    const write = command.service === 'receive-pack';
    const found = identity.kind === 'user'
      ? { ...(await this.resolveForUser(identity.caller, command, write)), grant: null }
      : await this.resolveForDeployKey(identity.grants, command, write);
    if (write && found.repo.mirror) throw new RefusedError('this repository is a mirror: pushing is not allowed');
    if (write && found.repo.archived === true) throw new RefusedError('this repository is archived: it is read-only');
    const dir = this.git.repoDir(found.repo, found.owner);
    if (!(await this.git.storage.exists(dir))) throw new RefusedError(NOT_FOUND);
    const pusherId = identity.kind === 'user' ? identity.caller.id : found.repo.ownerId;
    return { repo: found.repo, owner: found.owner, dir, write, pusherId, deployKeyId: found.grant?.id ?? null };
  }

  private async resolveForUser(caller: Caller, command: GitSshCommand, write: boolean): Promise<{ repo: RepoRecord; owner: Account }> {
    try {
      return await this.git.resolveForGit(caller, command.owner, command.repo, write);
    } catch (err) {
      // A repository-wide refusal (archived, mirror) says so; a missing permission is said in git's terms.
      if (err instanceof ForgeError && err.status === 403) {
        throw new RefusedError(/archived|mirror/.test(err.message) || !write ? err.message : 'you may read this repository but not push to it');
      }
      if (err instanceof ForgeError && err.status < 500) throw new RefusedError(NOT_FOUND);
      throw err;
    }
  }

  private async resolveForDeployKey(grants: DeployKeyRecord[], command: GitSshCommand, write: boolean): Promise<{ repo: RepoRecord; owner: Account; grant: DeployKeyRecord }> {
    const repo = await this.services.get('repos').byOwnerAndName(command.owner, command.repo);
    const grant = repo && grants.find((g) => g.repoId === repo.id);
    if (!repo || !grant) throw new RefusedError(NOT_FOUND);
    if (write && grant.readOnly) throw new RefusedError('this deploy key is read-only: pushing is not allowed');
    const owner = await this.services.get('users').byId(repo.ownerId);
    if (!owner) throw new RefusedError(NOT_FOUND);
    return { repo, owner, grant };
  }

  /**
   * Starts git's service for the target; `env` carries the accepted client variables (GIT_PROTOCOL). A push is served
   * in two steps, as smart HTTP does it: `advertise()` first, then (once the client's commands are read and checked)
   * `receive()`.
   */
  spawn(command: GitSshCommand, target: SshTarget, env: Record<string, string>): ChildProcess {
    return this.git.runner.spawn([command.service, target.dir], { env });
  }

  /** A push's ref advertisement: `git receive-pack --stateless-rpc --advertise-refs`, which exits once it is written. */
  advertise(target: SshTarget, env: Record<string, string>): ChildProcess {
    return this.git.runner.spawn(['receive-pack', '--stateless-rpc', '--advertise-refs', target.dir], { env });
  }

  /**
   * The push itself, once its commands passed the rules: `git receive-pack --stateless-rpc` reading the commands and
   * the pack, with the options the guards asked for (refs held to fast-forwards, the push size limit).
   */
  receive(target: SshTarget, env: Record<string, string>, fastForwardRefs: string[]): ChildProcess {
    const options = this.git.receivePackOptions({ fastForwardRefs });
    return this.git.runner.spawn([...options.config, 'receive-pack', '--stateless-rpc', target.dir], { env: { ...env, ...options.env } });
  }

  /** Ref snapshot before a push, when the git plugin offers push processing. */
  async beforePush(target: SshTarget): Promise<Map<string, string> | null> {
    return this.git.readRefs ? this.git.readRefs(target.repo, target.owner) : null;
  }

  /**
   * The git plugin's push rules (default branch, branch protection): the refusal reason, or null; `fastForwardRefs`
   * are the refs whose fast-forward git must judge once the pack is in.
   */
  async checkPush(target: SshTarget, updates: RefUpdate[]): Promise<{ reason: string | null; fastForwardRefs: string[] }> {
    if (!this.git.checkPush) return { reason: null, fastForwardRefs: [] };
    const attempt: PushAttempt = { repo: target.repo, owner: target.owner, pusherId: target.pusherId, deployKeyId: target.deployKeyId, via: 'ssh', updates };
    const reason = await this.git.checkPush(attempt);
    return { reason, fastForwardRefs: attempt.fastForwardRefs ?? [] };
  }

  /** After a push: the repository's fields and `git.push` events, the same way as over HTTP. */
  async afterPush(target: SshTarget, before: Map<string, string> | null): Promise<void> {
    const fresh = (await this.services.get('repos').byId(target.repo.id)) ?? target.repo;
    if (before && this.git.afterPush) await this.git.afterPush(fresh, target.owner, before, target.pusherId, 'ssh');
    else await this.git.refresh(fresh, target.owner);
  }
}
