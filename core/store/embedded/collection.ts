// One embedded collection: documents in nedb's indexes (AVL trees), its append-only file, queries with a planner.
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type ExplainResult,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type UpdateResult,
  type Update,
} from '../port.js';
import { cleanUpdate, cloneDocIn, compileProjection, copyDocOut, copyJson, indexName, isPlainObject, projectDoc } from '../documents.js';
import {
  applyUpdate,
  compileFilter,
  compileSort,
  indexablePredicates,
  jsonEqual,
  sortWindow,
  upsertSeed,
  type IndexKey,
  type Predicate,
  type SortFields,
} from './query.js';
import { Datastore, Index, nedbIndexKey, storage, walkTree, type NedbDatastore, type NedbIndex, type Stored } from './nedb.js';
import { Journal, repairTornTail } from './journal.js';

export type StoreLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

const FILE_MODES = { fileMode: 0o644, dirMode: 0o755 };

/**
 * `_id`s: boot time + random bits + a padded counter. Unique across restarts, cheaper than random bytes per
 * document, and ordered like insertion, so a collection scan returns documents in insertion order (like MongoDB's
 * natural order in practice).
 */
const ID_PREFIX = Date.now().toString(36).padStart(9, '0') + randomBytes(3).toString('hex');
let idCounter = 0;
function newId(): string {
  return ID_PREFIX + (idCounter++).toString(36).padStart(8, '0');
}

// nedb's loader splits lines on U+0085/U+2028/U+2029 too, and JSON.stringify leaves them raw: escape them so the
// file stays readable by nedb itself.
const LINE_BREAKERS = /[\u0085\u2028\u2029]/;
const LINE_BREAKERS_G = /[\u0085\u2028\u2029]/g;
function serialize(doc: unknown): string {
  const s = JSON.stringify(doc);
  return LINE_BREAKERS.test(s) ? s.replace(LINE_BREAKERS_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
}

interface IndexInfo {
  index: NedbIndex;
  /** The name explain() reports (MongoDB's default naming, so both adapters agree). */
  name: string;
  /** Fields in declared order (what DuplicateKeyError names). */
  fields: string[];
  /** Per field, its path split on dots (nedb's order: `index._fields`). */
  paths: string[][];
  /**
   * Some document holds an array or an object under an indexed path. nedb leaves a document with an empty array
   * out of the index and does not expand arrays in compound keys, so such an index may not be walked in order
   * (single field) or searched (compound) without missing documents.
   */
  multikey: boolean;
}

interface Plan {
  docs: Stored[];
  index: string;
  /** The index answer is exactly the filter's answer (count needs no matching). */
  exact: boolean;
}

interface Stats {
  index: string | null;
  examined: number;
}

const NOT_SCALAR = Symbol('not scalar');

/** A field's value when it is a scalar reached without crossing an array; NOT_SCALAR otherwise. */
function scalarAt(doc: Stored, parts: string[]): unknown {
  let node: unknown = doc;
  for (const part of parts) {
    if (node === undefined) return undefined;
    if (typeof node !== 'object' || node === null) return undefined;
    if (Array.isArray(node)) return NOT_SCALAR;
    node = (node as Stored)[part];
  }
  if (typeof node === 'object' && node !== null) return NOT_SCALAR;
  return node;
}

function nonNegativeInt(v: number | undefined, what: string): number {
  if (v === undefined) return 0;
  if (!Number.isInteger(v) || v < 0) throw new TypeError(`${what} must be a non-negative integer`);
  return v;
}

export class EmbeddedCollection<T extends Doc = Doc> implements Collection<T> {
  private db: NedbDatastore | null = null;
  private journal: Journal;
  private infos: IndexInfo[] = [];
  private loading: Promise<void> | null = null;
  private closed = false;
  /** Number of stored documents. */
  private size = 0;

  constructor(
    readonly name: string,
    readonly file: string,
    private readonly log: StoreLogger,
  ) {
    this.journal = new Journal(file);
  }

  // ------------------------------------------------------------------------------------------ lifecycle

  load(): Promise<void> {
    this.loading ??= this.doLoad();
    return this.loading;
  }

  private async doLoad(): Promise<void> {
    await storage.ensureParentDirectoryExistsAsync(this.file, FILE_MODES.dirMode);
    // A crash during a rewrite leaves the previous version as `<file>~`: nedb restores it.
    await storage.ensureDatafileIntegrityAsync(this.file, FILE_MODES.fileMode);
    const repair = await repairTornTail(this.file);
    if (repair?.dropped) {
      this.log.warn({ file: this.file, bytes: repair.dropped }, 'store: dropped a partial last line left by a crash');
    } else if (repair?.completed) {
      this.log.warn({ file: this.file }, 'store: the last line lacked its newline; kept it');
    }
    const text = await readFile(this.file, 'utf8');
    const byId = new Map<string, Stored>();
    const indexDefs = new Map<string, { fieldName: string; unique: boolean; sparse: boolean }>();
    let lines = 0;
    let start = 0;
    let lineNo = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      lineNo++;
      const raw = text.slice(start, end);
      start = end + 1;
      if (raw.length === 0) continue;
      lines++;
      let doc: Stored;
      try {
        doc = JSON.parse(raw) as Stored;
        if (!isPlainObject(doc)) throw new Error('not an object');
      } catch (err) {
        throw new Error(`store: ${this.file} line ${lineNo} is corrupt (${(err as Error).message}); refusing to load it`);
      }
      if (typeof doc._id === 'string') {
        if (doc.$$deleted === true) byId.delete(doc._id);
        else byId.set(doc._id, doc);
      } else if (isPlainObject(doc.$$indexCreated) && typeof doc.$$indexCreated.fieldName === 'string') {
        const def = doc.$$indexCreated;
        indexDefs.set(def.fieldName as string, { fieldName: def.fieldName as string, unique: def.unique === true, sparse: def.sparse === true });
      } else if (typeof doc.$$indexRemoved === 'string') {
        indexDefs.delete(doc.$$indexRemoved);
      } else {
        throw new Error(`store: ${this.file} line ${lineNo} is not a document (no _id); refusing to load it`);
      }
    }
    const db = new Datastore({ filename: this.file });
    for (const def of indexDefs.values()) db.indexes[def.fieldName] = new Index(def);
    const docs = [...byId.values()];
    db._resetIndexes(docs);
    this.db = db;
    this.size = docs.length;
    this.infos = [];
    for (const def of indexDefs.values()) {
      const fields = def.fieldName.split(',');
      this.addInfo(db.indexes[def.fieldName]!, fields, indexName({ fields: Object.fromEntries(fields.map((f) => [f, 1])) }), docs);
    }
    await this.journal.open();
    // Superseded lines (updates, deletions) are dropped now rather than at the first background compaction.
    if (lines > docs.length + indexDefs.size) await this.compact();
  }

  private addInfo(index: NedbIndex, fields: string[], name: string, docs: Stored[]): void {
    const previous = this.infos.find((i) => i.index === index);
    this.infos = this.infos.filter((i) => i.index.fieldName !== index.fieldName);
    const info: IndexInfo = { index, name, fields, paths: index._fields.map((f) => f.split('.')), multikey: previous?.multikey ?? false };
    if (!previous) for (const doc of docs) if (this.noteMultikey(info, doc)) break;
    this.infos.push(info);
  }

  /** Flags the index when `doc` has a non-scalar value under one of its paths; returns the flag. */
  private noteMultikey(info: IndexInfo, doc: Stored): boolean {
    if (!info.multikey) for (const parts of info.paths) if (scalarAt(doc, parts) === NOT_SCALAR) info.multikey = true;
    return info.multikey;
  }

  private get data(): NedbDatastore {
    if (this.closed) throw new Error(`store is closed (collection ${this.name})`);
    return this.db!;
  }

  private async ready(): Promise<NedbDatastore> {
    if (this.closed) throw new Error(`store is closed (collection ${this.name})`);
    if (!this.db) await this.load();
    return this.data;
  }

  /** Creates the declared indexes (or replaces one whose options changed). Idempotent. */
  async ensureIndexes(specs: IndexSpec[]): Promise<void> {
    const db = await this.ready();
    for (const spec of specs) {
      const fields = Object.keys(spec.fields ?? {});
      if (fields.length === 0) throw new TypeError(`an index of ${this.name} has no fields`);
      if (fields.some((f) => f.includes(',') || f === '' || f.startsWith('$'))) throw new TypeError(`invalid index field in ${this.name}: ${fields.join(',')}`);
      const key = nedbIndexKey(fields);
      const unique = spec.unique === true;
      const sparse = spec.sparse === true;
      const name = indexName(spec);
      const existing = db.indexes[key];
      if (existing && existing.unique === unique && existing.sparse === sparse) {
        this.addInfo(existing, fields, name, db.getAllData());
        continue;
      }
      const index = new Index({ fieldName: key, unique, sparse });
      try {
        index.insert(db.getAllData());
      } catch (err) {
        if ((err as { errorType?: string }).errorType === 'uniqueViolated') throw new DuplicateKeyError(this.name, fields, err);
        throw err;
      }
      db.indexes[key] = index;
      this.addInfo(index, fields, name, db.getAllData());
      await this.journal.append(serialize({ $$indexCreated: { fieldName: key, unique, sparse } }) + '\n');
    }
  }

  /** Rewrites the file from memory (one line per document) when anything was appended since the last rewrite. */
  async compact(force = false): Promise<void> {
    if (!this.db) return;
    await this.journal.exclusive(async () => {
      if (!force && this.journal.dirty === 0) return;
      const db = this.db!;
      const docs = db.getAllData();
      const lines: string[] = new Array(docs.length);
      for (let i = 0; i < docs.length; i++) {
        lines[i] = serialize(docs[i]);
        // Yield now and then so a big collection does not stall request handling.
        if (i % 5000 === 4999) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      for (const info of this.infos) {
        const { fieldName, unique, sparse } = info.index;
        lines.push(serialize({ $$indexCreated: { fieldName, unique, sparse } }));
      }
      // nedb's writer streams one element at a time and ends each with a newline: hand it blocks of lines.
      const blocks: string[] = [];
      for (let i = 0; i < lines.length; i += 2000) blocks.push(lines.slice(i, i + 2000).join('\n'));
      await this.journal.rewrite(blocks, (file, b) => storage.crashSafeWriteFileLinesAsync(file, b, FILE_MODES));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.loading) {
      try {
        await this.loading;
      } catch {
        this.closed = true;
        return;
      }
      await this.compact();
      await this.journal.close();
    }
    this.closed = true;
  }

  /** Removes every document (indexes stay). */
  async drop(): Promise<void> {
    const db = await this.ready();
    db._resetIndexes();
    this.size = 0;
    await this.compact(true);
  }

  // ------------------------------------------------------------------------------------------ index maintenance

  private indexKey(info: IndexInfo, doc: Stored): unknown {
    const { paths } = info;
    if (paths.length === 1) return scalarAt(doc, paths[0]!);
    const key: Record<string, unknown> = {};
    for (let i = 0; i < paths.length; i++) {
      const v = scalarAt(doc, paths[i]!);
      if (v === NOT_SCALAR) return NOT_SCALAR;
      key[info.index._fields[i]!] = v;
    }
    return key;
  }

  private duplicate(err: unknown, index: NedbIndex): unknown {
    if ((err as { errorType?: string }).errorType !== 'uniqueViolated') return err;
    const info = this.infos.find((i) => i.index === index);
    return new DuplicateKeyError(this.name, info ? info.fields : index._fields, err);
  }

  private allIndexes(db: NedbDatastore): NedbIndex[] {
    return Object.values(db.indexes);
  }

  /** Adds a document to every index, or to none (a unique clash rolls back and throws DuplicateKeyError). */
  private addToIndexes(db: NedbDatastore, doc: Stored): void {
    const indexes = this.allIndexes(db);
    for (let i = 0; i < indexes.length; i++) {
      try {
        indexes[i]!.insert(doc);
      } catch (err) {
        for (let j = 0; j < i; j++) indexes[j]!.remove(doc);
        throw this.duplicate(err, indexes[i]!);
      }
    }
    for (const info of this.infos) this.noteMultikey(info, doc);
  }

  private removeFromIndexes(db: NedbDatastore, doc: Stored): void {
    for (const index of this.allIndexes(db)) index.remove(doc);
  }

  /**
   * Swaps old documents for new ones in every index, all or nothing. Where an index key did not change (the
   * common case: `_id` always, counters, most fields), the document reference is swapped in place in its tree node
   * instead of a delete and re-insert.
   */
  private replaceInIndexes(db: NedbDatastore, pairs: Array<{ oldDoc: Stored; newDoc: Stored }>): void {
    const done: Array<{ index: NedbIndex; pair: { oldDoc: Stored; newDoc: Stored }; key: unknown; swapped: boolean }> = [];
    const infoOf = new Map(this.infos.map((i) => [i.index, i]));
    const swap = (index: NedbIndex, key: unknown, from: Stored, to: Stored): boolean => {
      const node = index.tree.search(key);
      const at = node.indexOf(from);
      if (at < 0) return false;
      node[at] = to;
      return true;
    };
    let current: NedbIndex | null = null;
    try {
      for (const index of this.allIndexes(db)) {
        current = index;
        const info = infoOf.get(index) ?? { index, name: '', fields: index._fields, paths: index._fields.map((f) => f.split('.')), multikey: true };
        for (const pair of pairs) {
          const oldKey = index.fieldName === '_id' ? pair.oldDoc._id : this.indexKey(info, pair.oldDoc);
          const newKey = index.fieldName === '_id' ? pair.newDoc._id : this.indexKey(info, pair.newDoc);
          const sameScalar =
            oldKey !== NOT_SCALAR &&
            newKey !== NOT_SCALAR &&
            (info.paths.length === 1
              ? oldKey === newKey
              : index._fields.every((f) => (oldKey as Stored)[f] === (newKey as Stored)[f]));
          if (sameScalar) {
            const unindexed =
              index.sparse &&
              (info.paths.length === 1 ? oldKey === undefined : Object.values(oldKey as Stored).every((v) => v === undefined));
            if (unindexed) continue;
            if (swap(index, oldKey, pair.oldDoc, pair.newDoc)) {
              done.push({ index, pair, key: oldKey, swapped: true });
              continue;
            }
          }
          // nedb's update removes the old document and inserts the new one; on a clash it restores the old one.
          index.update(pair.oldDoc, pair.newDoc);
          done.push({ index, pair, key: null, swapped: false });
        }
      }
    } catch (err) {
      for (let i = done.length - 1; i >= 0; i--) {
        const { index, pair, key, swapped } = done[i]!;
        if (swapped) swap(index, key, pair.newDoc, pair.oldDoc);
        else index.update(pair.newDoc, pair.oldDoc);
      }
      throw this.duplicate(err, current!);
    }
    for (const info of this.infos) for (const pair of pairs) this.noteMultikey(info, pair.newDoc);
  }

  // ------------------------------------------------------------------------------------------ planning

  private lookupEq(index: NedbIndex, values: IndexKey[]): Stored[] {
    if (values.length === 1) return index.tree.search(values[0]);
    const seen = new Set<Stored>();
    const out: Stored[] = [];
    for (const v of values) {
      for (const doc of index.tree.search(v)) {
        if (!seen.has(doc)) {
          seen.add(doc);
          out.push(doc);
        }
      }
    }
    return out;
  }

  /** Picks the index that yields the fewest candidates for a filter, or null for a full scan. */
  private plan(filter: Filter): Plan | null {
    const preds = indexablePredicates(filter);
    let best: Plan | null = null;
    if (preds.size > 0) {
      const topKeys = Object.keys(filter);
      for (const info of this.infos) {
        let docs: Stored[] | null = null;
        let exact = false;
        if (info.fields.length === 1) {
          const field = info.fields[0]!;
          const p = preds.get(field);
          if (!p) continue;
          if (p.eq) {
            docs = this.lookupEq(info.index, p.eq);
            exact = p.pureEq && topKeys.length === 1 && topKeys[0] === field;
          } else if (p.range) {
            const found = info.index.tree.betweenBounds(p.range);
            docs = found.length > 1 ? [...new Set(found)] : found;
          }
        } else {
          if (info.multikey) continue;
          const key: Record<string, unknown> = {};
          let usable = true;
          for (const field of info.index._fields) {
            const p = preds.get(field);
            if (!p?.eq || p.eq.length !== 1) {
              usable = false;
              break;
            }
            key[field] = p.eq[0];
          }
          if (!usable) continue;
          docs = info.index.tree.search(key);
          exact = topKeys.length === info.fields.length && topKeys.every((k) => info.fields.includes(k) && preds.get(k)!.pureEq);
        }
        if (docs && (!best || docs.length < best.docs.length)) best = { docs, index: info.name, exact };
        if (best && best.docs.length === 0) break;
      }
    }
    if (!best && Array.isArray(filter.$or)) {
      // Every branch served by an index: the union of their candidates.
      const seen = new Set<Stored>();
      const names: string[] = [];
      for (const branch of filter.$or) {
        if (!isPlainObject(branch)) return null;
        const sub = this.plan(branch);
        if (!sub) return null;
        names.push(sub.index);
        for (const doc of sub.docs) seen.add(doc);
      }
      best = { docs: [...seen], index: [...new Set(names)].join('|'), exact: false };
    }
    return best;
  }

  /** A single-field, non-sparse, scalar-only index on the (single) sort field: documents can be read in order from it. */
  private orderedIndex(sort: SortFields): IndexInfo | null {
    if (sort.length !== 1) return null;
    const path = sort[0]!.parts.join('.');
    return this.infos.find((i) => i.fields.length === 1 && i.fields[0] === path && !i.index.sparse && !i.multikey) ?? null;
  }

  /**
   * The matching documents of a query, sorted and windowed (references to stored documents: callers copy).
   */
  private select(
    db: NedbDatastore,
    filter: Filter,
    pred: Predicate,
    sort: SortFields | null,
    skip: number,
    limit: number,
    stats: Stats,
  ): Stored[] {
    const plan = this.plan(filter);
    const out: Stored[] = [];
    if (sort) {
      const ordered = this.orderedIndex(sort);
      // Reading in index order stops after skip+limit matches; worth it unless the filter's index is very selective.
      const wanted = limit > 0 ? skip + limit : this.size;
      if (ordered && (!plan || (limit > 0 && (wanted * this.size) / Math.max(plan.docs.length, 1) < plan.docs.length))) {
        stats.index = ordered.name;
        let skipped = 0;
        // Not multikey: every document sits under exactly one key.
        walkTree(ordered.index.tree.tree, sort[0]!.dir, (doc) => {
          stats.examined++;
          if (!pred(doc)) return false;
          if (skipped < skip) {
            skipped++;
            return false;
          }
          out.push(doc);
          return limit > 0 && out.length >= limit;
        });
        return out;
      }
      const matched: Stored[] = [];
      if (plan) {
        stats.index = plan.index;
        stats.examined += plan.docs.length;
        if (plan.exact) return sortWindow(plan.docs, sort, skip, limit);
        for (const doc of plan.docs) if (pred(doc)) matched.push(doc);
      } else {
        walkTree(db.indexes._id!.tree.tree, 1, (doc) => {
          stats.examined++;
          if (pred(doc)) matched.push(doc);
          return false;
        });
      }
      return sortWindow(matched, sort, skip, limit);
    }
    let skipped = 0;
    const visit = (doc: Stored): boolean => {
      stats.examined++;
      if (!pred(doc)) return false;
      if (skipped < skip) {
        skipped++;
        return false;
      }
      out.push(doc);
      return limit > 0 && out.length >= limit;
    };
    if (plan) {
      stats.index = plan.index;
      for (const doc of plan.docs) if (visit(doc)) break;
    } else walkTree(db.indexes._id!.tree.tree, 1, visit);
    return out;
  }

  private query(db: NedbDatastore, filter: Filter, options: FindOptions, stats: Stats = { index: null, examined: 0 }): Stored[] {
    const pred = compileFilter(filter);
    const sort = compileSort(options.sort);
    const skip = nonNegativeInt(options.skip, 'skip');
    const limit = nonNegativeInt(options.limit, 'limit');
    return this.select(db, filter, pred, sort, skip, limit, stats);
  }

  // ------------------------------------------------------------------------------------------ reads

  async findOne(filter: Filter, options: Pick<FindOptions, 'projection' | 'sort'> = {}): Promise<T | null> {
    const db = this.db && !this.closed ? this.db : await this.ready();
    const projection = compileProjection(options.projection);
    const found = this.query(db, filter, { sort: options.sort, limit: 1 });
    return found.length ? projectDoc<T>(found[0]!, projection) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const db = this.db && !this.closed ? this.db : await this.ready();
    const projection = compileProjection(options.projection);
    const found = this.query(db, filter, options);
    const out = new Array<T>(found.length);
    for (let i = 0; i < found.length; i++) out[i] = projectDoc<T>(found[i]!, projection);
    return out;
  }

  async count(filter: Filter): Promise<number> {
    const db = this.db && !this.closed ? this.db : await this.ready();
    const pred = compileFilter(filter);
    if (Object.keys(filter).length === 0) return this.size;
    const plan = this.plan(filter);
    if (plan?.exact) return plan.docs.length;
    let n = 0;
    if (plan) {
      for (const doc of plan.docs) if (pred(doc)) n++;
    } else {
      walkTree(db.indexes._id!.tree.tree, 1, (doc) => {
        if (pred(doc)) n++;
        return false;
      });
    }
    return n;
  }

  async explain(filter: Filter, options: FindOptions = {}): Promise<ExplainResult> {
    const db = await this.ready();
    const stats: Stats = { index: null, examined: 0 };
    const found = this.query(db, filter, options, stats);
    return { index: stats.index, examined: stats.examined, returned: found.length };
  }

  // ------------------------------------------------------------------------------------------ writes

  async insertOne(doc: T): Promise<T> {
    const db = await this.ready();
    const stored = cloneDocIn(doc);
    stored._id = newId();
    this.addToIndexes(db, stored);
    this.size++;
    await this.journal.append(serialize(stored) + '\n');
    return copyDocOut<T>(stored);
  }

  async insertMany(docs: T[]): Promise<T[]> {
    const db = await this.ready();
    if (!Array.isArray(docs)) throw new TypeError('insertMany needs an array');
    // Like MongoDB's ordered insertMany: documents before a failing one stay inserted, later ones are not tried.
    const prepared = docs.map((d) => cloneDocIn(d));
    const inserted: Stored[] = [];
    let failure: unknown = null;
    for (const stored of prepared) {
      stored._id = newId();
      try {
        this.addToIndexes(db, stored);
      } catch (err) {
        failure = err;
        break;
      }
      this.size++;
      inserted.push(stored);
    }
    if (inserted.length) await this.journal.append(inserted.map((d) => serialize(d) + '\n').join(''));
    if (failure) throw failure;
    return inserted.map((d) => copyDocOut<T>(d));
  }

  /** Updates the first (or every) match in memory and in the file; returns what changed. */
  private async modify(
    filter: Filter,
    update: Update,
    multi: boolean,
    upsert: boolean,
  ): Promise<{ result: UpdateResult; after: Stored[] }> {
    const db = await this.ready();
    update = cleanUpdate(update);
    const targets = this.query(db, filter, { limit: multi ? 0 : 1 });
    if (targets.length === 0) {
      if (!upsert) return { result: { matched: 0, modified: 0, upserted: false }, after: [] };
      const stored = applyUpdate(upsertSeed(filter), update, (d) => d);
      stored._id = newId();
      this.addToIndexes(db, stored);
      this.size++;
      await this.journal.append(serialize(stored) + '\n');
      return { result: { matched: 0, modified: 0, upserted: true }, after: [stored] };
    }
    // Every new version is computed before anything changes, so a bad update leaves the collection as it was.
    const pairs: Array<{ oldDoc: Stored; newDoc: Stored }> = [];
    const after: Stored[] = [];
    for (const oldDoc of targets) {
      const newDoc = applyUpdate(oldDoc, update, copyJson);
      if (jsonEqual(oldDoc, newDoc)) after.push(oldDoc);
      else {
        pairs.push({ oldDoc, newDoc });
        after.push(newDoc);
      }
    }
    if (pairs.length) {
      this.replaceInIndexes(db, pairs);
      let text = '';
      for (const p of pairs) text += serialize(p.newDoc) + '\n';
      await this.journal.append(text);
    }
    return { result: { matched: targets.length, modified: pairs.length, upserted: false }, after };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    return (await this.modify(filter, update, false, options.upsert === true)).result;
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return (await this.modify(filter, update, true, false)).result;
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<T | null> {
    const { after } = await this.modify(filter, update, false, options.upsert === true);
    return after.length ? copyDocOut<T>(after[0]!) : null;
  }

  private async remove(filter: Filter, multi: boolean): Promise<Stored[]> {
    const db = await this.ready();
    const targets = this.query(db, filter, { limit: multi ? 0 : 1 });
    if (targets.length === 0) return targets;
    let text = '';
    for (const doc of targets) {
      this.removeFromIndexes(db, doc);
      text += `{"$$deleted":true,"_id":${JSON.stringify(doc._id)}}\n`;
    }
    this.size -= targets.length;
    await this.journal.append(text);
    return targets;
  }

  async findOneAndDelete(filter: Filter): Promise<T | null> {
    const removed = await this.remove(filter, false);
    return removed.length ? copyDocOut<T>(removed[0]!) : null;
  }

  async deleteOne(filter: Filter): Promise<number> {
    return (await this.remove(filter, false)).length;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.remove(filter, true)).length;
  }

  // ------------------------------------------------------------------------------------------ sequences

  /** Increments a named counter (this collection is the store's `counters`): synchronous in memory, so atomic. */
  async increment(sequence: string): Promise<number> {
    const db = await this.ready();
    const current = db.indexes._id!.tree.search(sequence)[0];
    const value = (typeof current?.value === 'number' ? current.value : 0) + 1;
    const doc: Stored = { _id: sequence, value };
    if (current) {
      this.replaceInIndexes(db, [{ oldDoc: current, newDoc: doc }]);
    } else {
      this.addToIndexes(db, doc);
      this.size++;
    }
    await this.journal.append(serialize(doc) + '\n');
    return value;
  }
}
