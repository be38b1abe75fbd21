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
