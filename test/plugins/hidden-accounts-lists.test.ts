// Follower and member lists leave out the accounts their caller may not see, by the same rule as a profile read
// (`GET /users/{name}`: 200 or 404). The model here is that read itself, asked of every account as every kind of caller:
// anonymous, a stranger, an organization co-member of a private user, the private user itself, a restricted user
// and a site admin. The lists decide it in bulk (UsersService.hiddenIds and hiddenAmong: no promise per account),
// which must agree.
import t from 'tap';
import { startForge, expectStatus, type TestForge, type TestUser } from '../helpers/forge.js';
import type { Follows } from '../../plugins/follow/service.js';

const logins = (res: { json: any }) => (res.json as Array<{ login: string }>).map((u) => u.login).sort();

const ok = expectStatus;

t.test('lists hide exactly the accounts a profile read hides', async (t) => {
  const f: TestForge = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const star = await f.createUser({ username: 'hl-star' });
  const made: Record<string, TestUser> = {};
  for (const name of ['hl-pub', 'hl-lim', 'hl-priv', 'hl-priv2', 'hl-mate', 'hl-stranger', 'hl-rv']) made[name] = await f.createUser({ username: name });
  // A public organization where hl-mate and hl-priv2 are members (co-members see each other), with public memberships.
  await ok(f.request('POST', '/orgs', { token: made['hl-mate']!.token, json: { username: 'hl-org' } }), 201);
  const teams = await f.request('GET', '/orgs/hl-org/teams', { token: made['hl-mate']!.token });
  const ownersTeam = (teams.json as Array<{ id: number; name: string }>).find((x) => x.name === 'Owners')!;
  for (const name of ['hl-priv2', 'hl-lim', 'hl-pub']) await ok(f.request('PUT', `/teams/${ownersTeam.id}/members/${name}`, { token: made['hl-mate']!.token }), 204);
  for (const name of ['hl-mate', 'hl-priv2', 'hl-lim', 'hl-pub']) await ok(f.request('PUT', `/orgs/hl-org/public_members/${name}`, { token: made['hl-mate']!.token }), 204);
  // Visibility last: an owner cannot add an account it may not see to a team.
  await ok(f.request('PATCH', '/admin/users/hl-lim', { token: admin, json: { visibility: 'limited' } }), 200);
  await ok(f.request('PATCH', '/admin/users/hl-priv', { token: admin, json: { visibility: 'private' } }), 200);
  await ok(f.request('PATCH', '/admin/users/hl-priv2', { token: admin, json: { visibility: 'private' } }), 200);
  await ok(f.request('PATCH', '/admin/users/hl-rv', { token: admin, json: { restricted: true } }), 200);
  // Everyone follows hl-star.
  const followers = ['hl-pub', 'hl-lim', 'hl-priv', 'hl-priv2', 'hl-mate', 'hl-rv'];
  for (const name of followers) await ok(f.request('PUT', '/user/following/hl-star', { token: made[name]!.token }), 204);

  const viewers: Array<[string, string | undefined]> = [
    ['anonymous', undefined], ['stranger', made['hl-stranger']!.token], ['co-member', made['hl-mate']!.token],
    ['private user', made['hl-priv']!.token], ['restricted', made['hl-rv']!.token], ['admin', admin],
  ];
  const seen: Record<string, number> = {};
  // Follow lists take one of two ways (plugins/follow/service.ts, visiblePage): short ones are read whole and the
  // hidden accounts found among them, long ones leave every hidden account out in the store query. Both, every viewer.
  const follows = f.forge.service('follow') as Follows;
  const wholeListMax = follows.wholeListMax;
  t.teardown(() => { follows.wholeListMax = wholeListMax; });
  for (const way of ['read whole', 'hidden in the query'] as const) {
  follows.wholeListMax = way === 'read whole' ? wholeListMax : 0;
  for (const [who, token] of viewers) {
    const sees = async (name: string) => (await f.request('GET', `/users/${name}`, { token })).status === 200;
    const visibleFollowers: string[] = [];
    for (const name of followers) if (await sees(name)) visibleFollowers.push(name);
    visibleFollowers.sort();
    seen[who] = visibleFollowers.length;
    const list = await f.request('GET', `/users/${star.username}/followers`, { token });
    t.equal(list.status, 200, `${who}: followers`);
    t.same(logins(list), visibleFollowers, `${who}: the followers it may see`);
    t.equal(list.headers.get('x-total-count'), String(visibleFollowers.length), `${who}: the total counts only those`);
    // Non-members of hl-org see its public members, less the accounts hidden from them; members see all.
    const visibleMembers: string[] = [];
    for (const name of ['hl-mate', 'hl-priv2', 'hl-lim', 'hl-pub']) if (await sees(name)) visibleMembers.push(name);
    const members = await f.request('GET', '/orgs/hl-org/members', { token });
    t.equal(members.status, 200, `${who}: members`);
    t.same(logins(members), visibleMembers.sort(), `${who}: the members it may see`);
    // The reverse direction: hl-priv's following list, empty or not, is for whoever sees hl-priv at all.
    const following = await f.request('GET', '/users/hl-mate/following', { token });
    t.same(logins(following), (await sees('hl-star')) ? ['hl-star'] : [], `${who}: following (${way})`);
    // Pages of two: together the whole list in its order (newest first), each with the visible total.
    const ordered = ((await f.request('GET', `/users/${star.username}/followers`, { token })).json as Array<{ login: string }>).map((u) => u.login);
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await f.request('GET', `/users/${star.username}/followers?limit=2&page=${page}`, { token });
      t.equal(res.headers.get('x-total-count'), String(visibleFollowers.length), `${who}: page ${page}'s total (${way})`);
      paged.push(...(res.json as Array<{ login: string }>).map((u) => u.login));
    }
    t.same(paged, ordered, `${who}: pages of two make the list (${way})`);
    t.same([...ordered].sort(), visibleFollowers, `${who}: the followers it may see (${way})`);
  }
  }
  // The model itself tells the callers apart (the checks above would pass vacuously if everyone saw everyone).
  t.equal(seen.anonymous, 3, 'anonymous sees the public followers (hl-pub, hl-mate, hl-rv)');
  t.equal(seen.stranger, 4, 'a stranger also sees the limited one');
  t.equal(seen['co-member'], 5, 'a co-member also sees its private co-member');
  t.equal(seen['private user'], 5, 'a private user also sees itself');
  t.equal(seen.restricted, 3, 'a restricted user sees public users only');
  t.equal(seen.admin, 6, 'an admin sees everyone');

  t.test('a visibility change shows in the next list (the kept anonymous answer follows the index)', async (t) => {
    await ok(f.request('PATCH', '/admin/users/hl-pub', { token: admin, json: { visibility: 'private' } }), 200);
    t.same(logins(await f.request('GET', `/users/${star.username}/followers`)), ['hl-mate', 'hl-rv'], 'hl-pub is hidden now');
    await ok(f.request('PATCH', '/admin/users/hl-priv', { token: admin, json: { visibility: 'public' } }), 200);
    t.same(logins(await f.request('GET', `/users/${star.username}/followers`)), ['hl-mate', 'hl-priv', 'hl-rv'], 'hl-priv shows now');
    await ok(f.request('PATCH', '/admin/users/hl-pub', { token: admin, json: { visibility: 'public' } }), 200);
    t.same(logins(await f.request('GET', `/users/${star.username}/followers`)), ['hl-mate', 'hl-priv', 'hl-pub', 'hl-rv'], 'both show');
  });
});
