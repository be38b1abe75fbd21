// A/B of the embedded store's index builds at load (core/store/embedded/indexes.ts `OrderedIndex.build`): the
// documents of one collection file (a kept data dir's, say `store/issues.db`) are parsed once, then every index the
// file declares is built by both builds from a fresh column cache per round (as a load shares one among its
// indexes), alternating which build goes first. Prints per index the fastest build of each, in ms.
//
//   node dist/bench/index-build-ab.js --base /tmp/base/dist --file <data dir>/store/issues.db [--rounds 6]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface Build {
  ix: typeof import('../core/store/embedded/indexes.js');
  stored: typeof import('../core/store/embedded/stored.js');
}

async function buildOf(dist: string): Promise<Build> {
  const at = (file: string) => pathToFileURL(path.join(path.resolve(dist), 'core/store/embedded', file)).href;
  return { ix: await import(at('indexes.js')), stored: await import(at('stored.js')) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { base: { type: 'string' }, file: { type: 'string' }, rounds: { type: 'string', default: '6' } } });
  if (!values.base || !values.file) {
    console.error('usage: node dist/bench/index-build-ab.js --base <other build\'s dist> --file <collection file> [--rounds N]');
    process.exit(2);
  }
  const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const builds: Array<[string, Build]> = [['base', await buildOf(values.base)], ['this build', await buildOf(here)]];
  const lines = readFileSync(values.file, 'utf8').split('\n').filter(Boolean);
  const defs = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((o) => o.$$indexCreated !== undefined)
    .map((o) => o.$$indexCreated as { fieldName: string; unique?: boolean; sparse?: boolean; fields?: Record<string, number> })
    .filter((d) => d.fieldName !== '_id');
  // Each build keeps `_id` under its own symbol: every document carries both, then is frozen as a load leaves it.
  const docs = lines
    .filter((l) => !l.startsWith('{"$$'))
    .map((l) => {
      const doc = JSON.parse(l) as Record<string, unknown>;
      const id = doc._id as string;
      delete doc._id;
      for (const [, b] of builds) b.stored.withId(doc, id);
      return builds[0]![1].stored.freezeStored(doc);
    })
    .sort((a, b) => (builds[0]![1].stored.idOf(a) < builds[0]![1].stored.idOf(b) ? -1 : 1));
  const best = new Map<string, number[]>();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const slot of round % 2 ? [0, 1] : [1, 0]) {
      const b = builds[slot]![1];
      const columns = new b.ix.ColumnCache(docs);
      let total = 0;
      for (const d of defs) {
        const fields = d.fields ? Object.keys(d.fields) : d.fieldName.split(',');
        const def = { fields, dirs: fields.map((f) => (d.fields?.[f] === -1 ? -1 : 1)) as Array<1 | -1>, unique: d.unique === true, sparse: d.sparse === true };
        const start = performance.now();
        b.ix.OrderedIndex.build(def, docs, 'ab', columns);
        const ms = performance.now() - start;
        total += ms;
        const row = best.get(d.fieldName) ?? [Infinity, Infinity];
        row[slot] = Math.min(row[slot]!, ms);
        best.set(d.fieldName, row);
      }
      const row = best.get('(all)') ?? [Infinity, Infinity];
      row[slot] = Math.min(row[slot]!, total);
      best.set('(all)', row);
    }
  }
  console.log(`${path.basename(values.file)}: ${docs.length} documents, ${defs.length} indexes, fastest of ${values.rounds} rounds (ms)`);
  console.log(`  ${'index'.padEnd(44)} ${'base'.padStart(8)} ${'this build'.padStart(11)}`);
  for (const [name, [b, h]] of best) console.log(`  ${name.padEnd(44)} ${b!.toFixed(1).padStart(8)} ${h!.toFixed(1).padStart(11)}`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
