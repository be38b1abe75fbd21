// A/B of the repository search index (plugins/repos/memory-index.ts) of two builds in one process: both builds'
// indexes are loaded from the same generated records (bench/search-index.ts's datasets) and each request runs on one
// and then the other, alternating which goes first, so both meet the same machine at the same moment. On a shared or
// noisy host, two separate processes (one per build) can differ by 2–3× on the same request; interleaved they do not.
//
//   npm run build; git worktree add /tmp/base <commit>; (cd /tmp/base && npm ci && npm run build)
//   node dist/bench/search-index-ab.js --base /tmp/base/dist --dataset 'many tiny owners' \
//        --request 'erver:owner:11:30' --request ':anonymous:2:30' [--size 100000] [--seed 7] [--runs 300]
//
// A request is `q:caller:page:limit` (an empty `q` for none: `:anonymous:2:30`), or `q:caller:page:limit:sort[:desc]`
// for a sorted page (`pp:anonymous:4:30:stars:desc`: `RepoIndex.sorted`); the callers are bench/search-index.ts's
// (anonymous, owner, collaborator with one owner in 20 hidden; admin with none). Prints per request the median and p90
// of the runs in µs.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { callersOf, DATASETS, records } from './search-index.js';
import type { IndexQuery, RepoIndex, SortKey, Visibility } from '../plugins/repos/memory-index.js';

export type IndexClass = new () => RepoIndex;

/** The RepoIndex class of the build whose `dist` directory is `dist`. */
export async function indexClassOf(dist: string): Promise<IndexClass> {
  const mod = (await import(pathToFileURL(path.join(path.resolve(dist), 'plugins/repos/memory-index.js')).href)) as { RepoIndex: IndexClass };
  return mod.RepoIndex;
}

export interface IndexRequest {
  query: IndexQuery;
  vis: Visibility;
  n: number;
  sort?: { key: SortKey; desc: boolean };
}

const SORTS: readonly SortKey[] = ['created', 'updated', 'size', 'id', 'stars', 'forks'];

/** `q:caller:page:limit[:sort[:desc]]` as the index's query, caller, page end and order. */
function requestOf(spec: string, callers: Record<string, Visibility>): IndexRequest {
  const [q, who, page, limit, sort, dir] = spec.split(':');
  const vis = callers[who ?? ''];
  if (q === undefined || vis === undefined || !page || !limit) throw new Error(`a request is q:caller:page:limit[:sort[:desc]] with a caller of ${Object.keys(callers).join(', ')}: ${spec}`);
  if (sort !== undefined && !SORTS.includes(sort as SortKey)) throw new Error(`a sort is one of ${SORTS.join(', ')}: ${spec}`);
  const request: IndexRequest = { query: q === '' ? {} : { text: { q, desc: false } }, vis, n: Number(page) * Number(limit) };
  if (sort !== undefined) request.sort = { key: sort as SortKey, desc: dir === 'desc' };
  return request;
}

/** The request's page and total from one index. */
function answer(index: RepoIndex, r: IndexRequest): { head: number[]; total: number } {
  return r.sort ? index.sorted(r.query, r.vis, r.sort.key, r.sort.desc, r.n) : index.search(r.query, r.vis, r.n);
}

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

export function compare(base: RepoIndex, head: RepoIndex, request: IndexRequest, runs: number): { base: number[]; head: number[]; totals: [number, number]; samePage: boolean } {
  const times = { base: [] as number[], head: [] as number[] };
  const totals = { base: 0, head: 0 };
  const pages = { base: '', head: '' };
  for (let k = 0; k < runs; k++) {
    const order: Array<['base' | 'head', RepoIndex]> = k % 2 ? [['base', base], ['head', head]] : [['head', head], ['base', base]];
    for (const [side, index] of order) {
      const start = performance.now();
      const { head: page, total } = answer(index, request);
      times[side].push((performance.now() - start) * 1000);
      totals[side] = total;
      if (k === 0) pages[side] = page.join(',');
    }
  }
  return { base: times.base.sort((a, b) => a - b), head: times.head.sort((a, b) => a - b), totals: [totals.base, totals.head], samePage: pages.base === pages.head };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      dataset: { type: 'string' },
      request: { type: 'string', multiple: true, default: [] },
      size: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '7' },
      runs: { type: 'string', default: '300' },
    },
  });
  const ds = DATASETS.find((d) => d.name === values.dataset);
  if (!values.base || !ds || values.request.length === 0) {
    console.error(`usage: node dist/bench/search-index-ab.js --base <other build's dist> --dataset <${DATASETS.map((d) => d.name).join(' | ')}> --request q:caller:page:limit...`);
    process.exit(2);
  }
  const recs = records(ds, Number(values.size), Number(values.seed));
  const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const [BaseIndex, HeadIndex] = await Promise.all([indexClassOf(values.base), indexClassOf(here)]);
  const base = new BaseIndex();
  base.load(recs);
  const head = new HeadIndex();
  head.load(recs);
  const callers = Object.fromEntries(callersOf(recs, head).map((c) => [c.name, c.vis]));
  console.log(`${ds.name} @ ${recs.length}, seed ${values.seed}, ${values.runs} runs per build (matches; µs: median, p90)`);
  for (const spec of values.request) {
    const { base: b, head: h, totals, samePage } = compare(base, head, requestOf(spec, callers), Number(values.runs));
    const differ = (totals[0] !== totals[1] ? `  TOTALS DIFFER ${totals[0]} / ${totals[1]}` : '') + (samePage ? '' : '  PAGES DIFFER');
    console.log(`  ${spec.padEnd(28)} ${String(totals[1]).padStart(7)} matches   base ${quantile(b, 0.5).toFixed(0).padStart(6)} (${quantile(b, 0.9).toFixed(0)})   this build ${quantile(h, 0.5).toFixed(0).padStart(6)} (${quantile(h, 0.9).toFixed(0)})${differ}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
