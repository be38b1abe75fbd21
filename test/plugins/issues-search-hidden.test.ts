// /repos/issues/search counts of public repositories whose owner is hidden (a private or limited account): the
// service subtracts those owners' public rows from all public rows (two index counts) instead of excluding them row
// by row; issues of repositories with issues off are subtracted the same way. The totals must stay exact for every
// caller, with and without filters, and agree with the listed rows.
import t from 'tap';
import { startForge, jsonCaller } from '../helpers/forge.js';

t.test('issue search totals with hidden owners', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const hidden = await f.createUser({ username: 'shy' });
  const open = await f.createUser({ username: 'loud' });
  const collaborator = await f.createUser({ username: 'helper' });
  const stranger = await f.createUser({ username: 'passerby' });
  const ok = jsonCaller(f, 201);
  await ok('POST', '/user/repos', hidden.token, { name: 'a' });
  await ok('POST', '/user/repos', hidden.token, { name: 'b' });
  await ok('POST', '/user/repos', open.token, { name: 'c' });
  await ok('POST', '/orgs', open.token, { username: 'quiet', visibility: 'limited' });
  await ok('POST', '/org/quiet/repos', open.token, { name: 'd' });
  for (const [path, token, n] of [['shy/a', hidden.token, 3], ['shy/b', hidden.token, 2], ['loud/c', open.token, 4], ['quiet/d', open.token, 1]] as const) {
    for (let i = 0; i < n; i++) await ok('POST', `/repos/${path}/issues`, token, { title: `${path} ${i}` });
  }
  await ok('PATCH', '/repos/loud/c/issues/1', open.token, { state: 'closed' });
  await ok('PATCH', '/admin/users/shy', admin, { visibility: 'private' }, 200);
  await ok('PUT', '/repos/shy/a/collaborators/helper', hidden.token, { permission: 'read' }, 204);

  const check = async (who: string, token: string | undefined, query: string, expected: string[]) => {
    const res = await f.request('GET', `/repos/issues/search?limit=50&${query}`, { token });
    t.equal(res.status, 200);
    const got = res.json.map((i: any) => i.repository.full_name as string);
    const counts = (list: string[]) => Object.fromEntries([...new Set(list)].sort().map((r) => [r, list.filter((x) => x === r).length]));
    t.same(counts(got), counts(expected), `${who} ${query}: the rows`);
    t.equal(res.headers.get('x-total-count'), String(expected.length), `${who} ${query}: X-Total-Count ${expected.length}`);
  };
  const rep = (name: string, n: number) => Array.from({ length: n }, () => name);
  await check('anonymous', undefined, 'state=open', rep('loud/c', 3));
  await check('anonymous', undefined, 'state=all', rep('loud/c', 4));
  await check('a stranger', stranger.token, 'state=open', [...rep('loud/c', 3), ...rep('quiet/d', 1)]);
  await check('the collaborator', collaborator.token, 'state=open', [...rep('loud/c', 3), ...rep('quiet/d', 1), ...rep('shy/a', 3)]);
  await check('the collaborator', collaborator.token, 'state=closed', rep('loud/c', 1));
  await check('the collaborator', collaborator.token, 'state=open&owner=loud', rep('loud/c', 3));
  await check('the hidden owner', hidden.token, 'state=open', [...rep('loud/c', 3), ...rep('quiet/d', 1), ...rep('shy/a', 3), ...rep('shy/b', 2)]);
  await check('a site admin', admin, 'state=all', [...rep('loud/c', 4), ...rep('quiet/d', 1), ...rep('shy/a', 3), ...rep('shy/b', 2)]);
  await check('the collaborator', collaborator.token, 'state=open&q=shy', rep('shy/a', 3));
  await check('a stranger', stranger.token, 'state=open&owner=quiet', rep('quiet/d', 1));

  // Repositories with issues turned off leave the search (their rows are subtracted from the counts, too).
  await ok('PATCH', '/repos/quiet/d', open.token, { has_issues: false }, 200);
  await ok('PATCH', '/repos/shy/a', hidden.token, { has_issues: false }, 200);
  await check('anonymous, issues off', undefined, 'state=all', rep('loud/c', 4));
  await check('a stranger, issues off', stranger.token, 'state=open', rep('loud/c', 3));
  await check('the collaborator, issues off', collaborator.token, 'state=open', rep('loud/c', 3));
  await check('the hidden owner, issues off', hidden.token, 'state=open', [...rep('loud/c', 3), ...rep('shy/b', 2)]);
  await check('a site admin, issues off', admin, 'state=all', [...rep('loud/c', 4), ...rep('shy/b', 2)]);
  await check('a site admin, issues off', admin, 'state=all&type=issues', [...rep('loud/c', 4), ...rep('shy/b', 2)]);
  await check('a site admin, issues off', admin, 'state=all&owner=quiet', []);
  await ok('PATCH', '/repos/quiet/d', open.token, { has_issues: true }, 200);
  await check('a stranger, issues back on', stranger.token, 'state=open', [...rep('loud/c', 3), ...rep('quiet/d', 1)]);
});

// The hidden owners' public rows are counted once and kept while no issue changes (KeptCounts): every write that
// moves such a row (a new issue, a state change, a deletion, the repository made private or deleted, the owner made
// public) must show in the next search's total, asked again and again between the writes.
t.test('totals stay exact across writes between repeated searches', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const admin = f.admin.token;
  const shy = await f.createUser({ username: 'shy2' });
  const quiet = await f.createUser({ username: 'quiet2' });
  const loud = await f.createUser({ username: 'loud2' });
  const reader = await f.createUser({ username: 'reader2' });
  const ok = jsonCaller(f, 201);
  await ok('POST', '/user/repos', shy.token, { name: 'a' });
  await ok('POST', '/user/repos', quiet.token, { name: 'q' });
  await ok('POST', '/user/repos', loud.token, { name: 'c' });
  for (let i = 0; i < 3; i++) await ok('POST', '/repos/shy2/a/issues', shy.token, { title: `shy ${i}` });
  for (let i = 0; i < 2; i++) await ok('POST', '/repos/quiet2/q/issues', quiet.token, { title: `quiet ${i}` });
  for (let i = 0; i < 4; i++) await ok('POST', '/repos/loud2/c/issues', loud.token, { title: `loud ${i}` });
  // Two hidden owners (the kept count is of both): shy2 private, quiet2 limited.
  await ok('PATCH', '/admin/users/shy2', admin, { visibility: 'private' }, 200);
  await ok('PATCH', '/admin/users/quiet2', admin, { visibility: 'limited' }, 200);

  const total = async (token: string | undefined, state: string) => {
    // Twice: the second answer is the kept one.
    const first = await f.request('GET', `/repos/issues/search?state=${state}&limit=50`, { token });
    const again = await f.request('GET', `/repos/issues/search?state=${state}&limit=50`, { token });
    t.equal(again.headers.get('x-total-count'), first.headers.get('x-total-count'), 'asked again: the same total');
    t.equal(Number(first.headers.get('x-total-count')), first.json.length, 'the total is the rows listed');
    return { total: Number(first.headers.get('x-total-count')), repos: [...new Set(first.json.map((i: any) => i.repository.full_name))].sort() };
  };
  const expect = async (what: string, anon: [number, number], signed: [number, number]) => {
    const a = [await total(undefined, 'open'), await total(undefined, 'closed')];
    const s = [await total(reader.token, 'open'), await total(reader.token, 'closed')];
    t.same(a.map((x) => x.total), anon, `${what}: anonymous open/closed ${anon.join('/')}`);
    t.same(s.map((x) => x.total), signed, `${what}: signed in open/closed ${signed.join('/')}`);
    return { anon: a, signed: s };
  };
  // Anonymous sees loud2 only; a signed-in user sees loud2 and the limited quiet2.
  await expect('at first', [4, 0], [6, 0]);
  await ok('POST', '/repos/shy2/a/issues', shy.token, { title: 'shy new' });
  await expect('a new issue of a private owner', [4, 0], [6, 0]);
  await ok('POST', '/repos/loud2/c/issues', loud.token, { title: 'loud new' });
  await expect('a new issue of a public owner', [5, 0], [7, 0]);
  await ok('PATCH', '/repos/shy2/a/issues/1', shy.token, { state: 'closed' }, 201);
  await expect('a hidden issue closed', [5, 0], [7, 0]);
  await ok('PATCH', '/repos/quiet2/q/issues/1', quiet.token, { state: 'closed' }, 201);
  await expect('a limited owner\'s issue closed', [5, 0], [6, 1]);
  await ok('DELETE', '/repos/shy2/a/issues/2', shy.token, undefined, 204);
  await expect('a hidden issue deleted', [5, 0], [6, 1]);
  await ok('PATCH', '/repos/loud2/c', loud.token, { private: true }, 200);
  await expect('the public owner\'s repository made private', [0, 0], [1, 1]);
  await ok('PATCH', '/repos/loud2/c', loud.token, { private: false }, 200);
  await ok('PATCH', '/admin/users/shy2', admin, { visibility: 'public' }, 200);
  const seen = await expect('the private owner made public', [7, 1], [8, 2]);
  t.same(seen.anon[0]!.repos, ['loud2/c', 'shy2/a'], 'its repository\'s issues are listed');
  await ok('DELETE', '/repos/shy2/a', shy.token, undefined, 204);
  await expect('its repository deleted', [5, 0], [6, 1]);
});
