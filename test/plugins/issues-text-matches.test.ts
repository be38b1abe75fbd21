// The verified matches of repeated cross-repository `q` searches (plugins/issues/text-matches.ts): kept per query and
// exact through every change of issue texts — a new issue, title and body edits, comments added, edited and deleted,
// deleted issues — and never read while a change is under way.
import t from 'tap';
import { TextMatches } from '../../plugins/issues/text-matches.js';
import { startForge } from '../helpers/forge.js';
import { aliceWithPubAndPriv, issuesProbe } from '../helpers/issues-probe.js';

t.test('TextMatches: kept, dropped by the texts of a change, never read or stored across one', async (t) => {
  const m = new TextMatches();
  const ids = (...xs: number[]) => Int32Array.from(xs);
  m.put('frob', ids(1, 2), m.generation);
  m.put('zanz', ids(3), m.generation);
  t.same(Array.from(m.get('frob')!), [1, 2], 'kept');
  t.equal(m.get('other'), undefined, 'unknown query');

  const before = m.generation;
  m.begin();
  t.equal(m.get('frob'), undefined, 'not read while a change is under way');
  m.put('late', ids(9), before);
  m.end(['Title with FROB in it', 'body']);
  t.equal(m.get('late'), undefined, 'a search that began before the change stored nothing');
  t.equal(m.get('frob'), undefined, 'a query the change texts hold (any case) is dropped');
  t.same(Array.from(m.get('zanz')!), [3], 'one they do not hold is kept');

  const g = m.generation;
  m.put('kept', ids(4), g);
  t.same(Array.from(m.get('kept')!), [4], 'stored when no change happened meanwhile');

  await t.rejects(m.around(async () => {
    throw new Error('write failed');
  }, () => ['kept here']), /write failed/);
  t.equal(m.get('kept'), undefined, 'a change that failed still ends (and drops what its texts hold)');
  m.put('after', ids(5), m.generation);
  t.same(Array.from(m.get('after')!), [5], 'and the cache is read again');

  for (let i = 0; i < 300; i++) m.put(`q${i}`, ids(i), m.generation);
  t.ok(m.size <= 256, `bounded (${m.size} queries)`);
  t.same(Array.from(m.get('q299')!), [299], 'the most recent are kept');
  t.equal(m.get('q0'), undefined, 'the least recently used went first');
});

t.test('repeated q searches stay exact through changes', async (t) => {
  const { held, plugin: probe } = issuesProbe('issues-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const { alice, bob, req } = await aliceWithPubAndPriv(f);
  await req('POST', '/repos/alice/pub/issues', alice.token, { title: 'Gizmotron fails', body: 'plain' }, 201);
  await req('POST', '/repos/alice/pub/issues', alice.token, { title: 'Other', body: 'plain' }, 201);
  await req('POST', '/repos/alice/priv/issues', alice.token, { title: 'Secret gizmotron', body: 'plain' }, 201);

  const search = async (token?: string) => {
    const res = await f.request('GET', '/repos/issues/search?q=gizmotron&state=all', { token });
    if (res.status !== 200) throw new Error(`search: ${res.status} ${res.text}`);
    return { names: (res.json as any[]).map((i) => `${i.repository.name}#${i.number}`).sort(), total: res.headers.get('x-total-count') };
  };
  const hits = () => held.issues.textMatches.hits as number;

  t.same(await search(), { names: ['pub#1'], total: '1' }, 'anonymous: the public match');
  const first = hits();
  t.same(await search(alice.token), { names: ['priv#1', 'pub#1'], total: '2' }, 'the owner: both');
  t.same(await search(bob.token), { names: ['pub#1'], total: '1' }, 'a stranger: the public one only');
  t.ok(hits() >= first + 2, 'the repeated query was answered from its kept matches');

  await req('POST', '/repos/alice/pub/issues', bob.token, { title: 'Another GIZMOTRON report', body: 'x' }, 201);
  t.same(await search(), { names: ['pub#1', 'pub#3'], total: '2' }, 'a new issue that holds the query');

  await req('PATCH', '/repos/alice/pub/issues/1', alice.token, { title: 'Fails' }, 201);
  t.same(await search(), { names: ['pub#3'], total: '1' }, 'a title edited away from the query');

  await req('PATCH', '/repos/alice/pub/issues/2', alice.token, { body: 'see gizmotron docs' }, 201);
  t.same(await search(), { names: ['pub#2', 'pub#3'], total: '2' }, 'a body edited to hold it');

  const c = await req('POST', '/repos/alice/pub/issues/1/comments', bob.token, { body: 'the Gizmotron again' }, 201);
  t.same(await search(), { names: ['pub#1', 'pub#2', 'pub#3'], total: '3' }, 'a comment that holds it');

  await req('PATCH', `/repos/alice/pub/issues/comments/${c.id}`, bob.token, { body: 'never mind' });
  t.same(await search(), { names: ['pub#2', 'pub#3'], total: '2' }, 'the comment edited away');

  await req('PATCH', `/repos/alice/pub/issues/comments/${c.id}`, bob.token, { body: 'gizmotron after all' });
  t.same(await search(), { names: ['pub#1', 'pub#2', 'pub#3'], total: '3' }, 'and back');

  t.equal((await f.request('DELETE', `/repos/alice/pub/issues/comments/${c.id}`, { token: bob.token })).status, 204);
  t.same(await search(), { names: ['pub#2', 'pub#3'], total: '2' }, 'the comment deleted');

  t.equal((await f.request('DELETE', '/repos/alice/pub/issues/3', { token: alice.token })).status, 204);
  t.same(await search(), { names: ['pub#2'], total: '1' }, 'a deleted issue');

  await req('PATCH', '/repos/alice/priv', alice.token, { private: false });
  t.same(await search(bob.token), { names: ['priv#1', 'pub#2'], total: '2' }, 'a repository made public: visibility is the filter\'s, not the cache\'s');

  // The kept matches are a fresh check's, plus ids of deleted issues (never reused, never read back from the store).
  const fresh: number[] = Array.from(await held.issues.verifiedMatches('gizmotron'));
  const kept: number[] = Array.from(held.issues.textMatches.get('gizmotron'));
  t.same(kept.filter((id) => fresh.includes(id)), fresh, 'every fresh match is kept');
  for (const id of kept.filter((id) => !fresh.includes(id))) t.equal(await held.issues.issues.findOne({ id }), null, `kept id ${id} beyond a fresh check: a deleted issue`);
});
