// The MongoDB store adapter (official driver): the port's language is MongoDB's, so this mostly maps shapes.
// Types only: the driver itself (~150 ms to load) is imported by `open`, so a forge on the embedded store never loads it.
import type { MongoClient, Collection as MongoCollectionType, Db, Document, Sort } from 'mongodb';
import {
  DuplicateKeyError,
  type Collection,
  type CollectionSpec,
  type Counted,
  type Doc,
  type ExplainResult,
  type Filter,
  type FindOptions,
  type Projection,
  type Store,
  type Update,
  type UpdateResult,
} from '../port.js';
import {
  ADAPTER_ID,
  assertCollectionName,
  cleanUpdate,
  cloneDocIn,
  copyDocOut,
  COUNTERS_COLLECTION,
  indexName,
  isPlainObject,
} from '../documents.js';

const DUPLICATE_KEY = 11000;

export interface MongoStoreOptions {
  uri: string;
  /** The database to use; by default the one the URI names, else `forgekit`. */
  database?: string;
}

/** The database named in a MongoDB URI (`mongodb://host/<db>?...`), if any. */
export function databaseFromUri(uri: string): string | null {
  const m = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(uri);
  return m ? decodeURIComponent(m[1]!) : null;
}

/** Plugins never see `_id`: every projection excludes it. */
function mongoProjection(projection: Projection | undefined): Document {
  const out: Document = { [ADAPTER_ID]: 0 };
  if (projection) for (const [k, v] of Object.entries(projection)) if (k !== ADAPTER_ID) out[k] = v;
  return out;
}

function nonNegativeInt(v: number | undefined, what: string): number {
  if (v === undefined) return 0;
  if (!Number.isInteger(v) || v < 0) throw new TypeError(`${what} must be a non-negative integer`);
  return v;
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;
}

/** Collects the index names of a winning plan (IXSCAN, EXPRESS_IXSCAN, COUNT_SCAN… all carry `indexName`). */
function planIndexes(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) planIndexes(n, into);
  else if (isPlainObject(node)) {
    if (typeof node.indexName === 'string') into.add(node.indexName);
    for (const [k, v] of Object.entries(node)) if (k !== 'indexName' && typeof v === 'object') planIndexes(v, into);
  }
  return into;
}

class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly coll: MongoCollectionType<Document>,
    private readonly indexFields: Map<string, string[]>,
  ) {}

  /** DuplicateKeyError naming the fields of the index that refused the write. */
  private mapError(err: unknown): unknown {
    if (!isDuplicateKey(err)) return err;
    const e = err as {
      keyPattern?: Document;
      errorResponse?: { keyPattern?: Document };
      writeErrors?: Array<{ err?: { keyPattern?: Document; errmsg?: string }; errmsg?: string }> | { err?: { keyPattern?: Document } };
      message?: string;
    };
    const first = Array.isArray(e.writeErrors) ? e.writeErrors[0] : e.writeErrors;
    const pattern = e.keyPattern ?? e.errorResponse?.keyPattern ?? first?.err?.keyPattern;
    let fields: string[] = pattern ? Object.keys(pattern) : [];
    if (fields.length === 0) {
      const text = `${e.message ?? ''} ${(first as { errmsg?: string } | undefined)?.errmsg ?? ''}`;
      const m = /index: (\S+) dup key/.exec(text);
      if (m) fields = this.indexFields.get(m[1]!) ?? [];
    }
    return new DuplicateKeyError(this.name, fields, err);
  }

  private findOptions(options: FindOptions): Document {
    const out: Document = { projection: mongoProjection(options.projection) };
    if (options.sort) out.sort = options.sort as Sort;
    const skip = nonNegativeInt(options.skip, 'skip');
    const limit = nonNegativeInt(options.limit, 'limit');
    if (skip) out.skip = skip;
    if (limit) out.limit = limit;
    return out;
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'projection' | 'sort'> = {}): Promise<T | null> {
    return (await this.coll.findOne(filter, this.findOptions(options))) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return (await this.coll.find(filter, this.findOptions(options)).toArray()) as unknown as T[];
  }

  count(filter: Filter): Promise<number> {
    return this.coll.countDocuments(filter);
  }

  async findAndCount(filter: Filter, options: FindOptions = {}): Promise<Counted<T>> {
    const [docs, total] = await Promise.all([this.find(filter, options), this.count(filter)]);
    return { docs, total };
  }

  async insertOne(doc: T): Promise<T> {
    const stored = cloneDocIn(doc);
    try {
      await this.coll.insertOne(stored); // the driver adds `_id` to `stored`
    } catch (err) {
      throw this.mapError(err);
    }
    return copyDocOut<T>(stored);
  }

  async insertMany(docs: T[]): Promise<T[]> {
    if (!Array.isArray(docs)) throw new TypeError('insertMany needs an array');
    if (docs.length === 0) return [];
    const stored = docs.map((d) => cloneDocIn(d));
    try {
      await this.coll.insertMany(stored, { ordered: true });
    } catch (err) {
      throw this.mapError(err);
    }
    return stored.map((d) => copyDocOut<T>(d));
  }

  private async update(filter: Filter, update: Update, multi: boolean, upsert: boolean): Promise<UpdateResult> {
    const clean = cleanUpdate(update) as Document;
    try {
      const r = multi ? await this.coll.updateMany(filter, clean, { upsert }) : await this.coll.updateOne(filter, clean, { upsert });
      return { matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount > 0 };
    } catch (err) {
      throw this.mapError(err);
    }
  }

  updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    return this.update(filter, update, false, options.upsert === true);
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.update(filter, update, true, false);
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<T | null> {
    const clean = cleanUpdate(update) as Document;
    try {
      const doc = await this.coll.findOneAndUpdate(filter, clean, {
        upsert: options.upsert === true,
        returnDocument: 'after',
        projection: { [ADAPTER_ID]: 0 },
        includeResultMetadata: false,
      });
      return doc as T | null;
    } catch (err) {
      throw this.mapError(err);
    }
  }

  async findOneAndDelete(filter: Filter): Promise<T | null> {
    const doc = await this.coll.findOneAndDelete(filter, { projection: { [ADAPTER_ID]: 0 }, includeResultMetadata: false });
    return doc as T | null;
  }

  async deleteOne(filter: Filter): Promise<number> {
    return (await this.coll.deleteOne(filter)).deletedCount;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.coll.deleteMany(filter)).deletedCount;
  }

  /** Other servers may write the same database: no generation this process could trust. */
  writeGeneration(): null {
    return null;
  }

  async explain(filter: Filter, options: FindOptions = {}): Promise<ExplainResult> {
    const plan = await this.coll.find(filter, this.findOptions(options)).explain('executionStats');
    const names = planIndexes((plan.queryPlanner as Document | undefined)?.winningPlan, new Set());
    const stats = (plan.executionStats ?? {}) as Document;
    return {
      index: names.size ? [...names].join('|') : null,
      examined: Number(stats.totalDocsExamined ?? 0),
      returned: Number(stats.nReturned ?? 0),
    };
  }
}

export class MongoStore implements Store {
  readonly kind = 'mongodb' as const;
  private client: MongoClient | null = null;
  private db: Db | null = null;
  /** Per collection: index name → fields (to name the fields of a duplicate-key error). */
  private readonly indexFields = new Map<string, Map<string, string[]>>();
  private readonly handles = new Map<string, MongoCollection<Doc>>();

  constructor(private readonly options: MongoStoreOptions) {}

  async open(): Promise<void> {
    // ignoreUndefined: a property set to undefined is left out, as in the embedded adapter and in JSON.
    const { MongoClient } = await import('mongodb');
    const client = new MongoClient(this.options.uri, { ignoreUndefined: true });
    await client.connect();
    this.client = client;
    this.db = client.db(this.options.database ?? databaseFromUri(this.options.uri) ?? 'forgekit');
  }

  private database(): Db {
    if (!this.db) throw new Error('the MongoDB store is not open');
    return this.db;
  }

  private fieldsOf(name: string): Map<string, string[]> {
    let m = this.indexFields.get(name);
    if (!m) {
      m = new Map();
      this.indexFields.set(name, m);
    }
    return m;
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    assertCollectionName(spec.name);
    const coll = this.database().collection(spec.name);
    const fields = this.fieldsOf(spec.name);
    for (const index of spec.retiredIndexes ?? []) {
      const name = indexName(index);
      fields.delete(name);
      try {
        await coll.dropIndex(name);
      } catch (err) {
        // Never created, or the collection does not exist yet: nothing to drop.
        const code = (err as { code?: number }).code;
        if (code !== 27 && code !== 26) throw err;
      }
    }
    for (const index of spec.indexes ?? []) {
      const name = indexName(index);
      fields.set(name, Object.keys(index.fields));
      try {
        await coll.createIndex(index.fields, { name, unique: index.unique === true, sparse: index.sparse === true });
      } catch (err) {
        if (isDuplicateKey(err)) throw new DuplicateKeyError(spec.name, Object.keys(index.fields), err);
        throw err;
      }
    }
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    assertCollectionName(name);
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new MongoCollection<Doc>(name, this.database().collection(name), this.fieldsOf(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  async nextId(sequence: string): Promise<number> {
    if (typeof sequence !== 'string' || sequence.length === 0) throw new TypeError('a sequence needs a name');
    const counters = this.database().collection<{ _id: string; value: number }>(COUNTERS_COLLECTION);
    // Two first calls racing on a new sequence can both try the upsert's insert: the loser retries.
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await counters.findOneAndUpdate(
          { _id: sequence },
          { $inc: { value: 1 } },
          { upsert: true, returnDocument: 'after', includeResultMetadata: false },
        );
        if (!doc) throw new Error(`nextId(${sequence}): no document returned`);
        return doc.value;
      } catch (err) {
        if (isDuplicateKey(err) && attempt < 5) continue;
        throw err;
      }
    }
  }

  /** Drops the whole database (tests only: they run each case in a database of its own). */
  async dropDatabase(): Promise<void> {
    await this.database().dropDatabase();
  }

  async drop(name: string): Promise<void> {
    assertCollectionName(name);
    // Documents go, indexes stay: the collection stays as its plugin declared it.
    await this.database().collection(name).deleteMany({});
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.db = null;
    this.handles.clear();
    await client?.close();
  }
}
