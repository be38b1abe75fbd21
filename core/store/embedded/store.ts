// The embedded store: one nedb-format file per collection under <dataDir>/store/, all data in memory.
import { mkdir, open as openFile, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
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

/** Data directories opened by this process (a second store on the same files would corrupt them). */
const OPEN_DIRS = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dir>/LOCK` (holding our pid). A lock left by a process that no longer runs (a crash) is taken over;
 * a live one means another server is using these files.
 */
async function takeLock(dir: string): Promise<string> {
  const file = path.join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await openFile(file, 'wx', 0o644);
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
      throw new Error(`store: ${dir} is in use by process ${owner} (remove ${file} if that is wrong)`);
    }
    await unlink(file).catch(() => undefined); // stale: its process is gone
  }
  await writeFile(file, `${process.pid}\n`, { mode: 0o644 });
  return file;
}

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  readonly dir: string;
  private readonly collections = new Map<string, EmbeddedCollection>();
  private timer: NodeJS.Timeout | null = null;
  private compacting: Promise<void> | null = null;
  private closed = false;
  private lockFile: string | null = null;

  constructor(private readonly options: EmbeddedStoreOptions) {
    this.dir = path.resolve(options.dataDir, 'store');
  }

  async open(): Promise<void> {
    assertNedbInternals();
    if (OPEN_DIRS.has(this.dir)) throw new Error(`store: ${this.dir} is already open in this process`);
    await mkdir(this.dir, { recursive: true, mode: 0o755 });
    OPEN_DIRS.add(this.dir);
    try {
      this.lockFile = await takeLock(this.dir);
      await this.load();
    } catch (err) {
      await this.release();
      throw err;
    }
  }

  private async release(): Promise<void> {
    for (const c of this.collections.values()) await c.close().catch(() => undefined);
    this.collections.clear();
    if (this.lockFile) await unlink(this.lockFile).catch(() => undefined);
    this.lockFile = null;
    OPEN_DIRS.delete(this.dir);
  }

  private async load(): Promise<void> {
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
    if (this.lockFile) await unlink(this.lockFile).catch(() => undefined);
    this.lockFile = null;
    OPEN_DIRS.delete(this.dir);
    if (errors.length) throw errors[0];
  }
}
