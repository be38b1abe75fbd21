// GPG public key operations: the caller's keys, another user's public list, and the plain-text armored export.
import type { Reply, RequestContext } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import { nowRfc3339, toRfc3339 } from '../../core/time.js';
import { isDuplicateKeyError } from '../../core/store/port.js';
import type { EmailAddress } from '../../schemas/services.js';
import { joinPieces, listPiece, perApp } from '../lib/doc-json.js';
import { deletableKey, ownerListHandlers, readableKey } from '../lib/owned-keys.js';
import { Lru } from '../lib/lru.js';
import { accountOr404, me, users } from '../lib/request.js';
import { toApiGpgKey, type GpgKeyDoc } from './convert.js';
import type { GpgKeyInfo } from './parse.js';

/** The key parser and openpgp.js (~70 ms to load), loaded when a key is first added or exported. */
const parser = () => import('./parse.js');

export const COLLECTION = 'gpg_keys';
/** One row per account whose key set changed: `{ ownerId, version }`, bumped after every add and delete. */
export const VERSIONS = 'gpg_key_sets';
const DUPLICATE = 'a key with the same key id is already in the database';

type Rc<P = Record<string, never>, Q = Record<string, never>, B = unknown> = RequestContext<P, Q, B>;
interface PageQuery { page?: number; limit?: number }

function keys(rc: Rc<any, any, any>) {
  return rc.app.store.collection<GpgKeyDoc>(COLLECTION);
}

export interface GpgKeysSettings {
  /** Most bytes of an uploaded armored key. */
  maxKeyBytes: number;
  /** Most (primary) keys an account keeps. */
  maxKeysPerUser: number;
  /** Accounts whose armored export is kept in memory. */
  exportCacheEntries: number;
}

interface KeySetVersion { [key: string]: unknown; ownerId: number; version: number }

function versions(rc: Rc<any, any, any>) {
  return rc.app.store.collection<KeySetVersion>(VERSIONS);
}

/** The account's key set changed: every process's cached `.gpg` export of it is stale from now on. */
export async function bumpKeySet(rc: Rc<any, any, any>, ownerId: number): Promise<void> {
  await versions(rc).updateOne({ ownerId }, { $inc: { version: 1 } }, { upsert: true });
}

/**
 * `/{username}.gpg` exports by account, each with the key-set version it was built from; bounded (the least used
 * go first). Armoring every key again per request made a few large keys a cheap way to stall the server.
 */
const armoredExports = perApp((app) => {
  const limit = (app.settings as GpgKeysSettings).exportCacheEntries;
  const entries = limit > 0 ? new Lru<number, { version: number; body: string }>(limit) : null;
  return {
    get(ownerId: number, version: number): string | undefined {
      const hit = entries?.get(ownerId);
      return hit && hit.version === version ? hit.body : undefined;
    },
    set(ownerId: number, version: number, body: string): void {
      entries?.set(ownerId, { version, body });
    },
  };
});

/** What a primary key's resource needs besides its row: the owner's subkey rows of those primaries, and addresses. */
async function subkeysAndEmails(rc: Rc<any, any, any>, ownerId: number, primaries: GpgKeyDoc[]): Promise<[GpgKeyDoc[], EmailAddress[]]> {
  return Promise.all([
    keys(rc).find({ ownerId, primaryKeyId: { $in: primaries.map((p) => p.keyId) } }, { sort: { id: 1 } }),
    users(rc).emailsOf(ownerId),
  ]);
}

/** Subkey rows by their primary's key id, each group in the given (id) order. */
function byPrimary(subkeys: GpgKeyDoc[]): Map<string, GpgKeyDoc[]> {
  const groups = new Map<string, GpgKeyDoc[]>();
  for (const sub of subkeys) {
    const group = groups.get(sub.primaryKeyId);
    if (group) group.push(sub);
    else groups.set(sub.primaryKeyId, [sub]);
  }
  return groups;
}

const NO_SUBKEYS: GpgKeyDoc[] = [];

async function present(rc: Rc<any, any, any>, ownerId: number, primaries: GpgKeyDoc[]) {
  if (primaries.length === 0) return [];
  const [subs, emails] = await subkeysAndEmails(rc, ownerId, primaries);
  const groups = byPrimary(subs);
  return primaries.map((p) => toApiGpgKey(p, groups.get(p.keyId) ?? NO_SUBKEYS, emails));
}

interface MadeJson {
  subkeys: readonly GpgKeyDoc[];
  addresses: string;
  piece: Buffer;
}

function sameDocs(a: readonly GpgKeyDoc[], b: readonly GpgKeyDoc[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A primary key's GPGKey JSON as a list piece, kept per stored version of its row (the store's objects are per
 * version) and used while its subkey rows are the same versions and the owner's addresses read the same
 * (`addresses`: the owner's address list as JSON, of which the key's `emails` are a function).
 */
const gpgKeyJson = perApp((app) => {
  const serialize = app.serializer({ $ref: 'forgekit/GPGKey' });
  const made = new WeakMap<GpgKeyDoc, MadeJson>();
  return (primary: GpgKeyDoc, subkeys: GpgKeyDoc[], ownerEmails: EmailAddress[], addresses: string): Buffer => {
    const hit = made.get(primary);
    if (hit && hit.addresses === addresses && sameDocs(hit.subkeys, subkeys)) return hit.piece;
    const piece = listPiece(serialize(toApiGpgKey(primary, subkeys, ownerEmails)));
    made.set(primary, { subkeys, addresses, piece });
    return piece;
  };
});

async function listFor(rc: Rc<any, PageQuery>, ownerId: number): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const filter = { ownerId, primaryKeyId: '' };
  const { docs: primaries, total } = await keys(rc).findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  const headers = pageHeaders(rc, total, win);
  if (primaries.length === 0) return { status: 200, type: 'json-text', body: '[]', headers };
  const [subs, emails] = await subkeysAndEmails(rc, ownerId, primaries);
  const groups = byPrimary(subs);
  const addresses = JSON.stringify(emails);
  const jsonOf = gpgKeyJson(rc.app);
  const pieces = new Array<Buffer>(primaries.length);
  for (let i = 0; i < primaries.length; i++) {
    const primary = primaries[i]!;
    pieces[i] = jsonOf(primary, groups.get(primary.keyId) ?? NO_SUBKEYS, emails, addresses);
  }
  return { status: 200, type: 'json-text', body: joinPieces(pieces), headers };
}

/** GET /user/gpg_keys — the caller's primary keys (subkeys inside), id ascending; GET /users/{username}/gpg_keys — anyone's. */
export const { listMine, listOfUser } = ownerListHandlers(listFor);

/** GET /user/gpg_keys/{id} — a primary key with its subkeys, or a subkey row; another user's key is a 404. */
export async function getMine(rc: Rc<{ id: number }>): Promise<Reply> {
  const doc = await readableKey(keys(rc), rc.params.id, me(rc));
  if (doc.primaryKeyId !== '') {
    // A subkey row by its own id: `verified` is its primary's, as inside the primary.
    const primary = await keys(rc).findOne({ ownerId: doc.ownerId, keyId: doc.primaryKeyId, primaryKeyId: '' });
    const verified = primary ? toApiGpgKey(primary, [], await users(rc).emailsOf(doc.ownerId)).verified : false;
    return { status: 200, body: toApiGpgKey(doc, [], [], verified) };
  }
  const [body] = await present(rc, doc.ownerId, [doc]);
  return { status: 200, body };
}

function row(info: GpgKeyInfo, id: number, ownerId: number, primaryKeyId: string, uidEmails: string[], content: string, addedAt: string): GpgKeyDoc {
  return {
    id,
    ownerId,
    keyId: info.keyId,
    primaryKeyId,
    fingerprint: info.fingerprint,
    publicKey: info.publicKey,
    canSign: info.canSign,
    canEncryptComms: info.canEncryptComms,
    canEncryptStorage: info.canEncryptStorage,
    canCertify: info.canCertify,
    createdAt: toRfc3339(info.createdAt),
    expiresAt: info.expiresAt ? toRfc3339(info.expiresAt) : null,
    uidEmails,
    content,
    addedAt,
  };
}

/** POST /user/gpg_keys — first key of the armor; private blocks, foreign-email keys and known key ids are 422. */
export async function create(rc: Rc<{}, {}, { armored_public_key: string }>): Promise<Reply> {
  const caller = me(rc);
  const field = 'armored_public_key';
  const { maxKeyBytes, maxKeysPerUser } = rc.app.settings as GpgKeysSettings;
  const size = Buffer.byteLength(rc.body.armored_public_key);
  if (size > maxKeyBytes) {
    throw fail.validation(field, `the key is ${size} bytes; this server accepts keys of at most ${maxKeyBytes} bytes`);
  }
  if ((await keys(rc).count({ ownerId: caller.id, primaryKeyId: '' })) >= maxKeysPerUser) {
    throw fail.validation(field, `you already have ${maxKeysPerUser} GPG keys, the most this server keeps per account; delete one first`);
  }
  const { parseGpgPublicKey, GpgKeyError } = await parser();
  let parsed;
  try {
    parsed = await parseGpgPublicKey(rc.body.armored_public_key);
  } catch (err) {
    if (err instanceof GpgKeyError) throw fail.validation(field, err.message);
    throw err;
  }
  if (parsed.emails.length === 0) {
    throw fail.validation(field, 'the key has no user id with an email address; at least one must be an address of your account');
  }
  const mine = new Set((await users(rc).emailsOf(caller.id)).map((e) => e.email.toLowerCase()));
  if (!parsed.emails.some((e) => mine.has(e))) {
    throw fail.validation(field, `none of the key's email addresses (${parsed.emails.join(', ')}) is an address of your account; add it with POST /user/emails first`);
  }
  const col = keys(rc);
  const allIds = [parsed.primary.keyId, ...parsed.subkeys.map((s) => s.keyId)];
  if (new Set(allIds).size !== allIds.length || (await col.count({ keyId: { $in: allIds } })) > 0) {
    throw fail.validation(field, DUPLICATE);
  }

  const addedAt = nowRfc3339();
  const content = Buffer.from(parsed.binary).toString('base64');
  const docs: GpgKeyDoc[] = [row(parsed.primary, await rc.app.store.nextId(COLLECTION), caller.id, '', parsed.emails, content, addedAt)];
  for (const sub of parsed.subkeys) {
    docs.push(row(sub, await rc.app.store.nextId(COLLECTION), caller.id, parsed.primary.keyId, [], '', addedAt));
  }
  const inserted: number[] = [];
  try {
    for (const doc of docs) {
      await col.insertOne(doc);
      inserted.push(doc.id);
    }
  } catch (err) {
    // A concurrent upload of the same key won the race: undo our half and refuse like any duplicate.
    if (inserted.length) await col.deleteMany({ id: { $in: inserted } });
    if (isDuplicateKeyError(err)) throw fail.validation(field, DUPLICATE);
    throw err;
  }
  await bumpKeySet(rc, caller.id);
  const stored = await col.find({ id: { $in: inserted } }, { sort: { id: 1 } });
  const primary = stored.find((d) => d.primaryKeyId === '') ?? docs[0]!;
  const [body] = await present(rc, caller.id, [primary]);
  return { status: 201, body };
}

/** DELETE /user/gpg_keys/{id} — a primary key takes its subkeys with it; a subkey row goes alone. */
export async function remove(rc: Rc<{ id: number }>): Promise<Reply> {
  const col = keys(rc);
  const doc = await deletableKey(col, rc.params.id, me(rc));
  if (doc.primaryKeyId === '') {
    await col.deleteMany({ ownerId: doc.ownerId, $or: [{ keyId: doc.keyId }, { primaryKeyId: doc.keyId }] });
  } else {
    await col.deleteOne({ id: doc.id });
  }
  await bumpKeySet(rc, doc.ownerId);
  return { status: 204 };
}

/** GET /{username}.gpg — every primary key of the user in one armored block ("" when there is none). */
export async function plainText(rc: Rc<{ username: string }>): Promise<Reply> {
  const account = await accountOr404(rc, rc.params.username);
  // The version is read before the keys: a change in between leaves an entry that the next request finds stale.
  const version = (await versions(rc).findOne({ ownerId: account.id }))?.version ?? 0;
  const cache = armoredExports(rc.app);
  let body = cache.get(account.id, version);
  if (body === undefined) {
    const docs = await keys(rc).find({ ownerId: account.id, primaryKeyId: '' }, { sort: { id: 1 } });
    body = docs.length ? (await parser()).armorKeys(docs.map((d) => Buffer.from(d.content, 'base64'))) : '';
    cache.set(account.id, version, body);
  }
  return { status: 200, type: 'text', body };
}
