// measure.js and profile.js replay every case file's seeders against a store that keeps nothing (the kept data dir
// already holds what they wrote), so a randomized case draws the requests of its seeding. A seeder that reads the
// store (relation rows look up which owners are not public) must get empty answers there, not a crash: every
// seeder of the quick dataset runs through `replayContext` to the end.
import t from 'tap';
import { QUICK_SIZES, planDataset } from '../../bench/dataset.js';
import { loadCases } from '../../bench/load-cases.js';
import { replayContext } from '../../bench/profile.js';
import { fixtureOf } from '../../bench/seed.js';

t.test('every seeder replays against the store that keeps nothing', async (t) => {
  const plan = planDataset(QUICK_SIZES);
  const fx = fixtureOf(plan, '/api/v1', true);
  const loaded = await loadCases(fx);
  t.ok(loaded.seeders.length >= 5, `${loaded.seeders.length} seeders`);
  for (const { from, seed } of loaded.seeders) {
    await t.resolves(seed(replayContext(plan, fx, from, true)), `${from}: replays`);
  }
  const store = replayContext(plan, fx, 'x', true).store;
  const col = store.collection('anything');
  t.same(await col.find({}), [], 'find: nothing');
  t.equal(await col.findOne({}), null, 'findOne: nothing');
  t.equal(await col.count({}), 0, 'count: 0');
});
