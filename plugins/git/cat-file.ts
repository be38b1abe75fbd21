// Long-lived `git cat-file --batch` / `--batch-check` processes per hot repository: reads cost a pipe round trip,
// not a process start. The pool is bounded (least recently used first out) and idle processes are closed.
import type { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import type { GitObject, ObjectReader, TreeEntry } from '../../schemas/contracts/git.js';
import { GitError, type GitRunner } from './runner.js';

type Mode = 'batch' | 'check';

interface Pending {
  resolve(value: GitObject | null): void;
  reject(err: Error): void;
}

/** A revision as cat-file may see it on its stdin: one line, no NUL, no option look-alike, bounded. */
export function isSafeRev(rev: string): boolean {
  // eslint-disable-next-line no-control-regex
  return rev.length > 0 && rev.length <= 4096 && !/[\x00\n\r]/.test(rev) && !rev.startsWith('-');
}

/** One `git cat-file --batch[-check]` process: requests are answered in the order they were written. */
class CatFile {
  private readonly child: ChildProcess;
  private readonly queue: Pending[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The header of the object whose content is being read, once parsed. */
  private header: { sha: string; type: GitObject['type']; size: number } | null = null;
  private dead: Error | null = null;
  lastUsed = Date.now();

  constructor(runner: GitRunner, dir: string, readonly mode: Mode, private readonly log: Logger) {
    this.child = runner.spawn(['--git-dir', dir, 'cat-file', mode === 'batch' ? '--batch' : '--batch-check'], {
      // Closed by the pool when idle; the runner's per-command timeout must not cut a healthy long-lived reader.
      timeoutMs: 2_147_000_000,
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr!.on('data', () => undefined);
    this.child.stdin!.on('error', () => undefined);
    this.child.once('error', (err) => this.fail(new GitError(`cannot run git cat-file: ${err.message}`, null, '', false)));
    this.child.once('close', (code) => this.fail(new GitError(`git cat-file exited (${code})`, code, '', false)));
  }

  get busy(): boolean {
    return this.queue.length > 0;
  }

  get alive(): boolean {
    return this.dead === null;
  }

  ask(rev: string): Promise<GitObject | null> {
    if (this.dead) return Promise.reject(this.dead);
    this.lastUsed = Date.now();
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.child.stdin!.write(`${rev}\n`);
    });
  }

  /** Ends stdin: git answers what it was asked, then exits. */
  close(): void {
    if (!this.child.stdin!.writableEnded) this.child.stdin!.end();
  }

  private fail(err: Error): void {
    if (!this.dead) this.dead = err;
    for (const p of this.queue.splice(0)) p.reject(err);
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    try {
      while (this.step()) { /* answer every complete reply in the buffer */ }
    } catch (err) {
      this.log.error({ err }, 'git cat-file output could not be parsed');
      this.fail(err as Error);
      this.child.kill('SIGKILL');
    }
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  private newlineAt(): number {
    let offset = 0;
    for (const c of this.chunks) {
      const i = c.indexOf(10);
      if (i >= 0) return offset + i;
      offset += c.length;
    }
    return -1;
  }

  /** Parses one reply if it is complete; false when more output is needed. */
  private step(): boolean {
    if (this.header === null) {
      const nl = this.newlineAt();
      if (nl < 0) return false;
      const line = this.take(nl + 1).toString('utf8').slice(0, -1);
      const pending = this.queue[0];
      if (!pending) throw new Error(`unexpected cat-file output: ${line.slice(0, 80)}`);
      const m = /^([0-9a-f]{40,64}) (blob|tree|commit|tag) (\d+)$/.exec(line);
      if (!m) {
        // `<rev> missing`, `<rev> ambiguous`, `dangling ...`: no object.
        this.queue.shift();
        pending.resolve(null);
        return true;
      }
      const header = { sha: m[1]!, type: m[2] as GitObject['type'], size: Number(m[3]) };
      if (this.mode === 'check') {
        this.queue.shift();
        pending.resolve({ ...header, data: null });
        return true;
      }
      this.header = header;
    }
    const { size } = this.header;
    if (this.buffered < size + 1) return false;
    const data = Buffer.from(this.take(size + 1).subarray(0, size)); // a copy: the chunk may be large and shared
    const header = this.header;
    this.header = null;
    this.queue.shift()!.resolve({ ...header, data });
    return true;
  }
}

interface Entry {
  batch?: CatFile;
  check?: CatFile;
  lastUsed: number;
}

export interface CatFilePoolOptions {
  /** Repositories with live readers at once (each has up to two processes). */
  maxRepos: number;
  /** A reader unused this long is closed. */
  idleMs: number;
}

export class CatFilePool {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly runner: GitRunner, private readonly opts: CatFilePoolOptions, private readonly log: Logger) {}

  start(): void {
    this.timer = setInterval(() => this.expire(), Math.max(1000, Math.min(this.opts.idleMs, 30_000)));
    this.timer.unref();
  }

  /** Live cat-file processes (metrics, tests). */
  get processes(): number {
    let n = 0;
    for (const e of this.entries.values()) n += (e.batch?.alive ? 1 : 0) + (e.check?.alive ? 1 : 0);
    return n;
  }

  get repositories(): number {
    return this.entries.size;
  }

  reader(dir: string): ObjectReader {
    const ask = (mode: Mode, rev: string) => this.ask(dir, mode, rev);
    const resolve = async (rev: string): Promise<string | null> => (await ask('check', rev))?.sha ?? null;
    const info = async (rev: string) => {
      const o = await ask('check', rev);
      return o ? { sha: o.sha, type: o.type, size: o.size } : null;
    };
    const read = async (rev: string, maxBytes = Number.POSITIVE_INFINITY): Promise<GitObject | null> => {
      const head = await ask('check', rev);
      if (!head) return null;
      if (head.size > maxBytes) return head;
      // By id: the revision may have moved since the check.
      return ask('batch', head.sha);
    };
    return {
      read, info, resolve,
      async tree(rev: string): Promise<TreeEntry[] | null> {
        const head = await ask('check', rev);
        if (!head) return null;
        let sha = head.sha;
        if (head.type === 'commit' || head.type === 'tag') {
          const t = await ask('check', `${head.sha}^{tree}`);
          if (!t) return null;
          sha = t.sha;
        } else if (head.type !== 'tree') {
          return null;
        }
        const obj = await ask('batch', sha);
        return obj?.data ? parseTree(obj.data) : null;
      },
    };
  }

  /** Closes every reader (shutdown); later asks start new ones unless closed for good. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const e of this.entries.values()) {
      e.batch?.close();
      e.check?.close();
    }
    this.entries.clear();
  }

  /** Forgets a repository's readers (deleted or renamed repository). */
  forget(dir: string): void {
    const e = this.entries.get(dir);
    if (!e) return;
    e.batch?.close();
    e.check?.close();
    this.entries.delete(dir);
  }

  /** Forgets the readers of every repository under `ownerDir` (an owner renamed: its paths are gone). */
  forgetUnder(ownerDir: string): void {
    const prefix = ownerDir.endsWith('/') ? ownerDir : `${ownerDir}/`;
    for (const dir of [...this.entries.keys()]) if (dir.startsWith(prefix)) this.forget(dir);
  }

  private async ask(dir: string, mode: Mode, rev: string): Promise<GitObject | null> {
    if (!isSafeRev(rev)) return null;
    if (this.closed) throw new GitError('git is shutting down', null, '', false);
    let entry = this.entries.get(dir);
    if (entry) {
      this.entries.delete(dir); // re-inserted last: the map's order is the recency order
    } else {
      entry = { lastUsed: Date.now() };
      this.evict();
    }
    entry.lastUsed = Date.now();
    this.entries.set(dir, entry);
    let proc = entry[mode];
    if (!proc || !proc.alive) {
      proc = new CatFile(this.runner, dir, mode, this.log);
      entry[mode] = proc;
    }
    return proc.ask(rev);
  }

  /** Makes room for one more repository: the least recently used go first (they finish what they were asked). */
  private evict(): void {
    while (this.entries.size >= this.opts.maxRepos) {
      const [dir, e] = this.entries.entries().next().value as [string, Entry];
      e.batch?.close();
      e.check?.close();
      this.entries.delete(dir);
    }
  }

  private expire(): void {
    const cutoff = Date.now() - this.opts.idleMs;
    for (const [dir, e] of this.entries) {
      if (e.lastUsed >= cutoff || e.batch?.busy || e.check?.busy) continue;
      e.batch?.close();
      e.check?.close();
      this.entries.delete(dir);
    }
  }
}

/** Parses a raw tree object: `<mode> <name>\0<20-byte id>` repeated. */
export function parseTree(data: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(32, i);
    const nul = data.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 21 > data.length) throw new Error('malformed tree object');
    let mode = data.toString('latin1', i, sp);
    if (mode.length === 5) mode = `0${mode}`; // git writes trees as 40000
    const name = data.toString('utf8', sp + 1, nul);
    const sha = data.toString('hex', nul + 1, nul + 21);
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    out.push({ mode, type, sha, name });
    i = nul + 21;
  }
  return out;
}
