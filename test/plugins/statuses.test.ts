// statuses plugin through HTTP: create (write access, validation), lists by commit id and by ref with Gitea's sorts
// and state filter, the combined state with Gitea's precedence, private repositories 404, and the service's
// required-contexts check.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { runGit, withAuth } from '../helpers/git-client.js';
import type { StatusesService } from '../../schemas/contracts/statuses.js';

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv, auto_init: true, readme: 'Default' } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

/** The commit id a branch points at, read with the real git client over smart HTTP. */
async function headOf(f: TestForge, user: TestUser, fullName: string, home: string, branch = 'master'): Promise<string> {
  const res = await runGit(['ls-remote', withAuth(`${f.url}/${fullName}.git`, user.username, user.token), `refs/heads/${branch}`], { home });
  if (res.code !== 0) throw new Error(`ls-remote: ${res.stderr}`);
  return res.stdout.split('\t')[0]!;
}

t.test('statuses', async (t) => {
  const f = await startForge();
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-git-home-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const alice = await createUser(f);
  const bob = await createUser(f);
  const repo = await createRepo(f, alice, 'ci');
  const sha = await headOf(f, alice, repo.full_name, home);
  t.match(sha, /^[0-9a-f]{40}$/);
  const base = `/repos/${repo.full_name}`;

  t.test('POST needs a caller with write access; readers get 403, strangers of private repos 404', async (t) => {
    t.equal((await f.request('POST', `${base}/statuses/${sha}`, { json: { state: 'success' } })).status, 401);
    t.equal((await f.request('POST', `${base}/statuses/${sha}`, { token: bob.token, json: { state: 'success' } })).status, 403);
    const priv = await createRepo(f, alice, 'secret-ci', true);
    const psha = await headOf(f, alice, priv.full_name, home);
    t.equal((await f.request('POST', `/repos/${priv.full_name}/statuses/${psha}`, { token: bob.token, json: { state: 'success' } })).status, 404);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/statuses/${psha}`, { token: bob.token })).status, 404);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/commits/master/status`)).status, 404);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/commits/master/statuses`)).status, 404);
    t.equal((await f.request('GET', `/repos/${priv.full_name}/commits/master/status`, { token: alice.token })).status, 200);
  });

  t.test('POST validates state, target_url and the commit', async (t) => {
    const bad = async (json: unknown, at = sha) => (await f.request('POST', `${base}/statuses/${at}`, { token: alice.token, json })).status;
    t.equal(await bad({}), 422);
    t.equal(await bad({ state: 'great' }), 422);
    t.equal(await bad({ state: 'success', target_url: 'javascript:alert(1)' }), 422);
    t.equal(await bad({ state: 'success', target_url: 'not a url' }), 422);
    t.equal(await bad({ state: 'success' }, 'f'.repeat(40)), 404);
    t.equal(await bad({ state: 'success' }, 'no-such-branch'), 404);
    t.equal(await bad({ state: 'success' }, '--upload-pack=x'), 404);
  });

  let first: any;
  t.test('POST creates a CommitStatus shaped like Gitea (201)', async (t) => {
    const res = await f.request('POST', `${base}/statuses/${sha}`, {
      token: alice.token, json: { state: 'pending', context: 'ci/build', description: 'building', target_url: 'https://ci.example.com/1' },
    });
    t.equal(res.status, 201);
    first = res.json;
    t.match(res.json, {
      id: Number, status: 'pending', context: 'ci/build', description: 'building', target_url: 'https://ci.example.com/1',
      url: `${f.api}/repos/${repo.full_name}/statuses/${sha}`, creator: { login: alice.username }, created_at: String, updated_at: String,
    });
    // A branch name is resolved to its commit.
    const byRef = await f.request('POST', `${base}/statuses/master`, { token: alice.token, json: { state: 'success', context: 'ci/lint' } });
    t.equal(byRef.status, 201);
    t.equal(byRef.json.url, `${f.api}/repos/${repo.full_name}/statuses/${sha}`);
  });

  t.test('combined status: the latest per context, worst wins (error > failure > warning > pending > success)', async (t) => {
    const combined = async () => (await f.request('GET', `${base}/commits/master/status`, { token: alice.token })).json;
    let c = await combined();
    t.equal(c.state, 'pending');
    t.equal(c.sha, sha);
    t.equal(c.total_count, 2);
    t.same(c.statuses.map((s: any) => s.context), ['ci/build', 'ci/lint']);
    t.equal(c.repository.full_name, repo.full_name);
    t.equal(c.commit_url, `${f.api}/repos/${repo.full_name}/commits/${sha}`);
    t.equal(c.url, `${f.api}/repos/${repo.full_name}/commits/${sha}/status`);
    const post = (state: string, context: string) => f.request('POST', `${base}/statuses/${sha}`, { token: alice.token, json: { state, context } });
    await post('success', 'ci/build');
    c = await combined();
    t.equal(c.state, 'success', 'a newer status of the same context replaces the older one');
    t.equal(c.total_count, 2);
    await post('warning', 'ci/style');
    t.equal((await combined()).state, 'warning');
    await post('pending', 'ci/deploy');
    t.equal((await combined()).state, 'warning', 'warning is worse than pending');
    await post('failure', 'ci/test');
    t.equal((await combined()).state, 'failure');
    await post('error', 'ci/e2e');
    t.equal((await combined()).state, 'error');
    await post('success', 'ci/e2e');
    await post('success', 'ci/test');
    await post('success', 'ci/deploy');
    await post('success', 'ci/style');
    c = await combined();
    t.equal(c.state, 'success');
    t.equal(c.total_count, 6);
    // By commit id too, and paged.
    const paged = await f.request('GET', `${base}/commits/${sha}/status?limit=2&page=2`, { token: alice.token });
    t.equal(paged.json.statuses.length, 2);
    t.equal(paged.headers.get('x-total-count'), '6');
    // A commit without statuses: empty state.
    const other = await createRepo(f, alice, 'quiet');
    const q = await f.request('GET', `/repos/${other.full_name}/commits/master/status`);
    t.equal(q.status, 200);
    t.equal(q.json.state, '');
    t.same(q.json.statuses, []);
    t.equal((await f.request('GET', `/repos/${other.full_name}/commits/nope/status`)).status, 404);
  });

  t.test('lists: newest first by default, Gitea sorts, state filter, paging, by sha and by ref', async (t) => {
    const all = await f.request('GET', `${base}/statuses/${sha}?limit=50`);
    t.equal(all.status, 200);
    t.equal(all.json.length, 11);
    t.equal(all.headers.get('x-total-count'), '11');
    const ids = all.json.map((s: any) => s.id);
    t.same(ids, [...ids].sort((a: number, b: number) => b - a));
    const oldest = await f.request('GET', `${base}/commits/master/statuses?sort=oldest&limit=50`);
    t.equal(oldest.json[0].id, first.id);
    const leastindex = await f.request('GET', `${base}/commits/master/statuses?sort=leastindex&limit=1`);
    t.equal(leastindex.json[0].id, first.id);
    const highest = await f.request('GET', `${base}/commits/${sha}/statuses?sort=highestindex&limit=1`);
    t.equal(highest.json[0].id, ids[0]);
    const failures = await f.request('GET', `${base}/statuses/${sha}?state=failure`);
    t.same(failures.json.map((s: any) => s.context), ['ci/test']);
    t.equal((await f.request('GET', `${base}/statuses/${sha}?sort=sideways`)).status, 422);
    const page = await f.request('GET', `${base}/statuses/${sha}?limit=4&page=3`);
    t.equal(page.json.length, 3);
    t.match(page.headers.get('link'), /rel="first"/);
    // An unknown commit id lists nothing; an unknown ref is a 404.
    const none = await f.request('GET', `${base}/statuses/${'a'.repeat(40)}`);
    t.same(none.json, []);
    t.equal((await f.request('GET', `${base}/commits/nope/statuses`)).status, 404);
  });

  t.test('the service: required contexts as a merge reads them (globs, missing = pending)', async (t) => {
    const service = f.forge.service<StatusesService>('statuses');
    const record = (await f.forge.service<any>('repos').byId(repo.id))!;
    t.equal(await service.requiredState(record, sha, []), 'success');
    t.equal(await service.requiredState(record, sha, ['ci/build']), 'success');
    t.equal(await service.requiredState(record, sha, ['ci/*']), 'success');
    t.equal(await service.requiredState(record, sha, ['ci/build', 'ci/missing']), 'pending');
    await f.request('POST', `${base}/statuses/${sha}`, { token: alice.token, json: { state: 'failure', context: 'ci/lint' } });
    t.equal(await service.requiredState(record, sha, ['ci/build']), 'success');
    t.equal(await service.requiredState(record, sha, ['ci/{build,lint}']), 'failure');
    t.equal((await service.combined(record, sha)).state, 'failure');
    t.equal(await service.requiredState(record, 'b'.repeat(40), []), 'success');
  });

  t.test('deleting the repository removes its statuses', async (t) => {
    const gone = await createRepo(f, alice, 'gone');
    const gsha = await headOf(f, alice, gone.full_name, home);
    await f.request('POST', `/repos/${gone.full_name}/statuses/${gsha}`, { token: alice.token, json: { state: 'success' } });
    t.equal(await f.forge.store.collection('commit_statuses').count({ repoId: gone.id }), 1);
    t.equal((await f.request('DELETE', `/repos/${gone.full_name}`, { token: alice.token })).status, 204);
    t.equal(await f.forge.store.collection('commit_statuses').count({ repoId: gone.id }), 0);
  });

  async function createUser(forge: TestForge): Promise<TestUser> {
    return forge.createUser();
  }
});
