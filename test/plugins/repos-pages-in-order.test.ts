// RepoPages.inOrder: records in the order of the ids asked, whatever order the store answers an `$in` in.
import t from 'tap';
import { RepoPages } from '../../plugins/repos/pages.js';
import type { Collection } from '../../core/store/port.js';
import type { RepoRecord } from '../../schemas/services.js';

/** A collection whose `find` answers an `$in` of ids in the order `arrange` gives (as MongoDB may: no order promised). */
function fakeRepos(records: RepoRecord[], arrange: (rows: RepoRecord[]) => RepoRecord[]): Collection<RepoRecord> {
  return {
    find: async (filter: { id: { $in: number[] } }) => arrange(records.filter((r) => filter.id.$in.includes(r.id))),
  } as unknown as Collection<RepoRecord>;
}

const record = (id: number): RepoRecord => ({ id, ownerId: 1, name: `r${id}` }) as unknown as RepoRecord;
const records = [1, 2, 3, 4, 5, 6].map(record);
const pagesOf = (arrange: (rows: RepoRecord[]) => RepoRecord[]) =>
  new RepoPages(fakeRepos(records, arrange), null as never, null as never);

t.test('the order asked, from any order the store answers in', async (t) => {
  const ids = [5, 2, 6, 1];
  const asked = (rows: RepoRecord[]) => ids.map((id) => rows.find((r) => r.id === id)!).filter(Boolean);
  const inOrder = await pagesOf(asked).inOrder(ids);
  t.same(inOrder.map((r) => r.id), ids, 'answered in the order asked: kept');
  const reversed = await pagesOf((rows) => [...rows].reverse()).inOrder(ids);
  t.same(reversed.map((r) => r.id), ids, 'answered in another order: put back in the order asked');
  t.same((await pagesOf((rows) => rows).inOrder([])), [], 'no ids: no records');
});

t.test('ids that no longer exist are skipped', async (t) => {
  const pages = pagesOf((rows) => rows);
  t.same((await pages.inOrder([4, 99, 2])).map((r) => r.id), [4, 2], 'a missing id in the middle');
  t.same((await pages.inOrder([99])).map((r) => r.id), [], 'only missing ids');
});
