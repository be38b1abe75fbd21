// Posting.changes (plugins/lib/postings.ts): what readers key kept answers on (the repository index keeps each big
// posting's marked ids counted per excluded-owner set until it changes). Every change of the ids counts, in a plain
// posting, a tagged one and a kept order; a no-op insert or removal and a trim do not.
import t from 'tap';
import { KeptOrder, Posting, TaggedPosting } from '../../plugins/lib/postings.js';

const byId = (a: number, b: number) => a - b;

t.test('each change of the ids counts, a no-op does not', async (t) => {
  const kinds: Array<[string, Posting]> = [
    ['plain', new Posting(byId)],
    ['tagged', new TaggedPosting(byId, { tags: 4, tagOf: (id) => id % 4 })],
    ['kept order', new KeptOrder(byId)],
  ];
  for (const [kind, p] of kinds) {
    const seen: number[] = [p.changes];
    const step = (what: string, changed: boolean, act: () => void) => {
      act();
      const before = seen[seen.length - 1]!;
      t.equal(p.changes > before, changed, `${kind}: ${what} ${changed ? 'counts' : 'does not count'}`);
      seen.push(p.changes);
    };
    step('push', true, () => p.push(1));
    step('push', true, () => p.push(5));
    step('insert', true, () => p.insert(3));
    step('insert of an id present', false, () => p.insert(3));
    step('remove', true, () => p.remove(1));
    step('remove of an id absent', false, () => p.remove(1));
    step('bulk removal', true, () => p.removeSorted([3, 9]));
    step('bulk removal of ids absent', false, () => p.removeSorted([2, 9]));
    step('trim', false, () => p.trim());
    t.same([...p.view()], [5], `${kind}: the ids are what the steps left`);
  }
});
