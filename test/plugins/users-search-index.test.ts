// GET /users/search on the in-memory account index (plugins/users/search-index.ts): every page and exact total agree
// with a model of the accounts, for every kind of caller — anonymous (public accounts only), a stranger (limited ones
// too), a private account itself, someone it follows and a member of an organization it shares (its visibility
// witnesses), a site admin (everything) — for short queries (one gram posting), long ones (a kept exact posting,
// built once from a trigram) and the empty query (every user), and again after changes the index must follow: a
// visibility change, a new full name, a new account matching a kept long query, a deleted account.
import t, { type Test } from 'tap';
import { startForge, expectStatus, type TestUser } from '../helpers/forge.js';

interface Model {
  id: number;
  login: string;
  fullName: string;
  visibility: 'public' | 'limited' | 'private';
}

t.test('users search agrees with the model', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const ok = expectStatus;
  const model = new Map<number, Model>();
  const adminAccount = (await f.request('GET', '/user', { token: f.admin.token })).json;
  model.set(adminAccount.id, { id: adminAccount.id, login: adminAccount.login, fullName: adminAccount.full_name, visibility: 'public' });
  const edit = async (login: string, body: Record<string, unknown>) => {
    const res = await ok(f.request('PATCH', `/admin/users/${login}`, { token: f.admin.token, json: { login_name: login, source_id: 0, ...body } }), 200);
    const m = [...model.values()].find((x) => x.login === login)!;
    if (body.visibility) m.visibility = body.visibility as Model['visibility'];
    if (typeof body.full_name === 'string') m.fullName = body.full_name;
    return res;
  };
  const users = new Map<string, TestUser>();
  const make = async (login: string, fullName: string, visibility: Model['visibility']) => {
    const u = await f.createUser({ username: login });
    users.set(login, u);
    model.set(u.id, { id: u.id, login, fullName: '', visibility: 'public' });
    if (fullName || visibility !== 'public') await edit(login, { full_name: fullName, visibility });
    return u;
  };
  const firsts = ['Mara', 'Omar', 'Tamara', 'Marek', 'Ada', 'Dana', 'Lin', 'Kim'];
  const vis: Model['visibility'][] = ['public', 'public', 'limited', 'public', 'private', 'public', 'limited', 'private'];
  for (let i = 0; i < 24; i++) {
    const first = firsts[i % firsts.length]!;
    await make(`us${i % 3 === 0 ? 'mar' : 'x'}${String(i).padStart(2, '0')}`, i % 4 === 3 ? '' : `${first} Smith-${i}`, vis[i % vis.length]!);
  }
  // Witnesses: us04 (private) follows us01; us04 and us05 share an organization.
  const hermit = users.get('usx04')!;
  await ok(f.request('PUT', '/user/following/usx01', { token: hermit.token }), 204);
  await ok(f.request('POST', '/orgs', { token: hermit.token, json: { username: 'us-club' } }), 201);
  const owners = (await f.request('GET', '/orgs/us-club/teams', { token: hermit.token })).json[0];
  await ok(f.request('PUT', `/teams/${owners.id}/members/usx05`, { token: hermit.token }), 204);
  const stranger = await make('usx-stranger', '', 'public');

  const callers: Record<string, string | undefined> = {
    anonymous: undefined, stranger: stranger.token, hermit: hermit.token, friend: users.get('usx01')!.token,
    mate: users.get('usx05')!.token, admin: f.admin.token,
  };
  const sees = (who: string, m: Model): boolean => {
    if (m.visibility === 'public' || who === 'admin') return true;
    if (who === 'anonymous') return false;
    if (m.visibility === 'limited') return true;
    if (m.login === 'usx04') return who === 'hermit' || who === 'friend' || who === 'mate';
    const own = users.get(m.login);
    return own !== undefined && callers[who] === own.token;
  };
  const expected = (who: string, q: string) => [...model.values()]
    .filter((m) => sees(who, m) && (q === '' || m.login.toLowerCase().includes(q) || m.fullName.toLowerCase().includes(q)))
    .sort((a, b) => a.id - b.id);

  const check = async (t: Test, label: string) => {
    let checked = 0;
    for (const who of Object.keys(callers)) {
      for (const q of ['', 'mar', 'm', 'MAR', 'smith-1', 'ara', 'usmar0', 'tamara smith', 'zz', 'usx04', 'a']) {
        const all = expected(who, q.toLowerCase());
        for (const [page, limit] of [[1, 10], [2, 10], [3, 4], [1, 50], [9, 50]] as const) {
          const res = await f.request('GET', `/users/search?q=${encodeURIComponent(q)}&page=${page}&limit=${limit}`, { token: callers[who] });
          const want = all.slice((page - 1) * limit, page * limit).map((m) => m.id);
          const got = (res.json.data as any[]).map((u) => u.id);
          const total = Number(res.headers.get('x-total-count'));
          if (res.status !== 200 || JSON.stringify(got) !== JSON.stringify(want) || total !== all.length) {
            t.fail(`${label}: ${who} q=${q} page=${page} limit=${limit}`, { got, want, total, wantTotal: all.length });
            return;
          }
          checked++;
        }
      }
    }
    t.pass(`${label}: ${checked} answers agree (pages and totals, every caller)`);
  };

  await check(t, 'as created');
  t.ok((f.forge.service('users') as any).index.longBuilds > 0, 'long queries went through kept postings');

  // Changes the index must follow (the long queries above are kept postings now).
  await edit('usx01', { visibility: 'private' });
  await edit('usmar03', { visibility: 'public', full_name: 'Tamara Smith-99' });
  await edit('usx02', { full_name: '' });
  await make('usx-late', 'Tamara Smith-1000', 'public');
  await make('usmar-late', 'Nobody', 'limited');
  await ok(f.request('DELETE', '/admin/users/usmar06', { token: f.admin.token }), 204);
  model.delete(users.get('usmar06')!.id);
  await check(t, 'after visibility, name, create and delete changes');

  t.test('non-public accounts (repository access reads them from the index)', async (t) => {
    const svc = f.forge.service('users') as any;
    const rows = await svc.nonPublicAccounts();
    const want = [...model.values()].filter((m) => m.visibility !== 'public').map((m) => m.id).sort((a, b) => a - b);
    t.same(rows.filter((r: any) => r.type === 'user').map((r: any) => r.id).sort((a: number, b: number) => a - b), want, 'every non-public user');
    await ok(f.request('PATCH', '/orgs/us-club', { token: hermit.token, json: { visibility: 'limited' } }), 200);
    const club = (await f.request('GET', '/orgs/us-club', { token: hermit.token })).json;
    t.same(await svc.nonPublicAccounts([club.id, hermit.id, stranger.id]), [
      { id: club.id, type: 'org', visibility: 'limited' }, { id: hermit.id, type: 'user', visibility: 'private' },
    ], 'an organization made limited, by id');
  });
});
