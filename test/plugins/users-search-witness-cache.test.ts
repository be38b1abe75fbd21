// (Membership changes of private users are made by the site admin: an organization's owner does not see them.)
// A signed-in `/users/search` keeps each viewer's witness verdicts about private users (a shared organization, a
// follow) until a witness reports a change: the same search asks no witness twice, and every membership or follow
// change — joined, left, removed from a team, a team or organization deleted, followed, unfollowed, a failed removal
// of the last owner — shows in the very next search. A probe witness counts how often the witnesses are asked.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { startForge, expectStatus, type TestForge, type TestUser } from '../helpers/forge.js';

const ok = expectStatus;

/**
 * A witness that admits nobody and records each batch it is asked (the viewer's id and the ids); it has nothing to
 * change, so it says it reports its changes unless `reportsChanges` is false (a witness written before the option).
 */
function witnessProbe(reportsChanges = true) {
  const asked: Array<{ viewerId: number; ids: number[] }> = [];
  const plugin = definePlugin({
    name: 'witness-probe',
    dependencies: ['users', 'orgs', 'follow'],
    start(ctx) {
      ctx.services.get('users').addVisibilityWitness(
        async () => false,
        async (ids, viewerId) => {
          asked.push({ viewerId, ids: [...ids] });
          return new Set();
        },
        reportsChanges ? { reportsChanges: true } : undefined);
    },
  });
  return { asked, plugin };
}

async function makePrivate(f: TestForge, user: TestUser): Promise<void> {
  await ok(f.request('PATCH', `/admin/users/${user.username}`, { token: f.admin.token, json: { login_name: user.username, source_id: 0, visibility: 'private' } }), 200);
}

t.test('users search: witness verdicts kept per viewer, void after any membership or follow change', async (t) => {
  const { asked, plugin } = witnessProbe();
  const f = await startForge({ extraPlugins: [plugin] });
  t.teardown(() => f.close());
  const viewer = await f.createUser({ username: 'wc-viewer' });
  const other = await f.createUser({ username: 'wc-other' });
  const mate = await f.createUser({ username: 'wc-pmate' });
  const fan = await f.createUser({ username: 'wc-pfan' });
  const hermit = await f.createUser({ username: 'wc-phermit' });
  for (const u of [mate, fan, hermit]) await makePrivate(f, u);
  await ok(f.request('POST', '/orgs', { token: viewer.token, json: { username: 'wc-club' } }), 201);
  const owners = (await f.request('GET', '/orgs/wc-club/teams', { token: viewer.token })).json[0];
  const devs = await f.request('POST', '/orgs/wc-club/teams', { token: viewer.token, json: { name: 'Devs', permission: 'read' } });
  t.equal(devs.status, 201);

  const found = async (user: TestUser = viewer) => {
    const res = await f.request('GET', '/users/search?q=wc-p', { token: user.token });
    t.equal(res.status, 200);
    const logins = (res.json.data as Array<{ login: string }>).map((u) => u.login).sort();
    t.equal(res.headers.get('x-total-count'), String(logins.length), 'the total counts the same users');
    return logins;
  };
  const askedNow = () => {
    const n = asked.filter((a) => a.viewerId === viewer.id).length;
    asked.length = 0;
    return n;
  };

  askedNow();
  t.same(await found(), [], 'no private user is related to the viewer');
  t.equal(askedNow(), 1, 'the witnesses are asked once');
  t.same(await found(), []);
  t.same(await found(), []);
  t.equal(askedNow(), 0, 'the same search again: verdicts kept, no witness asked');

  await ok(f.request('PUT', `/teams/${devs.json.id}/members/wc-pmate`, { token: f.admin.token }), 204);
  t.same(await found(), ['wc-pmate'], 'joined a team of the viewer\'s organization: found at once');
  t.equal(askedNow(), 1, 'the change voided the kept verdicts');
  t.same(await found(), ['wc-pmate']);
  t.equal(askedNow(), 0);

  await ok(f.request('PUT', '/user/following/wc-viewer', { token: fan.token }), 204);
  t.same(await found(), ['wc-pfan', 'wc-pmate'], 'a private user who follows the viewer: found at once');
  await ok(f.request('DELETE', '/user/following/wc-viewer', { token: fan.token }), 204);
  t.same(await found(), ['wc-pmate'], 'unfollowed: gone at once');

  await ok(f.request('DELETE', `/teams/${devs.json.id}/members/wc-pmate`, { token: f.admin.token }), 204);
  t.same(await found(), [], 'removed from the team: gone at once');
  await ok(f.request('PUT', `/teams/${devs.json.id}/members/wc-pmate`, { token: f.admin.token }), 204);
  t.same(await found(), ['wc-pmate']);
  await ok(f.request('DELETE', '/orgs/wc-club/members/wc-pmate', { token: f.admin.token }), 204);
  t.same(await found(), [], 'removed from the organization: gone at once');
  await ok(f.request('PUT', `/teams/${devs.json.id}/members/wc-pmate`, { token: f.admin.token }), 204);
  t.same(await found(), ['wc-pmate']);
  await ok(f.request('DELETE', `/teams/${devs.json.id}`, { token: viewer.token }), 204);
  t.same(await found(), [], 'the team deleted: gone at once');

  // The hermit's own organization, the viewer a member; the hermit, its last owner, cannot leave (the removal is
  // undone): the verdict stays "seen" through the refusal.
  await ok(f.request('POST', '/orgs', { token: hermit.token, json: { username: 'wc-den' } }), 201);
  const denOwners = (await f.request('GET', '/orgs/wc-den/teams', { token: hermit.token })).json[0];
  t.same(await found(), [], 'an organization of the hermit alone shares nothing');
  await ok(f.request('PUT', `/teams/${denOwners.id}/members/wc-viewer`, { token: hermit.token }), 204);
  t.same(await found(), ['wc-phermit'], 'the viewer joined the hermit\'s organization');
  await ok(f.request('DELETE', '/orgs/wc-den/members/wc-viewer', { token: hermit.token }), 204);
  t.same(await found(), [], 'the viewer left it');
  await ok(f.request('PUT', `/teams/${denOwners.id}/members/wc-viewer`, { token: hermit.token }), 204);
  const refused = await f.request('DELETE', `/teams/${denOwners.id}/members/wc-phermit`, { token: hermit.token });
  t.equal(refused.status, 204, 'the hermit leaves the Owners team while the viewer is an owner too');
  t.same(await found(), [], 'no shared organization left: the hermit is gone');
  const last = await f.request('DELETE', `/teams/${denOwners.id}/members/wc-viewer`, { token: viewer.token });
  t.equal(last.status, 422, 'the last owner cannot leave');
  t.same(await found(), [], 'still nothing shared after the refused removal');
  await ok(f.request('PUT', `/teams/${denOwners.id}/members/wc-phermit`, { token: f.admin.token }), 204);
  t.same(await found(), ['wc-phermit'], 'the hermit back in its organization');
  await ok(f.request('DELETE', '/orgs/wc-den', { token: viewer.token }), 204);
  t.same(await found(), [], 'the organization deleted: gone at once');

  // Verdicts are per viewer: another viewer's search is asked about, and sees none of them.
  askedNow();
  t.same(await found(other), [], 'an unrelated viewer finds none of them');
  t.equal(asked.filter((a) => a.viewerId === other.id).length, 1, 'the other viewer\'s search asked the witnesses');
  t.same(await found(), []);
  t.equal(askedNow(), 0, 'the viewer\'s own verdicts were kept through the other viewer\'s search');
  // A private user's visibility change is the index's, not the witnesses': the hermit made public is found by all.
  await ok(f.request('PATCH', '/admin/users/wc-phermit', { token: f.admin.token, json: { login_name: 'wc-phermit', source_id: 0, visibility: 'public' } }), 200);
  t.same(await found(other), ['wc-phermit']);
  t.same(await found(), ['wc-phermit']);
});

t.test('users search: nothing kept while a witness does not report its changes', async (t) => {
  const { asked, plugin } = witnessProbe(false);
  const f = await startForge({ extraPlugins: [plugin] });
  t.teardown(() => f.close());
  const viewer = await f.createUser({ username: 'wn-viewer' });
  const hermit = await f.createUser({ username: 'wn-phermit' });
  await makePrivate(f, hermit);
  for (let i = 0; i < 3; i++) {
    const res = await f.request('GET', '/users/search?q=wn-p', { token: viewer.token });
    t.same(res.json.data, [], 'the private user stays hidden');
  }
  t.equal(asked.length, 3, 'the witnesses are asked on every search');
});
