// Updates on the embedded store copy only what they write: the new version shares every untouched subtree with the
// old one (both frozen), the old version a reader holds never changes, and every operator that writes into a nested
// object or a stored array (the shared empty one included) works on a copy. What is stored survives a reopen.
import t from 'tap';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

interface Doc {
  [key: string]: unknown;
  id: number;
  name: string;
  meta: { tags: string[]; nested: { n: number; keep: { deep: boolean } } };
  list: Array<{ k: number }>;
  empty: string[];
  other: { untouched: number[] };
}

const seed = (id: number): Doc => ({
  id,
  name: `doc-${id}`,
  meta: { tags: ['a', 'b'], nested: { n: 1, keep: { deep: true } } },
  list: [{ k: 1 }, { k: 2 }],
  empty: [],
  other: { untouched: [1, 2, 3] },
});

t.test('an update copies the paths it writes and shares the rest', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  let store = await openEmbedded(dir);
  let docs = store.collection<Doc>('docs');
  await docs.insertMany([seed(1), seed(2)]);

  const before = (await docs.findOne({ id: 1 }))!;
  const snapshot = JSON.stringify(before);

  await docs.updateOne({ id: 1 }, { $inc: { 'meta.nested.n': 5 }, $push: { empty: 'x', 'meta.tags': 'c' }, $set: { 'list.1.k': 20 } });
  const after = (await docs.findOne({ id: 1 }))!;
  t.equal(JSON.stringify(before), snapshot, 'the old version a reader holds is unchanged');
  t.not(after, before);
  t.same(after, {
    ...seed(1),
    meta: { tags: ['a', 'b', 'c'], nested: { n: 6, keep: { deep: true } } },
    list: [{ k: 1 }, { k: 20 }],
    empty: ['x'],
  });
  t.equal(after.other, before.other, 'an untouched subtree is the same object');
  t.equal(after.meta.nested.keep, before.meta.nested.keep, 'an untouched object beside a written one too');
  t.equal(after.list[0], before.list[0], 'an untouched array element too');
  t.not(after.meta, before.meta, 'a container on a written path is a copy');
  t.not(after.list, before.list);
  t.ok(Object.isFrozen(after) && Object.isFrozen(after.meta) && Object.isFrozen(after.meta.tags) && Object.isFrozen(after.list[1]), 'the new version is frozen throughout');
  t.same((await docs.findOne({ id: 2 }))!.empty, [], 'another document\'s empty array is still empty (it is the shared one)');

  await docs.updateOne({ id: 1 }, { $unset: { 'meta.nested.keep': '' }, $pull: { 'meta.tags': 'a' } });
  const third = (await docs.findOne({ id: 1 }))!;
  t.same(third.meta, { tags: ['b', 'c'], nested: { n: 6 } });
  t.same(after.meta, { tags: ['a', 'b', 'c'], nested: { n: 6, keep: { deep: true } } }, 'the previous version keeps what was unset and pulled');

  // A no-op: the same stored version, nothing written.
  const unchanged = await docs.updateOne({ id: 1 }, { $set: { name: 'doc-1' }, $pull: { 'meta.tags': 'zzz' } });
  t.same(unchanged, { matched: 1, modified: 0, upserted: false });
  t.equal(await docs.findOne({ id: 1 }), third);

  // Several documents, one value from the update: each gets it, and the stored ones stay frozen and independent.
  await docs.updateMany({}, { $set: { 'other.added': { v: 1 } }, $addToSet: { 'meta.tags': 'z' } });
  const [one, two] = await docs.find({}, { sort: { id: 1 } });
  t.same(one!.other, { untouched: [1, 2, 3], added: { v: 1 } });
  t.same(two!.other, { untouched: [1, 2, 3], added: { v: 1 } });
  t.same(two!.meta.tags, ['a', 'b', 'z']);
  t.equal(two!.other.untouched, (await docs.findOne({ id: 2 }))!.other.untouched);

  // What was stored is what a reopened store reads.
  const stored = JSON.stringify(await docs.find({}, { sort: { id: 1 } }));
  await store.close();
  store = await openEmbedded(dir);
  docs = store.collection<Doc>('docs');
  t.equal(JSON.stringify(await docs.find({}, { sort: { id: 1 } })), stored, 'reopened: the same documents');
  await store.close();
});
