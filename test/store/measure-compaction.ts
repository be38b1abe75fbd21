// What a compaction of one large collection costs while writes go on: its duration, the memory it takes on top
// of the collection, and how long writes to the same collection wait meanwhile.
// Run: node --expose-gc dist/test/store/measure-compaction.js [docs=100000]
import { performance } from 'node:perf_hooks';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

const docs = Number(process.argv[2] ?? 100_000);
const dir = await tempDir();
try {
  const store = await openEmbedded(dir);
  await store.ensureCollection({ name: 'repos', indexes: [{ fields: { id: 1 }, unique: true }, { fields: { owner_id: 1, lower_name: 1 }, unique: true }] });
  const repos = store.collection('repos');
  // Documents the size of a repository's (~700 bytes serialised).
  for (let from = 0; from < docs; from += 5000) {
    await repos.insertMany(
      Array.from({ length: Math.min(5000, docs - from) }, (_, i) => {
        const id = from + i + 1;
        return {
          id,
          owner_id: id % 400,
          lower_name: `repository-${id}`,
          name: `Repository-${id}`,
          description: `A repository numbered ${id} with a description of ordinary length for a forge`.repeat(3),
          website: `https://example.com/${id}`,
          private: id % 10 === 0,
          default_branch: 'master',
          stars_count: id % 17,
          forks_count: id % 5,
          watchers_count: id % 11,
          open_issues_count: id % 7,
          created: '2026-12-02T10:00:00Z',
          updated: '2026-12-02T10:00:00Z',
        };
      }),
    );
  }
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed + base.external + base.arrayBuffers;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed + m.external + m.arrayBuffers);
  }, 2);

  let done = false;
  const waits: number[] = [];
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; !done; i++) {
      const start = performance.now();
      await repos.updateOne({ id: 1 + ((i * 8 + w) * 7919) % docs }, { $inc: { stars_count: 1 } });
      waits.push(performance.now() - start); // a write started during the compaction, however long it waited
    }
  });
  const start = performance.now();
  await store.compactAll();
  const ms = performance.now() - start;
  done = true;
  await Promise.all(writers);
  clearInterval(sampler);
  waits.sort((a, b) => a - b);
  const mb = (n: number): string => (n / 2 ** 20).toFixed(1);
  console.log(
    JSON.stringify({
      docs,
      compactionMs: Math.round(ms),
      rssAboveBaseMB: mb(peakRss - base.rss),
      heapAboveBaseMB: mb(peakHeap - (base.heapUsed + base.external + base.arrayBuffers)),
      writesDuring: waits.length,
      writeWaitP50Ms: waits.length ? waits[Math.floor(waits.length / 2)]!.toFixed(1) : null,
      writeWaitMaxMs: waits.length ? waits[waits.length - 1]!.toFixed(1) : null,
    }),
  );
  await store.close();
} finally {
  await removeDir(dir);
}
