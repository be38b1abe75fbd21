// Bench cases for the key plugins: the caller's SSH keys (GET /user/keys, the hot read), the same list read anonymously
// through /users/{username}/keys, and the GPG list (primaries with their subkeys). The harness seeds the `keys` account
// with `sizes.sshKeys` SSH keys and `sizes.gpgKeys` GPG keys (bench/seed.ts).
import type { BenchCase, BenchFixture, RecordedResponse } from '../case.js';
import { header } from '../case.js';

/** The body is a JSON array of `expected(fx)` items, each with `fields`, and X-Total-Count is `total(fx)`. */
function page(expected: (fx: BenchFixture) => number, total: (fx: BenchFixture) => number, fields: string[]) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      return 'the body is not JSON';
    }
    if (!Array.isArray(body)) return 'the body is not an array';
    if (body.length !== expected(fx)) return `expected ${expected(fx)} items, got ${body.length}`;
    const missing = fields.find((f) => body.some((item: Record<string, unknown>) => !(f in item)));
    if (missing) return `an item lacks "${missing}"`;
    if (header(res, 'x-total-count') !== String(total(fx))) return `X-Total-Count is ${header(res, 'x-total-count')}, expected ${total(fx)}`;
    return null;
  };
}

const firstPage = (n: number) => Math.min(30, n);

export const cases: BenchCase[] = [
  {
    name: 'user-keys',
    group: 'list',
    path: '/user/keys',
    as: 'keys',
    plugins: ['ssh-keys'],
    check: page((fx) => firstPage(fx.sizes.sshKeys), (fx) => fx.sizes.sshKeys, ['id', 'key', 'url', 'title', 'fingerprint', 'created_at']),
    description: 'The first page of the SSH keys of a user with many of them (token auth).',
  },
  {
    name: 'users-keys-public',
    group: 'list',
    path: '/users/{accounts.keys.login}/keys',
    plugins: ['ssh-keys'],
    check: page((fx) => firstPage(fx.sizes.sshKeys), (fx) => fx.sizes.sshKeys, ['id', 'key', 'fingerprint']),
    description: 'The same SSH keys read anonymously through /users/{username}/keys (a user lookup by name first).',
  },
  {
    name: 'user-gpg-keys',
    group: 'list',
    path: '/user/gpg_keys',
    as: 'keys',
    plugins: ['gpg-keys'],
    check: page((fx) => firstPage(fx.sizes.gpgKeys), (fx) => fx.sizes.gpgKeys, ['key_id', 'subkeys', 'emails', 'can_sign', 'expires_at']),
    description: 'The GPG keys of a user (primaries with their subkeys and the owner\'s email states; token auth).',
  },
];

export default cases;
