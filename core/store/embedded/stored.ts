// Stored versions of documents: the plugin-visible fields, frozen once, with the adapter's `_id` out of sight.
//
// A stored version is handed to plugins as is (no copy per read), so it must not carry `_id` as a property
// (`'_id' in doc` is false by contract) and must not change after it is stored. The `_id` lives under a
// non-enumerable symbol: invisible to `in`, `Object.keys`, spreads, `JSON.stringify` and `for…in`, so nothing that
// copies or serialises a document sees it. The file keeps nedb's format, with `_id` as an ordinary field.

/** A stored version: plain JSON fields, plus the `_id` under `ID`. */
export type Stored = Record<string, unknown>;

/** Where a stored version keeps its `_id`. */
export const ID: unique symbol = Symbol('_id');

export function idOf(doc: Stored): string {
  return (doc as unknown as Record<typeof ID, string>)[ID];
}

/** Gives a new version its `_id` (once: the property is read-only). */
export function withId<T extends Stored>(doc: T, id: string): T {
  Object.defineProperty(doc, ID, { value: id });
  return doc;
}

/**
 * The one empty array of every stored version. Issues alone hold three arrays each (assignees, labels, mentions),
 * mostly empty: 200,000 issues kept ~500,000 empty arrays, 16 MiB of heap and as many objects for the collector to
 * mark. Frozen, like everything stored, so sharing it cannot leak a change from one document into another.
 */
const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);

/**
 * Strings this long or longer that equal an earlier field of the same object are held once. A parsed line holds a
 * string per field even where two are equal, and `createdAt` equals `updatedAt` in most documents (a comment, an
 * issue, a repository never changed): 22 MiB of the bench dataset's 232 MiB of documents.
 */
const SHARED_STRING_MIN = 16;
/** Long strings of one object compared with each other, at most. */
const SHARED_STRING_FIELDS = 8;
/** The long strings of the objects being frozen (each object's own from where it started: `freezeStored` nests). */
const longStrings: string[] = [];

/**
 * Freezes a new stored version and everything inside it, every empty array replaced by the shared one and a long
 * string equal to an earlier field of its object replaced by that one. A frozen object met on the way is taken to be
 * frozen throughout: stored data is frozen only here, and values from callers are copied before they are stored, so
 * that holds.
 */
export function freezeStored<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const fields = value as Record<string, unknown>;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) value[i] = sharedIfEmpty(v);
    }
  } else {
    const base = longStrings.length;
    for (const key in fields) {
      const v = fields[key];
      if (typeof v === 'object' && v !== null) fields[key] = sharedIfEmpty(v);
      else if (typeof v === 'string' && v.length >= SHARED_STRING_MIN) {
        let same: string | undefined;
        for (let i = base; i < longStrings.length; i++) {
          if (longStrings[i] === v) {
            same = longStrings[i];
            break;
          }
        }
        if (same !== undefined) fields[key] = same;
        else if (longStrings.length - base < SHARED_STRING_FIELDS) longStrings.push(v);
      }
    }
    longStrings.length = base;
  }
  return Object.freeze(value);
}

function sharedIfEmpty(v: object): unknown {
  return Array.isArray(v) && v.length === 0 ? EMPTY_ARRAY : freezeStored(v);
}

// nedb's loader splits lines on U+0085/U+2028/U+2029 too, and JSON.stringify leaves them raw: escape them so the
// file stays readable by nedb itself.
const LINE_BREAKERS = /[\u0085\u2028\u2029]/;
const LINE_BREAKERS_G = /[\u0085\u2028\u2029]/g;

/** One line of the file (without its newline), escaping the characters nedb would split lines on. */
export function serialize(value: unknown): string {
  const s = JSON.stringify(value);
  return LINE_BREAKERS.test(s) ? s.replace(LINE_BREAKERS_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
}

/** A stored version as a file line: its fields, then `_id` last (so loading can cut it off before parsing). */
export function serializeStored(doc: Stored): string {
  const body = serialize(doc);
  const id = JSON.stringify(idOf(doc));
  return body.length === 2 ? `{"_id":${id}}` : `${body.slice(0, -1)},"_id":${id}}`;
}

/** A line that ends with a plain `_id` (no escapes), as `serializeStored` writes it. */
const TRAILING_ID = /,"_id":"[^"\\]*"\}$/;

export interface ParsedLine {
  /** The line's `_id` when it has a string one. */
  id: string | undefined;
  /** The line's object without `_id`. */
  value: Record<string, unknown>;
}

/**
 * Parses one file line and takes its `_id` out. When `_id` is the last field (what this adapter writes) it is
 * deleted, which V8 undoes cheaply (the object keeps its fast shape); anywhere else the rest is copied out.
 */
export function parseLine(raw: string): ParsedLine {
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
  const obj = parsed as Record<string, unknown>;
  const id = obj._id;
  if (typeof id !== 'string') return { id: undefined, value: obj };
  if (TRAILING_ID.test(raw)) {
    delete obj._id;
    return { id, value: obj };
  }
  const { _id, ...rest } = obj;
  return { id, value: rest };
}
