// Query shapes: a query's filter structure, value kinds, sort and projection as a flat list of tokens.
//
// A shape is what the embedded adapter compiles and plans once (`collection.ts`): the fields, operators and
// `$and`/`$or` nesting of the filter, for each value only its kind, and the sort and projection. A repeated query is
// recognised by walking it against the tokens of a cached shape, collecting its values on the way: no key string is
// built and nothing is hashed but the filter's first field name. Names are strings and every other token is a number,
// so a field called `}` or `n` can never pass for a bracket or a kind: two queries give the same tokens exactly when
// they have the same shape.
import type { Filter, Projection, SortSpec } from '../port.js';
import { isPlainObject } from '../documents.js';

/** The values of one query, in the order the shape's tokens meet them. */
export type Values = unknown[];

export type Token = string | number;

/** The kinds of values a shape tells apart (every compile-time decision depends on no more than the kind). */
export const KIND = {
  null: 1,
  undefined: 2,
  /** A finite number (an index key). */
  number: 3,
  /** NaN or ±Infinity: matched like numbers, never an index key. */
  nonFinite: 4,
  string: 5,
  boolean: 6,
  /** An array of exactly one index key (`$in: [7]` plans like an equality). */
  oneKeyArray: 7,
  /** An array of index keys of any other length. */
  keyArray: 8,
  /** Any other array. */
  array: 9,
  object: 10,
  /** Functions, symbols, bigints: never valid, kept apart so that they fail as they would on their own. */
  other: 11,
} as const;

export type Kind = (typeof KIND)[keyof typeof KIND];

// Structure tokens (numbers outside the kinds).
const OPEN = 20; // a filter object `{`
const CLOSE = 21; // its end `}`
const LIST = 22; // `$and` / `$or` with an array `[`
const LIST_END = 23;
const OPS = 24; // an operator object `(`
const OPS_END = 25;
const VALUE = 26; // a plain value (equality), or anything else
const SORT = 27;
const ASC = 28;
const DESC = 29;
const BAD_DIRECTION = 30; // what `compileSort` refuses
const PROJECTION = 31;
const INCLUDE = 32;
const EXCLUDE = 33;
const END = 34;

export type IndexKey = string | number | boolean;

export function isIndexKey(v: unknown): v is IndexKey {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

export function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case 'string': return KIND.string;
    case 'number': return Number.isFinite(v) ? KIND.number : KIND.nonFinite;
    case 'boolean': return KIND.boolean;
    case 'undefined': return KIND.undefined;
    case 'object': {
      if (v === null) return KIND.null;
      if (!Array.isArray(v)) return KIND.object;
      for (const el of v) if (!isIndexKey(el)) return KIND.array;
      return v.length === 1 ? KIND.oneKeyArray : KIND.keyArray;
    }
    default: return KIND.other;
  }
}

/** True when a condition object holds an operator (`{$gt: 1}`), not a plain value (`{b: 1}`). */
export function hasOperator(cond: Record<string, unknown>): boolean {
  for (const k in cond) if (k.charCodeAt(0) === 36) return true;
  return false;
}

/**
 * Appends the tokens of a plain-object filter to `out` and its values to `values`. Never throws: what the compiler
 * refuses still has a shape, and is refused when compiled.
 *
 *   filter    = OPEN (name condition)* CLOSE
 *   condition = LIST (filter | kind)* LIST_END     `$and` / `$or` with an array
 *             | OPS (name kind)* OPS_END           an operator object
 *             | VALUE kind                         a value (equality), or anything else
 */
function filterTokens(filter: Record<string, unknown>, out: Token[], values: Values): void {
  out.push(OPEN);
  for (const name of Object.keys(filter)) {
    const cond = filter[name];
    out.push(name);
    if ((name === '$and' || name === '$or') && Array.isArray(cond)) {
      out.push(LIST);
      for (const sub of cond) {
        if (isPlainObject(sub)) filterTokens(sub, out, values);
        else {
          out.push(kindOf(sub));
          values.push(sub);
        }
      }
      out.push(LIST_END);
    } else if (isPlainObject(cond) && hasOperator(cond)) {
      out.push(OPS);
      for (const op of Object.keys(cond)) {
        const q = cond[op];
        out.push(op, kindOf(q));
        values.push(q);
      }
      out.push(OPS_END);
    } else {
      out.push(VALUE, kindOf(cond));
      values.push(cond);
    }
  }
  out.push(CLOSE);
}

/** `filterTokens` as a comparison: walks `filter` against `t` from `i`; the next position, or -1 at a difference. */
function sameFilter(t: readonly Token[], i: number, filter: Record<string, unknown>, values: Values): number {
  if (t[i++] !== OPEN) return -1;
  for (const name of Object.keys(filter)) {
    if (t[i++] !== name) return -1;
    const cond = filter[name];
    if ((name === '$and' || name === '$or') && Array.isArray(cond)) {
      if (t[i++] !== LIST) return -1;
      for (const sub of cond) {
        if (isPlainObject(sub)) {
          i = sameFilter(t, i, sub, values);
          if (i < 0) return -1;
        } else {
          if (t[i++] !== kindOf(sub)) return -1;
          values.push(sub);
        }
      }
      if (t[i++] !== LIST_END) return -1;
    } else if (isPlainObject(cond) && hasOperator(cond)) {
      if (t[i++] !== OPS) return -1;
      for (const op of Object.keys(cond)) {
        const q = cond[op];
        if (t[i++] !== op || t[i++] !== kindOf(q)) return -1;
        values.push(q);
      }
      if (t[i++] !== OPS_END) return -1;
    } else {
      if (t[i++] !== VALUE || t[i++] !== kindOf(cond)) return -1;
      values.push(cond);
    }
  }
  return t[i++] === CLOSE ? i : -1;
}

function direction(dir: unknown): number {
  return dir === 1 ? ASC : dir === -1 ? DESC : BAD_DIRECTION;
}

/** All that `compileProjection` reads of a flag. */
function inclusion(flag: unknown): number {
  return flag === 1 || flag === true ? INCLUDE : EXCLUDE;
}

/** The tokens of a query's shape (filter, sort, projection); its values go to `values`. */
export function queryTokens(filter: Filter, sort: SortSpec | undefined, projection: Projection | undefined, values: Values): Token[] {
  const out: Token[] = [];
  filterTokens(filter, out, values);
  out.push(SORT);
  if (sort) for (const path of Object.keys(sort)) out.push(path, direction(sort[path]));
  out.push(PROJECTION);
  if (projection) for (const path of Object.keys(projection)) out.push(path, inclusion(projection[path]));
  out.push(END);
  return out;
}

/**
 * True when the query has the shape `tokens` stand for; its values are then in `values` (on false, `values` holds
 * whatever was collected before the difference: the caller empties it).
 */
export function sameQuery(tokens: readonly Token[], filter: Filter, sort: SortSpec | undefined, projection: Projection | undefined, values: Values): boolean {
  let i = sameFilter(tokens, 0, filter, values);
  if (i < 0 || tokens[i++] !== SORT) return false;
  if (sort) for (const path of Object.keys(sort)) if (tokens[i++] !== path || tokens[i++] !== direction(sort[path])) return false;
  if (tokens[i++] !== PROJECTION) return false;
  if (projection) for (const path of Object.keys(projection)) if (tokens[i++] !== path || tokens[i++] !== inclusion(projection[path])) return false;
  return tokens[i] === END;
}
