// The store port: the only way plugins reach persistent data. Every adapter implements it the same way.

/**
 * A stored document. `_id` is adapter-owned (never part of a returned document); plugins use their own integer `id`
 * fields. Documents a collection returns are read-only (see `Collection`).
 */
export type Doc = Record<string, unknown>;

/**
 * The filter language: a subset of MongoDB's query language that every adapter supports.
 * Field equality (`{a: 1}`), dotted paths, and the operators $eq $ne $in $nin $gt $gte $lt $lte $exists
 * plus $and / $or at the top level. Plugins must not use other operators.
 */
export type Filter = Record<string, unknown>;

/** Update operators every adapter supports: $set $unset $inc $addToSet $pull $push. */
export interface Update {
  $set?: Record<string, unknown>;
  $unset?: Record<string, true | 1 | ''>;
  $inc?: Record<string, number>;
  $addToSet?: Record<string, unknown>;
  $pull?: Record<string, unknown>;
  $push?: Record<string, unknown>;
}

export type SortSpec = Record<string, 1 | -1>;
export type Projection = Record<string, 0 | 1>;

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  projection?: Projection;
}

export interface IndexSpec {
  /** Field → direction. More than one field makes a compound index. */
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /** Documents without the field are left out of the index (and out of uniqueness). */
  sparse?: boolean;
}

export interface CollectionSpec {
  name: string;
  indexes?: IndexSpec[];
  /**
   * Indexes this collection once declared and no longer wants (same fields, order and directions): dropped by
   * `ensureCollection` where they exist, so an upgraded server stops maintaining them. Idempotent.
   */
  retiredIndexes?: IndexSpec[];
}

export interface UpdateResult {
  matched: number;
  modified: number;
  /** True when an upsert inserted a new document. */
  upserted: boolean;
}

/**
 * A collection of documents.
 *
 * **Returned documents are read-only.** Every document a method returns (reads, the result of an insert, of
 * `findOneAndUpdate`, of `findOneAndDelete`) must not be modified: to change one, copy it (`{ ...doc, x }`) or
 * write through the store. The embedded adapter hands out its stored versions themselves, deep-frozen, so a write
 * into one throws a TypeError (modules are strict mode); the MongoDB adapter returns fresh objects.
 *
 * **Identity.** With the embedded adapter a returned document is the same object (`===`) on every read while the
 * stored document is unchanged, projections included (one object per stored version and projection shape); any
 * change to the document gives later reads a new object. Caches keyed on returned documents (a `WeakMap` of
 * serialised JSON, say) are therefore exact: they can never serve a stale entry. With MongoDB every read returns a
 * new object, so such caches simply miss.
 */
export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  findOne(filter: Filter, options?: Pick<FindOptions, 'projection' | 'sort'>): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter: Filter): Promise<number>;
  /**
   * A page and the query's whole count at once: `docs` is `find(filter, options)`, `total` is `count(filter)` (skip
   * and limit ignored). An adapter may answer both from one plan (the embedded one reads a sorted list's count off
   * the range its page is walked from); MongoDB runs the two together.
   */
  findAndCount(filter: Filter, options?: FindOptions): Promise<Counted<T>>;
  /** Inserts and returns the stored document. Throws DuplicateKeyError on a unique index clash. */
  insertOne(doc: T): Promise<T>;
  /** Inserts many; each is all-or-nothing per document (not a transaction across documents). */
  insertMany(docs: T[]): Promise<T[]>;
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /** Atomically updates one document and returns it as it is after the update (or null). */
  findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null>;
  /** Deletes one matching document; returns the deleted document or null. */
  findOneAndDelete(filter: Filter): Promise<T | null>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  /**
   * How the adapter would answer this filter: whether an index served it and how many documents it had to
   * examine. Used by tests and benchmarks to prove that hot paths do not scan.
   */
  explain(filter: Filter, options?: FindOptions): Promise<ExplainResult>;
  /**
   * A number that changes whenever the collection's documents change (insert, update, delete, drop), read at once:
   * something computed from the collection (a count, say) may be kept while it reads the same before and after the
   * computation and at every later use. null where writes elsewhere go unseen (MongoDB: other servers on the same
   * database): nothing may be kept that way.
   */
  writeGeneration(): number | null;
}

/** A page of documents and how many match in all. */
export interface Counted<T> {
  docs: T[];
  total: number;
}

export interface ExplainResult {
  /** The index used, or null for a full collection scan. */
  index: string | null;
  /** Documents examined to answer the query. */
  examined: number;
  /** Documents returned. */
  returned: number;
}

export interface Store {
  readonly kind: 'embedded' | 'mongodb';
  /** Connects / loads data. Called once before use. */
  open(): Promise<void>;
  /**
   * What `open()` left for later (the embedded store's indexes), done in pieces between turns of the event loop; the
   * kernel starts it once the server listens. Everything is answered meanwhile as ever: what a query needs that is
   * not done yet is done for it first, and writes need none of it. Resolves when all is done, or when the store
   * closes; null when nothing was left.
   */
  finishOpen?(): Promise<void> | null;
  /** Declares a collection and makes sure its indexes exist. Idempotent. */
  ensureCollection(spec: CollectionSpec): Promise<void>;
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  /** Atomic, persistent, strictly increasing sequence (starting at 1) for int64 ids. */
  nextId(sequence: string): Promise<number>;
  /** Drops every document of a collection (tests and benchmarks only). */
  drop(name: string): Promise<void>;
  /** Flushes and closes. */
  close(): Promise<void>;
}

/** Thrown by every adapter when a write would break a unique index. */
export class DuplicateKeyError extends Error {
  readonly collection: string;
  readonly fields: string[];
  constructor(collection: string, fields: string[], cause?: unknown) {
    super(`duplicate key in ${collection} on ${fields.join(',') || 'unknown index'}`);
    this.name = 'DuplicateKeyError';
    this.collection = collection;
    this.fields = fields;
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}

export function isDuplicateKeyError(err: unknown): err is DuplicateKeyError {
  return err instanceof DuplicateKeyError;
}
