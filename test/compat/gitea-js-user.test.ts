// gitea-js, group "user": every user method forgekit serves, called through the real client; status and shape
// (every field gitea-js declares, with its type) checked. Calls are type-checked against gitea-js's declarations.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';
import { assertConforms, basicAuth, giteaClient, settle } from '../helpers/gitea-js.js';

const fixture = (...p: string[]) => readFileSync(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', ...p), 'utf8');

t.test('gitea-js user methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'gjs-alice', email: 'bob@example.net' });
  const bob = await f.createUser({ username: 'gjs-bob' });
  const api = giteaClient(f, alice.token);
  const asBob = giteaClient(f, bob.token);
  const anonymous = giteaClient(f);
  const me = (id: number) => `${f.url}/avatars/${id}`;

  t.test('profiles and search', async (t) => {
    const me = await settle(api.user.userGetCurrent());
    t.equal(me.status, 200);
    t.equal(me.data.login, 'gjs-alice');
    t.equal(me.data.email, 'bob@example.net', 'own email');
    assertConforms(t, 'userGetCurrent', me.data);
    const other = await settle(anonymous.users.userGet('GJS-BOB'));
    t.equal(other.status, 200);
    t.equal(other.data.email, '', 'no email for strangers');
    assertConforms(t, 'userGet', other.data);
    const missing = await settle(anonymous.users.userGet('nobody-at-all'));
    t.equal(missing.status, 404);
    t.same(missing.error, { message: "The target couldn't be found.", url: `${f.url}/api/swagger` }, 'gitea-js parses the JSON 404 body');
    const found = await settle(anonymous.users.userSearch({ q: 'gjs-', limit: 1 }));
    t.equal(found.status, 200);
    t.equal(found.data.ok, true);
    t.equal(found.data.data?.length, 1);
    t.equal(found.headers.get('x-total-count'), '2');
    assertConforms(t, 'userSearch', found.data);
  });

  t.test('emails', async (t) => {
    const added = await settle(api.user.userAddEmail({ emails: ['alice-two@example.com'] }));
    t.equal(added.status, 201);
    assertConforms(t, 'userAddEmail', added.data);
    const list = await settle(api.user.userListEmails());
    t.equal(list.status, 200);
    t.same(list.data.map((e) => e.email).sort(), ['alice-two@example.com', 'bob@example.net']);
    assertConforms(t, 'userListEmails', list.data);
    const removed = await settle(api.user.userDeleteEmail({ emails: ['alice-two@example.com'] }));
    t.equal(removed.status, 204);
  });

  t.test('following', async (t) => {
    t.equal((await settle(api.user.userCurrentPutFollow('gjs-bob'))).status, 204);
    t.equal((await settle(api.user.userCurrentCheckFollowing('gjs-bob'))).status, 204);
    t.equal((await settle(asBob.user.userCurrentCheckFollowing('gjs-alice'))).status, 404);
    const following = await settle(api.user.userCurrentListFollowing());
    t.same(following.data.map((u) => u.login), ['gjs-bob']);
    assertConforms(t, 'userCurrentListFollowing', following.data);
    const followers = await settle(asBob.user.userCurrentListFollowers());
    t.same(followers.data.map((u) => u.login), ['gjs-alice']);
    assertConforms(t, 'userCurrentListFollowers', followers.data);
    const theirs = await settle(anonymous.users.userListFollowers('gjs-bob'));
    t.same(theirs.data.map((u) => u.login), ['gjs-alice']);
    assertConforms(t, 'userListFollowers', theirs.data);
    const follows = await settle(anonymous.users.userListFollowing('gjs-alice'));
    t.same(follows.data.map((u) => u.login), ['gjs-bob']);
    assertConforms(t, 'userListFollowing', follows.data);
    t.equal((await settle(anonymous.users.userCheckFollowing('gjs-alice', 'gjs-bob'))).status, 204);
    t.equal((await settle(api.user.userCurrentDeleteFollow('gjs-bob'))).status, 204);
    t.equal((await settle(anonymous.users.userCheckFollowing('gjs-alice', 'gjs-bob'))).status, 404);
  });

  t.test('SSH keys', async (t) => {
    const made = await settle(api.user.userCurrentPostKey({ title: 'laptop', key: fixture('ssh', 'ed25519.pub') }));
    t.equal(made.status, 201);
    assertConforms(t, 'userCurrentPostKey', made.data);
    const id = made.data.id!;
    const one = await settle(api.user.userCurrentGetKey(id));
    t.equal(one.data.title, 'laptop');
    assertConforms(t, 'userCurrentGetKey', one.data);
    const mine = await settle(api.user.userCurrentListKeys());
    t.equal(mine.data.length, 1);
    assertConforms(t, 'userCurrentListKeys', mine.data);
    const theirs = await settle(anonymous.users.userListKeys('gjs-alice'));
    t.equal(theirs.data.length, 1);
    t.equal(theirs.data[0]!.user, undefined, "a stranger does not get Gitea's private information");
    const ownerOnly = 'Gitea shows it to the key owner and site admins only';
    assertConforms(t, 'userListKeys', theirs.data, { PublicKey: { key_type: ownerOnly, read_only: ownerOnly, user: ownerOnly } });
    const byPrint = await settle(api.user.userCurrentListKeys({ fingerprint: made.data.fingerprint }));
    t.same(byPrint.data.map((k) => k.id), [id], '?fingerprint= filters');
    t.same((await settle(api.user.userCurrentListKeys({ fingerprint: 'SHA256:nope' }))).data, []);
    t.match(one.data, { key_type: 'user', read_only: false, user: { login: 'gjs-alice' } });
    t.equal((await settle(asBob.user.userCurrentGetKey(id))).status, 404, "another user's key");
    t.equal((await settle(api.user.userCurrentDeleteKey(id))).status, 204);
  });

  t.test('GPG keys', async (t) => {
    const made = await settle(api.user.userCurrentPostGpgKey({ armored_public_key: fixture('gpg', 'ed25519.asc') }));
    t.equal(made.status, 201);
    assertConforms(t, 'userCurrentPostGpgKey', made.data);
    const id = made.data.id!;
    const one = await settle(api.user.userCurrentGetGpgKey(id));
    t.equal(one.status, 200);
    assertConforms(t, 'userCurrentGetGpgKey', one.data);
    const mine = await settle(api.user.userCurrentListGpgKeys());
    t.equal(mine.data.length, 1);
    assertConforms(t, 'userCurrentListGpgKeys', mine.data);
    const theirs = await settle(anonymous.users.userListGpgKeys('gjs-alice'));
    assertConforms(t, 'userListGpgKeys', theirs.data);
    t.equal((await settle(api.user.userCurrentDeleteGpgKey(id))).status, 204);
  });

  t.test('access tokens (Basic auth)', async (t) => {
    const basic = basicAuth('gjs-alice', alice.password);
    const made = await settle(anonymous.users.userCreateToken('gjs-alice', { name: 'gitea-js', scopes: ['all'] }, basic));
    t.equal(made.status, 201);
    t.equal(made.data.sha1?.length, 40, 'the value, once');
    assertConforms(t, 'userCreateToken', made.data);
    const list = await settle(anonymous.users.userGetTokens('gjs-alice', {}, basic));
    t.ok(list.data.some((tk) => tk.name === 'gitea-js'));
    assertConforms(t, 'userGetTokens', list.data);
    t.same(made.data.scopes, ['all']);
    t.same(list.data.find((tk) => tk.name === 'gitea-js')?.scopes, ['all'], 'listed with its scopes');
    const narrow = await settle(anonymous.users.userCreateToken('gjs-alice', { name: 'gitea-js-narrow', scopes: ['read:repository'] }, basic));
    t.same(narrow.data.scopes, ['read:repository']);
    const refused = await settle(giteaClient(f, narrow.data.sha1!).user.userGetCurrent());
    t.equal(refused.status, 403);
    t.same(refused.error, { message: 'token does not have at least one of required scope(s): [read:user]', url: `${f.url}/api/swagger` });
    const noScope = await settle(anonymous.users.userCreateToken('gjs-alice', { name: 'gitea-js-none' }, basic));
    t.equal(noScope.status, 400, 'a token needs a scope (Gitea 1.23)');
    const viaToken = await settle(giteaClient(f, made.data.sha1!).user.userGetCurrent());
    t.equal(viaToken.data.login, 'gjs-alice', 'the new token signs in');
    t.equal((await settle(anonymous.users.userDeleteAccessToken('gjs-alice', 'gitea-js', basic))).status, 204, 'deleted by name');
    t.equal((await settle(giteaClient(f, made.data.sha1!).user.userGetCurrent())).status, 401, 'gone');
  });

  t.test('settings', async (t) => {
    const got = await settle(api.user.getUserSettings());
    t.equal(got.status, 200);
    assertConforms(t, 'getUserSettings', got.data);
    const updated = await settle(api.user.updateUserSettings({ full_name: 'Alice A', theme: 'gitea-dark', hide_activity: true }));
    t.equal(updated.status, 200);
    t.match(updated.data, { full_name: 'Alice A', theme: 'gitea-dark', hide_activity: true, hide_email: true });
    assertConforms(t, 'updateUserSettings', updated.data);
    t.equal((await settle(anonymous.user.getUserSettings())).status, 401);
  });

  t.test('avatars', async (t) => {
    const before = await fetch(me(alice.id));
    t.equal(before.status, 200);
    t.equal(before.headers.get('content-type'), 'image/svg+xml', 'a generated identicon by default');
    t.match(await before.text(), /^<svg /);
    // A real 1×1 PNG.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    t.equal((await settle(api.user.userUpdateAvatar({ image: png }))).status, 204);
    const after = await fetch(me(alice.id));
    t.equal(after.headers.get('content-type'), 'image/png');
    t.same(Buffer.from(await after.arrayBuffer()), Buffer.from(png, 'base64'), 'the uploaded bytes are served');
    t.equal((await settle(api.user.userUpdateAvatar({ image: Buffer.from('<svg onload=alert(1)>').toString('base64') }))).status, 422, 'not an image');
    t.equal((await settle(api.user.userUpdateAvatar({ image: 'not base64!' }))).status, 422);
    t.equal((await settle(anonymous.user.userUpdateAvatar({ image: png }))).status, 401);
    t.equal((await settle(api.user.userDeleteAvatar())).status, 204);
    t.equal((await fetch(me(alice.id))).headers.get('content-type'), 'image/svg+xml', 'back to the identicon');
    t.equal((await fetch(`${f.url}/avatars/999999`)).status, 404);
  });

  t.test('repositories, stars and subscriptions of a user', async (t) => {
    const repo = await settle(api.user.createCurrentUserRepo({ name: 'gjs-starred' }));
    t.equal(repo.status, 201);
    const mine = await settle(api.user.userCurrentListRepos());
    t.same(mine.data.map((r) => r.name), ['gjs-starred']);
    assertConforms(t, 'userCurrentListRepos', mine.data);
    const theirs = await settle(anonymous.users.userListRepos('gjs-alice'));
    assertConforms(t, 'userListRepos', theirs.data);
    t.equal((await settle(asBob.user.userCurrentPutStar('gjs-alice', 'gjs-starred'))).status, 204);
    t.equal((await settle(asBob.user.userCurrentCheckStarring('gjs-alice', 'gjs-starred'))).status, 204);
    const starred = await settle(asBob.user.userCurrentListStarred());
    t.same(starred.data.map((r) => r.full_name), ['gjs-alice/gjs-starred']);
    assertConforms(t, 'userCurrentListStarred', starred.data);
    const theirStars = await settle(anonymous.users.userListStarred('gjs-bob'));
    assertConforms(t, 'userListStarred', theirStars.data);
    t.equal((await settle(asBob.user.userCurrentDeleteStar('gjs-alice', 'gjs-starred'))).status, 204);
    t.equal((await settle(asBob.user.userCurrentCheckStarring('gjs-alice', 'gjs-starred'))).status, 404);
    const watching = await settle(api.user.userCurrentListSubscriptions());
    t.same(watching.data.map((r) => r.name), ['gjs-starred'], 'creators watch their repositories');
    assertConforms(t, 'userCurrentListSubscriptions', watching.data);
    const theirWatches = await settle(anonymous.users.userListSubscriptions('gjs-alice'));
    assertConforms(t, 'userListSubscriptions', theirWatches.data);
  });
});

t.test('gitea-js user hooks', async (t) => {
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } });
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'gjs-hooker' });
  const api = giteaClient(f, owner.token);
  const made = await settle(api.user.userCreateHook({ type: 'gitea', config: { url: 'http://127.0.0.1:9/hook', content_type: 'json' }, events: ['push'], active: false }));
  t.equal(made.status, 201);
  assertConforms(t, 'userCreateHook', made.data);
  const id = made.data.id!;
  const one = await settle(api.user.userGetHook(id));
  t.equal(one.data.id, id);
  assertConforms(t, 'userGetHook', one.data);
  const list = await settle(api.user.userListHooks());
  t.same(list.data.map((h) => h.id), [id]);
  assertConforms(t, 'userListHooks', list.data);
  const edited = await settle(api.user.userEditHook(id, { active: false, events: ['push', 'issues'] }));
  t.equal(edited.status, 200);
  assertConforms(t, 'userEditHook', edited.data);
  t.equal((await settle(api.user.userDeleteHook(id))).status, 204);
  t.equal((await settle(api.user.userGetHook(id))).status, 404);
});
