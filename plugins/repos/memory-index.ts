// The in-memory repository index behind `GET /repos/search` and the private-repository sets of lists.
//
// Every repository has one compact entry (id, owner, lower-cased name and description, flags, sort keys, topics),
// and posting lists (plugins/lib/postings.ts) kept in result order — name order, ties by id — per visibility side
// (public, private): one per name gram (1..3 characters, plugins/lib/grams.ts), per description-only gram, per
// owner, per topic, per flag (fork, mirror, archived, template), and one of everything. A page is a merge of the
// right postings that stops after `skip + limit` accepted ids; a total is a posting size (plus the caller's few
// readable private repositories) or a walk of the smallest posting involved. Queries longer than a gram are
// answered by an exact posting of the query itself, built once from its rarest trigram's posting by a substring
// check on the in-memory names, and kept (bounded, least recently used first out) and maintained on every change.
// Built from the store at start; every change of a repository goes through the Repos service, which updates it
// before the request that made the change is answered. One process owns a store (as the other in-process caches).
import type { RepoRecord } from '../../schemas/services.js';
import { lookupGrams, MAX_GRAM, trigramsOf } from '../lib/grams.js';
import { Minus, type IdSet } from './access.js';
import { arraySource, countAccepted, mergeFiltered, mergeHead, Posting, type IdOrder, type OrderedIds } from '../lib/postings.js';

export interface Entry {
  id: number;
  ownerId: number;
  lowerName: string;
  lowerDesc: string;
  private: boolean;
  fork: boolean;
  mirror: boolean;
  archived: boolean;
  template: boolean;
  created: number;
  updated: number;
  size: number;
  stars: number;
  forks: number;
  topics: readonly string[];
}

export type Flag = 'fork' | 'mirror' | 'archived' | 'template';

/** The orders other than by name: a number of the entry, ties by id. */
export type SortKey = 'created' | 'updated' | 'size' | 'id' | 'stars' | 'forks';
const SORT_KEYS: Record<SortKey, (e: Entry) => number> = {
  created: (e) => e.created,
  updated: (e) => e.updated,
  size: (e) => e.size,
  id: (e) => e.id,
  stars: (e) => e.stars,
  forks: (e) => e.forks,
};
/**
 * Past this many matches a sorted page always walks the kept order (sorting them would cost more than any walk);
 * below it, it walks only when the walk is expected to read at most `SORT_WALK_PER_MATCH` entries per match.
 */
const SORT_COLLECT_MIN = 4096;
const SORT_WALK_PER_MATCH = 4;
const FLAGS: readonly Flag[] = ['fork', 'mirror', 'archived', 'template'];

export function entryOf(r: RepoRecord): Entry {
  return {
    id: r.id,
    ownerId: r.ownerId,
    lowerName: r.lowerName,
    lowerDesc: typeof r.description === 'string' ? r.description.toLowerCase() : '',
    private: r.private === true,
    fork: r.fork === true,
    mirror: r.mirror === true,
    archived: r.archived === true,
    template: r.template === true,
    created: Date.parse(r.createdAt) || 0,
    updated: Date.parse(r.updatedAt) || 0,
    size: typeof r.size === 'number' ? r.size : 0,
    stars: typeof r.numStars === 'number' ? r.numStars : 0,
    forks: typeof r.numForks === 'number' ? r.numForks : 0,
    topics: Array.isArray(r.topics) ? (r.topics as unknown[]).filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase()) : [],
  };
}

/**
 * The distinct 1..3-grams of a lower-cased text, as plain strings: they only key the posting maps (the store's gram
 * engine internalizes its grams for the store's array test; here that would be most of the start-up time).
 */
function gramsOf(text: string): string[] {
  const out = new Set<string>();
  for (let n = 1; n <= MAX_GRAM; n++) for (let i = 0; i + n <= text.length; i++) out.add(text.slice(i, i + n));
  return [...out];
}

/** Fields whose change moves an entry between postings. */
function sameIndexing(a: Entry, b: Entry): boolean {
  return a.ownerId === b.ownerId && a.lowerName === b.lowerName && a.lowerDesc === b.lowerDesc && a.private === b.private
    && a.fork === b.fork && a.mirror === b.mirror && a.archived === b.archived && a.template === b.template
    && a.topics.length === b.topics.length && a.topics.every((t, i) => t === b.topics[i]);
}

/** One visibility side's postings. */
class Side {
  readonly all: Posting;
  readonly name = new Map<string, Posting>();
  /** Grams of the description that the name lacks: with `name`, a disjoint split of "name or description". */
  readonly descOnly = new Map<string, Posting>();
  readonly owner = new Map<number, Posting>();
  readonly topic = new Map<string, Posting>();
  readonly flag: Record<Flag, Posting>;

  constructor(private readonly order: IdOrder) {
    this.all = new Posting(order);
    this.flag = { fork: new Posting(order), mirror: new Posting(order), archived: new Posting(order), template: new Posting(order) };
  }

  private of<K>(map: Map<K, Posting>, key: K): Posting {
    let p = map.get(key);
    if (!p) map.set(key, (p = new Posting(this.order)));
    return p;
  }

  /** Every posting the entry belongs to. */
  postingsOf(e: Entry, create: boolean): Posting[] {
    const get = <K>(map: Map<K, Posting>, key: K) => (create ? this.of(map, key) : map.get(key));
    const out: Array<Posting | undefined> = [this.all, get(this.owner, e.ownerId)];
    const nameGrams = gramsOf(e.lowerName);
    for (const g of nameGrams) out.push(get(this.name, g));
    if (e.lowerDesc) {
      const own = new Set(nameGrams);
      for (const g of gramsOf(e.lowerDesc)) if (!own.has(g)) out.push(get(this.descOnly, g));
    }
    for (const t of new Set(e.topics)) out.push(get(this.topic, t));
    for (const f of FLAGS) if (e[f]) out.push(this.flag[f]);
    return out.filter((p): p is Posting => p !== undefined);
  }

  trim(): void {
    for (const map of [this.name, this.descOnly, this.owner, this.topic] as Array<Map<unknown, Posting>>) for (const p of map.values()) p.trim();
  }
}

/** What a search asks for, besides visibility. Every present constraint must hold. */
export interface IndexQuery {
  /** Lower-cased, non-empty: a substring of the name (or of the description too with `desc`). */
  text?: { q: string; desc: boolean };
  /** Lower-cased topic the repository must carry (Gitea's `topic=true`). */
  topic?: string;
  /** The owner must be one of these. */
  owners?: readonly number[];
  /** The repository must be one of these. */
  ids?: ReadonlySet<number>;
  /** Owners excluded (`priority_owner_id`'s second part). */
  notOwner?: number;
  /** Owners excluded as a set (the public side of owners the caller may not see: limited/private accounts). */
  notOwners?: IdSet;
  flags?: Partial<Record<Flag, boolean>>;
}

/** A source of candidates in result order and whether it is exactly the constraint's matches. */
interface Source {
  parts: OrderedIds[];
  size: number;
  exact: boolean;
}

/** Long-query postings kept at most (each maintained on every change). */
const LONG_QUERIES_MAX = 2048;

export class RepoIndex {
  readonly entries = new Map<number, Entry>();
  readonly order: IdOrder = (a, b) => {
    const x = this.entries.get(a)!.lowerName;
    const y = this.entries.get(b)!.lowerName;
    return x < y ? -1 : x > y ? 1 : a - b;
  };
  /** Name order backwards (names descending, ties by id descending). */
  private readonly reverseOrder: IdOrder = (a, b) => this.order(b, a);
  private pub = new Side(this.order);
  private priv = new Side(this.order);
  /** Exact postings of queries longer than a gram, per family (`n` name, `a` name or description) and side. */
  private readonly long = new Map<string, { key: string; q: string; desc: boolean; pub: Posting; priv: Posting }>();
  /** Long-query postings built (a test and the benchmark read it). */
  longBuilds = 0;
  /**
   * Every entry in one sort's order (key, ties by id), built when that sort is first asked for a large answer and
   * kept in step with every change: an entry leaves its place before a sort key changes and comes back after.
   */
  private readonly orders = new Map<SortKey, Posting>();
  /** Scratch marks by id for a sorted walk (sorted pages run synchronously, one at a time): cleared after each use. */
  private marks = new Uint8Array(0);
  /**
   * How sorted pages are planned: by cost (`auto`), or one plan always (tests compare them). `collect` is also the
   * reference for search.ts: name order backwards and `priority_owner_id` then collect and sort every match.
   */
  sortPlan: 'auto' | 'walk' | 'collect' = 'auto';

  /** Bulk load (start): the records sorted once, every posting filled by appending in order. */
  load(records: Iterable<RepoRecord>): void {
    this.entries.clear();
    this.long.clear();
    this.orders.clear();
    this.ownerGen++;
    this.pub = new Side(this.order);
    this.priv = new Side(this.order);
    const all: Entry[] = [];
    for (const r of records) {
      const e = entryOf(r);
      this.entries.set(e.id, e);
      all.push(e);
    }
    all.sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
    for (const e of all) for (const p of this.side(e).postingsOf(e, true)) p.push(e.id);
    this.pub.trim();
    this.priv.trim();
  }

  get size(): number {
    return this.entries.size;
  }

  private side(e: Entry): Side {
    return e.private ? this.priv : this.pub;
  }

  /** Adds or refreshes a repository (a no-op for what did not change). */
  upsert(record: RepoRecord): void {
    const next = entryOf(record);
    const prev = this.entries.get(record.id);
    if (prev && sameIndexing(prev, next)) {
      this.unorder(prev.id);
      Object.assign(prev, { created: next.created, updated: next.updated, size: next.size, stars: next.stars, forks: next.forks });
      this.reorder(prev.id);
      return;
    }
    if (prev) this.detach(prev);
    this.entries.set(next.id, next);
    this.reorder(next.id);
    if (!this.side(next).owner.get(next.ownerId)?.size) this.ownerGen++;
    for (const p of this.side(next).postingsOf(next, true)) p.insert(next.id);
    for (const l of this.long.values()) if (this.textMatch(next, l.q, l.desc)) (next.private ? l.priv : l.pub).insert(next.id);
  }

  remove(id: number): void {
    const prev = this.entries.get(id);
    if (!prev) return;
    this.detach(prev);
    this.entries.delete(id);
  }

  /** Takes an entry out of the kept sort orders (before a sort key of it changes, or it goes). */
  private unorder(id: number): void {
    for (const o of this.orders.values()) o.remove(id);
  }

  /** Puts an entry back into the kept sort orders (after its sort keys changed, or it came). */
  private reorder(id: number): void {
    for (const o of this.orders.values()) o.insert(id);
  }

  private sortOrder(key: SortKey): Posting {
    let o = this.orders.get(key);
    if (o) return o;
    const k = SORT_KEYS[key];
    const cmp: IdOrder = (a, b) => {
      const x = this.entries.get(a)!;
      const y = this.entries.get(b)!;
      return k(x) - k(y) || a - b;
    };
    o = new Posting(cmp, this.entries.size + 16);
    const all = [...this.entries.values()].sort((x, y) => k(x) - k(y) || x.id - y.id);
    for (const e of all) o.push(e.id);
    this.orders.set(key, o);
    return o;
  }

  /**
   * The first `n` matches in a sort's order (ascending or descending; ties by id in the same direction) and the
   * exact total. Few matches, or a page deep in relation to them: they are collected and sorted. Many:
   * the whole index is walked in the sort's order and each entry checked until the page is full — bounded by the
   * page and the share of matches, not by their number.
   */
  sorted(query: IndexQuery, vis: Visibility, key: SortKey, desc: boolean, n: number): { head: number[]; total: number } {
    const { total } = this.search(query, vis, 0);
    if (n <= 0 || total === 0) return { head: [], total };
    const k = SORT_KEYS[key];
    const collect = (): { head: number[]; total: number } => {
      const matches = this.all(query, vis).map((id) => this.entries.get(id)!);
      const dir = desc ? -1 : 1;
      matches.sort((a, b) => ((k(a) - k(b)) || (a.id - b.id)) * dir);
      return { head: matches.slice(0, n).map((e) => e.id), total };
    };
    // A walk reads about n × size ÷ total entries (matches spread over the order); sorting reads every match and
    // compares each about log2(total) times. Walk when that is cheaper, within a budget: matches bunched at the far
    // end of the order (names that follow creation) end the walk early and the matches are sorted after all.
    if (this.sortPlan === 'collect') return collect();
    const budget = this.sortPlan === 'walk' ? Infinity : SORT_WALK_PER_MATCH * total;
    if (this.sortPlan === 'auto' && total <= SORT_COLLECT_MIN && (n * this.entries.size) / total > budget) return collect();
    const order = this.sortOrder(key);
    const readable = vis.privateAll ? null : new Set(vis.privateIds ?? []);
    const pub = publicQuery(query, vis);
    const granted = vis.grantedPublicIds?.length ? new Set(vis.grantedPublicIds) : null;
    // With a text query, its exact postings' ids are marked first when that is cheaper than checking every entry
    // walked (a mark is read for a byte; a check reads the entry and its name): the walk then checks marked ones only.
    const marked: Posting[] = [];
    if (query.text) {
      const sides: Array<'pub' | 'priv'> = ['pub', 'priv'];
      const parts = sides.flatMap((side) => this.textSource(side, query.text!.q, query.text!.desc).parts as Posting[]);
      const size = parts.reduce((m, p) => m + p.size, 0);
      if (size <= 8 * Math.min(order.size, (n * this.entries.size) / total)) marked.push(...parts);
    }
    if (marked.length) {
      let max = 0;
      for (const p of marked) for (let i = 0; i < p.size; i++) if (p.at(i) > max) max = p.at(i);
      if (this.marks.length <= max) this.marks = new Uint8Array(Math.max(max + 1, this.marks.length * 2));
      for (const p of marked) for (let i = 0; i < p.size; i++) this.marks[p.at(i)] = 1;
    }
    try {
      return { head: this.walk(order, desc, n, marked.length > 0, budget, (id, e) => (e.private
        ? (readable === null || readable.has(id)) && this.matches(e, query)
        : vis.public && (this.matches(e, pub) || (granted !== null && granted.has(id) && this.matches(e, query))))) ?? collect().head, total };
    } finally {
      for (const p of marked) for (let i = 0; i < p.size; i++) this.marks[p.at(i)] = 0;
    }
  }

  /** The first `n` accepted ids of a kept order (null when the walk went past its budget). */
  private walk(order: Posting, desc: boolean, n: number, onlyMarked: boolean, budget: number, accept: (id: number, e: Entry) => boolean): number[] | null {
    const head: number[] = [];
    for (let i = 0; i < order.size && head.length < n; i++) {
      if (i > budget + n) return null;
      const id = order.at(desc ? order.size - 1 - i : i);
      if (onlyMarked && this.marks[id] !== 1) continue;
      if (accept(id, this.entries.get(id)!)) head.push(id);
    }
    return head;
  }

  /** Sort keys that change without touching postings (counters, size, update time). */
  patch(id: number, fields: Partial<Pick<Entry, 'size' | 'stars' | 'forks' | 'updated'>>): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.unorder(id);
    Object.assign(e, fields);
    this.reorder(id);
  }

  /** Adds to a counter kept for sorting. */
  bump(id: number, field: 'stars' | 'forks', delta: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.unorder(id);
    e[field] += delta;
    this.reorder(id);
  }

  private detach(e: Entry): void {
    // Removal searches by the entry's order, so the entry stays in `entries` until its ids are out.
    this.unorder(e.id);
    for (const p of this.side(e).postingsOf(e, false)) p.remove(e.id);
    for (const l of this.long.values()) (e.private ? l.priv : l.pub).remove(e.id);
  }

  textMatch(e: Entry, q: string, desc: boolean): boolean {
    return e.lowerName.includes(q) || (desc && e.lowerDesc.includes(q));
  }

  // ---- query planning ----

  /** The exact postings of a text query on one side: the gram's own for short queries, a kept one for longer ones. */
  private textSource(side: 'pub' | 'priv', q: string, desc: boolean): Source {
    if (q.length <= MAX_GRAM) {
      const s = side === 'pub' ? this.pub : this.priv;
      const parts = [s.name.get(q), desc ? s.descOnly.get(q) : undefined].filter((p): p is Posting => p !== undefined);
      return { parts, size: parts.reduce((n, p) => n + p.size, 0), exact: true };
    }
    const l = this.longPosting(q, desc);
    const p = side === 'pub' ? l.pub : l.priv;
    return { parts: [p], size: p.size, exact: true };
  }

  /** The kept exact posting of a long query, built from its rarest trigram's postings when first asked. */
  private longPosting(q: string, desc: boolean): { pub: Posting; priv: Posting } {
    const key = `${desc ? 'a' : 'n'}\u0000${q}`;
    const hit = this.long.get(key);
    if (hit) {
      // Most recently used last: the first key is the one to drop.
      this.long.delete(key);
      this.long.set(key, hit);
      return hit;
    }
    const build = (s: Side): Posting => {
      let best: Posting[] | null = null;
      let bestSize = Infinity;
      for (const g of trigramsOf(q)) {
        const parts = [s.name.get(g), desc ? s.descOnly.get(g) : undefined].filter((p): p is Posting => p !== undefined);
        const size = parts.reduce((n, p) => n + p.size, 0);
        if (size < bestSize) {
          best = parts;
          bestSize = size;
        }
      }
      const out = new Posting(this.order);
      if (!best || bestSize === 0) return out;
      // The candidates' union in order (the parts are disjoint), kept when the text really contains q.
      for (const id of mergeHead(best, this.order, Infinity, (id) => this.textMatch(this.entries.get(id)!, q, desc))) out.push(id);
      out.trim();
      return out;
    };
    const made = { key, q, desc, pub: build(this.pub), priv: build(this.priv) };
    this.longBuilds++;
    this.long.set(key, made);
    if (this.long.size > LONG_QUERIES_MAX) this.long.delete(this.long.keys().next().value!);
    return made;
  }

  /** The candidate sources of every positive constraint, on one side. */
  private sources(side: 'pub' | 'priv', query: IndexQuery): Source[] {
    const s = side === 'pub' ? this.pub : this.priv;
    const out: Source[] = [];
    if (query.text) out.push(this.textSource(side, query.text.q, query.text.desc));
    if (query.topic !== undefined) {
      const p = s.topic.get(query.topic);
      out.push({ parts: p ? [p] : [], size: p?.size ?? 0, exact: true });
    }
    if (query.owners) {
      const parts = [...new Set(query.owners)].map((o) => s.owner.get(o)).filter((p): p is Posting => p !== undefined);
      out.push({ parts, size: parts.reduce((n, p) => n + p.size, 0), exact: true });
    }
    if (query.ids) {
      const ids = [...query.ids].filter((id) => {
        const e = this.entries.get(id);
        return e !== undefined && e.private === (side === 'priv');
      }).sort(this.order);
      out.push({ parts: [arraySource(ids)], size: ids.length, exact: true });
    }
    for (const f of FLAGS) if (query.flags?.[f] === true) out.push({ parts: [s.flag[f]], size: s.flag[f].size, exact: true });
    return out;
  }

  /** Whether an entry meets every constraint of the query. */
  matches(e: Entry, query: IndexQuery): boolean {
    if (query.text && !this.textMatch(e, query.text.q, query.text.desc)) return false;
    if (query.topic !== undefined && !e.topics.includes(query.topic)) return false;
    if (query.owners && !query.owners.includes(e.ownerId)) return false;
    if (query.ids && !query.ids.has(e.id)) return false;
    if (query.notOwner !== undefined && e.ownerId === query.notOwner) return false;
    if (query.notOwners?.has(e.ownerId)) return false;
    if (query.flags) for (const f of FLAGS) if (query.flags[f] !== undefined && e[f] !== query.flags[f]) return false;
    return true;
  }

  /**
   * One side's matches: the smallest positive source drives (every side's `all` when there is none), and the
   * count is a posting size when the driver is the only constraint or the others only exclude flags whose
   * postings are small (the count is then the size minus the excluded ones, walked from those postings).
   */
  private plan(side: 'pub' | 'priv', query: IndexQuery): { driver: Source; accept: (id: number) => boolean; count: () => number } {
    const s = side === 'pub' ? this.pub : this.priv;
    const sources = this.sources(side, query);
    const all: Source = { parts: [s.all], size: s.all.size, exact: true };
    let driver = all;
    let positives = 0;
    for (const src of sources) {
      positives++;
      if (driver === all || src.size < driver.size) driver = src;
    }
    const accept = (id: number) => this.matches(this.entries.get(id)!, query);
    const walk = () => driver.parts.reduce((n, p) => n + countAccepted(p, accept), 0);
    const count = (): number => {
      if (driver.size === 0) return 0;
      if (positives > 1) return walk();
      // The other constraints only exclude (flags set false, hidden or de-prioritised owners): the count is the
      // driver's size minus its members among the excluded postings, when those are the smaller walk.
      const excluded = FLAGS.filter((f) => query.flags?.[f] === false);
      // Excluded owners: only those with repositories on this side matter (hidden owners: a list kept per shared set).
      const owners = query.notOwners ? this.ownersWithRepos(side, query.notOwners) : [];
      if (query.notOwner !== undefined) owners.push(query.notOwner);
      if (excluded.length === 0 && owners.length === 0) return driver.size;
      const ownerPostings = [...new Set(owners)].map((o) => s.owner.get(o)).filter((p): p is Posting => p !== undefined);
      const excludedWalk = excluded.reduce((n, f) => n + s.flag[f].size, 0) + ownerPostings.reduce((n, p) => n + p.size, 0);
      if (excludedWalk >= driver.size) return walk();
      const inDriver = (e: Entry) => {
        if (query.text && !this.textMatch(e, query.text.q, query.text.desc)) return false;
        if (query.topic !== undefined && !e.topics.includes(query.topic)) return false;
        if (query.owners && !query.owners.includes(e.ownerId)) return false;
        if (query.ids && !query.ids.has(e.id)) return false;
        return true;
      };
      let out = 0;
      excluded.forEach((f, i) => {
        const p = s.flag[f];
        for (let j = 0; j < p.size; j++) {
          const e = this.entries.get(p.at(j))!;
          // Counted once: under the first excluded flag it carries.
          let before = false;
          for (let k = 0; k < i; k++) if (e[excluded[k]!]) before = true;
          if (!before && inDriver(e)) out++;
        }
      });
      // Owners' postings are disjoint from each other; a repository already counted under a flag is skipped.
      for (const p of ownerPostings) {
        for (let j = 0; j < p.size; j++) {
          const e = this.entries.get(p.at(j))!;
          if (excluded.some((f) => e[f])) continue;
          if (inDriver(e)) out++;
        }
      }
      return driver.size - out;
    };
    return { driver, accept, count };
  }

  /**
   * The owners of `set` that own repositories on a side (a new array). For a shared set (the non-public accounts) the
   * answer is kept until an owner gets its first repository on that side, so a request pays for the hidden owners that
   * own something, not for every hidden account; a caller's `Minus` of a shared set filters the kept answer.
   */
  private ownersWithRepos(side: 'pub' | 'priv', set: IdSet): number[] {
    if (set instanceof Minus) return this.ownersWithRepos(side, set.base).filter((o) => !set.except.has(o));
    const s = side === 'pub' ? this.pub : this.priv;
    const key = set as object;
    const kept = this.ownersKept.get(key);
    if (kept && kept.gen === this.ownerGen && kept.side === side) return [...kept.owners];
    const owners: number[] = [];
    for (const o of set) if (s.owner.get(o)?.size) owners.push(o);
    this.ownersKept.set(key, { gen: this.ownerGen, side, owners });
    return [...owners];
  }

  /** `ownersWithRepos` answers by set; `ownerGen` counts owners' first repositories on a side (answers older are stale). */
  private readonly ownersKept = new WeakMap<object, { gen: number; side: 'pub' | 'priv'; owners: number[] }>();
  private ownerGen = 0;

  /**
   * The first `n` matches (name order, or backwards with `desc`) and the exact total, over the public side, plus the private side for
   * `privateAll` (site admins) or the given readable private ids (anyone else: a small set).
   */
  search(query: IndexQuery, vis: Visibility, n: number, desc = false): { head: number[]; total: number } {
    const parts: OrderedIds[] = [];
    const accepts: Array<(id: number) => boolean> = [];
    let total = 0;
    if (vis.public) {
      const p = this.plan('pub', publicQuery(query, vis));
      total += p.count();
      for (const part of p.driver.parts) {
        parts.push(part);
        accepts.push(p.accept);
      }
    }
    if (vis.privateAll) {
      const p = this.plan('priv', query);
      total += p.count();
      for (const part of p.driver.parts) {
        parts.push(part);
        accepts.push(p.accept);
      }
    } else if (vis.privateIds && vis.privateIds.length) {
      const mine = vis.privateIds.filter((id) => {
        const e = this.entries.get(id);
        return e !== undefined && e.private && this.matches(e, query);
      }).sort(this.order);
      total += mine.length;
      parts.push(arraySource(mine));
      accepts.push(() => true);
    }
    if (vis.public && vis.grantedPublicIds?.length) {
      const granted = this.grantedPublic(query, vis.grantedPublicIds).sort(this.order);
      total += granted.length;
      parts.push(arraySource(granted));
      accepts.push(() => true);
    }
    // Each part carries its own side's check: a merge over (part, accept) pairs; descending, each part from its end.
    const tagged = parts.map((p, i) => ({ size: p.size, at: desc ? (j: number) => p.at(p.size - 1 - j) : p.at.bind(p), accept: accepts[i]! }));
    const head = mergeFiltered(tagged, desc ? this.reverseOrder : this.order, n);
    return { head, total };
  }

  /** Every match (for orders other than by name): the driver postings walked whole. */
  all(query: IndexQuery, vis: Visibility): number[] {
    const out: number[] = [];
    const sides: Array<'pub' | 'priv'> = [];
    if (vis.public) sides.push('pub');
    if (vis.privateAll) sides.push('priv');
    for (const side of sides) {
      const p = this.plan(side, side === 'pub' ? publicQuery(query, vis) : query);
      for (const part of p.driver.parts) for (let i = 0; i < part.size; i++) if (p.accept(part.at(i))) out.push(part.at(i));
    }
    if (!vis.privateAll && vis.privateIds) {
      for (const id of vis.privateIds) {
        const e = this.entries.get(id);
        if (e && e.private && this.matches(e, query)) out.push(id);
      }
    }
    if (vis.public && vis.grantedPublicIds?.length) out.push(...this.grantedPublic(query, vis.grantedPublicIds));
    return out;
  }

  /** The public repositories among `ids` that match (the caller's grants outside the public side). */
  private grantedPublic(query: IndexQuery, ids: readonly number[]): number[] {
    return ids.filter((id) => {
      const e = this.entries.get(id);
      return e !== undefined && !e.private && this.matches(e, query);
    });
  }

  /** The private repositories of these owners (ids), for the caller's private sets. */
  privateOf(ownerId: number): number[] {
    const p = this.priv.owner.get(ownerId);
    const out: number[] = [];
    if (p) for (let i = 0; i < p.size; i++) out.push(p.at(i));
    return out;
  }

  /** Bytes held by the postings (reporting). */
  get postingBytes(): number {
    let n = 0;
    for (const s of [this.pub, this.priv]) {
      n += s.all.bytes;
      for (const map of [s.name, s.descOnly, s.owner, s.topic] as Array<Map<unknown, Posting>>) for (const p of map.values()) n += p.bytes;
      for (const f of FLAGS) n += s.flag[f].bytes;
    }
    for (const l of this.long.values()) n += l.pub.bytes + l.priv.bytes;
    return n;
  }
}

/**
 * The query of the public side: without the repositories of owners hidden from the caller, and only those of
 * `publicOwners` when that is set (a restricted caller: its own account and organizations whose every repository it
 * reads), through their owner postings.
 */
function publicQuery(query: IndexQuery, vis: Visibility): IndexQuery {
  let q = vis.hiddenOwners?.size ? { ...query, notOwners: vis.hiddenOwners } : query;
  if (vis.publicOwners) {
    const allowed = new Set(vis.publicOwners);
    q = { ...q, owners: query.owners ? query.owners.filter((o) => allowed.has(o)) : [...allowed] };
  }
  return q;
}

export interface Visibility {
  /** Public repositories are in scope (false for `is_private=true`). */
  public: boolean;
  /**
   * Owners whose public repositories the caller may not see (limited accounts for anonymous callers, private ones
   * for non-members: Gitea's HasOrgOrUserVisible). Absent or empty: none.
   */
  hiddenOwners?: IdSet;
  /** Every private repository (a site admin's search). */
  privateAll: boolean;
  /** Otherwise: the private repositories the caller reads (absent or empty: none). */
  privateIds?: readonly number[];
  /**
   * The public side holds only these owners' repositories (a restricted caller, which reads no public repository by
   * itself). Absent: every owner not hidden.
   */
  publicOwners?: readonly number[];
  /**
   * Public repositories outside the public side that the caller reads by a grant (a collaboration or team on a hidden
   * owner's repository; any grant of a restricted caller beyond `publicOwners`): disjoint from the public side.
   */
  grantedPublicIds?: readonly number[];
}

export { lookupGrams };
