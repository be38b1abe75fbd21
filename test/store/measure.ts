// Store hot-path measurements (embedded adapter, or MongoDB when FORGEKIT_MONGODB_URI is set).
// Run: node dist/test/store/measure.js [docs=100000]   — also used by perf.test.ts with smaller sizes.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { CollectionSpec, Store } from '../../core/store/port.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

export interface Measurements {
  docs: number;
  insertSequentialMs: number;
  insertPerSecond: number;
  insertConcurrentMs: number;
  findOneIndexedUs: number;
  findOneIndexedExamined: number;
  pageUs: number;
  pageExamined: number;
  pageMatches: number;
  countUs: number;
  reopenMs: number;
}

const time = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

/** Average microseconds per call over `n` calls (after a short warm-up). */
const perCall = async (n: number, fn: (i: number) => Promise<unknown>): Promise<number> => {
  for (let i = 0; i < Math.min(200, n); i++) await fn(i);
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return ((performance.now() - start) * 1000) / n;
};

export async function measure(docs: number, matches = 5000): Promise<Measurements> {
  const dir = await tempDir();
  try {
    let store: Store = await openEmbedded(dir);
    const spec: CollectionSpec = { name: 'repos', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { owner_id: 1 } }] };
    await store.ensureCollection(spec);
    const repos = store.collection('repos');
    const owners = Math.max(1, Math.floor(docs / matches)); // owner 0 has `matches` repositories
    const doc = (i: number) => ({ id: i + 1, owner_id: i % owners, name: `repo-${i}`, private: i % 7 === 0, stars: i % 100 });

    // Sequential awaited inserts: one request after another, each waiting for its append.
    const half = Math.floor(docs / 2);
    const insertSequentialMs = await time(async () => {
      for (let i = 0; i < half; i++) await repos.insertOne(doc(i));
    });
    // Concurrent inserts (64 in flight): what a loaded server sees; appends are group-committed.
    const insertConcurrentMs = await time(async () => {
      let next = half;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < docs) await repos.insertOne(doc(next++));
        }),
      );
    });

    const findOneIndexedUs = await perCall(20000, (i) => repos.findOne({ id: (i * 7919) % docs + 1 }));
    const one = await repos.explain({ id: 12345 % docs + 1 });
    const pageOpts = { sort: { id: -1 as const }, skip: 2000, limit: 30 };
    const pageUs = await perCall(300, () => repos.find({ owner_id: 0 }, pageOpts));
    const page = await repos.explain({ owner_id: 0 }, pageOpts);
    const pageMatches = await repos.count({ owner_id: 0 });
    const countUs = await perCall(2000, () => repos.count({ owner_id: 0 }));

    const reopenMs = await time(async () => {
      await store.close();
      store = await openEmbedded(dir);
    });
    await store.close();
    return {
      docs,
      insertSequentialMs: Math.round(insertSequentialMs),
      insertPerSecond: Math.round(half / (insertSequentialMs / 1000)),
      insertConcurrentMs: Math.round(insertConcurrentMs),
      findOneIndexedUs: Number(findOneIndexedUs.toFixed(2)),
      findOneIndexedExamined: one.examined,
      pageUs: Number(pageUs.toFixed(1)),
      pageExamined: page.examined,
      pageMatches,
      countUs: Number(countUs.toFixed(2)),
      reopenMs: Math.round(reopenMs),
    };
  } finally {
    await removeDir(dir);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const docs = Number(process.argv[2] ?? 100_000);
  const m = await measure(docs);
  console.log(JSON.stringify(m, null, 2));
}
