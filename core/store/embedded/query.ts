// The port's sort and update languages evaluated in memory with MongoDB's semantics (filters: `filter.ts`).
//
// nedb ships a modifier too, but it differs from MongoDB where plugins would notice (`$pull` on a missing field
// throws), and both adapters must answer the same way.
import type { Filter, SortSpec, Update } from '../port.js';
import { cloneJson, isPlainObject } from '../documents.js';
import { ARRAY_INDEX, conditionPredicate, compileFilter, isOperatorObject, jsonEqual } from './filter.js';

type Stored = Record<string, unknown>;

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

/** compareValues with its common cases first: two numbers or two strings compare natively. */
function compareSortKeys(x: unknown, y: unknown): number {
  const tx = typeof x;
  return tx === typeof y && (tx === 'number' || tx === 'string')
    ? (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0
    : compareValues(x, y);
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
      const c = compareSortKeys(keys[a * m + j], keys[b * m + j]);
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

/**
 * The window `[skip, skip + limit)` of the union of `runs`, each already in `fields` order (a merged walk's ranges):
 * a k-way merge that stops at the window's end, where sortWindow would order every candidate of every run. The
 * result equals sortWindow's over the runs laid end to end: equal keys keep run order, then position in the run.
 * Only the runs' heads have their keys read (a run's documents past the window never are).
 */
export function mergeRuns(runs: Stored[][], fields: SortFields, skip: number, limit: number): Stored[] {
  const m = fields.length;
  const k = runs.length;
  const pos = new Int32Array(k);
  // The sort keys of each run's head: run r's at [r * m, r * m + m).
  const heads = new Array<unknown>(k * m);
  const readHead = (r: number): void => {
    const doc = runs[r]![pos[r]!]!;
    for (let j = 0; j < m; j++) heads[r * m + j] = sortKey(doc, fields[j]!.parts, fields[j]!.dir);
  };
  const heap: number[] = [];
  for (let r = 0; r < k; r++) {
    if (runs[r]!.length === 0) continue;
    readHead(r);
    heap.push(r);
  }
  const dirs = fields.map((f) => f.dir);
  // Whether run a's head sorts before run b's: by key, then by run (the earlier run's documents come first).
  const before = (a: number, b: number): boolean => {
    for (let j = 0; j < m; j++) {
      const c = compareSortKeys(heads[a * m + j], heads[b * m + j]);
      if (c !== 0) return c * dirs[j]! < 0;
    }
    return a < b;
  };
  const siftDown = (at: number): void => {
    const n = heap.length;
    const r = heap[at]!;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1]!, heap[child]!)) child++;
      if (!before(heap[child]!, r)) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = r;
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  const end = skip + limit;
  const out: Stored[] = [];
  for (let taken = 0; taken < end && heap.length > 0; taken++) {
    const r = heap[0]!;
    if (taken >= skip) out.push(runs[r]![pos[r]!]!);
    if (++pos[r]! === runs[r]!.length) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    } else readHead(r);
    siftDown(0);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- updates

/**
 * The container holding the path's last part, for a write into it: objects missing on the way are created (unless
 * `create` is false: then null). On the way down, a frozen container (one the stored version shares) is replaced by
 * a shallow copy of itself in its (already writable) parent: the new version copies only the containers on the
 * paths it writes, and shares every other subtree with the stored one.
 */
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
      node = node[idx] = writable(node[idx]);
    } else if (typeof node === 'object' && node !== null) {
      const obj = node as Stored;
      if (obj[part] === undefined || obj[part] === null) {
        if (!create) return null;
        obj[part] = {};
      }
      node = obj[part] = writable(obj[part]);
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

/** A frozen (shared, stored) object or array as a shallow copy to write into; anything else as it is. */
function writable<V>(value: V): V {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return value;
  return (Array.isArray(value) ? value.slice() : { ...value }) as V;
}

/** The stored version's top level as a new object to apply an update to (its subtrees still shared: `parentOf`). */
export function shallowCopy(doc: Stored): Stored {
  return { ...doc };
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
    if (keys.every((k) => k.charCodeAt(0) === 36)) return conditionPredicate(cond);
    const pred = compileFilter(cond);
    return (el) => isPlainObject(el) && pred(el);
  }
  return (el) => jsonEqual(el, cond);
}

/**
 * Applies update operators (already checked and copied by `cleanUpdate`) to a copy of a stored document and
 * returns the new document. The stored one is never mutated: readers and index trees hold it. `copy` makes the top
 * level writable (`shallowCopy`); a frozen container below it is copied only where the update writes into it
 * (`parentOf`, `writable`), so the new version shares the untouched subtrees with the old one — frozen, so no change
 * can reach either through the other. Values from the update may end up shared between several new documents; that
 * is safe because stored documents are only ever replaced, never changed in place.
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
          const arr = cur === undefined ? [] : writable(cur as unknown[]);
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
