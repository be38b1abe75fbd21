// Commit list pages as JSON text: each commit's text serialised once and reused while nothing it shows has changed.
//
// A page of 30 commits spent most of its time building 30 Commit objects and serialising ~900 strings (URLs, ids,
// dates, file names) that are the same on every request: a commit never changes. What can change is shown around
// it: the repository's URLs (a transfer), the accounts behind the author and committer emails as this caller sees
// them (`UsersService.jsonText`: one string per account version and view), and the signature's verification (keys
// added or removed). An entry is reused only when all of those are the same strings as when it was made.
import type { Caller } from '../../core/plugin.js';
import type { Account, UsersService } from '../../schemas/services.js';
import { apiCommit, type Verification, type View } from './convert.js';
import type { FileChange, ParsedCommit } from './git-read.js';

export interface CommitTextOptions {
  stat: boolean;
  files: boolean;
}

interface Entry {
  author: string;
  committer: string;
  verification: string;
  text: string;
}

/** The fields of a verification that are not the commit's own (signature and payload are, for a given id). */
function verificationKey(v: Verification): string {
  return `${v.verified}\0${v.reason}\0${v.signer ? `${v.signer.username}\0${v.signer.name}\0${v.signer.email}` : ''}\0${v.signature.length}`;
}

export class CommitJsonCache {
  /**
   * Per repository URL base, per commit id: an entry per stat/files combination (index `stat * 2 + files`). Two
   * levels of short keys: a page looks up 30 commits, and a joined string key costs a copy and a hash each time.
   */
  private readonly entries = new Map<string, Map<string, Array<Entry | undefined>>>();
  private count = 0;
  /** Texts serialised from scratch (a test reads it to see the reuse happen). */
  builds = 0;

  constructor(
    private readonly serializeCommit: (value: unknown) => string,
    /** Entries kept at most; the oldest are dropped first. */
    private readonly capacity = 20_000,
  ) {}

  /**
   * The JSON text of `c` as the Commit list shows it to `viewer`. `accounts` maps lower-cased emails to the accounts
   * behind them (users only; unmatched emails show `null`, as Gitea).
   */
  text(view: View, c: ParsedCommit, files: FileChange[] | null, opts: CommitTextOptions, verification: Verification,
    accounts: Map<string, Account>, users: UsersService, viewer: Caller | null): string {
    const authorAccount = accounts.get(c.author.email.toLowerCase());
    const committerAccount = accounts.get(c.committer.email.toLowerCase());
    const author = authorAccount ? users.jsonText(authorAccount, viewer) : 'null';
    const committer = committerAccount ? users.jsonText(committerAccount, viewer) : 'null';
    const vkey = verificationKey(verification);
    let byCommit = this.entries.get(view.api);
    const slot = (opts.stat ? 2 : 0) + (opts.files ? 1 : 0);
    const hit = byCommit?.get(c.sha)?.[slot];
    if (hit && hit.author === author && hit.committer === committer && hit.verification === vkey) return hit.text;
    this.builds++;
    const shown = new Map<string, ReturnType<UsersService['toApi']>>();
    if (authorAccount) shown.set(c.author.email.toLowerCase(), users.toApi(authorAccount, viewer));
    if (committerAccount) shown.set(c.committer.email.toLowerCase(), users.toApi(committerAccount, viewer));
    const api = apiCommit(view, c, { files: opts.files || opts.stat ? files : null, stat: opts.stat, verification, users: shown });
    if (!opts.files) api.files = null;
    const text = this.serializeCommit(api);
    if (!hit && this.count >= this.capacity) {
      // Whole repositories' entries go, oldest first, until a tenth of the capacity is free.
      for (const [base, commits] of this.entries) {
        for (const slots of commits.values()) this.count -= slots.filter(Boolean).length;
        this.entries.delete(base);
        if (this.count <= this.capacity * 0.9) break;
      }
      byCommit = this.entries.get(view.api);
    }
    if (!byCommit) {
      byCommit = new Map();
      this.entries.set(view.api, byCommit);
    }
    let slots = byCommit.get(c.sha);
    if (!slots) {
      slots = [];
      byCommit.set(c.sha, slots);
    }
    if (!slots[slot]) this.count++;
    slots[slot] = { author, committer, verification: vkey, text };
    return text;
  }

  /** Texts kept. */
  get size(): number {
    return this.count;
  }
}
