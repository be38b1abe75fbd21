// File writes through the API: one commit per request, written with git plumbing against a temporary index (no
// working tree), the branch moved with a compare-and-swap (`git update-ref <ref> <new> <old>`). A writer that loses the
// race re-applies its change on the new head, re-checking every blob `sha` it was given: two writers never lose a
// commit, and a stale `sha` is a conflict, never a silent overwrite.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fail, ForgeError } from '../../core/errors.js';
import type { Caller } from '../../core/plugin.js';
import { ZERO_SHA } from '../../schemas/contracts/git.js';
import { ACCESS, type Account } from '../../schemas/services.js';
import { cleanPath, isValidRefName, type ParsedCommit } from './git-read.js';
import type { Contents, Opened } from './service.js';

export interface FileOp {
  operation: 'create' | 'update' | 'delete';
  path: string;
  /** base64 content for create/update. */
  content?: string;
  sha?: string;
  from_path?: string;
}

export interface CommitOptions {
  message?: string;
  branch?: string;
  new_branch?: string;
  author?: { name?: string; email?: string };
  committer?: { name?: string; email?: string };
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
}

export interface WriteResult {
  commit: ParsedCommit;
  branch: string;
}

const CAS_RETRIES = 8;

function decodeBase64(value: string, field: string): Buffer {
  const clean = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw fail.validation(field, 'must be base64');
  return Buffer.from(clean, 'base64');
}

function defaultMessage(ops: FileOp[]): string {
  const verb = { create: 'Add', update: 'Update', delete: 'Delete' } as const;
  return ops.map((o) => `${verb[o.operation]} ${o.path}`).join('\n');
}

/** `Name <email> <unix> +0000` parts for GIT_*_DATE; an ISO date keeps its instant. */
function gitDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw fail.validation('dates', 'must be RFC 3339 dates');
  return `${Math.floor(t / 1000)} +0000`;
}

function cleanIdent(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[<>\x00-\x1f\x7f]/g, '').trim();
}

export class Writer {
  constructor(private readonly s: Contents) {}

  /** The author/committer: as given, else the caller's commit identity (UsersService.commitIdentity: no-reply unless shown). */
  private identities(caller: Account, opts: CommitOptions): { author: { name: string; email: string }; committer: { name: string; email: string } } {
    const fallback = this.s.ctx.services.get('users').commitIdentity(caller);
    const pick = (x?: { name?: string; email?: string }) => ({
      name: cleanIdent(x?.name || '') || fallback.name,
      email: cleanIdent(x?.email || '') || fallback.email,
    });
    const author = opts.author && (opts.author.name || opts.author.email) ? pick(opts.author) : opts.committer ? pick(opts.committer) : fallback;
    const committer = opts.committer && (opts.committer.name || opts.committer.email) ? pick(opts.committer) : author;
    return { author, committer };
  }

  /** 423 Locked for an archived repository (Gitea's mustNotBeArchived: writes, branches, tags, protection rules). */
  static refuseArchived(o: Pick<Opened, 'repo' | 'owner'>): void {
    if (o.repo.archived === true) throw new ForgeError('LOCKED', `${o.owner.login}/${o.repo.name} is archived`);
  }

  /** Refuses writes to archived repositories (423 Locked, as Gitea's mustNotBeArchived) and to mirrors (403). */
  static checkWritable(o: Opened): void {
    Writer.refuseArchived(o);
    if (o.repo.mirror) throw fail.forbidden('the repository is a mirror');
  }

  async change(o: Opened, caller: Caller, opts: CommitOptions, rawOps: FileOp[]): Promise<WriteResult> {
    if (o.mode < ACCESS.write) throw fail.forbidden();
    Writer.checkWritable(o);
    const account = await this.s.ctx.services.get('users').byId(caller.id);
    if (!account) throw fail.unauthorized();
    const ops = rawOps.map((op, i) => ({
      ...op,
      path: cleanPath(op.path, `files[${i}].path`),
      from_path: op.from_path ? cleanPath(op.from_path, `files[${i}].from_path`) : undefined,
      bytes: op.operation === 'delete' ? null : decodeBase64(op.content ?? '', `files[${i}].content`),
    }));
    for (const op of ops) {
      if (op.path === '') throw fail.validation('filepath', 'must name a file');
      if (op.operation !== 'create' && !op.sha) throw fail.validation('sha', `is required to ${op.operation} ${op.path}`);
    }
    const seen = new Set<string>();
    for (const op of ops) {
      if (seen.has(op.path)) throw fail.validation('files', `${op.path} is named twice`);
      seen.add(op.path);
    }
    const branch = opts.branch || o.repo.defaultBranch;
    const target = opts.new_branch || branch;
    if (!isValidRefName(branch) || branch.startsWith('refs/')) throw fail.validation('branch', 'is not a valid branch name');
    if (!isValidRefName(target) || target.startsWith('refs/')) throw fail.validation('new_branch', 'is not a valid branch name');
    const { author, committer } = this.identities(account, opts);
    let message = opts.message || defaultMessage(ops);
    if (!message.endsWith('\n')) message += '\n';
    if (opts.signoff) message += `\nSigned-off-by: ${committer.name} <${committer.email}>\n`;
    const env: Record<string, string> = {
      GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email,
    };
    const ad = gitDate(opts.dates?.author);
    const cd = gitDate(opts.dates?.committer);
    if (ad) env.GIT_AUTHOR_DATE = ad;
    if (cd) env.GIT_COMMITTER_DATE = cd;

    // Blobs first: they do not depend on the head, so a retry does not write them again.
    const blobs = new Map<string, string>();
    for (const op of ops) {
      if (op.bytes) blobs.set(op.path, (await this.s.git.run(o.rr.dir, ['hash-object', '-w', '--stdin'], { input: op.bytes })).stdout.trim());
    }

    const git = this.s.git;
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const sourceRef = `refs/heads/${branch}`;
      const base = await o.rr.reader.resolve(`${sourceRef}^{commit}`);
      // An empty repository takes a first commit on any branch.
      const empty = base === null && (await o.rr.refs('refs/heads/')).length === 0;
      if (!base && !empty) throw new ForgeError('NOT_FOUND', `branch ${branch} does not exist`);
      const targetRef = `refs/heads/${target}`;
      let old: string;
      if (target !== branch) {
        if (await o.rr.reader.resolve(targetRef)) throw fail.validation('new_branch', `branch ${target} already exists`);
        old = ZERO_SHA;
      } else {
        old = base ?? ZERO_SHA;
      }
      const index = path.join(os.tmpdir(), `forgekit-index-${randomBytes(8).toString('hex')}`);
      try {
        const ienv = { ...env, GIT_INDEX_FILE: index };
        if (base) await git.run(o.rr.dir, ['read-tree', base], { env: ienv });
        else await git.run(o.rr.dir, ['read-tree', '--empty'], { env: ienv });
        const lines: string[] = [];
        for (const op of ops) {
          const existing = base ? await o.rr.entryAt(base, op.path) : null;
          const source = op.from_path ? (base ? await o.rr.entryAt(base, op.from_path) : null) : existing;
          if (op.operation === 'create') {
            if (existing) throw fail.validation('filepath', `a file already exists at ${op.path}`);
            await this.checkParents(o, base, op.path);
            lines.push(`100644 ${blobs.get(op.path)}\t${op.path}`);
          } else {
            if (!source || source.type !== 'blob') throw new ForgeError('NOT_FOUND', `file ${op.from_path ?? op.path} does not exist`);
            if (!op.sha || source.sha !== op.sha.toLowerCase()) {
              throw fail.conflict(`sha does not match: ${op.from_path ?? op.path} is ${source.sha} on ${branch}, not ${op.sha}`);
            }
            if (op.operation === 'delete') {
              lines.push(`0 ${ZERO_SHA}\t${op.path}`);
            } else {
              if (op.from_path && op.from_path !== op.path) {
                if (existing) throw fail.validation('filepath', `a file already exists at ${op.path}`);
                await this.checkParents(o, base, op.path);
                lines.push(`0 ${ZERO_SHA}\t${op.from_path}`);
              }
              const mode = source.mode === '100755' ? '100755' : '100644';
              lines.push(`${mode} ${blobs.get(op.path)}\t${op.path}`);
            }
          }
        }
        await git.run(o.rr.dir, ['update-index', '-z', '--index-info'], { env: ienv, input: lines.map((l) => `${l}\0`).join('') });
        const tree = (await git.run(o.rr.dir, ['write-tree'], { env: ienv })).stdout.trim();
        const args = ['commit-tree', tree];
        if (base) args.push('-p', base);
        args.push('-F', '-');
        const sha = (await git.run(o.rr.dir, args, { env, input: message })).stdout.trim();
        const reason = await git.checkPush({ repo: o.repo, owner: o.owner, pusherId: caller.id, via: 'api', updates: [{ ref: targetRef, oldSha: old, newSha: sha }] });
        if (reason) throw fail.forbidden(reason);
        const before = await git.readRefs(o.repo, o.owner);
        try {
          await git.run(o.rr.dir, ['update-ref', '-m', 'forgekit: API write', targetRef, sha, old]);
        } catch {
          continue; // the branch moved (or appeared) meanwhile: re-apply on the new head
        }
        await git.afterPush(o.repo, o.owner, before, caller.id, 'api');
        const commit = await o.rr.commit(sha);
        return { commit: commit!, branch: target };
      } finally {
        await rm(index, { force: true });
        await rm(`${index}.lock`, { force: true });
      }
    }
    throw fail.conflict(`branch ${target} kept moving; try again`);
  }

  /** A file cannot be created where a parent path is a file (or symlink). */
  private async checkParents(o: Opened, base: string | null, filePath: string): Promise<void> {
    if (!base) return;
    const parts = filePath.split('/');
    for (let k = 1; k < parts.length; k++) {
      const e = await o.rr.entryAt(base, parts.slice(0, k).join('/'));
      if (!e) return;
      if (e.type !== 'tree') throw fail.validation('filepath', `${parts.slice(0, k).join('/')} is a file, not a directory`);
    }
  }
}
