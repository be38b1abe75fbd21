// Token scopes through HTTP: created, normalised, listed, and enforced per route category and method (Gitea's
// tokenRequiresScopes); passwords are not limited; old tokens without scopes keep full access.
import t from 'tap';
import { startForge, type TestForge } from '../helpers/forge.js';

const scopeMessage = (...names: string[]) => `token does not have at least one of required scope(s): [${names.join(' ')}]`;

async function tokenWith(f: TestForge, user: { username: string; password: string }, name: string, scopes?: string[]) {
  return f.request('POST', `/users/${user.username}/tokens`, { basic: [user.username, user.password], json: scopes ? { name, scopes } : { name } });
}

t.test('token scopes', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'scoped-alice' });
  const bob = await f.createUser({ username: 'scoped-bob' });
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'proj', private: true } })).status, 201);

  t.test('creation: Gitea 1.23 rules', async (t) => {
    const none = await tokenWith(f, alice, 'no-scope');
    t.equal(none.status, 400);
    t.equal(none.json.message, 'access token must have a scope');
    const empty = await tokenWith(f, alice, 'empty', []);
    t.equal(empty.status, 400, 'an empty list is no scope');
    const bad = await tokenWith(f, alice, 'bad', ['read:repository', 'read:nothing']);
    t.equal(bad.status, 400);
    t.equal(bad.json.message, 'invalid access token scope provided: invalid access token scope: read:nothing');
    t.equal((await tokenWith(f, alice, 'bad2', ['admin'])).status, 400, 'a bare category is not a scope');
    const joined = await tokenWith(f, alice, 'joined', ['read:issue,write:issue', 'read:user']);
    t.equal(joined.status, 201, 'comma lists are split, as Gitea joins and re-splits them');
    t.same(joined.json.scopes, ['write:issue', 'read:user']);
    const every = await tokenWith(f, alice, 'every', ['read:user', 'all']);
    t.same(every.json.scopes, ['all']);
    const spelledOut = await tokenWith(f, alice, 'spelled', ['write:activitypub', 'write:admin', 'write:misc', 'write:notification',
      'write:organization', 'write:package', 'write:issue', 'write:repository', 'write:user']);
    t.same(spelledOut.json.scopes, ['all'], 'every write scope is all');
    const dup = await tokenWith(f, alice, 'joined', ['read:user']);
    t.equal(dup.status, 400);
    t.equal(dup.json.message, 'access token name has been used already');
    const list = await f.request('GET', `/users/${alice.username}/tokens`, { basic: [alice.username, alice.password] });
    t.same(list.json.find((x: any) => x.name === 'joined').scopes, ['write:issue', 'read:user'], 'listed with its scopes');
  });

  t.test('read:repository', async (t) => {
    const token = (await tokenWith(f, alice, 'repo-read', ['read:repository'])).json.sha1;
    t.equal((await f.request('GET', '/repos/scoped-alice/proj', { token })).status, 200, 'reads repositories');
    const patch = await f.request('PATCH', '/repos/scoped-alice/proj', { token, json: { description: 'x' } });
    t.equal(patch.status, 403);
    t.equal(patch.json.message, scopeMessage('write:repository'));
    const me = await f.request('GET', '/user', { token });
    t.equal(me.status, 403);
    t.equal(me.json.message, scopeMessage('read:user'));
    const mine = await f.request('GET', '/user/repos', { token });
    t.equal(mine.json.message, scopeMessage('read:user'), '/user/repos needs both user and repository (Gitea nests them)');
    t.equal((await f.request('GET', '/repos/scoped-alice/proj/issues', { token })).status, 403, 'issues are their own category');
    t.equal((await f.request('GET', '/version', { token })).status, 200, 'miscellaneous routes need no scope');
    t.equal((await f.request('POST', '/markdown', { token, json: { Text: '*x*' } })).status, 200);
    const q = await f.request('PATCH', `/repos/scoped-alice/proj?access_token=${token}`, { json: { description: 'x' } });
    t.equal(q.status, 403, 'whatever transport carries the token');
    const basic = await f.request('PATCH', '/repos/scoped-alice/proj', { basic: [alice.username, token], json: { description: 'x' } });
    t.equal(basic.status, 403, 'a token as the Basic password is still a token');
  });

  t.test('write implies read; several categories', async (t) => {
    const token = (await tokenWith(f, alice, 'repo-write', ['write:repository'])).json.sha1;
    t.equal((await f.request('GET', '/repos/scoped-alice/proj', { token })).status, 200);
    t.equal((await f.request('PATCH', '/repos/scoped-alice/proj', { token, json: { description: 'by token' } })).status, 200);
    const create = await f.request('POST', '/user/repos', { token, json: { name: 'nope' } });
    t.equal(create.status, 403);
    t.equal(create.json.message, scopeMessage('write:user'), 'POST /user/repos needs write:user too (as Gitea and Forgejo)');
    const both = (await tokenWith(f, alice, 'user-repo', ['write:user', 'write:repository'])).json.sha1;
    t.equal((await f.request('POST', '/user/repos', { token: both, json: { name: 'made-by-token' } })).status, 201);
    const neither = (await tokenWith(f, alice, 'only-issue', ['write:issue'])).json.sha1;
    t.equal((await f.request('POST', '/user/repos', { token: neither, json: { name: 'nope' } })).json.message, scopeMessage('write:user', 'write:repository'));
  });

  t.test('admin routes need the admin scope even for a site admin', async (t) => {
    const readAdmin = (await tokenWith(f, f.admin, 'admin-read', ['read:admin'])).json.sha1;
    const made = await f.request('POST', '/admin/users', { token: readAdmin, json: { username: 'nobody-new', email: 'n@example.com', password: 'secret-1' } });
    t.equal(made.status, 403);
    t.equal(made.json.message, scopeMessage('write:admin'));
    const userOnly = (await tokenWith(f, f.admin, 'admin-user', ['write:user'])).json.sha1;
    t.equal((await f.request('POST', '/admin/users', { token: userOnly, json: { username: 'nobody-new', email: 'n@example.com', password: 'secret-1' } })).status, 403);
  });

  t.test('scopes never widen access', async (t) => {
    const all = (await tokenWith(f, bob, 'bob-all', ['all'])).json.sha1;
    t.equal((await f.request('GET', '/repos/scoped-alice/proj', { token: all })).status, 404, "all is still bob's own access");
    t.equal((await f.request('POST', '/admin/users', { token: all, json: { username: 'x2', email: 'x2@example.com', password: 'secret-1' } })).status, 403);
  });

  t.test('passwords are not limited by scopes', async (t) => {
    const basic: [string, string] = [alice.username, alice.password];
    t.equal((await f.request('GET', '/user', { basic })).status, 200);
    t.equal((await f.request('PATCH', '/repos/scoped-alice/proj', { basic, json: { description: 'by password' } })).status, 200);
  });

  t.test('git over HTTP: read scope fetches, write scope pushes', async (t) => {
    const reader = (await tokenWith(f, alice, 'git-read', ['read:repository'])).json.sha1;
    const basic: [string, string] = [alice.username, reader];
    const refs = await f.request('GET', '/scoped-alice/proj.git/info/refs?service=git-upload-pack', { root: true, basic });
    t.equal(refs.status, 200, 'advertises refs');
    const fetch = await f.request('POST', '/scoped-alice/proj.git/git-upload-pack', { root: true, basic, body: '0000', headers: { 'Content-Type': 'application/x-git-upload-pack-request' } });
    t.not(fetch.status, 403, 'upload-pack is a read');
    const push = await f.request('POST', '/scoped-alice/proj.git/git-receive-pack', { root: true, basic, body: '0000', headers: { 'Content-Type': 'application/x-git-receive-pack-request' } });
    t.equal(push.status, 403);
    t.match(push.text, 'write:repository');
  });

  t.test('tokens stored before scopes existed keep full access', async (t) => {
    const made = await tokenWith(f, alice, 'legacy', ['read:user']);
    await f.forge.store.collection('tokens').updateOne({ id: made.json.id }, { $unset: { scope: true } });
    t.equal((await f.request('PATCH', '/repos/scoped-alice/proj', { token: made.json.sha1, json: { description: 'legacy' } })).status, 200);
    const list = await f.request('GET', `/users/${alice.username}/tokens`, { basic: [alice.username, alice.password] });
    t.same(list.json.find((x: any) => x.name === 'legacy').scopes, ['all']);
  });
});

t.test('defaultScopes setting gives scope-less requests a default', async (t) => {
  const f = await startForge({ config: { plugins: { tokens: { defaultScopes: ['read:user'] } } } });
  t.teardown(() => f.close());
  const made = await f.request('POST', '/users/root/tokens', { basic: ['root', f.admin.password], json: { name: 'legacy-client' } });
  t.equal(made.status, 201);
  t.same(made.json.scopes, ['read:user']);
  t.equal((await f.request('GET', '/user', { token: made.json.sha1 })).status, 200);
  t.equal((await f.request('GET', '/admin/users', { token: made.json.sha1 })).status, 403);
});

t.test('an unknown default scope stops the boot', async (t) => {
  await t.rejects(startForge({ config: { plugins: { tokens: { defaultScopes: ['write:everything'] } } } }), /invalid access token scope: write:everything/);
});
