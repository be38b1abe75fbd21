// Typed access to the parts of @seald-io/nedb 4 the embedded adapter builds on: its indexes (AVL trees), its
// datastore object and its crash-safe file rewrite. nedb's public API copies every document on every read and
// serialises every operation through one promise queue; the adapter keeps nedb's data structures and file format
// but runs queries itself (see README.md beside this file). `assertNedbInternals` fails at open if an upgrade
// moved them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export type Stored = Record<string, unknown>;

/** A node of nedb's AVL tree (binary-search-tree package): documents sharing one key. */
export interface TreeNode {
  key?: unknown;
  data: Stored[];
  left: TreeNode | null;
  right: TreeNode | null;
}

export interface NedbIndex {
  fieldName: string;
  _fields: string[];
  unique: boolean;
  sparse: boolean;
  tree: { tree: TreeNode; search(key: unknown): Stored[]; betweenBounds(query: Record<string, unknown>): Stored[] };
  insert(doc: Stored | Stored[]): void;
  remove(doc: Stored | Stored[]): void;
  update(oldDoc: Stored | Array<{ oldDoc: Stored; newDoc: Stored }>, newDoc?: Stored): void;
  revertUpdate(oldDoc: Stored | Array<{ oldDoc: Stored; newDoc: Stored }>, newDoc?: Stored): void;
  reset(data?: Stored[]): void;
  getMatching(value: unknown): Stored[];
}

export interface NedbIndexOptions {
  fieldName: string;
  unique?: boolean;
  sparse?: boolean;
}

export interface NedbDatastore {
  filename: string;
  indexes: Record<string, NedbIndex>;
  getAllData(): Stored[];
  _resetIndexes(data?: Stored[]): void;
}

interface NedbStorage {
  crashSafeWriteFileLinesAsync(filename: string, lines: string[], modes?: { fileMode: number; dirMode: number }): Promise<void>;
  ensureDatafileIntegrityAsync(filename: string, mode?: number): Promise<void>;
  ensureParentDirectoryExistsAsync(filename: string, mode?: number): Promise<void>;
}

type DatastoreCtor = new (options: { filename?: string; inMemoryOnly?: boolean; corruptAlertThreshold?: number }) => NedbDatastore;
type IndexCtor = new (options: NedbIndexOptions) => NedbIndex;

export const Datastore = require('@seald-io/nedb') as DatastoreCtor;
export const Index = require('@seald-io/nedb/lib/indexes.js') as IndexCtor;
export const storage = require('@seald-io/nedb/lib/storage.js') as NedbStorage;

/** Checks that the nedb internals used here still have the expected shape. */
export function assertNedbInternals(): void {
  const probe = new Datastore({ inMemoryOnly: true });
  const idx = new Index({ fieldName: 'a' });
  const doc = { _id: 'x', a: 1 };
  idx.insert(doc);
  const ok =
    typeof probe._resetIndexes === 'function' &&
    typeof probe.getAllData === 'function' &&
    probe.indexes._id instanceof Index &&
    idx.tree?.tree?.data?.[0] === doc &&
    idx.getMatching(1)[0] === doc &&
    Array.isArray(idx._fields) &&
    typeof storage.crashSafeWriteFileLinesAsync === 'function' &&
    typeof storage.ensureDatafileIntegrityAsync === 'function';
  if (!ok) throw new Error('@seald-io/nedb internals changed: the embedded store supports nedb 4.x');
}

/** nedb keys a compound index by its field names, sorted and comma-joined. */
export function nedbIndexKey(fields: string[]): string {
  return [...fields].sort().join(',');
}

/**
 * In-order walk of an index tree (ascending or descending) that can stop early: `visit` returns true to stop.
 * nedb's own `executeOnEveryNode` always walks everything in ascending order.
 */
export function walkTree(root: TreeNode, dir: 1 | -1, visit: (doc: Stored) => boolean): void {
  if (!Object.hasOwn(root, 'key')) return; // empty tree
  const stack: TreeNode[] = [];
  let node: TreeNode | null = root;
  while (node || stack.length) {
    while (node) {
      stack.push(node);
      node = dir === 1 ? node.left : node.right;
    }
    node = stack.pop()!;
    const data = node.data;
    if (dir === 1) {
      for (let i = 0; i < data.length; i++) if (visit(data[i]!)) return;
    } else {
      for (let i = data.length - 1; i >= 0; i--) if (visit(data[i]!)) return;
    }
    node = dir === 1 ? node.right : node.left;
  }
}
