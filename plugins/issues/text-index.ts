// The in-memory trigram index behind issue search's `q`: per trigram of the lower-cased text, the sorted ids of the
// issues (pull requests too) holding it, one index of titles and bodies and one of comments. A query's candidates are
// the intersection of its trigrams' postings in either index; the literal check (service.ts) decides.
//
// It used to live in the issue documents (`grams`, ~100 strings each, and a multikey store index over them): 420 MB
// of a 2.2 GB heap and half of the boot at 200,000 issues. Here a pair costs 4 bytes. Built from the store at start;
// every change of an issue's title or body and of a comment goes through the Issues service, which updates it before
// the request that made the change is answered (one process owns a store, as with the other in-process indexes).
import { Posting } from '../lib/postings.js';
import { GRAM } from './text.js';

const ascending = (a: number, b: number): number => a - b;

/**
 * A trigram as a number: three UTF-16 code units (the same pieces a query is cut into). Under U+0400 each (Latin,
 * Greek, most punctuation) it is a small integer (30 bits: V8 keeps it unboxed, and Map lookups of it are fast);
 * otherwise all 48 bits, at 2^30 and above, so the two forms never meet.
 */
function gramKey(text: string, i: number): number {
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  const c = text.charCodeAt(i + 2);
  if ((a | b | c) < 0x400) return (a << 20) | (b << 10) | c;
  return 1073741824 + a * 4294967296 + b * 65536 + c;
}

/** The distinct trigram keys of lower-cased texts. */
export function gramKeys(...lowerTexts: string[]): Set<number> {
  const out = new Set<number>();
  for (const text of lowerTexts) for (let i = 0; i + GRAM <= text.length; i++) out.add(gramKey(text, i));
  return out;
}

/**
 * Ids in `a` and in `b` (both ascending). Each id of the shorter is looked for in the longer by a galloping search
 * from where the previous one was found (steps of 1, 2, 4, … then a binary search inside the last step): O(n log(m/n))
 * for lists of n ≤ m ids, so two lists of like size cost about a merge and a short list against a long one a few
 * probes per id. (A plain merge walked every id of the longer list: a 10th of a `q` search's CPU time.)
 */
export function intersectSorted(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Int32Array(a.length);
  let n = 0;
  let lo = 0;
  const m = b.length;
  for (let i = 0; i < a.length && lo < m; i++) {
    const id = a[i]!;
    if (b[lo]! < id) {
      // Gallop: find hi with b[hi] >= id (or the end), knowing b[lo] < id.
      let step = 1;
      let hi = lo + 1;
      while (hi < m && b[hi]! < id) {
        lo = hi;
        step *= 2;
        hi = lo + step;
      }
      if (hi > m) hi = m;
      // Binary search in (lo, hi]: the first position whose id is not below `id`.
      lo++;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (b[mid]! < id) lo = mid + 1;
        else hi = mid;
      }
      if (lo === m) break;
    }
    if (b[lo] === id) out[n++] = id;
  }
  return out.subarray(0, n);
}

/** Trigram → ascending ids of the documents holding it. */
export class GramPostings {
  private readonly postings = new Map<number, Posting>();

  /** Adds `id` under each key (a no-op where present). */
  add(id: number, keys: Iterable<number>): void {
    for (const key of keys) {
      let posting = this.postings.get(key);
      if (!posting) this.postings.set(key, (posting = new Posting(ascending)));
      if (posting.size === 0 || posting.at(posting.size - 1) < id) posting.push(id);
      else posting.insert(id);
    }
  }

  /** Removes `id` from under each key (postings left empty are dropped). */
  remove(id: number, keys: Iterable<number>): void {
    for (const key of keys) {
      const posting = this.postings.get(key);
      if (!posting) continue;
      posting.remove(id);
      if (posting.size === 0) this.postings.delete(key);
    }
  }

  /** Removes many documents at once: per trigram, the ids to remove (any order); one pass over each posting. */
  removeBatch(byKey: Map<number, number[]>): void {
    for (const [key, ids] of byKey) {
      const posting = this.postings.get(key);
      if (!posting) continue;
      posting.removeSorted(ids.sort(ascending));
      if (posting.size === 0) this.postings.delete(key);
    }
  }

  /** Replaces every posting with those of a bulk build (`buildGramPostings`: ascending ids), `pause`d between steps. */
  async replaceWith(built: Map<number, Int32Array>, pause: Pause = noPause): Promise<void> {
    this.postings.clear();
    let n = 0;
    for (const [key, ids] of built) {
      this.postings.set(key, Posting.of(ascending, ids));
      if (++n % CHUNK_KEYS === 0) await pause();
    }
  }

  /** How many documents hold the trigram. */
  sizeOf(key: number): number {
    return this.postings.get(key)?.size ?? 0;
  }

  /** Ids holding every one of `keys` (at least one key), ascending: the rarest posting intersected with the others. */
  holdingAll(keys: readonly number[]): Int32Array {
    if (keys.length === 0) throw new RangeError('holdingAll needs at least one trigram');
    const lists: Int32Array[] = [];
    for (const key of keys) {
      const posting = this.postings.get(key);
      if (!posting) return new Int32Array(0);
      lists.push(posting.view());
    }
    lists.sort((a, b) => a.length - b.length);
    let ids = lists[0]!;
    for (let i = 1; i < lists.length && ids.length > 0; i++) ids = intersectSorted(ids, lists[i]!);
    return ids;
  }

  /** Pairs held and bytes of their arrays (reporting, tests). */
  stats(): { grams: number; pairs: number; bytes: number } {
    let pairs = 0;
    let bytes = 0;
    for (const posting of this.postings.values()) {
      pairs += posting.size;
      bytes += posting.bytes;
    }
    return { grams: this.postings.size, pairs, bytes };
  }
}

/** Per trigram of the texts, the ids of the documents that hold it (a batch removal's argument). */
export function keysToIds(docs: Iterable<{ id: number; texts: string[] }>): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const { id, texts } of docs) {
    for (const key of gramKeys(...texts.map((t) => t.toLowerCase()))) {
      const ids = out.get(key);
      if (ids) ids.push(id);
      else out.set(key, [id]);
    }
  }
  return out;
}

/**
 * Rows of a bulk build, in ascending id order (consecutive rows may share an id: an issue's comments). Read twice:
 * once to count, once to place.
 */
export interface GramSource {
  readonly rows: number;
  id(row: number): number;
  /** The row's texts, lower-cased. */
  texts(row: number): readonly string[];
}

/**
 * Per trigram of the rows' texts, its ids ascending: exact-size views of one array. Two passes over the texts — the
 * first counts each trigram's documents, the second places each id at its trigram's next position — so nothing but the
 * result is allocated in proportion to the pairs. (One pass kept every pair in two flat arrays sized from the texts'
 * length until the end: at 200,000 issues, 180 MB of dead buffers after the build, which the heap's 25% headroom let
 * stand until the next full collection.) `pause` runs every few hundred rows.
 */
export async function buildGramPostings(source: GramSource, pause: Pause = noPause): Promise<Map<number, Int32Array>> {
  const slots = new GramSlots();
  // The same walk twice: counting first (no array yet), then placing into the array the counts sized.
  let all: Int32Array | null = null;
  for (let pass = 0; pass < 2; pass++) {
    for (let row = 0; row < source.rows; row++) {
      const id = source.id(row);
      for (const text of source.texts(row)) slots.take(id, text, all);
      if (row % PAUSE_ROWS === PAUSE_ROWS - 1) await pause();
    }
    if (pass === 0) all = slots.allocate();
  }
  return slots.postings(all!);
}

/**
 * The trigrams of a bulk build, each with a slot number, its count of documents and (while placing) its next
 * position. A document's repeated trigram counts once: the last id seen per slot is kept, and ids come in order.
 */
class GramSlots {
  private readonly slotOfKey = new Map<number, number>();
  private readonly keys: number[] = [];
  private lastId: Int32Array<ArrayBuffer> = new Int32Array(1024).fill(-1);
  private counts: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private starts = new Int32Array(1);
  private cursor = new Int32Array(0);
  private previous = 0;
  private readonly cacheKey = new Int32Array(1 << 16).fill(-1);
  private readonly cacheSlot = new Int32Array(1 << 16);

  private slotOf(key: number): number {
    // A direct-mapped cache of small keys in front of the map (most lookups hit it: texts reuse their trigrams).
    const h = Math.imul(key, 0x9e3779b1) >>> 16;
    if (this.cacheKey[h] === key) return this.cacheSlot[h]!;
    let slot = this.slotOfKey.get(key);
    if (slot === undefined) {
      slot = this.keys.length;
      this.slotOfKey.set(key, slot);
      this.keys.push(key);
      if (slot === this.counts.length) {
        this.counts = grown(this.counts, 0);
        this.lastId = grown(this.lastId, -1);
      }
    }
    if (key < 1073741824) {
      this.cacheKey[h] = key;
      this.cacheSlot[h] = slot;
    }
    return slot;
  }

  /**
   * The document `id` under each trigram of a lower-cased text, once: counted in the first pass (`all` null), placed
   * at the trigram's next position in `all` in the second (the same texts in the same order).
   */
  take(id: number, lowerText: string, all: Int32Array | null): void {
    if (id < this.previous) throw new RangeError(`ids must come in ascending order (${id} after ${this.previous})`);
    this.previous = id;
    for (let i = 0; i + GRAM <= lowerText.length; i++) {
      const slot = this.slotOf(gramKey(lowerText, i));
      if (this.lastId[slot] === id) continue;
      this.lastId[slot] = id;
      if (all === null) {
        this.counts[slot]!++;
        continue;
      }
      const at = this.cursor[slot]!;
      // A second pass that read other texts than the first would write past a trigram's share (or find a new one).
      if (slot >= this.cursor.length || at === this.starts[slot + 1]) throw new RangeError('the second pass read other texts than the first');
      all[at] = id;
      this.cursor[slot] = at + 1;
    }
  }

  /** Between the passes: one array for every pair; each trigram's share of it starts where the counts put it. */
  allocate(): Int32Array {
    const n = this.keys.length;
    this.starts = new Int32Array(n + 1);
    for (let slot = 0; slot < n; slot++) this.starts[slot + 1] = this.starts[slot]! + this.counts[slot]!;
    this.cursor = this.starts.slice(0, n);
    this.lastId.fill(-1);
    this.previous = 0;
    return new Int32Array(this.starts[n]!);
  }

  /**
   * After the second pass: per trigram, its share of `all`. Every share must be full (a pass that read fewer trigrams
   * would leave ids of 0 behind).
   */
  postings(all: Int32Array): Map<number, Int32Array> {
    const out = new Map<number, Int32Array>();
    for (let slot = 0; slot < this.keys.length; slot++) {
      if (this.cursor[slot] !== this.starts[slot + 1]) throw new RangeError('the second pass read other texts than the first');
      out.set(this.keys[slot]!, all.subarray(this.starts[slot]!, this.starts[slot + 1]!));
    }
    return out;
  }
}

/** Between steps of a long build: lets requests in (a build in the background), or nothing (`noPause`). */
export type Pause = () => Promise<void>;
export const noPause: Pause = () => Promise.resolve();

/**
 * A pause that gives the event loop a turn (`setImmediate`: after the I/O waiting) once a slice of work went by: `ms`,
 * or as long as the last turn took when that was longer. Under load a turn can take far longer than `ms` (fifty
 * requests that each check texts while the index is built): the build then still gets half of the time, and ends.
 */
export function yieldAfter(ms: number): Pause {
  let since = performance.now();
  let slice = ms;
  return async () => {
    if (performance.now() - since < slice) return;
    const left = performance.now();
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
    slice = Math.max(ms, since - left);
  };
}

/** The first of `n` positions at which `before` is false (`before` true on a prefix). */
export function lowerBound(n: number, before: (k: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rows read between pauses of a bulk build. */
const PAUSE_ROWS = 256;
/** Postings made between pauses. */
const CHUNK_KEYS = 1 << 14;

function grown(a: Int32Array, fill: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2).fill(fill);
  b.set(a);
  return b;
}

/** Candidates of a query: issues whose title and body hold every trigram, and those whose comments together do. */
export interface TextCandidates {
  /** Every candidate, ascending. */
  ids: Int32Array;
  /** Whether a candidate's title or body holds every trigram (else only its comments do). */
  inText(id: number): boolean;
  /** Whether a candidate's comments together hold every trigram (else only its title and body do). */
  inComments(id: number): boolean;
}

export class IssueTextIndex {
  /** Titles and bodies. */
  readonly text = new GramPostings();
  /** Comment bodies: an issue is under the union of its comments' trigrams. */
  readonly comments = new GramPostings();

  /** Candidates for a lower-cased query of at least GRAM characters. */
  candidates(lowerQuery: string): TextCandidates {
    const keys = [...gramKeys(lowerQuery)];
    const text = this.text.holdingAll(keys);
    const comments = this.comments.holdingAll(keys);
    return { ids: union(text, comments), inText: (id) => includes(text, id), inComments: (id) => includes(comments, id) };
  }
}

/** Whether an ascending id array holds `id` (binary search). */
function includes(ids: Int32Array, id: number): boolean {
  const at = lowerBound(ids.length, (k) => ids[k]! < id);
  return at < ids.length && ids[at] === id;
}

/** Ascending union of two ascending id arrays. */
function union(a: Int32Array, b: Int32Array): Int32Array {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    if (j === b.length || (i < a.length && a[i]! < b[j]!)) out[n++] = a[i++]!;
    else if (i === a.length || b[j]! < a[i]!) out[n++] = b[j++]!;
    else {
      out[n++] = a[i++]!;
      j++;
    }
  }
  return out.subarray(0, n);
}
