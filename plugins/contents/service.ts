// The contents plugin's state: settings, the repository opener every handler uses (access check, then the pooled
// reader), commit authors as accounts, signature verification and the archive job bound.
import { fail } from '../../core/errors.js';
import type { Caller, PluginContext, RequestContext } from '../../core/plugin.js';
import type { GitService } from '../../schemas/contracts/git.js';
import { ACCESS, type Account, type AccessMode, type ApiUser, type RepoRecord } from '../../schemas/services.js';
import { RepoReader, type ParsedCommit, type ParsedTag } from './git-read.js';
import { unsignedVerification, type Verification, type View } from './convert.js';
import { CommitJsonCache } from './commit-json.js';

export interface ContentsSettings {
  /** Files larger than this have `content: null` in /contents and are refused by /git/blobs (bytes). */
  maxBlobBytes: number;
  /** /raw and /media refuse blobs larger than this (bytes); smaller ones are streamed. */
  maxRawBytes: number;
  /** An archive stops (connection cut) past this many bytes. */
  maxArchiveBytes: number;
  /** `git archive` processes at once; more requests wait. */
  archiveConcurrency: number;
  /** Entries per page of /git/trees (Gitea's default 1000). */
  treePageSize: number;
}

export const SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    maxBlobBytes: { type: 'integer', minimum: 1, default: 10 * 1024 * 1024 },
    maxRawBytes: { type: 'integer', minimum: 1, default: 512 * 1024 * 1024 },
    maxArchiveBytes: { type: 'integer', minimum: 1, default: 2 * 1024 * 1024 * 1024 },
    archiveConcurrency: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
    treePageSize: { type: 'integer', minimum: 1, maximum: 100000, default: 1000 },
  },
  additionalProperties: false,
} as const;

export interface Opened {
  repo: RepoRecord;
  owner: Account;
  mode: AccessMode;
  view: View;
  rr: RepoReader;
}

/** A counting semaphore: at most `n` holders, the rest wait in arrival order. */
export class Bound {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly n: number) {}
  async acquire(): Promise<() => void> {
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }
}

export type Verifier = (obj: ParsedCommit | ParsedTag) => Promise<Verification>;

export class Contents {
  readonly archives: Bound;
  /** Replaced by the signature checker when the gpg-keys service is present. */
  verifier: Verifier = async (obj) => (obj.signature
    ? { verified: false, reason: 'gpg.error.no_gpg_keys_found', signature: obj.signature, payload: obj.payload, signer: null }
    : unsignedVerification());

  /** /contents answers a file or a listing: serialised here (an anyOf of $refs does not serialise in the kernel). */
  readonly serializeEntry: (value: unknown) => string;
  readonly serializeListing: (value: unknown) => string;
  /** Commit list pages' per-commit texts (commit-json.ts). */
  readonly commitJson: CommitJsonCache;

  constructor(readonly ctx: PluginContext<ContentsSettings>) {
    this.archives = new Bound(ctx.settings.archiveConcurrency);
    this.serializeEntry = ctx.serializer({ $ref: 'forgekit/ContentsResponse' });
    this.serializeListing = ctx.serializer({ $ref: 'forgekit/ContentsList' });
    this.commitJson = new CommitJsonCache(ctx.serializer({ $ref: 'forgekit/Commit' }));
  }

  get git(): GitService {
    return this.ctx.services.get('git');
  }

  /**
   * The repository of `/repos/{owner}/{repo}/...` for this caller: unreadable or missing → 404, below `minimum` → 403
   * (writes), a record without storage → 404.
   */
  async open(rc: RequestContext<{ owner: string; repo: string }>, minimum: AccessMode = ACCESS.read): Promise<Opened> {
    // Contents, git data, branches, tags, commits and archives are the code unit (Gitea's reqRepoReader(unit.TypeCode)).
    const { repo, owner, mode } = await this.ctx.services.get('repos').resolve(rc.caller, rc.params.owner, rc.params.repo, minimum, 'code');
    return this.openResolved(repo, owner, mode);
  }

  openResolved(repo: RepoRecord, owner: Account, mode: AccessMode): Opened {
    const dir = this.git.repoDir(repo, owner);
    const view: View = {
      api: `${this.ctx.urls.api}repos/${owner.login}/${repo.name}`,
      html: `${this.ctx.urls.root}${owner.login}/${repo.name}`,
    };
    return { repo, owner, mode, view, rr: new RepoReader(this.git, dir) };
  }

  /**
   * Accounts behind commit emails, as API users (Gitea's GetUserByEmail: an account's primary or verified address,
   * or its no-reply address). Unknown addresses stay unmatched (author `null`, as Gitea).
   */
  async usersByEmail(emails: Iterable<string>, viewer: Caller | null): Promise<Map<string, ApiUser>> {
    const users = this.ctx.services.get('users');
    const out = new Map<string, ApiUser>();
    for (const [email, account] of await this.accountsByEmail(emails)) out.set(email, users.toApi(account, viewer));
    return out;
  }

  /** The user accounts behind commit emails, by lower-cased email (the rule of `usersByEmail`). */
  async accountsByEmail(emails: Iterable<string>): Promise<Map<string, Account>> {
    const out = new Map<string, Account>();
    const users = this.ctx.services.get('users');
    for (const raw of new Set([...emails].map((e) => e.toLowerCase()))) {
      if (!raw) continue;
      const account = await users.byEmail(raw);
      if (account && account.type === 'user') out.set(raw, account);
    }
    return out;
  }

  /** 404 unless the repository has a commit: Gitea answers reads of an empty repository as not found. */
  static requireCommit<T>(value: T | null | undefined): T {
    if (value === null || value === undefined) throw fail.notFound();
    return value;
  }
}
