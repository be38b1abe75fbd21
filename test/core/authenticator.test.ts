// The authenticator answers at once when it can (no credentials, a token verifier that knows the token) and through
// a promise otherwise; the auth levels' verdicts are the same either way.
import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { Authenticator } from '../../core/auth.js';
import { ForgeError } from '../../core/errors.js';
import type { Caller } from '../../core/plugin.js';

const TOKEN = 'a'.repeat(40);
const alice: Caller = { id: 1, login: 'alice', isAdmin: false, via: 'token' };
const root: Caller = { id: 2, login: 'root', isAdmin: true, via: 'token' };

function request(authorization?: string): IncomingMessage {
  return { headers: authorization ? { authorization } : {}, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
}

/** What a pending verdict rejects with. */
async function rejection(pending: unknown): Promise<ForgeError> {
  try {
    await pending;
  } catch (err) {
    if (err instanceof ForgeError) return err;
    throw err;
  }
  throw new Error('expected a rejection with a ForgeError');
}

function thrown(fn: () => unknown): ForgeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ForgeError) return err;
    throw err;
  }
  throw new Error('expected a ForgeError to be thrown');
}

t.test('without credentials the verdict comes at once', async (t) => {
  const auth = new Authenticator();
  t.equal(auth.authenticate(request(), {}, 'optional'), null);
  t.equal(auth.authenticate(request(), {}, 'public'), null);
  for (const level of ['user', 'basic', 'admin'] as const) {
    const err = thrown(() => auth.authenticate(request(), {}, level));
    t.equal(err.status, 401, level);
    t.equal(err.code, 'UNAUTHORIZED', level);
  }
});

t.test('a token verifier that answers at once: the caller as it is, no promise', async (t) => {
  const auth = new Authenticator();
  auth.provide({ token: (value) => (value === TOKEN ? alice : value === 'b'.repeat(40) ? root : null) });
  t.equal(auth.authenticate(request(`token ${TOKEN}`), {}, 'user'), alice);
  t.equal(auth.authenticate(request(`Bearer ${TOKEN}`), {}, 'optional'), alice);
  t.equal(auth.authenticate(request(), { token: TOKEN }, 'user'), alice, 'token in the query');
  t.equal(auth.authenticate(request(`token ${'b'.repeat(40)}`), {}, 'admin'), root);
  const forbidden = thrown(() => auth.authenticate(request(`token ${TOKEN}`), {}, 'admin'));
  t.equal(forbidden.status, 403);
  const basicOnly = thrown(() => auth.authenticate(request(`token ${TOKEN}`), {}, 'basic'));
  t.equal(basicOnly.status, 401);
  t.match(basicOnly.message, /password is required/);
  // An unknown token is refused even where no caller is needed.
  const unknown = thrown(() => auth.authenticate(request(`token ${'c'.repeat(40)}`), {}, 'optional'));
  t.equal(unknown.code, 'INVALID_CREDENTIALS');
  t.equal(unknown.message, 'invalid access token');
});

t.test('a token verifier that answers later: the same verdicts through a promise', async (t) => {
  const auth = new Authenticator();
  auth.provide({ token: async (value) => (value === TOKEN ? alice : null) });
  const pending = auth.authenticate(request(`token ${TOKEN}`), {}, 'user');
  t.ok(pending instanceof Promise);
  t.equal(await pending, alice);
  t.equal((await rejection(auth.authenticate(request(`token ${TOKEN}`), {}, 'admin'))).status, 403);
  t.equal((await rejection(auth.authenticate(request(`token ${'c'.repeat(40)}`), {}, 'optional'))).code, 'INVALID_CREDENTIALS');
});

t.test('a verifier answering with a thenable that is not a native promise is waited for', async (t) => {
  const auth = new Authenticator();
  // What another promise library hands back: an object with `then`, not a Promise (never taken for a caller).
  const thenable = (value: Caller | null) => ({ then: (resolve: (v: Caller | null) => void) => resolve(value) });
  auth.provide({ token: (value) => thenable(value === TOKEN ? alice : null) as unknown as Promise<Caller | null> });
  const pending = auth.authenticate(request(`token ${TOKEN}`), {}, 'user');
  t.ok(pending instanceof Promise, 'normalised to a native promise, which dispatch awaits');
  t.equal(await pending, alice);
  t.equal((await rejection(auth.authenticate(request(`token ${'c'.repeat(40)}`), {}, 'user'))).code, 'INVALID_CREDENTIALS');
});

t.test('Basic credentials go through the password verifier, or a token sent as the password', async (t) => {
  const auth = new Authenticator();
  const withPassword: Caller = { ...alice, via: 'password' };
  auth.provide({
    token: (value) => (value === TOKEN ? alice : null),
    password: async (login, password) => (login === 'alice' && password === 'secret' ? withPassword : null),
  });
  const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  t.equal(await auth.authenticate(request(basic('alice', 'secret')), {}, 'basic'), withPassword);
  t.equal(await auth.authenticate(request(basic('alice', TOKEN)), {}, 'user'), alice, 'a token as the Basic password');
  t.equal((await rejection(auth.authenticate(request(basic('alice', TOKEN)), {}, 'basic'))).status, 401);
  t.equal((await rejection(auth.authenticate(request(basic('alice', 'wrong')), {}, 'user'))).code, 'INVALID_CREDENTIALS');
  const malformed = thrown(() => auth.authenticate(request(`Basic ${Buffer.from('no-colon').toString('base64')}`), {}, 'user'));
  t.equal(malformed.code, 'INVALID_CREDENTIALS');
});
