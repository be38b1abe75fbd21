// Smoke test of the randomized search-index benchmark (bench/search-index.ts) in its quick form: every dataset and
// family runs and reports; the answers it times are checked against a plain filter. It never asserts a timing.
import t from 'tap';
import { DATASETS, runDataset } from '../../bench/search-index.js';

t.test('quick form: every dataset and family reports', async (t) => {
  for (const ds of DATASETS) {
    const res = runDataset(ds, 600, 11, 40);
    t.equal(res.size, 600);
    t.same(res.families.map((f) => f.family), ['search q', 'search q+includeDesc', 'search q+uid', 'search q+mode=source', 'list (no q)', 'search q (first sight)'], ds.name);
    for (const f of res.families) t.ok(f.n > 0 && f.median <= f.p99 && f.p99 <= f.worst, `${ds.name}: ${f.family} summarised`);
  }
});
