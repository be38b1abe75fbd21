// Reading a repository for the API: names checked before git sees them, commits and tags parsed from raw objects
// (read through the git service's pooled cat-file), history walks, diffs, and caches of what cannot change (an
// object id names its content forever).
import type { GitService, ObjectReader } from '../../schemas/contracts/git.js';
import { fail } from '../../core/errors.js';
import { Lru } from '../lib/lru.js';
import { refListing } from './ref-snapshots.js';

// ---- names ----

/** A ref name as git accepts it (check-ref-format), short or full; never an option, never a path escape. */
export function isValidRefName(name: string): boolean {
  if (name.length === 0 || name.length > 255) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//') || name === '@') return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

export function isHexSha(s: string, min = 4): boolean {
  return s.length >= min && s.length <= 64 && /^[0-9a-f]+$/i.test(s);
}

/**
 * A repository path from a URL or body, cleaned: no leading/trailing/duplicate slashes. Refused (422): NUL and line
 * breaks, `.`/`..` segments, a `.git` segment, a leading `-`, overlong paths.
 */
export function cleanPath(raw: string, field = 'filepath'): string {
  // eslint-disable-next-line no-control-regex
  if (/[\x00\r\n]/.test(raw)) throw fail.validation(field, 'contains a forbidden character');
  const parts = raw.split('/').filter((p) => p !== '');
  for (const p of parts) {
    if (p === '.' || p === '..') throw fail.validation(field, 'must not contain . or .. segments');
    if (p.toLowerCase() === '.git') throw fail.validation(field, 'must not name a .git directory');
  }
  const clean = parts.join('/');
  if (clean.startsWith('-')) throw fail.validation(field, 'must not start with -');
  if (clean.length > 4096) throw fail.validation(field, 'is too long');
  return clean;
}

// ---- raw objects ----

export interface Signature {
  name: string;
  email: string;
  /** RFC 3339 with the original offset, as Gitea shows it. */
  date: string;
  /** The raw `<name> <email> <seconds> <zone>` (for rewriting identities in writes). */
  unix: number;
}

export interface ParsedCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
  /** The armored signature (gpgsig header), or null. */
  signature: string | null;
  /** The commit object without its signature: what was signed. */
  payload: string;
}

export interface ParsedTag {
  sha: string;
  object: string;
  type: string;
  tag: string;
  tagger: Signature | null;
  message: string;
  signature: string | null;
  payload: string;
}

export function parseSignature(value: string): Signature {
  const m = /^(.*?) ?<([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(value);
  if (!m) return { name: value, email: '', date: new Date(0).toISOString().replace('.000Z', 'Z'), unix: 0 };
  const unix = Number(m[3]);
  const sign = m[4] === '-' ? -1 : 1;
  const offsetMin = sign * (Number(m[5]) * 60 + Number(m[6]));
  const local = new Date((unix + offsetMin * 60) * 1000).toISOString().slice(0, 19);
  const zone = offsetMin === 0 ? 'Z' : `${m[4]}${m[5]}:${m[6]}`;
  return { name: m[1]!, email: m[2]!, date: `${local}${zone}`, unix };
}

/** Splits a raw commit or tag object into its headers (continuation lines joined) and message. */
function splitObject(data: Buffer): { headers: Array<[string, string]>; message: string; text: string } {
  const text = data.toString('utf8');
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? '' : text.slice(end + 2);
  const headers: Array<[string, string]> = [];
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') && headers.length) headers[headers.length - 1]![1] += `\n${line.slice(1)}`;
    else {
      const sp = line.indexOf(' ');
      headers.push(sp < 0 ? [line, ''] : [line.slice(0, sp), line.slice(sp + 1)]);
    }
  }
  return { headers, message, text };
}

/** The object text without its `gpgsig` header (what a commit signature covers). */
function withoutSignature(text: string): string {
  return text.replace(/^gpgsig(?:-sha256)? [^\n]*\n(?: [^\n]*\n)*/m, '');
}

export function parseCommit(sha: string, data: Buffer): ParsedCommit {
  const { headers, message, text } = splitObject(data);
  const parents: string[] = [];
  let tree = '';
  let author: Signature | null = null;
  let committer: Signature | null = null;
  let signature: string | null = null;
  for (const [k, v] of headers) {
    if (k === 'tree') tree = v;
    else if (k === 'parent') parents.push(v);
    else if (k === 'author') author = parseSignature(v);
    else if (k === 'committer') committer = parseSignature(v);
    else if (k === 'gpgsig' || k === 'gpgsig-sha256') signature = `${v}\n`;
  }
  const a = author ?? parseSignature('');
  return { sha, tree, parents, author: a, committer: committer ?? a, message, signature, payload: signature ? withoutSignature(text) : '' };
}

export function parseTag(sha: string, data: Buffer): ParsedTag {
  const { headers, message } = splitObject(data);
  const get = (k: string) => headers.find(([h]) => h === k)?.[1] ?? '';
  const tagger = headers.find(([h]) => h === 'tagger');
  // A tag's signature is appended to its message.
  const at = message.indexOf('-----BEGIN PGP SIGNATURE-----');
  const text = data.toString('utf8');
  return {
    sha, object: get('object'), type: get('type'), tag: get('tag'),
    tagger: tagger ? parseSignature(tagger[1]) : null,
    message: at >= 0 ? message.slice(0, at) : message,
    signature: at >= 0 ? message.slice(at) : null,
    payload: at >= 0 ? text.slice(0, text.length - (message.length - at)) : '',
  };
}

export interface FileChange {
  filename: string;
  /** Gitea's words: added, removed, modified (also renamed/copied/typechange as modified). */
  status: 'added' | 'removed' | 'modified';
  additions: number;
  deletions: number;
}

// ---- the repository reader ----

const commitCache = new Lru<string, ParsedCommit>(20_000);
const diffCache = new Lru<string, FileChange[]>(5_000);
const walkCache = new Lru<string, { shas: string[]; total?: number }>(2_000);

export type RefKind = 'branch' | 'tag' | 'commit';

export class RepoReader {
  readonly reader: ObjectReader;

  constructor(readonly git: GitService, readonly dir: string) {
    this.reader = git.reader(dir);
  }

  run(args: string[], input?: string, maxStdout?: number): Promise<{ stdout: string }> {
    return this.git.run(this.dir, args, { input, maxStdout });
  }

  async commit(sha: string): Promise<ParsedCommit | null> {
    const key = `${this.dir}\0${sha}`;
    const hit = commitCache.get(key);
    if (hit) return hit;
    const obj = await this.reader.read(sha);
    if (!obj || obj.type !== 'commit' || !obj.data) return null;
    const parsed = parseCommit(obj.sha, obj.data);
    commitCache.set(`${this.dir}\0${obj.sha}`, parsed);
    return parsed;
  }

  /**
   * A branch, tag or commit id to a commit id: branches first, then tags (peeled), then ids (full or abbreviated).
   * Null when nothing matches or the name is not a valid ref name.
   */
  async resolveCommit(ref: string): Promise<{ sha: string; kind: RefKind; name: string } | null> {
    if (!isValidRefName(ref)) return null;
    const full = ref.startsWith('refs/') ? ref : null;
    if (full) {
      const sha = await this.reader.resolve(`${full}^{commit}`);
      return sha ? { sha, kind: full.startsWith('refs/tags/') ? 'tag' : full.startsWith('refs/heads/') ? 'branch' : 'commit', name: ref } : null;
    }
    const branch = await this.reader.resolve(`refs/heads/${ref}^{commit}`);
    if (branch) return { sha: branch, kind: 'branch', name: ref };
    const tag = await this.reader.resolve(`refs/tags/${ref}^{commit}`);
    if (tag) return { sha: tag, kind: 'tag', name: ref };
    if (isHexSha(ref)) {
      const sha = await this.reader.resolve(`${ref}^{commit}`);
      if (sha) return { sha, kind: 'commit', name: sha };
    }
    return null;
  }

  /** `git for-each-ref` of a namespace: full name, object id, and the peeled commit for tags. */
  async refs(prefix: string): Promise<Array<{ ref: string; sha: string; type: string; peeled: string }>> {
    return refListing(this.dir, prefix, `refs\0${prefix}`, async () => {
      const { stdout } = await this.run(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)', prefix], undefined, 256 * 1024 * 1024);
      const out: Array<{ ref: string; sha: string; type: string; peeled: string }> = [];
      for (const line of stdout.split('\n')) {
        if (!line) continue;
        const [ref, sha, type, peeled] = line.split('\0') as [string, string, string, string];
        out.push({ ref, sha, type, peeled: peeled || sha });
      }
      return out;
    });
  }

  /** Tags as `git tag` sorts them for the tag list (newest creator date first): full name and object id. */
  async tagsByDate(): Promise<Array<[ref: string, sha: string]>> {
    return refListing(this.dir, 'refs/tags/', 'tags-by-date', async () => {
      const { stdout } = await this.run(['for-each-ref', '--sort=-creatordate', '--format=%(refname)%00%(objectname)', 'refs/tags/'], undefined, 256 * 1024 * 1024);
      return stdout.split('\n').filter(Boolean).map((l) => l.split('\0') as [string, string]);
    });
  }

  /**
   * Commit ids reachable from `sha` (optionally touching `path`, within since/until), newest first: a page and the
   * exact total. Cached by everything that decides it (the start is an id, so the answer cannot change).
   */
  async walk(sha: string, opts: { path?: string; since?: string; until?: string; not?: string; skip: number; limit: number; total: boolean }):
    Promise<{ shas: string[]; total: number | null }> {
    const filters: string[] = [];
    if (opts.since) filters.push(`--max-age=${Math.floor(Date.parse(opts.since) / 1000)}`);
    if (opts.until) filters.push(`--min-age=${Math.floor(Date.parse(opts.until) / 1000)}`);
    const tail = opts.path ? ['--', opts.path] : [];
    const input = `${sha}\n${opts.not ? `^${opts.not}\n` : ''}`;
    const base = `${this.dir}\0${sha}\0${opts.not ?? ''}\0${opts.path ?? ''}\0${opts.since ?? ''}\0${opts.until ?? ''}`;
    const pageKey = `${base}\0${opts.skip}\0${opts.limit}`;
    const countKey = `${base}\0count`;
    let page = walkCache.get(pageKey);
    let count = opts.total ? walkCache.get(countKey)?.total : undefined;
    const jobs: Promise<void>[] = [];
    if (!page) {
      jobs.push(this.run(['rev-list', '--stdin', `--skip=${opts.skip}`, `--max-count=${opts.limit}`, ...filters, ...tail], input).then(({ stdout }) => {
        page = { shas: stdout.split('\n').filter(Boolean) };
        walkCache.set(pageKey, page);
      }));
    }
    if (opts.total && count === undefined) {
      jobs.push(this.run(['rev-list', '--stdin', '--count', ...filters, ...tail], input).then(({ stdout }) => {
        count = Number(stdout.trim()) || 0;
        walkCache.set(countKey, { shas: [], total: count });
      }));
    }
    await Promise.all(jobs);
    return { shas: page!.shas, total: opts.total ? count ?? 0 : null };
  }

  /** Files changed by each commit (against its first parent; the root against nothing), one git process for all. */
  async changes(shas: string[]): Promise<Map<string, FileChange[]>> {
    const out = new Map<string, FileChange[]>();
    const missing: string[] = [];
    for (const sha of shas) {
      const hit = diffCache.get(`${this.dir}\0${sha}`);
      if (hit) out.set(sha, hit);
      else missing.push(sha);
    }
    if (missing.length === 0) return out;
    const { stdout } = await this.run(['diff-tree', '--stdin', '-r', '--root', '--no-renames', '--diff-merges=first-parent', '-z', '--raw', '--numstat'],
      `${missing.join('\n')}\n`, 256 * 1024 * 1024);
    let current: FileChange[] | null = null;
    let byPath = new Map<string, FileChange>();
    const tokens = stdout.split('\0');
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i]!.replace(/^\n/, '');
      if (/^[0-9a-f]{40,64}$/.test(tok)) {
        current = [];
        byPath = new Map();
        out.set(tok, current);
        diffCache.set(`${this.dir}\0${tok}`, current);
        continue;
      }
      if (!current) continue;
      if (tok.startsWith(':')) {
        const status = tok.trim().split(' ').pop()!;
        const file = tokens[++i] ?? '';
        const change: FileChange = {
          filename: file, status: status === 'A' ? 'added' : status === 'D' ? 'removed' : 'modified', additions: 0, deletions: 0,
        };
        current.push(change);
        byPath.set(file, change);
        continue;
      }
      const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(tok);
      if (m) {
        const change = byPath.get(m[3]!);
        if (change) {
          change.additions = m[1] === '-' ? 0 : Number(m[1]);
          change.deletions = m[2] === '-' ? 0 : Number(m[2]);
        }
      }
    }
    for (const sha of missing) if (!out.has(sha)) out.set(sha, []);
    return out;
  }

  /** The object at `path` in a commit's tree ('' for the root tree), with its mode; null when absent. */
  async entryAt(commitSha: string, path: string): Promise<{ sha: string; type: 'blob' | 'tree' | 'commit'; mode: string; size: number } | null> {
    if (path === '') {
      const tree = await this.reader.resolve(`${commitSha}^{tree}`);
      return tree ? { sha: tree, type: 'tree', mode: '040000', size: 0 } : null;
    }
    const slash = path.lastIndexOf('/');
    const parent = slash < 0 ? '' : path.slice(0, slash);
    const name = path.slice(slash + 1);
    const entries = await this.reader.tree(parent === '' ? commitSha : `${commitSha}:${parent}`);
    const entry = entries?.find((e) => e.name === name);
    if (!entry) return null;
    const size = entry.type === 'blob' ? (await this.reader.info(entry.sha))?.size ?? 0 : 0;
    return { sha: entry.sha, type: entry.type, mode: entry.mode, size };
  }

  /**
   * The last commit that touched each of `names` inside directory `dir` (from `commitSha` back), walking history once
   * and stopping as soon as every name is found. Cached (the start is an id).
   */
  async lastCommits(commitSha: string, dir: string, names: string[]): Promise<Map<string, string>> {
    const key = `${this.dir}\0${commitSha}\0${dir}`;
    const hit = lastCommitCache.get(key);
    if (hit && names.every((n) => hit.has(n))) return hit;
    const found = new Map<string, string>();
    const wanted = new Set(names);
    const prefix = dir ? `${dir}/` : '';
    // One path-limited walk, streamed: git prints `\x1e<id>` then the paths that commit touched; stop once all are found.
    const proc = this.git.spawn(this.dir, ['log', '--format=%x1e%H', '--name-only', '-z', '--no-renames', commitSha, '--', dir || '.']);
    proc.stdin!.end();
    proc.stderr!.resume();
    let pending = '';
    let done = false;
    const take = (record: string) => {
      const parts = record.split(/[\0\n]/).filter(Boolean);
      const sha = parts[0];
      if (!sha) return;
      for (const p of parts.slice(1)) {
        if (!p.startsWith(prefix)) continue;
        const top = p.slice(prefix.length).split('/')[0]!;
        if (wanted.has(top) && !found.has(top)) found.set(top, sha);
      }
      if (found.size === wanted.size) done = true;
    };
    await new Promise<void>((resolve) => {
      proc.stdout!.setEncoding('utf8');
      proc.stdout!.on('data', (chunk: string) => {
        if (done) return;
        pending += chunk;
        const records = pending.split('\x1e');
        pending = records.pop()!;
        for (const r of records) {
          take(r);
          if (done) {
            proc.kill('SIGKILL');
            resolve();
            return;
          }
        }
      });
      proc.once('close', () => {
        if (!done && pending) take(pending);
        resolve();
      });
      proc.once('error', () => resolve());
    });
    lastCommitCache.set(key, found);
    return found;
  }
}

const lastCommitCache = new Lru<string, Map<string, string>>(2_000);
