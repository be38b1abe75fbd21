// The in-memory account index behind `GET /users/search` and the non-public account set of repository access.
//
// Every individual user has a compact entry (id, lower-cased login and full name, visibility) and belongs to posting
// lists (plugins/lib/postings.ts) kept in result order — account id order, Gitea's — per visibility side (public,
// limited, private): one per gram (1..3 characters) of the login or the full name, and one of everything. A page is
// a merge of the caller's sides that stops after `skip + limit` ids; the total is the postings' sizes plus the
// caller's visible private matches. A query longer than a gram gets its own exact posting, built once from its
// rarest trigram's postings by a substring check on the in-memory texts, kept (bounded, least recently used first
// out) and maintained on every change. Organizations are not searched (Gitea's user search lists individuals) but
// their visibility is kept: the non-public accounts (users and organizations) are answered from memory.
// Built from the store at start; every change of an account goes through the Users service, which updates the
// index before the request that made the change is answered. One process owns a store.
import type { Account, AccountVisibility, NonPublicOwners } from '../../schemas/services.js';

/** What the index reads of an account. */
export type IndexedAccount = Pick<Account, 'id' | 'type' | 'lowerName' | 'fullName'> & { visibility?: unknown };
import { MAX_GRAM, trigramsOf } from '../lib/grams.js';
import { Lru } from '../lib/lru.js';
import { arraySource, mergeFiltered, Posting, type FilteredSource, type IdOrder } from '../lib/postings.js';

export interface UserEntry {
  id: number;
  lowerName: string;
  lowerFull: string;
  visibility: AccountVisibility;
}

export type SideName = AccountVisibility;
const SIDES: readonly SideName[] = ['public', 'limited', 'private'];

const byId: IdOrder = (a, b) => a - b;

function visibilityOf(a: { visibility?: unknown }): AccountVisibility {
  return a.visibility === 'limited' || a.visibility === 'private' ? a.visibility : 'public';
}

/** The distinct 1..3-grams of each text (the same grams `gramsOf` stores: never across the two texts). */
function gramsOf(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const text of texts) for (let n = 1; n <= MAX_GRAM; n++) for (let i = 0; i + n <= text.length; i++) out.add(text.slice(i, i + n));
  return [...out];
}

class Side {
  readonly all = new Posting(byId);
  readonly gram = new Map<string, Posting>();

  postingsOf(e: UserEntry, create: boolean): Posting[] {
    const out: Posting[] = [this.all];
    for (const g of gramsOf(e.lowerName, e.lowerFull)) {
      let p = this.gram.get(g);
      if (!p && create) this.gram.set(g, (p = new Posting(byId)));
      if (p) out.push(p);
    }
    return out;
  }

  trim(): void {
    for (const p of this.gram.values()) p.trim();
  }
}

/** Who is searching: which sides are in scope and which private accounts they may see. */
export interface UserVisibility {
  /** Signed in: limited accounts are visible. */
  limited: boolean;
  /** A site admin: every private account. */
  privateAll: boolean;
  /** Otherwise: which of these private accounts are visible (self, a shared organization, someone they follow…). */
  seesPrivate?: (ids: readonly number[]) => Promise<ReadonlySet<number>>;
}

const LONG_QUERIES_MAX = 1024;

type LongPosting = { q: string } & Record<SideName, Posting>;

export class UserIndex {
  readonly entries = new Map<number, UserEntry>();
  /** Organizations that are not public (they are never searched, but repository access hides theirs). */
  private readonly hiddenOrgs = new Map<number, AccountVisibility>();
  private sides: Record<SideName, Side> = { public: new Side(), limited: new Side(), private: new Side() };
  private readonly long = new Lru<string, LongPosting>(LONG_QUERIES_MAX);
  /** Every non-public account, as `nonPublic()` answers it; null: stale (a non-public account came, went or changed). */
  private nonPublicAll: ReadonlyArray<{ id: number; type: 'user' | 'org'; visibility: AccountVisibility }> | null = null;
  /** The same as shared sets (`nonPublicSets`); null: stale. */
  private nonPublicShared: NonPublicOwners | null = null;
  /** Long-query postings built (tests read it). */
  longBuilds = 0;

  load(accounts: Iterable<IndexedAccount>): void {
    this.stale();
    this.entries.clear();
    this.hiddenOrgs.clear();
    this.long.clear();
    this.sides = { public: new Side(), limited: new Side(), private: new Side() };
    const users: UserEntry[] = [];
    for (const a of accounts) {
      if (a.type === 'org') {
        const v = visibilityOf(a);
        if (v !== 'public') this.hiddenOrgs.set(a.id, v);
        continue;
      }
      const e = entryOf(a);
      this.entries.set(e.id, e);
      users.push(e);
    }
    users.sort((a, b) => a.id - b.id);
    for (const e of users) for (const p of this.sides[e.visibility].postingsOf(e, true)) p.push(e.id);
    for (const s of SIDES) this.sides[s].trim();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Adds or refreshes an account (users: searched; organizations: their visibility only). */
  upsert(a: IndexedAccount): void {
    if (a.type === 'org') {
      const v = visibilityOf(a);
      if (v === (this.hiddenOrgs.get(a.id) ?? 'public')) return;
      this.stale();
      if (v === 'public') this.hiddenOrgs.delete(a.id);
      else this.hiddenOrgs.set(a.id, v);
      return;
    }
    const next = entryOf(a);
    const prev = this.entries.get(a.id);
    if ((prev?.visibility ?? 'public') !== next.visibility) this.stale();
    if (prev && prev.lowerName === next.lowerName && prev.lowerFull === next.lowerFull && prev.visibility === next.visibility) return;
    if (prev) this.detach(prev);
    this.entries.set(next.id, next);
    for (const p of this.sides[next.visibility].postingsOf(next, true)) p.insert(next.id);
    for (const l of this.long.values()) if (textMatch(next, l.q)) l[next.visibility].insert(next.id);
  }

  remove(id: number): void {
    if (this.hiddenOrgs.delete(id)) this.stale();
    const prev = this.entries.get(id);
    if (!prev) return;
    if (prev.visibility !== 'public') this.stale();
    this.detach(prev);
    this.entries.delete(id);
  }

  private detach(e: UserEntry): void {
    for (const p of this.sides[e.visibility].postingsOf(e, false)) p.remove(e.id);
    for (const l of this.long.values()) l[e.visibility].remove(e.id);
  }

  /** The non-public answers are rebuilt when next asked (only a change of a non-public account, or to/from one). */
  private stale(): void {
    this.nonPublicAll = null;
    this.nonPublicShared = null;
  }

  /**
   * The non-public accounts as shared sets: the same objects until a non-public account comes, goes or changes
   * visibility (callers may derive and keep things per object). Rebuilt on the first call after such a change.
   */
  nonPublicSets(): NonPublicOwners {
    if (this.nonPublicShared) return this.nonPublicShared;
    const limited = new Set<number>();
    const hidden = new Set<number>();
    const all = new Set<number>();
    for (const row of this.nonPublic()) {
      (row.visibility === 'limited' ? limited : hidden).add(row.id);
      all.add(row.id);
    }
    this.nonPublicShared = Object.freeze({ limited, private: hidden, all });
    return this.nonPublicShared;
  }

  /** Accounts (users and organizations) that are not public, optionally among `ids` (all of them: one shared list). */
  nonPublic(ids?: readonly number[]): ReadonlyArray<{ id: number; type: 'user' | 'org'; visibility: AccountVisibility }> {
    const out: Array<{ id: number; type: 'user' | 'org'; visibility: AccountVisibility }> = [];
    const one = (id: number) => {
      const org = this.hiddenOrgs.get(id);
      if (org) return out.push({ id, type: 'org', visibility: org });
      const e = this.entries.get(id);
      if (e && e.visibility !== 'public') out.push({ id, type: 'user', visibility: e.visibility });
      return 0;
    };
    if (ids) {
      for (const id of new Set(ids)) one(id);
      return out;
    }
    if (this.nonPublicAll) return this.nonPublicAll;
    for (const [id, visibility] of this.hiddenOrgs) out.push({ id, type: 'org', visibility });
    for (const s of ['limited', 'private'] as const) {
      const p = this.sides[s].all;
      for (let i = 0; i < p.size; i++) out.push({ id: p.at(i), type: 'user', visibility: s });
    }
    this.nonPublicAll = Object.freeze(out.map((row) => Object.freeze(row)));
    return this.nonPublicAll;
  }

  /** The exact posting of a query on one side (empty query: every user of the side). */
  private posting(side: SideName, q: string): Posting | undefined {
    if (q === '') return this.sides[side].all;
    if (q.length <= MAX_GRAM) return this.sides[side].gram.get(q);
    return this.longPosting(q)[side];
  }

  private longPosting(q: string): LongPosting {
    const hit = this.long.get(q);
    if (hit) return hit;
    const build = (side: Side): Posting => {
      let best: Posting | undefined;
      let bestSize = Infinity;
      for (const g of trigramsOf(q)) {
        const size = side.gram.get(g)?.size ?? 0;
        if (size < bestSize) {
          best = side.gram.get(g);
          bestSize = size;
        }
      }
      const out = new Posting(byId);
      if (best) for (let i = 0; i < best.size; i++) {
        const id = best.at(i);
        if (textMatch(this.entries.get(id)!, q)) out.push(id);
      }
      out.trim();
      return out;
    };
    const made: LongPosting = { q, public: build(this.sides.public), limited: build(this.sides.limited), private: build(this.sides.private) };
    this.longBuilds++;
    this.long.set(q, made);
    return made;
  }

  /**
   * The ids of the first `n` users whose login or full name contains `q` (lower-cased; empty: every user), in id
   * order, and their exact total, among the accounts the caller sees: public ones; limited ones when signed in;
   * private ones for site admins, or those `seesPrivate` admits among the private matches.
   */
  async search(q: string, vis: UserVisibility, n: number): Promise<{ head: number[]; total: number }> {
    const sources: FilteredSource[] = [];
    let total = 0;
    const take = (p: Posting | undefined) => {
      if (!p || p.size === 0) return;
      total += p.size;
      sources.push({ size: p.size, at: (i) => p.at(i), accept: () => true });
    };
    take(this.posting('public', q));
    if (vis.limited) take(this.posting('limited', q));
    if (vis.privateAll) take(this.posting('private', q));
    else if (vis.seesPrivate) {
      const p = this.posting('private', q);
      if (p && p.size) {
        const ids: number[] = [];
        for (let i = 0; i < p.size; i++) ids.push(p.at(i));
        const visible = await vis.seesPrivate(ids);
        const seen = ids.filter((id) => visible.has(id));
        total += seen.length;
        const src = arraySource(seen);
        sources.push({ size: src.size, at: src.at, accept: () => true });
      }
    }
    return { head: mergeFiltered(sources, byId, n), total };
  }
}

function entryOf(a: IndexedAccount): UserEntry {
  return { id: a.id, lowerName: a.lowerName, lowerFull: (a.fullName ?? '').toLowerCase(), visibility: visibilityOf(a) };
}

function textMatch(e: UserEntry, q: string): boolean {
  return e.lowerName.includes(q) || e.lowerFull.includes(q);
}
