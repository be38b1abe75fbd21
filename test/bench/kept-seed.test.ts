// The seed kept beside a bench data dir: measure.js and profile.js adopt it, so their randomized requests are the
// ones the data dir was seeded for.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { adoptKeptSeed, keepSeed, seedNote } from '../../bench/kept-seed.js';

t.test('kept, adopted, and what is said about it', async (t) => {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'forgekit-kept-seed-'));
  t.teardown(() => rm(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');

  const none: NodeJS.ProcessEnv = {};
  const nothing = adoptKeptSeed(dataDir, none);
  t.same(nothing, { seed: null, from: 'none', kept: null });
  t.match(seedNote(nothing), /draw their requests from the clock/);

  keepSeed(dataDir, 902820366);
  const env: NodeJS.ProcessEnv = {};
  const adopted = adoptKeptSeed(dataDir, env);
  t.same(adopted, { seed: 902820366, from: 'kept', kept: 902820366 });
  t.equal(env.FORGEKIT_BENCH_SEED, '902820366', 'the environment the case files read');
  t.match(seedNote(adopted), /FORGEKIT_BENCH_SEED=902820366 \(kept with the data dir\)/);

  const same = adoptKeptSeed(dataDir, { FORGEKIT_BENCH_SEED: '902820366' });
  t.equal(seedNote(same), null, 'nothing to say when the hand-set seed is the kept one');
  const other: NodeJS.ProcessEnv = { FORGEKIT_BENCH_SEED: '7' };
  const differs = adoptKeptSeed(dataDir, other);
  t.same(differs, { seed: 7, from: 'env', kept: 902820366 }, 'a seed set by hand wins');
  t.equal(other.FORGEKIT_BENCH_SEED, '7');
  t.match(seedNote(differs), /warning: FORGEKIT_BENCH_SEED=7, but the data dir was seeded with 902820366/);
});

t.test('a tool that imports run.js and adopts the kept seed afterwards draws with the kept seed', async (t) => {
  // measure.js and profile.js import run.js (which imports the case files) before they adopt a kept seed: the seed
  // must be read when first used, not when the case module loads (it used to come from the clock there).
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'forgekit-kept-seed-'));
  t.teardown(() => rm(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  keepSeed(dataDir, 1_234_567);
  const bench = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');
  const script = `
    await import(${JSON.stringify(pathToFileURL(path.join(bench, 'run.js')).href)});
    const { adoptKeptSeed } = await import(${JSON.stringify(pathToFileURL(path.join(bench, 'kept-seed.js')).href)});
    adoptKeptSeed(${JSON.stringify(dataDir)});
    const { benchSeed } = await import(${JSON.stringify(pathToFileURL(path.join(bench, 'cases', 'search-random.js')).href)});
    console.log(benchSeed());`;
  const env = { ...process.env };
  delete env.FORGEKIT_BENCH_SEED;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  t.equal(out.trim(), '1234567', 'the randomized cases draw from the kept seed');
});
