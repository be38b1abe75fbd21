// Push processing: what every push (smart HTTP, SSH, API writes, merges) goes through — guards before git applies
// it, and afterwards the repository record brought up to date at once and one `git.push` event per moved ref.
import type { Logger } from 'pino';
import type { EventBus, ForgeEvents } from '../../core/plugin.js';
import { nowRfc3339 } from '../../core/time.js';
import { ZERO_SHA, type PushAttempt, type PushGuard } from '../../schemas/contracts/git.js';
import type { PushCommit, PushTransport } from '../../schemas/events.js';
import type { Account, RepoRecord, ReposService } from '../../schemas/services.js';
import type { GitRunner } from './runner.js';
import type { GitStorage } from './storage.js';

/** Commits carried by one push event (Gitea's setting.WebhookMaxCommits default is larger; the payload type says 20). */
export const PUSH_COMMITS_MAX = 20;

export interface PushDeps {
  runner: GitRunner;
  storage: GitStorage;
  events: EventBus;
  log: Logger;
  repos: () => ReposService;
}

/** Every ref of a repository directory: full name → object id. */
export async function readRefs(runner: GitRunner, dir: string): Promise<Map<string, string>> {
  const { stdout } = await runner.run(['--git-dir', dir, 'for-each-ref', '--format=%(objectname) %(refname)']);
  const refs = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) refs.set(line.slice(sp + 1), line.slice(0, sp));
  }
  return refs;
}

export class PushProcessor {
  private readonly guards: PushGuard[] = [];

  constructor(private readonly deps: PushDeps) {}

  addGuard(guard: PushGuard): void {
    this.guards.push(guard);
  }

  /** The built-in rule (the default branch is never deleted), then the registered guards; the first refusal wins. */
  async check(attempt: PushAttempt): Promise<string | null> {
    const defaultRef = `refs/heads/${attempt.repo.defaultBranch}`;
    for (const u of attempt.updates) {
      if (u.ref === defaultRef && u.newSha === ZERO_SHA && u.oldSha !== ZERO_SHA) return 'the default branch cannot be deleted';
    }
    for (const guard of this.guards) {
      const reason = await guard(attempt);
      if (reason) return reason;
    }
    return null;
  }

  async afterPush(dir: string, repo: RepoRecord, owner: Account, before: Map<string, string>, pusherId: number | null, via: PushTransport): Promise<void> {
    const { runner, storage } = this.deps;
    const repos = this.deps.repos();
    const after = await readRefs(runner, dir);
    const moved: Array<{ ref: string; before: string; after: string }> = [];
    for (const ref of new Set([...before.keys(), ...after.keys()])) {
      const b = before.get(ref) ?? ZERO_SHA;
      const a = after.get(ref) ?? ZERO_SHA;
      if (b !== a && (ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/'))) moved.push({ ref, before: b, after: a });
    }
    // The record first, so a client (or a listener) that sees the push also sees `empty`/`size`/`default_branch`.
    const createdBranches = moved.filter((m) => m.before === ZERO_SHA && m.ref.startsWith('refs/heads/')).map((m) => m.ref.slice(11));
    const head = await this.settleHead(dir, repo, createdBranches);
    const stats = await storage.stats(dir);
    const fields: Record<string, unknown> = { empty: stats.empty, size: stats.size };
    if (moved.length) fields.updatedAt = nowRfc3339();
    if (head && head !== repo.defaultBranch) fields.defaultBranch = head;
    await repos.updateFields(repo.id, fields as Parameters<ReposService['updateFields']>[1]);
    if (moved.length === 0) return;
    const fresh = (await repos.byId(repo.id)) ?? repo;
    const { events } = this.deps;
    const wantPush = events.has('git.push');
    // Each branch's commits take two git processes: a few at once (a push of many branches), events still in order.
    const commitsOf = wantPush ? await mapLimit(moved, PUSHED_COMMITS_CONCURRENCY, (m) =>
      (m.ref.startsWith('refs/tags/') || m.after === ZERO_SHA
        ? Promise.resolve({ commits: [], total: 0 })
        : this.pushedCommits(dir, m.after, m.before === ZERO_SHA ? [...before.values()] : [m.before]))) : [];
    for (const [i, m] of moved.entries()) {
      const isTag = m.ref.startsWith('refs/tags/');
      const short = m.ref.slice(isTag ? 10 : 11);
      const refType = isTag ? 'tag' as const : 'branch' as const;
      if (m.before === ZERO_SHA) {
        await this.emit('git.ref.created', { repo: fresh, owner, senderId: pusherId, ref: short, refType, sha: m.after, via });
      }
      if (wantPush) {
        const { commits, total } = commitsOf[i]!;
        await this.emit('git.push', {
          repo: fresh, owner, pusherId, via, ref: m.ref, before: m.before, after: m.after, commits, totalCommits: total,
        });
      }
      if (m.after === ZERO_SHA) {
        await this.emit('git.ref.deleted', { repo: fresh, owner, senderId: pusherId, ref: short, refType, sha: m.before, via });
      }
    }
  }

  /**
   * HEAD stays where it is when its branch exists. Otherwise (an empty repository's first push, or HEAD on a branch
   * that was never pushed) it moves to the recorded default branch if pushed, else the first branch this push created
   * (main and master preferred when several came at once), else any existing branch.
   */
  private async settleHead(dir: string, repo: RepoRecord, created: string[]): Promise<string | null> {
    const { storage } = this.deps;
    const head = await storage.headBranch(dir);
    const branches = await storage.branches(dir);
    if (branches.length === 0 || (head !== null && branches.includes(head))) return head;
    const pick = [repo.defaultBranch, ...['main', 'master'].filter((b) => created.includes(b)), ...created, 'main', 'master']
      .find((b) => b && branches.includes(b)) ?? branches.sort()[0]!;
    await storage.setHead(dir, pick);
    return pick;
  }

  /** The commits a ref update brought (newest first, at most 20, with changed files) and how many there are. */
  async pushedCommits(dir: string, after: string, exclude: string[]): Promise<{ commits: PushCommit[]; total: number }> {
    const { runner } = this.deps;
    const not = [...new Set(exclude.filter((s) => s !== ZERO_SHA && /^[0-9a-f]{40,64}$/.test(s)))];
    // Revisions go through stdin: no argument list limit, nothing that looks like an option.
    const input = [after, ...not.map((s) => `^${s}`)].join('\n') + '\n';
    const [count, log] = await Promise.all([
      runner.run(['--git-dir', dir, 'rev-list', '--count', '--stdin'], { input }),
      runner.run(['--git-dir', dir, 'log', '--stdin', `--max-count=${PUSH_COMMITS_MAX}`, '-z', '--name-status', '--no-renames', '--root',
        '--format=%x1e%H%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00'], { input }),
    ]);
    return { commits: parseLogWithFiles(log.stdout), total: Number(count.stdout.trim()) || 0 };
  }

  /** One commit with its changed files (against its first parent; every file for a root commit). */
  async commitWithFiles(dir: string, sha: string): Promise<PushCommit | null> {
    const log = await this.deps.runner.run(['--git-dir', dir, 'log', '--stdin', '--max-count=1', '--no-walk', '-z', '--name-status', '--no-renames', '--root',
      '--format=%x1e%H%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00'], { input: `${sha}\n` });
    return parseLogWithFiles(log.stdout)[0] ?? null;
  }

  private async emit<K extends 'git.push' | 'git.ref.created' | 'git.ref.deleted'>(event: K, payload: ForgeEvents[K]): Promise<void> {
    try {
      await this.deps.events.emit(event, payload);
    } catch (err) {
      this.deps.log.error({ err, event }, 'event listener failed');
    }
  }
}

/** Branches whose pushed commits are read at once after a push (two git processes each). */
const PUSHED_COMMITS_CONCURRENCY = 4;

/** `fn` over every item, at most `limit` at a time; results in the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Parses `git log -z --name-status` output written with the format above. */
export function parseLogWithFiles(out: string): PushCommit[] {
  const commits: PushCommit[] = [];
  for (const record of out.split('\x1e')) {
    if (!record) continue;
    const f = record.split('\0');
    if (f.length < 8 || !/^[0-9a-f]{40,64}$/.test(f[0]!)) continue;
    const [id, an, ae, aI, cn, ce, , message] = f as [string, string, string, string, string, string, string, string];
    const added: string[] = [];
    const removed: string[] = [];
    const modified: string[] = [];
    // After the message: an empty field, then `\n` + status/path pairs.
    const rest = f.slice(8).map((s, i) => (i === 1 || i === 0 ? s.replace(/^\n/, '') : s));
    for (let i = 0; i < rest.length; i++) {
      const status = rest[i]!;
      if (!/^[AMDTCRUX]\d*$/.test(status)) continue;
      const file = rest[i + 1];
      if (file === undefined) break;
      i++;
      if (status === 'A') added.push(file);
      else if (status === 'D') removed.push(file);
      else modified.push(file);
    }
    commits.push({
      id, message, timestamp: aI,
      author: { name: an, email: ae, username: '' },
      committer: { name: cn, email: ce, username: '' },
      added, removed, modified,
    });
  }
  return commits;
}
