// GET /repos/search for callers whose readable private repositories are many under one owner: those owners are
// searched through the index's postings (search.ts `privateScope`, memory-index.ts `privateOwners`) rather than as a
// set of ids. Every page and total must match a model of who reads what — with `uid`, `is_private`, `private=false`,
// both name orders, a priority owner, and after a repository is made public, one deleted and one created.
import t, { type Test } from 'tap';
import { startForge, expectStatus } from '../helpers/forge.js';

interface Made {
  id: number;
  owner: string;
  lowerName: string;
  private: boolean;
}

t.test('private repositories read by owner agree with the model', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const ok = expectStatus;
  const ann = await f.createUser({ username: 'pann' });
  const bob = await f.createUser({ username: 'pbob' });
  await ok(f.request('POST', '/orgs', { token: ann.token, json: { username: 'porg2' } }), 201);
  const made: Made[] = [];
  const mk = async (owner: 'pann' | 'porg2' | 'pbob', name: string, priv: boolean) => {
    const path = owner === 'porg2' ? '/org/porg2/repos' : '/user/repos';
    const token = owner === 'pbob' ? bob.token : ann.token;
    const res = await ok(f.request('POST', path, { token, json: { name, private: priv } }), 201);
    made.push({ id: res.json.id, owner, lowerName: name.toLowerCase(), private: priv });
  };
  const words = ['ab', 'cd', 'abc', 'xab', 'q'];
  // More than 64 private repositories each for pann and porg2 (read by owner), a few public, a few of pbob's.
  for (let i = 0; i < 70; i++) {
    await mk('pann', `${words[i % 5]}-${i}`, i % 10 !== 0);
    await mk('porg2', `${words[(i + 2) % 5]}-o${i}`, i % 9 !== 0);
    if (i % 10 === 0) await mk('pbob', `${words[i % 5]}-b${i}`, i % 20 === 0);
  }
  await ok(f.request('PUT', '/repos/pann/ab-5/collaborators/pbob', { token: ann.token, json: { permission: 'read' } }), 204);
  const callers = { anonymous: undefined, pann: ann.token, pbob: bob.token, admin: f.admin.token } as const;
  type Who = keyof typeof callers;
  const reads = (who: Who, r: Made): boolean => {
    if (!r.private || who === 'admin') return true;
    if (who === 'pann') return r.owner === 'pann' || r.owner === 'porg2';
    if (who === 'pbob') return r.owner === 'pbob' || (r.owner === 'pann' && r.lowerName === 'ab-5');
    return false;
  };
  const ids = new Map<string, number>();
  for (const name of ['pann', 'porg2', 'pbob']) ids.set(name, (await f.request('GET', `/users/${name}`)).json.id);
  const byName = (a: Made, b: Made) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id);

  const check = async (t: Test, label: string) => {
    let compared = 0;
    for (const who of Object.keys(callers) as Who[]) {
      for (const q of ['ab', 'a', 'ab-1', 'zz', '']) {
        for (const extra of ['', 'uid=pann&exclusive=true', 'uid=porg2&exclusive=true', 'is_private=true', 'private=false', 'order=desc&sort=alpha', 'priority_owner_id=porg2']) {
          const model = made.filter((r) => reads(who, r) && r.lowerName.includes(q)
            && (!extra.startsWith('uid=') || r.owner === extra.slice(4, extra.indexOf('&')))
            && (extra !== 'is_private=true' || r.private)
            && (extra !== 'private=false' || !r.private)).sort(byName);
          if (extra.startsWith('order=desc')) model.reverse();
          if (extra.startsWith('priority')) model.sort((a, b) => (a.owner === 'porg2' ? 0 : 1) - (b.owner === 'porg2' ? 0 : 1) || byName(a, b));
          const param = extra.replace(/(uid|priority_owner_id)=(\w+)/, (_, k: string, n: string) => `${k}=${ids.get(n)}`);
          for (const [page, limit] of [[1, 10], [3, 7], [1, 50]] as const) {
            const res = await f.request('GET', `/repos/search?q=${q}&page=${page}&limit=${limit}&${param}`, { token: callers[who] });
            const want = model.slice((page - 1) * limit, page * limit).map((r) => r.id);
            const got = res.json.data.map((r: any) => r.id);
            const total = Number(res.headers.get('x-total-count'));
            compared++;
            if (JSON.stringify(got) !== JSON.stringify(want) || total !== model.length) {
              t.fail(`${label}: ${who} q=${q} ${extra} ${page}/${limit}`, { got, want, total, wantTotal: model.length });
              return;
            }
          }
        }
      }
    }
    t.pass(`${label}: ${compared} pages and totals as the model's`);
  };
  await check(t, 'as created');
  await ok(f.request('PATCH', '/repos/pann/ab-15', { token: ann.token, json: { private: false } }), 200);
  made.find((r) => r.owner === 'pann' && r.lowerName === 'ab-15')!.private = false;
  await ok(f.request('DELETE', '/repos/porg2/abc-o0', { token: ann.token }), 204);
  made.splice(made.findIndex((r) => r.owner === 'porg2' && r.lowerName === 'abc-o0'), 1);
  await mk('porg2', 'ab-late', true);
  await check(t, 'after a visibility change, a delete and a create');

  // The private side's driver is the cheaper to check, not the smaller: the text's posting, each id checked for its
  // owner in a typed array, beats the owner's repositories each read for the text, up to ENTRY_CHECK_COST times its size.
  // pann's private repositories made enough to be searched through its posting (not as a list of ids).
  for (let i = 0; i < 6; i++) await mk('pann', `zz-${i}`, true);
  const index = (f.forge.service('repos') as any).index;
  const plan = index.plan;
  const plans: Array<{ side: string; covers: number; size: number; owners: number }> = [];
  index.plan = function (this: unknown, side: string, query: any) {
    const p = plan.call(this, side, query);
    plans.push({ side, covers: p.driver.covers, size: p.driver.size, owners: query.owners?.length ?? 0 });
    return p;
  };
  t.teardown(() => void (index.plan = plan));
  const res = await ok(f.request('GET', `/repos/search?q=ab&uid=${ids.get('pann')}&exclusive=true&limit=50`, { token: ann.token }), 200);
  const priv = plans.find((p) => p.side === 'priv' && p.owners === 1)!;
  const ownPrivate = made.filter((r) => r.owner === 'pann' && r.private).length;
  const textPrivate = made.filter((r) => r.private && r.lowerName.includes('ab')).length;
  t.ok(textPrivate > ownPrivate && textPrivate < 8 * ownPrivate, `the text's private matches (${textPrivate}) outnumber pann's private repositories (${ownPrivate}), under 8×`);
  t.equal(priv.covers, 1, 'the private side is driven by the text posting (covers TEXT only)');
  const want = made.filter((r) => r.owner === 'pann' && r.lowerName.includes('ab')).sort(byName).map((r) => r.id);
  t.same(res.json.data.map((r: any) => r.id), want.slice(0, 50), 'and the page is the model\'s');
  t.equal(Number(res.headers.get('x-total-count')), want.length, 'as is the total');
});
