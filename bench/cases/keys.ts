// Bench case descriptions for the key plugins: listing the caller's SSH keys (the hot read), the plain-text
// authorized_keys view and the GPG list. The harness runs `setup` once against a fresh forge, then measures requests.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';

/** The little a case needs from the harness (the test helper's TestForge satisfies it). */
export interface BenchClient {
  createUser(input?: { username?: string; email?: string }): Promise<{ username: string; token: string }>;
  request(method: string, path: string, options?: { json?: unknown; token?: string; root?: boolean }): Promise<{ status: number }>;
}

export interface BenchCase {
  name: string;
  method: 'GET' | 'POST';
  /** Under the API prefix unless `root`; `setup` may return the final path. */
  path: string;
  root?: boolean;
  /** Sent as `Authorization: token <t>` when setup returns one. */
  setup(client: BenchClient): Promise<{ token?: string; path?: string }>;
}

/** A real ed25519 public key line (made by node:crypto), so the store holds distinct keys. */
function ed25519Line(comment: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}

const SSH_KEYS_PER_USER = 10;

/** A user with ten SSH keys. */
async function userWithKeys(client: BenchClient) {
  const user = await client.createUser();
  for (let i = 0; i < SSH_KEYS_PER_USER; i++) {
    const res = await client.request('POST', '/user/keys', { token: user.token, json: { title: `key ${i}`, key: ed25519Line(`bench-${i}`) } });
    if (res.status !== 201) throw new Error(`bench setup: POST /user/keys → ${res.status}`);
  }
  return user;
}

export const cases: BenchCase[] = [
  {
    name: 'user-keys-list',
    method: 'GET',
    path: '/user/keys',
    async setup(client) {
      const user = await userWithKeys(client);
      return { token: user.token };
    },
  },
  {
    name: 'username-keys-plain',
    method: 'GET',
    path: '/{username}.keys',
    root: true,
    async setup(client) {
      const user = await userWithKeys(client);
      return { path: `/${user.username}.keys` };
    },
  },
  {
    name: 'user-gpg-keys-list',
    method: 'GET',
    path: '/user/gpg_keys',
    async setup(client) {
      const user = await client.createUser({ email: 'bob@example.net' });
      const armored = readFileSync(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'gpg', 'ed25519.asc'), 'utf8');
      const res = await client.request('POST', '/user/gpg_keys', { token: user.token, json: { armored_public_key: armored } });
      if (res.status !== 201) throw new Error(`bench setup: POST /user/gpg_keys → ${res.status}`);
      return { token: user.token };
    },
  },
];

export default cases;
