// A/B of a counter change in the repository search index's kept sort orders (plugins/repos/memory-index.ts `bump`):
// both builds' indexes load the same generated records and keep the same orders (stars and updated), then take
// batches of star/unstar pairs at random repositories, alternating which build goes first.
//
//   node dist/bench/kept-order-ab.js --base /tmp/base/dist [--dataset 'compound names'] [--size 1000000] [--batches 20]
//
// Prints each build's time to build the two orders and the median and fastest µs per counter change.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RepoIndex } from '../plugins/repos/memory-index.js';
import { DATASETS, records } from './search-index.js';
import { prng } from './dataset.js';
import { indexClassOf } from './search-index-ab.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      dataset: { type: 'string', default: DATASETS[0]!.name },
      size: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '7' },
      batches: { type: 'string', default: '20' },
      pairs: { type: 'string', default: '2000' },
    },
  });
  const ds = DATASETS.find((d) => d.name === values.dataset);
  if (!values.base || !ds) {
    console.error(`usage: node dist/bench/kept-order-ab.js --base <other build's dist> [--dataset <${DATASETS.map((d) => d.name).join(' | ')}>] [--size N]`);
    process.exit(2);
  }
  const size = Number(values.size);
  const recs = records(ds, size, Number(values.seed));
  const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const builds: Array<[name: string, index: RepoIndex]> = [];
  for (const [name, dist] of [['base', values.base], ['this build', here]] as const) {
    const index = new (await indexClassOf(dist))();
    index.load(recs);
    const vis = { public: true, privateAll: true };
    const start = performance.now();
    index.sorted({}, vis, 'stars', true, 30);
    index.sorted({}, vis, 'updated', true, 30);
    console.log(`${name}: kept orders (stars, updated) built in ${(performance.now() - start).toFixed(0)} ms`);
    builds.push([name, index]);
  }
  const ids = recs.map((r) => r.id);
  const r = prng(Number(values.seed));
  const pairs = Number(values.pairs);
  const times = new Map<string, number[]>(builds.map(([name]) => [name, []]));
  for (let b = 0; b < Number(values.batches); b++) {
    for (const [name, index] of b % 2 ? builds : [...builds].reverse()) {
      const start = performance.now();
      for (let k = 0; k < pairs; k++) {
        const id = ids[Math.floor(r() * ids.length)]!;
        index.bump(id, 'stars', 1);
        index.bump(id, 'stars', -1);
      }
      times.get(name)!.push(((performance.now() - start) * 1000) / (2 * pairs));
    }
  }
  console.log(`${ds.name} @ ${recs.length}: µs per counter change, ${values.batches} batches of ${2 * pairs}`);
  for (const [name, t] of times) {
    t.sort((a, b) => a - b);
    console.log(`  ${name.padEnd(11)} median ${t[t.length >> 1]!.toFixed(2)}   fastest ${t[0]!.toFixed(2)}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
