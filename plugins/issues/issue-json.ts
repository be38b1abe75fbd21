// Issue and comment JSON serialised once and reused by every list page that shows them unchanged.
//
// A page of 20 issues is ~32 KB of JSON (each issue carries its poster, assignees, labels and milestone), and
// serialising it was the largest cost of an issue list. An issue's text depends on: its stored version, the stored
// versions of the accounts, labels and milestone it shows, the email view of each account (the caller's), its
// repository's id and full name, and its attachments. The embedded store hands out one read-only object per stored
// version (store port contract), so the key compares those objects by identity: any change to any of them is a
// new object and rebuilds the text. An adapter that returns fresh objects per read (MongoDB) never hits, and
// renders as before. Entries are bounded (oldest dropped first). Comments work the same way (poster, email view,
// issue number and kind, repository name, attachments).
import type { Caller } from '../../core/plugin.js';
import type { CommentRecord, IssueRecord } from '../../schemas/contracts/issues.js';
import type { Account } from '../../schemas/services.js';
import { dropOldestTenth } from '../../core/bounded-map.js';
import { listPiece } from '../lib/doc-json.js';
import type { IssueParts, RepoAndOwner } from './convert.js';

type Serialize = (value: unknown) => string;

interface Entry<R> {
  record: R;
  key: unknown[];
  piece: Buffer;
}

/** List pieces of stored records (by id), each valid for its exact record object and key. */
export class PieceCache<R extends { id: number }> {
  private readonly entries = new Map<number, Entry<R>>();
  /** Texts serialised from scratch (tests read it to see the reuse happen). */
  builds = 0;

  constructor(private readonly serialize: Serialize, private readonly capacity: number) {}

  /**
   * The record's list piece (`listPiece`: a leading comma and its JSON) serialised anew from `value`, kept under
   * `key` (what the subclass's `keyOf` made) for the next `cached` check.
   */
  keep(record: R, key: unknown[], value: unknown): Buffer {
    this.builds++;
    const piece = listPiece(this.serialize(value));
    if (this.capacity > 0) {
      if (!this.entries.has(record.id) && this.entries.size >= this.capacity) dropOldestTenth(this.entries, this.capacity);
      this.entries.set(record.id, { record, key, piece });
    }
    return piece;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry kept for this very record object, if any (its key still to be checked). */
  protected entryFor(record: R): Entry<R> | undefined {
    const entry = this.entries.get(record.id);
    return entry !== undefined && entry.record === record ? entry : undefined;
  }
}

/** Where a key's parts go as they are listed: into a new key, or compared with a kept one. */
interface KeySink {
  add(value: unknown): void;
}

class KeyList implements KeySink {
  readonly values: unknown[] = [];

  add(value: unknown): void {
    this.values.push(value);
  }
}

/**
 * Compares the parts listed with a kept key, element by element (identity), without making the new key: a page's
 * issues are nearly always unchanged, and building 20–50 key arrays a request was garbage for nothing. One instance,
 * reset per use: listing is synchronous, so no two uses overlap.
 */
class KeyMatch implements KeySink {
  private key: readonly unknown[] = [];
  private at = 0;
  private same = true;

  reset(key: readonly unknown[]): this {
    this.key = key;
    this.at = 0;
    this.same = true;
    return this;
  }

  add(value: unknown): void {
    if (this.same && this.key[this.at] !== value) this.same = false;
    this.at++;
  }

  /** Every part equal and none missing or left over. */
  matched(): boolean {
    return this.same && this.at === this.key.length;
  }
}

const MATCH = new KeyMatch();

/** Whether a viewer sees an account's email (the users service's rule). */
export type EmailView = (account: Account, viewer: Caller | null) => boolean;

/** The account and whether this viewer sees its email: what a User object in the text depends on. */
function addAccount(key: KeySink, account: Account | undefined, viewer: Caller | null, seesEmail: EmailView): void {
  key.add(account);
  key.add(account !== undefined && seesEmail(account, viewer));
}

/** Attachments are rare and come as fresh objects: their text is the key. */
function assetsKey(assets: unknown[] | undefined): string {
  return assets && assets.length ? JSON.stringify(assets) : '';
}

export class IssueJsonCache extends PieceCache<IssueRecord> {
  /**
   * Everything besides the issue record that its text depends on, as a flat list compared element by element
   * (identity for stored objects). Accounts come with their email view: `true` when this caller sees the address.
   */
  keyOf(issue: IssueRecord, where: RepoAndOwner, parts: IssueParts, viewer: Caller | null, seesEmail: EmailView): unknown[] {
    const key = new KeyList();
    this.list(key, issue, where, parts, viewer, seesEmail);
    return key.values;
  }

  /** The kept text of `issue` when nothing it shows changed (the key `keyOf` would make equals the kept one). */
  cached(issue: IssueRecord, where: RepoAndOwner, parts: IssueParts, viewer: Caller | null, seesEmail: EmailView): Buffer | undefined {
    const entry = this.entryFor(issue);
    if (entry === undefined) return undefined;
    this.list(MATCH.reset(entry.key), issue, where, parts, viewer, seesEmail);
    return MATCH.matched() ? entry.piece : undefined;
  }

  private list(key: KeySink, issue: IssueRecord, { repo, owner }: RepoAndOwner, parts: IssueParts, viewer: Caller | null, seesEmail: EmailView): void {
    key.add(repo.id);
    key.add(repo.name);
    key.add(owner.login);
    addAccount(key, parts.accounts.get(issue.posterId), viewer, seesEmail);
    for (const id of issue.assigneeIds) addAccount(key, parts.accounts.get(id), viewer, seesEmail);
    for (const id of issue.labelIds) key.add(parts.labels.get(id));
    key.add(issue.milestoneId ? parts.milestones.get(issue.milestoneId) : undefined);
    key.add(assetsKey(parts.assets.get(issue.id)));
  }
}

export class CommentJsonCache extends PieceCache<CommentRecord> {
  /** What a comment's text depends on besides the comment: its poster (and email view), issue and repository. */
  keyOf(parent: IssueRecord | undefined, fullName: string, poster: Account | undefined, assets: unknown[] | undefined, viewer: Caller | null,
    seesEmail: EmailView): unknown[] {
    const key = new KeyList();
    this.list(key, parent, fullName, poster, assets, viewer, seesEmail);
    return key.values;
  }

  /** The kept text of `comment` when nothing it shows changed (as `IssueJsonCache.cached`). */
  cached(comment: CommentRecord, parent: IssueRecord | undefined, fullName: string, poster: Account | undefined, assets: unknown[] | undefined,
    viewer: Caller | null, seesEmail: EmailView): Buffer | undefined {
    const entry = this.entryFor(comment);
    if (entry === undefined) return undefined;
    this.list(MATCH.reset(entry.key), parent, fullName, poster, assets, viewer, seesEmail);
    return MATCH.matched() ? entry.piece : undefined;
  }

  private list(key: KeySink, parent: IssueRecord | undefined, fullName: string, poster: Account | undefined, assets: unknown[] | undefined,
    viewer: Caller | null, seesEmail: EmailView): void {
    key.add(fullName);
    key.add(parent?.number ?? 0);
    key.add(parent?.isPull === true);
    addAccount(key, poster, viewer, seesEmail);
    key.add(assetsKey(assets));
  }
}
