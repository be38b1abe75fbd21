// Query plans per filter shape: which indexes can serve a shape, and how, is decided once; what depends on the
// values (posting sizes, ranges, the walk's cost) is worked out per query, as cheap lookups and counts.
//
// A plan holds the collection's indexes as they were when it was made: the collection forgets its plans whenever
// an index is added, rebuilt or flagged multikey (`EmbeddedCollection.forgetPlans`).
import { entrySize, type Entry } from './btree.js';
import { uniqueNumbers } from './distinct.js';
import type { OrderedIndex, RangeBounds } from './indexes.js';
import { matchOf, type IndexableCondition, type IndexKey, type Match, type PlannableFilter, type Values } from './filter.js';
import type { SortFields } from './query.js';
import type { Stored } from './stored.js';

/** Candidates for a query from one index (or from several, for a top-level `$or`). */
export interface Access {
  index: string;
  /** Documents it yields (an upper bound when a document can sit under several of the keys read: then it dedupes). */
  size: number;
  /** Every document it yields matches the filter and `size` is their number: nothing is left to check. */
  exact: boolean;
  /** What is left to check per candidate: the filter without the equalities the access guarantees. */
  residual: Match;
  /** Yields each candidate once; stops when `visit` returns true. */
  each(visit: (doc: Stored) => boolean): void;
}

/** A range of an index read in the order a sort asks for. */
export interface Walk {
  index: OrderedIndex;
  dir: 1 | -1;
  /** Ranks bounding the range (ascending key order). */
  start: number;
  end: number;
  /** The range holds exactly the filter's matches: no matching, and the skip is a jump. */
  covered: boolean;
  /** What is left to check per document of the range (the filter without the prefix's equalities). */
  residual: Match;
  /** Documents it is expected to examine. */
  cost: number;
}

/** One way an index serves a shape, opened per query with the query's values. */
interface Candidate {
  open(v: Values): Access;
  /**
   * The shape lets its access be exact. An exact access is the best one: every access yields at least the matches,
   * and an exact one yields nothing else.
   */
  mayBeExact: boolean;
  /**
   * How many index searches opening it takes for these values, where that grows with an `$in` (one prefix range, two
   * tree descents, per value); absent where opening is a lookup or two whatever the values.
   */
  searches?(v: Values): number;
}

/**
 * An `$in` of at most this many values is opened like any other access. Above it, a candidate that searches the
 * index once per value is opened last, and only while no other access yields fewer than SEARCH_COST candidates per
 * search it would make.
 */
const FREE_SEARCHES = 4;
/**
 * One prefix range (two tree descents, ~0.6 µs in a 100k-entry index) against checking one candidate document
 * (~0.05–0.1 µs): an exact `$in` over 500 values (~330 µs) loses to a single-field posting of 2,000 documents.
 */
const SEARCH_COST = 8;

/** An index that can be walked in a shape's sort order after an equality prefix. */
interface WalkCandidate {
  index: OrderedIndex;
  dir: 1 | -1;
  prefix: IndexableCondition[];
  covered: boolean;
  residual: Match;
  /** A range on the first walked field (`fields[prefix.length]`) that narrows the walk's range (e.g. `id < X`). */
  range: IndexableCondition | null;
}

/**
 * A compound index whose first field the filter fixes by an `$in` of several values (and its next fields by one-valued
 * equalities), continuing with the sort's fields: each value's prefix range is already in the sort's order, so a
 * sorted window needs only the first `skip + limit` matches of each range, merged (`{ownerId: {$in: owners}}` sorted
 * by `lowerName` over `{ownerId, lowerName}`: a page of a user's repositories across their organizations reads at
 * most a page per owner, not every repository of every owner).
 */
export interface MergeCandidate {
  index: OrderedIndex;
  dir: 1 | -1;
  /** The slot of the `$in` array. */
  slot: number;
  /** The one-valued equalities on the fields after the first. */
  tail: IndexableCondition[];
  /** The ranges hold exactly the filter's matches (nothing is checked). */
  covered: boolean;
  /** What is left to check per document of a range (the filter without the tail's equalities; the `$in` stays). */
  residual: Match;
}

/** A merge candidate opened with a query's values: the non-empty ranges, in the `$in`'s value order. */
export interface Merge {
  candidate: MergeCandidate;
  ranges: Array<[number, number]>;
  /** The documents the ranges hold. */
  size: number;
}

/**
 * Documents a merge is expected to read for a window ending at `want`: each range up to `want` when covered;
 * otherwise, as for a walk, the matches (estimated by `candidates`, the best access's size) are assumed spread evenly,
 * so a range yields `want` matches after `want × size ÷ matches` documents, or ends first.
 */
export function mergeCost(merge: Merge, want: number, candidates: number): number {
  const perMatch = merge.candidate.covered ? 1 : merge.size / Math.max(1, Math.min(merge.size, candidates));
  let cost = 0;
  for (const [start, end] of merge.ranges) cost += Math.min(end - start, want * perMatch);
  return cost;
}

export interface Plan {
  /** Index accesses in the collection's index order (single-field indexes first). */
  candidates: Candidate[];
  /** Those that may be exact, tried first. */
  mayBeExact: Candidate[];
  /** Without a candidate, the branches of a top-level `$or` when every one has an access (else null). */
  or: Plan[] | null;
  /** Ordered walks (sorted shapes only). */
  walks: WalkCandidate[];
  /**
   * The covered ones. A covered walk reads exactly its window of the matches, which no other way does with fewer
   * reads: when there is one, nothing else is looked at.
   */
  coveredWalks: WalkCandidate[];
  /** Merged walks of an `$in`'s ranges (sorted shapes only). */
  mergeWalks: MergeCandidate[];
  /** The whole filter (what a scan checks). */
  match: Match;
}

function eachOfPostings(postings: Entry[], dedupe: boolean): Access['each'] {
  return (visit) => {
    const seen = dedupe ? new Set<Stored>() : null;
    for (const entry of postings) {
      const n = entrySize(entry);
      for (let i = 0; i < n; i++) {
        const doc = Array.isArray(entry) ? entry[i]! : entry;
        if (seen) {
          if (seen.has(doc)) continue;
          seen.add(doc);
        }
        if (visit(doc)) return;
      }
    }
  };
}

function eachOfRange(index: OrderedIndex, start: number, end: number, dedupe: boolean): Access['each'] {
  return (visit) => {
    if (!dedupe) {
      index.walk(1, start, end - start, visit);
      return;
    }
    const seen = new Set<Stored>();
    index.walk(1, start, end - start, (doc) => {
      if (seen.has(doc)) return false;
      seen.add(doc);
      return visit(doc);
    });
  };
}

/** The single value of an equality (`eqOne`): a plain value, or the only element of an `$in`. */
function eqValue(cond: IndexableCondition, v: Values): IndexKey {
  const q = v[cond.eq!.slot];
  return (cond.eq!.list ? (q as IndexKey[])[0] : q) as IndexKey;
}

/** The leading fields of `index` that the filter fixes by a one-valued equality. */
function equalityPrefix(index: OrderedIndex, filter: PlannableFilter): IndexableCondition[] {
  const prefix: IndexableCondition[] = [];
  for (const field of index.fields) {
    const cond = filter.indexable.get(field);
    if (!cond?.eq || !cond.eqOne) break;
    prefix.push(cond);
  }
  return prefix;
}

/**
 * A range condition on field `k` of `index` (right after an equality prefix of `k` fields) that narrows the prefix's
 * range to a sub-range: `{repoId: 3, id: {$lt: 900}}` over `{repoId, id}` is one range, counted and walked without
 * looking at documents. Not over a multikey field (a document under several of its values).
 */
function nextRange(index: OrderedIndex, filter: PlannableFilter, k: number): IndexableCondition | null {
  if (k >= index.fields.length || index.multikeyField(k) || index.sparse) return null;
  const cond = filter.indexable.get(index.fields[k]!);
  return cond?.range && !cond.eq ? cond : null;
}

function boundsOf(cond: IndexableCondition, v: Values): RangeBounds {
  const bounds: RangeBounds = {};
  for (const { op, slot } of cond.range!) bounds[op] = v[slot] as IndexKey;
  return bounds;
}

/** True when the filter is nothing but pure equalities on the first `k` fields of `index` and a pure range on field `k`. */
function onlyPrefixAndRange(index: OrderedIndex, filter: PlannableFilter, k: number): boolean {
  return (
    filter.keys.length === k + 1 &&
    filter.keys.every((key) => {
      const at = index.fields.indexOf(key);
      if (at < 0 || at > k) return false;
      const cond = filter.indexable.get(key)!;
      return at < k ? cond.pureEq : cond.pureRange;
    })
  );
}

/** True when the filter is nothing but pure equalities on the first `k` fields of `index`. */
function onlyPrefix(index: OrderedIndex, filter: PlannableFilter, k: number): boolean {
  return (
    filter.keys.length === k &&
    filter.keys.every((key) => {
      const at = index.fields.indexOf(key);
      return at >= 0 && at < k && filter.indexable.get(key)!.pureEq;
    })
  );
}

/**
 * The filter without the top-level equalities an access on `fixed` guarantees. Only top-level, pure, one-valued
 * equalities on scalars are dropped (a condition that came from an `$and` stays), so the rest still validates; with
 * `lists`, pure `$in`s too (an access that looked each value up yields only documents holding one of them).
 */
function residualOf(filter: PlannableFilter, fixed: string[], lists = false): Match {
  const drop = new Set<string>();
  for (const field of fixed) {
    const cond = filter.indexable.get(field);
    if (cond?.topLevel && cond.pureEq && (cond.eqOne || lists)) drop.add(field);
  }
  return matchOf(filter, drop.size ? drop : null);
}

/** Whether values are numbers in strictly ascending or descending order: then they are distinct (no set needed). */
function strictlyMonotone(values: readonly IndexKey[]): boolean {
  const n = values.length;
  if (typeof values[0] !== 'number' || typeof values[1] !== 'number') return false;
  const up = values[1]! > values[0]!;
  for (let i = 1; i < n; i++) {
    const a = values[i - 1];
    const b = values[i];
    if (typeof b !== 'number' || (up ? !(b > (a as number)) : !(b < (a as number)))) return false;
  }
  return true;
}

function singleFieldCandidate(index: OrderedIndex, filter: PlannableFilter, cond: IndexableCondition, full: Match): Candidate | null {
  const field = index.fields[0]!;
  const alone = filter.keys.length === 1 && filter.keys[0] === field;
  const name = index.name;
  if (cond.eq) {
    const { slot, list } = cond.eq;
    // An `$in` answered by one lookup per value needs no membership test after it: each document it yields holds one
    // of the values (a `q` issue search tested 423 documents against its `{id: {$in: 423 ids}}` again).
    const residual = cond.eqOne || (list && cond.pureEq) ? residualOf(filter, [field], true) : full;
    const pure = cond.pureEq && alone;
    const open = (v: Values): Access => {
      // One hash lookup per value (an `$in` of ids is as many lookups, no tree search).
      const postings: Entry[] = [];
      let size = 0;
      const q = v[slot];
      if (!list) {
        const posting = index.lookup(q as IndexKey);
        if (posting) {
          postings.push(posting);
          size = entrySize(posting);
        }
      } else {
        const all = q as IndexKey[];
        for (const value of all.length > 1 && !strictlyMonotone(all) ? uniqueNumbers(all) ?? new Set<IndexKey>(all) : all) {
          const posting = index.lookup(value);
          if (posting) {
            postings.push(posting);
            size += entrySize(posting);
          }
        }
      }
      const dedupe = index.multikey && postings.length > 1;
      return { index: name, size, exact: pure && !dedupe, residual, each: eachOfPostings(postings, dedupe) };
    };
    return { open, mayBeExact: pure };
  }
  if (!cond.range) return null;
  const bounds = cond.range;
  const pure = cond.pureRange && alone;
  const open = (v: Values): Access => {
    const range: Partial<Record<'$gt' | '$gte' | '$lt' | '$lte', IndexKey>> = {};
    for (const { op, slot } of bounds) range[op] = v[slot] as IndexKey;
    // Over arrays each bound may be met by another element ({$gt: 5, $lt: 10} matches [1, 20]): one side only.
    const lower = range.$gt !== undefined || range.$gte !== undefined;
    const upper = range.$lt !== undefined || range.$lte !== undefined;
    const [start, end] = index.range(index.multikey && lower && upper ? { $gt: range.$gt, $gte: range.$gte } : range);
    return { index: name, size: end - start, exact: pure && !index.multikey, residual: full, each: eachOfRange(index, start, end, index.multikey) };
  };
  return { open, mayBeExact: pure };
}

/**
 * A compound index serves equality on a prefix of its fields (all of them: a point lookup). The prefix's fields are
 * fixed to one value each, so the range holds a document at most once unless a field after the prefix is multikey
 * (`multikeyFrom`): `{repoId, labelIds: 5}` over `{repoId, labelIds, id}` is counted from its size, exactly, and read
 * without a dedupe set, as over any other index.
 */
function compoundCandidate(index: OrderedIndex, filter: PlannableFilter, prefix: IndexableCondition[]): Candidate {
  const ranged = nextRange(index, filter, prefix.length);
  const covers = ranged ? onlyPrefixAndRange(index, filter, prefix.length) : onlyPrefix(index, filter, prefix.length);
  const residual = residualOf(filter, index.fields.slice(0, prefix.length));
  const name = index.name;
  const point = prefix.length === index.fields.length;
  const open = (v: Values): Access => {
    const values = prefix.map((cond) => eqValue(cond, v));
    if (point) {
      const posting = index.lookupTuple(values);
      return { index: name, size: posting ? entrySize(posting) : 0, exact: covers, residual, each: eachOfPostings(posting ? [posting] : [], false) };
    }
    const [start, end] = ranged ? index.prefixBoundedRange(values, boundsOf(ranged, v)) : index.prefixRange(values);
    const dedupe = index.multikeyFrom(prefix.length);
    return { index: name, size: end - start, exact: covers && !dedupe, residual, each: eachOfRange(index, start, end, dedupe) };
  };
  return { open, mayBeExact: covers };
}

/** The one-valued equalities on the fields of `index` after its first, up to the first field without one. */
function equalitiesAfterFirst(index: OrderedIndex, filter: PlannableFilter): IndexableCondition[] {
  const tail: IndexableCondition[] = [];
  for (let f = 1; f < index.fields.length; f++) {
    const cond = filter.indexable.get(index.fields[f]!);
    if (!cond?.eq || !cond.eqOne) break;
    tail.push(cond);
  }
  return tail;
}

/**
 * A compound index whose first field the filter fixes by an `$in` of several values, and its next fields by one-valued
 * equalities: one prefix range per value (e.g. `{repoId: {$in: ids}, isClosed: false}` over `{repoId, isClosed, …}`:
 * a count is the sum of the ranges' sizes, no document read). Not when the first field is multikey (a document in two
 * ranges), nor when a field after the one-valued ones is (a document twice in a range).
 */
function inPrefixCandidate(index: OrderedIndex, filter: PlannableFilter, first: IndexableCondition): Candidate | null {
  // A sparse index lacks the documents without the field, which an `$in` with null matches.
  if (index.multikeyField(0) || index.sparse || !first.eq?.list) return null;
  const tail = equalitiesAfterFirst(index, filter);
  const k = 1 + tail.length;
  if (index.multikeyFrom(k)) return null;
  const ranged = nextRange(index, filter, k);
  const covers = ranged ? onlyPrefixAndRange(index, filter, k) : onlyPrefix(index, filter, k);
  const residual = residualOf(filter, index.fields.slice(0, k));
  const name = index.name;
  const slot = first.eq.slot;
  const open = (v: Values): Access => {
    const rest = tail.map((cond) => eqValue(cond, v));
    const bounds = ranged ? boundsOf(ranged, v) : null;
    const ranges: Array<[number, number]> = [];
    let size = 0;
    for (const value of new Set(v[slot] as IndexKey[])) {
      const [start, end] = bounds ? index.prefixBoundedRange([value, ...rest], bounds) : index.prefixRange([value, ...rest]);
      if (end > start) {
        ranges.push([start, end]);
        size += end - start;
      }
    }
    const each: Access['each'] = (visit) => {
      let stopped = false;
      const inner = (doc: Stored): boolean => (stopped = visit(doc));
      for (const [start, end] of ranges) {
        index.walk(1, start, end - start, inner);
        if (stopped) return;
      }
    };
    return { index: name, size, exact: covers, residual, each };
  };
  return { open, mayBeExact: covers, searches: (v) => (v[slot] as IndexKey[]).length };
}

/**
 * An index whose fields, after a prefix the filter fixes by equality, continue with the sort's fields in the
 * index's directions (or all reversed). Fields after the prefix must not be multikey (a document under several
 * keys, or under an object); prefix fields may be, each fixed to one value (`multikeyFrom`: the range holds a
 * document once). Not for a sparse index without an equality prefix (it lacks the documents without the field).
 */
function walkCandidate(index: OrderedIndex, filter: PlannableFilter, sort: SortFields): WalkCandidate | null {
  const { fields, dirs } = index;
  const prefix = equalityPrefix(index, filter);
  const k = prefix.length;
  if (index.multikeyFrom(k)) return null;
  if (index.sparse && k === 0) return null;
  // Sort fields the prefix holds constant do not order anything; a multikey one is not constant (an array sorts by
  // its smallest or largest element, which differs between the documents holding the prefix's value).
  const paths = sort.map((s) => s.parts.join('.'));
  const rest: number[] = [];
  for (let s = 0; s < sort.length; s++) {
    const at = fields.indexOf(paths[s]!);
    if (at >= 0 && at < k && index.multikeyField(at)) return null;
    if (at < 0 || at >= k) rest.push(s);
  }
  if (rest.length === 0 || k + rest.length > fields.length) return null;
  const dir = (sort[rest[0]!]!.dir * dirs[k]!) as 1 | -1;
  if (!rest.every((s, j) => paths[s] === fields[k + j] && sort[s]!.dir * dirs[k + j]! === dir)) return null;
  // A range on the first walked field starts (and ends) the walk inside the prefix's range: `{isClosed: false, id:
  // {$lt: X}}` sorted `{id: -1}` over `{isClosed, id}` walks from X down, not from the top.
  const range = nextRange(index, filter, k);
  const covered = range ? onlyPrefixAndRange(index, filter, k) : onlyPrefix(index, filter, k);
  return { index, dir, prefix, covered, residual: residualOf(filter, fields.slice(0, k)), range };
}

/** The walk direction in which `index`'s fields from `k` on follow `sort` (null: they do not, or a multikey one is in the way). */
function sortDirAfter(index: OrderedIndex, sort: SortFields, k: number): 1 | -1 | null {
  const { fields, dirs } = index;
  if (sort.length === 0 || k + sort.length > fields.length || index.multikeyFrom(k)) return null;
  const dir = (sort[0]!.dir * dirs[k]!) as 1 | -1;
  for (let s = 0; s < sort.length; s++) {
    if (sort[s]!.parts.join('.') !== fields[k + s] || sort[s]!.dir * dirs[k + s]! !== dir) return null;
  }
  return dir;
}

function mergeCandidate(index: OrderedIndex, filter: PlannableFilter, sort: SortFields): MergeCandidate | null {
  if (!index.compound || index.sparse || index.multikeyField(0)) return null;
  const first = filter.indexable.get(index.fields[0]!);
  if (!first?.eq?.list || first.eqOne) return null;
  const tail = equalitiesAfterFirst(index, filter);
  const k = 1 + tail.length;
  const dir = sortDirAfter(index, sort, k);
  if (dir === null) return null;
  return { index, dir, slot: first.eq.slot, tail, covered: onlyPrefix(index, filter, k), residual: residualOf(filter, index.fields.slice(1, k)) };
}

/**
 * The merge of `merges` for the query's values that reads the fewest documents for a window ending at `want`, a
 * covered one first (null: none). Each distinct value's range is searched (two tree descents); empty ones are left
 * out.
 */
export function mergeOf(merges: MergeCandidate[], v: Values, want: number): Merge | null {
  let best: Merge | null = null;
  let bestCost = Infinity;
  for (const candidate of merges) {
    const { index, tail } = candidate;
    const rest = tail.map((cond) => eqValue(cond, v));
    const ranges: Array<[number, number]> = [];
    let size = 0;
    const values = v[candidate.slot] as IndexKey[];
    for (const value of values.length > 1 && !strictlyMonotone(values) ? uniqueNumbers(values) ?? new Set<IndexKey>(values) : values) {
      const [start, end] = index.prefixRange([value, ...rest]);
      if (end <= start) continue;
      ranges.push([start, end]);
      size += end - start;
    }
    const merge = { candidate, ranges, size };
    // Uncovered, every document of a range may be read (nothing is known yet of how many match).
    const cost = candidate.covered ? mergeCost(merge, want, size) : size;
    if (!best || (candidate.covered && !best.candidate.covered) || (candidate.covered === best.candidate.covered && cost < bestCost)) {
      best = merge;
      bestCost = cost;
    }
  }
  return best;
}

/** The plan of a filter shape over `indexes` (the collection's, single-field ones first). */
/**
 * The fields an index must start with to be of any use to `planFor` for this filter and sort: every candidate needs
 * its first field among the filter's indexable ones (its `$or` branches' included), or, walked whole for a sort, equal
 * to a sort field. An index starting elsewhere is never weighed, so it may stay unbuilt (the embedded store builds
 * its indexes after the boot, or when a query first needs one).
 */
export function leadingFieldsOf(filter: PlannableFilter, sort: SortFields | null, into = new Set<string>()): Set<string> {
  for (const field of filter.indexable.keys()) into.add(field);
  if (filter.or) for (const branch of filter.or) leadingFieldsOf(branch, null, into);
  if (sort) for (const s of sort) into.add(s.parts.join('.'));
  return into;
}

/**
 * How much an index on `fields` would do for a first plan of this filter and sort: two points per leading field the
 * filter fixes by a one-valued equality, one more when the fields after those continue with the sort's (walked, a page
 * stops early). Zero for a range, a long `$in` or an `$or`, which this does not weigh.
 */
export function usefulness(filter: PlannableFilter, sort: SortFields | null, fields: readonly string[]): number {
  let k = 0;
  for (; k < fields.length; k++) {
    const cond = filter.indexable.get(fields[k]!);
    if (!cond?.eq || !cond.eqOne) break;
  }
  const walks = sort !== null && sort.length > 0 && sort.every((s, j) => fields[k + j] === s.parts.join('.'));
  return 2 * k + (walks ? 1 : 0);
}

export function planFor(filter: PlannableFilter, indexes: OrderedIndex[], sort: SortFields | null): Plan {
  const match = matchOf(filter);
  const candidates: Candidate[] = [];
  /** Fields with a single-field equality access: a compound prefix on that field alone cannot do better. */
  const looked = new Set<string>();
  for (const index of indexes) {
    if (!index.compound) {
      const cond = filter.indexable.get(index.fields[0]!);
      const candidate = cond ? singleFieldCandidate(index, filter, cond, match) : null;
      if (!candidate) continue;
      candidates.push(candidate);
      if (cond!.eq && cond!.eqOne) looked.add(index.fields[0]!);
      continue;
    }
    const prefix = equalityPrefix(index, filter);
    if (prefix.length === 0) {
      const first = filter.indexable.get(index.fields[0]!);
      const candidate = first ? inPrefixCandidate(index, filter, first) : null;
      if (candidate) candidates.push(candidate);
      continue;
    }
    if (prefix.length === 1 && looked.has(index.fields[0]!) && !nextRange(index, filter, 1)) continue;
    candidates.push(compoundCandidate(index, filter, prefix));
  }
  let or: Plan[] | null = null;
  if (candidates.length === 0 && filter.or) {
    // Every branch served by an index: the union of their candidates.
    const branches = filter.or.map((branch) => planFor(branch, indexes, null));
    if (branches.every((b) => b.candidates.length > 0 || b.or)) or = branches;
  }
  const walks: WalkCandidate[] = [];
  const mergeWalks: MergeCandidate[] = [];
  if (sort) {
    for (const index of indexes) {
      const walk = walkCandidate(index, filter, sort);
      if (walk) walks.push(walk);
      const merge = mergeCandidate(index, filter, sort);
      if (merge) mergeWalks.push(merge);
    }
  }
  return { candidates, mayBeExact: candidates.filter((c) => c.mayBeExact), or, walks, coveredWalks: walks.filter((w) => w.covered), mergeWalks, match };
}

function searchesOf(candidate: Candidate, v: Values): number {
  return candidate.searches ? candidate.searches(v) : 0;
}

/**
 * The index access that yields the fewest candidates for the query's values, or null for a collection scan. An exact
 * access is taken at once, unless opening it means a search per value of a long `$in` (see SEARCH_COST).
 */
export function accessOf(plan: Plan, v: Values): Access | null {
  /** Whether a candidate was put off: it searches the index once per value of a long `$in`. */
  let deferred = false;
  for (const candidate of plan.mayBeExact) {
    if (searchesOf(candidate, v) > FREE_SEARCHES) {
      deferred = true;
      continue;
    }
    const a = candidate.open(v);
    if (a.exact) return a;
  }
  let best: Access | null = null;
  for (const candidate of plan.candidates) {
    if (searchesOf(candidate, v) > FREE_SEARCHES) {
      deferred = true;
      continue;
    }
    const a = candidate.open(v);
    if (!best || a.size < best.size || (a.size === best.size && a.exact && !best.exact)) best = a;
    if (best.size === 0) return best;
  }
  // Those last, each opened only while no access found so far is cheaper than the searches it would make; the ones
  // that may be exact first (an exact one ends the search: a long `$in` over several indexes that start with its
  // field is searched once, not once per index).
  if (deferred) {
    for (const list of [plan.mayBeExact, plan.candidates]) {
      for (const candidate of list) {
        if (list === plan.candidates && candidate.mayBeExact) continue; // weighed in the first pass
        const searches = searchesOf(candidate, v);
        if (searches <= FREE_SEARCHES || (best && best.size <= searches * SEARCH_COST)) continue;
        const a = candidate.open(v);
        if (a.exact) return a;
        if (!best || a.size < best.size) best = a;
      }
    }
  }
  if (best || !plan.or) return best;
  const branches: Access[] = [];
  for (const branch of plan.or) {
    const sub = accessOf(branch, v);
    if (!sub) return null;
    branches.push(sub);
  }
  return {
    index: [...new Set(branches.map((b) => b.index))].join('|'),
    size: branches.reduce((n, b) => n + b.size, 0),
    exact: false,
    residual: plan.match,
    each: (visit) => {
      const seen = new Set<Stored>();
      let stopped = false;
      for (const b of branches) {
        b.each((doc) => {
          if (seen.has(doc)) return false;
          seen.add(doc);
          stopped = visit(doc);
          return stopped;
        });
        if (stopped) return;
      }
    },
  };
}

/**
 * The cheapest of `walks` for the query's values and window. A covered walk reads only its window; otherwise the
 * matches (estimated by `candidates`, the best access's size) are assumed spread evenly over the range, so reading
 * `skip + limit` of them takes that share of it.
 */
export function walkOf(walks: WalkCandidate[], v: Values, skip: number, limit: number, candidates: number): Walk | null {
  let best: Walk | null = null;
  for (const w of walks) {
    const { index, prefix } = w;
    const values = prefix.map((cond) => eqValue(cond, v));
    const [start, end] = w.range
      ? index.compound ? index.prefixBoundedRange(values, boundsOf(w.range, v)) : index.range(boundsOf(w.range, v))
      : prefix.length === 0 ? [0, index.entries] : index.prefixRange(values);
    const span = end - start;
    let cost: number;
    if (w.covered) cost = Math.min(span, limit > 0 ? limit : span);
    else {
      const matches = Math.max(1, Math.min(span, candidates));
      cost = limit > 0 ? Math.min(span, ((skip + limit) * span) / matches) : span;
    }
    if (!best || cost < best.cost) best = { index, dir: w.dir, start, end, covered: w.covered, residual: w.residual, cost };
  }
  return best;
}
