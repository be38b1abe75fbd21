// The git work of pull requests, all in the base repository's bare directory and never with a working tree:
// fetching a head into `refs/pull/N/head`, mergeability with `git merge-tree --write-tree`, diffs and commit lists,
// and every merge style built from `merge-tree` + `commit-tree`, landed with a compare-and-swap `update-ref`.
import type { GitService } from '../../schemas/contracts/git.js';
import { Lru } from '../lib/lru.js';

export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Identity {
  name: string;
  email: string;
  /** RFC 3339 or git date; absent: now. */
  date?: string;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  author: Identity & { date: string };
  committer: Identity & { date: string };
  message: string;
}

export interface ChangedFileInfo {
  filename: string;
  previousFilename: string | null;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'changed';
  additions: number;
  deletions: number;
  binary: boolean;
}

export type MergeOutcome =
  | { ok: true; tree: string }
  | { ok: false; conflicts: string[]; unrelated?: boolean };

const MAX_OUT = 64 * 1024 * 1024;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A git failure the caller turns into an HTTP answer (never shown with internals). */
export class GitOpError extends Error {}

export class GitOps {
  /** Changed files between two commit ids (immutable, so cached by ids: a repeated /files page runs no git). */
  private readonly filesCache = new Lru<string, Promise<ChangedFileInfo[]>>(256);
  /**
   * `merge-tree` answers by (repository, ours, theirs): the same commits always merge the same way, so the merge
   * route's fresh check and the merge itself reuse the background check's answer. Kept 10 minutes: the tree object
   * merge-tree wrote is unreachable until a commit uses it, and gc may prune unreachable objects (after 2 weeks by
   * default) — an answer never outlives its object.
   */
  private readonly mergeCache = new Lru<string, { at: number; outcome: MergeOutcome }>(1024);

  constructor(private readonly git: GitService) {}

  /** Runs git and resolves with the exit code instead of rejecting (merge-tree and merge-base use codes). */
  exec(dir: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Exec> {
    return new Promise((resolve, reject) => {
      const child = this.git.spawn(dir, args, { env: options.env });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      child.stdout!.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_OUT) {
          child.kill('SIGKILL');
          return;
        }
        out.push(chunk);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        if (err.length < 64) err.push(chunk);
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (size > MAX_OUT) return reject(new GitOpError(`git ${args[0]}: output too large`));
        resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(options.input ?? '');
    });
  }

  private async ok(dir: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<string> {
    const r = await this.exec(dir, args, options);
    if (r.code !== 0) throw new GitOpError(`git ${args[0]} failed (${r.code}): ${r.stderr.trim().split('\n')[0] ?? ''}`);
    return r.stdout;
  }

  /** The commit a branch points at, or null. */
  async branchSha(dir: string, branch: string): Promise<string | null> {
    const r = await this.exec(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`]);
    const sha = r.stdout.trim();
    return r.code === 0 && SHA.test(sha) ? sha : null;
  }

  /** The commits of several branches in one git process (a missing branch is absent from the map). */
  async branchShas(dir: string, branches: string[]): Promise<Map<string, string>> {
    const r = await this.exec(dir, ['for-each-ref', '--format=%(objectname) %(refname)', '--end-of-options', ...branches.map((b) => `refs/heads/${b}`)]);
    const wanted = new Set(branches);
    const out = new Map<string, string>();
    if (r.code !== 0) return out;
    for (const line of r.stdout.split('\n')) {
      const space = line.indexOf(' ');
      const sha = line.slice(0, space);
      const name = line.slice(space + 1).slice('refs/heads/'.length);
      // for-each-ref patterns also match refs below a name (refs/heads/a/b for refs/heads/a): exact names only.
      if (SHA.test(sha) && wanted.has(name)) out.set(name, sha);
    }
    return out;
  }

  /** Points `refs/pull/N/head` at a commit of the same repository. */
  async setPullRef(dir: string, index: number, sha: string): Promise<void> {
    await this.ok(dir, ['update-ref', `refs/pull/${index}/head`, sha]);
  }

  async refSha(dir: string, ref: string): Promise<string | null> {
    const r = await this.exec(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
    const sha = r.stdout.trim();
    return r.code === 0 && SHA.test(sha) ? sha : null;
  }

  /** Points `refs/pull/N/head` of the base repository at the head: a plain ref update, or a fetch from a fork. */
  async syncHeadRef(baseDir: string, headDir: string, headBranch: string, index: number): Promise<string | null> {
    const ref = `refs/pull/${index}/head`;
    if (baseDir === headDir) {
      const sha = await this.branchSha(baseDir, headBranch);
      if (sha) await this.ok(baseDir, ['update-ref', ref, sha]);
      return sha;
    }
    const sha = await this.branchSha(headDir, headBranch);
    if (!sha) return null;
    // The fork's objects come over the local transport (hard links where possible); no hooks run on a fetch.
    await this.ok(baseDir, ['-c', 'protocol.file.allow=always', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options',
      headDir, `+refs/heads/${headBranch}:${ref}`]);
    return this.refSha(baseDir, ref);
  }

  async isAncestor(dir: string, a: string, b: string): Promise<boolean> {
    const r = await this.exec(dir, ['merge-base', '--is-ancestor', a, b]);
    return r.code === 0;
  }

  async mergeBase(dir: string, a: string, b: string): Promise<string | null> {
    const r = await this.exec(dir, ['merge-base', a, b]);
    const sha = r.stdout.trim();
    return r.code === 0 && SHA.test(sha) ? sha : null;
  }

  /** A three-way merge of two commits into a tree, or the conflicted paths (nothing is written but objects). */
  async mergeTree(dir: string, ours: string, theirs: string): Promise<MergeOutcome> {
    const key = `${dir}\0${ours}\0${theirs}`;
    const known = this.mergeCache.get(key);
    if (known && Date.now() - known.at < 600_000) return known.outcome;
    const outcome = await this.runMergeTree(dir, ours, theirs);
    this.mergeCache.set(key, { at: Date.now(), outcome });
    return outcome;
  }

  private async runMergeTree(dir: string, ours: string, theirs: string): Promise<MergeOutcome> {
    const r = await this.exec(dir, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs]);
    const parts = r.stdout.split('\0').filter((s) => s !== '');
    if (r.code === 0 && parts[0] && SHA.test(parts[0])) return { ok: true, tree: parts[0] };
    if (r.code === 1 && parts[0] && SHA.test(parts[0])) return { ok: false, conflicts: [...new Set(parts.slice(1))] };
    if (/unrelated histories/.test(r.stderr)) return { ok: false, conflicts: [], unrelated: true };
    throw new GitOpError(`git merge-tree failed (${r.code}): ${r.stderr.trim().split('\n')[0] ?? ''}`);
  }

  async treeOf(dir: string, commit: string): Promise<string> {
    return (await this.ok(dir, ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`])).trim();
  }

  /** Writes a commit object; the message goes through stdin, identities through the environment. */
  async commitTree(dir: string, tree: string, parents: string[], message: string, author: Identity, committer: Identity): Promise<string> {
    const env: Record<string, string> = {
      GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email,
    };
    if (author.date) env.GIT_AUTHOR_DATE = author.date;
    if (committer.date) env.GIT_COMMITTER_DATE = committer.date;
    const args = ['commit-tree', tree];
    for (const p of parents) args.push('-p', p);
    args.push('-F', '-');
    return (await this.ok(dir, args, { input: message, env })).trim();
  }

  /** Moves a ref from `oldSha` to `newSha` only if it still points at `oldSha`; false when it moved meanwhile. */
  async compareAndSwap(dir: string, ref: string, newSha: string, oldSha: string): Promise<boolean> {
    const r = await this.exec(dir, ['update-ref', '-m', 'merge pull request', ref, newSha, oldSha]);
    return r.code === 0;
  }

  async deleteRef(dir: string, ref: string): Promise<void> {
    await this.exec(dir, ['update-ref', '-d', ref]);
  }

  async commitInfo(dir: string, sha: string): Promise<CommitInfo> {
    const out = await this.ok(dir, ['show', '-s', '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B', '--end-of-options', sha]);
    return parseCommit(out.replace(/\n$/, '')); // `show` ends its format with a newline of its own
  }

  /** Commits reachable from `head` and not from `base`, newest first, one page of them and how many there are. */
  async commits(dir: string, base: string, head: string, skip: number, limit: number): Promise<{ total: number; commits: CommitInfo[] }> {
    const range = `${base}..${head}`;
    const [count, log] = await Promise.all([
      this.ok(dir, ['rev-list', '--count', range]),
      this.ok(dir, ['log', '-z', `--skip=${skip}`, `--max-count=${limit}`,
        '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00%x1e', range]),
    ]);
    const commits = log.split('\x00\x1e').map((s) => s.replace(/^\0/, '')).filter((s) => s.trim() !== '').map(parseCommit);
    return { total: Number(count.trim()) || 0, commits };
  }

  /** The commits to replay for a rebase, oldest first (merge commits are dropped, like `git rebase`). */
  async rebaseList(dir: string, base: string, head: string): Promise<string[]> {
    const out = await this.ok(dir, ['rev-list', '--reverse', '--topo-order', '--no-merges', `${base}..${head}`]);
    return out.split('\n').filter((s) => SHA.test(s));
  }

  /** Changed files between two commits with their line counts (renames detected). */
  changedFiles(dir: string, from: string, to: string): Promise<ChangedFileInfo[]> {
    const key = `${dir}\0${from}\0${to}`;
    const hit = this.filesCache.get(key);
    if (hit) return hit;
    const work = this.readChangedFiles(dir, from, to);
    this.filesCache.set(key, work);
    work.catch(() => this.filesCache.delete(key)); // a failure is not remembered
    return work;
  }

  private async readChangedFiles(dir: string, from: string, to: string): Promise<ChangedFileInfo[]> {
    const [names, nums] = await Promise.all([
      this.ok(dir, ['diff', '-M', '--name-status', '-z', from, to]),
      this.ok(dir, ['diff', '-M', '--numstat', '-z', from, to]),
    ]);
    const files: ChangedFileInfo[] = [];
    const n = names.split('\0');
    for (let i = 0; i < n.length - 1;) {
      const code = n[i++]!;
      if (!code) continue;
      const letter = code[0]!;
      if (letter === 'R' || letter === 'C') {
        const prev = n[i++]!;
        const name = n[i++]!;
        files.push({ filename: name, previousFilename: prev, status: letter === 'R' ? 'renamed' : 'copied', additions: 0, deletions: 0, binary: false });
      } else {
        const name = n[i++]!;
        const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : letter === 'M' ? 'modified' : 'changed';
        files.push({ filename: name, previousFilename: null, status, additions: 0, deletions: 0, binary: false });
      }
    }
    const byName = new Map(files.map((f) => [f.filename, f]));
    const m = nums.split('\0');
    for (let i = 0; i < m.length - 1;) {
      const head = m[i++]!;
      if (!head) continue;
      const [a, d, path] = head.split('\t');
      let name = path ?? '';
      if (name === '') {
        i++; // the old name of a rename
        name = m[i++] ?? '';
      }
      const file = byName.get(name);
      if (!file) continue;
      if (a === '-' || d === '-') file.binary = true;
      else {
        file.additions = Number(a) || 0;
        file.deletions = Number(d) || 0;
      }
    }
    return files;
  }

  /** `git diff` from the merge base to the head (the pull request's changes), binary patches on request. */
  diff(dir: string, from: string, to: string, binary: boolean): Promise<string> {
    return this.ok(dir, ['diff', '-M', '--full-index', ...(binary ? ['--binary'] : []), from, to]);
  }

  /** `git format-patch` of the pull request's commits, as one mailbox. */
  patch(dir: string, from: string, to: string, binary: boolean): Promise<string> {
    return this.ok(dir, ['format-patch', '--stdout', '--full-index', ...(binary ? ['--binary'] : ['--no-binary']), `${from}..${to}`]);
  }
}

function parseCommit(text: string): CommitInfo {
  const f = text.split('\0');
  return {
    sha: f[0]!.trim(),
    tree: f[1] ?? '',
    parents: (f[2] ?? '').split(' ').filter((s) => s !== ''),
    author: { name: f[3] ?? '', email: f[4] ?? '', date: f[5] ?? '' },
    committer: { name: f[6] ?? '', email: f[7] ?? '', date: f[8] ?? '' },
    message: f.slice(9).join('\0'),
  };
}
