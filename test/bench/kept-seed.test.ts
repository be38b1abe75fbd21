// The seed kept beside a bench data dir: measure.js and profile.js adopt it, so their randomized requests are the
// ones the data dir was seeded for.
import t from 'tap';
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
