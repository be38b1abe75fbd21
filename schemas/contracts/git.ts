// The `git` plugin's service as other plugins see it: where a repository lives, running git on it, reading its
// objects through long-lived `git cat-file` processes, and push processing (guards before, events after).
import type { ChildProcess } from 'node:child_process';
import type { PushCommit, PushTransport } from '../events.js';
import type { Account, RepoRecord } from '../services.js';

/** The all-zero object id git uses for "no ref" (a created or deleted ref). */
export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** One ref update a push (or an API write) asks for: old and new are 40-hex ids, ZERO_SHA for none. */
export interface RefUpdate {
  ref: string;
  oldSha: string;
  newSha: string;
}

export interface PushAttempt {
  repo: RepoRecord;
  owner: Account;
  /** The account pushing; null for a system change. */
  pusherId: number | null;
  via: PushTransport;
  updates: RefUpdate[];
  /** The deploy key pushing (over SSH), when a deploy key is; `pusherId` is then the repository's owner. */
  deployKeyId?: number | null;
  /**
   * Refs a guard needs to move fast-forward only but cannot judge yet (the new commit comes in the pack being pushed,
   * not received when guards run): receive-pack then runs with forgekit's own `pre-receive` hook, which refuses the
   * push when one of those refs would not move fast-forward, once the objects are in (GitService.receivePackOptions).
   */
  fastForwardRefs?: string[];
}

/**
 * A check run before git applies a push: resolves to null to allow it, or to the reason shown to the client (the git
 * client prints it as `! [remote rejected] <ref> (<reason>)`; API writes turn it into a 403/422).
 */
export type PushGuard = (attempt: PushAttempt) => Promise<string | null>;

export interface GitRunOptions {
  input?: string | Buffer;
  env?: Record<string, string>;
  timeoutMs?: number;
  maxStdout?: number;
}

/** An object read from the repository's object database. */
export interface GitObject {
  sha: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  size: number;
  /** The content; null when only the header was asked for or the object is larger than the read limit. */
  data: Buffer | null;
}

/** One entry of a tree object. */
export interface TreeEntry {
  /** Octal mode as git writes it: 100644, 100755, 120000 (symlink), 040000 (tree), 160000 (submodule). */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  name: string;
}

/**
 * Reads objects of one repository through a pooled long-lived `git cat-file --batch` process (one per hot repository,
 * bounded in number, idle-expired). Ids and revisions are validated before git sees them.
 */
export interface ObjectReader {
  /** The object a revision names (`main`, `v1.0`, a sha, `sha:path`), or null when it does not exist. */
  read(rev: string, maxBytes?: number): Promise<GitObject | null>;
  /** Type and size only (`--batch-check`). */
  info(rev: string): Promise<Omit<GitObject, 'data'> | null>;
  /** The full id a revision resolves to, or null. */
  resolve(rev: string): Promise<string | null>;
  /** The entries of a tree (or of the root tree of a commit), or null when it is no tree. */
  tree(rev: string): Promise<TreeEntry[] | null>;
}

/** What the git plugin reports to operators (metrics), read at scrape time. */
export interface GitStats {
  /** git processes this server's runner has running (requests, syncs, pooled readers). */
  running: number;
  /** Live pooled `git cat-file` processes, and the repositories they serve. */
  catFileProcesses: number;
  catFileRepositories: number;
  /** Mirrors due for a sync (the mirror-sync backlog), and syncs queued or running now. */
  mirrorsDue: number;
  mirrorSyncsQueued: number;
}

/**
 * What the git service offers other plugins. `services.get('git')` is typed (plugins/git/service.ts declares the
 * class, which implements this interface); consumers should use only these members.
 */
export interface GitService {
  /** The repository's bare directory on disk (names are checked before any path is built). */
  repoDir(repo: RepoRecord, owner: Account): string;
  /** Runs git with the controlled environment and timeouts; rejects on a non-zero exit. */
  run(dir: string, args: string[], options?: GitRunOptions): Promise<{ stdout: string; stderr: string }>;
  /**
   * Starts git for streaming (raw blobs, archives, long walks): stdin/stdout/stderr are pipes, the process is in its
   * own group with the runner's timeout. The caller must consume or kill it (`killGroup` semantics: kill('SIGKILL')).
   */
  spawn(dir: string, args: string[], options?: GitRunOptions): ChildProcess;
  /** The pooled object reader of a repository directory. */
  reader(dir: string): ObjectReader;
  /**
   * The commit a branch, tag or commit id names (branches first, then tags, then ids; resolved through the pooled
   * reader), with its message, author, committer and changed files as push payloads carry them; null when it names
   * no commit. Statuses' and the test hook's payloads use it.
   */
  commitOf(repo: RepoRecord, owner: Account, rev: string): Promise<PushCommit | null>;
  /** Every ref of the repository (full name → object id), e.g. before a push, to compare with afterwards. */
  readRefs(repo: RepoRecord, owner?: Account): Promise<Map<string, string>>;
  /** Registers a check every push and API ref update goes through (branch protection). */
  addPushGuard(guard: PushGuard): void;
  /**
   * Runs the built-in rules (the default branch cannot be deleted) and every registered guard; the first refusal
   * wins. Resolves to null when the push may go ahead.
   */
  checkPush(attempt: PushAttempt): Promise<string | null>;
  /**
   * After any push (smart HTTP, SSH, API writes, merges): updates `updated_at`, `size`, `empty` and `default_branch`
   * (the first pushed branch of an empty repository) at once, then emits `git.push` per moved branch or tag (plus
   * `git.ref.created`/`git.ref.deleted`). `before` is what `readRefs` gave before the push. Listener failures are
   * logged, never thrown.
   */
  afterPush(repo: RepoRecord, owner: Account, before: Map<string, string>, pusherId: number | null, via: PushTransport): Promise<void>;
  /** Process and queue counts for metrics. */
  stats(): Promise<GitStats>;
}

