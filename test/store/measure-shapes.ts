// Per-query cost of the list shapes the plugins use, and load time of bench-like collections (embedded adapter).
// Run: node dist/test/store/measure-shapes.js [repos=100000] [relations=80000]
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Collection, Filter, FindOptions, Store } from '../../core/store/port.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';
import { REPO_INDEXES } from '../../plugins/repos/service.js';
import { REPO_RELATION_INDEXES as RELATION_INDEXES } from '../../plugins/lib/repo-relations.js';

/** The indexes the plugins declare: measured as they run. */
export { REPO_INDEXES } from '../../plugins/repos/service.js';
export { REPO_RELATION_INDEXES as RELATION_INDEXES } from '../../plugins/lib/repo-relations.js';

export interface Shape {
  name: string;
  us: number;
  index: string | null;
  examined: number;
  returned: number;
}

const perCall = async (n: number, fn: () => Promise<unknown>): Promise<number> => {
  for (let i = 0; i < Math.min(100, n); i++) await fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - start) * 1000) / n;
};

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['app', 'web', 'kit', 'core', 'data', 'tool', 'lib', 'net', 'cli', 'api', 'go', 'rs'];

export async function measureShapes(repoCount = 100_000, relationCount = 80_000): Promise<{ loadMs: Record<string, number>; shapes: Shape[] }> {
  const dir = await tempDir();
  const random = rng(42);
  try {
    let store: Store = await openEmbedded(dir);
    const declare = async (): Promise<void> => {
      await store.ensureCollection({ name: 'repos', indexes: REPO_INDEXES });
      await store.ensureCollection({ name: 'watches', indexes: RELATION_INDEXES });
    };
    await declare();
    // Owner 5 has 1,000 repositories (10% private); the others are spread over 2,000 owners.
    const repos = Array.from({ length: repoCount }, (_, i) => {
      const ownerId = i < 1000 ? 5 : 10 + Math.floor(random() * 2000);
      const name = `${WORDS[Math.floor(random() * WORDS.length)]}-${WORDS[Math.floor(random() * WORDS.length)]}-${i}`;
      return {
        id: i + 1,
        ownerId,
        name,
        lowerName: name.toLowerCase(),
        ownerKey: `${ownerId}:${name.toLowerCase()}`,
        private: i % 10 === 0,
        description: `repository number ${i}`,
        numStars: i % 50,
        topics: ['x', 'y'],
        createdAt: '2026-11-22T10:00:00Z',
      };
    });
    for (let i = 0; i < repos.length; i += 5000) await store.collection('repos').insertMany(repos.slice(i, i + 5000));
    // uid 1 has 5,000 rows (the bench starrer); the rest belong to 20,000 users.
    const rows = Array.from({ length: relationCount }, (_, i) => {
      const uid = i % 16 === 0 && i < 16 * 5000 ? 1 : 2 + Math.floor(random() * 20000);
      const repoId = 1 + ((i * 7919) % repoCount);
      return { id: i + 1, uid, repoId, repoOwnerId: 5, repoPrivate: repoId % 10 === 1, createdAt: '2026-11-22T10:00:00Z' };
    });
    const seen = new Set<string>();
    const unique = rows.filter((r) => (seen.has(`${r.uid}:${r.repoId}`) ? false : (seen.add(`${r.uid}:${r.repoId}`), true)));
    for (let i = 0; i < unique.length; i += 5000) await store.collection('watches').insertMany(unique.slice(i, i + 5000));
    await store.close();

    const start = performance.now();
    store = await openEmbedded(dir);
    const openMs = performance.now() - start;
    const declareStart = performance.now();
    await declare();
    const declareMs = performance.now() - declareStart;

    let shapes: Shape[] = [];
    const shape = async (name: string, coll: Collection, filter: Filter, options: FindOptions = {}, n = 2000): Promise<void> => {
      const us = await perCall(n, () => coll.find(filter, options));
      const ex = await coll.explain(filter, options);
      shapes.push({ name, us: Number(us.toFixed(1)), ...ex });
    };
    const countShape = async (name: string, coll: Collection, filter: Filter, n = 5000): Promise<void> => {
      const us = await perCall(n, () => coll.count(filter));
      shapes.push({ name, us: Number(us.toFixed(2)), index: null, examined: -1, returned: await coll.count(filter) });
    };
    const watches = store.collection('watches');
    const repoColl = store.collection('repos');
    // Two passes: the first one warms up (and lets the collector deal with the load's garbage); the second counts.
    for (let pass = 0; pass < 2; pass++) {
      shapes = [];
      const hidden = [1, 11, 21, 31, 41, 51, 61, 71, 81, 91];
      await shape('relations {uid} sort {id:-1} page 1', watches, { uid: 1 }, { sort: { id: -1 }, limit: 50 });
      await shape('relations {uid} sort {id:-1} page 50', watches, { uid: 1 }, { sort: { id: -1 }, skip: 2450, limit: 50 });
      await shape('relations {uid} sort {id:-1} last page', watches, { uid: 1 }, { sort: { id: -1 }, skip: 4950, limit: 50 });
      await shape('relations {uid, repoId $nin} sort {id:-1} page 50', watches, { uid: 1, repoId: { $nin: hidden } }, { sort: { id: -1 }, skip: 2450, limit: 50 });
      await shape('relations {uid, repoPrivate:false} sort {id:-1} page 1', watches, { uid: 1, repoPrivate: false }, { sort: { id: -1 }, limit: 50 });
      await shape('relations {uid, repoPrivate:true} projection', watches, { uid: 1, repoPrivate: true }, { projection: { repoId: 1 } });
      await countShape('relations count {uid}', watches, { uid: 1 });
      await countShape('relations count {uid, repoPrivate:false}', watches, { uid: 1, repoPrivate: false });
      const light = { projection: { id: 1, lowerName: 1, ownerId: 1, private: 1 } as const };
      await shape('repos {ownerId, private:false} sort {lowerName} limit 91 light', repoColl, { ownerId: 5, private: false }, { sort: { lowerName: 1 }, limit: 91, ...light });
      await shape('repos {ownerId} sort {lowerName} skip 60 limit 31', repoColl, { ownerId: 5 }, { sort: { lowerName: 1 }, skip: 60, limit: 31 });
      // What `GET /users/{owner}/repos` asks for a page (a covered walk over {ownerId, private, lowerName}).
      await shape('repos {ownerId, private:false} sort {lowerName} limit 91', repoColl, { ownerId: 5, private: false }, { sort: { lowerName: 1 }, limit: 91 });
      await countShape('repos count {ownerId, private:false}', repoColl, { ownerId: 5, private: false });
      await countShape('repos count {ownerId}', repoColl, { ownerId: 5 });
      const ids = Array.from({ length: 30 }, (_, i) => 1 + ((i * 3301) % repoCount));
      await shape('repos {id: $in 30 ids}', repoColl, { id: { $in: ids } });
      await shape('repos findOne-like {id}', repoColl, { id: 4242 }, { limit: 1 }, 20000);
      await shape('repos {id: $in [1 id]} projection', repoColl, { id: { $in: [4242] } }, { projection: { id: 1, lowerName: 1 } }, 20000);
      await shape('repos {private:false} sort {id:-1} limit 30', repoColl, { private: false }, { sort: { id: -1 }, limit: 30 });
    }
    await store.close();
    return { loadMs: { open: Math.round(openMs), ensureIndexes: Math.round(declareMs) }, shapes };
  } finally {
    await removeDir(dir);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await measureShapes(Number(process.argv[2] ?? 100_000), Number(process.argv[3] ?? 80_000));
  console.log(`load: ${JSON.stringify(result.loadMs)}`);
  for (const s of result.shapes) console.log(`${String(s.us).padStart(9)} µs  ${s.name}  [${s.index ?? '-'}: examined ${s.examined}, returned ${s.returned}]`);
}
