// JSON of stored documents, serialised once per stored version and view, and JSON arrays built from those pieces.
//
// The store hands out one frozen object per stored version and a new object once a document changes (store port
// contract), so a WeakMap keyed by that object is exact: a changed document is a new key, and an old version's JSON
// is collected with it. An adapter that returns fresh objects per read (MongoDB) only misses the cache.
//
// Pieces are kept as UTF-8 bytes and a list is the list of them (`JsonPieces`), which the kernel copies into reused
// memory as it writes the reply. A list string joined from pieces is flattened, measured and encoded again on every
// reply, which cost the SSH key list (30 keys) about a sixth of its instructions; a Buffer joined per reply is memory
// outside V8's heap that can make it run full collections (core/http/reply-arena.ts).
import type { JsonPieces, PluginContext } from '../../core/plugin.js';

/** Renders one document in one view (a small integer: what a caller may see of it, e.g. with or without email). */
export type RenderDoc<D> = (doc: D, view: number) => string;

/** A JSON array's brackets as list pieces. */
export const LIST_OPEN = Buffer.from('[');
export const LIST_CLOSE = Buffer.from(']');

/** A list item: the UTF-8 JSON of one value preceded by a comma (the first item of a list skips the comma). */
export function listPiece(json: string): Buffer {
  return Buffer.from(`,${json}`);
}

const NOTHING = Buffer.alloc(0);

/**
 * A JSON array of `listPiece`s, in order; with `before`/`after`, the array inside that envelope (e.g.
 * `{"ok":true,"data":` … `}`). Nothing is copied: the first item's comma is skipped by a view of its bytes.
 */
export function joinPieces(pieces: readonly Buffer[], before: Buffer = NOTHING, after: Buffer = NOTHING): JsonPieces {
  const out: Buffer[] = [];
  if (before.length > 0) out.push(before);
  out.push(LIST_OPEN);
  for (let i = 0; i < pieces.length; i++) out.push(i === 0 ? pieces[i]!.subarray(1) : pieces[i]!);
  out.push(LIST_CLOSE);
  if (after.length > 0) out.push(after);
  return out;
}


export class DocJson<D extends object> {
  /** Per document version: per view, its `listPiece`. */
  private readonly made = new WeakMap<D, Buffer[]>();

  constructor(private readonly render: RenderDoc<D>) {}

  /** The document's `listPiece` in a view. */
  piece(doc: D, view = 0): Buffer {
    let views = this.made.get(doc);
    if (views === undefined) {
      views = [];
      this.made.set(doc, views);
    }
    let piece = views[view];
    if (piece === undefined) {
      piece = listPiece(this.render(doc, view));
      views[view] = piece;
    }
    return piece;
  }

  /** The document's JSON in a view. */
  of(doc: D, view = 0): string {
    return this.piece(doc, view).toString('utf8', 1);
  }

  /**
   * A JSON array (UTF-8) of documents, each in the view `viewOf` gives (the same view for all when omitted), inside
   * `envelope` when given (see `joinPieces`).
   */
  list(docs: readonly D[], viewOf?: (doc: D) => number, envelope?: { before: Buffer; after: Buffer }): JsonPieces {
    const pieces = new Array<Buffer>(docs.length);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      pieces[i] = this.piece(doc, viewOf ? viewOf(doc) : 0);
    }
    return envelope ? joinPieces(pieces, envelope.before, envelope.after) : joinPieces(pieces);
  }
}

/**
 * One value per plugin instance (a forge's PluginContext), made on first use: for handlers that are module functions
 * but need something built from their app, like a serializer.
 */
export function perApp<T>(make: (app: PluginContext) => T): (app: PluginContext) => T {
  const made = new WeakMap<PluginContext, T>();
  return (app) => {
    let value = made.get(app);
    if (value === undefined) {
      value = make(app);
      made.set(app, value);
    }
    return value;
  };
}
