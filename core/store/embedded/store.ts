// The embedded store: one nedb-format file per collection under <dataDir>/store/, all data in memory.
import { chmod, link, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
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

/** Makes `dir` (and the files directly in it) private to this user, whatever the umask made of them. */
export async function makePrivate(dir: string, files = false): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  if (!files) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) await chmod(path.join(dir, entry.name), 0o600).catch(() => undefined);
  }
}

/**
 * Takes `<dir>/LOCK` (holding our pid). The file appears atomically with its content (written to a temporary name,
 * then hard-linked into place), so a LOCK is never seen empty while its owner starts. A lock whose process no
 * longer runs (a crash) is taken over; a live one, or an empty one (which only an older version could leave), means
 * another server may be using these files.
 */
async function takeLock(dir: string): Promise<string> {
  const file = path.join(dir, 'LOCK');
  const mine = path.join(dir, `LOCK.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(mine, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(mine, file);
        return file;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const text = await readFile(file, 'utf8').catch(() => null);
      if (text === null) continue; // removed meanwhile: try again
      const owner = Number(text.trim());
      if (!(Number.isInteger(owner) && owner > 0)) {
        throw new Error(`store: ${file} exists without a process id; another server may be starting (remove it if none runs)`);
      }
      if (owner !== process.pid && processAlive(owner)) {
        throw new Error(`store: ${dir} is in use by process ${owner} (remove ${file} if that is wrong)`);
      }
      // Stale. Move it aside (atomic) and check that what moved is the dead process's lock, not a new winner's.
      const aside = `${mine}.stale`;
      try {
        await rename(file, aside);
      } catch {
        continue;
      }
      const moved = await readFile(aside, 'utf8').catch(() => '');
      if (moved !== text) {
        // Another starter replaced the stale lock first: put theirs back and let the next attempt see it.
        await link(aside, file).catch(() => undefined);
      }
      await unlink(aside).catch(() => undefined);
    }
    throw new Error(`store: could not take ${file}`);
  } finally {
    await unlink(mine).catch(() => undefined);
  }
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
    // The data dir and the store are private (0700 dirs, 0600 files) whatever the umask.
    await makePrivate(path.dirname(this.dir));
    await makePrivate(this.dir, true);
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

  /** Builds the indexes the load left unbuilt, one index per turn of the event loop (requests are answered between). */
  finishOpen(): Promise<void> | null {
    return [...this.collections.values()].some((c) => c.unbuiltIndexes.length > 0) ? this.buildUnbuiltIndexes() : null;
  }

  private async buildUnbuiltIndexes(): Promise<void> {
    for (const c of this.collections.values()) c.finishing = c.unbuiltIndexes.length > 0;
    try {
      for (const c of this.collections.values()) {
        while (c.unbuiltIndexes.length > 0) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.closed) return;
          c.buildNextIndex();
        }
      }
    } finally {
      // Should this work stop short, queries go back to building every index they could use.
      for (const c of this.collections.values()) c.finishing = false;
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
    await c.dropIndexes(spec.retiredIndexes ?? []);
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
