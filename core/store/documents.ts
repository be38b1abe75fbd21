// Document rules shared by every store adapter: what a storable value is, index names, copying in and out.
import type { Doc, IndexSpec, Projection, Update } from './port.js';

/** The field an adapter owns and never hands to plugins. */
export const ADAPTER_ID = '_id';

/** The collection that holds `nextId` sequences in every adapter. */
export const COUNTERS_COLLECTION = 'counters';

/** Collection names double as file names in the embedded adapter: keep them boring. */
const COLLECTION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,119}$/;

export function assertCollectionName(name: string): void {
  if (typeof name !== 'string' || !COLLECTION_NAME.test(name)) {
    throw new TypeError(`invalid collection name ${JSON.stringify(name)} (letters, digits, '_' and '-' only)`);
  }
}

/** MongoDB's default index name (`owner_id_1_name_1`): both adapters report the same name in explain(). */
export function indexName(spec: Pick<IndexSpec, 'fields'>): string {
  return Object.entries(spec.fields)
    .map(([field, dir]) => `${field}_${dir}`)
    .join('_');
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function checkKey(key: string, where: string): void {
  if (key.length === 0 || key.charCodeAt(0) === 36 /* $ */ || key.includes('.') || key === '__proto__') {
    throw new TypeError(`invalid field name ${JSON.stringify(key)} at ${where || '<root>'}: names may not be empty, start with '$', contain '.' or be __proto__`);
  }
}

/**
 * Copies a value that is about to be stored, checking that it is plain JSON (the document convention every
 * adapter shares): strings, finite numbers, booleans, null, arrays and plain objects. Object properties that are
 * `undefined` are dropped (as JSON.stringify would); anything else (Dates, functions, NaN, class instances)
 * is refused so that both adapters always hand back the same shape.
 */
export function cloneJson(value: unknown, where = ''): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`non-finite number at ${where || '<root>'}`);
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          if (value[i] === undefined) throw new TypeError(`undefined array element at ${where}[${i}]`);
          out[i] = cloneJson(value[i], `${where}[${i}]`);
        }
        return out;
      }
      if (!isPlainObject(value)) {
        throw new TypeError(`${(value as object).constructor?.name ?? 'object'} at ${where || '<root>'} is not plain JSON`);
      }
      const out: Record<string, unknown> = {};
      for (const key in value) {
        const v = value[key];
        if (v === undefined) continue;
        checkKey(key, where);
        out[key] = cloneJson(v, where ? `${where}.${key}` : key);
      }
      return out;
    }
    default:
      throw new TypeError(`${typeof value} at ${where || '<root>'} is not plain JSON`);
  }
}

/** Validates and copies a document for storage; an incoming `_id` is ignored (adapters own it). */
export function cloneDocIn(doc: Doc): Record<string, unknown> {
  if (!isPlainObject(doc)) throw new TypeError('a document must be a plain object');
  const out: Record<string, unknown> = {};
  for (const key in doc) {
    if (key === ADAPTER_ID) continue;
    const v = doc[key];
    if (v === undefined) continue;
    checkKey(key, '');
    out[key] = cloneJson(v, key);
  }
  return out;
}

/** Deep copy of already-validated JSON (no checks: the fast path for values read out of the store). */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value as Record<string, unknown>) out[key] = copyJson((value as Record<string, unknown>)[key]);
  return out as T;
}

/** Copy of a stored document without the adapter's `_id`. */
export function copyDocOut<T extends Doc>(doc: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const key in doc) {
    if (key === ADAPTER_ID) continue;
    const v = doc[key];
    out[key] = typeof v === 'object' && v !== null ? copyJson(v) : v;
  }
  return out as T;
}

/** A projection checked once: inclusion (`{a: 1}`) or exclusion (`{a: 0}`); `_id` entries are ignored. */
export interface CompiledProjection {
  include: boolean;
  paths: string[][];
  /** Exclusions of whole top-level fields: skipped while copying instead of copied and then deleted. */
  topLevel?: Set<string>;
}

export function compileProjection(projection: Projection | undefined): CompiledProjection | null {
  if (!projection) return null;
  let include: boolean | null = null;
  const paths: string[][] = [];
  for (const [path, flag] of Object.entries(projection)) {
    if (path === ADAPTER_ID) continue;
    const inc = flag === 1 || (flag as unknown) === true;
    if (include === null) include = inc;
    else if (include !== inc) throw new TypeError('a projection cannot mix inclusion and exclusion');
    paths.push(path.split('.'));
  }
  if (include === null) return null;
  if (include) return { include, paths };
  return { include, paths: paths.filter((p) => p.length > 1), topLevel: new Set(paths.filter((p) => p.length === 1).map((p) => p[0]!)) };
}

/**
 * Freezes a value and everything inside it. A frozen object met on the way is taken to be frozen throughout: stored
 * data is frozen all the way down when it is stored (the embedded store's `freezeStored`), and values from callers
 * are copied before they are stored, so that holds.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) deepFreeze(v);
    }
  } else {
    for (const key in value) {
      const v = (value as Record<string, unknown>)[key];
      if (typeof v === 'object' && v !== null) deepFreeze(v);
    }
  }
  return value;
}

function pickPath(src: unknown, parts: string[], i: number, dst: Record<string, unknown>): void {
  if (!isPlainObject(src)) return;
  const key = parts[i]!;
  if (!Object.hasOwn(src, key)) return;
  const v = src[key];
  if (i === parts.length - 1) {
    dst[key] = v;
    return;
  }
  // A shorter path took the whole value already (`{a: 1, 'a.b': 1}`); it is shared, so it is never written into.
  if (dst[key] === v) return;
  if (Array.isArray(v)) {
    // MongoDB projects a dotted path into every sub-document of an array.
    const prev = Array.isArray(dst[key]) ? (dst[key] as unknown[]) : [];
    const arr: unknown[] = [];
    let j = 0;
    for (const el of v) {
      if (!isPlainObject(el)) continue;
      const sub = isPlainObject(prev[j]) ? (prev[j] as Record<string, unknown>) : {};
      pickPath(el, parts, i + 1, sub);
      arr.push(sub);
      j++;
    }
    dst[key] = arr;
    return;
  }
  if (!isPlainObject(v)) return;
  const sub = isPlainObject(dst[key]) ? (dst[key] as Record<string, unknown>) : {};
  pickPath(v, parts, i + 1, sub);
  dst[key] = sub;
}

/** Removes a dotted path from `obj`, copying (shallowly) the containers it goes through: they may be shared. */
function dropPath(obj: Record<string, unknown>, parts: string[], i: number): void {
  const key = parts[i]!;
  if (!Object.hasOwn(obj, key)) return;
  if (i === parts.length - 1) {
    delete obj[key];
    return;
  }
  const v = obj[key];
  if (Array.isArray(v)) {
    obj[key] = v.map((el: unknown) => {
      if (!isPlainObject(el)) return el;
      const copy = { ...el };
      dropPath(copy, parts, i + 1);
      return copy;
    });
  } else if (isPlainObject(v)) {
    const copy = { ...v };
    dropPath(copy, parts, i + 1);
    obj[key] = copy;
  }
}

/**
 * Applies a compiled projection to a stored document, without `_id`. The result is a new, deep-frozen object that
 * shares the selected values with `doc` (which must be deep-frozen already): nothing is copied but the containers a
 * projection changes.
 */
export function projectDoc<T extends Doc>(doc: Record<string, unknown>, projection: CompiledProjection): T {
  const out: Record<string, unknown> = {};
  if (projection.include) {
    for (const parts of projection.paths) pickPath(doc, parts, 0, out);
  } else {
    const skip = projection.topLevel;
    for (const key in doc) {
      if (key === ADAPTER_ID || skip?.has(key)) continue;
      out[key] = doc[key];
    }
    for (const parts of projection.paths) dropPath(out, parts, 0);
  }
  return deepFreeze(out) as T;
}

const UPDATE_OPERATORS = new Set(['$set', '$unset', '$inc', '$addToSet', '$pull', '$push']);

/**
 * Checks an update against the port's operators and returns a clean copy: values are plain JSON (copied, so a
 * caller mutating its objects later cannot reach stored data), `undefined` values are dropped (both adapters
 * ignore them, as the MongoDB driver does with `ignoreUndefined`).
 */
export function cleanUpdate(update: Update): Update {
  if (!isPlainObject(update)) throw new TypeError('an update must be a plain object');
  const ops = Object.keys(update);
  if (ops.length === 0) throw new TypeError('an update needs at least one operator');
  const out: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    if (!UPDATE_OPERATORS.has(op)) throw new TypeError(`unsupported update operator ${op}`);
    const arg = (update as Record<string, unknown>)[op];
    if (!isPlainObject(arg)) throw new TypeError(`${op} needs an object`);
    const clean: Record<string, unknown> = {};
    for (const [path, value] of Object.entries(arg)) {
      if (value === undefined) continue;
      if (path === ADAPTER_ID || path.startsWith(`${ADAPTER_ID}.`)) throw new TypeError('_id cannot be updated');
      if (path.split('.').some((p) => p === '' || p.charCodeAt(0) === 36 || p === '__proto__')) {
        throw new TypeError(`invalid update path ${JSON.stringify(path)}`);
      }
      switch (op) {
        case '$inc':
          if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`$inc ${path} needs a finite number`);
          clean[path] = value;
          break;
        case '$unset':
          clean[path] = '';
          break;
        case '$pull':
          // A value or a condition (`{$in: [...]}`, `{field: v}`): operators are allowed here.
          clean[path] = copyJson(value);
          break;
        case '$push':
        case '$addToSet':
          if (isPlainObject(value) && Object.hasOwn(value, '$each')) {
            if (!Array.isArray(value.$each) || Object.keys(value).length !== 1) throw new TypeError(`${op} ${path}: $each needs an array and no other key`);
            clean[path] = { $each: cloneJson(value.$each, path) };
          } else clean[path] = cloneJson(value, path);
          break;
        default:
          clean[path] = cloneJson(value, path);
      }
    }
    out[op] = clean;
  }
  assertNoConflicts(out);
  return out as Update;
}

/** MongoDB refuses an update touching one path twice, or a path and its parent (`a` and `a.b`), across operators. */
function assertNoConflicts(update: Record<string, Record<string, unknown>>): void {
  const paths = Object.values(update).flatMap((arg) => Object.keys(arg));
  if (paths.length < 2) return;
  // Updates name a handful of paths: every pair is checked.
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      const [a, b] = paths[i]!.length <= paths[j]!.length ? [paths[i]!, paths[j]!] : [paths[j]!, paths[i]!];
      if (a === b || b.startsWith(`${a}.`)) throw new TypeError(`updating the path ${JSON.stringify(b)} would create a conflict at ${JSON.stringify(a)}`);
    }
  }
}
