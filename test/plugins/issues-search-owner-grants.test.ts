// /repos/issues/search for callers whose grants cover whole owners (their own account, an organization team that
// includes every repository): those owners' private rows are filtered and counted by owner (one index range per
// owner), the other grants by repository. The rows and totals must equal a model of who reads what, for every
// caller, state, kind and owner filter, with issues off in a covered repository and grants that overlap (a
// collaborator on a repository its team already covers).
import t from 'tap';
import { startForge, jsonCaller } from '../helpers/forge.js';

t.test('issue search with whole-owner grants', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const ok = jsonCaller(f, 201);
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const carol = await f.createUser({ username: 'carol' });
  const dave = await f.createUser({ username: 'dave' });
  // acme: bob's team includes every repository; beta: bob's team lists one repository.
  await ok('POST', '/orgs', alice.token, { username: 'acme' });
  await ok('POST', '/orgs', alice.token, { username: 'beta' });
  const all = await ok('POST', '/orgs/acme/teams', alice.token, { name: 'all', permission: 'read', includes_all_repositories: true });
  const one = await ok('POST', '/orgs/beta/teams', alice.token, { name: 'one', permission: 'write', includes_all_repositories: false });
  await ok('PUT', `/teams/${all.id}/members/bob`, alice.token, undefined, 204);
  await ok('PUT', `/teams/${one.id}/members/bob`, alice.token, undefined, 204);
  const repos: Array<{ full: string; owner: string; private: boolean; create: string; token: string; open: number; closed: number }> = [
    { full: 'alice/mine', owner: 'alice', private: true, create: '/user/repos', token: alice.token, open: 2, closed: 1 },
    { full: 'alice/shown', owner: 'alice', private: false, create: '/user/repos', token: alice.token, open: 1, closed: 1 },
    { full: 'bob/own', owner: 'bob', private: true, create: '/user/repos', token: bob.token, open: 1, closed: 0 },
    { full: 'acme/x', owner: 'acme', private: true, create: '/org/acme/repos', token: alice.token, open: 3, closed: 2 },
    { full: 'acme/y', owner: 'acme', private: true, create: '/org/acme/repos', token: alice.token, open: 2, closed: 1 },
    { full: 'acme/z', owner: 'acme', private: false, create: '/org/acme/repos', token: alice.token, open: 1, closed: 0 },
    { full: 'beta/m', owner: 'beta', private: true, create: '/org/beta/repos', token: alice.token, open: 2, closed: 2 },
    { full: 'beta/n', owner: 'beta', private: true, create: '/org/beta/repos', token: alice.token, open: 1, closed: 1 },
  ];
  for (const r of repos) {
    await ok('POST', r.create, r.token, { name: r.full.split('/')[1], private: r.private });
    for (let i = 0; i < r.open + r.closed; i++) {
      const issue = await ok('POST', `/repos/${r.full}/issues`, r.token, { title: `${r.full} ${i}` });
      if (i >= r.open) await ok('PATCH', `/repos/${r.full}/issues/${issue.number}`, r.token, { state: 'closed' }, 201);
    }
  }
  await ok('PUT', `/teams/${one.id}/repos/beta/m`, alice.token, undefined, 204);
  // Overlapping and individual grants: bob on acme/x (covered by his team) and alice/mine; carol on acme/y.
  await ok('PUT', '/repos/acme/x/collaborators/bob', alice.token, { permission: 'read' }, 204);
  await ok('PUT', '/repos/alice/mine/collaborators/bob', alice.token, { permission: 'read' }, 204);
  await ok('PUT', '/repos/acme/y/collaborators/carol', alice.token, { permission: 'read' }, 204);

  const reads: Record<string, string[]> = {
    alice: repos.map((r) => r.full).filter((full) => full !== 'bob/own'),
    bob: ['alice/mine', 'alice/shown', 'bob/own', 'acme/x', 'acme/y', 'acme/z', 'beta/m'],
    carol: ['alice/shown', 'acme/y', 'acme/z'],
    dave: ['alice/shown', 'acme/z'],
  };
  const tokens: Record<string, string> = { alice: alice.token, bob: bob.token, carol: carol.token, dave: dave.token };
  let issuesOff = new Set<string>();
  const expected = (who: string, state: string, type: string | undefined, owner: string | undefined) => {
    const out: Record<string, number> = {};
    for (const r of repos) {
      if (!reads[who]!.includes(r.full) || (owner && r.owner !== owner) || issuesOff.has(r.full)) continue;
      // Every row here is an issue: type=pulls finds none.
      if (type === 'pulls') continue;
      const n = state === 'open' ? r.open : state === 'closed' ? r.closed : r.open + r.closed;
      if (n) out[r.full] = n;
    }
    return out;
  };
  const checkAll = async (label: string) => {
    for (const who of Object.keys(reads)) {
      for (const state of ['open', 'closed', 'all']) {
        for (const type of [undefined, 'issues', 'pulls']) {
          for (const owner of [undefined, 'acme', 'beta', 'alice']) {
            const query = `state=${state}${type ? `&type=${type}` : ''}${owner ? `&owner=${owner}` : ''}`;
            const res = await f.request('GET', `/repos/issues/search?limit=50&${query}`, { token: tokens[who] });
            t.equal(res.status, 200);
            const got: Record<string, number> = {};
            for (const issue of res.json) got[issue.repository.full_name] = (got[issue.repository.full_name] ?? 0) + 1;
            const want = expected(who, state, type, owner);
            const total = Object.values(want).reduce((a, b) => a + b, 0);
            t.same(got, want, `${label}: ${who} ${query}: the rows`);
            t.equal(res.headers.get('x-total-count'), String(total), `${label}: ${who} ${query}: X-Total-Count ${total}`);
          }
        }
      }
    }
  };
  await checkAll('grants');

  // The grants as the search takes them: whole owners by owner, the rest by repository, none listed twice.
  const scope = await f.forge.service('repos').grantedReadableScope({ id: bob.id, login: 'bob', isAdmin: false } as any);
  const acme = (await f.request('GET', '/orgs/acme', { token: alice.token })).json;
  t.same(scope.ownerIds, [bob.id, acme.id].sort((a, b) => a - b), 'bob and acme are whole owners for bob');
  const idOf = async (full: string) => (await f.request('GET', `/repos/${full}`, { token: alice.token })).json.id as number;
  t.same(scope.ids, [await idOf('alice/mine'), await idOf('beta/m')].sort((a, b) => a - b), 'alice/mine and beta/m by repository; acme/x not again');

  // Issues off in a repository a whole-owner grant covers: its rows leave the rows and the totals.
  await ok('PATCH', '/repos/acme/y', alice.token, { has_issues: false }, 200);
  issuesOff = new Set(['acme/y']);
  await checkAll('acme/y issues off');
  await ok('PATCH', '/repos/acme/y', alice.token, { has_issues: true }, 200);
  issuesOff = new Set();

  // A public repository of a whole owner made private: its rows move to the owner's private side (bob still reads
  // them through his team; carol and dave no longer do), and back.
  await ok('PATCH', '/repos/acme/z', alice.token, { private: true }, 200);
  const readsBefore = { ...reads };
  reads.carol = ['alice/shown', 'acme/y'];
  reads.dave = ['alice/shown'];
  await checkAll('acme/z made private');
  await ok('PATCH', '/repos/acme/z', alice.token, { private: false }, 200);
  Object.assign(reads, readsBefore);
  await checkAll('acme/z public again');

  // Leaving the team: acme's private rows go (the collaboration on acme/x stays, now by repository).
  await ok('DELETE', `/teams/${all.id}/members/bob`, alice.token, undefined, 204);
  reads.bob = ['alice/mine', 'alice/shown', 'bob/own', 'acme/x', 'acme/z', 'beta/m'];
  await checkAll('bob left the team');
});
