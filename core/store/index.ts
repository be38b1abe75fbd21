// Chooses the store adapter from the configuration: MongoDB when a URI is configured, the embedded one otherwise.
import type { Store } from './port.js';
import { EmbeddedStore, type StoreLogger } from './embedded/index.js';
import { MongoStore } from './mongodb/index.js';

export interface StoreConfig {
  dataDir: string;
  mongodbUri: string;
  compactIntervalMs: number;
}

export type { StoreLogger };

/** Creates (does not open) the store: call `open()` before use and `close()` at shutdown. */
export function createStore(config: StoreConfig, log: StoreLogger): Store {
  if (config.mongodbUri && config.mongodbUri.trim() !== '') {
    log.info({ adapter: 'mongodb' }, 'store: using MongoDB');
    return new MongoStore({ uri: config.mongodbUri.trim() });
  }
  log.info({ adapter: 'embedded', dataDir: config.dataDir }, 'store: using the embedded store');
  return new EmbeddedStore({ dataDir: config.dataDir, compactIntervalMs: config.compactIntervalMs, log });
}

export { EmbeddedStore, MongoStore };
export * from './port.js';
