// One embedded collection: frozen stored versions in memory under ordered indexes, its append-only file, a planner.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  DuplicateKeyError,
  type Collection,
  type Counted,
  type Doc,
  type ExplainResult,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Projection,
  type SortSpec,
  type UpdateResult,
  type Update,
} from '../port.js';
import {
  cleanUpdate,
  cloneDocIn,
  compileProjection,
  isPlainObject,
  projectDoc,
  type CompiledProjection,
} from '../documents.js';
import { forEachLine } from './lines.js';
import { applyUpdate, compileSort, mergeRuns, shallowCopy, sortWindow, upsertSeed, type SortFields } from './query.js';
import { bindValues, compileTemplate, jsonEqual, type FilterTemplate } from './filter.js';
import { queryTokens, sameQuery, type Token, type Values } from './shape.js';
import { accessOf, leadingFieldsOf, mergeCost, mergeOf, planFor, usefulness, walkOf, type Merge, type Plan, type Walk } from './plan.js';
import { ColumnCache, definitionOf, nedbIndexKey, OrderedIndex, type IndexDefinition } from './indexes.js';
import { storage } from './nedb.js';
import { Journal, repairTornTail } from './journal.js';
import { freezeStored, idOf, parseLine, serialize, serializeStored, withId, type Stored } from './stored.js';

export type StoreLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

/** Store files are private to the server's user (the dir is 0700 too). */
const FILE_MODES = { fileMode: 0o600, dirMode: 0o700 };
/** Documents per block of a rewrite: one block is serialised between two writes (~10 ms of CPU for repositories). */
const REWRITE_BLOCK = 2000;

/**
 * `_id`s: boot time + random bits + a padded counter. Unique across restarts, cheaper than random bytes per
 * document, and ordered like insertion, so a collection scan returns documents in insertion order (like MongoDB's
 * natural order in practice) and a new document goes at the end of every posting.
 */
const ID_PREFIX = Date.now().toString(36).padStart(9, '0') + randomBytes(3).toString('hex');
let idCounter = 0;
function newId(): string {
  return ID_PREFIX + (idCounter++).toString(36).padStart(8, '0');
}

interface Stats {
  index: string | null;
  examined: number;
}

/** A query's count, when reading its window yielded it (-1: it did not). */
interface Tally {
  total: number;
}

function rangesSize(ranges: ReadonlyArray<readonly [number, number]>): number {
  let n = 0;
  for (const [start, end] of ranges) n += end - start;
  return n;
}

/** A projection compiled once, with the projected twins of the stored versions it was applied to. */
interface ProjectionEntry {
  compiled: CompiledProjection | null;
  twins: WeakMap<Stored, Doc>;
  /**
   * An exclusion of top-level fields only: their names. A version holding none of them is its own projection, handed
   * out without a twin (the users plugin drops a retired field that new accounts never had: a twin per account and a
   * WeakMap lookup per read, 2.3 of 9.5 µs for 52 accounts).
   */
  dropsOnly: string[] | null;
}

/** Distinct projections cached per collection (plugins use a handful of constant ones). */
const MAX_PROJECTIONS = 256;
/**
 * Reads of more documents than this make their projections without keeping them. A projected version is kept (per
 * version and projection) so repeated reads hand out the same object; a scan of a whole collection at a start kept
 * one for each of its documents for good (the repository index's load: 19 MiB of heap for 100,000 repositories).
 */
const MAX_KEPT_PROJECTIONS_PER_READ = 1024;

/**
 * What is decided once per query shape (filter shape, sort, projection): the compiled filter, the plan over the
 * indexes of the moment, the compiled sort and projection. A query of a known shape only collects its values.
 */
interface QueryShape {
  /** What the shape is (`shape.ts`): a query is of this shape when it walks these tokens. */
  tokens: Token[];
  template: FilterTemplate;
  plan: Plan;
  sort: SortFields | null;
  projection: ProjectionEntry | null;
}

/**
 * Distinct query shapes kept per collection. Plugins use a few dozen (values never make a new shape); at the bound
 * all are forgotten, so a caller that builds filters with ever new fields costs compilations, never memory.
 */
const MAX_SHAPES = 512;

function nonNegativeInt(v: number | undefined, what: string): number {
  if (v === undefined) return 0;
  if (!Number.isInteger(v) || v < 0) throw new TypeError(`${what} must be a non-negative integer`);
  return v;
}

/** Index definitions equal in fields, order, directions and options. */
function sameDefinition(a: IndexDefinition, b: IndexDefinition): boolean {
  return (
    a.unique === b.unique &&
    a.sparse === b.sparse &&
    a.fields.length === b.fields.length &&
    a.fields.every((f, i) => f === b.fields[i] && a.dirs[i] === b.dirs[i])
  );
}

/**
 * An index line of the file: nedb's `{fieldName, unique, sparse}` plus `fields`, the declared order and directions
 * (nedb ignores it; without it, as in older files, the order is the sorted one until a plugin declares the index).
 */
function indexLine(key: string, def: IndexDefinition): string {
  const { fields, dirs, unique, sparse } = def;
  return serialize({
    $$indexCreated: { fieldName: key, unique, sparse, fields: Object.fromEntries(fields.map((f, i) => [f, dirs[i]])) },
  });
}

function definitionFromLine(line: Record<string, unknown>): IndexDefinition {
  const fieldName = line.fieldName as string;
  const declared = line.fields;
  const base = { unique: line.unique === true, sparse: line.sparse === true };
  if (isPlainObject(declared)) {
    const fields = Object.keys(declared);
    if (fields.length > 0 && nedbIndexKey(fields) === fieldName) {
      return { ...base, fields, dirs: fields.map((f) => (declared[f] === -1 ? -1 : 1)) };
    }
  }
  const fields = fieldName.split(',');
  return { ...base, fields, dirs: fields.map(() => 1) };
}

export class EmbeddedCollection<T extends Doc = Doc> implements Collection<T> {
  /** Every stored version by `_id`, in insertion order (the natural order of a scan). */
  private primary: Map<string, Stored> | null = null;
  /** Secondary indexes by nedb's name (sorted field names). */
  private indexes = new Map<string, OrderedIndex>();
  private indexList: OrderedIndex[] = [];
  /**
   * Indexes the file declares that are not built yet, by nedb's name (never a unique one: those are built at load). A
   * load only reads the documents: building every index held the boot (~3 s of the bench's 100k dataset). They are
   * built afterwards one at a time (`buildNextIndex`, the store's background work once the server listens), or when a
   * query's plan could use one (`buildIndexesFor`). An unbuilt index is never consulted and never changed, writes
   * included, and it is built from the documents as they are when it is built.
   */
  private unbuilt = new Map<string, IndexDefinition>();
  /**
   * Each index's place in the order the file and the plugins declared them (a key keeps its place when it is
   * redefined, and loses it when dropped). The planner meets indexes in this order, so a tie between two of them goes
   * to the same one however late either was built.
   */
  private declaredAt = new Map<string, number>();
  private declaredCount = 0;
  /** The columns read for the unbuilt indexes, while no write has changed the documents they were read from. */
  private unbuiltColumns: { changes: number; cache: ColumnCache } | null = null;
  private journal: Journal;
  private loading: Promise<void> | null = null;
  private closed = false;
  private projections = new Map<string, ProjectionEntry>();
  /** Query shapes by the first field name of their filter (`''` for none), in the order they were first seen. */
  private shapes = new Map<string, QueryShape[]>();
  private shapeCount = 0;
  /** Index fields flagged multikey when the plans were made: one more makes them stale. */
  private multikeyFields = 0;
  /** Changes to the documents so far (`writeGeneration`): bumped where a version enters or leaves the indexes. */
  private changes = 0;

  constructor(
    readonly name: string,
    readonly file: string,
    private readonly log: StoreLogger,
  ) {
    this.journal = new Journal(file);
  }

  /** Number of stored documents. */
  private get size(): number {
    return this.primary!.size;
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
    const byId = new Map<string, Stored>();
    const defs = new Map<string, IndexDefinition>();
    let lines = 0;
    await forEachLine(this.file, (raw, lineNo) => {
      if (raw.length === 0) return;
      lines++;
      let id: string | undefined;
      let value: Record<string, unknown>;
      try {
        ({ id, value } = parseLine(raw));
        if (!isPlainObject(value)) throw new Error('not an object');
      } catch (err) {
        throw new Error(`store: ${this.file} line ${lineNo} is corrupt (${(err as Error).message}); refusing to load it`);
      }
      if (id !== undefined) {
        if (value.$$deleted === true) byId.delete(id);
        else byId.set(id, value);
      } else if (isPlainObject(value.$$indexCreated) && typeof value.$$indexCreated.fieldName === 'string') {
        const def = value.$$indexCreated;
        // nedb's own `_id` index is implicit here (the primary map).
        if (def.fieldName !== '_id') defs.set(def.fieldName as string, definitionFromLine(def));
      } else if (typeof value.$$indexRemoved === 'string') {
        defs.delete(value.$$indexRemoved);
      } else {
        throw new Error(`store: ${this.file} line ${lineNo} is not a document (no _id); refusing to load it`);
      }
    });
    for (const [id, doc] of byId) freezeStored(withId(doc, id));
    this.changes++;
    this.primary = byId;
    const declared = defs.size;
    for (const key of defs.keys()) this.declare(key);
    this.unbuilt = defs;
    // Unique indexes now: a file with two documents under one key is refused at the start, not at some later query.
    const unique = [...defs].filter(([, def]) => def.unique).map(([key]) => key);
    try {
      this.buildIndexes(unique, false);
    } catch (err) {
      if (err instanceof DuplicateKeyError) err.message += `: ${this.file} holds two documents with it; refusing to load it`;
      throw err;
    }
    await this.journal.open();
    // Superseded lines (updates, deletions) go at the next compaction (timer or close), not now: rewriting a large
    // file here would hold the start.
    if (lines > byId.size + declared) this.journal.markStale();
  }

  /** The indexes the file declares that are still to be built (nedb's names). */
  get unbuiltIndexes(): string[] {
    return [...this.unbuilt.keys()];
  }

  /**
   * Set by the store's background work while it builds this collection's unbuilt indexes: a query then builds only
   * the ones it needs most (`buildIndexesFor`), the work the rest.
   */
  finishing = false;

  /** Builds one unbuilt index (the store's background work calls it between turns of the event loop). */
  buildNextIndex(): void {
    const next = this.unbuilt.keys().next();
    if (!next.done) this.buildIndexes([next.value], true);
  }

  /**
   * Builds these unbuilt indexes from the documents as they are now. The columns their compound fields need are read
   * in one pass (`readAll`: those of every unbuilt index) and kept for the next build while no write comes between.
   */
  private buildIndexes(keys: Iterable<string>, readAll: boolean): void {
    const wanted = [...keys];
    if (wanted.length === 0) return;
    const kept = this.unbuiltColumns;
    const columns = kept !== null && kept.changes === this.changes ? kept.cache : new ColumnCache(this.inIdOrder());
    this.unbuiltColumns = { changes: this.changes, cache: columns };
    columns.prefetch(readAll ? this.unbuilt.values() : wanted.map((key) => this.unbuilt.get(key)!));
    for (const key of wanted) {
      const index = OrderedIndex.build(this.unbuilt.get(key)!, columns.docs, this.name, columns);
      this.unbuilt.delete(key);
      this.setIndex(key, index);
    }
    if (this.unbuilt.size === 0) this.unbuiltColumns = null;
  }

  /**
   * Builds the unbuilt indexes a plan for this filter and sort could use (`leadingFieldsOf`). While the store's
   * background work is building the rest (`finishing`), at most the one that would do the most for it
   * (`usefulness`), and none when a built index does as much: the first issue list after a boot built nine indexes
   * (2.4 s) where one serves it, and a lookup by a unique key built seven. A plan is made again as each later index
   * comes (`setIndex` forgets the plans), so once all are built every plan is the one of indexes built at load.
   */
  private buildIndexesFor(template: FilterTemplate, sort: SortFields | null): void {
    const fields = leadingFieldsOf(template, sort);
    const usable = [...this.unbuilt].filter(([, def]) => fields.has(def.fields[0]!));
    if (usable.length === 0) return;
    // An `$or` is served by its branches' indexes, which `usefulness` does not weigh: it gets them all.
    if (this.finishing && template.or === null) {
      const built = Math.max(0, ...this.indexList.map((index) => usefulness(template, sort, index.fields)));
      let best: string | null = null;
      let most = 0;
      for (const [key, def] of usable) {
        const score = usefulness(template, sort, def.fields);
        if (score > most) [best, most] = [key, score];
      }
      if (most > built) this.buildIndexes([best!], false);
      if (most > 0 || built > 0) return;
    }
    this.buildIndexes(usable.map(([key]) => key), false);
  }

  private declare(key: string): void {
    if (!this.declaredAt.has(key)) this.declaredAt.set(key, this.declaredCount++);
  }

  private setIndex(key: string, index: OrderedIndex): void {
    this.declare(key);
    this.indexes.set(key, index);
    // Single-field indexes first: the planner reads their sizes from hash lookups before it counts ranges. Then in
    // declared order (`declaredAt`).
    const at = this.declaredAt;
    this.indexList = [...this.indexes.values()].sort((a, b) => Number(a.compound) - Number(b.compound) || at.get(a.key)! - at.get(b.key)!);
    this.forgetPlans();
  }

  /** Stored versions in `_id` order (what postings are kept in). */
  private inIdOrder(): Stored[] {
    const docs = [...this.primary!.values()];
    for (let i = 1; i < docs.length; i++) {
      if (idOf(docs[i - 1]!) > idOf(docs[i]!)) return docs.sort((a, b) => (idOf(a) < idOf(b) ? -1 : 1));
    }
    return docs;
  }

  private get data(): Map<string, Stored> {
    if (this.closed) throw new Error(`store is closed (collection ${this.name})`);
    return this.primary!;
  }

  private async ready(): Promise<Map<string, Stored>> {
    if (this.closed) throw new Error(`store is closed (collection ${this.name})`);
    if (!this.primary) await this.load();
    return this.data;
  }

  /**
   * Creates the declared indexes, or rebuilds one whose options, field order or directions changed (the file
   * records the declaration). Idempotent.
   */
  async ensureIndexes(specs: IndexSpec[]): Promise<void> {
    await this.ready();
    for (const spec of specs) {
      const def = definitionOf(spec);
      if (def.fields.length === 0) throw new TypeError(`an index of ${this.name} has no fields`);
      if (def.fields.some((f) => f.includes(',') || f === '' || f.startsWith('$') || f === '_id')) {
        throw new TypeError(`invalid index field in ${this.name}: ${def.fields.join(',')}`);
      }
      const key = nedbIndexKey(def.fields);
      const existing = this.indexes.get(key)?.def ?? this.unbuilt.get(key);
      if (existing && sameDefinition(existing, def)) continue;
      this.unbuilt.delete(key);
      const index = OrderedIndex.build(def, this.inIdOrder(), this.name);
      this.setIndex(key, index);
      await this.journal.append(indexLine(key, def) + '\n');
    }
  }

  /** Drops the indexes of these specs where they exist (same fields in the same order), recording it in the file. */
  async dropIndexes(specs: IndexSpec[]): Promise<void> {
    await this.ready();
    for (const spec of specs) {
      const def = definitionOf(spec);
      const key = nedbIndexKey(def.fields);
      const existing = this.indexes.get(key);
      const unbuilt = this.unbuilt.get(key);
      if ((existing?.def ?? unbuilt)?.fields.join(',') !== def.fields.join(',')) continue;
      this.unbuilt.delete(key);
      this.declaredAt.delete(key);
      if (existing) {
        this.indexes.delete(key);
        this.indexList = this.indexList.filter((index) => index !== existing);
        this.forgetPlans();
      }
      await this.journal.append(serialize({ $$indexRemoved: key }) + '\n');
    }
  }

  /**
   * Rewrites the file from memory (one line per document) when anything was appended since the last rewrite. The
   * file is written as it is serialised, a block at a time, while writes go on (see `Journal.rewrite`).
   */
  async compact(force = false): Promise<void> {
    if (!this.primary) return;
    if (!force && this.journal.dirty === 0) return;
    await this.journal.rewrite(this.fileBlocks(this.primary), FILE_MODES.fileMode);
  }

  /**
   * The file's content from memory in blocks of REWRITE_BLOCK documents. The map is read live, between the blocks'
   * writes: a document changed meanwhile comes out in its old or its new version, and its line in the rewrite's
   * tail settles which (see `Journal.rewrite`).
   */
  private async *fileBlocks(primary: Map<string, Stored>): AsyncGenerator<string> {
    let lines: string[] = [];
    for (const doc of primary.values()) {
      lines.push(serializeStored(doc));
      if (lines.length === REWRITE_BLOCK) {
        yield lines.join('\n') + '\n';
        lines = [];
      }
    }
    for (const index of this.indexList) lines.push(indexLine(index.key, index.def));
    for (const [key, def] of this.unbuilt) lines.push(indexLine(key, def));
    if (lines.length > 0) yield lines.join('\n') + '\n';
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
    const primary = await this.ready();
    this.changes++;
    primary.clear();
    for (const [key, index] of this.indexes) this.setIndex(key, new OrderedIndex(index.def));
    await this.compact(true);
  }

  // ------------------------------------------------------------------------------------------ index maintenance

  /** Stores a new version under every index, or nowhere (a unique clash throws DuplicateKeyError). */
  private addDoc(doc: Stored): void {
    this.changes++;
    const indexes = this.indexList;
    const keys = indexes.map((index) => index.keysOf(doc));
    this.noteMultikey();
    for (let i = 0; i < indexes.length; i++) {
      if (indexes[i]!.clashes(doc, keys[i])) throw new DuplicateKeyError(this.name, indexes[i]!.fields);
    }
    for (let i = 0; i < indexes.length; i++) indexes[i]!.add(doc, keys[i]);
    this.primary!.set(idOf(doc), doc);
  }

  private removeDoc(doc: Stored): void {
    this.changes++;
    for (const index of this.indexList) index.remove(doc, index.keysOf(doc));
    this.primary!.delete(idOf(doc));
  }

  /**
   * Swaps old versions for new ones in every index, all or nothing. Where an index key did not change (the common
   * case: counters, most fields) the new version takes the old one's place in its posting; elsewhere the old
   * versions leave first and the new ones come in checked for uniqueness (so two updated documents may trade keys,
   * and a clash between them is seen).
   */
  private replaceDocs(pairs: Array<{ oldDoc: Stored; newDoc: Stored }>): void {
    this.changes++;
    const indexes = this.indexList;
    const moves = indexes.map((index) =>
      pairs.map(({ oldDoc, newDoc }) => {
        const before = index.keysOf(oldDoc);
        const after = index.keysOf(newDoc);
        return { before, after, same: index.sameKeys(before, after) };
      }),
    );
    this.noteMultikey();
    for (let i = 0; i < indexes.length; i++) {
      for (let j = 0; j < pairs.length; j++) if (!moves[i]![j]!.same) indexes[i]!.remove(pairs[j]!.oldDoc, moves[i]![j]!.before);
    }
    const added: Array<[number, number]> = [];
    try {
      for (let i = 0; i < indexes.length; i++) {
        for (let j = 0; j < pairs.length; j++) {
          const move = moves[i]![j]!;
          if (move.same) continue;
          if (indexes[i]!.clashes(pairs[j]!.newDoc, move.after)) throw new DuplicateKeyError(this.name, indexes[i]!.fields);
          indexes[i]!.add(pairs[j]!.newDoc, move.after);
          added.push([i, j]);
        }
      }
    } catch (err) {
      for (const [i, j] of added.reverse()) indexes[i]!.remove(pairs[j]!.newDoc, moves[i]![j]!.after);
      for (let i = 0; i < indexes.length; i++) {
        for (let j = 0; j < pairs.length; j++) if (!moves[i]![j]!.same) indexes[i]!.add(pairs[j]!.oldDoc, moves[i]![j]!.before);
      }
      throw err;
    }
    for (let i = 0; i < indexes.length; i++) {
      for (let j = 0; j < pairs.length; j++) {
        const move = moves[i]![j]!;
        if (move.same) indexes[i]!.swap(move.before, pairs[j]!.oldDoc, pairs[j]!.newDoc);
      }
    }
    for (const { newDoc } of pairs) this.primary!.set(idOf(newDoc), newDoc);
  }

  // ------------------------------------------------------------------------------------------ planning

  /** Forgets every query plan: the indexes changed (one added or rebuilt, or flagged multikey). */
  private forgetPlans(): void {
    this.shapes.clear();
    this.shapeCount = 0;
    this.multikeyFields = this.indexList.reduce((n, index) => n + index.multikeyCount, 0);
  }

  /** Keys of a new version were just computed: an index field that met its first array or object is now multikey. */
  private noteMultikey(): void {
    let n = 0;
    for (const index of this.indexList) n += index.multikeyCount;
    if (n !== this.multikeyFields) this.forgetPlans();
  }

  /**
   * The shape of a query, compiled and planned at its first use; `v` receives the query's values. A shape covers
   * the filter's structure and value kinds, the sort and the projection (`shape.ts`): two queries share one only
   * when everything compiled for one is right for the other.
   */
  private shapeOf(filter: Filter, sort: SortSpec | undefined, projection: Projection | undefined, v: Values): QueryShape {
    if (!isPlainObject(filter)) throw new TypeError('a filter must be a plain object');
    let first = '';
    for (const name in filter) {
      first = name;
      break;
    }
    const bucket = this.shapes.get(first);
    if (bucket) {
      for (const shape of bucket) {
        if (sameQuery(shape.tokens, filter, sort, projection, v)) return shape;
        v.length = 0;
      }
    }
    const tokens = queryTokens(filter, sort, projection, v);
    const template = compileTemplate(filter, v);
    const sortFields = compileSort(sort);
    if (this.unbuilt.size > 0) this.buildIndexesFor(template, sortFields);
    const shape = { tokens, template, plan: planFor(template, this.indexList, sortFields), sort: sortFields, projection: this.projection(projection) };
    if (this.shapeCount >= MAX_SHAPES) this.forgetPlans();
    const kept = this.shapes.get(first);
    if (kept) kept.push(shape);
    else this.shapes.set(first, [shape]);
    this.shapeCount++;
    return shape;
  }

  /**
   * The matching documents of a query, sorted and windowed (stored versions: callers hand them out as they are).
   * The values get their per-query slots (`bindValues`) only when a document is to be matched.
   */
  private select(shape: QueryShape, v: Values, skip: number, limit: number, stats: Stats, counted: Tally | null = null): Stored[] {
    const { plan, template, sort } = shape;
    const out: Stored[] = [];
    if (sort && plan.coveredWalks.length > 0) {
      const walk = walkOf(plan.coveredWalks, v, skip, limit, 0)!;
      // A covered walk's range is exactly the matches, each once (prefix fields fixed to one value, the rest not
      // multikey): its size is the count.
      if (counted !== null) counted.total = Math.max(0, walk.end - walk.start);
      this.runWalk(walk, v, skip, limit, stats, out);
      return out;
    }
    // A covered merge reads at most the window's end from each of its ranges, which together hold exactly the
    // matches: no access yields fewer, so none is opened.
    const merge = sort && limit > 0 && plan.mergeWalks.length > 0 ? mergeOf(plan.mergeWalks, v, skip + limit) : null;
    if (merge?.candidate.covered) {
      // Its ranges (one per distinct value of the first field, the rest fixed) hold the matches once each.
      if (counted !== null) counted.total = rangesSize(merge.ranges);
      return mergeRuns(this.runMerge(merge, template, v, skip + limit, stats), sort!, skip, limit);
    }
    const access = accessOf(plan, v);
    if (sort) {
      const planned = access ? access.size : this.size;
      const walk = walkOf(plan.walks, v, skip, limit, planned);
      // An uncovered merge reads each range until it holds the window's end of matches: taken when that is expected
      // to read fewer documents than the access and than a walk in the sort's order.
      const merged = merge ? mergeCost(merge, skip + limit, planned) : Infinity;
      if (merge && merged <= planned && (!walk || merged <= walk.cost)) return mergeRuns(this.runMerge(merge, template, v, skip + limit, stats), sort, skip, limit);
      if (walk && walk.cost <= planned) {
        if (!walk.covered) bindValues(template, v);
        // The walk's cost is an estimate (matches spread evenly over its range): it may examine as many documents
        // as the access would, and when the window is not full by then the access serves the query instead, so
        // matches bunched at the far end of the range (a user's old rows in an id walk) cost at most twice.
        if (this.runWalk(walk, v, skip, limit, stats, out, planned)) return out;
        out.length = 0;
      }
      const exact = access?.exact === true;
      if (!exact) bindValues(template, v);
      const match = access ? access.residual : plan.match;
      const matched: Stored[] = [];
      const gather = (doc: Stored): boolean => {
        stats.examined++;
        if (exact || match(doc, v)) matched.push(doc);
        return false;
      };
      stats.index = access ? access.index : null;
      if (access) access.each(gather);
      else for (const doc of this.primary!.values()) gather(doc);
      if (counted !== null) counted.total = matched.length;
      return sortWindow(matched, sort, skip, limit);
    }
    const exact = access?.exact === true;
    if (!exact) bindValues(template, v);
    const match = access ? access.residual : plan.match;
    let skipped = 0;
    const visit = (doc: Stored): boolean => {
      stats.examined++;
      if (!exact && !match(doc, v)) return false;
      if (skipped < skip) {
        skipped++;
        return false;
      }
      out.push(doc);
      return limit > 0 && out.length >= limit;
    };
    if (access) {
      stats.index = access.index;
      access.each(visit);
    } else {
      for (const doc of this.primary!.values()) if (visit(doc)) break;
    }
    return out;
  }

  /**
   * The runs of a merge: up to `want` matches from the start of each range in the walk's direction, each run in the
   * sort's order (mergeRuns then merges them; equal keys keep the ranges' order, as sortWindow kept an access's).
   */
  private runMerge(merge: Merge, template: FilterTemplate, v: Values, want: number, stats: Stats): Stored[][] {
    const { index, dir, covered, residual } = merge.candidate;
    stats.index = index.name;
    if (!covered) bindValues(template, v);
    const runs: Stored[][] = [];
    for (const [start, end] of merge.ranges) {
      // Ranks count in ascending key order; a descending walk counts from the end.
      const from = dir === 1 ? start : index.entries - end;
      const run: Stored[] = [];
      index.walk(dir, from, end - start, (doc) => {
        stats.examined++;
        if (!covered && !residual(doc, v)) return false;
        run.push(doc);
        return run.length >= want;
      });
      if (run.length > 0) runs.push(run);
    }
    return runs;
  }

  /** Reads the walk's window into `out`; false when an uncovered walk examined `budget` documents first. */
  private runWalk(walk: Walk, v: Values, skip: number, limit: number, stats: Stats, out: Stored[], budget = Infinity): boolean {
    const { index, dir, start, end, residual } = walk;
    stats.index = index.name;
    // Ranks count in ascending key order; a descending walk counts from the end.
    const from = dir === 1 ? start : index.entries - end;
    if (walk.covered) {
      const n = end - start - skip;
      if (n <= 0) return true;
      index.walk(dir, from + skip, limit > 0 ? Math.min(limit, n) : n, (doc) => {
        out.push(doc);
        return false;
      });
      stats.examined += out.length;
      return true;
    }
    let skipped = 0;
    let examined = 0;
    let exhausted = false;
    index.walk(dir, from, end - start, (doc) => {
      if (examined >= budget) {
        exhausted = true;
        return true;
      }
      examined++;
      if (!residual(doc, v)) return false;
      if (skipped < skip) {
        skipped++;
        return false;
      }
      out.push(doc);
      return limit > 0 && out.length >= limit;
    });
    stats.examined += examined;
    return !exhausted;
  }

  /** A query's matching stored versions, and the shape it was served by. */
  private query(filter: Filter, options: FindOptions, stats: Stats = { index: null, examined: 0 }): { found: Stored[]; shape: QueryShape } {
    const skip = nonNegativeInt(options.skip, 'skip');
    const limit = nonNegativeInt(options.limit, 'limit');
    const v: Values = [];
    const shape = this.shapeOf(filter, options.sort, options.projection, v);
    return { found: this.select(shape, v, skip, limit, stats), shape };
  }

  // ------------------------------------------------------------------------------------------ reads

  /**
   * A projection compiled once per shape, with its cache of projected versions. Keyed by its content, not by the
   * object: a caller may reuse and change one.
   */
  private projection(projection: Projection | undefined): ProjectionEntry | null {
    if (!projection) return null;
    const key = JSON.stringify(projection);
    let entry = this.projections.get(key);
    if (!entry) {
      const compiled = compileProjection(projection);
      const dropsOnly = compiled && !compiled.include && compiled.paths.length === 0 ? [...compiled.topLevel!] : null;
      entry = { compiled, twins: new WeakMap(), dropsOnly };
      if (this.projections.size < MAX_PROJECTIONS) this.projections.set(key, entry);
    }
    return entry;
  }

  /**
   * What a read hands out: the stored version itself (frozen, no `_id` property), or its projection, made once per
   * version and projection. Either stays the same object until the document changes.
   */
  private out(doc: Stored, projection: ProjectionEntry | null, keep = true): T {
    if (!projection?.compiled) return doc as T;
    const drops = projection.dropsOnly;
    if (drops !== null && !holdsAny(doc, drops)) return doc as T;
    let twin = projection.twins.get(doc);
    if (!twin) {
      twin = projectDoc(doc, projection.compiled);
      if (keep) projection.twins.set(doc, twin);
    }
    return twin as T;
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'projection' | 'sort'> = {}): Promise<T | null> {
    if (!this.primary || this.closed) await this.ready();
    const { found, shape } = this.query(filter, { sort: options.sort, projection: options.projection, limit: 1 });
    return found.length ? this.out(found[0]!, shape.projection) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    if (!this.primary || this.closed) await this.ready();
    const { found, shape } = this.query(filter, options);
    return this.handOut(found, shape);
  }

  /** What a find hands out: the stored versions themselves (the array is the caller's already), or their projections. */
  private handOut(found: Stored[], shape: QueryShape): T[] {
    if (!shape.projection?.compiled) return found as T[];
    const keep = found.length <= MAX_KEPT_PROJECTIONS_PER_READ;
    for (let i = 0; i < found.length; i++) found[i] = this.out(found[i]!, shape.projection, keep);
    return found as T[];
  }

  async count(filter: Filter): Promise<number> {
    if (!this.primary || this.closed) await this.ready();
    const v: Values = [];
    return this.countOf(this.shapeOf(filter, undefined, undefined, v), v);
  }

  async findAndCount(filter: Filter, options: FindOptions = {}): Promise<Counted<T>> {
    if (!this.primary || this.closed) await this.ready();
    const skip = nonNegativeInt(options.skip, 'skip');
    const limit = nonNegativeInt(options.limit, 'limit');
    const v: Values = [];
    const shape = this.shapeOf(filter, options.sort, options.projection, v);
    // The window's own reading yields the count when it is a covered walk or merge, or gathers every match to sort
    // them; otherwise the count is made apart, from the same plan.
    const counted: Tally = { total: -1 };
    const found = this.select(shape, v, skip, limit, { index: null, examined: 0 }, counted);
    const total = counted.total >= 0 ? counted.total : this.countOf(shape, v);
    return { docs: this.handOut(found, shape), total };
  }

  /** How many documents match a query of `shape` with values `v` (its sort, window and projection play no part). */
  private countOf(shape: QueryShape, v: Values): number {
    const { template, plan } = shape;
    if (template.keys.length === 0) return this.size;
    const access = accessOf(plan, v);
    if (access?.exact) return access.size;
    bindValues(template, v);
    let n = 0;
    if (access) {
      const { residual } = access;
      access.each((doc) => {
        if (residual(doc, v)) n++;
        return false;
      });
    } else for (const doc of this.primary!.values()) if (plan.match(doc, v)) n++;
    return n;
  }

  /** Only this process writes the files (the store's LOCK), and every change passes `addDoc`, `removeDoc`, `replaceDocs`. */
  writeGeneration(): number {
    return this.changes;
  }

  async explain(filter: Filter, options: FindOptions = {}): Promise<ExplainResult> {
    await this.ready();
    const stats: Stats = { index: null, examined: 0 };
    // The projection plays no part in the plan.
    const { found } = this.query(filter, { ...options, projection: undefined }, stats);
    return { index: stats.index, examined: stats.examined, returned: found.length };
  }

  // ------------------------------------------------------------------------------------------ writes

  /** Makes `doc` (a fresh object nobody else holds) a stored version: its `_id`, then frozen for good. */
  private version(doc: Stored, id: string): Stored {
    return freezeStored(withId(doc, id));
  }

  async insertOne(doc: T): Promise<T> {
    await this.ready();
    const stored = this.version(cloneDocIn(doc), newId());
    this.addDoc(stored);
    await this.journal.append(serializeStored(stored) + '\n');
    return stored as T;
  }

  async insertMany(docs: T[]): Promise<T[]> {
    await this.ready();
    if (!Array.isArray(docs)) throw new TypeError('insertMany needs an array');
    // Like MongoDB's ordered insertMany: documents before a failing one stay inserted, later ones are not tried.
    const prepared = docs.map((d) => cloneDocIn(d));
    const inserted: Stored[] = [];
    let failure: unknown = null;
    for (const fresh of prepared) {
      const stored = this.version(fresh, newId());
      try {
        this.addDoc(stored);
      } catch (err) {
        failure = err;
        break;
      }
      inserted.push(stored);
    }
    if (inserted.length) await this.journal.append(inserted.map((d) => serializeStored(d) + '\n').join(''));
    if (failure) throw failure;
    return inserted as T[];
  }

  /** Updates the first (or every) match in memory and in the file; returns what changed. */
  private async modify(
    filter: Filter,
    update: Update,
    multi: boolean,
    upsert: boolean,
  ): Promise<{ result: UpdateResult; after: Stored[] }> {
    await this.ready();
    update = cleanUpdate(update);
    const targets = this.query(filter, { limit: multi ? 0 : 1 }).found;
    if (targets.length === 0) {
      if (!upsert) return { result: { matched: 0, modified: 0, upserted: false }, after: [] };
      const stored = this.version(applyUpdate(upsertSeed(filter), update, (d) => d), newId());
      this.addDoc(stored);
      await this.journal.append(serializeStored(stored) + '\n');
      return { result: { matched: 0, modified: 0, upserted: true }, after: [stored] };
    }
    // Every new version is computed before anything changes, so a bad update leaves the collection as it was.
    const pairs: Array<{ oldDoc: Stored; newDoc: Stored }> = [];
    const after: Stored[] = [];
    for (const oldDoc of targets) {
      const newDoc = applyUpdate(oldDoc, update, shallowCopy);
      if (jsonEqual(oldDoc, newDoc)) after.push(oldDoc);
      else {
        pairs.push({ oldDoc, newDoc: this.version(newDoc, idOf(oldDoc)) });
        after.push(pairs[pairs.length - 1]!.newDoc);
      }
    }
    if (pairs.length) {
      this.replaceDocs(pairs);
      let text = '';
      for (const p of pairs) text += serializeStored(p.newDoc) + '\n';
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
    return after.length ? (after[0] as T) : null;
  }

  private async remove(filter: Filter, multi: boolean): Promise<Stored[]> {
    await this.ready();
    const targets = this.query(filter, { limit: multi ? 0 : 1 }).found;
    if (targets.length === 0) return targets;
    let text = '';
    for (const doc of targets) {
      this.removeDoc(doc);
      text += `{"$$deleted":true,"_id":${JSON.stringify(idOf(doc))}}\n`;
    }
    await this.journal.append(text);
    return targets;
  }

  async findOneAndDelete(filter: Filter): Promise<T | null> {
    const removed = await this.remove(filter, false);
    return removed.length ? (removed[0] as T) : null;
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
    const primary = await this.ready();
    const current = primary.get(sequence);
    const value = (typeof current?.value === 'number' ? current.value : 0) + 1;
    const doc = this.version({ value }, sequence);
    if (current) this.replaceDocs([{ oldDoc: current, newDoc: doc }]);
    else this.addDoc(doc);
    await this.journal.append(serializeStored(doc) + '\n');
    return value;
  }
}

/** Whether the version has any of these fields (`in`: an inherited name only sends it the long way, to `projectDoc`). */
function holdsAny(doc: Stored, names: string[]): boolean {
  for (let i = 0; i < names.length; i++) if (names[i]! in doc) return true;
  return false;
}
