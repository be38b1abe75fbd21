// /repos/issues/search deep pages (skip ≥ 2,000; lowered to 150 here): the page's start is found from a pivot id and signed range counts of
// the visible rows above it, not by walking them (IssuesService.pivotedPage). Rows and totals must equal a model of
// who reads what, for callers with different grants (owner, whole-owner team, collaborator, stranger, a private
// user), every state, several page sizes and offsets, with issues off in one repository and a hidden owner's public
// repository; the rows of the repositories are interleaved by id, so no page is one repository's.
import t from 'tap';
import { startForge, jsonCaller } from '../helpers/forge.js';
import { issuesProbe } from '../helpers/issues-probe.js';

t.test('deep issue search pages equal the model', async (t) => {
  const { held, plugin: probe } = issuesProbe<{ pivotFrom: number; pivotedPages: number }>('issues-pivot-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  held.issues!.pivotFrom = 150;
  const ok = jsonCaller(f, 201);
  const users = Object.fromEntries(await Promise.all(['alice', 'bob', 'carol', 'dave', 'hid'].map(async (u) => [u, await f.createUser({ username: u })] as const)));
  const token = (u: string) => users[u]!.token;
  await ok('POST', '/orgs', token('alice'), { username: 'acme' });
  const team = await ok('POST', '/orgs/acme/teams', token('alice'), { name: 'all', permission: 'read', includes_all_repositories: true });
  await ok('PUT', `/teams/${team.id}/members/bob`, token('alice'), undefined, 204);
  const repos = [
    { full: 'alice/pub', private: false, create: '/user/repos', by: 'alice' },
    { full: 'alice/secret', private: true, create: '/user/repos', by: 'alice' },
    { full: 'acme/open', private: false, create: '/org/acme/repos', by: 'alice' },
    { full: 'acme/inner', private: true, create: '/org/acme/repos', by: 'alice' },
    { full: 'hid/pub', private: false, create: '/user/repos', by: 'hid' },
    { full: 'alice/off', private: false, create: '/user/repos', by: 'alice' },
  ];
  for (const r of repos) await ok('POST', r.create, token(r.by), { name: r.full.split('/')[1], private: r.private });
  await ok('PUT', '/repos/alice/secret/collaborators/carol', token('alice'), { permission: 'read' }, 204);
  // 660 issues, the repositories taking turns (ids interleave), every third one closed.
  const issues: Array<{ id: number; repo: string; closed: boolean }> = [];
  for (let i = 0; i < 660; i++) {
    const r = repos[i % repos.length]!;
    const issue = await ok('POST', `/repos/${r.full}/issues`, token(r.by), { title: `issue ${i}` });
    const closed = i % 3 === 0;
    if (closed) await ok('PATCH', `/repos/${r.full}/issues/${issue.number}`, token(r.by), { state: 'closed' });
    issues.push({ id: issue.id, repo: r.full, closed });
  }
  await ok('PATCH', '/repos/alice/off', token('alice'), { has_issues: false }, 200);
  // A private account: its public repository is hidden from everyone else.
  await ok('PATCH', '/admin/users/hid', f.admin.token, { visibility: 'private' }, 200);

  const reads: Record<string, string[]> = {
    alice: ['alice/pub', 'alice/secret', 'acme/open', 'acme/inner'],
    bob: ['alice/pub', 'acme/open', 'acme/inner'],
    carol: ['alice/pub', 'alice/secret', 'acme/open'],
    dave: ['alice/pub', 'acme/open'],
    hid: ['alice/pub', 'acme/open', 'hid/pub'],
  };
  const byIdDesc = [...issues].sort((a, b) => b.id - a.id);
  for (const [who, readable] of Object.entries(reads)) {
    for (const state of ['open', 'closed', 'all'] as const) {
      const want = byIdDesc.filter((i) => readable.includes(i.repo) && (state === 'all' || i.closed === (state === 'closed'))).map((i) => i.id);
      const windows: Array<[number, number]> = [[50, 5], [50, 6], [7, 29], [7, 47], [30, 7], [1, 250], [3, Math.floor(want.length / 3) - 1]];
      for (const [limit, page] of windows) {
        const skip = (page - 1) * limit;
        const pivotedBefore = held.issues!.pivotedPages;
        const res = await f.request('GET', `/repos/issues/search?state=${state}&limit=${limit}&page=${page}`, { token: token(who) });
        t.equal(res.status, 200);
        t.equal(res.headers.get('x-total-count'), String(want.length), `${who} ${state}: total`);
        t.same((res.json as Array<{ id: number }>).map((i) => i.id), want.slice(skip, skip + limit), `${who} ${state} limit ${limit} page ${page} (skip ${skip})`);
        if (skip >= 150 && skip < want.length) t.equal(held.issues!.pivotedPages, pivotedBefore + 1, 'the page was found from a pivot');
      }
    }
  }

  t.test('after changes: a repository made private, a closed issue reopened, an issue deleted, new hidden rows', async (t) => {
    await ok('PATCH', '/repos/acme/open', token('alice'), { private: true }, 200);
    // The hidden owner's public rows (counted once and kept while no issue changes) grow above every pivot.
    for (let i = 0; i < 30; i++) {
      const issue = await ok('POST', '/repos/hid/pub/issues', token('hid'), { title: `late ${i}` });
      issues.push({ id: issue.id, repo: 'hid/pub', closed: false });
    }
    // The newest closed issue of alice/pub is reopened, the newest open one deleted.
    const newest = async (state: string) => ((await f.request('GET', `/repos/alice/pub/issues?state=${state}&limit=1`, { token: token('alice') })).json as Array<{ id: number; number: number }>)[0]!;
    const closed = await newest('closed');
    await ok('PATCH', `/repos/alice/pub/issues/${closed.number}`, token('alice'), { state: 'open' });
    issues.find((i) => i.id === closed.id)!.closed = false;
    const open = await newest('open');
    await ok('DELETE', `/repos/alice/pub/issues/${open.number}`, token('alice'), undefined, 204);
    issues.splice(issues.findIndex((i) => i.id === open.id), 1);
    const after: Record<string, string[]> = { ...reads, bob: ['alice/pub', 'acme/open', 'acme/inner'], carol: ['alice/pub', 'alice/secret'], dave: ['alice/pub'], hid: ['alice/pub', 'hid/pub'] };
    const sorted = [...issues].sort((a, b) => b.id - a.id);
    for (const [who, readable] of Object.entries(after)) {
      for (const state of ['open', 'all'] as const) {
        const want = sorted.filter((i) => readable.includes(i.repo) && (state === 'all' || !i.closed)).map((i) => i.id);
        for (const [limit, page] of [[50, 5], [20, 12]] as Array<[number, number]>) {
          const skip = (page - 1) * limit;
          const res = await f.request('GET', `/repos/issues/search?state=${state}&limit=${limit}&page=${page}`, { token: token(who) });
          t.equal(res.headers.get('x-total-count'), String(want.length), `${who} ${state}: total`);
          t.same((res.json as Array<{ id: number }>).map((i) => i.id), want.slice(skip, skip + limit), `${who} ${state} skip ${skip}`);
        }
      }
    }
  });
});
