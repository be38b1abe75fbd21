// A pull request's own JSON text in a list (everything but its branches' repositories), kept while nothing it shows
// changed.
//
// A page of 50 pull requests serialised its 50 own parts (issue half, URLs, reviewers, branches) on every reply: ~60%
// of the page's CPU once the repositories came from the repos plugin's kept JSON, and most of its garbage. What the
// text shows, compared element by element (identity for stored objects): the pull request's record, its issue half's
// kept JSON from the issues plugin (a new Buffer whenever the issue, its accounts or their email view, labels,
// milestone or repository name changed), the base repository's id, name and owner's login, the head repository's id
// and owner's login, the review comment count, each review request's row with its reviewer and email view, and the
// merger with its email view. The embedded store hands out one read-only object per stored version (store port
// contract), so a changed row is a new object; an adapter that returns fresh objects per read (MongoDB) never hits.
// Entries are bounded (oldest dropped first).
import { dropOldestTenth } from '../../core/bounded-map.js';

interface Entry {
  key: readonly unknown[];
  /** The text before the base repository (`{…,"base":{…,"repo":`) and between the two (`},"head":{…,"repo":`). */
  open: Buffer;
  middle: Buffer;
}

export class PullTextCache {
  private readonly entries = new Map<number, Entry>();
  /** Texts made from scratch (tests read it to see the reuse happen). */
  builds = 0;

  constructor(private readonly capacity: number) {}

  /** The kept text of pull request `id` when its key equals `key`, element by element. */
  get(id: number, key: readonly unknown[]): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.key.length !== key.length) return undefined;
    for (let i = 0; i < key.length; i++) if (entry.key[i] !== key[i]) return undefined;
    return entry;
  }

  /** Keeps a text just made (`key` null: it shows something the key cannot follow, so it is not kept). */
  keep(id: number, key: readonly unknown[] | null, open: Buffer, middle: Buffer): void {
    this.builds++;
    if (key === null || this.capacity === 0) return;
    if (!this.entries.has(id) && this.entries.size >= this.capacity) dropOldestTenth(this.entries, this.capacity);
    this.entries.set(id, { key, open, middle });
  }

  /** Whether anything is kept at all (`jsonCacheEntries` above 0): without, a list needs no keys. */
  get keeps(): boolean {
    return this.capacity > 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
