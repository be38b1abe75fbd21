// The MongoDB adapter against a real server: runs the shared contract when FORGEKIT_MONGODB_URI is set.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { MongoStore, databaseFromUri } from '../../core/store/mongodb/index.js';
import type { Store } from '../../core/store/port.js';
import { storeContract } from './contract.js';

const uri = process.env.FORGEKIT_MONGODB_URI?.trim() ?? '';

t.test('databaseFromUri', async (t) => {
  t.equal(databaseFromUri('mongodb://127.0.0.1:27017/forge?retryWrites=true'), 'forge');
  t.equal(databaseFromUri('mongodb+srv://user:pw@cluster.example/db%2Dx'), 'db-x');
  t.equal(databaseFromUri('mongodb://a:1,b:2/?replicaSet=rs'), null);
  t.equal(databaseFromUri('mongodb://127.0.0.1'), null);
});

t.test('open fails with a clear error when no server answers', async (t) => {
  // Port 1 on the loopback: nothing listens there; a short server-selection timeout keeps the test fast.
  const store = new MongoStore({ uri: 'mongodb://127.0.0.1:1/forgekit_unreachable?serverSelectionTimeoutMS=300&connectTimeoutMS=300' });
  await t.rejects(store.open(), /ECONNREFUSED|Server selection timed out/);
  await store.close();
  t.throws(() => store.collection('items'), /not open/, 'a store that never opened refuses work');
});

if (!uri) {
  t.test(
    'mongodb store: contract',
    { skip: 'FORGEKIT_MONGODB_URI is not set: no MongoDB server on this machine, the MongoDB adapter was not exercised' },
    async () => {},
  );
} else {
  const databases = new Map<Store, string>();
  const open = async (database: string): Promise<MongoStore> => {
    const store = new MongoStore({ uri, database });
    await store.open();
    databases.set(store, database);
    return store;
  };
  storeContract('mongodb store: contract', {
    // Every case gets a database of its own, dropped afterwards.
    create: () => open(`forgekit_test_${randomBytes(6).toString('hex')}`),
    async reopen(store) {
      const database = databases.get(store)!;
      await store.close();
      return open(database);
    },
    async cleanup(store) {
      const database = databases.get(store);
      databases.delete(store);
      if (!database) return;
      const admin = await open(database);
      await admin.dropDatabase();
      await admin.close();
      databases.delete(admin);
    },
  });
}
