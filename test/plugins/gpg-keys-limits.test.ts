// gpg-keys limits: key size and count per account are capped (configurable, a clear 422), and `/{username}.gpg` is
// armored once per version of the account's key set (a cached export; adding or deleting a key makes a new one).
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';

const DIR = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'gpg');
const read = (name: string) => readFileSync(path.join(DIR, name), 'utf8');

t.test('size and count caps: 422 naming the limit', async (t) => {
  const f = await startForge({ config: { plugins: { 'gpg-keys': { maxKeyBytes: 2048, maxKeysPerUser: 1 } } } });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice', email: 'alice@example.com' });
  const bob = await f.createUser({ username: 'bob', email: 'bob@example.net' });
  const big = read('rsa2048.asc');
  t.ok(Buffer.byteLength(big) > 2048, 'the rsa2048 key is over the configured 2048 bytes');
  let res = await f.request('POST', '/user/gpg_keys', { token: alice.token, json: { armored_public_key: big } });
  t.equal(res.status, 422, 'too large');
  t.match(res.json, { message: /at most 2048 bytes/, url: String });
  t.same((await f.request('GET', '/user/gpg_keys', { token: alice.token })).json, [], 'nothing stored');

  res = await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: read('ed25519.asc') } });
  t.equal(res.status, 201, 'a small key, the first');
  res = await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: read('two-keys.asc') } });
  t.equal(res.status, 422, 'a second key is over the count');
  t.match(res.json, { message: /1 GPG keys, the most this server keeps per account/, url: String });
  t.equal((await f.request('GET', '/user/gpg_keys', { token: bob.token })).json.length, 1);
  // Deleting makes room again.
  t.equal((await f.request('DELETE', `/user/gpg_keys/${(await f.request('GET', '/user/gpg_keys', { token: bob.token })).json[0].id}`, { token: bob.token })).status, 204);
  t.equal((await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: read('ed25519.asc') } })).status, 201);
});

t.test('defaults: 64 KiB and 32 keys', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const dave = await f.createUser({ username: 'dave', email: 'dave@example.com' });
  const res = await f.request('POST', '/user/gpg_keys', { token: dave.token, json: { armored_public_key: read('signonly.asc') + '\n'.repeat(65536) } });
  t.equal(res.status, 422);
  t.match(res.json.message, /at most 65536 bytes/);
});

t.test('/{username}.gpg is armored once per key-set version', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const bob = await f.createUser({ username: 'bob', email: 'bob@example.net' });
  const fingerprints = async () => {
    const res = await f.request('GET', '/bob.gpg', { root: true });
    t.equal(res.status, 200);
    return res.text === '' ? [] : (await openpgp.readKeys({ armoredKeys: res.text })).map((k) => k.getFingerprint());
  };
  t.same(await fingerprints(), [], 'no keys yet');
  let res = await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: read('ed25519.asc') } });
  t.equal(res.status, 201);
  const first = await fingerprints();
  t.equal(first.length, 1, 'a new key shows at once');
  const armored = (await f.request('GET', '/bob.gpg', { root: true })).text;

  // The rows removed behind the API's back: the export is served from the cache, not armored again.
  const rows = f.forge.store.collection('gpg_keys');
  const saved = await rows.find({ ownerId: bob.id });
  await rows.deleteMany({ ownerId: bob.id });
  t.equal((await f.request('GET', '/bob.gpg', { root: true })).text, armored, 'the same export, from the cache');
  for (const row of saved) await rows.insertOne({ ...row });

  // A change through the API makes a new version: added keys appear, deleted ones go.
  // A second key of the same address (openpgp.js makes it; the fixtures hold one per person).
  const { publicKey } = await openpgp.generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Bob', email: 'bob@example.net' }], format: 'armored' });
  res = await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: publicKey } });
  t.equal(res.status, 201, res.text);
  const both = await fingerprints();
  t.equal(both.length, 2, 'added: both keys');
  t.equal((await f.request('DELETE', `/user/gpg_keys/${res.json.id}`, { token: bob.token })).status, 204);
  t.same(await fingerprints(), first, 'deleted: back to the first key');
});
