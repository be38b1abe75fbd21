// A repository's issue list with one label is a covered walk of `{repoId, labelIds, [isClosed], id}`: the store
// jumps to the page by rank and counts the total from the range's size, at any page (before, the multikey index was
// read and deduplicated over the label's every issue). Shown with explain() on the filter the service runs, and the
// HTTP pages checked against the issues as stored.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { issuesProbe } from '../helpers/issues-probe.js';

t.test('the issue list with a label walks its range by rank', async (t) => {
  const { held, plugin: probe } = issuesProbe('issues-label-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const repo = (await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'labelled' } })).json;
  const label = async (name: string) => (await f.request('POST', `/repos/${repo.full_name}/labels`, { token: alice.token, json: { name, color: '#00aa00' } })).json.id as number;
  const feature = await label('kind/feature');
  const bug = await label('kind/bug');
  // Written through the store port in the plugin's shape (600 HTTP creates would only be slower).
  const service = held.issues;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const docs = [];
  for (let i = 0; i < 600; i++) {
    const labelIds = i % 3 === 0 ? [feature] : i % 5 === 0 ? [bug, feature] : i % 7 === 0 ? [bug] : [];
    docs.push({
      id: await f.forge.store.nextId('issues'), repoId: repo.id, repoOwnerId: alice.id, repoPrivate: false, number: i + 1, isPull: false,
      posterId: alice.id, title: `issue ${i}`, body: '', ref: '', isClosed: i % 4 === 0, isLocked: false, pinOrder: 0, milestoneId: 0,
      assigneeIds: [], labelIds, mentionIds: [], grams: [], deadline: null, numComments: 0, createdAt: now, updatedAt: now, closedAt: null,
    });
  }
  await service.issues.insertMany(docs);
  const issues = f.forge.store.collection('issues');

  for (const [state, isClosed, index] of [
    ['all', undefined, 'repoId_1_labelIds_1_id_-1'],
    ['open', false, 'repoId_1_labelIds_1_isClosed_1_id_-1'],
    ['closed', true, 'repoId_1_labelIds_1_isClosed_1_id_-1'],
  ] as const) {
    const want = docs.filter((d) => d.labelIds.includes(feature) && (isClosed === undefined || d.isClosed === isClosed)).map((d) => d.number).reverse();
    const limit = 20;
    const lastPage = Math.ceil(want.length / limit);
    const res = await f.request('GET', `/repos/${repo.full_name}/issues?state=${state}&labels=kind%2Ffeature&page=${lastPage}&limit=${limit}`);
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-total-count'), String(want.length), `${state}: the exact total`);
    t.same(res.json.map((i: any) => i.number), want.slice((lastPage - 1) * limit), `${state}: the last page`);
    const filter = service.filterOf({ repoId: repo.id, isClosed, labelGroups: [[feature]] });
    const skip = (lastPage - 1) * limit;
    const plan = await issues.explain(filter, { sort: { id: -1 }, skip, limit });
    t.equal(plan.index, index, `${state}: the label's range of ${index}`);
    t.equal(plan.examined, want.length - skip, `${state}: only the page's ${want.length - skip} rows examined`);
  }
  // Two labels (both required) and a label that is one of two still answer exactly, through the checks.
  const both = await f.request('GET', `/repos/${repo.full_name}/issues?state=all&labels=kind%2Ffeature,kind%2Fbug&limit=50`);
  t.same(both.json.map((i: any) => i.number), docs.filter((d) => d.labelIds.length === 2).map((d) => d.number).reverse().slice(0, 50), 'two labels');
  t.equal(both.headers.get('x-total-count'), String(docs.filter((d) => d.labelIds.length === 2).length));
});
