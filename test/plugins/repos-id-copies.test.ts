// The repository index's id-ordered copies of text postings (memory-index.ts `idOrdered`), which sorts by id walk
// instead of marking a big posting's ids on every request: each copy is its posting's ids in ascending order, is kept
// while the posting is unchanged, made again after a change, and the copies held stay within what is allowed (the
// least recently asked dropped first).
import t from 'tap';
import type { RepoRecord } from '../../schemas/services.js';
import { RepoIndex } from '../../plugins/repos/memory-index.js';

const WORDS = ['core', 'web', 'api', 'app', 'kit', 'data', 'serve'];

function record(id: number, name: string): RepoRecord {
  return {
    id, ownerId: 1 + (id % 7), name, lowerName: name, description: '', website: '', private: id % 5 === 0, fork: false,
    forkId: null, mirror: false, empty: true, size: 0, defaultBranch: 'main', numStars: 0, numForks: 0, numWatches: 0,
    createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', mirrorUpdated: null, mirrorError: null,
  };
}

t.test('copies: ascending, kept while unchanged, made again after a change, held within what is allowed', async (t) => {
  const index = new RepoIndex();
  const recs: RepoRecord[] = [];
  // Ids with gaps and a spread across words (ids past 32 so copies span several words of bits).
  for (let i = 0; i < 400; i++) recs.push(record(3 + i * 3, `${WORDS[i % WORDS.length]}-${WORDS[(i * 5) % WORDS.length]}-${i}`));
  index.load(recs);
  const inner = index as any;
  const posting = (gram: string) => inner.pub.name.get(gram);
  const idsOf = (p: { size: number; at(i: number): number }) => Array.from({ length: p.size }, (_, i) => p.at(i)).sort((a, b) => a - b);

  const api = posting('api');
  t.ok(api.size > 50, `the posting of "api" has ${api.size} ids`);
  const copy = inner.idOrdered(api) as Int32Array;
  t.same(Array.from(copy), idsOf(api), 'the copy is the posting\'s ids in ascending order');
  t.equal(index.idCopiesBuilt, 1);
  t.equal(inner.idOrdered(api), copy, 'asked again unchanged: the same copy, read as kept');
  t.equal(index.idCopiesRead, 1);
  t.ok((inner.markBits as Int32Array).every((w) => w === 0), 'the scratch bits are left clear');

  // A new repository named with the word: the posting changes, so does its copy.
  index.upsert(record(5001, 'api-late')); // public (ids divisible by 5 are private)
  const again = inner.idOrdered(api) as Int32Array;
  t.not(again, copy, 'after a change the copy is made again');
  t.equal(index.idCopiesBuilt, 2);
  t.same(Array.from(again), idsOf(api), 'and holds the new id');
  t.equal(again[again.length - 1], 5001);

  // Room for about two copies: asking for several drops the least recently asked.
  index.idCopiesHeldMin = 0;
  const allowed = 2 * index.size;
  // Grams are at most three characters: each word's first two and three (more ids than are allowed, together).
  for (const w of WORDS) for (const g of [w.slice(0, 2), w.slice(1, 3), w.slice(0, 3)]) inner.idOrdered(posting(g));
  t.ok(index.idCopiesDropped > 0, `copies were dropped for room (${index.idCopiesDropped})`);
  t.ok(index.idCopiesHeld <= allowed, `the copies hold ${index.idCopiesHeld} ids, within the ${allowed} allowed`);
  const last = posting(WORDS[WORDS.length - 1]!.slice(0, 3));
  const read = index.idCopiesRead;
  inner.idOrdered(last);
  t.equal(index.idCopiesRead, read + 1, 'the most recently asked copy is still kept');
});
