// The port's filter, sort and update languages evaluated in memory with MongoDB's semantics.
//
// nedb ships a matcher and a modifier too, but they differ from MongoDB where plugins would notice
// (`{a: null}` does not match a missing field, `$ne`/`$nin` on arrays test elements one by one, `$exists` is false
// for an empty array, `$eq` is unknown, `$pull` on a missing field throws). Both adapters must answer the same
// way, so the embedded adapter compiles filters itself and keeps nedb for indexes and persistence.
import type { Filter, SortSpec, Update } from '../port.js';
import { cloneJson, isPlainObject } from '../documents.js';

type Stored = Record<string, unknown>;
export type Predicate = (doc: Stored) => boolean;

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** Calls `test` on every value the dotted path reaches (MongoDB traverses arrays of sub-documents). */
function anyLeaf(node: unknown, parts: string[], i: number, test: (v: unknown) => boolean): boolean {
  if (i === parts.length) return test(node);
  if (Array.isArray(node)) {
    const part = parts[i]!;
    if (ARRAY_INDEX.test(part)) {
      const idx = Number(part);
      if (idx < node.length && anyLeaf(node[idx], parts, i + 1, test)) return true;
    }
    let sawScalar = false;
    for (const el of node) {
      if (typeof el === 'object' && el !== null && !Array.isArray(el)) {
        if (anyLeaf(el, parts, i, test)) return true;
      } else sawScalar = true;
    }
    // An element without the field counts as a missing value (so `{'a.b': null}` matches `{a: [1]}`).
    return sawScalar || node.length === 0 ? test(undefined) : false;
  }
  if (typeof node === 'object' && node !== null) return anyLeaf((node as Stored)[parts[i]!], parts, i + 1, test);
  return test(undefined);
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

/** Equality of a stored value against a query value: null matches missing, arrays match by element too. */
function eqTest(q: unknown): (v: unknown) => boolean {
  if (q === null) return (v) => v === null || v === undefined || (Array.isArray(v) && v.includes(null));
  if (typeof q !== 'object') return (v) => v === q || (Array.isArray(v) && v.includes(q));
  return (v) => jsonEqual(v, q) || (Array.isArray(v) && v.some((e) => jsonEqual(e, q)));
}

/** `$in` / `$nin` membership: a hash lookup for scalar values (ids), the element-wise test for the rest. */
function inTest(values: unknown[]): (v: unknown) => boolean {
  const scalars = new Set<unknown>();
  const others: Array<(v: unknown) => boolean> = [];
  for (const q of values) {
    if (q !== null && typeof q !== 'object') scalars.add(q);
    else others.push(eqTest(q));
  }
  const one = (v: unknown): boolean => scalars.has(v);
  if (others.length === 0) return (v) => one(v) || (Array.isArray(v) && v.some(one));
  return (v) => one(v) || (Array.isArray(v) && v.some(one)) || others.some((t) => t(v));
}

type Cmp = '$gt' | '$gte' | '$lt' | '$lte';

function rangeTest(op: Cmp, q: unknown): (v: unknown) => boolean {
  if (q === null) {
    // MongoDB: $gte/$lte null match null and missing; $gt/$lt null match nothing.
    if (op === '$gte' || op === '$lte') return eqTest(null);
    return () => false;
  }
  const type = typeof q;
  if (type !== 'number' && type !== 'string' && type !== 'boolean') {
    throw new TypeError(`${op} needs a number, string, boolean or null`);
  }
  const one = (v: unknown): boolean => {
    if (typeof v !== type) return false;
    const a = v as number | string | boolean;
    const b = q as number | string | boolean;
    switch (op) {
      case '$gt': return a > b;
      case '$gte': return a >= b;
      case '$lt': return a < b;
      default: return a <= b;
    }
  };
  return (v) => one(v) || (Array.isArray(v) && v.some(one));
}

function isOperatorObject(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v)) return false;
  let ops = 0;
  let fields = 0;
  for (const k in v) {
    if (k.charCodeAt(0) === 36) ops++;
    else fields++;
  }
  if (ops > 0 && fields > 0) throw new TypeError('a condition cannot mix operators and fields');
  return ops > 0;
}

function fieldPredicate(path: string, cond: unknown): Predicate {
  const parts = path.split('.');
  if (!isOperatorObject(cond)) {
    const test = eqTest(cond);
    if (parts.length === 1) {
      const key = parts[0]!;
      return (doc) => test(doc[key]);
    }
    return (doc) => anyLeaf(doc, parts, 0, test);
  }
  const preds: Predicate[] = [];
  for (const [op, q] of Object.entries(cond)) {
    switch (op) {
      case '$eq': {
        const test = eqTest(q);
        preds.push((doc) => anyLeaf(doc, parts, 0, test));
        break;
      }
      case '$ne': {
        const test = eqTest(q);
        preds.push((doc) => !anyLeaf(doc, parts, 0, test));
        break;
      }
      case '$in':
      case '$nin': {
        if (!Array.isArray(q)) throw new TypeError(`${op} needs an array`);
        const test = inTest(q);
        preds.push(op === '$in' ? (doc) => anyLeaf(doc, parts, 0, test) : (doc) => !anyLeaf(doc, parts, 0, test));
        break;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const test = rangeTest(op, q);
        preds.push((doc) => anyLeaf(doc, parts, 0, test));
        break;
      }
      case '$exists': {
        const defined = (v: unknown): boolean => v !== undefined;
        preds.push(q ? (doc) => anyLeaf(doc, parts, 0, defined) : (doc) => !anyLeaf(doc, parts, 0, defined));
        break;
      }
      default:
        throw new TypeError(`unsupported filter operator ${op}`);
    }
  }
  return preds.length === 1 ? preds[0]! : (doc) => preds.every((p) => p(doc));
}

/** Compiles a port filter into a predicate over stored documents. Unknown operators throw. */
export function compileFilter(filter: Filter): Predicate {
  if (!isPlainObject(filter)) throw new TypeError('a filter must be a plain object');
  const preds: Predicate[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) throw new TypeError(`${key} needs a non-empty array`);
      const subs = value.map((f) => compileFilter(f as Filter));
      preds.push(key === '$and' ? (doc) => subs.every((p) => p(doc)) : (doc) => subs.some((p) => p(doc)));
    } else if (key.charCodeAt(0) === 36) {
      throw new TypeError(`unsupported filter operator ${key}`);
    } else {
      preds.push(fieldPredicate(key, value));
    }
  }
  if (preds.length === 0) return () => true;
  if (preds.length === 1) return preds[0]!;
  return (doc) => {
    for (const p of preds) if (!p(doc)) return false;
    return true;
  };
}

// ---------------------------------------------------------------------------------------------- index planning

export type IndexKey = string | number | boolean;

export interface IndexablePredicate {
  /** Equality values (`{a: v}`, `$eq`, `$in`): every value is a non-null scalar. */
  eq?: IndexKey[];
  /** Range bounds on scalars of one type. */
  range?: Partial<Record<Cmp, IndexKey>>;
  /** True when the condition is nothing but the equality (so an index answer is exact). */
  pureEq: boolean;
  /** True when the condition is nothing but the range. */
  pureRange?: boolean;
}

function isIndexKey(v: unknown): v is IndexKey {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function indexablePredicate(cond: unknown): IndexablePredicate | null {
  if (isIndexKey(cond)) return { eq: [cond], pureEq: true };
  if (!isPlainObject(cond)) return null;
  let eq: IndexKey[] | undefined;
  let range: Partial<Record<Cmp, IndexKey>> | undefined;
  let other = 0;
  for (const [op, q] of Object.entries(cond)) {
    if (op === '$eq' && isIndexKey(q)) eq = [q];
    else if (op === '$in' && Array.isArray(q) && q.every(isIndexKey)) eq = q as IndexKey[];
    else if ((op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') && isIndexKey(q)) {
      range ??= {};
      range[op] = q;
    } else other++;
  }
  if (eq) return { eq, pureEq: other === 0 && !range };
  if (range) {
    const types = new Set(Object.values(range).map((v) => typeof v));
    if (types.size === 1) return { range, pureEq: false, pureRange: other === 0 };
  }
  return null;
}

/**
 * The conditions an index can serve: top-level fields and the fields of top-level `$and` clauses.
 * `exactFields` counts the top-level keys, so a plan can tell whether the index alone answers the filter.
 */
export function indexablePredicates(filter: Filter, into = new Map<string, IndexablePredicate>()): Map<string, IndexablePredicate> {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const sub of value) if (isPlainObject(sub)) indexablePredicates(sub, into);
    } else if (key.charCodeAt(0) !== 36 && !into.has(key)) {
      const p = indexablePredicate(value);
      if (p) into.set(key, p);
    }
  }
  return into;
}

// ---------------------------------------------------------------------------------------------- sorting

/** MongoDB's order of types: missing/null, numbers, strings, objects, arrays, booleans. */
export function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 0;
  switch (typeof v) {
    case 'number': return 1;
    case 'string': return 2;
    case 'boolean': return 5;
    default: return Array.isArray(v) ? 4 : 3;
  }
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0: return 0;
    case 1:
    case 2:
    case 5: return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 4: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    default: {
      const x = Object.entries(a as Stored);
      const y = Object.entries(b as Stored);
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        if (x[i]![0] !== y[i]![0]) return x[i]![0] < y[i]![0] ? -1 : 1;
        const c = compareValues(x[i]![1], y[i]![1]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
  }
}

function getPath(doc: unknown, parts: string[]): unknown {
  let node = doc;
  for (const part of parts) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Stored)[part];
  }
  return node;
}

/** The value a document sorts by: for arrays MongoDB uses the smallest element ascending, the largest descending. */
function sortKey(doc: Stored, parts: string[], dir: 1 | -1): unknown {
  const v = parts.length === 1 ? doc[parts[0]!] : getPath(doc, parts);
  if (!Array.isArray(v)) return v;
  if (v.length === 0) return undefined;
  let best = v[0];
  for (let i = 1; i < v.length; i++) if (compareValues(v[i], best) * dir < 0) best = v[i];
  return best;
}

export type SortFields = Array<{ parts: string[]; dir: 1 | -1 }>;

export function compileSort(sort: SortSpec | undefined): SortFields | null {
  if (!sort) return null;
  const fields: SortFields = [];
  for (const [path, dir] of Object.entries(sort)) {
    if (dir !== 1 && dir !== -1) throw new TypeError(`sort direction for ${path} must be 1 or -1`);
    fields.push({ parts: path.split('.'), dir });
  }
  return fields.length ? fields : null;
}

const PACK = 2 ** 21;

/** Quickselect on distinct floats: afterwards a[k] is in its sorted place, smaller left, larger right. */
function nthFloat(a: Float64Array, k: number, left: number, right: number): void {
  while (right > left) {
    const p = a[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < p) i++;
      while (p < a[j]!) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

/** The same with a comparator over positions. */
function nthBy(a: Int32Array, k: number, left: number, right: number, cmp: (x: number, y: number) => number): void {
  while (right > left) {
    const p = a[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (cmp(a[i]!, p) < 0) i++;
      while (cmp(p, a[j]!) < 0) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

/**
 * When every document's sort value is an integer in [0, 2^31), packs value and position into one float64 (the
 * position breaks ties, so every packed value is distinct and ties keep candidate order); null otherwise.
 */
function packIntegerKeys(docs: Stored[], field: { parts: string[]; dir: 1 | -1 }): Float64Array | null {
  const n = docs.length;
  const packed = new Float64Array(n);
  const single = field.parts.length === 1 ? field.parts[0]! : null;
  const desc = field.dir === -1;
  for (let i = 0; i < n; i++) {
    const k = single !== null ? docs[i]![single] : getPath(docs[i], field.parts);
    if (typeof k !== 'number' || !(k >= 0 && k < 2147483648) || k % 1 !== 0) return null;
    packed[i] = (desc ? 2147483647 - k : k) * PACK + i;
  }
  return packed;
}

/**
 * Sorts and windows matching documents. Keys are extracted once into a flat array. The common case (one sort
 * field holding non-negative integers below 2^31, such as ids and counters) packs key and position into one
 * float64 compared natively; otherwise positions are compared through the keys. Either way only the requested
 * window is fully ordered. Ties keep the candidates' order.
 */
export function sortWindow(docs: Stored[], fields: SortFields, skip: number, limit: number): Stored[] {
  const n = docs.length;
  const m = fields.length;
  const end = limit > 0 ? Math.min(n, skip + limit) : n;
  if (skip >= n) return [];
  const out: Stored[] = [];
  if (m === 1 && n < PACK) {
    const packed = packIntegerKeys(docs, fields[0]!);
    if (packed) {
      // Only the window is put in order: quickselect its bounds (O(n)), then sort the window itself.
      if (skip > 0) nthFloat(packed, skip, 0, n - 1);
      if (end < n) nthFloat(packed, end - 1, skip, n - 1);
      const window = packed.subarray(skip, end);
      if (window.length <= 64) {
        for (let i = 1; i < window.length; i++) {
          const v = window[i]!;
          let j = i - 1;
          while (j >= 0 && window[j]! > v) {
            window[j + 1] = window[j]!;
            j--;
          }
          window[j + 1] = v;
        }
      } else window.sort();
      for (let r = skip; r < end; r++) out.push(docs[packed[r]! % PACK]!);
      return out;
    }
  }
  const keys = new Array<unknown>(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) keys[i * m + j] = sortKey(docs[i]!, fields[j]!.parts, fields[j]!.dir);
  }
  const dirs = fields.map((f) => f.dir);
  const cmp = (a: number, b: number): number => {
    for (let j = 0; j < m; j++) {
      const x = keys[a * m + j];
      const y = keys[b * m + j];
      const tx = typeof x;
      const c =
        tx === typeof y && (tx === 'number' || tx === 'string')
          ? (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0
          : compareValues(x, y);
      if (c !== 0) return c * dirs[j]!;
    }
    return a - b;
  };
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (skip > 0) nthBy(order, skip, 0, n - 1, cmp);
  if (end < n) nthBy(order, end - 1, skip, n - 1, cmp);
  order.subarray(skip, end).sort(cmp);
  for (let r = skip; r < end; r++) out.push(docs[order[r]!]!);
  return out;
}

// ---------------------------------------------------------------------------------------------- updates

/** Walks to the parent of the last path part, creating objects on the way (unless `create` is false). */
function parentOf(doc: Stored, parts: string[], create: boolean): Stored | unknown[] | null {
  let node: unknown = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(part)) throw new TypeError(`cannot create field ${part} in an array`);
      const idx = Number(part);
      if (node[idx] === undefined || node[idx] === null) {
        if (!create) return null;
        while (node.length < idx) node.push(null);
        node[idx] = {};
      }
      node = node[idx];
    } else if (typeof node === 'object' && node !== null) {
      const obj = node as Stored;
      if (obj[part] === undefined || obj[part] === null) {
        if (!create) return null;
        obj[part] = {};
      }
      node = obj[part];
    } else {
      if (!create) return null;
      throw new TypeError(`cannot create field ${part} in a ${typeof node} value`);
    }
    if (typeof node !== 'object' || node === null) {
      if (!create) return null;
      throw new TypeError(`cannot create a field inside the ${typeof node} at ${parts.slice(0, i + 1).join('.')}`);
    }
  }
  return node as Stored | unknown[];
}

function getIn(parent: Stored | unknown[], key: string): unknown {
  if (Array.isArray(parent)) return ARRAY_INDEX.test(key) ? parent[Number(key)] : undefined;
  return Object.hasOwn(parent, key) ? parent[key] : undefined;
}

function setIn(parent: Stored | unknown[], key: string, value: unknown): void {
  if (Array.isArray(parent)) {
    if (!ARRAY_INDEX.test(key)) throw new TypeError(`cannot set field ${key} on an array`);
    const idx = Number(key);
    while (parent.length < idx) parent.push(null);
    parent[idx] = value;
  } else parent[key] = value;
}

function eachValues(value: unknown): unknown[] {
  if (isPlainObject(value) && Object.hasOwn(value, '$each')) return value.$each as unknown[];
  return [value];
}

/** A predicate for one `$pull` condition: a value, an operator object, or a sub-document query. */
function pullPredicate(cond: unknown): (el: unknown) => boolean {
  if (isPlainObject(cond) && Object.keys(cond).length > 0) {
    const keys = Object.keys(cond);
    if (keys.every((k) => k.charCodeAt(0) === 36)) {
      const pred = fieldPredicate('v', cond);
      return (el) => pred({ v: el });
    }
    const pred = compileFilter(cond);
    return (el) => isPlainObject(el) && pred(el);
  }
  return (el) => jsonEqual(el, cond);
}

/**
 * Applies update operators (already checked and copied by `cleanUpdate`) to a copy of a stored document and
 * returns the new document. The stored one is never mutated: readers and index trees hold it. Values from the
 * update may end up shared between several new documents; that is safe because stored documents are only ever
 * replaced, never changed in place.
 */
export function applyUpdate(doc: Stored, update: Update, copy: (d: Stored) => Stored): Stored {
  const out = copy(doc);
  for (const [op, arg] of Object.entries(update) as Array<[string, Stored]>) {
    for (const [path, value] of Object.entries(arg)) {
      const parts = path.split('.');
      const last = parts[parts.length - 1]!;
      switch (op) {
        case '$set': {
          const parent = parentOf(out, parts, true)!;
          setIn(parent, last, value);
          break;
        }
        case '$unset': {
          const parent = parentOf(out, parts, false);
          if (parent && !Array.isArray(parent)) delete parent[last];
          else if (parent && ARRAY_INDEX.test(last) && Number(last) < parent.length) parent[Number(last)] = null;
          break;
        }
        case '$inc': {
          if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`$inc ${path} needs a number`);
          const parent = parentOf(out, parts, true)!;
          const cur = getIn(parent, last);
          if (cur === undefined) setIn(parent, last, value);
          else if (typeof cur === 'number') setIn(parent, last, cur + value);
          else throw new TypeError(`$inc ${path}: the stored value is not a number`);
          break;
        }
        case '$push':
        case '$addToSet': {
          const values = eachValues(value);
          const parent = parentOf(out, parts, true)!;
          const cur = getIn(parent, last);
          if (cur !== undefined && !Array.isArray(cur)) throw new TypeError(`${op} ${path}: the stored value is not an array`);
          const arr = (cur as unknown[] | undefined) ?? [];
          for (const v of values) {
            if (op === '$push' || !arr.some((e) => jsonEqual(e, v))) arr.push(v);
          }
          setIn(parent, last, arr);
          break;
        }
        case '$pull': {
          const parent = parentOf(out, parts, false);
          if (!parent) break;
          const cur = getIn(parent, last);
          if (cur === undefined) break;
          if (!Array.isArray(cur)) throw new TypeError(`$pull ${path}: the stored value is not an array`);
          const match = pullPredicate(value);
          setIn(parent, last, cur.filter((el) => !match(el)));
          break;
        }
      }
    }
  }
  return out;
}

/** The document an upsert starts from: the filter's equality conditions (as MongoDB does). */
export function upsertSeed(filter: Filter, into: Stored = {}): Stored {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const sub of value) if (isPlainObject(sub)) upsertSeed(sub, into);
      continue;
    }
    if (key.charCodeAt(0) === 36 || key === '_id') continue;
    let v: unknown;
    if (isOperatorObject(value)) {
      if (!Object.hasOwn(value, '$eq')) continue;
      v = value.$eq;
    } else v = value;
    const parts = key.split('.');
    const parent = parentOf(into, parts, true)!;
    setIn(parent, parts[parts.length - 1]!, cloneJson(v, key));
  }
  return into;
}
