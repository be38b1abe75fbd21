// GET /repos/search gives the same answer whichever way it is planned: names read in order until the page is full
// (a common short term), a gram posting checked and sorted (a rare one), or every name of a small owner (`uid`).
// Each answer is checked against a model of who reads what, for every caller, page and total — shared names (ties
// by id), private repositories of an owner, an all-repositories team and a collaboration included — and again
// after a privacy change, a membership change and a collaboration change (no answer is ever kept between requests).
import t, { type Test } from 'tap';
import { startForge, expectStatus } from '../helpers/forge.js';

interface Made {
  id: number;
  owner: string;
  lowerName: string;
  private: boolean;
}

t.test('every plan agrees with the model', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const ann = await f.createUser({ username: 'ann' });
  const mia = await f.createUser({ username: 'mia' });
  const col = await f.createUser({ username: 'col' });
  const ok = expectStatus;
  await ok(f.request('POST', '/orgs', { token: ann.token, json: { username: 'porg' } }), 201);
  const team = await ok(f.request('POST', '/orgs/porg/teams', { token: ann.token, json: { name: 'all', permission: 'read', includes_all_repositories: true } }), 201);
  await ok(f.request('PUT', `/teams/${team.json.id}/members/mia`, { token: ann.token }), 204);

  const made: Made[] = [];
  const mk = async (owner: 'ann' | 'porg' | 'col', name: string, priv: boolean) => {
    const path = owner === 'porg' ? '/org/porg/repos' : '/user/repos';
    const token = owner === 'col' ? col.token : ann.token;
    const res = await ok(f.request('POST', path, { token, json: { name, private: priv } }), 201);
    made.push({ id: res.json.id, owner, lowerName: name.toLowerCase(), private: priv });
  };
  // Many names share "ab" (a common short term), several are the same name under three owners (ties by id).
  const words = ['ab', 'Abc', 'xab', 'ab-ab', 'cab', 'dab', 'zab', 'b', 'q', 'xyz', 'tab', 'slab', 'ABBA', 'grab', 'kebab'];
  for (const [i, w] of words.entries()) {
    await mk('porg', w, i % 3 === 0);
    await mk('ann', w, i % 4 === 1);
    if (i % 2 === 0) await mk('col', w, i % 5 === 0);
  }
  for (let i = 0; i < 12; i++) await mk('col', `ab-${String(i).padStart(2, '0')}`, i % 6 === 0);
  await ok(f.request('PUT', '/repos/ann/abc/collaborators/col', { token: ann.token, json: { permission: 'read' } }), 204);

  const ids = new Map<string, number>();
  for (const name of ['ann', 'porg', 'col']) ids.set(name, (await f.request('GET', `/users/${name}`)).json.id);
  const callers = { anonymous: undefined, ann: ann.token, mia: mia.token, col: col.token, admin: f.admin.token } as const;
  type Who = keyof typeof callers;
  const collaborations = new Set(['col ann/abc']);
  const members = new Set(['mia']);
  const reads = (who: Who, r: Made): boolean => {
    if (!r.private || who === 'admin') return true;
    if (who === 'anonymous') return false;
    if (r.owner === who || (r.owner === 'porg' && (who === 'ann' || members.has(who)))) return true;
    return collaborations.has(`${who} ${r.owner}/${r.lowerName}`);
  };
  // Gitea's `uid`: repositories the user owns or reaches (ann owns porg; col collaborates on ann/abc).
  const reaches = (uid: string, r: Made): boolean => r.owner === uid || (uid === 'ann' && r.owner === 'porg')
    || collaborations.has(`${uid} ${r.owner}/${r.lowerName}`);
  const expected = (who: Who, q: string, uid?: string) => made
    .filter((r) => reads(who, r) && r.lowerName.includes(q.toLowerCase()) && (uid === undefined || reaches(uid, r)))
    .sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));

  const check = async (t: Test, label: string) => {
    for (const who of Object.keys(callers) as Who[]) {
      for (const q of ['ab', 'a', 'b', 'AB', 'bab', 'ab-0', 'zz', '']) {
        for (const uid of [undefined, 'ann', 'porg', 'col']) {
          const all = expected(who, q, uid);
          for (const [page, limit] of [[1, 10], [2, 10], [3, 4], [1, 50]] as const) {
            const query = `q=${encodeURIComponent(q)}&page=${page}&limit=${limit}${uid ? `&uid=${ids.get(uid)}` : ''}`;
            const res = await f.request('GET', `/repos/search?${query}`, { token: callers[who] });
            const want = all.slice((page - 1) * limit, page * limit).map((r) => r.id);
            const got = res.json.data.map((r: any) => r.id);
            const total = Number(res.headers.get('x-total-count'));
            if (JSON.stringify(got) !== JSON.stringify(want) || total !== all.length) {
              t.fail(`${label}: ${who} ${query}`, { got, want, total, wantTotal: all.length });
              return;
            }
          }
        }
      }
    }
    t.pass(`${label}: every caller, query, owner and page as the model says`);
  };

  await check(t, 'as created');

  t.test('lists read a later page at its offset, names shared across its edges included', async (t) => {
    const byName = (a: Made, b: Made) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id);
    // ann's own and porg's repositories share names: pages of /user/repos cut through runs of equal names.
    const mine = made.filter((r) => r.owner === 'ann' || r.owner === 'porg').sort(byName);
    for (const limit of [1, 2, 3, 4, 7]) {
      for (let page = 1; (page - 1) * limit <= mine.length; page++) {
        const res = await f.request('GET', `/user/repos?page=${page}&limit=${limit}`, { token: ann.token });
        t.same(res.json.map((r: any) => r.id), mine.slice((page - 1) * limit, page * limit).map((r) => r.id), `/user/repos page ${page} limit ${limit}`);
        t.equal(res.headers.get('x-total-count'), String(mine.length));
      }
    }
    for (const [who, token] of [['anonymous', undefined], ['mia', mia.token]] as const) {
      const seen = made.filter((r) => r.owner === 'porg' && (who === 'mia' || !r.private)).sort(byName);
      for (let page = 1; page <= 4; page++) {
        const res = await f.request('GET', `/users/porg/repos?page=${page}&limit=4`, { token });
        t.same(res.json.map((r: any) => r.id), seen.slice((page - 1) * 4, page * 4).map((r) => r.id), `${who}: /users/porg/repos page ${page}`);
      }
    }
  });

  // Privacy changes: a public repository of ann becomes private, a private org repository public.
  const flip = async (owner: string, name: string, priv: boolean) => {
    await ok(f.request('PATCH', `/repos/${owner}/${name}`, { token: ann.token, json: { private: priv } }), 200);
    for (const r of made) if (r.owner === owner && r.lowerName === name.toLowerCase()) r.private = priv;
  };
  await flip('ann', 'dab', true);
  await flip('porg', 'ab', false);
  await check(t, 'after privacy changes');

  // Membership and collaboration changes are seen by the next request.
  await ok(f.request('DELETE', `/teams/${team.json.id}/members/mia`, { token: ann.token }), 204);
  members.delete('mia');
  await ok(f.request('DELETE', '/repos/ann/abc/collaborators/col', { token: ann.token }), 204);
  collaborations.delete('col ann/abc');
  await ok(f.request('PUT', '/repos/ann/dab/collaborators/col', { token: ann.token, json: { permission: 'read' } }), 204);
  collaborations.add('col ann/dab');
  await check(t, 'after membership and collaboration changes');
});
