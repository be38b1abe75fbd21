// KeptOrder (plugins/lib/postings.ts): a kept sort order that knows whether it is also the ids' ascending order.
// Random inserts, removals, appends and bulk removals under an order that sometimes agrees with the ids and
// sometimes not: after each step `followsIds` must equal a recount of the list.
import t from 'tap';
import { KeptOrder } from '../../plugins/lib/postings.js';
import { prng } from '../../bench/dataset.js';

t.test('followsIds is kept exactly through inserts, removals, appends and bulk removals', async (t) => {
  let checks = 0;
  let agreeing = 0;
  let apart = 0;
  const mismatches: string[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const r = prng(seed);
    // A sort key per id: the id itself for most, an out-of-order key for a few (how often depends on the seed).
    const oddShare = (seed % 4) * 0.05;
    const key = new Map<number, number>();
    const keyOf = (id: number): number => {
      let k = key.get(id);
      if (k === undefined) key.set(id, (k = r() < oddShare ? Math.floor(r() * 200) : id));
      return k;
    };
    const order = new KeptOrder((a, b) => keyOf(a) - keyOf(b) || a - b);
    const present = new Set<number>();
    // Start from a bulk load in order, as the index does.
    const loaded = Array.from({ length: 20 }, (_, i) => i + 1).sort((a, b) => keyOf(a) - keyOf(b) || a - b);
    for (const id of loaded) {
      order.push(id);
      present.add(id);
    }
    for (let step = 0; step < 300; step++) {
      const x = r();
      if (x < 0.5) {
        const id = 1 + Math.floor(r() * 200);
        order.insert(id);
        present.add(id);
      } else if (x < 0.9) {
        const id = 1 + Math.floor(r() * 200);
        order.remove(id);
        present.delete(id);
      } else {
        const view = [...order.view()];
        const gone = view.filter(() => r() < 0.2);
        order.removeSorted(gone);
        for (const id of gone) present.delete(id);
      }
      const ids = [...order.view()];
      const follows = ids.every((id, i) => i === 0 || ids[i - 1]! < id);
      checks++;
      if (follows) agreeing++;
      else apart++;
      if (order.followsIds !== follows && mismatches.length < 5) mismatches.push(`seed ${seed} step ${step}: followsIds ${order.followsIds}, list ${ids.join(',')}`);
      if (ids.length !== present.size && mismatches.length < 5) mismatches.push(`seed ${seed} step ${step}: ${ids.length} ids, ${present.size} expected`);
    }
  }
  t.same(mismatches, [], `${checks} steps: followsIds equals a recount each time`);
  t.ok(agreeing > 1000 && apart > 1000, `both answers seen (${agreeing} following, ${apart} apart)`);
});
