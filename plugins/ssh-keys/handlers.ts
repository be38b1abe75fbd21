// SSH public key operations: the caller's keys, another user's public list, and the plain-text authorized_keys view.
import type { JsonPieces, Reply, RequestContext } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import { nowRfc3339 } from '../../core/time.js';
import { isDuplicateKeyError } from '../../core/store/port.js';
import { DocJson, LIST_CLOSE, LIST_OPEN, perApp } from '../lib/doc-json.js';
import { deletableKey, ownerListHandlers, readableKey } from '../lib/owned-keys.js';
import { accountOr404, me, users } from '../lib/request.js';
import { toApiKey, toApiKeyPrivate, type SshKeyDoc } from './convert.js';

export { COLLECTION } from './service.js';
import { COLLECTION } from './service.js';

type Rc<P = Record<string, never>, Q = Record<string, never>, B = unknown> = RequestContext<P, Q, B>;
interface PageQuery { page?: number; limit?: number }

function keys(rc: Rc<any, any, any>) {
  return rc.app.store.collection<SshKeyDoc>(COLLECTION);
}

/** Each key's PublicKey JSON, made once per stored version of the key (a key's JSON is public data). */
const keyJson = perApp((app) => {
  const serialize = app.serializer({ $ref: 'forgekit/PublicKey' });
  return new DocJson<SshKeyDoc>((doc) => serialize(toApiKey(doc, app.urls)));
});

/**
 * The owner's view of a key list in UTF-8 pieces: each key's kept public JSON with Gitea's private information
 * (`toApiKeyPrivate`: key_type, read_only, the owner) spliced in before its closing brace. Serialising 30 keys with
 * 30 copies of the owner through the schema cost ~500 µs a request; this only points at bytes kept per key version.
 */
function privateList(json: DocJson<SshKeyDoc>, docs: readonly SshKeyDoc[], ownerJson: string): JsonPieces {
  const tail = Buffer.from(`,"key_type":"user","read_only":false,"user":${ownerJson}}`);
  const out: Buffer[] = [LIST_OPEN];
  docs.forEach((doc, i) => {
    const piece = json.piece(doc); // `,{…}`
    out.push(piece.subarray(i === 0 ? 1 : 0, piece.length - 1), tail); // without the closing brace
  });
  out.push(LIST_CLOSE);
  return out;
}

/** The owner and site admins see Gitea's private information (key_type, read_only, user); others the public key. */
async function listFor(rc: Rc<any, PageQuery & { fingerprint?: string }>, ownerId: number): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const filter: Record<string, unknown> = { ownerId };
  if (rc.query.fingerprint) filter.fingerprint = rc.query.fingerprint;
  const { docs, total } = await keys(rc).findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  const headers = pageHeaders(rc, total, win);
  if (rc.caller && (rc.caller.id === ownerId || rc.caller.isAdmin)) {
    const owner = await users(rc).byId(ownerId);
    if (owner) {
      const ownerJson = users(rc).jsonText(owner, rc.caller);
      return { status: 200, type: 'json-text', body: privateList(keyJson(rc.app), docs, ownerJson), headers };
    }
  }
  return { status: 200, type: 'json-text', body: keyJson(rc.app).list(docs), headers };
}

/** A single key as its owner (or a site admin) sees it. */
async function privateKey(rc: Rc<any, any, any>, doc: SshKeyDoc) {
  const owner = await users(rc).byId(doc.ownerId);
  return owner ? toApiKeyPrivate(doc, rc.app.urls, users(rc).toApi(owner, rc.caller)) : toApiKey(doc, rc.app.urls);
}

/** GET /user/keys — the caller's keys, id ascending; GET /users/{username}/keys — anyone's (public data). */
export const { listMine, listOfUser } = ownerListHandlers(listFor);

/** GET /user/keys/{id} — another user's key is a 404 (site admins see every key). */
export async function getMine(rc: Rc<{ id: number }>): Promise<Reply> {
  const doc = await readableKey(keys(rc), rc.params.id, me(rc));
  return { status: 200, body: await privateKey(rc, doc) };
}

/** POST /user/keys — parse natively, refuse with the reason, store the normalised line. */
export async function create(rc: Rc<{}, {}, { title: string; key: string }>): Promise<Reply> {
  return createFor(rc, me(rc).id);
}

/** The user a site admin names in the path; 404 when missing, 422 for an organization (it has no keys). */
async function namedUser(rc: Rc<{ username: string }, any, any>) {
  const account = await users(rc).byName(rc.params.username);
  if (!account) throw fail.notFound();
  if (account.type !== 'user') throw fail.validation('username', 'is an organization, not a user');
  return account;
}

/** POST /admin/users/{username}/keys — a site admin adds a key on behalf of a user, with the same checks. */
export async function adminCreate(rc: Rc<{ username: string }, {}, { title: string; key: string; read_only?: boolean }>): Promise<Reply> {
  // `read_only` only means something for deploy keys (Gitea ignores it here too): a user key reaches what its user does.
  return createFor(rc, (await namedUser(rc)).id);
}

/** DELETE /admin/users/{username}/keys/{id} — 404 when the user or the key is missing or the key is someone else's. */
export async function adminRemove(rc: Rc<{ username: string; id: number }>): Promise<Reply> {
  const account = await namedUser(rc);
  const removed = await keys(rc).deleteOne({ id: rc.params.id, ownerId: account.id });
  if (!removed) throw fail.notFound();
  return { status: 204 };
}

async function createFor(rc: Rc<any, any, { title: string; key: string }>, ownerId: number): Promise<Reply> {
  const caller = { id: ownerId };
  const title = rc.body.title.trim();
  if (title === '') throw fail.validation('title', 'must not be empty');
  const parsed = rc.app.services.get('ssh-keys').parse(rc.body.key);
  const col = keys(rc);
  if (await col.findOne({ ownerId: caller.id, title })) throw fail.validation('title', 'you already have a key with this title');
  if (await col.findOne({ fingerprint: parsed.fingerprint })) throw fail.validation('key', 'this key is already in use');
  const claimed = await rc.app.services.get('ssh-keys').guardReason(parsed.fingerprint);
  if (claimed) throw fail.validation('key', claimed);
  const doc: SshKeyDoc = {
    id: await rc.app.store.nextId(COLLECTION),
    ownerId: caller.id,
    title,
    content: parsed.line,
    fingerprint: parsed.fingerprint,
    type: parsed.type,
    bits: parsed.bits,
    createdAt: nowRfc3339(),
  };
  try {
    await col.insertOne(doc);
  } catch (err) {
    // A concurrent request won the race for the same title or key.
    if (isDuplicateKeyError(err)) {
      if (err.fields.includes('fingerprint')) throw fail.validation('key', 'this key is already in use');
      throw fail.validation('title', 'you already have a key with this title');
    }
    throw err;
  }
  const stored = await col.findOne({ id: doc.id });
  return { status: 201, body: await privateKey(rc, stored ?? doc) };
}

/** DELETE /user/keys/{id} — 404 when missing, 403 for another user's key unless the caller is a site admin. */
export async function remove(rc: Rc<{ id: number }>): Promise<Reply> {
  const col = keys(rc);
  const doc = await deletableKey(col, rc.params.id, me(rc));
  await col.deleteOne({ id: doc.id });
  return { status: 204 };
}

/** GET /{username}.keys — one key per line, ready for authorized_keys. */
export async function plainText(rc: Rc<{ username: string }>): Promise<Reply> {
  const account = await accountOr404(rc, rc.params.username);
  const docs = await keys(rc).find({ ownerId: account.id }, { sort: { id: 1 } });
  return {
    status: 200,
    type: 'text',
    body: docs.map((d) => `${d.content}\n`).join(''),
  };
}

/** Deletes every key of a deleted account. */
export async function deleteOwnedBy(col: { deleteMany(filter: Record<string, unknown>): Promise<number> }, ownerId: number): Promise<void> {
  await col.deleteMany({ ownerId });
}
