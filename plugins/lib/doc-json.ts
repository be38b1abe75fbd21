// JSON of stored documents, serialised once per stored version and view, and JSON arrays built from those pieces.
//
// The store hands out one frozen object per stored version and a new object once a document changes (store port
// contract), so a WeakMap keyed by that object is exact: a changed document is a new key, and an old version's JSON
// is collected with it. An adapter that returns fresh objects per read (MongoDB) only misses the cache.
import type { PluginContext } from '../../core/plugin.js';

/** Renders one document in one view (a small integer: what a caller may see of it, e.g. with or without email). */
export type RenderDoc<D> = (doc: D, view: number) => string;

export class DocJson<D extends object> {
  private readonly made = new WeakMap<D, string[]>();

  constructor(private readonly render: RenderDoc<D>) {}

  /** The document's JSON in a view. */
  of(doc: D, view = 0): string {
    let views = this.made.get(doc);
    if (views === undefined) {
      views = [];
      this.made.set(doc, views);
    }
    let json = views[view];
    if (json === undefined) {
      json = this.render(doc, view);
      views[view] = json;
    }
    return json;
  }

  /** A JSON array of documents, each in the view `viewOf` gives (the same view for all when omitted). */
  list(docs: readonly D[], viewOf?: (doc: D) => number): string {
    if (docs.length === 0) return '[]';
    let out = '[';
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (i > 0) out += ',';
      out += this.of(doc, viewOf ? viewOf(doc) : 0);
    }
    return out + ']';
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
