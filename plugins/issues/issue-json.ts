// Issue JSON serialised once and reused by every list page that shows the issue unchanged.
//
// A page of 20 issues is ~32 KB of JSON (each issue carries its poster, assignees, labels and milestone), and
// serialising it was the largest cost of an issue list. An issue's text depends on: its stored version, the stored
// versions of the accounts, labels and milestone it shows, the email view of each account (the caller's), its
// repository's id and full name, and its attachments. The embedded store hands out one read-only object per stored
// version (store port contract), so the key compares those objects by identity: any change to any of them is a
// new object and rebuilds the text. An adapter that returns fresh objects per read (MongoDB) never hits, and
// renders as before. Entries are bounded (oldest dropped first).
import type { Caller } from '../../core/plugin.js';
import type { IssueRecord } from '../../schemas/contracts/issues.js';
import { seesEmail } from '../users/convert.js';
import { listPiece } from '../lib/doc-json.js';
import type { IssueParts, RepoAndOwner } from './convert.js';

type Serialize = (value: unknown) => string;

interface Entry {
  issue: IssueRecord;
  key: unknown[];
  piece: Buffer;
}

export class IssueJsonCache {
  private readonly entries = new Map<number, Entry>();
  /** Texts serialised from scratch (tests read it to see the reuse happen). */
  builds = 0;

  constructor(private readonly serialize: Serialize, private readonly capacity: number) {}

  /**
   * Everything besides the issue record that its text depends on, as a flat list compared element by element
   * (identity for stored objects). Accounts come with their email view: `true` when this caller sees the address.
   */
  keyOf(issue: IssueRecord, { repo, owner }: RepoAndOwner, parts: IssueParts, viewer: Caller | null): unknown[] {
    const key: unknown[] = [repo.id, repo.name, owner.login];
    const poster = parts.accounts.get(issue.posterId);
    key.push(poster, poster !== undefined && seesEmail(poster, viewer));
    for (const id of issue.assigneeIds) {
      const account = parts.accounts.get(id);
      key.push(account, account !== undefined && seesEmail(account, viewer));
    }
    for (const id of issue.labelIds) key.push(parts.labels.get(id));
    key.push(issue.milestoneId ? parts.milestones.get(issue.milestoneId) : undefined);
    const assets = parts.assets.get(issue.id);
    // Attachments are rare and come as fresh objects: their text is the key.
    key.push(assets && assets.length ? JSON.stringify(assets) : '');
    return key;
  }

  /** The issue's list piece (`listPiece`: a leading comma and its JSON), rebuilt with `build` when its key changed. */
  piece(issue: IssueRecord, key: unknown[], build: () => unknown): Buffer {
    const entry = this.entries.get(issue.id);
    if (entry !== undefined && entry.issue === issue && sameKey(entry.key, key)) return entry.piece;
    this.builds++;
    const piece = listPiece(this.serialize(build()));
    if (this.capacity > 0) {
      if (entry === undefined && this.entries.size >= this.capacity) this.evict();
      this.entries.set(issue.id, { issue, key, piece });
    }
    return piece;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops the oldest tenth (insertion order): cheaper than an exact LRU order on every hit. */
  private evict(): void {
    let n = Math.max(1, Math.floor(this.capacity / 10));
    for (const id of this.entries.keys()) {
      this.entries.delete(id);
      if (--n === 0) break;
    }
  }
}

function sameKey(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
