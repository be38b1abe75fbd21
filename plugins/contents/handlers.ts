// Read operations: branches, tags, commits, compare, refs, trees, blobs, notes, contents, raw/media, archives,
// languages and editorconfig. Every one opens the repository through the access check first (404 for who cannot read).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import type { ContentsPluginService } from './index.js';
import { killGroupOf, mediaType } from './media.js';
import {
  annotatedTag, apiCommit, apiTag, contents as contentsApi, escapePath, payloadCommit, unsignedVerification, type ContentsInput, type EntryType,
  type Verification,
} from './convert.js';
import { Lru } from '../lib/lru.js';
import { cleanPath, isHexSha, isValidRefName, parseTag, type FileChange, type ParsedCommit, type RepoReader } from './git-read.js';
import type { Contents, Opened } from './service.js';
import type { Protections } from './protection.js';
import { endResponse, responseGone } from '../lib/response-gone.js';

type P = { owner: string; repo: string; '*'?: string; sha?: string; diffType?: string };
type Rc<Q = Record<string, unknown>, B = unknown> = RequestContext<P, Q, B>;

export function svc(rc: Rc<any, any>): Contents {
  return (rc.app.services.get('contents') as ContentsPluginService).contents;
}

function protections(rc: Rc<any, any>): Protections {
  return (rc.app.services.get('contents') as ContentsPluginService).protections;
}

function wildcard(rc: Rc<any, any>): string {
  return rc.params['*'] ?? '';
}

/** The ref a read is for: `ref` from the query, else the default branch; 404 when it names nothing. */
async function refCommit(o: Opened, ref: string | undefined): Promise<{ sha: string; name: string }> {
  const name = ref && ref.length ? ref : o.repo.defaultBranch;
  if (!isValidRefName(name)) throw fail.notFound();
  const found = await o.rr.resolveCommit(name);
  if (!found) throw fail.notFound();
  return { sha: found.sha, name: found.kind === 'commit' ? found.sha : name };
}

// ---- branches ----

export async function branchJson(rc: Rc<any, any>, o: Opened, names: Array<{ name: string; sha: string }>): Promise<Record<string, unknown>[]> {
  const s = svc(rc);
  const commits = await Promise.all(names.map((n) => o.rr.commit(n.sha)));
  const users = await s.usersByEmail(commits.flatMap((c) => (c ? [c.author.email, c.committer.email] : [])), rc.caller);
  const rules = await protections(rc).list(o.repo.id);
  const caller = rc.caller ? { id: rc.caller.id, login: rc.caller.login } : null;
  const pusher = protections(rc).pusher(o.repo, caller, o.mode);
  return Promise.all(names.map(async (n, i) => {
    const c = commits[i]!;
    const rule = protections(rc).forBranch(rules, n.name);
    return {
      name: n.name,
      commit: payloadCommit(o.view, c, await s.verifier(c), users),
      protected: rule !== null,
      required_approvals: rule?.required_approvals ?? 0,
      enable_status_check: rule?.enable_status_check ?? false,
      status_check_contexts: rule?.status_check_contexts ?? [],
      user_can_push: await protections(rc).canPush(rule, pusher),
      user_can_merge: await protections(rc).canMerge(rule, pusher),
      effective_branch_protection_name: rule?.rule_name ?? '',
    };
  }));
}

/** GET /repos/{owner}/{repo}/branches */
export async function listBranches(rc: Rc<{ page?: number; limit?: number }>): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const refs = await o.rr.refs('refs/heads/');
  const page = refs.slice(win.skip, win.skip + win.limit).filter((r) => r.type === 'commit');
  const body = await branchJson(rc, o, page.map((r) => ({ name: r.ref.slice(11), sha: r.sha })));
  return { status: 200, body, headers: pageHeaders(rc, refs.length, win) };
}

/** GET /repos/{owner}/{repo}/branches/{branch} */
export async function getBranch(rc: Rc): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const name = wildcard(rc);
  if (!isValidRefName(name)) throw fail.notFound();
  const sha = await o.rr.reader.resolve(`refs/heads/${name}^{commit}`);
  if (!sha) throw fail.notFound();
  const [body] = await branchJson(rc, o, [{ name, sha }]);
  return { status: 200, body };
}

// ---- tags ----

async function tagJson(rc: Rc<any, any>, o: Opened, name: string, sha: string): Promise<Record<string, unknown> | null> {
  const obj = await o.rr.reader.read(sha);
  if (!obj?.data) return null;
  let message = '';
  let target = sha;
  if (obj.type === 'tag') {
    const t = parseTag(sha, obj.data);
    message = t.message;
    const peeled = await o.rr.reader.resolve(`${sha}^{commit}`);
    if (!peeled) return null;
    target = peeled;
  } else if (obj.type !== 'commit') {
    return null;
  }
  const commit = await o.rr.commit(target);
  if (!commit) return null;
  if (obj.type === 'commit') message = commit.message;
  return apiTag(o.view, name, sha, commit, message);
}

/** GET /repos/{owner}/{repo}/tags — newest tag names first (Gitea sorts by creation, we by version-aware name). */
export async function listTags(rc: Rc<{ page?: number; limit?: number }>): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const refs = await o.rr.tagsByDate();
  const page = refs.slice(win.skip, win.skip + win.limit);
  const body = (await Promise.all(page.map(([ref, sha]) => tagJson(rc, o, ref.slice(10), sha)))).filter((x) => x !== null);
  return { status: 200, body, headers: pageHeaders(rc, refs.length, win) };
}

/** GET /repos/{owner}/{repo}/tags/{tag} */
export async function getTag(rc: Rc): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const name = wildcard(rc);
  if (!isValidRefName(name)) throw fail.notFound();
  const sha = await o.rr.reader.resolve(`refs/tags/${name}`);
  if (!sha) throw fail.notFound();
  const body = await tagJson(rc, o, name, sha);
  if (!body) throw fail.notFound();
  return { status: 200, body };
}

/** GET /repos/{owner}/{repo}/git/tags/{sha} — an annotated tag object. */
export async function getAnnotatedTag(rc: Rc): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const sha = rc.params.sha ?? '';
  if (!isHexSha(sha)) throw fail.badRequest('sha: not a valid object id');
  const obj = await o.rr.reader.read(sha);
  if (!obj?.data || obj.type !== 'tag') throw fail.notFound();
  const t = parseTag(obj.sha, obj.data);
  return { status: 200, body: annotatedTag(o.view, t, await svc(rc).verifier(t)) };
}

// ---- commits ----

interface CommitListQuery {
  sha?: string; path?: string; since?: string; until?: string; not?: string;
  stat?: boolean; verification?: boolean; files?: boolean; page?: number; limit?: number;
}

async function commitsJson(rc: Rc<any, any>, o: Opened, commits: ParsedCommit[], opts: { stat: boolean; files: boolean; verification: boolean }): Promise<Record<string, unknown>[]> {
  const s = svc(rc);
  const changes = opts.stat || opts.files ? await o.rr.changes(commits.map((c) => c.sha)) : new Map();
  const users = await s.usersByEmail(commits.flatMap((c) => [c.author.email, c.committer.email]), rc.caller);
  return Promise.all(commits.map(async (c) => {
    const files = changes.get(c.sha) ?? null;
    const verification = opts.verification ? await s.verifier(c) : NOT_ASKED;
    const out = apiCommit(o.view, c, { files: opts.files || opts.stat ? files : null, stat: opts.stat, verification, users });
    if (!opts.files) out.files = null;
    return out;
  }));
}

/** A commit list page as JSON text: each commit's text from the cache (commit-json.ts), joined. */
async function commitListJson(rc: Rc<any, any>, o: Opened, commits: ParsedCommit[], opts: { stat: boolean; files: boolean; verification: boolean }): Promise<string> {
  const s = svc(rc);
  const changes = opts.stat || opts.files ? await o.rr.changes(commits.map((c) => c.sha)) : new Map<string, FileChange[]>();
  const accounts = await s.accountsByEmail(commits.flatMap((c) => [c.author.email, c.committer.email]));
  const users = rc.app.services.get('users');
  // Only signed commits need the (async, cached) signature check; the rest are "not signed" without a promise each.
  const signed = opts.verification ? commits.filter((c) => c.signature) : [];
  const checked = new Map(await Promise.all(signed.map(async (c) => [c.sha, await s.verifier(c)] as const)));
  const texts = commits.map((c) => {
    const verification = checked.get(c.sha) ?? (opts.verification ? UNSIGNED : NOT_ASKED);
    return s.commitJson.text(o.view, c, changes.get(c.sha) ?? null, opts, verification, accounts, users, rc.caller);
  });
  return `[${texts.join(',')}]`;
}

const UNSIGNED: Verification = Object.freeze(unsignedVerification());
const NOT_ASKED: Verification = Object.freeze({ verified: false, reason: '', signature: '', payload: '', signer: null });

/** GET /repos/{owner}/{repo}/commits */
export async function listCommits(rc: Rc<CommitListQuery>): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const q = rc.query;
  const win = pageWindow(q, rc.app.config.pagination);
  const filePath = q.path ? cleanPath(q.path, 'path') : undefined;
  const start = q.sha && q.sha.length ? q.sha : o.repo.defaultBranch;
  const resolved = isValidRefName(start) ? await o.rr.resolveCommit(start) : null;
  if (!resolved) {
    if (o.repo.empty || (await o.rr.reader.resolve('HEAD')) === null && !(q.sha)) throw fail.conflict('Git Repository is empty.');
    throw fail.notFound();
  }
  let not: string | undefined;
  if (q.not) {
    const n = isValidRefName(q.not) ? await o.rr.resolveCommit(q.not) : null;
    if (!n) throw fail.notFound();
    not = n.sha;
  }
  const since = q.since ? checkDate(q.since, 'since') : undefined;
  const until = q.until ? checkDate(q.until, 'until') : undefined;
  const walk = await o.rr.walk(resolved.sha, { path: filePath, since, until, not, skip: win.skip, limit: win.limit, total: true });
  const commits = (await Promise.all(walk.shas.map((s) => o.rr.commit(s)))).filter((c): c is ParsedCommit => c !== null);
  const body = await commitListJson(rc, o, commits, { stat: q.stat !== false, files: q.files !== false, verification: q.verification !== false });
  const total = walk.total ?? 0;
  const headers = pageHeaders(rc, total, win);
  const pages = Math.max(1, Math.ceil(total / win.limit));
  headers['X-Page'] = String(win.page);
  headers['X-PerPage'] = String(win.limit);
  headers['X-PageCount'] = String(pages);
  headers['X-HasMore'] = String(win.page < pages);
  return { status: 200, type: 'json-text', body, headers };
}

function checkDate(value: string, field: string): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw fail.validation(field, 'must be an RFC 3339 date');
  return new Date(t).toISOString();
}

/** GET /repos/{owner}/{repo}/git/commits/{sha} (and `{sha}.diff` / `{sha}.patch`) */
export async function getCommit(rc: Rc<{ stat?: boolean; verification?: boolean; files?: boolean }>): Promise<Reply | void> {
  let ref = rc.params.sha ?? '';
  const m = /^(.*)\.(diff|patch)$/.exec(ref);
  if (m) return diffOrPatch(rc, m[1]!, m[2] as 'diff' | 'patch');
  const o = await svc(rc).open(rc);
  if (!isValidRefName(ref)) throw fail.notFound();
  const found = await o.rr.resolveCommit(ref);
  if (!found) throw fail.notFound();
  ref = found.sha;
  const c = await o.rr.commit(ref);
  if (!c) throw fail.notFound();
  const [body] = await commitsJson(rc, o, [c], { stat: rc.query.stat !== false, files: rc.query.files !== false, verification: rc.query.verification !== false });
  return { status: 200, body };
}

/** GET /repos/{owner}/{repo}/git/commits/{sha}.{diff|patch} — streamed `git diff-tree -p` / `git format-patch`. */
export async function diffOrPatch(rc: Rc<any>, ref: string, kind: 'diff' | 'patch'): Promise<void> {
  const o = await svc(rc).open(rc);
  if (!isValidRefName(ref)) throw fail.notFound();
  const found = await o.rr.resolveCommit(ref);
  if (!found) throw fail.notFound();
  const args = kind === 'diff'
    ? ['diff-tree', '-p', '--root', '--no-color', '--binary', '--no-commit-id', '--diff-merges=first-parent', found.sha]
    : ['format-patch', '--stdout', '--no-color', '--binary', '-1', '--root', found.sha];
  await streamGit(rc, svc(rc).git.spawn(o.rr.dir, args), { 'Content-Type': 'text/plain; charset=utf-8' }, Number.POSITIVE_INFINITY);
}

/** GET /repos/{owner}/{repo}/compare/{base}...{head} */
export async function compare(rc: Rc<{ page?: number; limit?: number }>): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const spec = wildcard(rc);
  const i = spec.indexOf('...');
  const j = i < 0 ? spec.indexOf('..') : -1;
  if (i < 0 && j < 0) throw fail.notFound();
  const base = i >= 0 ? spec.slice(0, i) : spec.slice(0, j);
  const head = i >= 0 ? spec.slice(i + 3) : spec.slice(j + 2);
  const b = base && isValidRefName(base) ? await o.rr.resolveCommit(base) : null;
  const h = head && isValidRefName(head) ? await o.rr.resolveCommit(head) : null;
  if (!b || !h) throw fail.notFound();
  // Three dots: commits of head since the merge base (what a pull request would bring).
  let from = b.sha;
  if (i >= 0) {
    try {
      from = (await o.rr.run(['merge-base', b.sha, h.sha])).stdout.trim() || b.sha;
    } catch {
      from = b.sha; // unrelated histories: everything reachable from head but not base
    }
  }
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const walk = await o.rr.walk(h.sha, { not: from, skip: 0, limit: 10_000, total: true });
  const shas = walk.shas.slice().reverse(); // oldest first, like Gitea's compare
  const page = shas.slice(win.skip, win.skip + win.limit);
  const commits = (await Promise.all(page.map((s) => o.rr.commit(s)))).filter((c): c is ParsedCommit => c !== null);
  const list = await commitsJson(rc, o, commits, { stat: true, files: true, verification: true });
  return { status: 200, body: { total_commits: walk.total ?? shas.length, commits: list }, headers: pageHeaders(rc, walk.total ?? shas.length, win) };
}

// ---- refs, trees, blobs, notes ----

async function refsJson(o: Opened, prefix: string): Promise<Record<string, unknown>[]> {
  const refs = await o.rr.refs(prefix);
  return refs.map((r) => ({
    ref: r.ref,
    url: `${o.view.api}/git/${r.ref}`,
    object: { type: r.type, sha: r.sha, url: `${o.view.api}/git/${r.type === 'tag' ? 'tags' : r.type === 'commit' ? 'commits' : r.type === 'tree' ? 'trees' : 'blobs'}/${r.sha}` },
  }));
}

/** GET /repos/{owner}/{repo}/git/refs */
export async function listAllRefs(rc: Rc): Promise<Reply> {
  const o = await svc(rc).open(rc);
  return { status: 200, body: await refsJson(o, 'refs/') };
}

/** GET /repos/{owner}/{repo}/git/refs/{ref} — refs under `refs/<ref>` (a prefix match on whole segments). */
export async function listRefs(rc: Rc): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const ref = wildcard(rc).replace(/\/+$/, '');
  if (!isValidRefName(ref)) throw fail.notFound();
  const all = await refsJson(o, `refs/${ref}`);
  const body = all.filter((r) => r.ref === `refs/${ref}` || (r.ref as string).startsWith(`refs/${ref}/`));
  if (body.length === 0) throw fail.notFound();
  return { status: 200, body };
}

/** GET /repos/{owner}/{repo}/git/trees/{sha} — `recursive`, `page`, `per_page`; `truncated` when entries were cut. */
export async function getTree(rc: Rc<{ recursive?: boolean; page?: number; per_page?: number }>): Promise<Reply> {
  const s = svc(rc);
  const o = await s.open(rc);
  const ref = rc.params.sha ?? '';
  if (!isValidRefName(ref)) throw fail.badRequest('sha: not a valid tree id or ref');
  let treeSha = isHexSha(ref) ? await o.rr.reader.resolve(`${ref}^{tree}`) : null;
  if (!treeSha) {
    const c = await o.rr.resolveCommit(ref);
    treeSha = c ? await o.rr.reader.resolve(`${c.sha}^{tree}`) : null;
  }
  if (!treeSha) throw fail.badRequest(`sha not found: ${ref}`);
  const perPage = Math.min(rc.query.per_page && rc.query.per_page > 0 ? rc.query.per_page : s.ctx.settings.treePageSize, s.ctx.settings.treePageSize);
  const page = rc.query.page && rc.query.page > 0 ? rc.query.page : 1;
  const skip = (page - 1) * perPage;
  const args = ['ls-tree', '-z', '--long', '--full-tree'];
  if (rc.query.recursive) args.push('-r', '-t');
  args.push(treeSha);
  const { stdout } = await o.rr.run(args, undefined, 512 * 1024 * 1024);
  const entries = stdout.split('\0').filter(Boolean);
  const slice = entries.slice(skip, skip + perPage);
  const tree = slice.map((line) => {
    const tab = line.indexOf('\t');
    const [mode, type, sha, size] = line.slice(0, tab).split(/\s+/) as [string, string, string, string];
    return {
      path: line.slice(tab + 1), mode, type, size: size === '-' ? 0 : Number(size), sha,
      url: `${o.view.api}/git/${type === 'tree' ? 'trees' : type === 'blob' ? 'blobs' : 'commits'}/${sha}`,
    };
  });
  return {
    status: 200,
    body: { sha: treeSha, url: `${o.view.api}/git/trees/${treeSha}`, tree, truncated: skip + slice.length < entries.length, page, total_count: entries.length },
  };
}

/** GET /repos/{owner}/{repo}/git/blobs/{sha} — base64 content; blobs over the size limit have `content: null`. */
export async function getBlob(rc: Rc): Promise<Reply> {
  const s = svc(rc);
  const o = await s.open(rc);
  const sha = rc.params.sha ?? '';
  if (!isHexSha(sha)) throw fail.badRequest('sha: not a valid object id');
  const obj = await o.rr.reader.read(sha, s.ctx.settings.maxBlobBytes);
  if (!obj || obj.type !== 'blob') throw fail.notFound();
  return {
    status: 200,
    body: {
      content: obj.data ? obj.data.toString('base64') : null, encoding: obj.data ? 'base64' : null,
      url: `${o.view.api}/git/blobs/${obj.sha}`, sha: obj.sha, size: obj.size,
    },
  };
}

/** GET /repos/{owner}/{repo}/git/notes/{sha} — the note `refs/notes/commits` holds for a commit. */
export async function getNote(rc: Rc<{ verification?: boolean; files?: boolean }>): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const ref = rc.params.sha ?? '';
  if (!isValidRefName(ref)) throw fail.notFound();
  const found = await o.rr.resolveCommit(ref);
  if (!found) throw fail.notFound();
  const notesCommit = await o.rr.reader.resolve('refs/notes/commits^{commit}');
  if (!notesCommit) throw fail.notFound();
  // Notes trees may fan out (`ab/cdef…`); ls-tree of the path finds either layout.
  let blob: string | null = null;
  for (const p of [found.sha, `${found.sha.slice(0, 2)}/${found.sha.slice(2)}`, `${found.sha.slice(0, 2)}/${found.sha.slice(2, 4)}/${found.sha.slice(4)}`]) {
    blob = await o.rr.reader.resolve(`${notesCommit}:${p}`);
    if (blob) break;
  }
  if (!blob) throw fail.notFound();
  const note = await o.rr.reader.read(blob, svc(rc).ctx.settings.maxBlobBytes);
  const c = await o.rr.commit(found.sha);
  if (!note?.data || !c) throw fail.notFound();
  const [commit] = await commitsJson(rc, o, [c], { stat: true, files: rc.query.files !== false, verification: rc.query.verification !== false });
  return { status: 200, body: { message: note.data.toString('utf8'), commit } };
}

// ---- contents ----

function entryType(mode: string): EntryType {
  if (mode === '040000') return 'dir';
  if (mode === '120000') return 'symlink';
  if (mode === '160000') return 'submodule';
  return 'file';
}

async function submoduleUrl(rr: RepoReader, commitSha: string, filePath: string): Promise<string | null> {
  const gm = await rr.reader.read(`${commitSha}:.gitmodules`, 1024 * 1024);
  if (!gm?.data) return null;
  let current: string | null = null;
  for (const raw of gm.data.toString('utf8').split('\n')) {
    const line = raw.trim();
    const pathMatch = /^path\s*=\s*(.+)$/.exec(line);
    if (/^\[submodule /.test(line)) current = null;
    if (pathMatch) current = pathMatch[1]!;
    const url = /^url\s*=\s*(.+)$/.exec(line);
    if (url && current === filePath) return url[1]!;
  }
  return null;
}

/** The ContentsResponse of one entry (file content included for files within the limit). */
async function entryJson(
  s: Contents, o: Opened, commit: { sha: string; name: string }, filePath: string,
  e: { sha: string; mode: string; size: number }, lastCommit: string, withContent: boolean,
): Promise<Record<string, unknown>> {
  const type = entryType(e.mode);
  const x: ContentsInput = {
    path: filePath, name: path.posix.basename(filePath), sha: e.sha, type, size: type === 'dir' || type === 'submodule' ? 0 : e.size,
    lastCommitSha: lastCommit, ref: commit.name, content: null, target: null, submoduleUrl: null,
  };
  if (type === 'symlink') {
    const obj = await o.rr.reader.read(e.sha, 4096);
    x.target = obj?.data ? obj.data.toString('utf8') : null;
  } else if (type === 'submodule') {
    x.submoduleUrl = await submoduleUrl(o.rr, commit.sha, filePath);
  } else if (type === 'file' && withContent && e.size <= s.ctx.settings.maxBlobBytes) {
    const obj = await o.rr.reader.read(e.sha, s.ctx.settings.maxBlobBytes);
    x.content = obj?.data ? obj.data.toString('base64') : null;
  }
  if (type === 'symlink' && withContent) {
    const obj = await o.rr.reader.read(e.sha, 4096);
    x.content = obj?.data ? obj.data.toString('base64') : null;
  }
  return contentsApi(o.view, x);
}

/** What /contents answers for a path at a commit: one ContentsResponse (file) or a listing (directory). */
export async function contentsAt(s: Contents, o: Opened, commit: { sha: string; name: string }, filePath: string): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const entry = await o.rr.entryAt(commit.sha, filePath);
  if (!entry) throw fail.notFound();
  if (entry.type !== 'tree') {
    const last = await o.rr.lastCommits(commit.sha, path.posix.dirname(filePath) === '.' ? '' : path.posix.dirname(filePath), [path.posix.basename(filePath)]);
    return entryJson(s, o, commit, filePath, entry, last.get(path.posix.basename(filePath)) ?? '', true);
  }
  const list = (await o.rr.reader.tree(entry.sha)) ?? [];
  const sizes = await Promise.all(list.map((e) => (e.type === 'blob' ? o.rr.reader.info(e.sha).then((i) => i?.size ?? 0) : Promise.resolve(0))));
  const last = await o.rr.lastCommits(commit.sha, filePath, list.map((e) => e.name));
  return Promise.all(list.map((e, i) => entryJson(s, o, commit, filePath ? `${filePath}/${e.name}` : e.name, { sha: e.sha, mode: e.mode, size: sizes[i]! }, last.get(e.name) ?? '', false)));
}

/**
 * Directory listings as JSON text, by repository (its API address), commit, ref name and path: a commit's tree, its
 * entries' sizes and last commits never change, so a listing is built (a hundred object lookups and a history walk)
 * once per commit, not per request. Access is checked before a listing is looked up.
 */
const listings = new Lru<string, string>(500);
const LISTING_CACHE_MAX_CHARS = 1 << 20;

async function contentsReply(s: Contents, o: Opened, commit: { sha: string; name: string }, filePath: string): Promise<Reply> {
  const key = `${o.view.api}\0${commit.sha}\0${commit.name}\0${filePath}`;
  const hit = listings.get(key);
  if (hit !== undefined) return { status: 200, type: 'json-text', body: hit };
  const body = await contentsAt(s, o, commit, filePath);
  if (!Array.isArray(body)) return { status: 200, type: 'json-text', body: s.serializeEntry(body) };
  const text = s.serializeListing(body);
  if (text.length <= LISTING_CACHE_MAX_CHARS) listings.set(key, text);
  return { status: 200, type: 'json-text', body: text };
}

/** GET /repos/{owner}/{repo}/contents/{filepath} and GET /repos/{owner}/{repo}/contents */
export async function getContents(rc: Rc<{ ref?: string }>): Promise<Reply> {
  const s = svc(rc);
  const o = await s.open(rc);
  const filePath = cleanPath(wildcard(rc));
  return contentsReply(s, o, await refCommit(o, rc.query.ref), filePath);
}

/** GET /repos/{owner}/{repo}/contents — the root directory listing. */
export async function getContentsList(rc: Rc<{ ref?: string }>): Promise<Reply> {
  const s = svc(rc);
  const o = await s.open(rc);
  return contentsReply(s, o, await refCommit(o, rc.query.ref), '');
}

/** GET /repos/{owner}/{repo}/raw/{filepath} and /media/{filepath} — the blob, streamed, with its content type. */
export async function getRaw(rc: Rc<{ ref?: string }>): Promise<void> {
  const s = svc(rc);
  const o = await s.open(rc);
  let filePath = cleanPath(wildcard(rc));
  let ref = rc.query.ref;
  if (!ref) {
    // Gitea's legacy form: /raw/{ref}/{path} when no `ref` is given and the first segments name a branch, tag or commit.
    const parts = filePath.split('/');
    for (let k = parts.length - 1; k >= 1; k--) {
      const candidate = parts.slice(0, k).join('/');
      if (isValidRefName(candidate) && (await o.rr.resolveCommit(candidate))) {
        const rest = parts.slice(k).join('/');
        if (await o.rr.entryAt((await o.rr.resolveCommit(candidate))!.sha, rest)) {
          ref = candidate;
          filePath = rest;
          break;
        }
      }
    }
  }
  const commit = await refCommit(o, ref);
  const entry = await o.rr.entryAt(commit.sha, filePath);
  if (!entry || entry.type !== 'blob') throw fail.notFound();
  if (entry.size > s.ctx.settings.maxRawBytes) throw new (await import('../../core/errors.js')).ForgeError('PAYLOAD_TOO_LARGE', `the file is larger than ${s.ctx.settings.maxRawBytes} bytes`);
  const head = await o.rr.reader.read(entry.sha, 64 * 1024);
  const type = mediaType(path.posix.basename(filePath), head?.data ?? null);
  const headers: Record<string, string> = {
    'Content-Type': type,
    'Content-Length': String(entry.size),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'Cache-Control': 'private, max-age=300',
    ETag: `"${entry.sha}"`,
  };
  if (rc.req.headers['if-none-match'] === `"${entry.sha}"`) {
    rc.res.writeHead(304, { ETag: headers.ETag!, 'Cache-Control': headers['Cache-Control']! });
    rc.res.end();
    return;
  }
  if (head?.data) {
    // Small blobs came whole from the pooled reader.
    rc.res.writeHead(200, headers);
    rc.res.end(rc.req.method === 'HEAD' ? undefined : head.data);
    return;
  }
  await streamGit(rc, s.git.spawn(o.rr.dir, ['cat-file', 'blob', entry.sha]), headers, entry.size);
}

/** Streams a git process's stdout as the response; a client that leaves kills git; `cap` bytes at most. */
export async function streamGit(rc: Rc<any, any>, child: ChildProcess, headers: Record<string, string>, cap: number): Promise<void> {
  const { res } = rc;
  child.stdin!.end();
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => { if (stderr.length < 4096) stderr += c.toString('utf8'); });
  const ok = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!ok) throw new Error('cannot run git');
  // Wait for the first bytes (or the exit) before committing to a 200: a failing git becomes a clean error.
  const first = await new Promise<Buffer | null>((resolve) => {
    const onData = (chunk: Buffer) => { cleanup(); child.stdout!.pause(); resolve(chunk); };
    const onEnd = () => { cleanup(); resolve(null); };
    const cleanup = () => { child.stdout!.off('data', onData); child.stdout!.off('end', onEnd); };
    child.stdout!.on('data', onData);
    child.stdout!.once('end', onEnd);
  });
  if (first === null) {
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('close', (c) => resolve(c))));
    if (code !== 0) {
      rc.log.warn({ code, stderr: stderr.slice(0, 300) }, 'git failed before writing');
      throw fail.notFound();
    }
  }
  // The client may have gone while this request waited (for an archive slot, for git's first bytes): its 'close'
  // has then already fired, and a write would wait for a 'drain' that never comes, holding the slot for ever.
  if (responseGone(res)) {
    killGroupOf(child);
    return;
  }
  res.writeHead(200, headers);
  let sent = 0;
  const onClose = () => { if (!res.writableFinished) killGroupOf(child); };
  res.once('close', onClose);
  const write = (chunk: Buffer): boolean => {
    sent += chunk.length;
    if (sent > cap) {
      rc.log.warn({ cap }, 'stream cut at its size limit');
      killGroupOf(child);
      res.destroy();
      return false;
    }
    return res.write(chunk);
  };
  if (first) {
    if (!write(first)) child.stdout!.pause();
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        if (!write(chunk)) {
          child.stdout!.pause();
          res.once('drain', () => child.stdout!.resume());
        }
      });
      child.stdout!.once('end', () => resolve());
      child.stdout!.once('error', () => resolve());
      res.once('close', () => resolve());
      if (responseGone(res)) resolve();
      else child.stdout!.resume();
    });
  }
  res.off('close', onClose);
  if (responseGone(res)) {
    killGroupOf(child);
    return;
  }
  await endResponse(res);
}

/** GET /repos/{owner}/{repo}/archive/{ref}.zip|.tar.gz — `git archive` streamed, at most N jobs at once. */
export async function getArchive(rc: Rc): Promise<void> {
  const s = svc(rc);
  const o = await s.open(rc);
  const spec = wildcard(rc);
  const m = /^(.+)\.(zip|tar\.gz|tar|bundle)$/.exec(spec);
  if (!m || m[2] === 'bundle') throw fail.notFound();
  const ref = m[1]!;
  const format = m[2]!;
  if (!isValidRefName(ref)) throw fail.notFound();
  const found = await o.rr.resolveCommit(ref);
  if (!found) throw fail.notFound();
  const prefix = `${o.repo.name}/`;
  const args = ['archive', `--format=${format === 'zip' ? 'zip' : format === 'tar' ? 'tar' : 'tar.gz'}`, `--prefix=${prefix}`, found.sha];
  const release = await s.archives.acquire();
  try {
    const fileName = `${o.repo.name}-${ref.replace(/[^A-Za-z0-9._-]/g, '_')}.${format}`;
    await streamGit(rc, s.git.spawn(o.rr.dir, args), {
      'Content-Type': format === 'zip' ? 'application/zip' : format === 'tar' ? 'application/x-tar' : 'application/gzip',
      'Content-Disposition': `attachment; filename="${fileName}"`,
      ETag: `"${found.sha}.${format}"`,
    }, s.ctx.settings.maxArchiveBytes);
  } finally {
    release();
  }
}

// ---- languages, editorconfig ----

const LANGS: Record<string, string> = {
  ts: 'TypeScript', tsx: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript', js: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript', jsx: 'JavaScript',
  go: 'Go', rs: 'Rust', py: 'Python', rb: 'Ruby', java: 'Java', kt: 'Kotlin', c: 'C', h: 'C', cc: 'C++', cpp: 'C++', cxx: 'C++', hpp: 'C++',
  cs: 'C#', php: 'PHP', swift: 'Swift', scala: 'Scala', sh: 'Shell', bash: 'Shell', html: 'HTML', htm: 'HTML', css: 'CSS', scss: 'SCSS',
  vue: 'Vue', lua: 'Lua', pl: 'Perl', hs: 'Haskell', ex: 'Elixir', exs: 'Elixir', erl: 'Erlang', clj: 'Clojure', dart: 'Dart',
  m: 'Objective-C', sql: 'SQL', r: 'R', zig: 'Zig', nim: 'Nim', ml: 'OCaml', fs: 'F#', ps1: 'PowerShell', groovy: 'Groovy',
  makefile: 'Makefile', dockerfile: 'Dockerfile', tf: 'HCL',
};

/** Files that are not the project's own language (vendored, generated, documentation) — as linguist leaves them out. */
function counted(p: string): boolean {
  return !/(^|\/)(node_modules|vendor|third_party|dist|build)\//.test(p) && !/\.min\.(js|css)$/.test(p);
}

/** GET /repos/{owner}/{repo}/languages — bytes per language at the default branch, by file extension. */
export async function getLanguages(rc: Rc): Promise<Reply> {
  const o = await svc(rc).open(rc);
  const head = await o.rr.resolveCommit(o.repo.defaultBranch);
  if (!head) return { status: 200, body: {} };
  const { stdout } = await o.rr.run(['ls-tree', '-r', '-z', '--long', '--full-tree', head.sha], undefined, 512 * 1024 * 1024);
  const bytes: Record<string, number> = {};
  for (const line of stdout.split('\0')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const [mode, type, , size] = line.slice(0, tab).split(/\s+/);
    if (type !== 'blob' || mode === '120000') continue;
    const p = line.slice(tab + 1);
    if (!counted(p)) continue;
    const base = path.posix.basename(p).toLowerCase();
    const ext = base === 'makefile' || base === 'dockerfile' ? base : base.includes('.') ? base.slice(base.lastIndexOf('.') + 1) : '';
    const lang = LANGS[ext];
    if (lang) bytes[lang] = (bytes[lang] ?? 0) + Number(size);
  }
  const sorted = Object.fromEntries(Object.entries(bytes).sort((a, b) => b[1] - a[1]));
  return { status: 200, body: sorted };
}

/** GET /repos/{owner}/{repo}/editorconfig/{filepath} — the `.editorconfig` definitions that apply to a file. */
export async function getEditorConfig(rc: Rc<{ ref?: string }>): Promise<Reply> {
  const s = svc(rc);
  const o = await s.open(rc);
  const filePath = cleanPath(wildcard(rc));
  const commit = await refCommit(o, rc.query.ref);
  const obj = await o.rr.reader.read(`${commit.sha}:.editorconfig`, 1024 * 1024);
  if (!obj?.data) throw fail.notFound();
  const props = editorconfigFor(obj.data.toString('utf8'), filePath);
  if (!props) throw fail.notFound();
  return { status: 200, body: props };
}

/** Applies the sections of an .editorconfig whose glob matches the path, later sections overriding earlier ones. */
export function editorconfigFor(text: string, filePath: string): Record<string, string> | null {
  let matched = false;
  let active = false;
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.*)\]$/.exec(line);
    if (section) {
      active = globMatch(section[1]!, filePath);
      if (active) matched = true;
      continue;
    }
    const kv = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line);
    if (kv && active) out[kv[1]!.toLowerCase()] = kv[2]!.toLowerCase() === 'true' || kv[2]!.toLowerCase() === 'false' ? kv[2]!.toLowerCase() : kv[2]!;
  }
  return matched ? out : null;
}

function globMatch(glob: string, filePath: string): boolean {
  let g = glob;
  const anchored = g.includes('/');
  if (g.startsWith('/')) g = g.slice(1);
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '*' && g[i + 1] === '*') { re += '.*'; i++; }
    else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = g.indexOf('}', i);
      if (end < 0) { re += '\\{'; continue; }
      re += `(${g.slice(i + 1, end).split(',').map((x) => x.replace(/[.+^$()|[\]\\]/g, '\\$&')).join('|')})`;
      i = end;
    } else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(anchored ? `^${re}$` : `(^|/)${re}$`).test(filePath);
}

export { escapePath };
