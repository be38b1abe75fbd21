// The embedded adapter's indexes: stored versions ordered by one field, or by a tuple of fields in declared order.
import { DuplicateKeyError, type IndexSpec } from '../port.js';
import { indexName } from '../documents.js';
import { BTree, type Entry, type Posting, type Probe } from './btree.js';
import { compareValues, typeRank } from './query.js';
import { ARRAY_INDEX, type IndexKey } from './filter.js';
import type { Stored } from './stored.js';
import { KeyMap } from './key-map.js';

/** Index order of keys: MongoDB's order of types, then of values. `null` stands for a missing value too. */
/** Bounds of a range condition (one type: MongoDB's type bracketing). */
export type RangeBounds = { $gt?: IndexKey; $gte?: IndexKey; $lt?: IndexKey; $lte?: IndexKey };

/** A posting of one document is kept as the document itself (btree.ts `Entry`). */
export function compareKey(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const ta = typeof a;
  if (ta === typeof b) {
    if (ta === 'number' || ta === 'string') return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    // Two different booleans (flags lead many compound keys: `unlisted`, `private`, `isClosed`): false first.
    if (ta === 'boolean') return a ? 1 : -1;
  }
  return compareValues(a, b);
}

type Tuple = unknown[];

/**
 * Field `i` of a compound key as the tree holds it: a tuple's own value, or, when a document stands for its own key
 * (`OrderedIndex.docKeys`), the value derived from it exactly as `keysOf` would (missing or `[]` is null, `[x]` is x).
 */
export type KeyField = (key: unknown, i: number) => unknown;

function keyFieldOf(fields: string[]): KeyField {
  return (key, i) => {
    if (Array.isArray(key)) return key[i];
    const v = (key as Stored)[fields[i]!];
    if (v === undefined) return null;
    if (Array.isArray(v)) return v.length === 0 ? null : v[0];
    return v;
  };
}

/**
 * `keyFieldOf` generated for one index, each field read by a property load of its own name, for the probes of ranks
 * and walks (`prefixRange`, `prefixBoundedRange`): the shared reader's `key[fields[i]]` sees every collection's
 * documents under every name, and that megamorphic load was most of a probe. Measured on the benchmark's 200,000
 * issues: a prefix count 2.2 → 1.7 µs, a 10-row page 3.5 → 3.0 µs. The tree's comparator and same-key checks keep the
 * shared reader: V8 inlines it there, and generated readers (or generated comparators) made an issue update's 21
 * index swaps 7–10% slower. The names are the plugins' declared index fields, embedded as JSON string literals.
 */
function generatedKeyField(fields: string[]): KeyField {
  const cases = fields.map((f, i) => `case ${i}: v = key[${JSON.stringify(f)}]; break;`).join(' ');
  const source = `return function field(key, i) {
    if (isArray(key)) return key[i];
    let v;
    switch (i) { ${cases} default: v = undefined; }
    if (v === undefined) return null;
    if (isArray(v)) return v.length === 0 ? null : v[0];
    return v;
  };`;
  return new Function('isArray', source)(Array.isArray) as KeyField;
}

/** A probe of the keys whose first `values.length` fields equal `values` (`Probe`: before, at, after them). */
type PrefixProbe = (values: unknown[]) => Probe<unknown>;

/**
 * `PrefixProbe` generated for one index: one probe function per prefix length, each reading its fields by property
 * loads of their own names and comparing in the declared directions, unrolled. A probe that called the index's field
 * reader (`generatedKeyField`) shared its code with every index's probes, so that call site saw every index's reader
 * and V8 could inline none of them (the reader was 6% of a member's issue search, the probes' callers 10% more).
 */
function generatedPrefixProbe(fields: string[], dirs: Array<1 | -1>): PrefixProbe {
  const read = (i: number) =>
    `let f${i}; if (isArray(key)) f${i} = key[${i}]; else { f${i} = key[${JSON.stringify(fields[i])}]; ` +
    `if (f${i} === undefined) f${i} = null; else if (isArray(f${i})) f${i} = f${i}.length === 0 ? null : f${i}[0]; }`;
  const cases = fields.map((_, n) => {
    const k = n + 1;
    const steps = Array.from({ length: k }, (_, i) => {
      const sign = dirs[i] === 1 ? 'c' : '-c';
      return `${read(i)} c = compareKey(f${i}, v${i}); if (c !== 0) return ${sign};`;
    }).join(' ');
    return `case ${k}: return function probe${k}(key) { let c; ${steps} return 0; };`;
  }).join('\n    ');
  const bind = fields.map((_, i) => `const v${i} = values[${i}];`).join(' ');
  const source = `return function prefixProbe(values) {
    ${bind}
    switch (values.length) {
    case 0: return function probe0() { return 0; };
    ${cases}
    default: throw new RangeError('a prefix of ' + values.length + ' fields');
    }
  };`;
  return new Function('isArray', 'compareKey', source)(Array.isArray, compareKey) as PrefixProbe;
}

/** Compares compound keys field by field in declared order, each in its declared direction. */
function tupleCompare(dirs: Array<1 | -1>, field: KeyField): (a: unknown, b: unknown) => number {
  if (dirs.length === 2) {
    const [d0, d1] = dirs as [1 | -1, 1 | -1];
    return (a, b) => {
      const c = compareKey(field(a, 0), field(b, 0));
      return c !== 0 ? c * d0 : compareKey(field(a, 1), field(b, 1)) * d1;
    };
  }
  const n = dirs.length;
  return (a, b) => {
    for (let i = 0; i < n; i++) {
      const c = compareKey(field(a, i), field(b, i));
      if (c !== 0) return c * dirs[i]!;
    }
    return 0;
  };
}

/** A document's keys when it has several (an array under an indexed path): it is indexed under each. */
class Many {
  constructor(readonly keys: unknown[]) {}
}

/** What a document is indexed under: one key, several, or nothing (sparse index, field missing). */
type Keys = unknown;
const SKIP = Symbol('not indexed');
/** `readFields` bits. */
const DEFINED = 1;
const SEVERAL = 2;

/** Every value a dotted path reaches, the way the query matcher (`anyLeaf`) sees them; `undefined` where missing. */
function leaves(node: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    if (!Array.isArray(node)) out.push(node);
    else if (node.length === 0) out.push(undefined);
    else for (const el of node) out.push(el);
    return;
  }
  if (Array.isArray(node)) {
    const part = parts[i]!;
    if (ARRAY_INDEX.test(part) && Number(part) < node.length) leaves(node[Number(part)], parts, i + 1, out);
    let sawScalar = node.length === 0;
    for (const el of node) {
      if (typeof el === 'object' && el !== null && !Array.isArray(el)) leaves(el, parts, i, out);
      else sawScalar = true;
    }
    if (sawScalar) out.push(undefined);
    return;
  }
  if (typeof node === 'object' && node !== null) leaves((node as Stored)[parts[i]!], parts, i + 1, out);
  else out.push(undefined);
}

/** Distinct values, `undefined` as `null`: a single value, or Many. All missing stays `undefined`. */
function distinct(values: unknown[]): unknown {
  const seen = new Set<unknown>();
  const objects: unknown[] = [];
  let defined = false;
  for (const v of values) {
    if (v !== undefined) defined = true;
    if (typeof v === 'object' && v !== null) {
      if (!objects.some((o) => compareKey(o, v) === 0)) objects.push(v);
    } else seen.add(v === undefined ? null : v);
  }
  if (!defined) return undefined;
  const keys = [...seen, ...objects];
  return keys.length === 1 ? keys[0] : new Many(keys);
}

export interface IndexDefinition {
  /** Fields in declared order. */
  fields: string[];
  dirs: Array<1 | -1>;
  unique: boolean;
  sparse: boolean;
}

/** The definition of an index spec (declared order and directions kept). */
export function definitionOf(spec: IndexSpec): IndexDefinition {
  const entries = Object.entries(spec.fields ?? {});
  return {
    fields: entries.map(([f]) => f),
    dirs: entries.map(([, d]) => (d === -1 ? -1 : 1)),
    unique: spec.unique === true,
    sparse: spec.sparse === true,
  };
}

/** nedb keys an index by its field names, sorted and comma-joined: the file format keeps that name. */
export function nedbIndexKey(fields: string[]): string {
  return [...fields].sort().join(',');
}

/**
 * The index order of a column's values as dense ranks (equal values, equal ranks), or null when a value is an object
 * or an array (those are ordered by comparing). MongoDB's type order: null (and missing) < numbers < strings <
 * booleans.
 */
interface Ranks {
  ranks: Int32Array;
  size: number;
}

/** A string column with fewer descending neighbours than one in this many is ranked by sorting its positions. */
const STRINGS_IN_ORDER = 16;

function ranksOf(col: unknown[]): Ranks | null {
  const n = col.length;
  let nulls = false;
  let falses = false;
  let trues = false;
  // Typed arrays filled in one pass: growing JS arrays by push was most of a column's ~20 ms at 200,000 documents.
  const numbers = new Float64Array(n);
  let numberCount = 0;
  const stringsAt = new Int32Array(n);
  let stringCount = 0;
  for (let i = 0; i < n; i++) {
    const v = col[i];
    if (v === null || v === undefined) nulls = true;
    else if (typeof v === 'number') {
      if (v !== v) return null; // NaN: left to the comparisons
      numbers[numberCount++] = v;
    } else if (typeof v === 'string') stringsAt[stringCount++] = i;
    else if (v === true) trues = true;
    else if (v === false) falses = true;
    else return null;
  }
  const ranks = new Int32Array(n);
  let size = nulls ? 1 : 0;
  const rankOfNumber = numberCount > 0 ? numberRanks(numbers.subarray(0, numberCount), n, size) : null;
  if (rankOfNumber) size += rankOfNumber.count;
  size = rankStrings(col as string[], stringsAt.subarray(0, stringCount), ranks, size);
  const falseRank = falses ? size++ : 0;
  const trueRank = trues ? size++ : 0;
  for (let i = 0; i < n; i++) {
    const v = col[i];
    if (typeof v === 'number') ranks[i] = rankOfNumber!.of(v);
    else if (v === false) ranks[i] = falseRank;
    else if (v === true) ranks[i] = trueRank;
    else if (typeof v !== 'string') ranks[i] = 0;
  }
  return { ranks, size };
}

/** Dense ranks of numbers, from `base` up. */
interface NumberRanks {
  count: number;
  of(v: number): number;
}

/**
 * The numbers' dense ranks: non-negative integers up to a few times the column's length (ids, counters) by a table
 * of the values present; any others by a binary search of their sorted distinct values (a Map of 200,000 distinct
 * doubles was ~100 ms).
 */
function numberRanks(numbers: Float64Array, n: number, base: number): NumberRanks {
  let max = -1;
  let small = true;
  for (let i = 0; i < numbers.length; i++) {
    const v = numbers[i]!;
    if (!(v >= 0 && v <= 4 * n + 1024 && Number.isInteger(v))) {
      small = false;
      break;
    }
    if (v > max) max = v;
  }
  if (small) {
    const rankOfValue = new Int32Array(max + 1);
    for (let i = 0; i < numbers.length; i++) rankOfValue[numbers[i]!] = 1;
    let count = 0;
    for (let v = 0; v <= max; v++) if (rankOfValue[v] === 1) rankOfValue[v] = base + count++;
    return { count, of: (v) => rankOfValue[v]! };
  }
  const sorted = numbers.slice().sort();
  let count = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[count - 1]) sorted[count++] = sorted[i]!;
  const distinct = sorted.subarray(0, count);
  return {
    count,
    of: (v) => {
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (distinct[mid]! < v) lo = mid + 1;
        else hi = mid;
      }
      return base + lo;
    },
  };
}

/**
 * Writes the dense ranks of the strings at `stringsAt` (positions in `strings`, ascending) into `ranks`, from `base`
 * up; returns the next free rank. Strings (UTF-16 code unit order, as `<` compares them) mostly in order already —
 * timestamps in `_id` order: their positions sorted (a run or a few: a pass or a few) and ranks given by neighbours.
 * Hashing 200,000 distinct timestamps into a Set and a Map was ~0.45 s of a boot. Strings in no order (names, with
 * repeats) are hashed: sorting their positions compared every repeat.
 */
function rankStrings(strings: string[], stringsAt: Int32Array, ranks: Int32Array, base: number): number {
  const count = stringsAt.length;
  if (count === 0) return base;
  let descents = 0;
  for (let j = 1; j < count; j++) if (strings[stringsAt[j - 1]!]! > strings[stringsAt[j]!]!) descents++;
  if (descents * STRINGS_IN_ORDER > count) {
    const distinct = new Set<string>();
    for (let j = 0; j < count; j++) distinct.add(strings[stringsAt[j]!]!);
    const rankOf = new Map<string, number>();
    let size = base;
    for (const v of [...distinct].sort()) rankOf.set(v, size++);
    for (let j = 0; j < count; j++) ranks[stringsAt[j]!] = rankOf.get(strings[stringsAt[j]!]!)!;
    return size;
  }
  const order = descents > 0 ? Int32Array.from(stringsAt).sort((a, b) => (strings[a]! < strings[b]! ? -1 : strings[a]! > strings[b]! ? 1 : a - b)) : stringsAt;
  let size = base;
  let prev = strings[order[0]!]!;
  ranks[order[0]!] = size;
  for (let j = 1; j < count; j++) {
    const v = strings[order[j]!]!;
    if (v !== prev) {
      size++;
      prev = v;
    }
    ranks[order[j]!] = size;
  }
  return size + 1;
}

/**
 * Positions `0..n-1` in key order, ties by position, when every column has ranks: one stable counting sort per
 * field, from the last to the first (no comparisons). `ranks[f]` is field `f`'s, in direction `dirs[f]`.
 */
function radixOrder(ranks: Ranks[], dirs: Array<1 | -1>, n: number): Int32Array {
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let next = new Int32Array(n);
  for (let f = ranks.length - 1; f >= 0; f--) {
    const { ranks: r, size } = ranks[f]!;
    const down = dirs[f] === -1;
    const starts = new Int32Array(size + 1);
    for (let i = 0; i < n; i++) starts[(down ? size - 1 - r[i]! : r[i]!) + 1]!++;
    for (let k = 0; k < size; k++) starts[k + 1]! += starts[k]!;
    for (let i = 0; i < n; i++) {
      const at = order[i]!;
      next[starts[down ? size - 1 - r[at]! : r[at]!]!++] = at;
    }
    [order, next] = [next, order];
  }
  return order;
}

/** Keys and entries in `order` when no two keys are equal: each entry its one document (one array for both, when keys are the documents). */
function distinctEntries(order: ArrayLike<number>, refs: unknown[], owners: Stored[]): { keys: unknown[]; vals: Entry[] } {
  const vals = new Array<Entry>(order.length);
  for (let r = 0; r < order.length; r++) vals[r] = owners[order[r]!]!;
  if (refs === owners) return { keys: vals, vals };
  const keys = new Array<unknown>(order.length);
  for (let r = 0; r < order.length; r++) keys[r] = refs[order[r]!];
  return { keys, vals };
}

/** One top-level field of every document of a collection (in `_id` order), read as a compound index reads it. */
class Column {
  /** Per document: its one key value (missing or `[]` as undefined, `[x]` as x), or an array of several. */
  readonly values: unknown[];
  /** Some document has an array of two or more values under the field: it is several entries. */
  several = false;
  /** Some document has an array or an object under the field. */
  multikey = false;
  private ranked: Ranks | null | undefined;

  constructor(length: number) {
    this.values = new Array<unknown>(length);
  }

  /** Sets document `i`'s value from the field's raw value `v`. */
  put(i: number, v: unknown): void {
    if (typeof v === 'object' && v !== null) {
      this.multikey = true;
      if (Array.isArray(v)) {
        if (v.length >= 2) this.several = true;
        else v = v[0];
      }
    }
    this.values[i] = v;
  }

  ranks(): Ranks | null {
    if (this.ranked === undefined) this.ranked = ranksOf(this.values);
    return this.ranked;
  }
}

/**
 * Columns of a collection's documents by field, read once for all the indexes a load builds (a dozen compound
 * indexes of the issues read `repoId`, `isClosed` and `id` over and over).
 */
export class ColumnCache {
  private readonly columns = new Map<string, Column>();

  constructor(readonly docs: Stored[]) {}

  /**
   * Reads, in one pass over the documents, every column the compound indexes of `defs` will ask for: a document's
   * fields are then one cache miss, not one per field (the documents are spread over the heap).
   */
  prefetch(defs: Iterable<IndexDefinition>): void {
    const fields = new Set<string>();
    for (const def of defs) {
      if (def.fields.length > 1 && !def.sparse && def.fields.every((f) => !f.includes('.'))) for (const f of def.fields) fields.add(f);
    }
    this.read([...fields].filter((f) => !this.columns.has(f)));
  }

  of(field: string): Column {
    if (!this.columns.has(field)) this.read([field]);
    return this.columns.get(field)!;
  }

  private read(fields: string[]): void {
    if (fields.length === 0) return;
    const docs = this.docs;
    const columns = fields.map((f) => new Column(docs.length));
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      for (let f = 0; f < fields.length; f++) columns[f]!.put(i, doc[fields[f]!]);
    }
    fields.forEach((f, k) => this.columns.set(f, columns[k]!));
  }
}

export class OrderedIndex {
  /** The name explain() reports (MongoDB's default naming, so both adapters agree). */
  readonly name: string;
  /** nedb's name for it (`fieldName` in the file). */
  readonly key: string;
  readonly fields: string[];
  readonly dirs: Array<1 | -1>;
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly compound: boolean;
  /** Per field, its path split on dots. */
  private readonly paths: string[][];
  /**
   * Some document holds an array or an object under an indexed path: it may sit under several keys (or under an
   * object), so the index cannot be walked for a sort, and a range over it may yield a document more than once.
   * Which fields did is kept too (`multikeyFrom`): a range whose multikey fields are all fixed to one value each holds
   * every document at most once, and can be counted, walked in order and skipped by rank.
   */
  multikey = false;
  /** Per field: some document held an array or an object under it (never cleared, as MongoDB's flag). */
  private readonly multikeyFields: boolean[];
  /** Number of fields flagged multikey: when it changes, plans made before are stale. */
  multikeyCount = 0;
  /**
   * A compound index whose fields are all top-level: a document whose fields each give one key value is its own key in
   * the tree (its values read through `field`), not a tuple of them. A tuple per key cost ~80 bytes, for each of
   * 200,000 issues in each of 17 compound indexes. Only a document with an array of two or more values under a field
   * (several keys) gets tuples. The tree swaps such a key for the next version on a same-key update and for a tuple
   * (`detach`) when the document leaves a key that stays, so no key holds a removed version.
   */
  readonly docKeys: boolean;
  /** Field `i` of a key of this (compound) index. */
  readonly field: KeyField;
  /** The same, generated for this index: what rank and walk probes read (`generatedKeyField`). */
  private readonly probeField: KeyField;
  /** Probes of key prefixes, generated for this index (`generatedPrefixProbe`). */
  private readonly prefixProbe: PrefixProbe;
  private tree: BTree<unknown>;
  /** Single-field indexes: the entry of every scalar key, for lookups without a tree search. */
  private readonly map: KeyMap<Entry> | null;

  constructor(readonly def: IndexDefinition) {
    this.fields = def.fields;
    this.dirs = def.dirs;
    this.unique = def.unique;
    this.sparse = def.sparse;
    this.compound = def.fields.length > 1;
    this.paths = def.fields.map((f) => f.split('.'));
    this.multikeyFields = def.fields.map(() => false);
    this.name = indexName({ fields: Object.fromEntries(def.fields.map((f, i) => [f, def.dirs[i]!])) });
    this.key = nedbIndexKey(def.fields);
    this.docKeys = this.compound && this.paths.every((p) => p.length === 1);
    this.field = keyFieldOf(def.fields);
    this.probeField = generatedKeyField(def.fields);
    this.prefixProbe = generatedPrefixProbe(def.fields, def.dirs);
    this.tree = this.newTree();
    this.map = this.compound ? null : new KeyMap<Entry>();
  }

  /** The key to hold instead of a document that leaves a key that stays (docKeys only). */
  private get detach(): ((doc: unknown) => unknown) | null {
    return this.docKeys ? (doc) => this.tupleOf(doc) : null;
  }

  private newTree(): BTree<unknown> {
    if (!this.compound) return new BTree<unknown>(compareKey);
    return new BTree<unknown>(tupleCompare(this.dirs, this.field), this.detach);
  }

  /** A compound key as a tuple (a document that stands for its key, or a tuple as it is). */
  private tupleOf(key: unknown): Tuple {
    if (Array.isArray(key)) return key;
    const n = this.fields.length;
    const t = new Array<unknown>(n);
    for (let i = 0; i < n; i++) t[i] = this.field(key, i);
    return t;
  }

  /** Documents in the index, counted once per key. */
  get entries(): number {
    return this.tree.size;
  }

  /** Whether field `f` (declared order) has met an array or an object. */
  multikeyField(f: number): boolean {
    return this.multikeyFields[f]!;
  }

  /**
   * Whether a field from the `k`-th on (declared order) has met an array or an object. When none has, a range whose
   * first `k` fields are each fixed to one value holds each document at most once: a document sits under every
   * combination of its fields' values (`keysOf`), and there is only one combination of one value per multikey field
   * and the single values of the others; the tree keeps a document once per key (a value repeated in an array, or a
   * tuple repeated by it, adds nothing).
   */
  multikeyFrom(k: number): boolean {
    for (let f = k; f < this.multikeyFields.length; f++) if (this.multikeyFields[f]) return true;
    return false;
  }

  private flagMultikey(f: number): void {
    this.multikey = true;
    if (!this.multikeyFields[f]) {
      this.multikeyFields[f] = true;
      this.multikeyCount++;
    }
  }

  // ---------------------------------------------------------------------------------------------- keys

  /** The value of field `f`: one value, Many, or `undefined` when missing. Flags the index multikey on the way. */
  private fieldKey(doc: Stored, f: number): unknown {
    const parts = this.paths[f]!;
    let v: unknown = doc;
    for (let i = 0; i < parts.length; i++) {
      if (typeof v !== 'object' || v === null) return undefined;
      if (Array.isArray(v)) return this.general(doc, f);
      v = (v as Stored)[parts[i]!];
    }
    if (typeof v !== 'object' || v === null) return v;
    this.flagMultikey(f);
    if (!Array.isArray(v)) return v;
    // An array at the end of the path: its elements are the keys (the stored array itself, read only; a repeated
    // element is harmless: a posting holds a document once, so the document is added under that key once).
    if (v.length === 0) return undefined;
    return v.length === 1 ? v[0] : new Many(v);
  }

  private general(doc: Stored, f: number): unknown {
    this.flagMultikey(f);
    const out: unknown[] = [];
    leaves(doc, this.paths[f]!, 0, out);
    return distinct(out);
  }

  /** Scratch for `keysOf`'s reading (synchronous: one call at a time). */
  private readonly scratch: unknown[] = [];

  /**
   * Each field's value of `doc` (one value, Many, or undefined) into `out`: DEFINED when any is present, SEVERAL when
   * any is an array of two or more values (bits, not an object: this runs on every write for every index).
   */
  private readFields(doc: Stored, out: unknown[]): number {
    let read = 0;
    for (let f = 0; f < this.fields.length; f++) {
      const v = this.fieldKey(doc, f);
      if (v !== undefined) read |= DEFINED;
      if (v instanceof Many) read |= SEVERAL;
      out[f] = v;
    }
    return read;
  }

  /** What `doc` is indexed under. */
  keysOf(doc: Stored): Keys {
    if (!this.compound) {
      const k = this.fieldKey(doc, 0);
      if (k === undefined) return this.sparse ? SKIP : null;
      return k;
    }
    const n = this.fields.length;
    if (this.docKeys) {
      const read = this.readFields(doc, this.scratch);
      if (!(read & DEFINED) && this.sparse) return SKIP;
      if (!(read & SEVERAL)) return doc;
    }
    const values = new Array<unknown>(n);
    let defined = false;
    let many = false;
    for (let f = 0; f < n; f++) {
      const v = this.fieldKey(doc, f);
      if (v !== undefined) defined = true;
      if (v instanceof Many) many = true;
      values[f] = v === undefined ? null : v;
    }
    if (!defined && this.sparse) return SKIP;
    if (!many) return values;
    // One tuple per combination of the fields' values (MongoDB indexes one array per compound key; so does this).
    let tuples: Tuple[] = [[]];
    for (const v of values) {
      const options = v instanceof Many ? v.keys : [v];
      const next: Tuple[] = [];
      for (const t of tuples) for (const o of options) next.push([...t, o]);
      tuples = next;
    }
    return new Many(tuples);
  }

  /** Whether two results of `keysOf` are the same keys (then an update leaves the document where it is). */
  sameKeys(a: Keys, b: Keys): boolean {
    if (a === b) return true;
    if (a === SKIP || b === SKIP) return false;
    if (a instanceof Many || b instanceof Many) {
      if (!(a instanceof Many && b instanceof Many) || a.keys.length !== b.keys.length) return false;
      return a.keys.every((k, i) => this.sameKey(k, b.keys[i]));
    }
    return this.sameKey(a, b);
  }

  private sameKey(a: unknown, b: unknown): boolean {
    if (!this.compound) return compareKey(a, b) === 0;
    for (let i = 0; i < this.fields.length; i++) if (compareKey(this.field(a, i), this.field(b, i)) !== 0) return false;
    return true;
  }

  // ---------------------------------------------------------------------------------------------- building

  /**
   * Builds the index over `docs` (in `_id` order, so every posting comes out sorted) in one pass: keys are grouped
   * (a hash map for scalar keys, one sort for compound ones), sorted once and the tree is built balanced.
   * A unique clash throws DuplicateKeyError naming the key.
   */
  static build(def: IndexDefinition, docs: Iterable<Stored>, collection: string, columns?: ColumnCache): OrderedIndex {
    const index = new OrderedIndex(def);
    if (index.compound) index.buildCompound(docs, collection, columns);
    else index.buildSingle(docs, collection);
    return index;
  }

  private clash(collection: string, key: unknown): DuplicateKeyError {
    const err = new DuplicateKeyError(collection, this.fields);
    err.message += ` (key ${JSON.stringify(this.compound ? this.tupleOf(key) : key)})`;
    return err;
  }

  private buildSingle(docs: Iterable<Stored>, collection: string): void {
    // Entries go straight into the index's own map (empty: the index is new), a key's one document inline: a temporary
    // map of one-element arrays, copied into this one after, was ~70 MB of garbage at a start with 200,000 issues.
    const map = this.map!;
    const objects: Array<{ key: unknown; doc: Stored }> = [];
    let numbers = true;
    let strings = true;
    const put = (key: unknown, doc: Stored): void => {
      if (typeof key === 'object' && key !== null) {
        objects.push({ key, doc });
        return;
      }
      const entry = map.get(key);
      if (entry === undefined) {
        map.set(key, doc);
        if (typeof key !== 'number') numbers = false;
        if (typeof key !== 'string') strings = false;
      } else if (!Array.isArray(entry)) {
        // A document under the key already; the same one again is a second value of its own (an array field).
        if (entry === doc) return;
        if (this.unique) throw this.clash(collection, key);
        map.set(key, [entry, doc]);
      } else if (entry[entry.length - 1] !== doc) {
        if (this.unique) throw this.clash(collection, key);
        entry.push(doc);
      }
    };
    for (const doc of docs) {
      const k = this.keysOf(doc);
      if (k === SKIP) continue;
      if (k instanceof Many) for (const key of k.keys) put(key, doc);
      else put(k, doc);
    }
    let keys = map.keyList();
    // Integer keys from the map's array come in order; any others are sorted with them as doubles (no comparator).
    if (numbers) {
      if (map.sparseSize > 0) keys = Array.from(Float64Array.from(keys as number[]).sort());
    } else if (strings) keys.sort(); // UTF-16 code unit order, as `<` compares strings
    else keys.sort(compareKey);
    let entries: Entry[] = keys.map((k) => map.get(k)!);
    if (objects.length) {
      // Object keys (sub-documents as values) are rare: grouped by sorting, then merged in. They stay out of the map.
      objects.sort((a, b) => compareKey(a.key, b.key));
      const pairs = keys.map((key, i) => ({ key, entry: entries[i]! }));
      for (let i = 0; i < objects.length; i++) {
        const { key, doc } = objects[i]!;
        const last = pairs[pairs.length - 1]!;
        if (i > 0 && compareKey(objects[i - 1]!.key, key) === 0) {
          const held = last.entry;
          if (Array.isArray(held) ? held[held.length - 1] === doc : held === doc) continue;
          if (this.unique) throw this.clash(collection, key);
          if (Array.isArray(held)) held.push(doc);
          else last.entry = [held, doc];
        } else pairs.push({ key, entry: doc });
      }
      pairs.sort((a, b) => compareKey(a.key, b.key));
      keys = pairs.map((p) => p.key);
      entries = pairs.map((p) => p.entry);
    }
    this.tree = BTree.build(compareKey, keys, entries);
  }

  private buildCompound(docs: Iterable<Stored>, collection: string, columns?: ColumnCache): void {
    // Entry `at`'s value of field `f` is `cols[f][at]`: no tuple per entry. Positions break ties, so each posting keeps
    // `_id` order. The tree keeps `refs`: a document standing for its own key (`docKeys`) or a tuple.
    const n = this.fields.length;
    const dirs = this.dirs;
    // The collection's columns, shared by its indexes, serve when every document is one entry of this one (one value
    // per field; a sparse index may skip some).
    const shared = columns && this.docKeys && !this.sparse ? this.fields.map((f) => columns.of(f)) : null;
    if (shared && shared.every((c) => !c.several)) {
      shared.forEach((c, f) => c.multikey && this.flagMultikey(f));
      const ranked = shared.map((c) => c.ranks());
      const all = columns!.docs;
      const ranks = ranked.every((r) => r !== null) ? (ranked as Ranks[]) : null;
      this.buildFromColumns(shared.map((c) => c.values), ranks, all, all, collection);
      return;
    }
    const cols: unknown[][] = this.fields.map(() => []);
    const refs: unknown[] = [];
    const owners: Stored[] = [];
    const values = new Array<unknown>(n);
    for (const doc of docs) {
      if (this.docKeys) {
        // keysOf's own reading, kept: a document with one value per field goes in as itself.
        const read = this.readFields(doc, values);
        if (!(read & DEFINED) && this.sparse) continue;
        if (!(read & SEVERAL)) {
          for (let f = 0; f < n; f++) cols[f]!.push(values[f] === undefined ? null : values[f]);
          refs.push(doc);
          owners.push(doc);
          continue;
        }
      }
      const k = this.keysOf(doc);
      if (k === SKIP) continue;
      for (const t of k instanceof Many ? (k.keys as Tuple[]) : [k as Tuple]) {
        for (let f = 0; f < n; f++) cols[f]!.push(t[f]);
        refs.push(t);
        owners.push(doc);
      }
    }
    const ranked = cols.map(ranksOf);
    this.buildFromColumns(cols, ranked.every((r) => r !== null) ? (ranked as Ranks[]) : null, refs, owners, collection);
  }

  /**
   * The tree from entries given as columns (`cols[f][at]`), the tree key (`refs[at]`) and document (`owners[at]`) of
   * each. Ranked columns sort without comparing; a column holding objects or arrays falls back to a comparison sort.
   */
  private buildFromColumns(cols: unknown[][], ranks: Ranks[] | null, refs: unknown[], owners: Stored[], collection: string): void {
    const n = this.fields.length;
    const dirs = this.dirs;
    const sameKey = ranks
      ? (a: number, b: number): number => {
        for (let f = 0; f < n; f++) if (ranks[f]!.ranks[a] !== ranks[f]!.ranks[b]) return 1;
        return 0;
      }
      : (a: number, b: number): number => {
        for (let f = 0; f < n; f++) {
          const c = compareKey(cols[f]![a], cols[f]![b]);
          if (c !== 0) return c * dirs[f]!;
        }
        return 0;
      };
    const m = refs.length;
    const order = ranks ? radixOrder(ranks, dirs, m) : refs.map((_, i) => i).sort((a, b) => sameKey(a, b) || a - b);
    // A field whose every entry has a value of its own (an index ending with `id`): no two keys are equal, so the
    // entries are the documents in order, with no neighbours compared (each a rank read per field at two permuted places).
    const { keys, vals } = ranks && ranks.some((r) => r.size === m)
      ? distinctEntries(order, refs, owners)
      : this.groupedEntries(order, refs, owners, (a, b) => sameKey(a, b) === 0, collection);
    this.tree = BTree.build(tupleCompare(this.dirs, this.field), keys, vals, this.detach);
  }

  /** Keys and entries in `order`, neighbours with equal keys grouped in one posting (a unique index refuses them). */
  private groupedEntries(order: ArrayLike<number>, refs: unknown[], owners: Stored[], same: (a: number, b: number) => boolean, collection: string): { keys: unknown[]; vals: Entry[] } {
    const keys: unknown[] = [];
    const vals: Entry[] = [];
    // What the current key holds is tracked here, not read back from its entry: reading a document (is it an array?)
    // was a cache miss per entry, in key order across the heap (~0.2 s of the issues' index builds at a start).
    let lastDoc: Stored | null = null;
    let posting: Stored[] | null = null;
    for (let r = 0; r < order.length; r++) {
      const i = order[r]!;
      const doc = owners[i]!;
      if (r > 0 && same(order[r - 1]!, i)) {
        if (doc === lastDoc) continue; // a second value of the same document's array under the key
        if (this.unique) throw this.clash(collection, refs[i]);
        if (posting) posting.push(doc);
        else vals[vals.length - 1] = posting = [lastDoc!, doc];
      } else {
        keys.push(refs[i]!);
        vals.push(doc);
        posting = null;
      }
      lastDoc = doc;
    }
    return { keys, vals };
  }

  // ---------------------------------------------------------------------------------------------- changes

  private posting(key: unknown): Entry | undefined {
    if (this.map && (typeof key !== 'object' || key === null)) return this.map.get(key);
    return this.tree.get(key);
  }

  /** True when adding `doc` under `keys` would break uniqueness. */
  clashes(doc: Stored, keys: Keys): boolean {
    if (!this.unique || keys === SKIP) return false;
    const taken = (key: unknown): boolean => {
      const p = this.posting(key);
      return p !== undefined && (Array.isArray(p) ? p.length > 1 || p[0] !== doc : p !== doc);
    };
    return keys instanceof Many ? keys.keys.some(taken) : taken(keys);
  }

  /** Adds `doc` under `keys` (uniqueness is checked beforehand with `clashes`). */
  add(doc: Stored, keys: Keys): void {
    if (keys === SKIP) return;
    if (keys instanceof Many) for (const key of keys.keys) this.addKey(key, doc);
    else this.addKey(keys, doc);
  }

  private addKey(key: unknown, doc: Stored): void {
    const { posting } = this.tree.insert(key, doc);
    // A new key, or a singleton that became a posting: the map follows the tree's entry.
    if (this.map && (typeof key !== 'object' || key === null)) this.map.set(key, posting);
  }

  remove(doc: Stored, keys: Keys): void {
    if (keys === SKIP) return;
    if (keys instanceof Many) for (const key of keys.keys) this.removeKey(key, doc);
    else this.removeKey(keys, doc);
  }

  private removeKey(key: unknown, doc: Stored): void {
    const { emptied, entry } = this.tree.remove(key, doc);
    if (!this.map || (typeof key === 'object' && key !== null)) return;
    if (emptied) this.map.delete(key);
    else if (entry !== null) this.map.set(key, entry);
  }

  /** Puts `to` where `from` is (same `_id`, same keys). */
  swap(keys: Keys, from: Stored, to: Stored): void {
    if (keys === SKIP) return;
    const one = (key: unknown): void => {
      const entry = this.tree.swap(key, from, to);
      if (entry !== null && this.map && (typeof key !== 'object' || key === null)) this.map.set(key, entry);
    };
    if (keys instanceof Many) keys.keys.forEach(one);
    else one(keys);
  }

  // ---------------------------------------------------------------------------------------------- reads

  /** The documents under one scalar value of a single-field index (a posting is the stored array: read only). */
  lookup(value: IndexKey): Entry | undefined {
    return this.map!.get(value);
  }

  /** The documents under a full compound key. */
  lookupTuple(values: unknown[]): Entry | undefined {
    // Through the index's generated field reader, as the prefix ranges: the tree's comparator reads a document key's
    // fields by a load shared with every index (megamorphic), most of a point lookup's time.
    return this.tree.getBy(this.prefixProbe(values));
  }

  /** `[start, end)` ranks of the documents whose leading fields equal `values` (a prefix of a compound index). */
  prefixRange(values: unknown[]): [number, number] {
    return this.tree.rankRange(this.prefixProbe(values));
  }

  /**
   * `[start, end)` ranks of the documents whose leading fields equal `values` and whose next field is within
   * `bounds` (a compound index; the next field not multikey). As for `range`, the bounds share one type and the range
   * keeps to it (MongoDB's type bracketing). The next field may be descending: then its larger values come first.
   */
  prefixBoundedRange(values: unknown[], bounds: RangeBounds): [number, number] {
    const k = values.length;
    const dirs = this.dirs;
    const dir = dirs[k]!;
    const field = this.probeField;
    const prefix = this.prefixProbe(values);
    const type = typeRank([bounds.$gt, bounds.$gte, bounds.$lt, bounds.$lte].find((v) => v !== undefined));
    const ofType: Probe<unknown> = (key) => prefix(key) || (typeRank(field(key, k)) - type) * dir;
    const at = (v: IndexKey): Probe<unknown> => (key) => {
      const p = prefix(key);
      if (p !== 0) return p;
      const next = field(key, k);
      return (typeRank(next) - type) * dir || compareKey(next, v) * dir;
    };
    let [start, end] = this.tree.rankRange(ofType);
    // In key order, a lower bound cuts the start of an ascending field and the end of a descending one.
    const cutStart = (r: number) => (start = Math.max(start, r));
    const cutEnd = (r: number) => (end = Math.min(end, r));
    if (bounds.$gte !== undefined) (dir === 1 ? cutStart : cutEnd)(this.tree.rank(at(bounds.$gte), dir !== 1));
    if (bounds.$gt !== undefined) (dir === 1 ? cutStart : cutEnd)(this.tree.rank(at(bounds.$gt), dir === 1));
    if (bounds.$lte !== undefined) (dir === 1 ? cutEnd : cutStart)(this.tree.rank(at(bounds.$lte), dir === 1));
    if (bounds.$lt !== undefined) (dir === 1 ? cutEnd : cutStart)(this.tree.rank(at(bounds.$lt), dir !== 1));
    return [start, Math.max(start, end)];
  }

  /**
   * `[start, end)` ranks of a range over a single-field index. Bounds share one type, and so does the range
   * (MongoDB's type bracketing): `{$gt: 5}` stops at the last number.
   */
  range(bounds: { $gt?: IndexKey; $gte?: IndexKey; $lt?: IndexKey; $lte?: IndexKey }): [number, number] {
    const sample = [bounds.$gt, bounds.$gte, bounds.$lt, bounds.$lte].find((v) => v !== undefined);
    const type = typeRank(sample);
    const ofType: Probe<unknown> = (key) => typeRank(key) - type;
    const at = (v: IndexKey): Probe<unknown> => (key) => compareKey(key, v);
    let [start, end] = this.tree.rankRange(ofType);
    if (bounds.$gte !== undefined) start = Math.max(start, this.tree.rank(at(bounds.$gte), false));
    if (bounds.$gt !== undefined) start = Math.max(start, this.tree.rank(at(bounds.$gt), true));
    if (bounds.$lte !== undefined) end = Math.min(end, this.tree.rank(at(bounds.$lte), true));
    if (bounds.$lt !== undefined) end = Math.min(end, this.tree.rank(at(bounds.$lt), false));
    return [start, Math.max(start, end)];
  }

  /** Every key the tree holds, separators included (for consistency checks). */
  heldKeys(): unknown[] {
    return this.tree.heldKeys();
  }

  /** Leaves, and those whose keys are their documents held once (for tests and measurements). */
  leafStats(): { leaves: number; shared: number } {
    return this.tree.leafStats();
  }

  /** Visits `n` documents from `rank` on in key order (`dir` 1) or reverse key order (`dir` -1, rank from the end). */
  walk(dir: 1 | -1, rank: number, n: number, visit: (doc: Stored) => boolean): void {
    this.tree.walk(dir, rank, n, visit);
  }
}
