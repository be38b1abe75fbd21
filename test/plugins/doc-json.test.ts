// JSON made once per stored document version (plugins/lib/doc-json.ts): the cache itself, then the lists that use it
// through HTTP — every view is what a fresh serialisation gives, and a changed document is seen at once.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { DocJson, joinPieces, listPiece } from '../../plugins/lib/doc-json.js';
import { startForge } from '../helpers/forge.js';

t.test('DocJson: once per object and view, a new object is rendered again', async (t) => {
  let renders = 0;
  const json = new DocJson<{ id: number; name: string }>((doc, view) => {
    renders++;
    return JSON.stringify(view === 1 ? doc : { id: doc.id });
  });
  const list = (...args: Parameters<typeof json.list>) => {
    const pieces = json.list(...args);
    t.ok(pieces.every((p) => Buffer.isBuffer(p)), 'a list is UTF-8 bytes in pieces');
    return Buffer.concat(pieces).toString('utf8');
  };
  const a = Object.freeze({ id: 1, name: 'ä "q"' });
  const b = Object.freeze({ id: 2, name: 'b' });
  t.equal(list([]), '[]');
  t.equal(list([a, b]), '[{"id":1},{"id":2}]');
  t.equal(list([a, b], (d) => (d.id === 1 ? 1 : 0)), '[{"id":1,"name":"ä \\"q\\""},{"id":2}]');
  t.equal(renders, 3, 'two documents in view 0, one in view 1');
  t.same(JSON.parse(list([b, a, b])), [{ id: 2 }, { id: 1 }, { id: 2 }], 'order as given, repeats allowed');
  t.equal(list([a], () => 1), '[{"id":1,"name":"ä \\"q\\""}]', 'a one-item list of a non-ASCII piece');
  t.equal(renders, 3, 'nothing rendered again');
  t.equal(json.of(a, 1), '{"id":1,"name":"ä \\"q\\""}', 'one document\'s JSON');
  const a2 = Object.freeze({ ...a, id: 10 });
  t.equal(json.of(a2), '{"id":10}', 'a changed document (a new version object) is rendered anew');
  t.equal(renders, 4);
});

t.test('joinPieces: list pieces into one JSON array', async (t) => {
  const joined = (...args: Parameters<typeof joinPieces>) => Buffer.concat(joinPieces(...args));
  const piece = listPiece('{"a":1}');
  const pieces = joinPieces([piece, piece]);
  t.equal(pieces[1]!.buffer, piece.buffer, 'the first item is a view of its piece, not a copy');
  t.equal(pieces[2], piece, 'the others are the pieces themselves');
  t.equal(joined([]).toString(), '[]');
  t.equal(joined([listPiece('1')]).toString(), '[1]');
  t.equal(joined([listPiece('"€"'), listPiece('{}'), listPiece('null')]).toString(), '["€",{},null]');
  const big = 'x'.repeat(5000);
  t.same(JSON.parse(joined([listPiece(JSON.stringify(big)), listPiece('2')]).toString()), [big, 2], 'beyond the small-buffer pool');
  const before = Buffer.from('{"ok":true,"data":');
  const after = Buffer.from('}');
  t.equal(joined([], before, after).toString(), '{"ok":true,"data":[]}', 'an empty list in an envelope');
  t.equal(joined([listPiece('"€"'), listPiece('2')], before, after).toString(), '{"ok":true,"data":["€",2]}', 'in an envelope');
  t.same(JSON.parse(joined([listPiece(JSON.stringify(big))], before, after).toString()), { ok: true, data: [big] }, 'a large list in an envelope');
});

t.test('through HTTP', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'jsonalice' });
  const bob = await f.createUser({ username: 'jsonbob' });

  t.test('/users/search: each viewer sees emails as toApi says, and a changed account is served changed', async (t) => {
    const search = async (token?: string) => (await f.request('GET', '/users/search?q=jsonbob', { token })).json.data;
    const searchBoth = async (token?: string) => (await f.request('GET', '/users/search?q=json&limit=50', { token })).json.data as any[];
    const emailOf = (list: any[], login: string) => list.find((u) => u.login === login)?.email;
    for (let round = 0; round < 2; round++) {
      // Twice: the second round is served from the cache and must be the same.
      const anonymous = await searchBoth();
      t.equal(emailOf(anonymous, 'jsonalice'), '', 'anonymous: no email');
      t.equal(emailOf(anonymous, 'jsonbob'), '', 'anonymous: no email');
      const asAlice = await searchBoth(alice.token);
      t.equal(emailOf(asAlice, 'jsonalice'), alice.email, 'a user sees their own email');
      t.equal(emailOf(asAlice, 'jsonbob'), '', "but not another user's");
      const asAdmin = await searchBoth(f.admin.token);
      t.equal(emailOf(asAdmin, 'jsonalice'), alice.email, 'a site admin sees every email');
      t.equal(emailOf(asAdmin, 'jsonbob'), bob.email);
      const single = await f.request('GET', '/users/jsonbob', { token: f.admin.token });
      t.same(asAdmin.find((u) => u.login === 'jsonbob'), single.json, 'the same User as GET /users/{username}');
    }
    await f.forge.store.collection('users').updateOne({ id: bob.id }, { $set: { fullName: 'Bob "Changed" Ü' } });
    t.equal((await search())[0].full_name, 'Bob "Changed" Ü', 'the new version of the account, anonymously');
    t.equal((await search(f.admin.token))[0].full_name, 'Bob "Changed" Ü', 'and as an admin');
  });

  t.test('SSH key lists: the same JSON as the single key, and a deleted key is gone', async (t) => {
    const dir = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'ssh');
    const created = [];
    for (const name of ['ed25519', 'ecdsa-256']) {
      const res = await f.request('POST', '/user/keys', { token: alice.token, json: { title: name, key: readFileSync(path.join(dir, `${name}.pub`), 'utf8') } });
      t.equal(res.status, 201);
      created.push(res.json);
    }
    for (let round = 0; round < 2; round++) {
      const mine = await f.request('GET', '/user/keys', { token: alice.token });
      t.same(mine.json, created, 'my list: what each POST answered');
      t.equal(mine.headers.get('content-type'), 'application/json; charset=utf-8');
      const single = await f.request('GET', `/user/keys/${created[0].id}`, { token: alice.token });
      t.same(mine.json[0], single.json, 'the same PublicKey as GET /user/keys/{id}');
      const theirs = await f.request('GET', '/users/jsonalice/keys');
      const publicView = (k: any) => { const { key_type: _t, read_only: _r, user: _u, ...rest } = k; return rest; };
      t.same(theirs.json, created.map(publicView), "the public list (without the owner's private information)");
      const asAdmin = await f.request('GET', '/users/jsonalice/keys', { token: f.admin.token });
      const adminSingle = await f.request('GET', `/user/keys/${created[1].id}`, { token: f.admin.token });
      t.same(asAdmin.json[1], adminSingle.json, "a site admin's list: the same PublicKey as the admin's GET /user/keys/{id}");
      t.equal(asAdmin.json[1].user.email, adminSingle.json.user.email, 'with the owner as the admin sees it');
    }
    t.equal((await f.request('DELETE', `/user/keys/${created[0].id}`, { token: alice.token })).status, 204);
    t.same((await f.request('GET', '/user/keys', { token: alice.token })).json, [created[1]], 'the deleted key is gone');
    t.same((await f.request('GET', '/user/keys', { token: bob.token })).json, [], "another user's list is their own");
    // The owner's account changes: every key of the list carries the new owner.
    await f.forge.store.collection('users').updateOne({ login: 'jsonalice' }, { $set: { fullName: 'Alice "New" Ö' } });
    const renamed = await f.request('GET', '/user/keys', { token: alice.token });
    t.same(renamed.json.map((k: any) => k.user.full_name), ['Alice "New" Ö'], 'the owner as it is now, in each key');
    t.same(renamed.json[0], (await f.request('GET', `/user/keys/${created[1].id}`, { token: alice.token })).json, 'still the single key\'s JSON');
  });

  t.test("GPG key lists: subkeys inside, and the owner's addresses as they are now", async (t) => {
    const carl = await f.createUser({ username: 'jsoncarl' });
    const armored = readFileSync(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'gpg', 'rsa2048.asc'), 'utf8');
    t.equal((await f.request('POST', '/user/emails', { token: carl.token, json: { emails: ['alice@work.example'] } })).status, 201);
    const created = await f.request('POST', '/user/gpg_keys', { token: carl.token, json: { armored_public_key: armored } });
    t.equal(created.status, 201);
    t.same(created.json.emails, [{ email: 'alice@work.example', verified: false }]);
    t.ok(created.json.subkeys.length > 0, 'the fixture has a subkey');
    for (let round = 0; round < 2; round++) {
      const mine = await f.request('GET', '/user/gpg_keys', { token: carl.token });
      t.same(mine.json, [created.json], 'the list holds what POST answered, subkeys inside');
      t.same((await f.request('GET', '/users/jsoncarl/gpg_keys')).json, [created.json], 'the public list too');
      t.same((await f.request('GET', `/user/gpg_keys/${created.json.id}`, { token: carl.token })).json, mine.json[0], 'and GET /user/gpg_keys/{id}');
    }
    // The address goes: the key stays, its email list no longer shows it (the key row itself did not change).
    t.equal((await f.request('DELETE', '/user/emails', { token: carl.token, json: { emails: ['alice@work.example'] } })).status, 204);
    const after = await f.request('GET', '/user/gpg_keys', { token: carl.token });
    t.same(after.json.map((k: any) => k.emails), [[]], 'the removed address is gone from the list');
    t.same(after.json[0].subkeys, created.json.subkeys, 'subkeys unchanged');
    // A subkey row changing (here through the store) is seen in the list.
    await f.forge.store.collection('gpg_keys').updateOne({ id: created.json.subkeys[0].id }, { $set: { canSign: !created.json.subkeys[0].can_sign } });
    const changed = await f.request('GET', '/user/gpg_keys', { token: carl.token });
    t.equal(changed.json[0].subkeys[0].can_sign, !created.json.subkeys[0].can_sign, 'the new version of the subkey row');
    // An address added later shows at once, as the owner spelled it (the key row did not change either).
    t.equal((await f.request('POST', '/user/emails', { token: carl.token, json: { emails: ['Alice@Example.com'] } })).status, 201);
    const sameAsSingle = async (what: string) => {
      const list = await f.request('GET', '/user/gpg_keys', { token: carl.token });
      const single = await f.request('GET', `/user/gpg_keys/${created.json.id}`, { token: carl.token });
      t.equal(list.text, `[${single.text}]`, `${what}: the list is the single key's JSON, byte for byte`);
      t.equal((await f.request('GET', '/users/jsoncarl/gpg_keys')).text, list.text, `${what}: the public list too`);
      return list.json;
    };
    t.same((await sameAsSingle('an added address'))[0].emails, [{ email: 'Alice@Example.com', verified: false }]);
    // A deleted subkey row leaves its primary at once; a deleted primary leaves the list.
    t.equal((await f.request('DELETE', `/user/gpg_keys/${created.json.subkeys[0].id}`, { token: carl.token })).status, 204);
    t.same((await sameAsSingle('a deleted subkey'))[0].subkeys, created.json.subkeys.slice(1));
    t.equal((await f.request('DELETE', `/user/gpg_keys/${created.json.id}`, { token: carl.token })).status, 204);
    t.same((await f.request('GET', '/user/gpg_keys', { token: carl.token })).json, [], 'the deleted key is gone');
  });
});
