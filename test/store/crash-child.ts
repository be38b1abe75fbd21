// Child process for crash.test.ts: writes until it is killed, printing a line for every acknowledged write.
// Usage: node crash-child.js <dataDir>
import { EmbeddedStore } from '../../core/store/embedded/index.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: crash-child <dataDir>');

const quiet = { info() {}, warn() {}, error() {} } as unknown as ConstructorParameters<typeof EmbeddedStore>[0]['log'];
// A short compaction period so that some kills land in the middle of a file rewrite too.
const store = new EmbeddedStore({ dataDir, compactIntervalMs: 25, log: quiet });
await store.open();
await store.ensureCollection({ name: 'items', indexes: [{ fields: { id: 1 }, unique: true }] });
const items = store.collection('items');
await items.updateOne({ id: 0 }, { $inc: { hits: 0 } }, { upsert: true });
process.stdout.write('ready\n');

async function writer(w: number): Promise<never> {
  for (let i = 0; ; i++) {
    const id = await store.nextId('items');
    await items.insertOne({ id, writer: w, payload: 'x'.repeat(100 + (id % 300)) });
    process.stdout.write(`ack ${id}\n`);
    if (i % 3 === 0) {
      const counter = await items.findOneAndUpdate({ id: 0 }, { $inc: { hits: 1 } });
      process.stdout.write(`hits ${counter!.hits as number}\n`);
    }
    if (i % 5 === 0) {
      await items.updateOne({ id }, { $set: { updated: true } });
      process.stdout.write(`upd ${id}\n`);
    }
  }
}

await Promise.all([writer(1), writer(2), writer(3), writer(4)]);
