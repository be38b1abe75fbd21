// Stored versions are frozen all the way down and share one frozen empty array: what a read hands out can never be
// changed in place, empty arrays cost nothing per document, and updates still build new arrays.
import t from 'tap';
import { freezeStored } from '../../core/store/embedded/stored.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

type Issue = {
  n: number;
  labels: number[];
  assignees: number[];
  meta: { tags: string[]; nested: Array<{ ids: number[] }> };
};

function issue(n: number, labels: number[] = []): Issue {
  return { n, labels, assignees: [], meta: { tags: [], nested: [{ ids: [] }, { ids: [n] }] } };
}

t.test('freezeStored freezes every level and shares one empty array', async (t) => {
  const a = freezeStored(issue(1, [3]));
  const b = freezeStored(issue(2));
  for (const v of [a, a.labels, a.meta, a.meta.tags, a.meta.nested, a.meta.nested[0]!, a.meta.nested[1]!.ids]) t.ok(Object.isFrozen(v));
  t.equal(a.assignees, b.assignees, 'top-level empty arrays are one array');
  t.equal(a.meta.tags, b.labels, 'nested ones too');
  t.equal(a.meta.nested[0]!.ids, b.assignees, 'and inside arrays of objects');
  t.not(a.labels, b.labels, 'a non-empty array is its own');
  t.same(JSON.parse(JSON.stringify(a)), issue(1, [3]), 'the same JSON as before');
  t.throws(() => (a.assignees as number[]).push(1), TypeError, 'the shared array cannot grow');
  t.same(b.labels, [], 'and stays empty');
});

t.test('the store: reads, updates and a reload keep the arrays apart', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  let store = await openEmbedded(dir);
  let issues = store.collection<Issue>('issues');
  await issues.insertOne(issue(1));
  await issues.insertOne(issue(2));
  await issues.updateOne({ n: 1 }, { $push: { labels: 7 } });
  await issues.updateOne({ n: 2 }, { $addToSet: { assignees: 9 } });
  t.same((await issues.findOne({ n: 1 }))!.labels, [7], 'a push onto an empty array gives a new array');
  t.same((await issues.findOne({ n: 2 }))!.labels, [], 'the other document keeps its empty one');
  t.same((await issues.findOne({ n: 2 }))!.assignees, [9]);
  await store.close();

  store = await openEmbedded(dir);
  t.teardown(() => store.close());
  issues = store.collection<Issue>('issues');
  const [one, two] = await issues.find({}, { sort: { n: 1 } });
  t.same(one, issue(1, [7]), 'reloaded as written');
  t.same(two, { ...issue(2), assignees: [9] });
  t.equal(one!.assignees, two!.labels, 'empty arrays loaded from the file are shared');
  t.ok(Object.isFrozen(one!.meta.nested[0]!.ids));
  await issues.updateOne({ n: 1 }, { $push: { 'meta.tags': 'x' } });
  t.same((await issues.findOne({ n: 1 }))!.meta.tags, ['x']);
  t.same((await issues.findOne({ n: 2 }))!.meta.tags, [], 'a nested push leaves the shared array alone');
});

t.test('projections: kept for small reads, made and dropped by a read of more than 1,024 documents', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  const rows = store.collection<{ n: number; name: string; extra: string }>('rows');
  await rows.insertMany(Array.from({ length: 1500 }, (_, n) => ({ n, name: `r${n}`, extra: 'x'.repeat(20) })));
  const projection = { n: 1, name: 1 } as const;
  const scan1 = await rows.find({}, { projection, sort: { n: 1 } });
  const scan2 = await rows.find({}, { projection, sort: { n: 1 } });
  t.equal(scan1.length, 1500);
  t.same(scan1[7], { n: 7, name: 'r7' }, 'projected');
  t.not(scan1[7], scan2[7], 'a scan of 1,500 keeps none of its projections');
  const small1 = await rows.find({ n: { $lt: 1000 } }, { projection, sort: { n: 1 } });
  const small2 = await rows.find({ n: { $lt: 1000 } }, { projection, sort: { n: 1 } });
  t.equal(small1[7], small2[7], 'a read of 1,000 keeps them: the same object again');
  const scan3 = await rows.find({}, { projection, sort: { n: 1 } });
  t.equal(scan3[7], small1[7], 'and a large read hands out one already kept');
  t.equal(await rows.findOne({ n: 1200 }, { projection }), await rows.findOne({ n: 1200 }, { projection }), 'one document: kept');
});

t.test('freezeStored: equal long strings of one object, values unchanged', async (t) => {
  const at = '2025-01-01T00:01:00Z';
  const doc = {
    createdAt: at, updatedAt: `${at}`, closedAt: null, title: 'short', body: at + ' and more',
    subject: { url: 'http://127.0.0.1/api/v1/repos/x/y/pulls/1', html: 'http://127.0.0.1/x/y/issues/1', again: 'http://127.0.0.1/x/y/issues/1' },
    many: Array.from({ length: 12 }, (_, i) => `a long string number ${i}`),
  };
  const flat = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, `a long string, field ${i % 10}`]));
  const expected = JSON.parse(JSON.stringify({ doc, flat }));
  const frozen = freezeStored({ doc, flat });
  t.same(frozen, expected, 'every value as it was, past the fields compared too');
  t.ok(Object.isFrozen(frozen.doc.subject));
});
