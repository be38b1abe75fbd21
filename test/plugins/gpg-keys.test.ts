// gpg-keys: keys made by gpg, every API field checked against `gpg --list-keys --with-colons`; every endpoint and
// status through real HTTP, the email rule through /user/emails, the cross-user matrix and /{username}.gpg.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { PACKAGE_ROOT } from '../../core/config.js';
import { toRfc3339 } from '../../core/time.js';
import { parseGpgPublicKey, GpgKeyError } from '../../plugins/gpg-keys/parse.js';
import { startForge, type TestUser } from '../helpers/forge.js';

const DIR = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'gpg');
const read = (name: string) => readFileSync(path.join(DIR, name), 'utf8');

/** One pub/sub record of `gpg --list-keys --with-colons --with-subkey-fingerprints`. */
interface ColonKey { keyId: string; fingerprint: string; created: number; expires: number | null; caps: string }
interface ColonFacts { primary: ColonKey; subkeys: ColonKey[]; uids: string[] }

/** Parses gpg's colon listing (field meanings from gpg's doc/DETAILS); several keys when the file lists several. */
function colons(name: string): ColonFacts[] {
  const keys: ColonFacts[] = [];
  let last: ColonKey | null = null;
  for (const line of read(`${name}.colons.txt`).split('\n')) {
    const f = line.split(':');
    if (f[0] === 'pub' || f[0] === 'sub') {
      last = {
        keyId: f[4]!,
        fingerprint: '',
        created: Number(f[5]),
        expires: f[6] ? Number(f[6]) : null,
        // Field 12: lower-case letters are this key's own capabilities (upper-case ones summarise the whole key).
        caps: f[11]!.replace(/[A-Z]/g, ''),
      };
      if (f[0] === 'pub') keys.push({ primary: last, subkeys: [], uids: [] });
      else keys[keys.length - 1]!.subkeys.push(last);
    } else if (f[0] === 'fpr' && last) {
      last.fingerprint = f[9]!;
    } else if (f[0] === 'uid') {
      keys[keys.length - 1]!.uids.push(f[9]!);
    }
  }
  return keys;
}
const facts = (name: string) => colons(name)[0]!;
const uidEmails = (f: ColonFacts) => f.uids.map((u) => /<([^>]+)>/.exec(u)?.[1]).filter((e): e is string => !!e);

/** The binary packets of an armored fixture, dearmored by hand (no OpenPGP library involved). */
function dearmor(text: string): Buffer {
  const lines = text.trim().split('\n');
  const blank = lines.indexOf('');
  const body = lines.slice(blank + 1, -1).filter((l) => !l.startsWith('='));
  return Buffer.from(body.join(''), 'base64');
}

/**
 * Checks `public_key`: base64 of one new-format public-key packet (tag 6 primary / 14 subkey) whose body is
 * byte-for-byte the packet in gpg's export and whose v4 fingerprint (SHA-1 of 0x99, length, body) is gpg's.
 */
function checkPacket(t: Test, publicKey: string, key: ColonKey, isPrimary: boolean, exported: Buffer) {
  const packet = Buffer.from(publicKey, 'base64');
  t.equal(packet[0], isPrimary ? 0xc6 : 0xce, 'new-format public-key packet tag');
  let len: number;
  let at: number;
  if (packet[1]! < 192) { len = packet[1]!; at = 2; }
  else if (packet[1]! < 224) { len = ((packet[1]! - 192) << 8) + packet[2]! + 192; at = 3; }
  else { len = packet.readUInt32BE(2); at = 6; }
  const body = packet.subarray(at);
  t.equal(body.length, len, 'one whole packet');
  const header = Buffer.from([0x99, len >> 8, len & 0xff]);
  t.equal(createHash('sha1').update(header).update(body).digest('hex').toUpperCase(), key.fingerprint, 'fingerprint of the packet is gpg\'s');
  t.ok(exported.includes(body), 'the packet body is the one in gpg\'s export');
}

/** Asserts every field of a GPGKey against gpg's listing. */
function checkKey(t: Test, api: any, fixture: string, expectedEmails: Array<{ email: string; verified: boolean }>) {
  const f = facts(fixture);
  const exported = dearmor(read(`${fixture}.asc`));
  t.same(Object.keys(api).sort(), ['can_certify', 'can_encrypt_comms', 'can_encrypt_storage', 'can_sign', 'created_at', 'emails',
    'expires_at', 'id', 'key_id', 'primary_key_id', 'public_key', 'subkeys', 'verified'], 'exactly the GPGKey fields');
  t.equal(api.verified, expectedEmails.some((e) => e.verified), 'verified: an identity is a verified address of the owner');
  const one = (a: any, k: ColonKey, isPrimary: boolean, label: string) => {
    t.ok(Number.isSafeInteger(a.id) && a.id > 0, `${label}: its own integer id`);
    t.equal(a.key_id, k.keyId, `${label}: key_id`);
    t.equal(a.key_id, k.fingerprint.slice(-16), `${label}: key_id is the fingerprint's last 16 hex digits`);
    t.equal(a.primary_key_id, isPrimary ? '' : f.primary.keyId, `${label}: primary_key_id`);
    t.equal(a.created_at, toRfc3339(k.created * 1000), `${label}: created_at`);
    t.equal(a.expires_at, k.expires === null ? null : toRfc3339(k.expires * 1000), `${label}: expires_at`);
    t.equal(a.can_sign, k.caps.includes('s'), `${label}: can_sign (${k.caps})`);
    t.equal(a.can_encrypt_comms, k.caps.includes('e'), `${label}: can_encrypt_comms`);
    t.equal(a.can_encrypt_storage, k.caps.includes('e'), `${label}: can_encrypt_storage`);
    t.equal(a.can_certify, k.caps.includes('c'), `${label}: can_certify`);
    checkPacket(t, a.public_key, k, isPrimary, exported);
  };
  one(api, f.primary, true, `${fixture} primary`);
  t.same(api.emails, expectedEmails, `${fixture}: emails`);
  t.equal(api.subkeys.length, f.subkeys.length, `${fixture}: subkey count`);
  f.subkeys.forEach((sk, i) => {
    const s = api.subkeys[i];
    one(s, sk, false, `${fixture} subkey ${i}`);
    t.same(s.emails, [], 'subkey emails: []');
    t.same(s.subkeys, [], 'subkey subkeys: []');
    t.not(s.id, api.id);
  });
}

async function refusal(armored: string): Promise<string> {
  try {
    await parseGpgPublicKey(armored);
  } catch (err) {
    if (err instanceof GpgKeyError) return err.message;
    throw err;
  }
  throw new Error('accepted');
}

/** A secret key export under a public-key armor header (same payload, same checksum). */
const disguisedSecret = () => read('rsa2048.secret.asc').replace(/PGP PRIVATE KEY BLOCK/g, 'PGP PUBLIC KEY BLOCK');
const SECRET_FILES = readdirSync(DIR).filter((f) => f.includes('.secret')).sort();

t.test('parser: fields agree with gpg --with-colons', async (t) => {
  for (const name of ['rsa2048', 'ed25519', 'expired', 'signonly', 'nomail']) {
    const f = facts(name);
    const k = await parseGpgPublicKey(read(`${name}.asc`));
    t.equal(k.primary.fingerprint, f.primary.fingerprint, `${name} fingerprint`);
    t.equal(k.primary.keyId, f.primary.keyId, `${name} key id`);
    t.same(k.subkeys.map((s) => s.fingerprint), f.subkeys.map((s) => s.fingerprint), `${name} subkeys`);
    t.same(k.emails, uidEmails(f), `${name} emails in user-id order`);
  }
  t.equal(colons('two-keys').length, 2, 'the two-keys fixture holds two keys');
  const first = await parseGpgPublicKey(read('two-keys.asc'));
  t.equal(first.primary.fingerprint, colons('two-keys')[0]!.primary.fingerprint, 'only the first key of the armor counts');
  t.equal((await parseGpgPublicKey(read('ed25519.asc').replace(/\n/g, '\r\n'))).primary.keyId, facts('ed25519').primary.keyId, 'CRLF');
});

t.test('parser: refusals', async (t) => {
  for (const file of SECRET_FILES) t.match(await refusal(read(file)), /private key/, `${file} refused as private`);
  t.match(await refusal(disguisedSecret()), /private key material/, 'secret packets under a public armor header');
  t.match(await refusal(read('garbage.asc')), /could not be parsed/, 'random bytes in an armor block');
  t.match(await refusal('hello'), /not an armored OpenPGP public key block/, 'plain text');
  t.match(await refusal(read('../ssh/ed25519.pub')), /not an armored/, 'an SSH key');
  // A user id whose self-signature is broken claims nothing: flip a byte inside the last signature of a key.
  const bin = dearmor(read('nomail.asc'));
  bin[bin.length - 3]! ^= 0xff;
  const broken = openpgp.armor(openpgp.enums.armor.publicKey, bin);
  t.match(await refusal(broken), /no user id with a valid self-signature|could not be parsed/, 'a broken self-signature');
});

t.test('parser: mutated keys are refused with a reason, never a crash', async (t) => {
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  let refused = 0;
  for (const name of ['rsa2048', 'ed25519']) {
    const bin = dearmor(read(`${name}.asc`));
    for (let i = 0; i < 100; i++) {
      const b = Buffer.from(bin);
      b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      const mutated = rnd() < 0.4 ? b.subarray(0, Math.floor(rnd() * b.length)) : b;
      try {
        await parseGpgPublicKey(openpgp.armor(openpgp.enums.armor.publicKey, mutated));
      } catch (err) {
        if (!(err instanceof GpgKeyError)) throw err;
        refused++;
      }
    }
  }
  t.ok(refused > 0, `${refused} of 200 mutations refused with a reason; none crashed`);
});

t.test('HTTP', async (t) => {
  const forge = await startForge();
  t.teardown(() => forge.close());
  const alice = await forge.createUser({ email: 'alice@example.com' });
  const alicew = await forge.createUser({ email: 'someone@else.example' });
  const bob = await forge.createUser({ email: 'Bob@Example.NET' });
  const carol = await forge.createUser({ email: 'carol@example.com' });
  const mallory = await forge.createUser({ email: 'mallory@example.com' });
  const boss = await forge.createUser({ email: 'boss@example.com', admin: true });
  const post = (user: TestUser, armored: string) => forge.request('POST', '/user/gpg_keys', { token: user.token, json: { armored_public_key: armored } });
  const list = async (user: TestUser) => (await forge.request('GET', '/user/gpg_keys', { token: user.token })).json as any[];
  const ids: Record<string, any> = {};

  t.test('POST /user/gpg_keys: RSA with two user ids and an encryption subkey', async (t) => {
    let res = await post(mallory, read('rsa2048.asc'));
    t.equal(res.status, 422, 'no email of the key belongs to the caller');
    t.match(res.json.message, /^armored_public_key: none of the key's email addresses/);
    t.same(await list(mallory), [], 'nothing stored');

    // An added (unverified) address is enough to own the key; it shows as unverified.
    res = await forge.request('POST', '/user/emails', { token: alicew.token, json: { emails: ['alice@work.example'] } });
    t.equal(res.status, 201);
    t.same(res.json, [{ email: 'alice@work.example', verified: false, primary: false }]);
    res = await post(alicew, read('rsa2048.asc'));
    t.equal(res.status, 201);
    checkKey(t, res.json, 'rsa2048', [{ email: 'alice@work.example', verified: false }]);
    ids.alicew = res.json;

    res = await post(alice, read('rsa2048.asc'));
    t.equal(res.status, 422, 'the same key id for another user');
    t.match(res.json.message, /already in the database/);
    res = await post(alicew, read('rsa2048.asc'));
    t.equal(res.status, 422, 'the same key again');

    // Admin deletes alicew's key (subkeys go too); now alice may add it with her verified primary address.
    res = await forge.request('DELETE', `/user/gpg_keys/${ids.alicew.id}`, { token: forge.admin.token });
    t.equal(res.status, 204, 'a site admin deletes another user\'s key');
    for (const id of [ids.alicew.id, ids.alicew.subkeys[0].id]) {
      t.equal((await forge.request('GET', `/user/gpg_keys/${id}`, { token: alicew.token })).status, 404, `row ${id} gone`);
    }
    res = await post(alice, read('rsa2048.asc'));
    t.equal(res.status, 201);
    checkKey(t, res.json, 'rsa2048', [{ email: 'alice@example.com', verified: true }]);
    ids.rsa = res.json;
  });

  t.test('POST /user/gpg_keys: ed25519 with a cv25519 subkey (case-insensitive email match)', async (t) => {
    // bob's account address is Bob@Example.NET; the key says bob@example.net.
    const res = await post(bob, read('ed25519.asc'));
    t.equal(res.status, 201);
    checkKey(t, res.json, 'ed25519', [{ email: 'Bob@Example.NET', verified: true }]);
    ids.ed = res.json;
  });

  t.test('POST /user/gpg_keys: an expired key keeps its real expiry', async (t) => {
    const res = await post(carol, read('expired.asc'));
    t.equal(res.status, 201);
    checkKey(t, res.json, 'expired', [{ email: 'carol@example.com', verified: true }]);
    t.ok(Date.parse(res.json.expires_at) < Date.now(), 'in the past');
    t.not(res.json.subkeys[0].expires_at, res.json.expires_at, 'the subkey has its own expiry');
    ids.expired = res.json;
  });

  t.test('POST /user/gpg_keys: sign-only RSA key; an email a site admin adds is verified', async (t) => {
    let res = await forge.request('POST', '/user/emails', { token: boss.token, json: { emails: ['dave@example.com'] } });
    t.equal(res.status, 201);
    t.same(res.json, [{ email: 'dave@example.com', verified: true, primary: false }]);
    res = await post(boss, read('signonly.asc'));
    t.equal(res.status, 201);
    checkKey(t, res.json, 'signonly', [{ email: 'dave@example.com', verified: true }]);
    t.equal(res.json.can_encrypt_comms, false, 'RSA could encrypt; its key flags say it may not');
    ids.signonly = res.json;
  });

  t.test('POST /user/gpg_keys: two keys in one armor block → the first only', async (t) => {
    const bob2 = await forge.createUser({ email: 'bob2@example.com' });
    // bob already holds the ed25519 key, the first of the block: the block is refused as a duplicate,
    // even though its second key (dave's sign-only one) is not bob's either.
    let res = await post(bob, read('two-keys.asc'));
    t.equal(res.status, 422);
    t.match(res.json.message, /already in the database/);
    res = await forge.request('DELETE', `/user/gpg_keys/${ids.ed.id}`, { token: bob.token });
    t.equal(res.status, 204, 'own key');
    res = await post(bob, read('two-keys.asc'));
    t.equal(res.status, 201);
    t.equal(res.json.key_id, colons('two-keys')[0]!.primary.keyId, 'the first key');
    checkKey(t, res.json, 'ed25519', [{ email: 'Bob@Example.NET', verified: true }]);
    t.equal((await list(bob)).length, 1, 'one key stored');
    ids.ed = res.json;
    res = await post(bob2, read('two-keys.asc'));
    t.equal(res.status, 422, 'bob2 owns no address of the first key');
  });

  t.test('POST /user/gpg_keys: 422 for private blocks, garbage and keys without an email; nothing stored', async (t) => {
    const cases: Array<[string, string, RegExp]> = [
      ...SECRET_FILES.map((f): [string, string, RegExp] => [f, read(f), /private key/]),
      ['disguised secret', disguisedSecret(), /private key material/],
      ['garbage', read('garbage.asc'), /could not be parsed/],
      ['plain text', 'not a key', /not an armored/],
      ['nomail', read('nomail.asc'), /no user id with an email address/],
    ];
    for (const [label, armored, reason] of cases) {
      const res = await post(mallory, armored);
      t.equal(res.status, 422, `${label} → 422`);
      t.match(res.json.message, /^armored_public_key: /, `${label}: names the field`);
      t.match(res.json.message, reason, `${label}: says why`);
      if (label.includes('secret')) t.notOk(res.text.includes(armored.split('\n')[3]!), 'never echoes the key');
    }
    t.same(await list(mallory), [], 'nothing stored');
    // Carol's own secret key (her email matches) is still refused.
    let res = await post(carol, read('expired.secret.asc'));
    t.equal(res.status, 422);
    res = await forge.request('POST', '/user/gpg_keys', { token: mallory.token, json: {} });
    t.equal(res.status, 422, 'missing armored_public_key');
    res = await forge.request('POST', '/user/gpg_keys', { token: mallory.token, json: { armored_public_key: '' } });
    t.equal(res.status, 422, 'empty armored_public_key');
    res = await post(mallory, read('rsa2048.asc').repeat(500));
    t.equal(res.status, 413, 'a body over 1 MiB');
    res = await forge.request('POST', '/user/gpg_keys', { json: { armored_public_key: read('ed25519.asc') } });
    t.equal(res.status, 401, 'anonymous');
    t.same(await list(mallory), [], 'still nothing stored');
  });

  t.test('GET /user/gpg_keys: primaries with subkeys inside, id order, pagination', async (t) => {
    t.equal((await forge.request('GET', '/user/gpg_keys')).status, 401, 'anonymous');
    const mine = await list(alice);
    t.equal(mine.length, 1);
    checkKey(t, mine[0], 'rsa2048', [{ email: 'alice@example.com', verified: true }]);
    // Live email state: once alicew lets go of the work address, alice adds it (unverified) and the key shows it.
    let res = await forge.request('DELETE', '/user/emails', { token: alicew.token, json: { emails: ['alice@work.example'] } });
    t.equal(res.status, 204);
    res = await forge.request('POST', '/user/emails', { token: alice.token, json: { emails: ['alice@work.example'] } });
    t.equal(res.status, 201);
    res = await forge.request('GET', `/user/gpg_keys/${ids.rsa.id}`, { token: alice.token });
    t.same(res.json.emails, [{ email: 'alice@work.example', verified: false }, { email: 'alice@example.com', verified: true }],
      'user-id order, each with its verified state');
    res = await forge.request('DELETE', '/user/emails', { token: alice.token, json: { emails: ['alice@work.example'] } });
    t.equal(res.status, 204);
    res = await forge.request('GET', `/user/gpg_keys/${ids.rsa.id}`, { token: alice.token });
    t.same(res.json.emails, [{ email: 'alice@example.com', verified: true }], 'a removed address no longer shows');
    res = await forge.request('GET', '/user/gpg_keys?limit=1&page=1', { token: alice.token });
    t.equal(res.headers.get('x-total-count'), '1', 'primaries only are counted');
    t.equal(res.json[0].subkeys.length, 1);
  });

  t.test('GET /user/gpg_keys/{id}: own 200, subkey row 200, another user 404, admin 200, missing 404', async (t) => {
    let res = await forge.request('GET', `/user/gpg_keys/${ids.rsa.id}`, { token: alice.token });
    t.equal(res.status, 200);
    checkKey(t, res.json, 'rsa2048', [{ email: 'alice@example.com', verified: true }]);
    const sub = ids.rsa.subkeys[0];
    res = await forge.request('GET', `/user/gpg_keys/${sub.id}`, { token: alice.token });
    t.equal(res.status, 200, 'a subkey row by its own id');
    t.same(res.json, sub, 'the same object as inside its primary');
    res = await forge.request('GET', `/user/gpg_keys/${ids.rsa.id}`, { token: bob.token });
    t.equal(res.status, 404, 'another user');
    t.match(res.json, { message: "The target couldn't be found.", url: String });
    res = await forge.request('GET', `/user/gpg_keys/${sub.id}`, { token: bob.token });
    t.equal(res.status, 404, 'another user\'s subkey');
    res = await forge.request('GET', `/user/gpg_keys/${ids.rsa.id}`, { token: forge.admin.token });
    t.equal(res.status, 200, 'a site admin');
    res = await forge.request('GET', '/user/gpg_keys/987654', { token: alice.token });
    t.equal(res.status, 404);
    t.match(res.json, { message: "The target couldn't be found.", url: String });
    t.equal((await forge.request('GET', `/user/gpg_keys/${ids.rsa.id}`)).status, 401, 'anonymous');
  });

  t.test('GET /users/{username}/gpg_keys: public list; unknown user 404', async (t) => {
    let res = await forge.request('GET', `/users/${carol.username}/gpg_keys`);
    t.equal(res.status, 200, 'anonymous');
    t.equal(res.json.length, 1);
    checkKey(t, res.json[0], 'expired', [{ email: 'carol@example.com', verified: true }]);
    t.equal(res.headers.get('x-total-count'), '1');
    res = await forge.request('GET', `/users/${bob.username.toUpperCase()}/gpg_keys`, { token: alice.token });
    t.equal(res.status, 200);
    t.equal(res.json[0].key_id, facts('ed25519').primary.keyId);
    res = await forge.request('GET', `/users/${mallory.username}/gpg_keys`);
    t.same(res.json, []);
    res = await forge.request('GET', '/users/nobody-here/gpg_keys');
    t.equal(res.status, 404);
    t.match(res.json, { message: "The target couldn't be found.", url: String });
  });

  t.test('GET /{username}.gpg: the armored keys', async (t) => {
    let res = await forge.request('GET', `/${alice.username}.gpg`, { root: true });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; charset=utf-8/);
    t.match(res.text, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    let keys = await openpgp.readKeys({ armoredKeys: res.text });
    t.same(keys.map((k) => k.getFingerprint().toUpperCase()), [facts('rsa2048').primary.fingerprint]);
    t.same(keys[0]!.getUserIDs(), facts('rsa2048').uids, 'user ids kept, so gpg --import works');
    t.same(keys[0]!.subkeys.map((s) => s.getFingerprint().toUpperCase()), facts('rsa2048').subkeys.map((s) => s.fingerprint));
    t.notOk(keys[0]!.isPrivate());
    res = await forge.request('GET', `/${mallory.username}.gpg`, { root: true });
    t.equal(res.status, 200);
    t.equal(res.text, '', 'no keys: empty');
    res = await forge.request('GET', '/nobody-here.gpg', { root: true });
    t.equal(res.status, 404);
  });

  t.test('DELETE /user/gpg_keys/{id}: another user 403, admin 204, own 204, subkey alone, missing 404', async (t) => {
    let res = await forge.request('DELETE', `/user/gpg_keys/${ids.expired.id}`, { token: alice.token });
    t.equal(res.status, 403, 'another user');
    t.equal(res.json.message, 'You do not have access to this key');
    res = await forge.request('DELETE', `/user/gpg_keys/${ids.expired.subkeys[0].id}`, { token: alice.token });
    t.equal(res.status, 403, 'another user\'s subkey');
    t.equal((await list(carol)).length, 1, 'still there');

    // A subkey row alone: the primary stays, without it.
    res = await forge.request('DELETE', `/user/gpg_keys/${ids.expired.subkeys[0].id}`, { token: carol.token });
    t.equal(res.status, 204);
    const [left] = await list(carol);
    t.equal(left.id, ids.expired.id);
    t.same(left.subkeys, [], 'the subkey is gone, the primary stays');

    res = await forge.request('DELETE', `/user/gpg_keys/${ids.expired.id}`, { token: boss.token });
    t.equal(res.status, 204, 'a site admin');
    t.same(await list(carol), []);

    res = await forge.request('DELETE', `/user/gpg_keys/${ids.rsa.id}`, { token: alice.token });
    t.equal(res.status, 204, 'own key');
    for (const id of [ids.rsa.id, ids.rsa.subkeys[0].id]) {
      t.equal((await forge.request('GET', `/user/gpg_keys/${id}`, { token: forge.admin.token })).status, 404, 'the primary takes its subkeys with it');
    }
    res = await forge.request('DELETE', `/user/gpg_keys/${ids.rsa.id}`, { token: alice.token });
    t.equal(res.status, 404, 'again');
    t.equal((await forge.request('DELETE', `/user/gpg_keys/${ids.ed.id}`)).status, 401, 'anonymous');
    res = await post(alice, read('rsa2048.asc'));
    t.equal(res.status, 201, 'the key id is free again');
  });

  t.test('a deleted account takes its keys with it', async (t) => {
    t.equal((await forge.request('DELETE', `/admin/users/${bob.username}`, { token: forge.admin.token })).status, 204);
    const heir = await forge.createUser({ email: 'bob@example.net' });
    // Several uploads at once: the unique key_id index lets exactly one through, with its subkey.
    const race = await Promise.all([0, 1, 2, 3].map(() => post(heir, read('ed25519.asc'))));
    t.same(race.map((r) => r.status).sort(), [201, 422, 422, 422], 'the deleted account\'s key ids are free; one upload wins');
    const [stored] = await list(heir);
    t.equal((await list(heir)).length, 1);
    checkKey(t, stored, 'ed25519', [{ email: 'bob@example.net', verified: true }]);
  });

  t.test('several keys: pagination over primaries and one armored block', async (t) => {
    // carol's account goes, freeing her address; a site admin adds it (verified) and owns two keys then.
    t.equal((await forge.request('DELETE', `/admin/users/${carol.username}`, { token: forge.admin.token })).status, 204);
    t.equal((await forge.request('POST', '/user/emails', { token: boss.token, json: { emails: ['carol@example.com'] } })).status, 201);
    let res = await post(boss, read('expired.asc'));
    t.equal(res.status, 201);
    checkKey(t, res.json, 'expired', [{ email: 'carol@example.com', verified: true }]);
    res = await forge.request('GET', '/user/gpg_keys?limit=1', { token: boss.token });
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-total-count'), '2');
    t.match(res.headers.get('link'), /\/user\/gpg_keys\?limit=1&page=2>; rel="next"/);
    t.equal(res.json[0].key_id, facts('signonly').primary.keyId, 'id order: the older key first');
    const store = forge.forge.store.collection('gpg_keys');
    t.same(await store.explain({ ownerId: boss.id, primaryKeyId: '' }, { sort: { id: 1 }, skip: 0, limit: 30 }),
      { index: 'ownerId_1_primaryKeyId_1', examined: 2, returned: 2 }, 'the list reads the owner\'s primaries only');
    t.same((await store.explain({ keyId: { $in: [facts('expired').primary.keyId] } })).index, 'keyId_1', 'the duplicate check is an index lookup');
    res = await forge.request('GET', `/users/${boss.username}/gpg_keys?limit=1&page=2`);
    t.equal(res.json.length, 1);
    checkKey(t, res.json[0], 'expired', [{ email: 'carol@example.com', verified: true }]);
    res = await forge.request('GET', `/${boss.username}.gpg`, { root: true });
    t.equal(res.text.match(/-----BEGIN PGP PUBLIC KEY BLOCK-----/g)?.length, 1, 'one armor block');
    const keys = await openpgp.readKeys({ armoredKeys: res.text });
    t.same(keys.map((k) => k.getFingerprint().toUpperCase()), [facts('signonly').primary.fingerprint, facts('expired').primary.fingerprint]);
  });
});
