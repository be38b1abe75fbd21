// Users: the caller's profile, public profiles, user search and the caller's email addresses.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageWindow, pageHeaders } from '../../core/pagination.js';
import type { Account } from '../../schemas/services.js';
import type { Users } from './service.js';
import { USERS } from './service.js';
import { lookupGram } from './grams.js';

const users = (rc: RequestContext) => rc.app.services.get<Users>('users');

export async function getCurrentUser(rc: RequestContext): Promise<Reply> {
  const account = await users(rc).byId(rc.caller!.id);
  if (!account) throw fail.notFound();
  return { status: 200, body: users(rc).toApi(account, rc.caller) };
}

export async function getUser(rc: RequestContext<{ username: string }>): Promise<Reply> {
  const account = await users(rc).byName(rc.params.username);
  if (!account) throw fail.notFound();
  return { status: 200, body: users(rc).toApi(account, rc.caller) };
}

export async function searchUsers(rc: RequestContext<unknown, { q?: string; page?: number; limit?: number }>): Promise<Reply> {
  const q = (rc.query.q ?? '').trim().toLowerCase();
  const win = pageWindow(rc.query, rc.app.settings.search);
  if (q === '') return { status: 200, body: [], headers: pageHeaders(rc, 0, win) };
  // One index lookup on a gram of the query, then an exact substring check of those candidates only.
  const candidates = await rc.app.store.collection<Account>(USERS).find(
    { grams: lookupGram(q), type: 'user' },
    { projection: { id: 1, login: 1, lowerName: 1, fullName: 1, email: 1, type: 1 } },
  );
  const matches = candidates
    .filter((a) => a.lowerName.includes(q) || a.fullName.toLowerCase().includes(q))
    .sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id));
  const page = matches.slice(win.skip, win.skip + win.limit);
  return { status: 200, body: page.map((a) => users(rc).toApi(a, rc.caller)), headers: pageHeaders(rc, matches.length, win) };
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
