// The seed of a kept data dir: the randomized cases (search-random, users-search-random, list-random, mixed) draw
// their requests from FORGEKIT_BENCH_SEED, or from the clock when it is unset. A kept data dir holds the accounts of
// its seed's draw (limited and private users, the mixed stream's writers), and a later `measure.js` or `profile.js`
// without the variable drew other requests — an A/B between two such runs compared different requests. `run.js`
// writes the seed beside the data dir; the tools adopt it before they load the case files.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'seed.txt';

/** Records `seed` beside `dataDir` (in its parent: the store owns the data dir itself). */
export function keepSeed(dataDir: string, seed: number): void {
  writeFileSync(path.join(path.dirname(dataDir), FILE), `${seed}\n`);
}

/** What a tool prints about the seed in effect (null: nothing worth saying). */
export function seedNote(seed: ReturnType<typeof adoptKeptSeed>): string | null {
  if (seed.from === 'kept') return `FORGEKIT_BENCH_SEED=${seed.seed} (kept with the data dir): the randomized cases draw the requests of its seeding`;
  if (seed.from === 'env' && seed.kept !== null && seed.kept !== seed.seed) return `warning: FORGEKIT_BENCH_SEED=${seed.seed}, but the data dir was seeded with ${seed.kept}: randomized cases may ask for accounts it does not hold`;
  if (seed.from === 'none') return 'warning: no seed kept with the data dir and FORGEKIT_BENCH_SEED unset: the randomized cases draw their requests from the clock (runs differ)';
  return null;
}

/**
 * Sets FORGEKIT_BENCH_SEED to the seed kept beside `dataDir` when it is unset; returns the seed in effect and where
 * it came from. A seed set by hand that differs from the kept one is kept, with a warning from the caller.
 */
export function adoptKeptSeed(dataDir: string, env: NodeJS.ProcessEnv = process.env): { seed: number | null; from: 'env' | 'kept' | 'none'; kept: number | null } {
  const file = path.join(path.dirname(dataDir), FILE);
  const kept = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || null : null;
  const set = Number(env.FORGEKIT_BENCH_SEED ?? 0) || null;
  if (set !== null) return { seed: set, from: 'env', kept };
  if (kept === null) return { seed: null, from: 'none', kept };
  env.FORGEKIT_BENCH_SEED = String(kept);
  return { seed: kept, from: 'kept', kept };
}
