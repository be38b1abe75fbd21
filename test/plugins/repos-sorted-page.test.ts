// RepoPages.sortedPage against a model, over a real embedded store with the repos plugin's indexes: names shared by
// several owners (ties broken by id, whatever the store's order), one owner, its public part, several owners at once,
// extras merged in or not, pages at any offset (read at the offset, or from the head when a name crosses an edge).
// The page and its total must be the model's: every match and extra in (lowerName, id) order.
import t from 'tap';
import { RepoPages } from '../../plugins/repos/pages.js';
import { REPO_INDEXES } from '../../plugins/repos/service.js';
import type { Filter } from '../../core/store/port.js';
import type { RepoRecord } from '../../schemas/services.js';
import type { Light } from '../../plugins/repos/listing.js';
import { prng } from '../../bench/dataset.js';
import { openEmbedded, removeDir, tempDir } from '../store/helpers.js';

const SEED = 20261206;
const NAMES = Array.from({ length: 24 }, (_, i) => `n${String.fromCharCode(97 + (i % 8))}${Math.floor(i / 8)}`);

interface Row {
  id: number;
  ownerId: number;
  lowerName: string;
  private: boolean;
}

const byNameThenId = (a: Light, b: Light) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id);

t.test('sorted pages agree with the model', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  // The plugin's own indexes: the plans the lists really get.
  await store.ensureCollection({ name: 'repos', indexes: REPO_INDEXES });
  const r = prng(SEED);
  // Ids in random order against names: a store order by name alone leaves ties in id disorder.
  const ids = Array.from({ length: 6 * NAMES.length }, (_, i) => i + 1).sort(() => r() - 0.5);
  const rows: Row[] = [];
  for (let owner = 1; owner <= 6; owner++) {
    for (const name of NAMES) if (r() < 0.7) rows.push({ id: ids.pop()!, ownerId: owner, lowerName: name, private: r() < 0.3 });
  }
  const repos = store.collection<RepoRecord>('repos');
  await repos.insertMany(rows.map((row) => ({ ...row }) as unknown as RepoRecord));
  const pages = new RepoPages(repos, null as never, null as never);

  let failures = 0;
  let fromOffset = 0;
  for (let k = 0; k < 400 && failures < 5; k++) {
    const owners = [1 + Math.floor(r() * 4), 1 + Math.floor(r() * 4), 1 + Math.floor(r() * 4)];
    const kind = Math.floor(r() * 3);
    const filter: Filter = kind === 0 ? { ownerId: owners[0] } : kind === 1 ? { ownerId: owners[0], private: false } : { ownerId: { $in: owners } };
    const matches = rows.filter((row) => (kind === 2 ? owners.includes(row.ownerId) : row.ownerId === owners[0] && (kind === 0 || !row.private)));
    // Extras: repositories of owners 5 and 6 (never in the filter), as the light projections the lists pass.
    const extras: Light[] = r() < 0.5 ? [] : rows.filter((row) => row.ownerId >= 5 && r() < 0.3).map((row) => ({ id: row.id, lowerName: row.lowerName }));
    const all = [...matches, ...extras].sort(byNameThenId);
    const skip = r() < 0.2 ? 0 : Math.floor(r() * (all.length + 4));
    const limit = 1 + Math.floor(r() * 15);
    if (extras.length === 0 && skip > 0) fromOffset++;
    const got = await pages.sortedPage(filter, extras, { skip, limit });
    const want = all.slice(skip, skip + limit).map((row) => row.id);
    if (JSON.stringify(got.repos.map((row) => row.id)) !== JSON.stringify(want) || got.total !== all.length) {
      failures++;
      t.same([got.repos.map((row) => row.id), got.total], [want, all.length], `case ${k} (seed ${SEED}): ${JSON.stringify(filter)} extras ${extras.length} skip ${skip} limit ${limit}`);
    }
  }
  t.equal(failures, 0, '400 random pages agree with the model, totals included');
  t.ok(fromOffset > 50, `many were read at their offset (${fromOffset})`);
});
