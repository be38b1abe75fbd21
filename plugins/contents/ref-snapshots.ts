// Ref listings without a git process per request. A `git for-each-ref` answer over a namespace is kept per repository
// and reused while git's ref storage for that namespace is unchanged: the packed-refs file and every directory that
// holds refs of that namespace. git changes a ref only by writing `<ref>.lock` beside it and renaming
// it over the ref (or rewriting packed-refs the same way), so any ref change by anyone — a push over HTTP or SSH, an
// API write, a merge, a mirror fetch, `git gc` — moves one of those mtimes. Nothing has to remember to invalidate.
//
// File times are taken from a coarse clock (one kernel tick behind the real one at most), so a listing is kept only
// when every time it depends on is clearly older than the moment the listing started (git's "racily clean" rule):
// a ref changed just before, or while, git was listing is seen by the next request, which lists again.
// The stamp is taken with synchronous stats: a few stats of cached metadata cost ~5 µs of CPU, where the promise API
// (a thread-pool round trip per call) cost ~70 µs for two on the benchmark VM, on every contents request.
import { readdirSync, statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { Lru } from '../lib/lru.js';

/** How far before the listing's start the newest ref time must be for the listing to be kept. */
const RACY_MS = 100;

interface Snapshot {
  /** The ref storage stamp the listing was taken under. */
  stamp: string;
  /** Directories (relative to the git dir) the stamp covers, besides packed-refs. */
  dirs: string[];
  value: unknown;
}

const MAX_SNAPSHOTS = 256;
/** The listings taken, at most MAX_SNAPSHOTS (the least used go first). */
const snapshots = new Lru<string, Snapshot>(MAX_SNAPSHOTS);

function statOrNull(file: string): BigIntStats | null {
  try {
    return statSync(file, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** The storage stamp of `dirs` and packed-refs (inode, size, mtime each; a missing one is `-`), and the newest mtime. */
function stampOf(gitDir: string, dirs: readonly string[]): { stamp: string; newestMs: number } {
  const stats = [statOrNull(path.join(gitDir, 'packed-refs')), ...dirs.map((d) => statOrNull(path.join(gitDir, d)))];
  let newestMs = 0;
  const parts = stats.map((s) => {
    if (!s) return '-';
    newestMs = Math.max(newestMs, Number(s.mtimeNs / 1_000_000n));
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  });
  return { stamp: parts.join('|'), newestMs };
}

/**
 * `prefix` (e.g. `refs/heads/`), every directory below it (an empty one too: a ref may be created in it) and the ones
 * above it (a prefix that is not a directory yet, or a single ref, appears in its parent).
 */
function dirsUnder(gitDir: string, prefix: string): string[] {
  const root = prefix.replace(/\/+$/, '');
  const above: string[] = [];
  for (let cut = root.lastIndexOf('/'); cut > 0; cut = root.lastIndexOf('/', cut - 1)) above.push(root.slice(0, cut));
  const dirs = [root];
  for (let i = 0; i < dirs.length; i++) {
    let entries: Array<{ name: string; isDirectory(): boolean }>;
    try {
      entries = readdirSync(path.join(gitDir, dirs[i]!), { withFileTypes: true });
    } catch {
      entries = [];
    }
    for (const e of entries) if (e.isDirectory()) dirs.push(`${dirs[i]}/${e.name}`);
  }
  return [...above, ...dirs];
}

/**
 * The listing `list()` makes of the refs under `prefix` in the repository at `gitDir`, from the snapshot when the ref
 * storage has not changed since it was taken. `key` names the listing (its git arguments).
 */
export async function refListing<T>(gitDir: string, prefix: string, key: string, list: () => Promise<T>): Promise<T> {
  const id = `${gitDir}\0${key}`;
  const hit = snapshots.get(id);
  if (hit && stampOf(gitDir, hit.dirs).stamp === hit.stamp) return hit.value as T;
  const started = Date.now();
  const value = await list();
  const dirs = dirsUnder(gitDir, prefix);
  const { stamp, newestMs } = stampOf(gitDir, dirs);
  if (newestMs < started - RACY_MS) {
    snapshots.set(id, { stamp, dirs, value });
  }
  return value;
}
