// The MongoDB store adapter.
export { MongoStore, databaseFromUri, type MongoStoreOptions } from './store.js';
