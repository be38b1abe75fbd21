// GET /repos/search in orders other than by name: few matches are sorted whole, many are answered by walking a kept
// order of every repository until the page is full (memory-index.ts `sorted`). Both plans must give the same page
// and total for every caller, sort, direction and page — and keep giving it after the changes the kept orders must
// follow: stars and unstars (a counter), an edit (update time), a repository made private, one deleted, one created.
// Each plan is forced in turn through the index's `sortPlan` (the collect plan, the old one, is the reference: for name
// order backwards and `priority_owner_id` it also makes the search collect and sort every match, as it used to).
import t, { type Test } from 'tap';
import { startForge, expectStatus } from '../helpers/forge.js';

t.test('sorted search: the walk agrees with sorting every match', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const ok = expectStatus;
  const ann = await f.createUser({ username: 'sann' });
  const bob = await f.createUser({ username: 'sbob' });
  const names = ['alpha', 'beta', 'gamma', 'delta', 'rho-1', 'rho-2', 'rho-3', 'sigma', 'tau', 'arc', 'bar', 'car'];
  for (const [i, n] of names.entries()) {
    await ok(f.request('POST', '/user/repos', { token: ann.token, json: { name: n, private: i % 4 === 1 } }), 201);
    if (i % 2 === 0) await ok(f.request('POST', '/user/repos', { token: bob.token, json: { name: `${n}-b`, private: i % 6 === 0 } }), 201);
  }
  // Stars: a spread of counts, ties included.
  for (const [i, n] of names.entries()) {
    if (i % 4 === 1) continue;
    if (i % 2 === 0) await ok(f.request('PUT', `/user/starred/sann/${n}`, { token: bob.token }), 204);
    if (i % 3 === 0) await ok(f.request('PUT', `/user/starred/sann/${n}`, { token: ann.token }), 204);
  }
  const index = (f.forge.service('repos') as any).index;
  const callers = { anonymous: undefined, ann: ann.token, bob: bob.token, admin: f.admin.token } as Record<string, string | undefined>;
  const sorts = ['sort=stars&order=desc', 'sort=stars', 'sort=created', 'sort=id&order=desc', 'sort=updated&order=desc', 'sort=size',
    // Name order backwards; a priority owner first in several orders (pages of 5 and 3 cross from its part to the rest).
    'sort=alpha&order=desc', `priority_owner_id=${bob.id}`, `priority_owner_id=${bob.id}&sort=alpha&order=desc`,
    `priority_owner_id=${bob.id}&sort=stars&order=desc`, `priority_owner_id=${ann.id}&sort=created`, `priority_owner_id=${ann.id}&sort=id&order=desc`,
    `priority_owner_id=${bob.id}&sort=updated`];
  const answers = async () => {
    const out: string[] = [];
    for (const [who, token] of Object.entries(callers)) {
      for (const sort of sorts) {
        for (const q of ['', 'a', 'rho', 'zz']) {
          for (const [page, limit] of [[1, 5], [2, 5], [1, 50], [4, 3]] as const) {
            const res = await f.request('GET', `/repos/search?q=${q}&${sort}&page=${page}&limit=${limit}`, { token });
            out.push(`${who} q=${q} ${sort} ${page}/${limit}: ${res.status} ${res.headers.get('x-total-count')} ${res.json.data.map((r: any) => r.id).join(',')}`);
          }
        }
      }
    }
    return out;
  };
  // `textChanged`: the text postings changed since the last comparison, so their copies must be made again.
  const compare = async (t: Test, label: string, textChanged: boolean) => {
    index.sortPlan = 'collect';
    const sorted = await answers();
    index.sortPlan = 'walk';
    const walked = await answers();
    index.sortPlan = 'auto';
    const auto = await answers();
    // Every text posting walked by id through its kept id-ordered copy (at this size none reaches the default).
    const { idCopiesMin, idCopiesBuilt, idCopiesRead } = index;
    index.idCopiesMin = 1;
    const copied = await answers();
    index.idCopiesMin = idCopiesMin;
    const differ = sorted.filter((a, i) => a !== walked[i]);
    t.same(differ, [], `${label}: ${sorted.length} answers, the same from both plans`);
    t.same(auto.filter((a, i) => a !== sorted[i]), [], `${label}: and from the plan chosen by cost`);
    t.same(copied.filter((a, i) => a !== sorted[i]), [], `${label}: and through id-ordered copies of the text postings`);
    if (textChanged) t.ok(index.idCopiesBuilt > idCopiesBuilt, `${label}: id-ordered copies were made (again)`);
    else t.equal(index.idCopiesBuilt, idCopiesBuilt, `${label}: no posting changed, no copy was made again`);
    t.ok(index.idCopiesRead > idCopiesRead, `${label}: copies read as kept while their postings were unchanged`);
    t.ok(sorted.some((a) => /: 200 [1-9]\d* \d/.test(a)), `${label}: answers are not all empty`);
  };
  await compare(t, 'as created', true);

  t.ok(index.orders.size >= 4, 'the walk built kept orders (stars, created, updated, size)');
  t.notOk(index.orders.has('id'), 'the id order needs none: it is walked by id');
  // The collect plan reads each match's key from kept columns by id, the walk from the entries: after the changes
  // below they agree only if the columns followed every one of them.
  t.ok(['stars', 'created', 'updated', 'size'].every((k) => index.columns.has(k)), 'the collects made key columns');
  t.notOk(index.columns.has('id'), 'a sort by id reads the ids themselves');
  // Changes the kept orders must follow (the walk above built them).
  await ok(f.request('PUT', '/user/starred/sann/beta', { token: ann.token }), 204);
  await ok(f.request('PUT', '/user/starred/sann/tau', { token: ann.token }), 204);
  await ok(f.request('DELETE', '/user/starred/sann/alpha', { token: bob.token }), 204);
  await ok(f.request('PATCH', '/repos/sann/gamma', { token: ann.token, json: { description: 'edited later' } }), 200);
  await ok(f.request('PATCH', '/repos/sann/sigma', { token: ann.token, json: { private: true } }), 200);
  await ok(f.request('DELETE', '/repos/sann/car', { token: ann.token }), 204);
  await ok(f.request('POST', '/user/repos', { token: bob.token, json: { name: 'rho-late' } }), 201);
  await ok(f.request('PUT', '/user/starred/sbob/rho-late', { token: ann.token }), 204);
  await compare(t, 'after stars, an edit, a privacy change, a delete and a create', true);
  // Creation time follows the ids above (made one after another): those orders are walked by id.
  t.equal(index.orders.get('created').followsIds, true, 'the creation order is the ids\' order');
  t.equal(index.orders.get('stars').followsIds, false, 'the stars order is not');
  // A repository whose creation time comes before the others' (an import keeping its date): the creation order
  // leaves the ids' order, its walk goes through the kept order again, and both plans still agree.
  const repos = f.forge.store.collection('repos');
  const late = await repos.findOne({ name: 'rho-late' });
  await repos.updateOne({ id: late!.id }, { $set: { createdAt: '2001-02-03T04:05:06Z' } });
  index.upsert(await repos.findOne({ id: late!.id }));
  t.equal(index.orders.get('created').followsIds, false, 'the creation order no longer follows the ids');
  const first = await f.request('GET', '/repos/search?q=rho&sort=created&limit=1');
  t.equal(first.json.data[0]?.name, 'rho-late', 'the repository created first by its date comes first');
  await compare(t, 'with a creation order apart from the ids', false);
  // Its date put back after the others': the order follows the ids again.
  await repos.updateOne({ id: late!.id }, { $set: { createdAt: new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z') } });
  index.upsert(await repos.findOne({ id: late!.id }));
  t.equal(index.orders.get('created').followsIds, true, 'a later date at the highest id: the order follows the ids again');
  await compare(t, 'with the creation order back in the ids\' order', false);
});
