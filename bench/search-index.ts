// Randomized benchmark of the repository search index (plugins/repos/memory-index.ts) on several generated datasets,
// in process: what a `/repos/search` request costs in the index itself (page + exact total), per case family, over
// requests drawn across selectivities (one match to half the names), pages and callers. Seeds are printed; the same
// seed gives the same datasets and requests. It measures the index, not HTTP (see bench/RESULTS.md for that).
//
//   node dist/bench/search-index.js [--sizes 10000,100000] [--seed N] [--requests N] [--quick]
import { parseArgs } from 'node:util';
import type { RepoRecord } from '../schemas/services.js';
import { RepoIndex, type IndexQuery, type Visibility } from '../plugins/repos/memory-index.js';
import { prng } from './dataset.js';

const WORDS = ['app', 'api', 'core', 'web', 'server', 'client', 'data', 'tool', 'kit', 'lib', 'node', 'go', 'rust', 'cli',
  'mapper', 'happy', 'parser', 'query', 'store', 'cache', 'proxy', 'auth', 'log', 'test', 'demo', 'ui', 'docs', 'config',
  'engine', 'graph', 'stream', 'queue', 'worker', 'admin', 'mobile', 'game', 'chat', 'bot', 'sync', 'vault', 'forge',
  'alpha', 'beta', 'delta', 'omega', 'pixel', 'quartz', 'zephyr', 'jinx', 'wobble'];


interface Dataset {
  name: string;
  owners: number;
  privateShare: number;
  nameOf: (i: number, r: () => number) => string;
  /** Owner of repository i: few owners with thousands, or many tiny ones. */
  ownerOf: (i: number, r: () => number, owners: number) => number;
}

const word = (r: () => number) => WORDS[Math.floor(r() * r() * WORDS.length)]!;
export const DATASETS: Dataset[] = [
  { name: 'compound names', owners: 40, privateShare: 0.1, nameOf: (i, r) => `${word(r)}-${word(r)}${r() < 0.5 ? `-${word(r)}` : ''}-${i % 97}`, ownerOf: (i, r, n) => Math.floor(r() * n) },
  { name: 'single words', owners: 500, privateShare: 0.1, nameOf: (i, r) => `${word(r)}${i}`, ownerOf: (i, r, n) => Math.floor(r() * n) },
  { name: 'numbered series', owners: 200, privateShare: 0.1, nameOf: (i) => `project-${String(i).padStart(7, '0')}`, ownerOf: (i, r, n) => Math.floor(r() * n) },
  { name: 'few big owners', owners: 5, privateShare: 0.2, nameOf: (i, r) => `${word(r)}-${word(r)}-${i}`, ownerOf: (i, r, n) => Math.floor(r() * n) },
  { name: 'many tiny owners', owners: 1_000_000, privateShare: 0.1, nameOf: (i, r) => `${word(r)}_${word(r)}${i % 13}`, ownerOf: (i) => i },
  { name: 'heavy private share', owners: 100, privateShare: 0.6, nameOf: (i, r) => `${word(r)}-${word(r)}-${i}`, ownerOf: (i, r, n) => Math.floor(r() * n) },
];

export function records(ds: Dataset, n: number, seed: number): RepoRecord[] {
  const r = prng(seed);
  const owners = Math.min(ds.owners, n);
  const out: RepoRecord[] = [];
  for (let i = 0; i < n; i++) {
    const name = ds.nameOf(i, r);
    out.push({
      id: i + 1, ownerId: ds.ownerOf(i, r, owners) + 1, name, lowerName: name.toLowerCase(), description: r() < 0.3 ? `A ${word(r)} for ${word(r)}` : '',
      website: '', private: r() < ds.privateShare, fork: r() < 0.1, forkId: null, mirror: r() < 0.03, empty: true, size: 0,
      defaultBranch: 'main', numStars: Math.floor(r() * 50), numForks: 0, numWatches: 0, createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z', mirrorUpdated: null, mirrorError: null,
    });
  }
  return out;
}

/** Substrings of stored names, drawn so selectivities spread from one name to about half of them. */
function terms(recs: RepoRecord[], r: () => number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = recs[Math.floor(r() * recs.length)]!.lowerName;
    const len = 1 + Math.floor(r() * Math.min(12, name.length));
    const at = Math.floor(r() * (name.length - len + 1));
    out.push(name.slice(at, at + len));
  }
  return out;
}

interface Stat { family: string; median: number; p99: number; worst: number; worstQuery: string; n: number }

function summarise(family: string, samples: Array<{ us: number; label: string }>): Stat {
  const sorted = [...samples].sort((a, b) => a.us - b.us);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.us;
  return { family, median: q(0.5), p99: q(0.99), worst: sorted[sorted.length - 1]!.us, worstQuery: sorted[sorted.length - 1]!.label, n: samples.length };
}

export interface SearchBenchResult {
  seed: number;
  size: number;
  dataset: string;
  buildMs: number;
  heapMb: number;
  /** Bytes held by the index's postings after the run (long queries kept included). */
  postingMb: number;
  families: Stat[];
}

/**
 * The callers a request is made as: anonymous, an owner of private repositories (`ownerOfCaller`, by default the owner
 * of the first record), a collaborator on a few private repositories of several owners, and a site admin. The first
 * three have owners hidden from them as on a real site (limited and private accounts: one owner in 20, the caller's own
 * excepted), one shared set as the users plugin makes it: whose public repositories a search must leave out.
 */
export function callersOf(recs: RepoRecord[], index: RepoIndex, ownerOfCaller = recs[0]!.ownerId): Array<{ name: string; vis: Visibility }> {
  // The owner's private repositories as search.ts passes them: by owner when many, else as ids.
  const ownerVis: Visibility = index.privateCount(ownerOfCaller) >= 64
    ? { public: true, privateAll: false, privateOwners: [ownerOfCaller] }
    : { public: true, privateAll: false, privateIds: index.privateOf(ownerOfCaller) };
  // A collaborator: a few private repositories of several owners.
  const collab = recs.filter((x) => x.private).slice(0, 40).map((x) => x.id);
  const owners = [...new Set(recs.map((x) => x.ownerId))].sort((a, b) => a - b);
  const hidden = new Set(owners.filter((o, i) => o !== ownerOfCaller && i % 20 === 7));
  return [
    { name: 'anonymous', vis: { public: true, privateAll: false, hiddenOwners: hidden } },
    { name: 'owner', vis: { ...ownerVis, hiddenOwners: hidden } },
    { name: 'collaborator', vis: { public: true, privateAll: false, privateIds: collab, hiddenOwners: hidden } },
    { name: 'admin', vis: { public: true, privateAll: true } },
  ];
}

/** One dataset at one size: requests per family, each timed (µs) as the page plus its exact total. */
export function runDataset(ds: Dataset, size: number, seed: number, requests: number): SearchBenchResult {
  const recs = records(ds, size, seed);
  // With --expose-gc the heap growth is the index's (else it includes garbage and can even be negative).
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const index = new RepoIndex();
  index.load(recs);
  const buildMs = performance.now() - t0;
  gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  const r = prng(seed ^ 0x5eed);
  const pool = terms(recs, r, requests);
  const ownerOfCaller = recs[Math.floor(r() * recs.length)]!.ownerId;
  const callers = callersOf(recs, index, ownerOfCaller);
  const families: Record<string, (q: string, i: number) => IndexQuery> = {
    'search q': (q) => ({ text: { q, desc: false } }),
    'search q+includeDesc': (q) => ({ text: { q, desc: true } }),
    'search q+uid': (q) => ({ text: { q, desc: false }, owners: [ownerOfCaller] }),
    'search q+mode=source': (q) => ({ text: { q, desc: false }, flags: { fork: false, mirror: false } }),
    'list (no q)': () => ({}),
  };
  const out: Stat[] = [];
  // On a loaded machine a single timing includes being descheduled: each request runs 3 times and its fastest run
  // counts, except in the "first sight" family, which times each request's first run (a long query's posting build).
  const first: Array<{ us: number; label: string }> = [];
  for (const [family, make] of Object.entries(families)) {
    const samples: Array<{ us: number; label: string }> = [];
    for (let i = 0; i < pool.length; i++) {
      const q = pool[i]!;
      const caller = callers[i % callers.length]!;
      const page = 1 + Math.floor(r() * r() * 20);
      const limit = [10, 30, 50][i % 3]!;
      const query = make(q, i);
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const s = performance.now();
        index.search(query, caller.vis, page * limit);
        const us = (performance.now() - s) * 1000;
        if (k === 0 && family === 'search q') first.push({ us, label: `q=${q} ${caller.name} page=${page}` });
        best = Math.min(best, us);
      }
      samples.push({ us: best, label: `q=${q} ${caller.name} page=${page}` });
    }
    out.push(summarise(family, samples));
  }
  out.push(summarise('search q (first sight)', first));
  return { seed, size, dataset: ds.name, buildMs, heapMb, postingMb: index.postingBytes / 1e6, families: out };
}

function main(): void {
  const { values } = parseArgs({
    options: { sizes: { type: 'string' }, seed: { type: 'string' }, requests: { type: 'string' }, quick: { type: 'boolean', default: false } },
  });
  const quick = values.quick === true;
  const sizes = (values.sizes ?? (quick ? '2000' : '10000,100000')).split(',').map(Number);
  const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
  const requests = Number(values.requests ?? (quick ? 100 : 2000));
  console.log(`search index benchmark: seed ${seed} (repeat with --seed ${seed}), sizes ${sizes.join(', ')}, ${requests} requests per family`);
  for (const size of sizes) {
    for (const ds of DATASETS) {
      const res = runDataset(ds, size, seed, requests);
      console.log(`\n${ds.name} @ ${size}: build ${res.buildMs.toFixed(0)} ms, heap +${res.heapMb.toFixed(0)} MB, postings ${res.postingMb.toFixed(1)} MB`);
      for (const f of res.families) {
        console.log(`  ${f.family.padEnd(24)} median ${f.median.toFixed(1).padStart(7)} µs  p99 ${f.p99.toFixed(1).padStart(8)} µs  worst ${f.worst.toFixed(1).padStart(8)} µs  (${f.worstQuery})`);
      }
    }
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main();
