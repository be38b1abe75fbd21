// Issue search `q` is index-backed, not a scan: the store answers the list's filter through the trigram index and
// examines only issues holding every trigram of the term (the literal check then decides) — shown with explain() on
// the exact filter the service runs, over a repository where the term is rare and its pieces are common.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

t.test('q searches through the trigram index', async (t) => {
  const held: { issues?: any } = {};
  const probe = definePlugin({ name: 'issues-plan-probe', dependencies: ['issues'], start(ctx) { held.issues = ctx.services.get('issues'); } });
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const repo = (await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'busy' } })).json;
  const words = ['frozen cat', 'robust obnoxious', 'nice ate', 'bring the cattle', 'obnoxious frog'];
  for (let i = 0; i < 120; i++) {
    const body = i % 40 === 7 ? `we should frobnicate the widget (${i})` : `${words[i % words.length]} ${i}`;
    const res = await f.request('POST', `/repos/${repo.full_name}/issues`, { token: alice.token, json: { title: `issue ${i}`, body } });
    if (res.status !== 201) throw new Error(res.text);
  }
  const found = await f.request('GET', `/repos/${repo.full_name}/issues?state=all&q=frobnicate&limit=50`);
  t.equal(found.json.length, 3, 'the three issues with the term');
  t.equal(found.headers.get('x-total-count'), '3');
  const filter = held.issues.filterOf({ repoId: repo.id, isPull: false, q: 'frobnicate' }, await held.issues.rarestFirst('frobnicate'));
  const plan = await f.forge.store.collection('issues').explain(filter, { sort: { id: -1 } });
  t.match(plan.index, /grams/, `the trigram index answers it (${plan.index})`);
  t.ok(plan.examined <= 10, `examined ${plan.examined} of 120 issues`);
  t.equal(plan.returned, 3);
});
