// GET /repos/search while owners change visibility back and forth: the owners hidden from a caller are the shared
// non-public set (kept by the users service, changed in place of a rebuild per request) less the caller's own account
// and organizations (repo-access.ts `hiddenFrom`). After each change every caller's totals and pages — name order both
// ways, and a sorted order — must be what the rules give (Gitea's HasOrgOrUserVisible): public owners for everyone,
// limited ones for signed-in callers who are not restricted, private ones for themselves and members; collaborators
// reach the one repository; a restricted member reaches its organization's only; site admins everything.
import t from 'tap';
import { startForge } from '../helpers/forge.js';

type Vis = 'public' | 'limited' | 'private';
interface Repo { id: number; name: string; owner: string; private: boolean }

t.test('search totals and pages follow owner visibility changes', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const ok = async (method: string, path: string, token: string, json?: unknown, status = [200, 201, 204]) => {
    const res = await f.request(method, path, { token, json });
    if (!status.includes(res.status)) throw new Error(`setup ${method} ${path}: ${res.status} ${res.text}`);
    return res;
  };
  const boss = await f.createUser({ username: 'hv-boss' });
  const person = await f.createUser({ username: 'hv-user' });
  const plain = await f.createUser({ username: 'hv-pub' });
  const outsider = await f.createUser({ username: 'hv-outsider' });
  const member = await f.createUser({ username: 'hv-member' });
  const collab = await f.createUser({ username: 'hv-collab' });
  const restricted = await f.createUser({ username: 'hv-restricted' });
  await ok('PATCH', '/admin/users/hv-restricted', f.admin.token, { login_name: 'hv-restricted', source_id: 0, restricted: true });
  await ok('POST', '/orgs', boss.token, { username: 'hv-org', visibility: 'public' });
  const team = (await ok('POST', '/orgs/hv-org/teams', boss.token, { name: 'readers', permission: 'read', includes_all_repositories: true })).json;
  for (const u of [member, restricted]) await ok('PUT', `/teams/${team.id}/members/${u.username}`, boss.token);

  const repos: Repo[] = [];
  const make = async (owner: string, token: string, name: string, priv: boolean) => {
    const path = owner === 'hv-org' ? '/orgs/hv-org/repos' : '/user/repos';
    const res = await ok('POST', path, token, { name, private: priv });
    repos.push({ id: res.json.id, name, owner, private: priv });
  };
  // Names interleave the owners so pages of three cross from one owner to the next.
  for (const [i, n] of ['hv-a', 'hv-c', 'hv-e', 'hv-g', 'hv-i'].entries()) await make('hv-org', boss.token, `${n}-org`, i === 2);
  for (const [i, n] of ['hv-b', 'hv-d', 'hv-f', 'hv-h'].entries()) await make('hv-user', person.token, `${n}-user`, i === 1);
  for (const n of ['hv-a', 'hv-f', 'hv-z']) await make('hv-pub', plain.token, `${n}-pub`, false);
  await ok('PUT', '/repos/hv-org/hv-c-org/collaborators/hv-collab', boss.token, { permission: 'read' });
  await ok('PUT', '/repos/hv-user/hv-f-user/collaborators/hv-collab', person.token, { permission: 'read' });
  // Stars give the sorted order something other than ids to go by.
  for (const r of repos.filter((r) => !r.private && r.name.includes('-a') || r.name.startsWith('hv-g'))) await ok('PUT', `/user/starred/${r.owner}/${r.name}`, plain.token);

  const callers = {
    anonymous: { token: undefined as string | undefined, id: 0 },
    outsider: { token: outsider.token, id: outsider.id },
    member: { token: member.token, id: member.id },
    collaborator: { token: collab.token, id: collab.id },
    restricted: { token: restricted.token, id: restricted.id },
    owner: { token: person.token, id: person.id },
    admin: { token: f.admin.token, id: f.admin.id },
  };
  type Who = keyof typeof callers;
  const collaborations = new Set(['hv-c-org', 'hv-f-user']);
  // The rules, independently of the server's: which repositories each caller's search lists.
  const sees = (who: Who, r: Repo, vis: Record<string, Vis>): boolean => {
    if (who === 'admin') return true;
    if (who === 'owner' && r.owner === 'hv-user') return true;
    if ((who === 'member' || who === 'restricted') && r.owner === 'hv-org') return true;
    if (who === 'collaborator' && collaborations.has(r.name)) return true;
    if (r.private || who === 'restricted') return false;
    const v = vis[r.owner] ?? 'public';
    if (v === 'public') return true;
    if (v === 'limited') return who !== 'anonymous';
    return false;
  };
  const byName = (a: Repo, b: Repo) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);
  const stars = new Map<number, number>();
  for (const r of repos) stars.set(r.id, (await f.request('GET', `/repos/${r.owner}/${r.name}`, { token: f.admin.token })).json.stars_count);

  const orders: Array<[string, (a: Repo, b: Repo) => number]> = [
    ['', byName],
    ['&sort=alpha&order=desc', (a, b) => -byName(a, b)],
    ['&sort=stars&order=desc', (a, b) => ((stars.get(b.id) ?? 0) - (stars.get(a.id) ?? 0)) || b.id - a.id],
  ];
  const check = async (vis: Record<string, Vis>) => {
    const label = `org ${vis['hv-org']}, user ${vis['hv-user']}${vis['hv-late'] ? `, hv-late ${vis['hv-late']}` : ''} (${repos.length} repositories)`;
    await t.test(label, async (t) => {
      for (const [who, caller] of Object.entries(callers) as Array<[Who, { token?: string }]>) {
        const got: string[] = [];
        const want: string[] = [];
        for (const q of ['hv', 'hv-', 'user', 'org']) {
          const matching = repos.filter((r) => r.name.includes(q) && sees(who, r, vis));
          for (const [sort, cmp] of orders) {
            const sorted = [...matching].sort(cmp).map((r) => r.id);
            for (const page of [1, 2, 3, 4, 5]) {
              const res = await f.request('GET', `/repos/search?q=${q}${sort}&page=${page}&limit=3`, { token: caller.token });
              got.push(`q=${q}${sort} p${page}: ${res.status} ${res.headers.get('x-total-count')} [${(res.json?.data ?? []).map((r: any) => r.id).join(',')}]`);
              want.push(`q=${q}${sort} p${page}: 200 ${matching.length} [${sorted.slice((page - 1) * 3, page * 3).join(',')}]`);
            }
          }
        }
        t.same(got, want, `${who}: ${want.length} pages and totals as the rules give`);
      }
    });
  };

  // One owner changes at a time (so each change alone must reach the answers), each visibility to each other one.
  const vis: Record<string, Vis> = { 'hv-org': 'public', 'hv-user': 'public' };
  await check(vis);
  const steps: Array<[string, Vis]> = [
    ['hv-org', 'limited'], ['hv-user', 'private'], ['hv-org', 'private'], ['hv-user', 'limited'], ['hv-org', 'public'],
    ['hv-user', 'public'], ['hv-org', 'limited'], ['hv-org', 'private'], ['hv-org', 'public'], ['hv-user', 'private'], ['hv-user', 'public'],
  ];
  for (const [owner, v] of steps) {
    if (owner === 'hv-org') await ok('PATCH', '/orgs/hv-org', boss.token, { visibility: v });
    else await ok('PATCH', '/admin/users/hv-user', f.admin.token, { login_name: 'hv-user', source_id: 0, visibility: v });
    vis[owner] = v;
    await check(vis);
  }
  // A private account that owned nothing gets its first public repository: it must stay out of others' totals.
  const late = await f.createUser({ username: 'hv-late' });
  await ok('PATCH', '/admin/users/hv-late', f.admin.token, { login_name: 'hv-late', source_id: 0, visibility: 'private' });
  vis['hv-late'] = 'private';
  await check(vis);
  await make('hv-late', late.token, 'hv-late-first', false);
  await check(vis);
});
