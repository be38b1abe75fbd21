// A plugin's view of the store (`ctx.store`): the collections the plugin declares in `collections`, nothing else.
// Another plugin's data is reached through that plugin's service, so a collection name used by the wrong plugin
// fails at once, naming both plugins, instead of coupling the two through a document shape.
import type { Collection, CollectionSpec, Doc, Store } from './port.js';

/** Thrown when a plugin reaches for a collection it does not own. */
export class StoreScopeError extends Error {
  constructor(readonly plugin: string, readonly collection: string, readonly owner: string | null, action: string) {
    super(owner
      ? `plugin "${plugin}" ${action} collection "${collection}", which belongs to plugin "${owner}": a plugin reaches only ` +
        `the collections it declares; another plugin's data comes through that plugin's service`
      : `plugin "${plugin}" ${action} collection "${collection}", which it does not declare in its \`collections\``);
    this.name = 'StoreScopeError';
  }
}

/** Which plugin declares each collection; two plugins declaring one name is an error naming both. */
export function collectionOwners(plugins: ReadonlyArray<{ name: string; collections?: ReadonlyArray<Pick<CollectionSpec, 'name'>> }>): Map<string, string> {
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const { name } of plugin.collections ?? []) {
      const other = owners.get(name);
      if (other !== undefined && other !== plugin.name) {
        throw new Error(`collection "${name}" is declared by plugin "${other}" and by plugin "${plugin.name}": a collection has one owner`);
      }
      owners.set(name, plugin.name);
    }
  }
  return owners;
}

/**
 * `store` as plugin `plugin` may use it. `owners` maps every declared collection to its plugin (`collectionOwners`).
 * Sequences (`nextId`) may have any name except another plugin's collection. Opening and closing the store is the
 * kernel's business.
 */
export function scopedStore(store: Store, plugin: string, owners: ReadonlyMap<string, string>): Store {
  const own = (name: string, action: string): void => {
    const owner = owners.get(name) ?? null;
    if (owner !== plugin) throw new StoreScopeError(plugin, name, owner, action);
  };
  return Object.freeze({
    kind: store.kind,
    async open(): Promise<void> {
      throw new Error(`plugin "${plugin}" cannot open the store: the kernel does`);
    },
    async close(): Promise<void> {
      throw new Error(`plugin "${plugin}" cannot close the store: the kernel does`);
    },
    async ensureCollection(spec: CollectionSpec): Promise<void> {
      own(spec.name, 'declares');
      return store.ensureCollection(spec);
    },
    collection<T extends Doc = Doc>(name: string): Collection<T> {
      own(name, 'opens');
      return store.collection<T>(name);
    },
    async nextId(sequence: string): Promise<number> {
      const owner = owners.get(sequence);
      if (owner !== undefined && owner !== plugin) throw new StoreScopeError(plugin, sequence, owner, 'draws ids from');
      return store.nextId(sequence);
    },
    async drop(name: string): Promise<void> {
      own(name, 'drops');
      return store.drop(name);
    },
  });
}
