// Micro-benchmark behind the mingo decision (core/store/embedded/README.md): the embedded store's compiled matcher
// and updater against mingo's on the store's hot shapes, interleaved in one process so machine load hits both.
// Run: npm run build && node dist/bench/store-semantics.js
import { Query, update as mingoUpdate } from 'mingo';
import { compileFilter } from '../core/store/embedded/filter.js';
import { applyUpdate } from '../core/store/embedded/query.js';

type Doc = Record<string, unknown>;

const docs: Doc[] = Array.from({ length: 2000 }, (_, i) => ({
  id: i + 1, ownerId: i % 40, lowerName: `repo-${i}`, name: `Repo-${i}`, private: i % 7 === 0, fork: false, forkId: null,
  description: 'a repository', website: '', numStars: i % 13, numForks: 0, numWatches: 1, defaultBranch: 'main',
  createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', uid: i % 50, repoId: i,
  grams: ['r', 'e', 'p', 'o', 're', 'ep', 'po', 'rep', 'epo', `${i % 10}`],
}));

const FILTERS: Array<[string, Doc]> = [
  ['owner, public', { ownerId: 5, private: false }],
  ['relation page minus hidden', { uid: 7, repoId: { $nin: [1, 2, 3, 4, 5] } }],
  ['ids $in (30)', { id: { $in: Array.from({ length: 30 }, (_, i) => 1 + i * 61) } }],
  ['gram in array', { grams: '7' }],
  ['public or private gram', { $or: [{ grams: '7' }, { privateGrams: '7' }] }],
  ['range + equality', { numStars: { $gte: 3, $lt: 9 }, fork: false }],
];

function time(fn: () => number, rounds = 7): number {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    const n = fn();
    samples.push(Number(process.hrtime.bigint() - start) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const out: string[] = ['| case | embedded ns/doc | mingo ns/doc | mingo ÷ embedded | mingo compile µs/query |', '|---|---:|---:|---:|---:|'];
for (const [label, filter] of FILTERS) {
  const ours = compileFilter(filter);
  const theirs = new Query(filter);
  let sink = 0;
  const passes = 20;
  const a = time(() => { for (let p = 0; p < passes; p++) for (const d of docs) if (ours(d)) sink++; return passes * docs.length; });
  const b = time(() => { for (let p = 0; p < passes; p++) for (const d of docs) if (theirs.test(d)) sink++; return passes * docs.length; });
  const c = time(() => { for (let i = 0; i < 2000; i++) sink += new Query(filter).test(docs[i]!) ? 1 : 0; return 2000; }) / 1000;
  if (sink < 0) console.log(sink);
  out.push(`| ${label} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(1)}× | ${c.toFixed(2)} |`);
}

const UPDATES: Array<[string, Doc]> = [
  ['$inc a counter', { $inc: { numStars: 1 } }],
  ['$set three fields', { $set: { description: 'changed', website: 'https://x', updatedAt: '2026-02-02T00:00:00Z' } }],
  ['$addToSet + $inc', { $addToSet: { grams: 'zz' }, $inc: { numWatches: 1 } }],
];
out.push('', '| update | embedded µs | mingo µs (clone + update) | mingo ÷ embedded |', '|---|---:|---:|---:|');
const copy = (d: Doc): Doc => structuredClone(d);
for (const [label, update] of UPDATES) {
  const doc = docs[123]!;
  const n = 5000;
  const a = time(() => { for (let i = 0; i < n; i++) applyUpdate(doc, update as never, copy); return n; }) / 1000;
  const b = time(() => { for (let i = 0; i < n; i++) mingoUpdate(copy(doc), update as never); return n; }) / 1000;
  out.push(`| ${label} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(1)}× |`);
}
console.log(out.join('\n'));
