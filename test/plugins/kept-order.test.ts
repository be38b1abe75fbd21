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

t.test('settle moves a re-keyed id to its place, shifting only what lies between, and keeps followsIds', async (t) => {
  let checks = 0;
  let moved = 0;
  let stayed = 0;
  let shiftedMost = 0;
  const mismatches: string[] = [];
  for (let seed = 1; seed <= 30; seed++) {
    const r = prng(1000 + seed);
    const key = new Map<number, number>();
    const order = new KeptOrder((a, b) => key.get(a)! - key.get(b)! || a - b);
    const ids = Array.from({ length: 60 }, (_, i) => i + 1);
    // Keys that follow the ids for some seeds (a counter at zero), scattered for others.
    for (const id of ids) key.set(id, seed % 3 === 0 ? 0 : Math.floor(r() * 40));
    for (const id of [...ids].sort((a, b) => key.get(a)! - key.get(b)! || a - b)) order.push(id);
    for (let step = 0; step < 200; step++) {
      const id = ids[Math.floor(r() * ids.length)]!;
      const at = order.indexOf(id);
      const before = [...order.view()];
      // A counter's step most of the time, a jump sometimes, no change now and then.
      const x = r();
      key.set(id, key.get(id)! + (x < 0.4 ? 1 : x < 0.7 ? -1 : x < 0.9 ? Math.floor(r() * 80) - 40 : 0));
      const changes = order.changes;
      const to = order.settle(at);
      const after = [...order.view()];
      const expected = [...ids].sort((a, b) => key.get(a)! - key.get(b)! || a - b);
      checks++;
      if (to === at) stayed++;
      else moved++;
      const lo = Math.min(at, to);
      const hi = Math.max(at, to);
      // Outside [lo, hi] nothing changed; the id is at `to`.
      const outside = after.every((v, i) => (i >= lo && i <= hi) || v === before[i]);
      shiftedMost = Math.max(shiftedMost, hi - lo);
      const follows = after.every((v, i) => i === 0 || after[i - 1]! < v);
      if (after.join() !== expected.join() && mismatches.length < 5) mismatches.push(`seed ${seed} step ${step}: ${after.join()} ≠ ${expected.join()}`);
      if ((after[to] !== id || !outside) && mismatches.length < 5) mismatches.push(`seed ${seed} step ${step}: moved ${at} → ${to}, outside changed`);
      if (order.followsIds !== follows && mismatches.length < 5) mismatches.push(`seed ${seed} step ${step}: followsIds ${order.followsIds}, list ${after.join()}`);
      if ((order.changes !== changes) !== (to !== at) && mismatches.length < 5) mismatches.push(`seed ${seed} step ${step}: changes counted wrongly`);
    }
  }
  t.same(mismatches, [], `${checks} re-keyings: the order equals a full sort, only the span between moved`);
  t.ok(moved > 1000 && stayed > 500, `both seen (${moved} moved, ${stayed} stayed)`);
  t.ok(shiftedMost > 0 && shiftedMost < 60, `spans moved up to ${shiftedMost}`);
});

t.test('indexOf finds present ids and says -1 for absent ones', async (t) => {
  const order = new KeptOrder((a, b) => a - b);
  for (const id of [2, 4, 6]) order.push(id);
  t.same([2, 4, 6, 3, 7].map((id) => order.indexOf(id)), [0, 1, 2, -1, -1]);
});
