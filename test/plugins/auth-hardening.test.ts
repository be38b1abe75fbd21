// Sign-in hardening through HTTP: no cached or in-flight credential outlives a deleted/changed account or a deleted
// token; failed sign-ins are throttled (429 + Retry-After); hashing is bounded so store writes keep moving; unknown
// logins cost a hash; only the primary address signs in; an unverified address never locks its owner out.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import type { Users } from '../../plugins/users/service.js';
import type { Tokens } from '../../plugins/tokens/service.js';

/** A gate a test holds shut: `reached` resolves when a check arrives at it, `open()` lets that check go on. */
function gate(): { hook: () => Promise<void>; reached: Promise<void>; open: () => void } {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (arrive = r));
  const released = new Promise<void>((r) => (release = r));
  let used = false;
  return {
    reached,
    open: () => release(),
    hook: async () => {
      if (used) return; // only the first check is held
      used = true;
      arrive();
      await released;
    },
  };
}

/** Resolves once `condition()` holds, checking after each turn of the event loop; fails loudly after many turns. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000_000; i++) {
    if (condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

t.test('credentials die with their account, including checks in flight', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const users = f.forge.service<Users>('users');
  const tokens = f.forge.service<Tokens>('tokens');

  t.test('a password check running while its admin account is deleted does not sign in', async (t) => {
    const evil = await f.createUser({ admin: true });
    const g = gate();
    users.beforeVerdict = g.hook;
    // An uncached spelling: the token helper already signed in with the plain name.
    const pending = f.request('GET', '/user', { basic: [evil.username.toUpperCase(), evil.password] });
    await g.reached;
    users.beforeVerdict = null;
    t.equal((await f.request('DELETE', `/admin/users/${evil.username}`, { token: f.admin.token })).status, 204);
    g.open();
    t.equal((await pending).status, 401, 'the check that was in flight fails');
    const again = await f.request('POST', '/admin/users', {
      basic: [evil.username.toUpperCase(), evil.password], json: { username: 'evil2', email: 'evil2@example.com', password: 'secret-pw' },
    });
    t.equal(again.status, 401, 'and nothing was cached: no new admin');
  });

  t.test('every cached spelling (case, email) stops at deletion', async (t) => {
    const u = await f.createUser();
    const spellings = [u.username, u.username.toUpperCase(), u.email, u.email.toUpperCase()];
    for (const login of spellings) t.equal((await f.request('GET', '/user', { basic: [login, u.password] })).status, 200, login);
    t.equal((await f.request('DELETE', `/admin/users/${u.username}`, { token: f.admin.token })).status, 204);
    for (const login of spellings) t.equal((await f.request('GET', '/user', { basic: [login, u.password] })).status, 401, login);
    t.equal((await f.request('GET', '/user', { token: u.token })).status, 401, 'its token too');
  });

  t.test('a changed admin flag reaches cached password and token sign-ins', async (t) => {
    const u = await f.createUser({ admin: true });
    t.equal((await f.request('DELETE', '/admin/users/no-such-user', { basic: [u.username, u.password] })).status, 404);
    t.equal((await f.request('DELETE', '/admin/users/no-such-user', { token: u.token })).status, 404);
    await f.forge.store.collection('users').updateOne({ id: u.id }, { $set: { isAdmin: false } });
    users.credentialsChanged(u.id);
    t.equal((await f.request('DELETE', '/admin/users/no-such-user', { basic: [u.username, u.password] })).status, 403);
    t.equal((await f.request('DELETE', '/admin/users/no-such-user', { token: u.token })).status, 403);
  });

  t.test('a token check running while the token is deleted does not sign in', async (t) => {
    const u = await f.createUser();
    const made = await f.request('POST', `/users/${u.username}/tokens`, { basic: [u.username, u.password], json: { name: 'doomed', scopes: ['all'] } });
    const g = gate();
    tokens.beforeVerdict = g.hook;
    const pending = f.request('GET', '/user', { token: made.json.sha1 });
    await g.reached;
    tokens.beforeVerdict = null;
    t.equal((await f.request('DELETE', `/users/${u.username}/tokens/${made.json.id}`, { basic: [u.username, u.password] })).status, 204);
    g.open();
    t.equal((await pending).status, 401, 'the check in flight fails');
    t.equal((await f.request('GET', '/user', { token: made.json.sha1 })).status, 401, 'and was not cached');
  });

  t.test('a token check running while its account is deleted does not sign in', async (t) => {
    const u = await f.createUser({ admin: true });
    const g = gate();
    tokens.beforeVerdict = g.hook;
    const pending = f.request('GET', '/user', { token: u.token });
    await g.reached;
    tokens.beforeVerdict = null;
    t.equal((await f.request('DELETE', `/admin/users/${u.username}`, { token: f.admin.token })).status, 204);
    g.open();
    t.equal((await pending).status, 401);
  });
});

t.test('failed sign-ins are throttled per account and per address', async (t) => {
  const f = await startForge({
    config: { plugins: { users: { signInThrottle: { perAccount: { maxFailures: 3, lockSeconds: 120 }, perAddress: { maxFailures: 8, lockSeconds: 60 } } } } },
  });
  t.teardown(() => f.close());
  const victim = await f.createUser();

  for (let i = 0; i < 3; i++) t.equal((await f.request('GET', '/user', { basic: [victim.username, 'wrong'] })).status, 401);
  const locked = await f.request('GET', '/user', { basic: [victim.username, 'wrong'] });
  t.equal(locked.status, 429, 'the account is locked after 3 failures');
  const retry = Number(locked.headers.get('retry-after'));
  t.ok(retry > 0 && retry <= 120, `Retry-After ${retry}`);
  t.match(locked.json, { message: /too many failed sign-ins/ });
  t.equal((await f.request('GET', '/user', { basic: [victim.email, victim.password] })).status, 429, 'any spelling of it, even the right password');
  t.equal((await f.request('GET', '/user', { token: victim.token })).status, 200, 'tokens still work');

  // Other (unknown) logins from the same address: 5 more failures reach the address limit of 8.
  for (let i = 0; i < 5; i++) t.equal((await f.request('GET', '/user', { basic: [`ghost${i}`, 'x'] })).status, 401);
  const byAddress = await f.request('GET', '/user', { basic: ['ghost-last', 'x'] });
  t.equal(byAddress.status, 429, 'the address is locked');
  t.ok(Number(byAddress.headers.get('retry-after')) > 0);
});

t.test('an unknown login costs a password hash, like a wrong password', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const users = f.forge.service<Users>('users');
  const u = await f.createUser();
  await f.request('GET', '/user', { basic: ['nobody-warmup', 'x'] });
  const before = users.hasher.stats.finished;
  t.equal((await f.request('GET', '/user', { basic: [u.username, 'wrong'] })).status, 401);
  const wrong = users.hasher.stats.finished - before;
  t.equal((await f.request('GET', '/user', { basic: ['nobody-at-all', 'wrong'] })).status, 401);
  t.equal((await f.request('GET', '/user', { basic: ['nobody@example.com', 'wrong'] })).status, 401);
  const unknown = (users.hasher.stats.finished - before - wrong) / 2;
  t.equal(wrong, 1, 'a wrong password costs one hash');
  t.equal(unknown, 1, 'an unknown login or email costs one hash too');
});

t.test('16 concurrent bad logins do not stall a store write', async (t) => {
  const f = await startForge({ config: { plugins: { users: { signInThrottle: { perAccount: { maxFailures: 0 }, perAddress: { maxFailures: 0 } } } } } });
  t.teardown(() => f.close());
  const users = f.forge.service<Users>('users');
  const a = await f.createUser();
  const b = await f.createUser();
  const order: string[] = [];
  const start = users.hasher.stats.requested;
  const logins = Array.from({ length: 16 }, (_, i) =>
    f.request('GET', '/user', { basic: [a.username, `wrong-${i}`] }).then((r) => { order.push('login'); return r.status; }));
  await until(() => users.hasher.stats.requested - start >= 16, 'the 16 hashes were asked for');
  const write = f.request('PUT', `/user/following/${b.username}`, { token: a.token }).then((r) => { order.push('write'); return r.status; });
  t.equal(await write, 204);
  t.same(await Promise.all(logins), Array(16).fill(401));
  const before = order.indexOf('write');
  t.ok(before <= 8, `the write finished after ${before} of 16 logins (bounded hashing leaves threads for file I/O)`);
});

t.test('only the primary address signs in; an unverified address yields to its owner', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const mallory = await f.createUser();
  const owner = await f.createUser();
  // Mallory adds an address that is not hers (unverified, as for every non-admin).
  t.equal((await f.request('POST', '/user/emails', { token: mallory.token, json: { emails: ['real-owner@example.com'] } })).status, 201);
  t.equal((await f.request('GET', '/user', { basic: ['real-owner@example.com', mallory.password] })).status, 401, 'a secondary address does not sign in');
  // The real owner can still add it (Mallory's unverified claim goes) ...
  const added = await f.request('POST', '/user/emails', { token: owner.token, json: { emails: ['real-owner@example.com'] } });
  t.equal(added.status, 201, 'the unverified claim does not lock the owner out');
  const mine = await f.request('GET', '/user/emails', { token: mallory.token });
  t.notOk(mine.json.some((e: any) => e.email === 'real-owner@example.com'), 'and the claim is gone from Mallory');
  // ... and an account can be created with an address someone merely claimed.
  await f.request('POST', '/user/emails', { token: mallory.token, json: { emails: ['newcomer@example.com'] } });
  const created = await f.request('POST', '/admin/users', { token: f.admin.token, json: { username: 'newcomer', email: 'newcomer@example.com', password: 'secret-pw' } });
  t.equal(created.status, 201);
  t.equal((await f.request('GET', '/user', { basic: ['newcomer@example.com', 'secret-pw'] })).status, 200, 'the primary address signs in');
  // A verified address (a site admin's own) still is taken.
  await f.request('POST', '/user/emails', { token: f.admin.token, json: { emails: ['admin-alt@example.com'] } });
  t.equal((await f.request('POST', '/user/emails', { token: owner.token, json: { emails: ['admin-alt@example.com'] } })).status, 422);
});
