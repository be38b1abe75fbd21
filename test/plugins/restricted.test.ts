// Restricted accounts (Gitea's IsRestricted), through HTTP: a restricted user reads only the repositories it is
// granted (its own, collaborations, its teams' repositories) — a public repository it has no grant on is a 404 and is
// absent from search, lists, X-Total-Count, star/watch lists, forks and issue search; it sees public accounts and the
// organizations it belongs to, and finds only itself in /users/search. An admin's PATCH takes effect at once.
import t from 'tap';
import { startForge, expectStatus } from '../helpers/forge.js';

const names = (res: { json: any }) => (Array.isArray(res.json) ? res.json : res.json.data).map((r: any) => r.full_name ?? r.login);

t.test('restricted users', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const owner = await f.createUser({ username: 'rowner' });
  const rs = await f.createUser({ username: 'rstr' });
  const fan = await f.createUser({ username: 'rfan' });
  const lim = await f.createUser({ username: 'rlimited' });
  const ok = async (p: Promise<{ status: number; text: string; json: any }>, ...status: number[]) => {
    const res = await p;
    if (!status.includes(res.status)) throw new Error(`setup: expected ${status}, got ${res.status} ${res.text}`);
    return res;
  };
  for (const [name, priv] of [['r-pub', false], ['r-priv', true], ['r-collab', false]] as const) {
    await ok(f.request('POST', '/user/repos', { token: owner.token, json: { name, private: priv } }), 201);
  }
  await ok(f.request('POST', '/user/repos', { token: rs.token, json: { name: 's-own' } }), 201);
  await ok(f.request('POST', '/user/repos', { token: lim.token, json: { name: 'l-pub' } }), 201);
  await ok(f.request('PATCH', '/admin/users/rlimited', { token: admin, json: { visibility: 'limited' } }), 200);
  await ok(f.request('PUT', '/repos/rowner/r-collab/collaborators/rstr', { token: owner.token, json: { permission: 'read' } }), 204);
  await ok(f.request('POST', '/orgs', { token: owner.token, json: { username: 'rorg' } }), 201);
  await ok(f.request('POST', '/orgs', { token: owner.token, json: { username: 'rlorg', visibility: 'limited' } }), 201);
  for (const name of ['o-pub', 'o-team']) await ok(f.request('POST', '/org/rorg/repos', { token: owner.token, json: { name } }), 201);
  const team = await ok(f.request('POST', '/orgs/rorg/teams', { token: owner.token, json: { name: 'Readers', permission: 'read' } }), 201);
  await ok(f.request('PUT', `/teams/${team.json.id}/members/rstr`, { token: owner.token }), 204);
  await ok(f.request('PUT', `/teams/${team.json.id}/repos/rorg/o-team`, { token: owner.token }), 204);
  for (const r of ['rowner/r-pub', 'rowner/r-collab', 'rorg/o-pub']) {
    await ok(f.request('PUT', `/user/starred/${r}`, { token: fan.token }), 204);
    await ok(f.request('PUT', `/repos/${r}/subscription`, { token: fan.token }), 200);
    await ok(f.request('POST', `/repos/${r}/issues`, { token: fan.token, json: { title: `bug in ${r}` } }), 201);
  }
  await ok(f.request('POST', '/repos/rowner/r-collab/forks', { token: fan.token }), 202);

  t.equal((await f.request('GET', '/repos/rowner/r-pub', { token: rs.token })).status, 200, 'before: a public repository is readable');
  const patched = await f.request('PATCH', '/admin/users/rstr', { token: admin, json: { restricted: true } });
  t.equal(patched.status, 200);
  t.equal(patched.json.restricted, true);

  t.test('GET /repos/{owner}/{repo}: granted 200, the rest 404 (at once after the PATCH)', async (t) => {
    for (const r of ['rowner/r-pub', 'rowner/r-priv', 'rorg/o-pub', 'rlimited/l-pub', 'rfan/r-collab']) {
      const res = await f.request('GET', `/repos/${r}`, { token: rs.token });
      t.equal(res.status, 404, `${r}: 404`);
      t.match(res.json, { message: "The target couldn't be found." });
    }
    for (const r of ['rowner/r-collab', 'rorg/o-team', 'rstr/s-own']) {
      const res = await f.request('GET', `/repos/${r}`, { token: rs.token });
      t.equal(res.status, 200, `${r}: 200`);
    }
    t.same((await f.request('GET', '/repos/rowner/r-collab', { token: rs.token })).json.permissions, { admin: false, push: false, pull: true });
    t.equal((await f.request('GET', '/repos/rorg/o-pub', { basic: ['rstr', rs.password] })).status, 404, 'password sign-in too');
    t.equal((await f.request('GET', '/repos/rowner/r-pub/issues', { token: rs.token })).status, 404, 'sub-routes too');
    t.equal((await f.request('PUT', '/user/starred/rowner/r-pub', { token: rs.token })).status, 404, 'no star on what it cannot see');
    t.equal((await f.request('GET', '/repos/rowner/r-pub', { token: fan.token })).status, 200, 'others are unaffected');
    const pubId = (await f.request('GET', '/repos/rowner/r-pub', { token: fan.token })).json.id;
    t.equal((await f.request('GET', `/repositories/${pubId}`, { token: rs.token })).status, 404, 'by id too');
  });

  t.test('/repos/search: only granted repositories, exact totals', async (t) => {
    const all = await f.request('GET', '/repos/search?limit=50', { token: rs.token });
    t.same(names(all), ['rorg/o-team', 'rowner/r-collab', 'rstr/s-own']);
    t.equal(all.headers.get('x-total-count'), '3');
    const paged = await f.request('GET', '/repos/search?limit=1&page=2', { token: rs.token });
    t.same(names(paged), ['rowner/r-collab']);
    t.equal(paged.headers.get('x-total-count'), '3');
    const q = await f.request('GET', '/repos/search?q=pub', { token: rs.token });
    t.same(names(q), []);
    t.equal(q.headers.get('x-total-count'), '0');
    const uid = await f.request('GET', `/repos/search?uid=${owner.id}`, { token: rs.token });
    t.same(names(uid), ['rorg/o-team', 'rowner/r-collab'], "uid: the owner's own and collaborative ones the caller reads");
    t.equal(uid.headers.get('x-total-count'), '2');
    const sorted = await f.request('GET', '/repos/search?sort=created&order=desc', { token: rs.token });
    t.same(names(sorted), ['rorg/o-team', 'rstr/s-own', 'rowner/r-collab'], 'other orders too');
    t.equal(sorted.headers.get('x-total-count'), '3');
    const fans = await f.request('GET', '/repos/search?limit=50&q=r-', { token: fan.token });
    t.ok(names(fans).includes('rowner/r-pub'), 'an unrestricted user still finds public repositories');
  });

  t.test('lists: owners, orgs, the caller, stars, watches, forks', async (t) => {
    const byOwner = await f.request('GET', '/users/rowner/repos', { token: rs.token });
    t.same(names(byOwner), ['rowner/r-collab']);
    t.equal(byOwner.headers.get('x-total-count'), '1');
    const byOrg = await f.request('GET', '/orgs/rorg/repos', { token: rs.token });
    t.same(names(byOrg), ['rorg/o-team'], 'org membership alone shows no public repository');
    t.equal(byOrg.headers.get('x-total-count'), '1');
    const mine = await f.request('GET', '/user/repos', { token: rs.token });
    t.same(names(mine), ['rorg/o-team', 'rowner/r-collab', 'rstr/s-own']);
    const stars = await f.request('GET', '/users/rfan/starred', { token: rs.token });
    t.same(names(stars), ['rowner/r-collab']);
    t.equal(stars.headers.get('x-total-count'), '1');
    const watched = await f.request('GET', '/users/rfan/subscriptions', { token: rs.token });
    t.same(names(watched), ['rowner/r-collab']);
    t.equal(watched.headers.get('x-total-count'), '1');
    const forks = await f.request('GET', '/repos/rowner/r-collab/forks', { token: rs.token });
    t.same(names(forks), [], "another user's public fork needs a grant");
    t.equal(forks.headers.get('x-total-count'), '0');
    t.same(names(await f.request('GET', '/repos/rowner/r-collab/forks', { token: owner.token })), ['rfan/r-collab']);
  });

  t.test('issue search: granted repositories only', async (t) => {
    const res = await f.request('GET', '/repos/issues/search?limit=50', { token: rs.token });
    t.equal(res.status, 200);
    t.same(res.json.map((i: any) => i.title), ['bug in rowner/r-collab']);
    t.equal(res.headers.get('x-total-count'), '1');
    const fans = await f.request('GET', '/repos/issues/search?limit=50', { token: fan.token });
    t.equal(fans.headers.get('x-total-count'), '3');
  });

  t.test('accounts: public profiles and own organizations only', async (t) => {
    t.equal((await f.request('GET', '/users/rowner', { token: rs.token })).status, 200, 'a public user');
    t.equal((await f.request('GET', '/users/rlimited', { token: rs.token })).status, 404, 'a limited user');
    t.equal((await f.request('GET', '/users/rlimited', { token: fan.token })).status, 200, 'a limited user, unrestricted viewer');
    t.equal((await f.request('GET', '/orgs/rorg', { token: rs.token })).status, 200);
    t.equal((await f.request('GET', '/orgs/rlorg', { token: rs.token })).status, 404, 'a limited organization it is not in');
    t.equal((await f.request('GET', '/orgs/rlorg', { token: fan.token })).status, 200);
    const orgNames = (res: { json: any }) => res.json.map((o: any) => o.username);
    t.same(orgNames(await f.request('GET', '/orgs', { token: rs.token })), ['rorg'], 'GET /orgs: public ones');
    t.same(orgNames(await f.request('GET', '/orgs', { token: fan.token })), ['rlorg', 'rorg']);
    const search = await f.request('GET', '/users/search?q=r', { token: rs.token });
    t.same(search.json.data.map((u: any) => u.login), ['rstr'], '/users/search finds only itself');
    t.equal(search.headers.get('x-total-count'), '1');
    t.same((await f.request('GET', '/users/search?q=owner', { token: rs.token })).json.data, []);
  });

  t.test('POST /admin/users can create a restricted account', async (t) => {
    const made = await f.request('POST', '/admin/users', {
      token: admin, json: { username: 'rnew', email: 'rnew@example.com', password: 'secret-pass-1', must_change_password: false, restricted: true },
    });
    t.equal(made.status, 201);
    t.equal(made.json.restricted, true);
    const basic = ['rnew', 'secret-pass-1'] as [string, string];
    t.equal((await f.request('GET', '/repos/rowner/r-pub', { basic })).status, 404);
    t.equal((await f.request('GET', '/repos/search', { basic })).headers.get('x-total-count'), '0');
  });

  t.test('lifting the restriction restores public access at once', async (t) => {
    t.equal((await f.request('PATCH', '/admin/users/rstr', { token: admin, json: { restricted: false } })).status, 200);
    t.equal((await f.request('GET', '/repos/rowner/r-pub', { token: rs.token })).status, 200);
    t.equal((await f.request('GET', '/repos/search?limit=50', { token: rs.token })).headers.get('x-total-count'), '7');
  });
});

t.test('a collaborator on a public repository of a hidden owner finds it', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const hpu = await f.createUser({ username: 'hpu' });
  const open = await f.createUser({ username: 'hopen' });
  const hc = await f.createUser({ username: 'hc' });
  const stranger = await f.createUser({ username: 'hstranger' });
  const ok = expectStatus;
  for (const name of ['hid-a', 'hid-b']) await ok(f.request('POST', '/user/repos', { token: hpu.token, json: { name } }), 201);
  await ok(f.request('POST', '/user/repos', { token: open.token, json: { name: 'hid-e' } }), 201);
  await ok(f.request('POST', '/orgs', { token: hpu.token, json: { username: 'hpo', visibility: 'private' } }), 201);
  for (const name of ['hid-c', 'hid-d']) await ok(f.request('POST', '/org/hpo/repos', { token: hpu.token, json: { name } }), 201);
  await ok(f.request('PATCH', '/admin/users/hpu', { token: admin, json: { visibility: 'private' } }), 200);
  await ok(f.request('PUT', '/repos/hpu/hid-a/collaborators/hc', { token: hpu.token, json: { permission: 'read' } }), 204);
  await ok(f.request('PUT', '/repos/hpo/hid-c/collaborators/hc', { token: hpu.token, json: { permission: 'write' } }), 204);
  await ok(f.request('POST', '/repos/hpu/hid-a/issues', { token: hpu.token, json: { title: 'hidden issue' } }), 201);
  await ok(f.request('POST', '/repos/hpu/hid-b/issues', { token: hpu.token, json: { title: 'other hidden issue' } }), 201);

  t.test('search: found, exact X-Total-Count, paged and sorted', async (t) => {
    const res = await f.request('GET', '/repos/search?q=hid&limit=50', { token: hc.token });
    t.same(names(res), ['hpu/hid-a', 'hpo/hid-c', 'hopen/hid-e']);
    t.equal(res.headers.get('x-total-count'), '3');
    const page = await f.request('GET', '/repos/search?q=hid&limit=1&page=2', { token: hc.token });
    t.same(names(page), ['hpo/hid-c']);
    t.equal(page.headers.get('x-total-count'), '3');
    const byId = await f.request('GET', '/repos/search?q=hid&sort=id&order=desc', { token: hc.token });
    t.same(names(byId), ['hpo/hid-c', 'hopen/hid-e', 'hpu/hid-a']);
    t.equal(byId.headers.get('x-total-count'), '3');
    const onlyPublic = await f.request('GET', '/repos/search?q=hid&is_private=false', { token: hc.token });
    t.equal(onlyPublic.headers.get('x-total-count'), '3', 'they are public repositories');
    const none = await f.request('GET', '/repos/search?q=hid&is_private=true', { token: hc.token });
    t.equal(none.headers.get('x-total-count'), '0');
    const other = await f.request('GET', '/repos/search?q=hid&limit=50', { token: stranger.token });
    t.same(names(other), ['hopen/hid-e'], 'no grant: still hidden');
    t.equal(other.headers.get('x-total-count'), '1');
    const anon = await f.request('GET', '/repos/search?q=hid&limit=50');
    t.equal(anon.headers.get('x-total-count'), '1');
  });

  t.test('lists and issue search', async (t) => {
    const mine = await f.request('GET', '/user/repos', { token: hc.token });
    t.same(names(mine), ['hpu/hid-a', 'hpo/hid-c']);
    t.equal(mine.headers.get('x-total-count'), '2');
    t.equal((await f.request('GET', '/repos/hpu/hid-a', { token: hc.token })).status, 200);
    t.equal((await f.request('GET', '/repos/hpu/hid-b', { token: hc.token })).status, 404);
    const issues = await f.request('GET', '/repos/issues/search?limit=50', { token: hc.token });
    t.same(issues.json.map((i: any) => i.title), ['hidden issue']);
    t.equal(issues.headers.get('x-total-count'), '1');
    t.equal((await f.request('GET', '/repos/issues/search', { token: stranger.token })).headers.get('x-total-count'), '0');
  });
});
