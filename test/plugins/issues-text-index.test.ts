// The issues plugin's in-memory trigram index: postings, intersections and batch removals against a brute-force
// model, then the index a server keeps through creates, edits, comments, deletions (concurrent ones too) compared
// with the index a fresh start builds from the same store — they must be equal, pair for pair.
import t from 'tap';
import { startForge, jsonCaller } from '../helpers/forge.js';
import { issuesProbe } from '../helpers/issues-probe.js';
import { buildGramPostings, gramKeys, GramPostings, type GramSource, intersectSorted, IssueTextIndex, keysToIds } from '../../plugins/issues/text-index.js';

/** A small deterministic generator (the model checks must be repeatable). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const WORDS = ['crash', 'boot', 'token', 'cache', 'ssh', 'ünïcode', '日本語', 'api', 'cats', 'frob', 'ate', 'tea'];

t.test('intersectSorted: merge and binary-search paths agree with a set intersection', async (t) => {
  const random = rng(7);
  for (let round = 0; round < 200; round++) {
    const make = (n: number, span: number) => Int32Array.from([...new Set(Array.from({ length: n }, () => Math.floor(random() * span)))].sort((a, b) => a - b));
    const a = make(Math.floor(random() * 40), 500);
    const b = make(Math.floor(random() * (round % 2 ? 40 : 2000)), 3000);
    const want = [...a].filter((x) => b.includes(x));
    t.same([...intersectSorted(a, b)], want, `round ${round}`);
    t.same([...intersectSorted(b, a)], want);
  }
  t.same([...intersectSorted(new Int32Array(0), Int32Array.of(1, 2))], []);
  const evens = Int32Array.from({ length: 5000 }, (_, i) => 2 * i);
  t.same([...intersectSorted(evens, evens)], [...evens], 'a list with itself');
  t.same([...intersectSorted(evens, Int32Array.from({ length: 5000 }, (_, i) => 2 * i + 1))], [], 'interleaved, disjoint');
  t.same([...intersectSorted(Int32Array.of(0, 9998, 20000), evens)], [0, 9998], 'the first, the last, past the end');
  t.same([...intersectSorted(Int32Array.of(-5, 3, 4096, 9999), evens)], [4096], 'before the start, odd ids, one hit');
});

t.test('GramPostings: add, remove, batch removal and bulk load against a model', async (t) => {
  const random = rng(11);
  const postings = new GramPostings();
  const model = new Map<number, Set<number>>();
  const texts = new Map<number, string>();
  const text = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  for (let step = 0; step < 600; step++) {
    const id = 1 + Math.floor(random() * 80);
    const before = texts.get(id);
    if (before !== undefined && random() < 0.3) {
      postings.remove(id, gramKeys(before));
      for (const k of gramKeys(before)) model.get(k)?.delete(id);
      texts.delete(id);
    } else if (before === undefined) {
      const now = text();
      texts.set(id, now);
      postings.add(id, gramKeys(now));
      for (const k of gramKeys(now)) (model.get(k) ?? model.set(k, new Set()).get(k)!).add(id);
    }
  }
  const check = (label: string) => {
    for (const [k, ids] of model) t.same([...postings.holdingAll([k])], [...ids].sort((a, b) => a - b), `${label}: key ${k}`);
  };
  check('after adds and removals');
  t.throws(() => postings.holdingAll([]), RangeError, 'a query needs a trigram');
  // A query's candidates: every one of its trigrams.
  for (const q of ['crash boot', 'ate', 'cats tea', 'ünïc', '日本語']) {
    const keys = [...gramKeys(q)];
    const want = [...texts].filter(([, s]) => keys.every((k) => gramKeys(s).has(k))).map(([id]) => id).sort((a, b) => a - b);
    t.same([...postings.holdingAll(keys)], want, `holdingAll(${q})`);
  }
  // Batch removal of half the documents.
  const gone = [...texts].filter(([id]) => id % 2 === 0);
  postings.removeBatch(keysToIds(gone.map(([id, s]) => ({ id, texts: [s] }))));
  for (const [id, s] of gone) {
    for (const k of gramKeys(s)) model.get(k)?.delete(id);
    texts.delete(id);
  }
  check('after a batch removal');
  // A bulk load in id order builds the same postings.
  const ordered = [...texts.keys()].sort((a, b) => a - b);
  const source = (ids: number[], textOf = (id: number) => [texts.get(id)!]): GramSource => ({ rows: ids.length, id: (k) => ids[k]!, texts: (k) => textOf(ids[k]!) });
  await t.rejects(buildGramPostings(source([...ordered].reverse())), RangeError, 'ids in ascending order only');
  let reads = 0;
  await t.rejects(buildGramPostings(source(ordered, (id) => [reads++ < ordered.length ? texts.get(id)! : `${texts.get(id)!} zebra`])),
    /second pass read other texts/, 'a second pass that reads more is refused, not written past a share');
  reads = 0;
  await t.rejects(buildGramPostings(source(ordered, (id) => [reads++ < ordered.length ? texts.get(id)! : ''])),
    /second pass read other texts/, 'a second pass that reads less is refused, not left with empty places');
  // Rows may repeat an id (an issue's comments): the id is held once per trigram.
  const split = await buildGramPostings({ rows: 4, id: (k) => [1, 1, 2, 2][k]!, texts: (k) => [['cat', 'cats'], ['dog', 'cat'], ['cat'], ['at']][k]! });
  t.same([...split.get([...gramKeys('cat')][0]!)!], [1, 2], 'an id repeated over rows is held once');
  t.same([...split.get([...gramKeys('dog')][0]!)!], [1]);
  const loaded = new GramPostings();
  loaded.add(999, gramKeys('stale entry'));
  await loaded.replaceWith(await buildGramPostings(source(ordered)));
  t.equal(loaded.sizeOf([...gramKeys('sta')][0]!), 0, 'a bulk load replaces what was there');
  for (const [k, ids] of model) if (ids.size) t.same([...loaded.holdingAll([k])], [...ids].sort((a, b) => a - b));
  t.equal(loaded.stats().pairs, [...model.values()].reduce((n, ids) => n + ids.size, 0), 'no pair twice');
});

t.test('the index a server keeps equals the one a start builds', async (t) => {
  const { held, plugin: probe } = issuesProbe('issues-index-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const call = jsonCaller(f);
  const req = (method: string, path: string, json?: unknown, status = 200) => call(method, path, alice.token, json, status);
  await req('POST', '/user/repos', { name: 'one' }, 201);
  await req('POST', '/user/repos', { name: 'two' }, 201);
  const random = rng(3);
  const text = () => Array.from({ length: 1 + Math.floor(random() * 5) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const comments: Array<{ id: number; repo: string }> = [];
  for (let i = 0; i < 12; i++) await req('POST', `/repos/alice/${i % 2 ? 'one' : 'two'}/issues`, { title: text(), body: text() }, 201);
  // Rounds of concurrent changes: edits of the same issue race each other, comments come and go.
  for (let round = 0; round < 6; round++) {
    const ops: Array<Promise<unknown>> = [];
    for (let k = 0; k < 10; k++) {
      const repo = random() < 0.5 ? 'one' : 'two';
      const n = 1 + Math.floor(random() * 6);
      const r = random();
      if (r < 0.3) ops.push(req('PATCH', `/repos/alice/${repo}/issues/${n}`, random() < 0.5 ? { title: text() } : { body: text() }, 201));
      else if (r < 0.6) ops.push(req('POST', `/repos/alice/${repo}/issues/${n}/comments`, { body: text() }, 201).then((c: any) => comments.push({ id: c.id, repo })));
      else if (r < 0.8 && comments.length) {
        const c = comments[Math.floor(random() * comments.length)]!;
        ops.push(req('PATCH', `/repos/alice/${c.repo}/issues/comments/${c.id}`, { body: text() }).catch(() => undefined));
      } else if (comments.length) {
        const [c] = comments.splice(Math.floor(random() * comments.length), 1);
        ops.push(f.request('DELETE', `/repos/alice/${c!.repo}/issues/comments/${c!.id}`, { token: alice.token }));
      }
    }
    await Promise.all(ops);
  }
  const service = held.issues;
  const same = async (label: string) => {
    const fresh = new IssueTextIndex();
    const rebuilt = Object.create(service, { textIndex: { value: fresh } });
    await service.buildTextIndex.call(rebuilt);
    for (const part of ['text', 'comments'] as const) {
      t.same(service.textIndex[part].stats().pairs, fresh[part].stats().pairs, `${label}: ${part} pairs`);
      for (const w of WORDS) {
        const keys = [...gramKeys(w)];
        t.same([...service.textIndex[part].holdingAll(keys)], [...fresh[part].holdingAll(keys)], `${label}: ${part} "${w}"`);
      }
    }
  };
  await same('after concurrent edits');
  // A deleted issue and a deleted repository leave nothing behind.
  t.equal((await f.request('DELETE', '/repos/alice/one/issues/1', { token: alice.token })).status, 204);
  await same('after an issue deletion');
  t.equal((await f.request('DELETE', '/repos/alice/two', { token: alice.token })).status, 204);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await same('after a repository deletion');
  t.ok(service.textIndex.text.stats().pairs > 0, 'the other repository is still indexed');
});
