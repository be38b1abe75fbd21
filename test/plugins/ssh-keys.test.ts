// ssh-keys: the parser against keys made by ssh-keygen (every field checked against `ssh-keygen -lf`), then every
// endpoint and status through real HTTP: /user/keys, /user/keys/{id}, /users/{username}/keys and /{username}.keys.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { parseSshPublicKey, SshKeyError, type MinimumSizes } from '../../plugins/ssh-keys/parse.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

const DIR = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'ssh');
const read = (name: string) => readFileSync(path.join(DIR, name), 'utf8');
const DEFAULT_MINIMUMS: MinimumSizes = { ed25519: 256, ecdsa: 256, rsa: 2048, dsa: -1 };

/** What `ssh-keygen -lf <name>.pub` said about a fixture: "<bits> <fingerprint> <comment> (<TYPE>)". */
interface KeygenFacts { bits: number; fingerprint: string; comment: string; type: string }
function keygen(name: string): KeygenFacts {
  const m = /^(\d+) (SHA256:[A-Za-z0-9+/]{43}) (.*) \((RSA|DSA|ECDSA|ED25519)\)\n$/.exec(read(`${name}.pub.lf.txt`));
  if (!m) throw new Error(`unexpected ssh-keygen output for ${name}`);
  const bits = Number(m[1]);
  const type = { RSA: 'ssh-rsa', DSA: 'ssh-dss', ED25519: 'ssh-ed25519', ECDSA: `ecdsa-sha2-nistp${bits}` }[m[4] as 'RSA'];
  return { bits, fingerprint: m[2]!, comment: m[3]!, type };
}
/** The .pub file's own line: what is stored and served. */
const pubLine = (name: string) => read(`${name}.pub`).trim();

const ACCEPTED = ['rsa-2048', 'ed25519', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521'];
const PRIVATE_FILES = readdirSync(DIR).filter((f) => f.endsWith('.private')).sort();

function refusal(input: string, minimums: MinimumSizes = DEFAULT_MINIMUMS): string {
  try {
    parseSshPublicKey(input, minimums);
  } catch (err) {
    if (err instanceof SshKeyError) return err.message;
    throw err;
  }
  throw new Error('the key was accepted');
}

/** A wire blob built by hand: uint32-length-prefixed strings. */
function wire(...parts: Buffer[]): string {
  return Buffer.concat(parts.flatMap((p) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(p.length);
    return [len, p];
  })).toString('base64');
}

t.test('parser: every fixture matches what ssh-keygen -lf says', async (t) => {
  for (const name of [...ACCEPTED, 'rsa-1024', 'dsa', 'ed25519-bob']) {
    const facts = keygen(name);
    const k = parseSshPublicKey(read(`${name}.pub`), { ed25519: 256, ecdsa: 256, rsa: 1024, dsa: 1024 });
    t.equal(k.type, facts.type, `${name} type`);
    t.equal(k.bits, facts.bits, `${name} bits`);
    t.equal(k.fingerprint, facts.fingerprint, `${name} fingerprint`);
    t.equal(k.comment, facts.comment, `${name} comment`);
    t.equal(k.line, pubLine(name), `${name} normalised line is the .pub line`);
  }
});

t.test('parser: other notations of the same key', async (t) => {
  const ed = keygen('ed25519-bob');
  const fromOptions = parseSshPublicKey(read('ed25519-bob.authorized_keys'), DEFAULT_MINIMUMS);
  t.equal(fromOptions.fingerprint, ed.fingerprint, 'authorized_keys options are stripped');
  t.equal(fromOptions.line, pubLine('ed25519-bob'), 'the options are not stored');
  t.equal(parseSshPublicKey(`no-pty,no-agent-forwarding ${pubLine('ed25519-bob')}`, DEFAULT_MINIMUMS).line, pubLine('ed25519-bob'));

  const crlf = `  \r\n${pubLine('rsa-2048')}\r\n\r\n  `;
  t.equal(parseSshPublicKey(crlf, DEFAULT_MINIMUMS).line, pubLine('rsa-2048'), 'CRLF and surrounding whitespace');
  t.equal(parseSshPublicKey(pubLine('ed25519').replace(' ', '\t'), DEFAULT_MINIMUMS).line, pubLine('ed25519'), 'a tab separator');
  const [, b64, ...comment] = pubLine('ed25519').split(' ');
  const typeless = parseSshPublicKey(`${b64} ${comment.join(' ')}`, DEFAULT_MINIMUMS);
  t.equal(typeless.line, pubLine('ed25519'), 'a line without its type takes the type from the blob');
  t.equal(parseSshPublicKey(`ssh-ed25519 ${b64}`, DEFAULT_MINIMUMS).line, `ssh-ed25519 ${b64}`, 'no comment: two fields');

  for (const name of ['ecdsa-384', 'rsa-2048']) {
    const block = read(`${name}.rfc4716`);
    const k = parseSshPublicKey(block, DEFAULT_MINIMUMS);
    const facts = keygen(name);
    t.equal(k.fingerprint, facts.fingerprint, `${name} RFC 4716 fingerprint`);
    t.equal(k.bits, facts.bits, `${name} RFC 4716 bits`);
    const comment = /^Comment: "(.*)"$/m.exec(block)![1]!;
    t.equal(k.line, `${facts.type} ${pubLine(name).split(' ')[1]} ${comment}`, `${name} RFC 4716 comment header becomes the comment`);
    t.equal(parseSshPublicKey(block.replace(/\n/g, '\r\n'), DEFAULT_MINIMUMS).fingerprint, facts.fingerprint, 'RFC 4716 with CRLF');
  }
  // Header continuation lines and an unquoted comment.
  const body = read('ecdsa-384.rfc4716').split('\n').filter((l) => !l.startsWith('----') && !l.startsWith('Comment:') && l);
  const continued = ['---- BEGIN SSH2 PUBLIC KEY ----', 'Subject: a very \\', 'long header', 'Comment: plain words', ...body, '---- END SSH2 PUBLIC KEY ----'].join('\n');
  t.equal(parseSshPublicKey(continued, DEFAULT_MINIMUMS).comment, 'plain words');
  t.equal(parseSshPublicKey(`${pubLine('ed25519')}\u0007\u001b[31m`, DEFAULT_MINIMUMS).comment, 'alice@desktop[31m', 'control characters never reach authorized_keys');
});

t.test('parser: refusals say why', async (t) => {
  for (const file of PRIVATE_FILES) t.match(refusal(read(file)), /private key/, `${file} refused as a private key`);
  t.match(refusal(`${pubLine('ed25519')}\n${pubLine('rsa-2048')}`), /one key/, 'two lines');
  t.match(refusal(`${read('ecdsa-384.rfc4716')}${read('rsa-2048.rfc4716')}`), /one key/, 'two RFC 4716 blocks');
  const [type, b64, comment] = pubLine('rsa-2048').split(' ') as [string, string, string];
  t.match(refusal(`${type} ${b64.slice(0, 200)} ${comment}`), /truncated/, 'truncated base64 (on a 4-character boundary)');
  t.match(refusal(`${type} ${b64.slice(0, 201)} ${comment}`), /truncated|base64/, 'truncated base64 (mid-quantum)');
  t.match(refusal(`${type} ${b64.slice(0, -4)}==== ${comment}`), /truncated|base64/, 'bad padding');
  t.match(refusal(`ssh-ed25519 ${b64} x`), /"ssh-ed25519" does not match the key data, which is "ssh-rsa"/, 'type does not match the blob');
  t.match(refusal(`ssh-foo ${wire(Buffer.from('ssh-foo'), Buffer.alloc(32, 1))}`), /unsupported key type "ssh-foo"/, 'unknown type');
  t.match(refusal(`sk-ssh-ed25519@openssh.com ${wire(Buffer.from('sk-ssh-ed25519@openssh.com'), Buffer.alloc(32, 1), Buffer.from('ssh:'))}`), /unsupported key type/, 'security-key type');
  t.match(refusal(`ssh-ed25519 ${wire(Buffer.from('ssh-ed25519'), Buffer.alloc(32, 1), Buffer.from('extra'))}`), /unexpected bytes/, 'trailing data');
  t.match(refusal(`ssh-ed25519 ${wire(Buffer.from('ssh-ed25519'), Buffer.alloc(31, 1))}`), /32 bytes/, 'short ed25519 key');
  const ecPoint = Buffer.from(pubLine('ecdsa-256').split(' ')[1]!, 'base64');
  ecPoint[ecPoint.length - 2]! ^= 0x5a;
  t.match(refusal(`ecdsa-sha2-nistp256 ${ecPoint.toString('base64')}`), /not a valid ecdsa-sha2-nistp256 public key/, 'a point off the curve');
  t.match(refusal(read('rsa-1024.pub')), /too short: 1024 bits, this server needs at least 2048 for rsa/, 'rsa-1024 under the default minimum');
  t.match(refusal(read('dsa.pub')), /key type "ssh-dss" is not allowed/, 'dsa off by default');
  t.match(refusal(read('rsa-2048.pub'), { ...DEFAULT_MINIMUMS, rsa: 4096 }), /needs at least 4096/, 'a raised minimum');
  t.match(refusal(read('ed25519.pub'), { rsa: 2048 }), /not allowed/, 'a family missing from the map is refused');
  t.match(refusal('   \r\n  '), /empty/);
  t.match(refusal('hello world, this is not a key'), /not an SSH public key/, 'garbage');
  t.match(refusal('command="unterminated ssh-ed25519 AAAA'), /not an SSH public key/, 'unterminated option quote');
  t.match(refusal(read('../gpg/rsa2048.asc')), /RFC 4716|single line|not an SSH/, 'a GPG key is not an SSH key');
  t.match(refusal(read('../gpg/rsa2048.secret.asc')), /private key/, 'a GPG private key is refused as private');
  t.match(refusal(`${read('ecdsa-384.rfc4716').replace('---- END SSH2 PUBLIC KEY ----', '')}`), /must start with/, 'RFC 4716 without its END line');
});

t.test('parser: mutated keys are refused with a reason, never a crash', async (t) => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  let refused = 0;
  for (const name of ['rsa-2048', 'ed25519', 'ecdsa-521', 'dsa']) {
    const [type, b64] = pubLine(name).split(' ') as [string, string];
    const blob = Buffer.from(b64, 'base64');
    for (let i = 0; i < 150; i++) {
      const b = Buffer.from(blob);
      b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      const mutated = rnd() < 0.4 ? b.subarray(0, Math.floor(rnd() * b.length)) : b;
      try {
        parseSshPublicKey(`${type} ${mutated.toString('base64')}`, { ed25519: 256, ecdsa: 256, rsa: 1024, dsa: 1024 });
      } catch (err) {
        if (!(err instanceof SshKeyError)) throw err;
        refused++;
      }
    }
  }
  t.ok(refused > 0, `${refused} of 600 mutations refused with a reason; none crashed`);
});

t.test('HTTP', async (t) => {
  const forge = await startForge();
  t.teardown(() => forge.close());
  const alice = await forge.createUser();
  const bob = await forge.createUser();
  const carol = await forge.createUser();
  const list = async (user: TestUser) => (await forge.request('GET', '/user/keys', { token: user.token })).json as any[];
  const add = (user: TestUser, title: string, key: string) => forge.request('POST', '/user/keys', { token: user.token, json: { title, key } });
  const ids: Record<string, number> = {};

  t.test('POST /user/keys: 201 for each accepted type, every field checked', async (t) => {
    for (const name of ACCEPTED) {
      const before = Date.now() - 1000;
      const res = await add(alice, `title ${name}`, read(`${name}.pub`));
      t.equal(res.status, 201, `${name} → 201`);
      const facts = keygen(name);
      const body = res.json;
      t.same(Object.keys(body).sort(), ['created_at', 'fingerprint', 'id', 'key', 'key_type', 'read_only', 'title', 'url', 'user'], "the owner's view carries Gitea's private information");
      t.ok(Number.isSafeInteger(body.id) && body.id > 0, 'integer id');
      t.equal(body.key, pubLine(name), 'the normalised line');
      t.equal(body.key.split(' ')[0], facts.type, 'type as ssh-keygen names it');
      t.equal(body.fingerprint, facts.fingerprint, 'fingerprint as ssh-keygen computes it');
      t.equal(body.key.split(' ').slice(2).join(' '), facts.comment, 'comment as ssh-keygen shows it');
      t.equal(body.title, `title ${name}`);
      t.equal(body.url, `${forge.api}/user/keys/${body.id}`);
      t.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      t.ok(Date.parse(body.created_at) >= before && Date.parse(body.created_at) <= Date.now() + 1000, 'created now');
      ids[name] = body.id;
    }
    t.equal((await list(alice)).length, ACCEPTED.length);
  });

  t.test('POST /user/keys: other notations are normalised', async (t) => {
    let res = await add(bob, 'with options', read('ed25519-bob.authorized_keys'));
    t.equal(res.status, 201);
    t.equal(res.json.key, pubLine('ed25519-bob'), 'options stripped');
    t.equal(res.json.fingerprint, keygen('ed25519-bob').fingerprint);
    ids.bob = res.json.id;
    // The RFC 4716 export of alice's ecdsa-384 is the same key: refused as a duplicate, proving the parse.
    res = await add(carol, 'rfc4716', read('ecdsa-384.rfc4716'));
    t.equal(res.status, 422);
    t.match(res.json.message, /key: this key is already in use/);
    res = await add(carol, 'rfc4716 crlf', read('rsa-2048.rfc4716').replace(/\n/g, '\r\n'));
    t.equal(res.status, 422, 'the CRLF RFC 4716 export of alice\'s rsa key is the same key');
  });

  t.test('POST /user/keys: 422 with the reason, nothing stored', async (t) => {
    const before = await list(carol);
    const cases: Array<[string, string, RegExp]> = [
      ['rsa-1024', read('rsa-1024.pub'), /too short: 1024 bits/],
      ['dsa', read('dsa.pub'), /"ssh-dss" is not allowed/],
      ['two keys', `${pubLine('ed25519')}\n${pubLine('ecdsa-256')}`, /one key/],
      ['truncated', pubLine('rsa-1024').slice(0, 120), /truncated/],
      ['mismatch', pubLine('rsa-1024').replace('ssh-rsa', 'ssh-ed25519'), /does not match/],
      ['unknown type', `ssh-foo ${wire(Buffer.from('ssh-foo'), Buffer.alloc(8))}`, /unsupported key type/],
      ['garbage', 'this is not a key at all', /not an SSH public key/],
      ['gpg key', read('../gpg/ed25519.asc'), /./],
    ];
    for (const file of PRIVATE_FILES) cases.push([file, read(file), /private key/]);
    for (const [label, key, reason] of cases) {
      const res = await add(carol, label, key);
      t.equal(res.status, 422, `${label} → 422`);
      t.match(res.json?.message, /^key: /, `${label}: the message names the field`);
      t.match(res.json?.message, reason, `${label}: the message says why`);
      t.equal(typeof res.json?.url, 'string');
      if (label.endsWith('.private')) {
        const secretLine = key.split('\n')[1]!;
        t.notOk(res.text.includes(secretLine), `${label}: the private key is never echoed`);
      }
    }
    t.same(await list(carol), before, 'nothing stored');
  });

  t.test('POST /user/keys: duplicates, bad bodies, size limit', async (t) => {
    let res = await add(alice, 'again', read('ed25519.pub'));
    t.equal(res.status, 422, 'same key, same user');
    t.match(res.json.message, /already in use/);
    res = await add(bob, 'stolen', read('ed25519.pub'));
    t.equal(res.status, 422, 'same key, another user: fingerprints are unique across users');
    t.notOk(res.text.includes(alice.username), 'the owner is not revealed');
    res = await add(alice, 'title ed25519', read('ed25519-bob.pub'));
    t.equal(res.status, 422, 'title already used by this user');
    t.match(res.json.message, /^title: /);
    res = await add(alice, '   ', read('ecdsa-256.pub'));
    t.equal(res.status, 422, 'blank title');
    res = await forge.request('POST', '/user/keys', { token: carol.token, json: { title: 'no key' } });
    t.equal(res.status, 422, 'missing key');
    t.match(res.json.message, /key/);
    res = await forge.request('POST', '/user/keys', { token: carol.token, json: { key: read('ed25519.pub') } });
    t.equal(res.status, 422, 'missing title');
    res = await forge.request('POST', '/user/keys', { token: carol.token, body: '{"title": "x", "key": ', headers: { 'Content-Type': 'application/json' } });
    t.equal(res.status, 400, 'malformed JSON');
    res = await forge.request('POST', '/user/keys', { token: carol.token, body: 'title=x' });
    t.equal(res.status, 415, 'not JSON');
    res = await add(carol, 'huge', 'ssh-ed25519 ' + 'A'.repeat(1100 * 1024));
    t.equal(res.status, 413, 'a body over 1 MiB');
    res = await add(carol, 'long', 'ssh-ed25519 ' + 'A'.repeat(70000));
    t.equal(res.status, 422, 'a key field over 64 KiB');
    res = await forge.request('POST', '/user/keys', { json: { title: 'anon', key: read('ed25519.pub') } });
    t.equal(res.status, 401, 'anonymous');
    t.same(await list(carol), [], 'nothing stored');
  });

  t.test('GET /user/keys: id order, pagination headers', async (t) => {
    const all = await list(alice);
    t.same(all.map((k) => k.id), ACCEPTED.map((n) => ids[n]), 'id ascending');
    const res = await forge.request('GET', '/user/keys?limit=2&page=2', { token: alice.token });
    t.equal(res.status, 200);
    t.same(res.json.map((k: any) => k.id), [ids['ecdsa-256'], ids['ecdsa-384']]);
    t.equal(res.headers.get('x-total-count'), String(ACCEPTED.length));
    const link = res.headers.get('link')!;
    t.match(link, /\/user\/keys\?limit=2&page=3>; rel="next"/);
    t.match(link, /\/user\/keys\?limit=2&page=1>; rel="first"/);
    t.equal((await forge.request('GET', '/user/keys')).status, 401, 'anonymous → 401');
    t.same(await list(carol), [], 'a user without keys → []');
    // The list is served by the owner index: it examines the owner's keys only, not everyone's.
    const plan = await forge.forge.store.collection('public_keys').explain({ ownerId: alice.id }, { sort: { id: 1 }, skip: 0, limit: 30 });
    t.same(plan, { index: 'ownerId_1', examined: ACCEPTED.length, returned: ACCEPTED.length });
    const fp = await forge.forge.store.collection('public_keys').explain({ fingerprint: keygen('ed25519').fingerprint });
    t.same(fp, { index: 'fingerprint_1', examined: 1, returned: 1 }, 'the duplicate check is an index lookup');
  });

  t.test('GET /user/keys/{id}: own 200, another user 404, admin 200, missing 404', async (t) => {
    const id = ids['ed25519']!;
    let res = await forge.request('GET', `/user/keys/${id}`, { token: alice.token });
    t.equal(res.status, 200);
    t.equal(res.json.fingerprint, keygen('ed25519').fingerprint);
    t.equal(res.json.key, pubLine('ed25519'));
    res = await forge.request('GET', `/user/keys/${id}`, { token: bob.token });
    t.equal(res.status, 404, 'another user');
    t.match(res.json, { message: "The target couldn't be found.", url: String }, 'the fixed 404 body');
    res = await forge.request('GET', `/user/keys/${id}`, { token: forge.admin.token });
    t.equal(res.status, 200, 'a site admin sees every key');
    res = await forge.request('GET', '/user/keys/999999', { token: alice.token });
    t.equal(res.status, 404);
    t.match(res.json, { message: "The target couldn't be found.", url: String }, 'missing reads the same as invisible');
    t.equal((await forge.request('GET', `/user/keys/${id}`)).status, 401, 'anonymous');
    t.ok([400, 404, 422].includes((await forge.request('GET', '/user/keys/abc', { token: alice.token })).status), 'a non-numeric id is a 4xx');
  });

  t.test('GET /users/{username}/keys: public list; unknown user 404', async (t) => {
    let res = await forge.request('GET', `/users/${alice.username}/keys`);
    t.equal(res.status, 200, 'anonymous read');
    t.same(res.json.map((k: any) => k.fingerprint), ACCEPTED.map((n) => keygen(n).fingerprint));
    t.equal(res.headers.get('x-total-count'), String(ACCEPTED.length));
    res = await forge.request('GET', `/users/${alice.username.toUpperCase()}/keys?limit=1`, { token: bob.token });
    t.equal(res.status, 200, 'case-insensitive name, signed in');
    t.equal(res.json.length, 1);
    t.match(res.headers.get('link') ?? '', /rel="next"/);
    res = await forge.request('GET', '/users/no-such-user/keys');
    t.equal(res.status, 404);
    t.match(res.json, { message: "The target couldn't be found.", url: String });
  });

  t.test('GET /{username}.keys: one key per line', async (t) => {
    let res = await forge.request('GET', `/${alice.username}.keys`, { root: true });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; charset=utf-8/);
    t.equal(res.text, ACCEPTED.map((n) => `${pubLine(n)}\n`).join(''), 'exactly the .pub lines, in id order');
    res = await forge.request('GET', `/${bob.username}.keys`, { root: true });
    t.equal(res.text, `${pubLine('ed25519-bob')}\n`, 'options never served');
    res = await forge.request('GET', `/${carol.username}.keys`, { root: true });
    t.equal(res.status, 200);
    t.equal(res.text, '', 'no keys: empty');
    res = await forge.request('GET', '/no-such-user.keys', { root: true });
    t.equal(res.status, 404);
  });

  t.test('DELETE /user/keys/{id}: another user 403, admin 204, own 204, missing 404', async (t) => {
    let res = await forge.request('DELETE', `/user/keys/${ids['rsa-2048']}`, { token: bob.token });
    t.equal(res.status, 403, 'another user');
    t.equal(res.json.message, 'You do not have access to this key');
    t.equal(typeof res.json.url, 'string');
    t.equal((await list(alice)).length, ACCEPTED.length, 'still there');
    res = await forge.request('DELETE', `/user/keys/${ids['rsa-2048']}`, { token: forge.admin.token });
    t.equal(res.status, 204, 'a site admin may delete');
    t.equal(res.text, '');
    res = await forge.request('DELETE', `/user/keys/${ids['ed25519']}`, { token: alice.token });
    t.equal(res.status, 204, 'own key');
    res = await forge.request('GET', `/user/keys/${ids['ed25519']}`, { token: alice.token });
    t.equal(res.status, 404, 'gone');
    res = await forge.request('DELETE', `/user/keys/${ids['ed25519']}`, { token: alice.token });
    t.equal(res.status, 404, 'deleting it again');
    t.equal((await forge.request('DELETE', `/user/keys/${ids['ecdsa-256']}`)).status, 401, 'anonymous');
    t.same((await list(alice)).map((k) => k.id), [ids['ecdsa-256'], ids['ecdsa-384'], ids['ecdsa-521']]);
    // The fingerprint is free again once deleted.
    res = await add(bob, 'now mine', read('ed25519.pub'));
    t.equal(res.status, 201, 'a deleted key can be added again, by anyone');
  });

  t.test('a deleted account takes its keys with it', async (t) => {
    const dave = await forge.createUser();
    t.equal((await add(dave, 'dave', read('rsa-2048.pub'))).status, 201);
    t.equal((await add(carol, 'taken', read('rsa-2048.pub'))).status, 422, 'taken while dave exists');
    t.equal((await forge.request('DELETE', `/admin/users/${dave.username}`, { token: forge.admin.token })).status, 204);
    const again = await add(carol, 'after delete', read('rsa-2048.pub'));
    t.equal(again.status, 201, 'the deleted account\'s fingerprint is free');
  });
});

t.test('HTTP with configured minimum sizes', async (t) => {
  const forge: TestForge = await startForge({ config: { plugins: { 'ssh-keys': { minimumSizes: { rsa: 1024, dsa: 1024, ecdsa: 384 } } } } });
  t.teardown(() => forge.close());
  const user = await forge.createUser();
  for (const name of ['rsa-1024', 'dsa']) {
    const res = await forge.request('POST', '/user/keys', { token: user.token, json: { title: name, key: read(`${name}.pub`) } });
    t.equal(res.status, 201, `${name} accepted when allowed`);
    t.equal(res.json.fingerprint, keygen(name).fingerprint);
    t.equal(res.json.key, pubLine(name));
  }
  const res = await forge.request('POST', '/user/keys', { token: user.token, json: { title: 'ec', key: read('ecdsa-256.pub') } });
  t.equal(res.status, 422, 'ecdsa-256 under a 384 minimum');
  t.match(res.json.message, /256 bits, this server needs at least 384 for ecdsa/);
  const ok = await forge.request('POST', '/user/keys', { token: user.token, json: { title: 'ec521', key: read('ecdsa-521.pub') } });
  t.equal(ok.status, 201);

  // RFC 4716 and CRLF through HTTP: stored as the normalised one-line form.
  const rfc = await forge.request('POST', '/user/keys', { token: user.token, json: { title: 'rfc', key: read('ecdsa-384.rfc4716') } });
  t.equal(rfc.status, 201, 'an RFC 4716 block');
  t.equal(rfc.json.fingerprint, keygen('ecdsa-384').fingerprint);
  t.equal(rfc.json.key, `ecdsa-sha2-nistp384 ${pubLine('ecdsa-384').split(' ')[1]} ${/^Comment: "(.*)"$/m.exec(read('ecdsa-384.rfc4716'))![1]}`);
  const crlf = await forge.request('POST', '/user/keys', { token: user.token, json: { title: 'crlf', key: `\r\n  ${pubLine('rsa-2048')}\r\n` } });
  t.equal(crlf.status, 201, 'CRLF and surrounding whitespace');
  t.equal(crlf.json.key, pubLine('rsa-2048'));
  t.equal(crlf.json.fingerprint, keygen('rsa-2048').fingerprint);

  // Concurrent adds of one key by two users: the unique fingerprint index lets exactly one through.
  const other = await forge.createUser();
  const race = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => forge.request('POST', '/user/keys', {
    token: i % 2 ? user.token : other.token, json: { title: `race ${i}`, key: read('ed25519.pub') },
  })));
  t.same(race.map((r) => r.status).sort(), [201, 422, 422, 422, 422, 422], 'exactly one wins, the rest are 422 (never 500)');
  const stored = [
    ...(await forge.request('GET', '/user/keys', { token: user.token })).json,
    ...(await forge.request('GET', '/user/keys', { token: other.token })).json,
  ].filter((k: any) => k.fingerprint === keygen('ed25519').fingerprint);
  t.equal(stored.length, 1, 'stored once');
});
