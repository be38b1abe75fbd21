// A counted B+tree: ordered keys, each with its posting (the documents under that key, in `_id` order), and in every
// node the number of documents below it, so ranges are counted and ranks located in O(log n) without a walk.
import { idOf, type Stored } from './stored.js';

/** The documents under one key, sorted by `_id` (so ties always come out in the same order). */
export type Posting = Stored[];
/**
 * What a key holds: its one document itself, or a posting of two or more. Most keys of a compound index that ends
 * with a unique field (`{repoId, isClosed, id}`) hold one document: a one-element array per key cost 56 bytes and an
 * object for the collector to mark, for each of 200,000 issues in each of a dozen such indexes.
 */
export type Entry = Stored | Posting;

/** Documents under an entry. */
export function entrySize(e: Entry): number {
  return Array.isArray(e) ? e.length : 1;
}

/** An entry's documents as a posting (a singleton's is a new one-element array: for callers that need an array). */
export function asPosting(e: Entry): Posting {
  return Array.isArray(e) ? e : [e];
}

export type Compare<K> = (a: K, b: K) => number;
/** A boundary in key order: negative for keys before it, zero at it, positive after it (must be monotone). */
export type Probe<K> = (key: K) => number;

/** Keys per leaf / children per inner node before a split; bulk loads fill nodes to 3/4 to leave room. */
const MAX = 64;
const FILL = 48;

/**
 * A leaf whose every key is its own entry (a document standing for its own key, in an index that ends with a unique
 * field) holds one array as both `keys` and `vals`: the key array was a copy of the entry array, 16 bytes a document
 * in a dozen indexes of 200,000 issues. The first key that is not its entry (a tuple, or a posting) splits them.
 */
class Leaf<K> {
  readonly leaf = true;
  next: Leaf<K> | null = null;
  prev: Leaf<K> | null = null;
  constructor(
    public keys: K[],
    public vals: Entry[],
    public count: number,
  ) {}

  /** Whether `keys` and `vals` are one array. */
  get shared(): boolean {
    return (this.keys as unknown) === this.vals;
  }

  /** Gives the leaf a key array of its own. */
  unshare(): void {
    if (this.shared) this.keys = this.vals.slice() as unknown as K[];
  }
}

/** A leaf over `keys` and `vals`: one array for both when every key is its entry. */
function leafOf<K>(keys: K[], vals: Entry[], count: number): Leaf<K> {
  for (let i = 0; i < keys.length; i++) if ((keys[i] as unknown) !== vals[i]) return new Leaf<K>(keys, vals, count);
  return new Leaf<K>(vals as unknown as K[], vals, count);
}

class Inner<K> {
  readonly leaf = false;
  /**
   * `counts[i]` is `children[i].count`, kept beside the children: ranks and locates sum it, and one array of small
   * integers is read without visiting each child (a cache miss apiece in a large tree).
   */
  counts: number[];
  /** `keys[i]` separates `children[i]` (keys below it) from `children[i + 1]` (keys at or above it). */
  constructor(
    public keys: K[],
    public children: Array<Node<K>>,
    public count: number,
  ) {
    this.counts = children.map((c) => c.count);
  }
}

type Node<K> = Leaf<K> | Inner<K>;

/** Position of a document: posting `i` of `leaf`, `off` documents into it. */
interface Position<K> {
  leaf: Leaf<K>;
  i: number;
  off: number;
}

/** Index of `doc` in a posting, or `-(insertion point) - 1` when absent (binary search on `_id`). */
export function postingIndex(posting: Posting, doc: Stored): number {
  const id = idOf(doc);
  let lo = 0;
  let hi = posting.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = idOf(posting[mid]!);
    if (m < id) lo = mid + 1;
    else if (m > id) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

/** `doc` added to an entry: the entry to keep (a singleton becomes a posting), or null when `doc` was there. */
function withDoc(e: Entry, doc: Stored): Entry | null {
  if (!Array.isArray(e)) {
    const a = idOf(e);
    const b = idOf(doc);
    if (a === b) return null;
    return a < b ? [e, doc] : [doc, e];
  }
  return addToPosting(e, doc) ? e : null;
}

function addToPosting(posting: Posting, doc: Stored): boolean {
  // New documents get the largest `_id` so far: appending is the common case.
  const n = posting.length;
  if (n === 0 || idOf(posting[n - 1]!) < idOf(doc)) {
    posting.push(doc);
    return true;
  }
  const at = postingIndex(posting, doc);
  if (at >= 0) return false;
  posting.splice(-at - 1, 0, doc);
  return true;
}

export class BTree<K> {
  private root: Node<K>;

  /**
   * `detach`, when given, says that a key may be one of the documents under it, standing for its own key (a compound
   * index's `docKeys`): such a key, in a leaf or as a separator above, is never left holding a document that is no
   * longer under it. A swap puts the new version in its place (same key, by the caller's contract); a removal that
   * leaves the key (or a separator equal to it) puts `detach(doc)` there, an equal key that is not the document.
   */
  constructor(
    readonly compare: Compare<K>,
    private readonly detach: ((doc: K) => K) | null = null,
  ) {
    this.root = new Leaf<K>([], [], 0);
  }

  /** Documents in the tree (a document under several keys counts once per key). */
  get size(): number {
    return this.root.count;
  }

  /** Builds a balanced tree from distinct keys in ascending order and their entries (taken over, not copied). */
  static build<K>(compare: Compare<K>, keys: K[], vals: Entry[], detach: ((doc: K) => K) | null = null): BTree<K> {
    const tree = new BTree<K>(compare, detach);
    if (keys.length === 0) return tree;
    let level: Array<Node<K>> = [];
    let firsts: K[] = [];
    let prev: Leaf<K> | null = null;
    for (let i = 0; i < keys.length; i += FILL) {
      const lv = vals.slice(i, i + FILL);
      let count = 0;
      for (const p of lv) count += entrySize(p);
      const leaf = leafOf<K>(keys.slice(i, i + FILL), lv, count);
      leaf.prev = prev;
      if (prev) prev.next = leaf;
      prev = leaf;
      level.push(leaf);
      firsts.push(keys[i]!);
    }
    while (level.length > 1) {
      const up: Array<Node<K>> = [];
      const upFirsts: K[] = [];
      for (let i = 0; i < level.length; i += FILL) {
        const children = level.slice(i, i + FILL);
        let count = 0;
        for (const c of children) count += c.count;
        up.push(new Inner<K>(firsts.slice(i + 1, i + children.length), children, count));
        upFirsts.push(firsts[i]!);
      }
      level = up;
      firsts = upFirsts;
    }
    tree.root = level[0]!;
    return tree;
  }

  // ---------------------------------------------------------------------------------------------- search

  /** First index in `keys` whose key is not below `key`. */
  private lowerBound(keys: K[], key: K): number {
    return this.bound(keys, key, false);
  }

  /** Number of separators at or below `key`: the child of an inner node that holds `key`. */
  private childFor(keys: K[], key: K): number {
    return this.bound(keys, key, true);
  }

  /** Binary search: the first index whose key is not below `key` (with `orEqual`: the first above it). */
  private bound(keys: K[], key: K, orEqual: boolean): number {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.compare(keys[mid]!, key);
      if (c < 0 || (orEqual && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The entry of `key` (a posting is the stored array itself: callers must not change it), or undefined. */
  get(key: K): Entry | undefined {
    let node = this.root;
    while (!node.leaf) node = node.children[this.childFor(node.keys, key)]!;
    const i = this.lowerBound(node.keys, key);
    return i < node.keys.length && this.compare(node.keys[i]!, key) === 0 ? node.vals[i] : undefined;
  }

  /** The entry of the key `probe` finds equal (0), or undefined: `get` with the caller's comparison. */
  getBy(probe: Probe<K>): Entry | undefined {
    let node = this.root;
    for (;;) {
      const keys = node.keys;
      let lo = 0;
      let hi = keys.length;
      // Inner nodes: the child after every separator at or below the key; leaves: the first key not below it.
      const orEqual = !node.leaf;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const c = probe(keys[mid]!);
        if (c < 0 || (orEqual && c === 0)) lo = mid + 1;
        else hi = mid;
      }
      if (node.leaf) return lo < keys.length && probe(keys[lo]!) === 0 ? node.vals[lo] : undefined;
      node = node.children[lo]!;
    }
  }

  // ---------------------------------------------------------------------------------------------- changes

  // Results of the last recursive insert / remove (kept on the tree rather than allocated per level).
  private added: Entry | null = null;
  private created = false;
  private emptied = false;
  private left: Entry | null = null;

  /**
   * Adds `doc` under `key` and returns the key's entry (a new one when a singleton became a posting); `created` tells
   * whether the key is new. Adding a document that is already there changes nothing.
   */
  insert(key: K, doc: Stored): { posting: Entry; created: boolean } {
    const root = this.root;
    const split = this.insertAt(root, key, doc);
    if (split) this.root = new Inner<K>([split.sep], [root, split.right], root.count + split.right.count);
    const out = { posting: this.added!, created: this.created };
    this.added = null;
    return out;
  }

  private insertAt(node: Node<K>, key: K, doc: Stored): { sep: K; right: Node<K> } | null {
    if (node.leaf) {
      const i = this.lowerBound(node.keys, key);
      if (i < node.keys.length && this.compare(node.keys[i]!, key) === 0) {
        this.created = false;
        const next = withDoc(node.vals[i]!, doc);
        if (next) {
          // The key stays the document; the entry becomes a posting.
          if (next !== node.vals[i]) node.unshare();
          node.vals[i] = next;
          node.count++;
        }
        this.added = node.vals[i]!;
        return null;
      }
      if (node.shared && (key as unknown) !== doc) node.unshare();
      if (!node.shared) node.keys.splice(i, 0, key);
      node.vals.splice(i, 0, doc);
      node.count++;
      this.added = doc;
      this.created = true;
      return node.keys.length > MAX ? this.splitLeaf(node) : null;
    }
    const c = this.childFor(node.keys, key);
    const child = node.children[c]!;
    const before = child.count;
    const split = this.insertAt(child, key, doc);
    node.counts[c] = child.count;
    if (split) {
      node.keys.splice(c, 0, split.sep);
      node.children.splice(c + 1, 0, split.right);
      node.counts.splice(c + 1, 0, split.right.count);
      node.count += child.count + split.right.count - before;
      return node.children.length > MAX ? this.splitInner(node) : null;
    }
    node.count += child.count - before;
    return null;
  }

  private splitLeaf(node: Leaf<K>): { sep: K; right: Node<K> } {
    const mid = node.keys.length >> 1;
    const shared = node.shared;
    const vals = node.vals.splice(mid);
    let count = 0;
    for (const p of vals) count += entrySize(p);
    const right = new Leaf<K>(shared ? (vals as unknown as K[]) : node.keys.splice(mid), vals, count);
    node.count -= count;
    right.next = node.next;
    if (right.next) right.next.prev = right;
    right.prev = node;
    node.next = right;
    return { sep: right.keys[0]!, right };
  }

  private splitInner(node: Inner<K>): { sep: K; right: Node<K> } {
    const mid = node.children.length >> 1;
    const children = node.children.splice(mid);
    node.counts.splice(mid);
    const keys = node.keys.splice(mid - 1);
    const sep = keys.shift()!;
    let count = 0;
    for (const c of children) count += c.count;
    node.count -= count;
    return { sep, right: new Inner<K>(keys, children, count) };
  }

  /**
   * Removes `doc` from under `key`; `removed` when it was there, `emptied` when the key went with it, `entry` what the
   * key holds after (a posting left with one document becomes that document).
   */
  remove(key: K, doc: Stored): { removed: boolean; emptied: boolean; entry: Entry | null } {
    this.emptied = false;
    this.left = null;
    const removed = this.removeAt(this.root, key, doc);
    const emptied = this.emptied;
    const entry = this.left;
    this.left = null;
    let root = this.root;
    while (!root.leaf && root.children.length === 1) root = root.children[0]!;
    if (!root.leaf && root.children.length === 0) root = new Leaf<K>([], [], 0);
    this.root = root;
    return { removed, emptied, entry };
  }

  private removeAt(node: Node<K>, key: K, doc: Stored): boolean {
    if (node.leaf) {
      const i = this.lowerBound(node.keys, key);
      if (i >= node.keys.length || this.compare(node.keys[i]!, key) !== 0) return false;
      const e = node.vals[i]!;
      if (!Array.isArray(e)) {
        if (idOf(e) !== idOf(doc)) return false;
        node.count--;
        if (!node.shared) node.keys.splice(i, 1);
        node.vals.splice(i, 1);
        this.emptied = true;
        return true;
      }
      const at = postingIndex(e, doc);
      if (at < 0) return false;
      e.splice(at, 1);
      node.count--;
      if (e.length === 1) node.vals[i] = e[0]!;
      this.left = node.vals[i]!;
      if (this.detach && (node.keys[i] as unknown) === doc) node.keys[i] = this.detach(node.keys[i]!);
      return true;
    }
    const c = this.childFor(node.keys, key);
    const child = node.children[c]!;
    if (!this.removeAt(child, key, doc)) return false;
    node.count--;
    node.counts[c]!--;
    // A separator equal to the key is the one just left of the path down to it.
    if (this.detach && c > 0 && (node.keys[c - 1] as unknown) === doc) node.keys[c - 1] = this.detach(node.keys[c - 1]!);
    // Nodes are not merged when they shrink; an empty one leaves its parent (and the leaf chain).
    const empty = child.leaf ? child.keys.length === 0 : child.children.length === 0;
    if (empty) {
      node.children.splice(c, 1);
      node.counts.splice(c, 1);
      node.keys.splice(c === 0 ? 0 : c - 1, 1);
      if (child.leaf) {
        if (child.prev) child.prev.next = child.next;
        if (child.next) child.next.prev = child.prev;
      }
    }
    return true;
  }

  /** Replaces `from` by `to` (same `_id`) under `key`, in place; the key's entry after, or null when `from` is not there. */
  swap(key: K, from: Stored, to: Stored): Entry | null {
    let node = this.root;
    while (!node.leaf) {
      const c = this.childFor(node.keys, key);
      // A separator that is `from` itself (detach trees): `to` has the same key.
      if (this.detach && c > 0 && (node.keys[c - 1] as unknown) === from) node.keys[c - 1] = to as unknown as K;
      node = node.children[c]!;
    }
    const i = this.lowerBound(node.keys, key);
    if (i >= node.keys.length || this.compare(node.keys[i]!, key) !== 0) return null;
    // Read before the key is swapped: in a shared leaf the key is the entry.
    const e = node.vals[i]!;
    if (this.detach && (node.keys[i] as unknown) === from) node.keys[i] = to as unknown as K;
    if (!Array.isArray(e)) {
      if (e !== from) return null;
      node.vals[i] = to;
      return to;
    }
    const at = postingIndex(e, from);
    if (at < 0 || e[at] !== from) return null;
    e[at] = to;
    return e;
  }

  /** Whether every node's count is what lies below it, and every inner node's `counts` its children's (for tests). */
  countsAgree(): boolean {
    const check = (node: Node<K>): boolean => {
      if (node.leaf) return node.vals.reduce((n, e) => n + entrySize(e), 0) === node.count;
      if (node.counts.length !== node.children.length) return false;
      let sum = 0;
      for (let j = 0; j < node.children.length; j++) {
        if (node.counts[j] !== node.children[j]!.count || !check(node.children[j]!)) return false;
        sum += node.counts[j]!;
      }
      return sum === node.count;
    };
    return check(this.root);
  }

  /** Leaves, and those holding one array as keys and entries (for tests and measurements). */
  leafStats(): { leaves: number; shared: number } {
    let node = this.root;
    while (!node.leaf) node = node.children[0]!;
    let leaves = 0;
    let shared = 0;
    for (let leaf: Leaf<K> | null = node; leaf; leaf = leaf.next) {
      leaves++;
      if (leaf.shared) shared++;
    }
    return { leaves, shared };
  }

  /** Every key the tree holds, separators of inner nodes included (for consistency checks). */
  heldKeys(): K[] {
    const out: K[] = [];
    const visit = (node: Node<K>): void => {
      out.push(...node.keys);
      if (!node.leaf) node.children.forEach(visit);
    };
    visit(this.root);
    return out;
  }

  // ---------------------------------------------------------------------------------------------- ranks and walks

  /**
   * Number of documents under keys before a boundary: keys with `probe(key) < 0`, or `<= 0` when `orEqual`.
   * Two ranks bound a range; their difference counts it (`rankRange` makes both at once).
   */
  rank(probe: Probe<K>, orEqual: boolean): number {
    return this.rankBelow(this.root, probe, orEqual);
  }

  /**
   * `[rank(probe, false), rank(probe, true)]`: the ranks that bound the keys at the boundary, from one descent while
   * both fall in the same child (a short range shares every level but the last one or two). There the upper bound is
   * found by galloping from the lower one: inside a shared child it is the very next separator, one probe.
   */
  rankRange(probe: Probe<K>): [number, number] {
    let node = this.root;
    let r = 0;
    for (;;) {
      const keys = node.keys;
      const n = keys.length;
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (probe(keys[mid]!) < 0) lo = mid + 1;
        else hi = mid;
      }
      // The first position at or after `lo` whose key is past the boundary: gallop, then search the last step.
      let up = lo;
      let known = lo; // keys before it are at or before the boundary
      let step = 1;
      while (up < n && probe(keys[up]!) <= 0) {
        known = up + 1;
        up += step;
        step <<= 1;
      }
      if (up > n) up = n;
      let a = known;
      let b = up;
      while (a < b) {
        const mid = (a + b) >> 1;
        if (probe(keys[mid]!) <= 0) a = mid + 1;
        else b = mid;
      }
      up = a;
      if (node.leaf) return [r + this.before(node, lo), r + this.before(node, up)];
      if (up !== lo) {
        const children = node.children;
        return [r + this.before(node, lo) + this.rankBelow(children[lo]!, probe, false), r + this.before(node, up) + this.rankBelow(children[up]!, probe, true)];
      }
      r += this.before(node, lo);
      node = node.children[lo]!;
    }
  }

  /** Documents under the keys before the boundary in `node`'s subtree. */
  private rankBelow(node: Node<K>, probe: Probe<K>, orEqual: boolean): number {
    let r = 0;
    for (;;) {
      const keys = node.keys;
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const c = probe(keys[mid]!);
        if (c < 0 || (orEqual && c === 0)) lo = mid + 1;
        else hi = mid;
      }
      if (node.leaf) return r + this.before(node, lo);
      r += this.before(node, lo);
      node = node.children[lo]!;
    }
  }

  /** Documents before position `pos` of a node (its entries in a leaf, its children in an inner node), summed from whichever end is nearer. */
  private before(node: Node<K>, pos: number): number {
    if (node.leaf) {
      const vals = node.vals;
      // Every entry one document (the usual leaf): positions are ranks, and no entry need be read.
      if (node.count === vals.length) return pos;
      let r = 0;
      if (pos <= vals.length >> 1) for (let j = 0; j < pos; j++) r += entrySize(vals[j]!);
      else {
        let after = 0;
        for (let j = pos; j < vals.length; j++) after += entrySize(vals[j]!);
        r = node.count - after;
      }
      return r;
    }
    const counts = node.counts;
    let r = 0;
    if (pos <= counts.length >> 1) for (let j = 0; j < pos; j++) r += counts[j]!;
    else {
      let after = 0;
      for (let j = pos; j < counts.length; j++) after += counts[j]!;
      r = node.count - after;
    }
    return r;
  }

  /** Where the `rank`-th document (0-based) is, counting in ascending key order. */
  private locate(rank: number): Position<K> {
    let node = this.root;
    while (!node.leaf) {
      const counts = node.counts;
      let j = 0;
      for (; j < counts.length - 1; j++) {
        const n = counts[j]!;
        if (rank < n) break;
        rank -= n;
      }
      node = node.children[j]!;
    }
    if (node.count === node.vals.length) return { leaf: node, i: rank, off: 0 };
    let i = 0;
    for (; i < node.vals.length - 1; i++) {
      const n = entrySize(node.vals[i]!);
      if (rank < n) break;
      rank -= n;
    }
    return { leaf: node, i, off: rank };
  }

  /** The same counting in descending key order (a posting's own documents still in `_id` order). */
  private locateFromEnd(rank: number): Position<K> {
    let node = this.root;
    while (!node.leaf) {
      const counts = node.counts;
      let j = counts.length - 1;
      for (; j > 0; j--) {
        const n = counts[j]!;
        if (rank < n) break;
        rank -= n;
      }
      node = node.children[j]!;
    }
    if (node.count === node.vals.length) return { leaf: node, i: node.vals.length - 1 - rank, off: 0 };
    let i = node.vals.length - 1;
    for (; i > 0; i--) {
      const n = entrySize(node.vals[i]!);
      if (rank < n) break;
      rank -= n;
    }
    return { leaf: node, i, off: rank };
  }

  /**
   * Visits up to `n` documents, starting `rank` documents in: in ascending key order (`dir` 1), or descending
   * (`dir` -1, `rank` counted from the end). Ties (one posting) always come in `_id` order. `visit` returns true to
   * stop.
   */
  walk(dir: 1 | -1, rank: number, n: number, visit: (doc: Stored) => boolean): void {
    if (n <= 0 || rank < 0 || rank >= this.root.count) return;
    let { leaf, i, off } = dir === 1 ? this.locate(rank) : this.locateFromEnd(rank);
    for (;;) {
      const e = leaf.vals[i]!;
      if (!Array.isArray(e)) {
        if (visit(e) || --n === 0) return;
      } else {
        for (let j = off; j < e.length; j++) {
          if (visit(e[j]!) || --n === 0) return;
        }
      }
      off = 0;
      if (dir === 1) {
        if (++i === leaf.keys.length) {
          if (!leaf.next) return;
          leaf = leaf.next;
          i = 0;
        }
      } else if (--i < 0) {
        if (!leaf.prev) return;
        leaf = leaf.prev;
        i = leaf.keys.length - 1;
      }
    }
  }
}
