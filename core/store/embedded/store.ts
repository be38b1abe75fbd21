// The embedded store: one nedb-format file per collection under <dataDir>/store/, all data in memory.
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Collection, CollectionSpec, Doc, Store } from '../port.js';
import { assertCollectionName, COUNTERS_COLLECTION } from '../documents.js';
import { EmbeddedCollection, type StoreLogger } from './collection.js';
import { assertNedbInternals } from './nedb.js';

export interface EmbeddedStoreOptions {
  dataDir: string;
  /** Background compaction period; 0 or less turns it off (files are still compacted at load and close). */
  compactIntervalMs: number;
  log: StoreLogger;
}

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  readonly dir: string;
  private readonly collections = new Map<string, EmbeddedCollection>();
  private timer: NodeJS.Timeout | null = null;
  private compacting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: EmbeddedStoreOptions) {
    this.dir = path.resolve(options.dataDir, 'store');
  }

  async open(): Promise<void> {
    assertNedbInternals();
    await mkdir(this.dir, { recursive: true, mode: 0o755 });
    const names = (await readdir(this.dir))
      .filter((f) => f.endsWith('.db'))
      .map((f) => f.slice(0, -3))
      .filter((n) => {
        try {
          assertCollectionName(n);
          return true;
        } catch {
          return false;
        }
      });
    for (const name of names) await this.get(name).load();
    await this.get(COUNTERS_COLLECTION).load();
    if (this.options.compactIntervalMs > 0) {
      this.timer = setInterval(() => {
        this.compacting ??= this.compactAll().finally(() => {
          this.compacting = null;
        });
      }, this.options.compactIntervalMs);
      this.timer.unref();
    }
  }

  /** Rewrites every collection file that changed since its last rewrite. */
  async compactAll(): Promise<void> {
    for (const c of this.collections.values()) {
      try {
        await c.compact();
      } catch (err) {
        this.options.log.error({ err, collection: c.name }, 'store: compaction failed');
      }
    }
  }

  private get(name: string): EmbeddedCollection {
    if (this.closed) throw new Error('store is closed');
    assertCollectionName(name);
    let c = this.collections.get(name);
    if (!c) {
      c = new EmbeddedCollection(name, path.join(this.dir, `${name}.db`), this.options.log);
      this.collections.set(name, c);
    }
    return c;
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    const c = this.get(spec.name);
    await c.load();
    await c.ensureIndexes(spec.indexes ?? []);
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return this.get(name) as unknown as Collection<T>;
  }

  nextId(sequence: string): Promise<number> {
    if (typeof sequence !== 'string' || sequence.length === 0) return Promise.reject(new TypeError('a sequence needs a name'));
    return this.get(COUNTERS_COLLECTION).increment(sequence);
  }

  async drop(name: string): Promise<void> {
    await this.get(name).drop();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.compacting;
    this.closed = true;
    const errors: unknown[] = [];
    for (const c of this.collections.values()) {
      try {
        await c.close();
      } catch (err) {
        errors.push(err);
        this.options.log.error({ err, collection: c.name }, 'store: closing a collection failed');
      }
    }
    if (errors.length) throw errors[0];
  }
}
