// Users: the caller's profile, public profiles, user search and the caller's email addresses.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { ForgeError, fail } from '../../core/errors.js';
import { pageWindow, pageHeaders } from '../../core/pagination.js';
import type { Account } from '../../schemas/services.js';
import type { Users } from './service.js';
import { AVATARS, AVATAR_MAX_BYTES, decodeBase64Image, identicon, sniffImage, type AvatarDoc } from './avatar.js';
import { nowRfc3339 } from '../../core/time.js';

// This plugin's own implementation: more than the UsersService contract other plugins see.
const users = (rc: RequestContext) => rc.app.services.get('users') as Users;

export async function getCurrentUser(rc: RequestContext): Promise<Reply> {
  const account = await users(rc).byId(rc.caller!.id);
  if (!account) throw fail.notFound();
  return { status: 200, body: users(rc).toApi(account, rc.caller) };
}

export async function getUser(rc: RequestContext<{ username: string }>): Promise<Reply> {
  const account = await users(rc).byName(rc.params.username);
  // A limited or private account the caller may not see is as missing as an unknown one (Gitea's IsUserVisibleToViewer).
  if (!account || !(await users(rc).visibleTo(account, rc.caller))) throw fail.notFound();
  return { status: 200, body: users(rc).toApi(account, rc.caller) };
}

/** `{"ok":true,"data":[User…]}` around a JSON list of Users (what Gitea returns and every Gitea client decodes). */
const ENVELOPE = { before: Buffer.from('{"ok":true,"data":'), after: Buffer.from('}') };
function searchReply(rc: RequestContext, page: readonly Account[], total: number, win: ReturnType<typeof pageWindow>): Reply {
  return { status: 200, type: 'json-text', body: users(rc).toJsonList(page, rc.caller, ENVELOPE), headers: pageHeaders(rc, total, win) };
}

export async function searchUsers(rc: RequestContext<unknown, { q?: string; page?: number; limit?: number }>): Promise<Reply> {
  const q = (rc.query.q ?? '').trim().toLowerCase();
  const win = pageWindow(rc.query, rc.app.settings.search);
  if (rc.caller?.restricted === true && !rc.caller.isAdmin) {
    // Gitea's BuildCanSeeUserCondition: a restricted caller finds only itself (and its organizations, never listed here).
    const self = await users(rc).byId(rc.caller.id);
    const hit = self && (q === '' || self.lowerName.includes(q) || self.fullName.toLowerCase().includes(q)) ? [self] : [];
    return searchReply(rc, hit.slice(win.skip, win.skip + win.limit), hit.length, win);
  }
  const service = users(rc);
  const caller = rc.caller;
  // The in-memory index (search-index.ts) answers page and exact total in account (id) order, Gitea's: public
  // accounts for everyone, limited ones for signed-in callers, private ones for site admins, the account itself and
  // whoever its visibility witnesses admit (a shared organization, someone it follows). An empty query lists every
  // individual account; organizations never appear.
  const { head, total } = await service.index.search(q, {
    limited: caller !== null,
    privateAll: caller?.isAdmin === true,
    seesPrivate: caller && !caller.isAdmin ? (ids: readonly number[]) => service.privateUsersSeenBy(ids, caller) : undefined,
  }, win.skip + win.limit);
  const pageIds = head.slice(win.skip);
  const byId = pageIds.length ? await service.byIds(pageIds) : new Map<number, Account>();
  const page = pageIds.map((id) => byId.get(id)).filter((a): a is Account => a !== undefined);
  return searchReply(rc, page, total, win);
}

export async function listEmails(rc: RequestContext): Promise<Reply> {
  return { status: 200, body: await users(rc).emailsOf(rc.caller!.id) };
}

export async function addEmails(rc: RequestContext<unknown, unknown, { emails: string[] }>): Promise<Reply> {
  // Addresses a site admin adds for themself count as verified; everyone else's wait for verification.
  const added = await users(rc).addEmails(rc.caller!.id, rc.body.emails, rc.caller!.isAdmin);
  return { status: 201, body: added };
}

export async function deleteEmails(rc: RequestContext<unknown, unknown, { emails: string[] }>): Promise<Reply> {
  const account = await users(rc).byId(rc.caller!.id);
  if (!account) throw fail.notFound();
  await users(rc).removeEmails(account, rc.body.emails);
  return { status: 204 };
}

// ---- avatars ----

/** GET /avatars/{id} (site root) — the uploaded image, or the account's generated identicon. */
export async function getAvatar(rc: RequestContext<{ id: number }>): Promise<Reply> {
  const account = await users(rc).byId(rc.params.id);
  if (!account) throw fail.notFound();
  const uploaded = await rc.app.store.collection<AvatarDoc>(AVATARS).findOne({ uid: account.id });
  const headers = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
  if (uploaded) return { status: 200, type: 'text', body: Buffer.from(uploaded.data, 'base64'), headers: { ...headers, 'Content-Type': uploaded.type } };
  return { status: 200, type: 'text', body: identicon(account.id), headers: { ...headers, 'Content-Type': 'image/svg+xml' } };
}

/** POST /user/avatar — Gitea's UpdateUserAvatarOption: `image` is base64 PNG, JPEG, GIF or WebP (sniffed). */
export async function updateAvatar(rc: RequestContext<unknown, unknown, { image: string }>): Promise<Reply> {
  const { image } = rc.body;
  const bytes = decodeBase64Image(image);
  if (!bytes) throw fail.validation('image', 'must be base64-encoded image data');
  if (bytes.length > AVATAR_MAX_BYTES) throw fail.validation('image', `must be at most ${AVATAR_MAX_BYTES} bytes`);
  const type = sniffImage(bytes);
  if (!type) throw fail.validation('image', 'must be a PNG, JPEG, GIF or WebP image');
  const doc: AvatarDoc = { uid: rc.caller!.id, type, data: bytes.toString('base64'), updatedAt: nowRfc3339() };
  await rc.app.store.collection<AvatarDoc>(AVATARS).updateOne({ uid: doc.uid }, { $set: doc }, { upsert: true });
  return { status: 204 };
}

/** DELETE /user/avatar — back to the generated identicon. */
export async function deleteAvatar(rc: RequestContext): Promise<Reply> {
  await rc.app.store.collection<AvatarDoc>(AVATARS).deleteOne({ uid: rc.caller!.id });
  return { status: 204 };
}
