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
import { dropOldestTenth, listPiece } from '../lib/doc-json.js';
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

  /** The record's list piece (`listPiece`: a leading comma and its JSON), rebuilt with `build` when its key changed. */
  piece(record: R, key: unknown[], build: () => unknown): Buffer {
    const entry = this.entries.get(record.id);
    if (entry !== undefined && entry.record === record && sameKey(entry.key, key)) return entry.piece;
    this.builds++;
    const piece = listPiece(this.serialize(build()));
    if (this.capacity > 0) {
      if (entry === undefined && this.entries.size >= this.capacity) dropOldestTenth(this.entries, this.capacity);
      this.entries.set(record.id, { record, key, piece });
    }
    return piece;
  }

  get size(): number {
    return this.entries.size;
  }

}

/** Whether a viewer sees an account's email (the users service's rule). */
export type EmailView = (account: Account, viewer: Caller | null) => boolean;

/** The account and whether this viewer sees its email: what a User object in the text depends on. */
function pushAccount(key: unknown[], account: Account | undefined, viewer: Caller | null, seesEmail: EmailView): void {
  key.push(account, account !== undefined && seesEmail(account, viewer));
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
  keyOf(issue: IssueRecord, { repo, owner }: RepoAndOwner, parts: IssueParts, viewer: Caller | null, seesEmail: EmailView): unknown[] {
    const key: unknown[] = [repo.id, repo.name, owner.login];
    pushAccount(key, parts.accounts.get(issue.posterId), viewer, seesEmail);
    for (const id of issue.assigneeIds) pushAccount(key, parts.accounts.get(id), viewer, seesEmail);
    for (const id of issue.labelIds) key.push(parts.labels.get(id));
    key.push(issue.milestoneId ? parts.milestones.get(issue.milestoneId) : undefined);
    key.push(assetsKey(parts.assets.get(issue.id)));
    return key;
  }
}

export class CommentJsonCache extends PieceCache<CommentRecord> {
  /** What a comment's text depends on besides the comment: its poster (and email view), issue and repository. */
  keyOf(parent: IssueRecord | undefined, fullName: string, poster: Account | undefined, assets: unknown[] | undefined, viewer: Caller | null,
    seesEmail: EmailView): unknown[] {
    const key: unknown[] = [fullName, parent?.number ?? 0, parent?.isPull === true];
    pushAccount(key, poster, viewer, seesEmail);
    key.push(assetsKey(assets));
    return key;
  }
}

function sameKey(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
