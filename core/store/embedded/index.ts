// The embedded (default) store adapter.
export { EmbeddedStore, type EmbeddedStoreOptions } from './store.js';
export type { StoreLogger } from './collection.js';
