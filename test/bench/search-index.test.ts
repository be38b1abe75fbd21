// Smoke test of the randomized search-index benchmark (bench/search-index.ts) in its quick form: every dataset and
// family runs and reports; the answers it times are checked against a plain filter. It never asserts a timing.
import t from 'tap';
import { callersOf, DATASETS, records, runDataset } from '../../bench/search-index.js';
import { compare } from '../../bench/search-index-ab.js';
import { RepoIndex } from '../../plugins/repos/memory-index.js';

t.test('quick form: every dataset and family reports', async (t) => {
  for (const ds of DATASETS) {
    const res = runDataset(ds, 600, 11, 40);
    t.equal(res.size, 600);
    t.same(res.families.map((f) => f.family), ['search q', 'search q+includeDesc', 'search q+uid', 'search q+mode=source', 'list (no q)', 'search q (first sight)'], ds.name);
    for (const f of res.families) t.ok(f.n > 0 && f.median <= f.p99 && f.p99 <= f.worst, `${ds.name}: ${f.family} summarised`);
  }
});

t.test('the A/B of two builds times the same answers on both (search-index-ab.ts)', async (t) => {
  const ds = DATASETS.find((d) => d.name === 'many tiny owners')!;
  const recs = records(ds, 2000, 5);
  const base = new RepoIndex();
  base.load(recs);
  const head = new RepoIndex();
  head.load(recs);
  const callers = callersOf(recs, head);
  t.same(callers.map((c) => c.name), ['anonymous', 'owner', 'collaborator', 'admin']);
  const anonymous = callers[0]!.vis;
  t.ok(anonymous.hiddenOwners!.size > 0, 'callers other than the admin have hidden owners');
  const hidden = anonymous.hiddenOwners!;
  const expected = recs.filter((r) => !r.private && !hidden.has(r.ownerId)).length;
  const { base: b, head: h, totals } = compare(base, head, { query: {}, vis: anonymous, n: 30 }, 7);
  t.same(totals, [expected, expected], 'both builds count every public repository of a shown owner');
  t.equal(b.length, 7);
  t.equal(h.length, 7);
  t.ok(b.every((x, i) => i === 0 || b[i - 1]! <= x), 'times sorted');
  // A sorted page (`q:caller:page:limit:sort:desc`): both builds answer through `sorted`, the page a plain sort's.
  const stars = { query: { text: { q: 'a', desc: false } }, vis: anonymous, n: 30, sort: { key: 'stars' as const, desc: true } };
  const matches = recs.filter((r) => !r.private && !hidden.has(r.ownerId) && r.lowerName.includes('a'));
  const bySort = matches.sort((x, y) => y.numStars - x.numStars || y.id - x.id).slice(0, 30).map((r) => r.id);
  const s = compare(base, head, stars, 3);
  t.same(s.totals, [matches.length, matches.length], 'a sorted page: both builds count every match');
  t.ok(s.samePage, 'and give the same page');
  t.same(head.sorted(stars.query, anonymous, 'stars', true, 30).head, bySort, 'the page of a plain sort by stars, then id, descending');
});
