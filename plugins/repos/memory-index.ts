// The in-memory repository index behind `GET /repos/search` and the private-repository sets of lists.
//
// Every repository has one compact entry (id, owner, lower-cased name and description, flags, sort keys, topics),
// and posting lists (plugins/lib/postings.ts) kept in result order — name order, ties by id — per visibility side
// (public, private): one per name gram (1..3 characters, plugins/lib/grams.ts), per description-only gram, per
// owner, per topic, per flag (fork, mirror, archived, template), and one of everything. A page is a merge of the
// right postings that stops after `skip + limit` accepted ids. Every posting counts its ids per flag combination, so a
// total is a sum of counters of the posting that is exactly the query's other constraints (flag filters included),
// less excluded owners counted the same way, or else a walk of the smallest posting involved. Owners with many
// repositories on a side keep their own name-gram postings there (`q` + owner is then a posting of its own).
// Queries longer than a gram are answered by an exact posting of the query itself, built once from its rarest
// trigram's posting (narrowed by the second rarest) by a substring check on the in-memory names, and kept
// (bounded, least recently used first out) and maintained on every change.
// Built from the store at start; every change of a repository goes through the Repos service, which updates it
// before the request that made the change is answered. One process owns a store (as the other in-process caches).
import type { RepoRecord } from '../../schemas/services.js';
import { lookupGrams, MAX_GRAM, trigramsOf } from '../lib/grams.js';
import { Lru } from '../lib/lru.js';
import { topPositions } from '../lib/top-n.js';
import { Minus, type IdSet } from './access.js';
import { acceptedOf, arraySource, mergeFiltered, mergeHead, KeptOrder, Posting, TaggedPosting, type IdOrder, type OrderedIds, type Tagging } from '../lib/postings.js';

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
  /** Creation and last update, seconds since the epoch (the API's times have whole seconds; `topPositions` packs them). */
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
export const SORT_KEYS: Record<SortKey, (e: Entry) => number> = {
  created: (e) => e.created,
  updated: (e) => e.updated,
  size: (e) => e.size,
  id: (e) => e.id,
  stars: (e) => e.stars,
  forks: (e) => e.forks,
};
/**
 * Past this many matches a sorted page always walks the kept order (collecting them would cost more than any walk);
 * below it, it walks only when the walk is expected to read at most this many entries per match: a walk step of a
 * text query reads one mark (~5 ns), collecting reads and checks a match and keeps the page's best (~50–110 ns
 * before the fifteenth session; ~45 ns since, for an anonymous search's 1,222 matches: the crossing is still at
 * 10–12 steps per match; 6 made that search collect and cost 55 µs more over HTTP); without text every step checks
 * its entry.
 */
const SORT_COLLECT_MIN = 4096;
const SORT_WALK_PER_MATCH = 4;
const SORT_WALK_PER_MATCH_MARKED = 12;
const FLAGS: readonly Flag[] = ['fork', 'mirror', 'archived', 'template'];
/** An entry's flags as bits (FLAGS order): the tag its postings count it by. */
function flagBits(e: Entry): number {
  return (e.fork ? 1 : 0) | (e.mirror ? 2 : 0) | (e.archived ? 4 : 0) | (e.template ? 8 : 0);
}
/** The flag bits a query's flags test for (care) and the values they must have. */
function flagTest(flags: IndexQuery['flags']): (bits: number) => boolean {
  let care = 0;
  let want = 0;
  FLAGS.forEach((f, i) => {
    if (flags?.[f] === undefined) return;
    care |= 1 << i;
    if (flags[f]) want |= 1 << i;
  });
  return (bits) => (bits & care) === want;
}
/**
 * An owner with at least this many repositories on a side also has its own name-gram postings there (kept like the
 * side's), so a text query of that owner (`uid`, a private side read by owner) is a posting of its own: its page a
 * walk that stops, its total counted per flag. A smaller owner's repositories are few enough to check one by one.
 * 512: an owner of 900 checked one by one (count and page) was ~120 µs of a 346 µs `uid` search; 256 doubled the
 * name-gram postings of datasets whose owners all hold 256–511 (bench/search-index.ts, "numbered series": 50 → 101 MB).
 */
export const BIG_OWNER = 512;

/** The check of a part whose ids were already accepted (a count walk's). */
const ACCEPT_ALL = (): boolean => true;

/** Appends the ids of `part` that `accept` takes (all of them, unchecked, for ACCEPT_ALL). */
function collectAccepted(part: OrderedIds, accept: (id: number) => boolean, out: number[]): void {
  const n = part.size;
  if (accept === ACCEPT_ALL) for (let i = 0; i < n; i++) out.push(part.at(i));
  else {
    for (let i = 0; i < n; i++) {
      const id = part.at(i);
      if (accept(id)) out.push(id);
    }
  }
}

/** An RFC 3339 time as seconds since the epoch (fractions kept, where a time has them), 0 when unreadable. */
export function secondsOf(time: unknown): number {
  return typeof time === 'string' ? (Date.parse(time) || 0) / 1000 : 0;
}

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
    created: secondsOf(r.createdAt),
    updated: secondsOf(r.updatedAt),
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

/** A number for an ASCII gram of 1..3 characters (length in the top bits), or -1 for any other. */
function gramCode(text: string, i: number, n: number): number {
  let code = n;
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(i + k);
    if (c >= 128) return -1;
    code = (code << 7) | c;
  }
  return code;
}

/** Fields whose change moves an entry between postings. */
function sameIndexing(a: Entry, b: Entry): boolean {
  return a.ownerId === b.ownerId && a.lowerName === b.lowerName && a.lowerDesc === b.lowerDesc && a.private === b.private
    && a.fork === b.fork && a.mirror === b.mirror && a.archived === b.archived && a.template === b.template
    && a.topics.length === b.topics.length && a.topics.every((t, i) => t === b.topics[i]);
}

/** One visibility side's postings, each counting its ids by flag bits. */
class Side {
  readonly all: TaggedPosting;
  readonly name = new Map<string, TaggedPosting>();
  /** Grams of the description that the name lacks: with `name`, a disjoint split of "name or description". */
  readonly descOnly = new Map<string, TaggedPosting>();
  readonly owner = new Map<number, TaggedPosting>();
  /** Name-gram postings of each owner with `BIG_OWNER` repositories or more on this side (once big, kept). */
  readonly ownerName = new Map<number, Map<string, TaggedPosting>>();
  /** Counts owners made big: the kept per-owner splits of long queries older than it are rebuilt. */
  bigGen = 0;
  readonly topic = new Map<string, TaggedPosting>();
  readonly flag: Record<Flag, TaggedPosting>;

  constructor(private readonly order: IdOrder, private readonly tagging: Tagging) {
    this.all = this.posting();
    this.flag = { fork: this.posting(), mirror: this.posting(), archived: this.posting(), template: this.posting() };
  }

  posting(): TaggedPosting {
    return new TaggedPosting(this.order, this.tagging);
  }

  private of<K>(map: Map<K, TaggedPosting>, key: K): TaggedPosting {
    let p = map.get(key);
    if (!p) map.set(key, (p = this.posting()));
    return p;
  }

  /** Every posting the entry belongs to. */
  postingsOf(e: Entry, create: boolean): TaggedPosting[] {
    const get = <K>(map: Map<K, TaggedPosting>, key: K) => (create ? this.of(map, key) : map.get(key));
    const out: Array<TaggedPosting | undefined> = [this.all, get(this.owner, e.ownerId)];
    const nameGrams = gramsOf(e.lowerName);
    for (const g of nameGrams) out.push(get(this.name, g));
    const own = this.ownerName.get(e.ownerId);
    if (own) for (const g of nameGrams) out.push(get(own, g));
    if (e.lowerDesc) {
      const own = new Set(nameGrams);
      for (const g of gramsOf(e.lowerDesc)) if (!own.has(g)) out.push(get(this.descOnly, g));
    }
    for (const t of new Set(e.topics)) out.push(get(this.topic, t));
    for (const f of FLAGS) if (e[f]) out.push(this.flag[f]);
    return out.filter((p): p is TaggedPosting => p !== undefined);
  }

  /**
   * Start-up form of `postingsOf(e, true)` followed by a push of `e.id` to each (the same postings, in load order): no
   * gram strings or sets per entry. An ASCII gram is looked up by a number (`gramCode`) in `codes` (one per map, kept
   * for the load only); a gram is pushed once per entry by checking the posting's last id. Owners are not big yet.
   */
  loadEntry(e: Entry, codes: { name: Map<number, TaggedPosting>; descOnly: Map<number, TaggedPosting> }): void {
    const id = e.id;
    const pushOnce = (p: TaggedPosting): void => {
      if (p.size === 0 || p.at(p.size - 1) !== id) p.push(id);
    };
    this.all.push(id);
    this.of(this.owner, e.ownerId).push(id);
    const name = e.lowerName;
    for (let n = 1; n <= MAX_GRAM; n++) {
      for (let i = 0; i + n <= name.length; i++) pushOnce(this.gram(this.name, codes.name, name, i, n, true)!);
    }
    const desc = e.lowerDesc;
    for (let n = 1; n <= MAX_GRAM; n++) {
      for (let i = 0; i + n <= desc.length; i++) {
        // A gram the name has: its name posting already ends with this entry.
        const inName = this.gram(this.name, codes.name, desc, i, n, false);
        if (inName && inName.size > 0 && inName.at(inName.size - 1) === id) continue;
        pushOnce(this.gram(this.descOnly, codes.descOnly, desc, i, n, true)!);
      }
    }
    for (const t of e.topics) pushOnce(this.of(this.topic, t));
    for (const f of FLAGS) if (e[f]) this.flag[f].push(id);
  }

  /** The posting of `text`'s gram at `i`, `n` long, in `map` (created when asked), through `codes` for ASCII grams. */
  private gram(map: Map<string, TaggedPosting>, codes: Map<number, TaggedPosting>, text: string, i: number, n: number, create: boolean): TaggedPosting | undefined {
    const code = gramCode(text, i, n);
    if (code >= 0) {
      let p = codes.get(code);
      if (p) return p;
      const g = text.slice(i, i + n);
      p = create ? this.of(map, g) : map.get(g);
      if (p) codes.set(code, p);
      return p;
    }
    const g = text.slice(i, i + n);
    return create ? this.of(map, g) : map.get(g);
  }

  /**
   * Makes an owner big on this side (its posting reached `BIG_OWNER`): its name-gram postings, filled from its posting
   * in order. Entries come later through `postingsOf`.
   */
  promote(ownerId: number, entries: Map<number, Entry>): void {
    if (this.ownerName.has(ownerId)) return;
    const own = new Map<string, TaggedPosting>();
    const p = this.owner.get(ownerId);
    if (p) for (let i = 0; i < p.size; i++) for (const g of gramsOf(entries.get(p.at(i))!.lowerName)) this.of(own, g).push(p.at(i));
    for (const gp of own.values()) gp.trim();
    this.ownerName.set(ownerId, own);
    this.bigGen++;
  }

  trim(): void {
    for (const map of [this.name, this.descOnly, this.owner, this.topic] as Array<Map<unknown, Posting>>) for (const p of map.values()) p.trim();
  }
}

/** One side of a long query's kept posting: its matches, and the split of them by big owner (as of `gen`). */
interface LongSide {
  all: TaggedPosting;
  byOwner: Map<number, TaggedPosting>;
  gen: number;
}

/** A shared empty posting (read only): a big owner with no match. */
const NO_IDS: OrderedIds & { count(accept: (tag: number) => boolean): number } = { size: 0, at: () => { throw new RangeError('empty'); }, count: () => 0 };

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

/** The positive constraints a query may have besides flags (bits of `Source.covers`). */
const TEXT = 1;
const TOPIC = 2;
const OWNERS = 4;
const IDS = 8;

/**
 * A source of candidates in result order: disjoint parts whose union holds every match. `covers`: the constraints
 * every id of it meets (the parts are exactly their matches); `counted`: each part counts its ids by flags.
 */
interface Source {
  parts: OrderedIds[];
  size: number;
  covers: number;
  counted: boolean;
}

/**
 * The checks per entry of what a query asks beyond what a source covering `covers` guarantees, but its excluded
 * owners (`notOwners`, see `residualCheck`). Exclusions and flags are never covered. One small closure per constraint
 * left (one general check reading query objects of many shapes was ~25 ns a call where these take a few).
 */
function residualChecks(query: IndexQuery, covers: number): Array<(e: Entry) => boolean> {
  const checks: Array<(e: Entry) => boolean> = [];
  const text = covers & TEXT ? undefined : query.text;
  if (text) {
    const q = text.q;
    checks.push(text.desc ? (e) => e.lowerName.includes(q) || e.lowerDesc.includes(q) : (e) => e.lowerName.includes(q));
  }
  const topic = covers & TOPIC ? undefined : query.topic;
  if (topic !== undefined) checks.push((e) => e.topics.includes(topic));
  const owners = covers & OWNERS ? undefined : query.owners;
  if (owners) checks.push((e) => owners.includes(e.ownerId));
  const ids = covers & IDS ? undefined : query.ids;
  if (ids) checks.push((e) => ids.has(e.id));
  const notOwner = query.notOwner;
  if (notOwner !== undefined) checks.push((e) => e.ownerId !== notOwner);
  if (query.flags && FLAGS.some((f) => query.flags![f] !== undefined)) {
    const flagsOk = flagTest(query.flags);
    checks.push((e) => flagsOk(flagBits(e)));
  }
  return checks;
}

/** Whether a character code is one of a lower-cased repository name's: `-` `.` `0`–`9` `_` `a`–`z`. */
function isNameChar(c: number): boolean {
  return c === 45 || c === 46 || (c >= 48 && c <= 57) || c === 95 || (c >= 97 && c <= 122);
}

/** `values`, or a copy at least twice as long when index `id` is past its end (arrays by id grow as ids come). */
function withRoom<A extends Uint8Array | Int32Array | Float64Array>(values: A, id: number): A {
  if (id < values.length) return values;
  const grown = new (values.constructor as new (n: number) => A)(Math.max(id + 1, values.length * 2));
  grown.set(values);
  return grown;
}

/**
 * Digits of `nameKey`, by character code below 128: the characters of repository names (`-` `.` `0`–`9` `_` `a`–`z`)
 * one each, in code order, and each run of other characters between them one digit (where a key stops). 0 ends a name.
 */
const NAME_DIGITS = (() => {
  const digits = new Uint8Array(128);
  let d = 0;
  let gap = false;
  for (let c = 0; c < 128; c++) {
    if (isNameChar(c)) {
      digits[c] = ++d;
      gap = false;
    } else {
      if (!gap) d++;
      digits[c] = d;
      gap = true;
    }
  }
  return digits;
})();
/** Digits in all (`NAME_DIGITS`' largest, for characters from 128 on, and the end): the base of a key. */
const NAME_BASE = 46;
/** Characters a key holds: NAME_BASE^9 is below 2^53, so a key is an exact number. */
const NAME_KEY_CHARS = 9;
/** Digit of the characters from 128 on (above every other). */
const NAME_HIGH = NAME_BASE - 1;

/**
 * A number that orders names as their first characters do: `nameKey(a) < nameKey(b)` only when `a < b` (code unit
 * order), equal keys say nothing. Each character is a digit in base NAME_BASE, a name's end 0; a character outside
 * the names' alphabet is its run's digit and ends the key (two such characters may differ), as does the ninth.
 */
export function nameKey(name: string): number {
  let k = 0;
  let i = 0;
  for (; i < NAME_KEY_CHARS && i < name.length; i++) {
    const c = name.charCodeAt(i);
    const d = c < 128 ? NAME_DIGITS[c]! : NAME_HIGH;
    k = k * NAME_BASE + d;
    if (!isNameChar(c)) {
      i++;
      break;
    }
  }
  for (; i < NAME_KEY_CHARS; i++) k *= NAME_BASE;
  return k;
}

/**
 * Whether what a query asks beyond a source covering `covers` is at most its owners (then its check reads an owner id
 * by the repository's id, not the entry).
 */
function ownersOnly(query: IndexQuery, covers: number): boolean {
  return (
    (query.text === undefined || (covers & TEXT) !== 0) &&
    (query.topic === undefined || (covers & TOPIC) !== 0) &&
    (query.ids === undefined || (covers & IDS) !== 0) &&
    query.notOwner === undefined &&
    (query.notOwners === undefined || query.notOwners.size === 0) &&
    !(query.flags && FLAGS.some((f) => query.flags![f] !== undefined))
  );
}

/**
 * The check per entry of what a query asks beyond what a source covering `covers` guarantees (null: nothing, every id
 * of the source matches). `excluded`: the query's `notOwners` as marks (`RepoIndex.excludedBy`), a byte read per
 * entry; null: the set itself is asked (a set of another kind).
 */
function residualCheck(query: IndexQuery, covers: number, excluded: ExcludedOwners | null): ((e: Entry) => boolean) | null {
  const checks = residualChecks(query, covers);
  const notOwners = query.notOwners;
  if (excluded !== null) {
    const { marks, except } = excluded;
    checks.push(except === null ? (e) => marks[e.id] === 0 : (e) => marks[e.id] === 0 || except.has(e.ownerId));
  } else if (notOwners && notOwners.size > 0) checks.push((e) => !notOwners.has(e.ownerId));
  return allOf(checks);
}

/**
 * What a query's exact source (`RepoIndex.exactSource`) covers, as a check of an entry: its text, topic and ids (the
 * owner is the one read when an owner's repositories are checked; flags are tested apart).
 */
function exactCheck(query: IndexQuery): ((e: Entry) => boolean) | null {
  return allOf(residualChecks({ text: query.text, topic: query.topic, ids: query.ids }, 0));
}

/** One check of several (null: none). */
function allOf(checks: Array<(e: Entry) => boolean>): ((e: Entry) => boolean) | null {
  if (checks.length === 0) return null;
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [first, second] = checks as [(e: Entry) => boolean, (e: Entry) => boolean];
    return (e) => first(e) && second(e);
  }
  return (e) => checks.every((check) => check(e));
}

/**
 * A query of the planner's one shape: every field present (undefined when not asked), always in this order, so the
 * planner's reads meet one hidden class and a changed copy is a construction, not an object spread (a spread of the
 * handler's queries, built field by field in many shapes, took 0.3–2 µs; this takes tens of ns).
 */
export function shapedQuery(q: IndexQuery): IndexQuery {
  return queryWith(q, q.owners, q.notOwner, q.notOwners);
}

/** `q` with these owners and exclusions (each given: undefined means none, not q's). */
export function queryWith(q: IndexQuery, owners: readonly number[] | undefined, notOwner: number | undefined, notOwners: IdSet | undefined): IndexQuery {
  return { text: q.text, topic: q.topic, owners, ids: q.ids, notOwner, notOwners, flags: q.flags };
}

function sourceOf(parts: Array<TaggedPosting | typeof NO_IDS | undefined>, covers: number): Source {
  const ps = parts.filter((p): p is TaggedPosting => p !== undefined);
  return { parts: ps, size: ps.reduce((n, p) => n + p.size, 0), covers, counted: true };
}

/** Long-query postings kept at most (each maintained on every change). */
const LONG_QUERIES_MAX = 2048;

/**
 * Excluded-owner sets marked at most. The sets a search excludes are the shared non-public accounts (all of them for
 * anonymous callers, the private ones for the signed-in), each made anew when an account's visibility changes: one or
 * two are live at a time.
 */
const OWNER_MARKS_MAX = 4;

/**
 * What counting one excluded owner's matches costs beyond its ids, in ids read: finding its posting and a call. (A
 * plan per owner, as this was, cost ~3 µs, 192 ids read; reading the owner's entries directly needs none.)
 */
const OWNER_READ_COST = 4;

/**
 * What checking a driver's id costs when it reads the entry (a text or topic check: a cache miss and a string search)
 * against reading an owner id from a typed array — an estimate, not a fit. It decides cases like a signed-in owner's
 * search, private side: its 108 repositories each read for `so`, or the text's 135 private matches each checked for
 * the owner (bench/RESULTS.md, thirty-first session: the second is faster).
 */
const ENTRY_CHECK_COST = 8;

/**
 * Below this many ids of the exact source per excluded owner (with repositories on the side), a count reads the ids'
 * marks rather than look at each owner: a mark is a byte read (a few ns), an owner's count a posting's or a read of its repositories.
 */
const MARK_READS_PER_OWNER = 16;

/**
 * Mark reads that cost about as much as one id walked or one hidden owner's repository read (an entry read and the
 * query's checks, a text check the dearest) — a mark is a byte read. Counts against many small hidden owners (limited
 * organisations' public repositories hidden from anonymous callers) read the exact source's marks unless walking or
 * reading the owners is that much cheaper. Measured on `q=app` against 100 hidden organisations (5,782 public
 * repositories; 27,153 matches): compared one to one, the count walked the matches (3.2 ms a request); at 4, it read
 * the owners' repositories (~1 ms); the marks, ~0.4 ms before they were read ahead of the flags.
 */
const MARK_READS_PER_WALKED_ID = 16;

/**
 * Postings from this many ids keep, per excluded-owner set, their marked ids counted by flag bits once a count read
 * their marks (`RepoIndex.markedCounts`); smaller ones are read each time (a read of a few hundred bytes).
 */
const MARKED_COUNTS_MIN = 512;
/**
 * Text postings from this many ids are walked, for a sort by id (or by creation while that follows the ids), through a
 * kept copy of their ids in id order (`RepoIndex.idOrdered`): the page then reads about as many ids as it needs, where
 * marking the posting's ids first cost its whole size on every request (at 1M repositories a 21,000-id term was ~200
 * µs of a 377 µs request, twice its cost at 100k). Smaller ones are marked each time (a few µs).
 */
const ID_COPY_MIN = 1024;
/** Ids held in such copies at most (least recently asked dropped first): the larger of this and twice the index's size. */
const ID_COPIES_MIN_HELD = 1 << 20;

/** A posting's marked ids by flag bits, as of its `changes`. */
interface MarkedCounts {
  changes: number;
  counts: Int32Array;
}

/** A query's excluded owners as marks by repository id (1: the owner is in the set), less the owners in `except`. */
interface ExcludedOwners {
  base: ReadonlySet<number>;
  marks: Uint8Array;
  /** Per side, the marked repositories by flag bits (`Side.all`'s tags). */
  counts: { pub: Int32Array; priv: Int32Array };
  /** Per posting read for its marks, its marked ids by flag bits (see `MARKED_COUNTS_MIN`). */
  byPosting: WeakMap<Posting, MarkedCounts>;
  except: ReadonlySet<number> | null;
}

/** An excluded-owner set's marks as `RepoIndex` keeps them. */
interface KeptMarks {
  size: number;
  marks: Uint8Array;
  counts: { pub: Int32Array; priv: Int32Array };
  byPosting: WeakMap<Posting, MarkedCounts>;
}

export class RepoIndex {
  readonly entries = new Map<number, Entry>();
  /**
   * Grows whenever an entry comes, goes or changes how it is indexed (name, owner, visibility, flags): what callers
   * derive from entries and their order (a caller's private scope) is kept while it reads the same.
   */
  generation = 0;
  /** The same entries by id (a dense array: the hot loops read it instead of the map). */
  private byId: Array<Entry | undefined> = [];
  readonly order: IdOrder = (a, b) => {
    // The names' first characters as numbers (`nameKeys`) settle most comparisons without reading either entry.
    const d = this.nameKeys[a]! - this.nameKeys[b]!;
    if (d !== 0) return d;
    const x = this.byId[a]!.lowerName;
    const y = this.byId[b]!.lowerName;
    return x < y ? -1 : x > y ? 1 : a - b;
  };
  /** `nameKey` of each entry's name by id: set with the entry, kept until it left every posting. */
  private nameKeys = new Float64Array(1024);
  /** Name order backwards (names descending, ties by id descending). */
  private readonly reverseOrder: IdOrder = (a, b) => this.order(b, a);
  /** Flag bits by id (the tag postings count by): set before an entry enters its postings, kept until it left them. */
  private bits = new Uint8Array(1024);
  /** Owner ids by id: a check of a driver's ids against the query's owners reads these, not the entries. */
  private ownerIds = new Int32Array(1024);
  private readonly tagging: Tagging = { tags: 16, tagOf: (id) => this.bits[id]! };
  private pub = new Side(this.order, this.tagging);
  private priv = new Side(this.order, this.tagging);
  /** Exact postings of queries longer than a gram, per family (`n` name, `a` name or description) and side. */
  private readonly long = new Lru<string, { key: string; q: string; desc: boolean; pub: LongSide; priv: LongSide }>(LONG_QUERIES_MAX);
  /**
   * Per excluded-owner set (`IndexQuery.notOwners`: a Set, or the base of a `Minus`), by repository id: 1 when the
   * repository's owner is in it. Kept in step with every entry (`setEntry`), so a search's visibility check is a byte
   * read by id, not a set lookup by the entry's owner (for anonymous callers that lookup was ~9% of a 50-repository
   * search page), and the marked repositories are counted per side by flag bits, so a list without a text query
   * counts what it leaves out in 16 additions. Such sets are never changed once made; the size they had is kept as a
   * guard all the same.
   */
  private readonly ownerMarks = new Map<ReadonlySet<number>, KeptMarks>();
  /** Scratch marks by id for building a long query's posting (cleared after each build). */
  private buildMarks = new Uint8Array(0);
  /** Repositories on a side from which an owner gets its own name-gram postings there (a test lowers it). */
  bigOwner = BIG_OWNER;
  /** Long-query postings built (a test and the benchmark read it). */
  longBuilds = 0;
  /** Postings from which marked ids are counted once per excluded set and change (a test lowers it). */
  markedCountsMin = MARKED_COUNTS_MIN;
  /** Counts of marked ids read as kept rather than counted again (a test reads it). */
  markedCountsKept = 0;
  /** Text postings from which an id-ordered copy is kept for sorts by id (a test lowers it). */
  idCopiesMin = ID_COPY_MIN;
  /** Ids such copies may hold at least (the index's size twice may allow more; a test lowers it). */
  idCopiesHeldMin = ID_COPIES_MIN_HELD;
  /** Id-ordered copies made, read as kept, and dropped for room (a test reads them). */
  idCopiesBuilt = 0;
  idCopiesRead = 0;
  idCopiesDropped = 0;
  /**
   * Id-ordered copies of text postings (`idOrdered`), each valid while its posting's `changes` is what it was when
   * copied; in the order last asked (a Map's insertion order), the oldest dropped when more than the allowed ids are held.
   */
  private readonly idCopies = new Map<Posting, { changes: number; ids: Int32Array }>();
  /** Ids held in `idCopies` (a test reads it). */
  idCopiesHeld = 0;
  /**
   * Every entry in one sort's order (key, ties by id), built when that sort is first asked for a large answer and
   * kept in step with every change: an entry leaves its place before a sort key changes and comes back after.
   */
  private readonly orders = new Map<SortKey, KeptOrder>();
  /** An entry's places in the kept orders while its keys change (`rekey`; one per order, reused). */
  private readonly places: number[] = [];
  /** Scratch marks by id for a sorted walk (sorted pages run synchronously, one at a time): cleared after each use. */
  private marks = new Uint8Array(0);
  /** The same as bits (id `i` is bit `i & 31` of word `i >>> 5`), for a walk by id (`walkMarkedIds`): cleared after use. */
  private markBits = new Int32Array(0);
  /**
   * How sorted pages are planned: by cost (`auto`), or one plan always (tests compare them). `collect` is also the
   * reference for search.ts: name order backwards and `priority_owner_id` then collect and sort every match.
   */
  sortPlan: 'auto' | 'walk' | 'collect' = 'auto';
  /**
   * Sort keys by id, one column per key a collect has sorted by (made when first asked, kept in step with every change
   * by `setKeys`): a collect reads each match's key from this dense array instead of through its entry. At 1M
   * repositories the entries are scattered over a ~1.8 GB heap and that read was two cache misses per match: a stars
   * sort of a term with 1,266 matches cost 2.4× what its 124 matches cost at 100k.
   */
  private readonly columns = new Map<Exclude<SortKey, 'id'>, { values: Float64Array }>();
  /** A sorted collect's keys and ids (grow-only, reused: `sorted` runs to completion). */
  private collectKeys = new Float64Array(256);
  private collectIds = new Float64Array(256);

  /** Bulk load (start): the records sorted once, every posting filled by appending in order. */
  load(records: Iterable<RepoRecord>): void {
    this.generation++;
    this.entries.clear();
    this.byId = [];
    this.ownerMarks.clear();
    this.long.clear();
    this.orders.clear();
    this.columns.clear();
    this.ownerGen++;
    this.pub = new Side(this.order, this.tagging);
    this.priv = new Side(this.order, this.tagging);
    const all: Entry[] = [];
    for (const r of records) {
      const e = entryOf(r);
      this.entries.set(e.id, e);
      this.setEntry(e);
      all.push(e);
    }
    all.sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
    const codes = () => ({ name: new Map<number, TaggedPosting>(), descOnly: new Map<number, TaggedPosting>() });
    const pubCodes = codes();
    const privCodes = codes();
    for (const e of all) {
      if (e.private) this.priv.loadEntry(e, privCodes);
      else this.pub.loadEntry(e, pubCodes);
    }
    for (const s of [this.pub, this.priv]) for (const [o, p] of s.owner) if (p.size >= this.bigOwner) s.promote(o, this.entries);
    this.pub.trim();
    this.priv.trim();
  }

  get size(): number {
    return this.entries.size;
  }

  private side(e: Entry): Side {
    return e.private ? this.priv : this.pub;
  }

  /** Puts an entry in `byId`, and its flag bits, owner, name key, sort keys and excluded-owner marks by id. */
  private setEntry(e: Entry): void {
    // Grown one by one, the array stays a fast (holey) one; one made at a large length would be a dictionary.
    while (this.byId.length <= e.id) this.byId.push(undefined);
    this.byId[e.id] = e;
    this.bits = withRoom(this.bits, e.id);
    this.bits[e.id] = flagBits(e);
    this.ownerIds = withRoom(this.ownerIds, e.id);
    this.ownerIds[e.id] = e.ownerId;
    this.nameKeys = withRoom(this.nameKeys, e.id);
    this.nameKeys[e.id] = nameKey(e.lowerName);
    this.setKeys(e);
    for (const [set, kept] of this.ownerMarks) {
      kept.marks = withRoom(kept.marks, e.id);
      const marked = set.has(e.ownerId);
      kept.marks[e.id] = marked ? 1 : 0;
      if (marked) kept.counts[e.private ? 'priv' : 'pub'][this.bits[e.id]!]!++;
    }
  }

  /** Writes an entry's sort keys into the columns made so far. */
  private setKeys(e: Entry): void {
    for (const [key, col] of this.columns) {
      col.values = withRoom(col.values, e.id);
      col.values[e.id] = SORT_KEYS[key](e);
    }
  }

  /**
   * A sort key's column (`columns`), made at the first ask from every entry. Its holder stays the same when the values
   * grow: the kept orders' comparators keep it.
   */
  private column(key: Exclude<SortKey, 'id'>): { values: Float64Array } {
    let c = this.columns.get(key);
    if (c === undefined) {
      const k = SORT_KEYS[key];
      c = { values: new Float64Array(Math.max(this.byId.length, 1024)) };
      for (const e of this.entries.values()) c.values[e.id] = k(e);
      this.columns.set(key, c);
    }
    return c;
  }

  /** Takes an entry's marks out of the excluded-owner counts (it leaves, or changes: `setEntry` puts it back). */
  private unmark(e: Entry): void {
    for (const kept of this.ownerMarks.values()) {
      if (e.id < kept.marks.length && kept.marks[e.id] === 1) {
        kept.counts[e.private ? 'priv' : 'pub'][this.bits[e.id]!]!--;
        kept.marks[e.id] = 0;
      }
    }
  }

  /**
   * The marks of an excluded-owner set (`ownerMarks`), made when first asked (a pass over the entries); null for a set
   * of another kind, which is tested as it is.
   */
  private excludedBy(set: IdSet | undefined): ExcludedOwners | null {
    if (set === undefined || set.size === 0) return null;
    const base = set instanceof Minus ? set.base : set instanceof Set ? (set as ReadonlySet<number>) : null;
    if (base === null) return null;
    let kept = this.ownerMarks.get(base);
    if (kept === undefined || kept.size !== base.size) {
      const marks = new Uint8Array(this.byId.length);
      const counts = { pub: new Int32Array(this.tagging.tags), priv: new Int32Array(this.tagging.tags) };
      for (const e of this.entries.values()) {
        if (!base.has(e.ownerId)) continue;
        marks[e.id] = 1;
        counts[e.private ? 'priv' : 'pub'][this.bits[e.id]!]!++;
      }
      this.ownerMarks.delete(base);
      if (this.ownerMarks.size >= OWNER_MARKS_MAX) this.ownerMarks.delete(this.ownerMarks.keys().next().value!);
      this.ownerMarks.set(base, (kept = { size: base.size, marks, counts, byPosting: new WeakMap() }));
    }
    const except = set instanceof Minus && set.except.size > 0 ? set.except : null;
    return { base, marks: kept.marks, counts: kept.counts, byPosting: kept.byPosting, except };
  }

  /** Adds or refreshes a repository (a no-op for what did not change). */
  upsert(record: RepoRecord): void {
    const next = entryOf(record);
    const prev = this.entries.get(record.id);
    if (prev && sameIndexing(prev, next)) {
      this.rekey(prev, () => Object.assign(prev, { created: next.created, updated: next.updated, size: next.size, stars: next.stars, forks: next.forks }));
      return;
    }
    this.generation++;
    if (prev) {
      this.detach(prev);
      this.unmark(prev);
    }
    this.entries.set(next.id, next);
    this.setEntry(next);
    this.reorder(next.id);
    const s = this.side(next);
    if (!s.owner.get(next.ownerId)?.size) this.ownerGen++;
    for (const p of s.postingsOf(next, true)) p.insert(next.id);
    if (!s.ownerName.has(next.ownerId) && s.owner.get(next.ownerId)!.size >= this.bigOwner) s.promote(next.ownerId, this.entries);
    for (const l of this.long.values()) {
      if (!this.textMatch(next, l.q, l.desc)) continue;
      const ls = next.private ? l.priv : l.pub;
      ls.all.insert(next.id);
      if (ls.gen === s.bigGen && s.ownerName.has(next.ownerId)) this.longOwner(ls, next.ownerId).insert(next.id);
    }
  }

  private longOwner(ls: LongSide, ownerId: number): TaggedPosting {
    let p = ls.byOwner.get(ownerId);
    if (!p) ls.byOwner.set(ownerId, (p = new TaggedPosting(this.order, this.tagging)));
    return p;
  }

  remove(id: number): void {
    const prev = this.entries.get(id);
    if (!prev) return;
    this.generation++;
    this.detach(prev);
    this.unmark(prev);
    this.entries.delete(id);
    this.byId[id] = undefined;
  }

  /**
   * Changes an entry's sort keys (`change`), its columns and its places in the kept orders: each order's place is
   * found before the change (the comparators read the columns) and the entry moved from there, shifting only what
   * lies between its old and new places.
   */
  private rekey(e: Entry, change: () => void): void {
    const places = this.places;
    let i = 0;
    for (const o of this.orders.values()) places[i++] = o.indexOf(e.id);
    change();
    this.setKeys(e);
    i = 0;
    for (const o of this.orders.values()) {
      const at = places[i++]!;
      if (at >= 0) o.settle(at);
      else o.insert(e.id);
    }
  }

  /** Takes an entry out of the kept sort orders (before a sort key of it changes, or it goes). */
  private unorder(id: number): void {
    for (const o of this.orders.values()) o.remove(id);
  }

  /** Puts an entry back into the kept sort orders (after its sort keys changed, or it came). */
  private reorder(id: number): void {
    for (const o of this.orders.values()) o.insert(id);
  }

  /**
   * A sort's kept order, made at the first ask. Its comparator reads the key's column (`column`): an entry's place is
   * found before its column value changes (`rekey`), and the entry leaves the order before it goes (`unorder`).
   */
  private sortOrder(key: Exclude<SortKey, 'id'>): KeptOrder {
    let o = this.orders.get(key);
    if (o) return o;
    const col = this.column(key);
    const cmp: IdOrder = (a, b) => col.values[a]! - col.values[b]! || a - b;
    o = new KeptOrder(cmp, this.entries.size + 16);
    const all = [...this.entries.keys()].sort(cmp);
    for (const id of all) o.push(id);
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
    // The total, and the parts a collect reads (a count that walked a side keeps what it accepted: not walked twice).
    const found = this.matchingParts(query, vis);
    const { total } = found;
    if (n <= 0 || total === 0) return { head: [], total };
    const collect = (): { head: number[]; total: number } => {
      // Each match's key and id straight into the arrays `topPositions` reads (no list of entries in between).
      let room = 0;
      for (const part of found.parts) room += part.size;
      if (this.collectKeys.length < room) {
        this.collectKeys = new Float64Array(Math.max(room, this.collectKeys.length * 2));
        this.collectIds = new Float64Array(this.collectKeys.length);
      }
      const keys = this.collectKeys;
      const ids = this.collectIds;
      const col = key === 'id' ? null : this.column(key).values;
      let m = 0;
      found.parts.forEach((part, p) => {
        const accept = found.accepts[p]!;
        const size = part.size;
        for (let i = 0; i < size; i++) {
          const id = part.at(i);
          if (accept !== ACCEPT_ALL && !accept(id)) continue;
          keys[m] = col === null ? id : col[id]!;
          ids[m++] = id;
        }
      });
      const at = topPositions(keys, ids, m, desc, n);
      const head = new Array<number>(at.length);
      for (let i = 0; i < at.length; i++) head[i] = ids[at[i]!]!;
      return { head, total };
    };
    // A walk reads about n × size ÷ total entries (matches spread over the order); collecting reads every match once
    // (keeping the best n). Walk when that is cheaper, within a budget: matches bunched at the far end of the order
    // (names that follow creation) end the walk early and the matches are collected after all.
    if (this.sortPlan === 'collect') return collect();
    // With a text query, its exact postings' ids are marked first when that is cheaper than checking every entry
    // walked (a mark is read for a byte; a check reads the entry and its name): the walk then checks marked ones only.
    const steps = (n * this.entries.size) / total;
    const marked: Posting[] = [];
    if (query.text) {
      // A caller that reads no private repository: the private side's ids would all be refused, so they are not marked.
      const readsPrivate = vis.privateAll || (vis.privateIds?.length ?? 0) > 0 || (vis.privateOwners?.length ?? 0) > 0;
      const sides: Array<'pub' | 'priv'> = readsPrivate ? ['pub', 'priv'] : ['pub'];
      const parts = sides.flatMap((side) => this.textSource(side, query.text!.q, query.text!.desc).parts as Posting[]);
      const size = parts.reduce((m, p) => m + p.size, 0);
      if (size <= 8 * Math.min(this.entries.size, steps)) marked.push(...parts);
    }
    // An order that is the ids' own is walked by id: `id` always (no kept order needed), creation time while its kept
    // order says it follows the ids. That order is built at once: a repository's creation time never changes, so it
    // costs an insert at the end per new repository. With the text's ids marked, the walk reads the marks as bits,
    // 32 ids a word, and visits marked ids only: its cost is the marked ids plus the id range over 32, never more
    // than collecting the matches, so it needs no budget.
    let order = key === 'id' ? null : key === 'created' ? this.sortOrder(key) : this.orders.get(key) ?? null;
    const aligned = key === 'id' || order?.followsIds === true;
    const bitWalk = marked.length > 0 && aligned;
    const budget = this.sortPlan === 'walk' || bitWalk ? Infinity : (marked.length ? SORT_WALK_PER_MATCH_MARKED : SORT_WALK_PER_MATCH) * total;
    if (this.sortPlan === 'auto' && total <= SORT_COLLECT_MIN && steps > budget) return collect();
    // Text postings walked by id through their kept id-ordered copies when one is big: nothing is marked.
    const copies = bitWalk && marked.some((p) => p.size >= this.idCopiesMin) ? marked.map((p) => this.idOrdered(p)) : null;
    const marking = copies === null;
    // A bit walk scans words until the page is full: about n × (ids ÷ matches) ÷ 32 of them, every word when the
    // matches are fewer than the page (a one-match term at 1M repositories: 31,000 words, ~110 µs). Collecting reads
    // each match once: cheaper while the matches are fewer than that scan.
    if (bitWalk && marking && this.sortPlan === 'auto' && total * total * 32 < n * this.byId.length) return collect();
    if (!aligned) order ??= this.sortOrder(key);
    const readable = vis.privateAll ? null : new Set(vis.privateIds ?? []);
    const readableOwners = new Set(vis.privateAll ? [] : vis.privateOwners ?? []);
    const pub = publicQuery(query, vis);
    const granted = vis.grantedPublicIds?.length ? new Set(vis.grantedPublicIds) : null;
    if (bitWalk && marking) {
      const bits = this.bitsById();
      for (const p of marked) for (let i = 0; i < p.size; i++) bits[p.at(i) >>> 5]! |= 1 << (p.at(i) & 31);
    } else if (marked.length && marking) {
      let max = 0;
      for (const p of marked) for (let i = 0; i < p.size; i++) if (p.at(i) > max) max = p.at(i);
      if (this.marks.length <= max) this.marks = new Uint8Array(Math.max(max + 1, this.marks.length * 2));
      for (const p of marked) for (let i = 0; i < p.size; i++) this.marks[p.at(i)] = 1;
    }
    // A marked walk visits the text's matches only: the checks leave the text out.
    const covered = marked.length ? TEXT : 0;
    const fits = residualCheck(query, covered, this.excludedBy(query.notOwners)) ?? ACCEPT_ALL;
    const fitsPublic = residualCheck(pub, covered, this.excludedBy(pub.notOwners)) ?? ACCEPT_ALL;
    const accept = (id: number, e: Entry): boolean => (e.private
      ? (readable === null || readable.has(id) || readableOwners.has(e.ownerId)) && fits(e)
      : vis.public && (fitsPublic(e) || (granted !== null && granted.has(id) && fits(e))));
    try {
      // By id (the marks and entries in memory order) when the order is the ids' own, a kept order just built included.
      const head = copies !== null ? this.walkCopies(copies, desc, n, accept)
        : bitWalk ? this.walkMarkedIds(desc, n, accept)
        : order === null || order.followsIds ? this.walkIds(desc, n, marked.length > 0, budget, accept)
        : this.walk(order, desc, n, marked.length > 0, budget, accept);
      return { head: head ?? collect().head, total };
    } finally {
      if (marking && bitWalk) for (const p of marked) for (let i = 0; i < p.size; i++) this.markBits[p.at(i) >>> 5] = 0;
      else if (marking) for (const p of marked) for (let i = 0; i < p.size; i++) this.marks[p.at(i)] = 0;
    }
  }

  /** The first `n` accepted ids of a kept order (null when the walk went past its budget). */
  private walk(order: Posting, desc: boolean, n: number, onlyMarked: boolean, budget: number, accept: (id: number, e: Entry) => boolean): number[] | null {
    const head: number[] = [];
    for (let i = 0; i < order.size && head.length < n; i++) {
      if (i > budget + n) return null;
      const id = order.at(desc ? order.size - 1 - i : i);
      if (onlyMarked && this.marks[id] !== 1) continue;
      if (accept(id, this.byId[id]!)) head.push(id);
    }
    return head;
  }

  /**
   * `walk` over an order that is the ids' ascending order: the ids themselves, from the first (or the last), gaps
   * included (a step over a gap reads one slot). Random reads through the order cost ~9 ns a step on 100,000
   * repositories; these read `marks` and `byId` in sequence.
   */
  private walkIds(desc: boolean, n: number, onlyMarked: boolean, budget: number, accept: (id: number, e: Entry) => boolean): number[] | null {
    const head: number[] = [];
    const byId = this.byId;
    const marks = this.marks;
    const last = byId.length - 1;
    for (let i = 0; i <= last && head.length < n; i++) {
      if (i > budget + n) return null;
      const id = desc ? last - i : i;
      if (onlyMarked && marks[id] !== 1) continue;
      const e = byId[id];
      if (e !== undefined && accept(id, e)) head.push(id);
    }
    return head;
  }

  /** `markBits` with a bit for every id (grown when ids outgrew it; clear: every user clears what it set). */
  private bitsById(): Int32Array {
    const words = (this.byId.length + 31) >>> 5;
    if (this.markBits.length < words) this.markBits = new Int32Array(Math.max(words, this.markBits.length * 2));
    return this.markBits;
  }

  /**
   * A posting's ids in ascending id order, kept while the posting is unchanged (`Posting.changes`). Made by setting its
   * ids as bits and reading the set bits back in order (its size plus its id range over 32; no comparison sort), the
   * bits cleared as they are read. A posting holds at most every entry: one always fits in what may be held.
   */
  private idOrdered(p: Posting): Int32Array {
    const kept = this.idCopies.get(p);
    if (kept !== undefined) {
      this.idCopies.delete(p);
      if (kept.changes === p.changes) {
        this.idCopies.set(p, kept); // now the most recently asked
        this.idCopiesRead++;
        return kept.ids;
      }
      this.idCopiesHeld -= kept.ids.length;
    }
    const allowed = Math.max(this.idCopiesHeldMin, 2 * this.entries.size);
    const bits = this.bitsById();
    let lo = bits.length;
    let hi = -1;
    for (let i = 0; i < p.size; i++) {
      const id = p.at(i);
      const w = id >>> 5;
      bits[w]! |= 1 << (id & 31);
      if (w < lo) lo = w;
      if (w > hi) hi = w;
    }
    const ids = new Int32Array(p.size);
    let m = 0;
    for (let w = lo; w <= hi; w++) {
      let word = bits[w]!;
      if (word === 0) continue;
      bits[w] = 0;
      while (word !== 0) {
        const b = 31 - Math.clz32(word & -word);
        word &= word - 1;
        ids[m++] = (w << 5) | b;
      }
    }
    while (this.idCopiesHeld + ids.length > allowed && this.idCopies.size > 0) {
      const [oldest, copy] = this.idCopies.entries().next().value as [Posting, { changes: number; ids: Int32Array }];
      this.idCopies.delete(oldest);
      this.idCopiesHeld -= copy.ids.length;
      this.idCopiesDropped++;
    }
    this.idCopies.set(p, { changes: p.changes, ids });
    this.idCopiesHeld += ids.length;
    this.idCopiesBuilt++;
    return ids;
  }

  /**
   * The first `n` accepted ids of disjoint id-ordered lists merged by id (backwards with `desc`): each step takes the
   * next id of the list whose next is first (two to four lists: a text's name and description-only postings per side).
   */
  private walkCopies(lists: readonly Int32Array[], desc: boolean, n: number, accept: (id: number, e: Entry) => boolean): number[] {
    const head: number[] = [];
    const byId = this.byId;
    const at = lists.map((l) => (desc ? l.length - 1 : 0));
    while (head.length < n) {
      let best = -1;
      let bestId = 0;
      for (let k = 0; k < lists.length; k++) {
        const i = at[k]!;
        const list = lists[k]!;
        if (i < 0 || i >= list.length) continue;
        const id = list[i]!;
        if (best < 0 || (desc ? id > bestId : id < bestId)) {
          best = k;
          bestId = id;
        }
      }
      if (best < 0) break;
      at[best]! += desc ? -1 : 1;
      const e = byId[bestId];
      if (e !== undefined && accept(bestId, e)) head.push(bestId);
    }
    return head;
  }

  /** The first `n` accepted ids among those marked in `markBits`, by id (backwards with `desc`). */
  private walkMarkedIds(desc: boolean, n: number, accept: (id: number, e: Entry) => boolean): number[] {
    const head: number[] = [];
    const byId = this.byId;
    const words = this.markBits;
    const last = Math.min(words.length, (byId.length + 31) >>> 5) - 1;
    for (let k = 0; k <= last && head.length < n; k++) {
      const w = desc ? last - k : k;
      let bits = words[w]!;
      while (bits !== 0 && head.length < n) {
        // The lowest set bit going up, the highest going down.
        const b = desc ? 31 - Math.clz32(bits) : 31 - Math.clz32(bits & -bits);
        bits &= ~(1 << b);
        const id = (w << 5) | b;
        const e = byId[id];
        if (e !== undefined && accept(id, e)) head.push(id);
      }
    }
    return head;
  }

  /** Sort keys that change without touching postings (counters, size, update time). */
  patch(id: number, fields: Partial<Pick<Entry, 'size' | 'stars' | 'forks' | 'updated'>>): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.rekey(e, () => Object.assign(e, fields));
  }

  /** Adds to a counter kept for sorting. */
  bump(id: number, field: 'stars' | 'forks', delta: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.rekey(e, () => (e[field] += delta));
  }

  private detach(e: Entry): void {
    // Removal searches by the entry's order, so the entry stays in `entries` until its ids are out.
    this.unorder(e.id);
    for (const p of this.side(e).postingsOf(e, false)) p.remove(e.id);
    for (const l of this.long.values()) {
      const ls = e.private ? l.priv : l.pub;
      if (ls.all.remove(e.id)) ls.byOwner.get(e.ownerId)?.remove(e.id);
    }
  }

  textMatch(e: Entry, q: string, desc: boolean): boolean {
    return e.lowerName.includes(q) || (desc && e.lowerDesc.includes(q));
  }

  // ---- query planning ----

  /** The exact postings of a text query on one side: the gram's own for short queries, a kept one for longer ones. */
  private textSource(side: 'pub' | 'priv', q: string, desc: boolean): Source {
    if (q.length <= MAX_GRAM) {
      const s = side === 'pub' ? this.pub : this.priv;
      return sourceOf([s.name.get(q), desc ? s.descOnly.get(q) : undefined], TEXT);
    }
    const l = this.longPosting(q, desc);
    return sourceOf([side === 'pub' ? l.pub.all : l.priv.all], TEXT);
  }

  /**
   * The exact posting of a name query within one big owner's repositories on a side (null: the owner is not big
   * there, or the query also searches descriptions, whose grams are not kept per owner).
   */
  private ownerText(side: 'pub' | 'priv', ownerId: number, q: string, desc: boolean): TaggedPosting | typeof NO_IDS | null {
    const s = side === 'pub' ? this.pub : this.priv;
    const own = s.ownerName.get(ownerId);
    if (!own || desc) return null;
    if (q.length <= MAX_GRAM) return own.get(q) ?? NO_IDS;
    const ls = this.longPosting(q, desc)[side];
    if (ls.gen !== s.bigGen) {
      // Owners became big since the split: split again (a walk of the query's matches on this side).
      ls.byOwner.clear();
      for (let i = 0; i < ls.all.size; i++) {
        const id = ls.all.at(i);
        const o = this.byId[id]!.ownerId;
        if (s.ownerName.has(o)) this.longOwner(ls, o).push(id);
      }
      ls.gen = s.bigGen;
    }
    return ls.byOwner.get(ownerId) ?? NO_IDS;
  }

  /**
   * The kept exact posting of a long query, built when first asked: the candidates are its rarest trigram's posting,
   * narrowed (when the next rarest is not much larger) to those also in the second rarest by marks set by id, and
   * each left is checked for the query itself on its in-memory text.
   */
  private longPosting(q: string, desc: boolean): { pub: LongSide; priv: LongSide } {
    const key = `${desc ? 'a' : 'n'}\u0000${q}`;
    const hit = this.long.get(key);
    if (hit) return hit;
    const build = (s: Side): LongSide => {
      const cands = trigramsOf(q).map((g) => sourceOf([s.name.get(g), desc ? s.descOnly.get(g) : undefined], TEXT)).sort((a, b) => a.size - b.size);
      const out: LongSide = { all: s.posting(), byOwner: new Map(), gen: s.bigGen };
      const best = cands[0];
      if (!best || best.size === 0) return out;
      const second = cands[1];
      const narrow = second !== undefined && second.size <= 16 * best.size;
      if (narrow) {
        if (this.buildMarks.length < this.bits.length) this.buildMarks = new Uint8Array(this.bits.length);
        for (const p of second.parts) for (let i = 0; i < p.size; i++) this.buildMarks[p.at(i)] = 1;
      }
      try {
        const marks = this.buildMarks;
        const byId = this.byId;
        const accept = (id: number) => (!narrow || marks[id] === 1) && this.textMatch(byId[id]!, q, desc);
        // The candidates' union in order (the parts are disjoint), kept when the text really contains q.
        const split = s.ownerName.size > 0;
        const keep = (id: number) => {
          out.all.push(id);
          if (!split) return;
          const o = byId[id]!.ownerId;
          if (s.ownerName.has(o)) this.longOwner(out, o).push(id);
        };
        if (best.parts.length === 1) {
          const p = best.parts[0]!;
          for (let i = 0; i < p.size; i++) if (accept(p.at(i))) keep(p.at(i));
        } else for (const id of mergeHead(best.parts, this.order, Infinity, accept)) keep(id);
      } finally {
        if (narrow) for (const p of second.parts) for (let i = 0; i < p.size; i++) this.buildMarks[p.at(i)] = 0;
      }
      out.all.trim();
      return out;
    };
    const made = { key, q, desc, pub: build(this.pub), priv: build(this.priv) };
    this.longBuilds++;
    this.long.set(key, made);
    return made;
  }

  /** The candidate sources of every positive constraint, on one side. */
  private sources(side: 'pub' | 'priv', query: IndexQuery): Source[] {
    const s = side === 'pub' ? this.pub : this.priv;
    const out: Source[] = [];
    if (query.text) out.push(this.textSource(side, query.text.q, query.text.desc));
    if (query.topic !== undefined) out.push(sourceOf([s.topic.get(query.topic)], TOPIC));
    if (query.owners) {
      const owners = [...new Set(query.owners)];
      out.push(sourceOf(owners.map((o) => s.owner.get(o)), OWNERS));
      // Text within big owners: each owner's own posting of the text, when every owner asked is big.
      if (query.text) {
        const parts = owners.map((o) => (s.owner.get(o)?.size ? this.ownerText(side, o, query.text!.q, query.text!.desc) : NO_IDS));
        if (parts.every((p) => p !== null)) out.push(sourceOf(parts as TaggedPosting[], TEXT | OWNERS));
      }
    }
    if (query.ids) {
      const ids = [...query.ids].filter((id) => {
        const e = this.entries.get(id);
        return e !== undefined && e.private === (side === 'priv');
      }).sort(this.order);
      out.push({ parts: [arraySource(ids)], size: ids.length, covers: IDS, counted: false });
    }
    for (const f of FLAGS) if (query.flags?.[f] === true) out.push(sourceOf([s.flag[f]], 0));
    return out;
  }



  /**
   * One side's matches: the smallest source drives the page (the side's `all` when there is none). The count is a
   * sum of per-flag counters when one source is exactly every positive constraint but flags (a text, a topic, an
   * owner, a text within big owners, or none: the whole side), less the matches of excluded owners (each counted the
   * same way, or walked when that owner is small); otherwise a walk of the driver.
   */
  private plan(side: 'pub' | 'priv', query: IndexQuery): { driver: Source; accept: (id: number) => boolean; count: () => number; walked: () => number[][] | null } {
    const s = side === 'pub' ? this.pub : this.priv;
    const all = sourceOf([s.all], 0);
    const sources = this.sources(side, query);
    // The cheapest driver: its ids, each read as its check needs (an entry for a text or topic, else a typed array).
    let driver = all;
    let driverCost = Infinity;
    for (const src of sources) {
      const cost = src.size * (ownersOnly(query, src.covers) ? 1 : ENTRY_CHECK_COST);
      if (driver === all || cost < driverCost) {
        driver = src;
        driverCost = cost;
      }
    }
    // The driver's ids meet what it covers (its parts are exactly those matches): the check is of the rest only.
    const excluded = this.excludedBy(query.notOwners);
    const byId = this.byId;
    let accept: (id: number) => boolean;
    if (excluded === null && query.owners && (driver.covers & OWNERS) === 0 && ownersOnly(query, driver.covers)) {
      // Only the owners are left to check (a text's posting driving, a small owner's repositories the rest).
      const ownerIds = this.ownerIds;
      const owners = query.owners;
      const first = owners[0]!;
      accept = owners.length === 1 ? (id) => ownerIds[id] === first : (id) => owners.includes(ownerIds[id]!);
    } else if (excluded !== null) {
      // Excluded owners by their marks first: an entry is read only for a marked id (an owner the caller is excepted
      // from) or for what else the query asks (an anonymous caller's text search reads none).
      const { marks, except } = excluded;
      const shown = except === null ? (id: number) => marks[id] === 0 : (id: number) => marks[id] === 0 || except.has(byId[id]!.ownerId);
      const rest = allOf(residualChecks(query, driver.covers));
      accept = rest === null ? shown : (id) => shown(id) && rest(byId[id]!);
    } else {
      const check = residualCheck(query, driver.covers, null);
      accept = check === null ? ACCEPT_ALL : (id: number) => check(byId[id]!);
    }
    // A count that walks the driver keeps what it accepted (per part, in order): the page is then merged from those.
    let walked: number[][] | null = null;
    const walk = () => {
      walked = driver.parts.map((p) => acceptedOf(p, accept));
      return walked.reduce((n, ids) => n + ids.length, 0);
    };
    const count = (): number => {
      if (driver.size === 0) return 0;
      const exact = this.exactSource([all, ...sources], query);
      if (!exact) return walk();
      const flagsOk = flagTest(query.flags);
      const counted = (src: Source) => src.parts.reduce((n, p) => n + (p as TaggedPosting).count(flagsOk), 0);
      if (excluded !== null) {
        // The whole side (no text, topic, owners or ids): what the excluded owners hold by flags is counted already.
        if (exact.covers === 0) return counted(exact) - this.markedOnSide(side, excluded, flagsOk, query.notOwner);
        // The exact source's marked ids counted per big posting (kept until it changes: read once per term and excluded
        // set, then a sum of a few counters), unless the owners the marks misjudge hold too much.
        if (this.markedCountable(exact)) {
          const fixes = this.markFixes(side, excluded, query.notOwner);
          if (fixes.cost * MARK_READS_PER_WALKED_ID < exact.size) return counted(exact) - this.markedByCounts(side, exact, excluded, flagsOk, query, fixes.owners);
        }
        // Few matches against many excluded owners: their marks read, before any owner is looked at.
        if (exact.size <= driver.size && exact.size < MARK_READS_PER_OWNER * this.keptOwnersWithRepos(side, excluded.base).length) {
          return counted(exact) - this.markedCount(side, exact, excluded, flagsOk, query);
        }
      }
      // Excluded owners: only those with repositories on this side matter (hidden owners: a list kept per shared set),
      // and of those only the ones the query asks for.
      const owners = new Set(query.notOwners ? this.ownersWithRepos(side, query.notOwners) : []);
      if (query.notOwner !== undefined && s.owner.get(query.notOwner)?.size) owners.add(query.notOwner);
      if (query.owners) for (const o of owners) if (!query.owners.includes(o)) owners.delete(o);
      if (owners.size === 0) return counted(exact);
      // Each excluded owner's matches: counted by flags from its own posting when it is big (or the query has no
      // text), else its repositories read one by one with the query's checks (an owner too small for name postings of
      // its own: at most a few hundred).
      let cost = 0;
      const countable = (o: number) => query.topic === undefined && query.ids === undefined && (!query.text || (!query.text.desc && s.ownerName.has(o)));
      for (const o of owners) cost += countable(o) ? 1 : s.owner.get(o)!.size + OWNER_READ_COST;
      // Or, with the excluded set marked, the exact source's ids read once for their marks (a byte each): the way when
      // the excluded owners are many and small (many small hidden accounts: counted one by one, they were most of a search).
      if (excluded !== null && exact.size <= driver.size && exact.size < MARK_READS_PER_WALKED_ID * Math.min(cost, driver.size)) {
        return counted(exact) - this.markedCount(side, exact, excluded, flagsOk, query);
      }
      if (cost >= driver.size) return walk();
      let out = counted(exact);
      const inExact = exactCheck(query);
      for (const o of owners) out -= this.ownerInExact(side, o, query, inExact, flagsOk);
      return out;
    };
    return { driver, accept, count, walked: () => walked };
  }

  /**
   * An owner's ids in a query's exact source (`exactSource`) whose flag bits pass, the owner among the query's
   * `owners` when it has them: counted from the owner's postings when they are exact (no topic or ids; no text, or a
   * name text and the owner big), else its repositories read with `inExact` (the exact source's constraints).
   */
  private ownerInExact(side: 'pub' | 'priv', o: number, query: IndexQuery, inExact: ((e: Entry) => boolean) | null, flagsOk: (bits: number) => boolean): number {
    const s = side === 'pub' ? this.pub : this.priv;
    const posting = s.owner.get(o);
    if (!posting?.size || (query.owners && !query.owners.includes(o))) return 0;
    if (query.topic === undefined && query.ids === undefined) {
      if (!query.text) return posting.count(flagsOk);
      if (!query.text.desc && s.ownerName.has(o)) return (this.ownerText(side, o, query.text.q, false) ?? NO_IDS).count(flagsOk);
    }
    return this.ownerMatches(posting, inExact, flagsOk);
  }

  /** Whether most of `src` is in postings big enough to keep their marked ids counted (`markedCounts`). */
  private markedCountable(src: Source): boolean {
    let big = 0;
    for (const part of src.parts) if (part instanceof Posting && part.size >= this.markedCountsMin) big += part.size;
    return big * 2 >= src.size;
  }

  /**
   * A posting's marked ids by flag bits for an excluded set: kept per posting while it is unchanged (an entry whose
   * owner, and so its mark, changes leaves every posting and comes back, which counts as a change of each).
   */
  private markedCounts(part: Posting, excluded: ExcludedOwners): Int32Array {
    const kept = excluded.byPosting.get(part);
    if (kept !== undefined && kept.changes === part.changes) {
      this.markedCountsKept++;
      return kept.counts;
    }
    const counts = kept?.counts.fill(0) ?? new Int32Array(this.tagging.tags);
    const { marks } = excluded;
    const bits = this.bits;
    const size = part.size;
    for (let i = 0; i < size; i++) {
      const id = part.at(i);
      if (marks[id] === 1) counts[bits[id]!]!++;
    }
    excluded.byPosting.set(part, { changes: part.changes, counts });
    return counts;
  }

  /**
   * The owners whose ids a source's marks misjudge, each with its sign: an excepted owner in the set (marked, yet it
   * counts: -1) and `notOwner` when unmarked or excepted (shown, yet it counts: +1); `cost`: their repositories on the
   * side (what counting them one by one may read).
   */
  private markFixes(side: 'pub' | 'priv', excluded: ExcludedOwners, notOwner: number | undefined): { owners: Array<{ owner: number; sign: number }>; cost: number } {
    const s = side === 'pub' ? this.pub : this.priv;
    const { base, except } = excluded;
    const owners: Array<{ owner: number; sign: number }> = [];
    if (except !== null) for (const o of except) if (base.has(o) && s.owner.get(o)?.size) owners.push({ owner: o, sign: -1 });
    if (notOwner !== undefined && s.owner.get(notOwner)?.size && (!base.has(notOwner) || (except !== null && except.has(notOwner)))) owners.push({ owner: notOwner, sign: 1 });
    let cost = 0;
    for (const { owner } of owners) cost += s.owner.get(owner)!.size + OWNER_READ_COST;
    return { owners, cost };
  }

  /**
   * What a count by flags of `src` (a query's exact source) holds beyond the query's matches: its ids whose owner is
   * excluded (marked, not excepted) or is `notOwner`. By kept counts (`markedByCounts`) when the owners the marks
   * misjudge hold little, else by reading the source's marks (`markedIn`).
   */
  private markedCount(side: 'pub' | 'priv', src: Source, excluded: ExcludedOwners, flagsOk: (bits: number) => boolean, query: IndexQuery): number {
    const fixes = this.markFixes(side, excluded, query.notOwner);
    if (fixes.cost * MARK_READS_PER_WALKED_ID >= src.size) return this.markedIn(src, excluded, flagsOk, query.notOwner);
    return this.markedByCounts(side, src, excluded, flagsOk, query, fixes.owners);
  }

  /**
   * `markedCount` from each big posting's kept counts (`markedCounts`; small ones read), corrected by the owners the
   * marks misjudge (`markFixes`), each counted on its own.
   */
  private markedByCounts(side: 'pub' | 'priv', src: Source, excluded: ExcludedOwners, flagsOk: (bits: number) => boolean, query: IndexQuery, fixes: ReadonlyArray<{ owner: number; sign: number }>): number {
    let n = 0;
    const rest: OrderedIds[] = [];
    for (const part of src.parts) {
      if (!(part instanceof Posting) || part.size < this.markedCountsMin) {
        rest.push(part);
        continue;
      }
      const counts = this.markedCounts(part, excluded);
      for (let tag = 0; tag < counts.length; tag++) if (counts[tag] !== 0 && flagsOk(tag)) n += counts[tag]!;
    }
    // The small parts' marks read as they are: the excepted owners and `notOwner` are fixed below for every part.
    if (rest.length > 0) {
      const small: Source = { parts: rest, size: rest.reduce((k, p) => k + p.size, 0), covers: src.covers, counted: src.counted };
      n += this.markedIn(small, { ...excluded, except: null }, flagsOk, undefined);
    }
    if (fixes.length > 0) {
      const inExact = exactCheck(query);
      for (const { owner, sign } of fixes) n += sign * this.ownerInExact(side, owner, query, inExact, flagsOk);
    }
    return n;
  }

  /**
   * The ids of `src` whose owner is excluded (marked, not excepted) or is `notOwner`, and whose flag bits pass: what a
   * count by flags of `src` holds beyond the query's matches.
   */
  private markedIn(src: Source, excluded: ExcludedOwners, flagsOk: (bits: number) => boolean, notOwner: number | undefined): number {
    const { marks, except } = excluded;
    const bits = this.bits;
    const byId = this.byId;
    let n = 0;
    // Most ids are unmarked: the mark is read first, the flags and the entry only for the few that count.
    for (const part of src.parts) {
      const size = part.size;
      if (notOwner === undefined) {
        for (let i = 0; i < size; i++) {
          const id = part.at(i);
          if (marks[id] === 1 && flagsOk(bits[id]!) && (except === null || !except.has(byId[id]!.ownerId))) n++;
        }
        continue;
      }
      for (let i = 0; i < size; i++) {
        const id = part.at(i);
        if (marks[id] === 1) {
          if (!flagsOk(bits[id]!)) continue;
          const owner = byId[id]!.ownerId;
          if (except === null || !except.has(owner) || owner === notOwner) n++;
        } else if (byId[id]!.ownerId === notOwner && flagsOk(bits[id]!)) n++;
      }
    }
    return n;
  }

  /** The ids of an owner's posting whose flag bits pass and whose entry passes `check` (null: every one). */
  private ownerMatches(posting: TaggedPosting, check: ((e: Entry) => boolean) | null, flagsOk: (bits: number) => boolean): number {
    const bits = this.bits;
    const byId = this.byId;
    let n = 0;
    for (let i = 0; i < posting.size; i++) {
      const id = posting.at(i);
      if (flagsOk(bits[id]!) && (check === null || check(byId[id]!))) n++;
    }
    return n;
  }

  /** `markedIn` for a whole side, from the counts kept by flag bits (the excepted owners and `notOwner` by their postings). */
  private markedOnSide(side: 'pub' | 'priv', excluded: ExcludedOwners, flagsOk: (bits: number) => boolean, notOwner: number | undefined): number {
    const s = side === 'pub' ? this.pub : this.priv;
    const counts = excluded.counts[side];
    let n = 0;
    for (let tag = 0; tag < counts.length; tag++) if (counts[tag] !== 0 && flagsOk(tag)) n += counts[tag]!;
    const { base, except } = excluded;
    if (except !== null) for (const o of except) if (base.has(o)) n -= s.owner.get(o)?.count(flagsOk) ?? 0;
    const shown = (o: number) => !base.has(o) || (except !== null && except.has(o));
    if (notOwner !== undefined && shown(notOwner)) n += s.owner.get(notOwner)?.count(flagsOk) ?? 0;
    return n;
  }

  /** A source that is exactly the query's positive constraints but flags and counts by flags (null: none). */
  private exactSource(sources: Source[], query: IndexQuery): Source | null {
    const need = (query.text ? TEXT : 0) | (query.topic !== undefined ? TOPIC : 0) | (query.owners ? OWNERS : 0) | (query.ids ? IDS : 0);
    let best: Source | null = null;
    for (const src of sources) if (src.counted && src.covers === need && (!best || src.parts.length < best.parts.length)) best = src;
    return best;
  }

  /**
   * The owners of `set` that own repositories on a side (a new array). For a shared set (the non-public accounts) the
   * answer is kept until an owner gets its first repository on that side, so a request pays for the hidden owners that
   * own something, not for every hidden account; a caller's `Minus` of a shared set filters the kept answer.
   */
  ownersWithRepos(side: 'pub' | 'priv', set: IdSet): number[] {
    if (set instanceof Minus) return this.keptOwnersWithRepos(side, set.base).filter((o) => !set.except.has(o));
    return [...this.keptOwnersWithRepos(side, set)];
  }

  /** `ownersWithRepos` of a set that is not a `Minus`, as kept (read only). */
  private keptOwnersWithRepos(side: 'pub' | 'priv', set: IdSet): readonly number[] {
    const s = side === 'pub' ? this.pub : this.priv;
    const key = set as object;
    let kept = this.ownersKept.get(key);
    if (kept?.gen !== this.ownerGen) this.ownersKept.set(key, (kept = { gen: this.ownerGen, pub: null, priv: null }));
    let owners = kept[side];
    if (owners === null) {
      owners = [];
      for (const o of set) if (s.owner.get(o)?.size) owners.push(o);
      kept[side] = owners;
    }
    return owners;
  }

  /**
   * `ownersWithRepos` answers by set, per side (a signed-in search asks for both sides in turn: one answer kept per set
   * was made again at every call, a pass over the set); `ownerGen` counts owners' first repositories on a side
   * (answers older are stale).
   */
  private readonly ownersKept = new WeakMap<object, { gen: number; pub: number[] | null; priv: number[] | null }>();
  private ownerGen = 0;

  /**
   * The first `n` matches (name order, or backwards with `desc`) and the exact total, over the public side, plus the private side for
   * `privateAll` (site admins) or the given readable private ids (anyone else: a small set).
   */
  search(query: IndexQuery, vis: Visibility, n: number, desc = false): { head: number[]; total: number } {
    const { parts, accepts, total } = this.matchingParts(query, vis);
    // Each part carries its own side's check: a merge over (part, accept) pairs; descending, each part from its end.
    const tagged = parts.map((p, i) => ({ size: p.size, at: desc ? (j: number) => p.at(p.size - 1 - j) : p.at.bind(p), accept: accepts[i]! }));
    const head = mergeFiltered(tagged, desc ? this.reverseOrder : this.order, n);
    return { head, total };
  }

  /**
   * Every match's source in name order, each part with its check, and the exact total: per side its driver's parts
   * (or the ids its count walk accepted, when it walked), the readable private ids and granted public ones that match.
   */
  private matchingParts(query: IndexQuery, vis: Visibility): { parts: OrderedIds[]; accepts: Array<(id: number) => boolean>; total: number } {
    const parts: OrderedIds[] = [];
    const accepts: Array<(id: number) => boolean> = [];
    let total = 0;
    // A side's total, and its parts for the page: the ids its count walk accepted when it walked, else its driver.
    const take = (p: ReturnType<RepoIndex['plan']>) => {
      total += p.count();
      const walked = p.walked();
      if (walked) {
        for (const ids of walked) {
          parts.push(arraySource(ids));
          accepts.push(ACCEPT_ALL);
        }
      } else {
        for (const part of p.driver.parts) {
          parts.push(part);
          accepts.push(p.accept);
        }
      }
    };
    if (vis.public) take(this.plan('pub', publicQuery(query, vis)));
    if (vis.privateAll) take(this.plan('priv', query));
    else {
      const owners = this.privateOwnersOf(query, vis);
      if (owners.length) take(this.plan('priv', queryWith(query, owners, query.notOwner, query.notOwners)));
    }
    if (!vis.privateAll && vis.privateIds && vis.privateIds.length) {
      const fits = residualCheck(query, 0, this.excludedBy(query.notOwners)) ?? ACCEPT_ALL;
      const mine = vis.privateIds.filter((id) => {
        const e = this.entries.get(id);
        return e !== undefined && e.private && fits(e);
      });
      if (vis.privateIdsInOrder !== true) mine.sort(this.order);
      total += mine.length;
      parts.push(arraySource(mine));
      accepts.push(ACCEPT_ALL);
    }
    if (vis.public && vis.grantedPublicIds?.length) {
      const granted = this.grantedPublic(query, vis.grantedPublicIds).sort(this.order);
      total += granted.length;
      parts.push(arraySource(granted));
      accepts.push(ACCEPT_ALL);
    }
    return { parts, accepts, total };
  }

  /** Every match (for orders other than by name), as ids. */
  all(query: IndexQuery, vis: Visibility): number[] {
    const { parts, accepts } = this.matchingParts(query, vis);
    const out: number[] = [];
    parts.forEach((part, k) => collectAccepted(part, accepts[k]!, out));
    return out;
  }

  /** The owners whose every private repository the caller reads that the query asks for (none for `privateAll`). */
  private privateOwnersOf(query: IndexQuery, vis: Visibility): number[] {
    if (vis.privateAll || !vis.privateOwners?.length) return [];
    const owners = [...new Set(vis.privateOwners)];
    return query.owners ? owners.filter((o) => query.owners!.includes(o)) : owners;
  }

  /** The public repositories among `ids` that match (the caller's grants outside the public side). */
  private grantedPublic(query: IndexQuery, ids: readonly number[]): number[] {
    const fits = residualCheck(query, 0, this.excludedBy(query.notOwners)) ?? ACCEPT_ALL;
    return ids.filter((id) => {
      const e = this.entries.get(id);
      return e !== undefined && !e.private && fits(e);
    });
  }

  /** How many private repositories an owner has. */
  privateCount(ownerId: number): number {
    return this.priv.owner.get(ownerId)?.size ?? 0;
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
      for (const map of [s.name, s.descOnly, s.owner, s.topic, ...s.ownerName.values()] as Array<Map<unknown, Posting>>) for (const p of map.values()) n += p.bytes;
      for (const f of FLAGS) n += s.flag[f].bytes;
    }
    for (const l of this.long.values()) {
      for (const ls of [l.pub, l.priv]) {
        n += ls.all.bytes;
        for (const p of ls.byOwner.values()) n += p.bytes;
      }
    }
    return n;
  }
}

/**
 * The query of the public side: without the repositories of owners hidden from the caller, and only those of
 * `publicOwners` when that is set (a restricted caller: its own account and organizations whose every repository it
 * reads), through their owner postings.
 */
function publicQuery(query: IndexQuery, vis: Visibility): IndexQuery {
  const notOwners = vis.hiddenOwners?.size ? vis.hiddenOwners : query.notOwners;
  let owners = query.owners;
  if (vis.publicOwners) {
    const allowed = new Set(vis.publicOwners);
    owners = query.owners ? query.owners.filter((o) => allowed.has(o)) : [...allowed];
  }
  return notOwners === query.notOwners && owners === query.owners ? query : queryWith(query, owners, query.notOwner, notOwners);
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
  /** Otherwise: the private repositories the caller reads (absent or empty: none) besides those of `privateOwners`. */
  privateIds?: readonly number[];
  /** `privateIds` are in the index's order (`order`), as of the current `generation`: a page need not sort them. */
  privateIdsInOrder?: boolean;
  /** Otherwise: owners whose every private repository the caller reads (searched through their postings). */
  privateOwners?: readonly number[];
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
