// The port's filter language evaluated in memory with MongoDB's semantics, compiled once per filter *shape*.
//
// nedb ships a matcher too, but it differs from MongoDB where plugins would notice (`{a: null}` does not match a
// missing field, `$ne`/`$nin` on arrays test elements one by one, `$exists` is false for an empty array, `$eq` is
// unknown). Both adapters must answer the same way, so the embedded adapter compiles filters itself.
//
// A filter's shape is its structure with the values taken out: the fields, operators and `$and`/`$or` nesting, and
// for each value only its kind (`shape.ts`). A shape is compiled once into a template whose conditions read their
// values from an array (`Values`), filled per query in the order the shape meets them; so a repeated query with new
// values only binds them. Everything the template decides at compile time depends on the kinds alone (a null
// equality, a range's type, whether an `$in` holds index keys); anything that depends on a value itself (`$exists`'
// truthiness, `$in` membership sets) is read from the values when the query runs.
import type { Filter } from '../port.js';
import { isPlainObject } from '../documents.js';
import { KIND, hasOperator, isIndexKey, kindOf, queryTokens, type Kind, type Values } from './shape.js';
import { described, generatedMatch, nodeOf, type LeafTest } from './match-code.js';

export type { IndexKey, Values } from './shape.js';

type Stored = Record<string, unknown>;
export type Predicate = (doc: Stored) => boolean;
/** A compiled condition: tests a document against the values bound for the query. */
export type Match = (doc: Stored, v: Values) => boolean;
/** Tests one value reached in a document against a query value (or a prepared tester). */
type Test = (x: unknown, q: unknown) => boolean;

/** A path part that can index into an array. */
export const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** Calls `test` on every value the dotted path reaches (MongoDB traverses arrays of sub-documents). */
function anyLeaf(node: unknown, parts: string[], i: number, test: Test, q: unknown): boolean {
  if (i === parts.length) return test(node, q);
  if (Array.isArray(node)) {
    const part = parts[i]!;
    if (ARRAY_INDEX.test(part)) {
      const idx = Number(part);
      if (idx < node.length && anyLeaf(node[idx], parts, i + 1, test, q)) return true;
    }
    let sawScalar = false;
    for (const el of node) {
      if (typeof el === 'object' && el !== null && !Array.isArray(el)) {
        if (anyLeaf(el, parts, i, test, q)) return true;
      } else sawScalar = true;
    }
    // An element without the field counts as a missing value (so `{'a.b': null}` matches `{a: [1]}`).
    return sawScalar || node.length === 0 ? test(undefined, q) : false;
  }
  if (typeof node === 'object' && node !== null) return anyLeaf((node as Stored)[parts[i]!], parts, i + 1, test, q);
  return test(undefined, q);
}

/** Deep equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) {
    if (!Object.hasOwn(b, k) || !jsonEqual((a as Stored)[k], (b as Stored)[k])) return false;
  }
  return true;
}

// Equality of a stored value against a query value: null matches missing, arrays match by element too.
const eqNull: Test = (x) => x === null || x === undefined || (Array.isArray(x) && x.includes(null));
const eqScalar: Test = (x, q) => x === q || (Array.isArray(x) && x.includes(q));
const eqObject: Test = (x, q) => jsonEqual(x, q) || (Array.isArray(x) && x.some((e) => jsonEqual(e, q)));
const never: Test = () => false;
const defined: Test = (x) => x !== undefined;
/** `$in` / `$nin`: the query value is the membership test `inTest` prepared for the query. */
const member: Test = (x, t) => (t as (x: unknown) => boolean)(x);

/** `$in` / `$nin` membership: a hash lookup for scalar values (ids), the element-wise test for the rest. */
function inTest(values: unknown[]): (x: unknown) => boolean {
  const scalars = new Set<unknown>();
  const others: unknown[] = [];
  for (const q of values) {
    if (q !== null && typeof q !== 'object') scalars.add(q);
    else others.push(q);
  }
  const one = (x: unknown): boolean => scalars.has(x);
  if (others.length === 0) return (x) => one(x) || (Array.isArray(x) && x.some(one));
  const rest = others.map((q): ((x: unknown) => boolean) => (q === null ? (x) => eqNull(x, q) : (x) => eqObject(x, q)));
  return (x) => one(x) || (Array.isArray(x) && x.some(one)) || rest.some((t) => t(x));
}

type Cmp = '$gt' | '$gte' | '$lt' | '$lte';

/** A range test for query values of one kind (the shape's): same-type comparison, arrays by element. */
function rangeTest(op: Cmp, kind: Kind): Test {
  if (kind === KIND.null) {
    // MongoDB: $gte/$lte null match null and missing; $gt/$lt null match nothing.
    return op === '$gte' || op === '$lte' ? eqNull : never;
  }
  if (kind !== KIND.number && kind !== KIND.nonFinite && kind !== KIND.string && kind !== KIND.boolean) {
    throw new TypeError(`${op} needs a number, string, boolean or null`);
  }
  // Values of one JS type compare natively; `typeof x === typeof q` is MongoDB's type bracketing.
  let one: Test;
  switch (op) {
    case '$gt': one = (x, q) => typeof x === typeof q && (x as number) > (q as number); break;
    case '$gte': one = (x, q) => typeof x === typeof q && (x as number) >= (q as number); break;
    case '$lt': one = (x, q) => typeof x === typeof q && (x as number) < (q as number); break;
    default: one = (x, q) => typeof x === typeof q && (x as number) <= (q as number);
  }
  return (x, q) => one(x, q) || (Array.isArray(x) && x.some((e) => one(e, q)));
}

/** True for `{$op: …}` conditions (false for a value such as `{b: 1}`); a mix of operators and fields throws. */
export function isOperatorObject(cond: unknown): cond is Record<string, unknown> {
  if (!isPlainObject(cond) || !hasOperator(cond)) return false;
  for (const k in cond) if (k.charCodeAt(0) !== 36) throw new TypeError('a condition cannot mix operators and fields');
  return true;
}

// ---------------------------------------------------------------------------------------------- templates

/** A condition an index can serve, located by slots in the query's values. */
export interface IndexableCondition {
  /** Equality (`{a: v}`, `$eq`, `$in` of index keys): the slot of the value, or of the `$in` array when `list`. */
  eq?: { slot: number; list: boolean };
  /** The equality has exactly one value (a plain one, or an `$in` of one). */
  eqOne: boolean;
  /** Range bounds on index keys of one type, by slot. */
  range?: Array<{ op: Cmp; slot: number }>;
  /** The condition is nothing but the equality (an index answer is exact). */
  pureEq: boolean;
  /** The condition is nothing but the range. */
  pureRange: boolean;
  /** The condition is a top-level key of its filter (not from an `$and`): a plan that meets it may drop it. */
  topLevel: boolean;
}

/** What the planner reads of one filter object (the whole filter, or a branch of its top-level `$or`). */
export interface PlannableFilter {
  /** The filter's own keys, in order. */
  keys: string[];
  /** Indexable conditions of top-level fields and of top-level `$and` clauses (the first one of a field wins). */
  indexable: Map<string, IndexableCondition>;
  /** The branches of a top-level `$or` (null when there is none, or one is not an object). */
  or: PlannableFilter[] | null;
  /** The filter's top-level conditions in order: a field's (with its name), or an `$and` / `$or` (null). */
  clauses: Array<{ field: string | null; match: Match }>;
}

export interface FilterTemplate extends PlannableFilter {
  /** Values the shape collects. */
  slots: number;
  /** `$in` / `$nin` arrays whose membership test is made per query: from the array's slot into a derived one. */
  derived: Array<{ from: number; to: number }>;
}

/** Where compilation is: it walks a filter exactly as `queryTokens` does, handing out the slot of each value. */
interface Cursor {
  next: number;
  /** Derived slots are numbered after the values. */
  derived: Array<{ from: number; to: number }>;
  firstDerived: number;
}

/** The equality test for query values of one kind. */
function equalityTest(kind: Kind): Test {
  if (kind === KIND.null) return eqNull;
  if (kind === KIND.object || kind === KIND.oneKeyArray || kind === KIND.keyArray || kind === KIND.array) return eqObject;
  return eqScalar;
}

/** The generated code's name of a test (`match-code.ts`'s helpers), when it has one (ranges name their operator). */
function leafTestOf(test: Test): LeafTest | null {
  if (test === eqScalar) return 'eqScalar';
  if (test === eqNull) return 'eqNull';
  if (test === member) return 'member';
  if (test === defined) return 'defined';
  return null;
}

/** A test at a dotted path, reading its query value from `slot`; `name` is the test's in generated code. */
function atPath(path: string, test: Test, slot: number, name: LeafTest | null = leafTestOf(test)): Match {
  const parts = path.split('.');
  if (parts.length === 1) {
    const match: Match = (doc, v) => test(doc[path], v[slot]);
    return name ? described(match, { kind: 'leaf', field: path, test: name, slot, negate: false }) : match;
  }
  return (doc, v) => anyLeaf(doc, parts, 0, test, v[slot]);
}

/** `!match`, described as the negated leaf when `match` is one. */
function not(match: Match): Match {
  const negated: Match = (doc, v) => !match(doc, v);
  const node = nodeOf(match);
  return node.kind === 'leaf' && !node.negate ? described(negated, { ...node, negate: true }) : negated;
}

function allOf(matches: Match[]): Match {
  if (matches.length === 1) return matches[0]!;
  const node = { kind: 'and' as const, nodes: matches.map(nodeOf) };
  if (matches.length === 0) return described(() => true, node);
  if (matches.length === 2) {
    const [a, b] = matches as [Match, Match];
    return described((doc, v) => a(doc, v) && b(doc, v), node);
  }
  return described((doc, v) => {
    for (const m of matches) if (!m(doc, v)) return false;
    return true;
  }, node);
}

/** One field's condition: its match and, when an index can serve it, the indexable part. */
function compileCondition(path: string, cond: unknown, values: Values, at: Cursor): { match: Match; indexable: Omit<IndexableCondition, 'topLevel'> | null } {
  if (!isOperatorObject(cond)) {
    const slot = at.next++;
    const kind = kindOf(values[slot]);
    const indexable = isIndexKey(cond) ? { eq: { slot, list: false }, eqOne: true, pureEq: true, pureRange: false } : null;
    return { match: atPath(path, equalityTest(kind), slot), indexable };
  }
  const matches: Match[] = [];
  let eq: IndexableCondition['eq'];
  let eqOne = false;
  let eqs = 0;
  let range: Array<{ op: Cmp; slot: number; type: string }> | undefined;
  let other = 0;
  for (const op of Object.keys(cond)) {
    const slot = at.next++;
    const kind = kindOf(values[slot]);
    switch (op) {
      case '$eq':
        matches.push(atPath(path, equalityTest(kind), slot));
        if (isIndexKey(values[slot])) {
          eq = { slot, list: false };
          eqOne = true;
          eqs++;
        } else other++;
        break;
      case '$ne': {
        matches.push(not(atPath(path, equalityTest(kind), slot)));
        other++;
        break;
      }
      case '$in':
      case '$nin': {
        if (!Array.isArray(values[slot])) throw new TypeError(`${op} needs an array`);
        const to = at.firstDerived + at.derived.length;
        at.derived.push({ from: slot, to });
        const test = atPath(path, member, to);
        matches.push(op === '$in' ? test : not(test));
        if (op === '$in' && (kind === KIND.oneKeyArray || kind === KIND.keyArray)) {
          eq = { slot, list: true };
          eqOne = kind === KIND.oneKeyArray;
          eqs++;
        } else other++;
        break;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const test = rangeTest(op, kind);
        // A null bound's test is `eqNull` or `never` (named by what it is); any other is the typed comparison.
        matches.push(atPath(path, test, slot, kind === KIND.null ? (test === eqNull ? 'eqNull' : null) : op));
        if (isIndexKey(values[slot])) (range ??= []).push({ op, slot, type: typeof values[slot] });
        else other++;
        break;
      }
      case '$exists': {
        const test = atPath(path, defined, slot);
        // The value's truthiness is read per query (the shape only knows its kind).
        const exists: Match = (doc, v) => test(doc, v) === Boolean(v[slot]);
        matches.push(path.includes('.') ? exists : described(exists, { kind: 'exists', field: path, slot }));
        other++;
        break;
      }
      default:
        throw new TypeError(`unsupported filter operator ${op}`);
    }
  }
  const match = allOf(matches);
  // An equality is served by the index (the last one given, with `$eq` and `$in` both); any other condition, a
  // second equality included, is left to the match.
  if (eq) return { match, indexable: { eq, eqOne, pureEq: other === 0 && eqs === 1 && !range, pureRange: false } };
  if (range && range.every((r) => r.type === range![0]!.type)) {
    return { match, indexable: { range: range.map(({ op, slot }) => ({ op, slot })), eqOne: false, pureEq: false, pureRange: other === 0 } };
  }
  return { match, indexable: null };
}

/** Compiles one filter object (the whole filter, or an `$and` / `$or` clause); `into` gathers `$and`'s fields. */
function compileObject(filter: Record<string, unknown>, values: Values, at: Cursor, into?: Map<string, IndexableCondition>): PlannableFilter {
  const keys = Object.keys(filter);
  const indexable = into ?? new Map<string, IndexableCondition>();
  const clauses: PlannableFilter['clauses'] = [];
  let or: PlannableFilter[] | null = null;
  for (const name of keys) {
    const cond = filter[name];
    if (name === '$and' || name === '$or') {
      if (!Array.isArray(cond) || cond.length === 0) throw new TypeError(`${name} needs a non-empty array`);
      const subs: PlannableFilter[] = [];
      for (const sub of cond) {
        if (!isPlainObject(sub)) throw new TypeError('a filter must be a plain object');
        // The fields of `$and` clauses are conditions on the whole filter: the planner may use them.
        subs.push(compileObject(sub, values, at, name === '$and' ? indexable : undefined));
      }
      const matches = subs.map((s) => allOf(s.clauses.map((c) => c.match)));
      const match: Match = name === '$and' ? allOf(matches)
        : described((doc, v) => matches.some((m) => m(doc, v)), { kind: 'or', nodes: matches.map(nodeOf) });
      clauses.push({ field: null, match });
      if (name === '$or') or = subs;
    } else if (name.charCodeAt(0) === 36) {
      throw new TypeError(`unsupported filter operator ${name}`);
    } else {
      const { match, indexable: part } = compileCondition(name, cond, values, at);
      clauses.push({ field: name, match });
      if (part && !indexable.has(name)) indexable.set(name, { ...part, topLevel: into === undefined });
    }
  }
  return { keys, indexable, or, clauses };
}

/**
 * Compiles the shape of `filter` (whose values `queryTokens` has just collected into `values`): the template fits
 * every filter of the same shape. Unknown operators and malformed conditions throw.
 */
export function compileTemplate(filter: Record<string, unknown>, values: Values): FilterTemplate {
  const at: Cursor = { next: 0, derived: [], firstDerived: values.length };
  const top = compileObject(filter, values, at);
  if (at.next !== values.length) throw new Error('store: a filter template and its shape disagree');
  return { ...top, slots: values.length, derived: at.derived };
}

/** Adds the per-query slots (`$in` membership tests) to the values `queryTokens` collected. */
export function bindValues(template: FilterTemplate, values: Values): Values {
  for (const { from, to } of template.derived) values[to] = inTest(values[from] as unknown[]);
  return values;
}

/**
 * The conjunction of a filter's top-level conditions, leaving out those of the fields in `without`: generated code
 * (`match-code.ts`) unless `generate` is false (a predicate used a few times is not worth compiling).
 */
export function matchOf(filter: PlannableFilter, without: ReadonlySet<string> | null = null, generate = true): Match {
  const kept = (without ? filter.clauses.filter((c) => c.field === null || !without.has(c.field)) : filter.clauses).map((c) => c.match);
  const closures = allOf(kept);
  return generate ? generatedMatch(kept, closures) : closures;
}

/** Compiles a filter into a predicate (no caching: the collections keep their templates per shape). */
export function compileFilter(filter: Filter): Predicate {
  if (!isPlainObject(filter)) throw new TypeError('a filter must be a plain object');
  const values: Values = [];
  queryTokens(filter, undefined, undefined, values);
  const template = compileTemplate(filter, values);
  const match = matchOf(template, null, false);
  const v = bindValues(template, values);
  return (doc) => match(doc, v);
}

/** A single condition on a value (`$pull`'s `{$in: […]}`, `{$gte: 3}`) as a predicate over that value. */
export function conditionPredicate(cond: Record<string, unknown>): (value: unknown) => boolean {
  const pred = compileFilter({ v: cond });
  return (value) => pred({ v: value });
}
