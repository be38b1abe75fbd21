// Site admins' view of every individual's email addresses (Gitea's /admin/emails and /admin/emails/search): primary
// addresses live on the account, the others in the emails collection; both are listed, in address order.
import type { Reply, RequestContext } from '../../core/plugin.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Account } from '../../schemas/services.js';
import { EMAILS, USERS, type EmailDoc } from './service.js';

/** Gitea's Email as the admin search sends it (ToEmailSearch): with the owner's id and name. */
export const AdminEmailSchema = {
  $id: 'forgekit/AdminEmail',
  type: 'object',
  properties: {
    email: { type: 'string' },
    verified: { type: 'boolean' },
    primary: { type: 'boolean' },
    user_id: { type: 'integer' },
    username: { type: 'string' },
  },
  required: ['email', 'verified', 'primary', 'user_id', 'username'],
} as const;

interface Row {
  email: string;
  lowerEmail: string;
  verified: boolean;
  primary: boolean;
  uid: number;
  /** Tie-break after the address: primary first, then the secondary row's id (Gitea's order). */
  order: number;
}

type Rc = RequestContext<unknown, { page?: number; limit?: number; q?: string }>;

const ACCOUNT_FIELDS = { projection: { id: 1, login: 1, lowerName: 1, fullName: 1, email: 1, lowerEmail: 1, type: 1 } } as const;

function compare(a: Row, b: Row): number {
  if (a.lowerEmail !== b.lowerEmail) return a.lowerEmail < b.lowerEmail ? -1 : 1;
  return a.order - b.order;
}

function primaryRow(a: Account): Row {
  return { email: a.email, lowerEmail: a.lowerEmail ?? a.email.toLowerCase(), verified: true, primary: true, uid: a.id, order: 0 };
}

function extraRow(e: EmailDoc): Row {
  return { email: e.email, lowerEmail: e.lowerEmail, verified: e.verified, primary: false, uid: e.uid, order: e.id };
}

/**
 * GET /admin/emails[/search] — every address of every individual (organizations' contact addresses are not sign-in
 * addresses and are left out, as in Gitea), ordered by address. `q` matches a substring of the address, the login or
 * the full name, case-insensitively (Gitea's SearchEmails); without it a page is merged from the two address indexes.
 */
export function listAllEmails(rc: Rc): Promise<Reply> {
  return listEmails(rc, '');
}

export function searchEmails(rc: Rc): Promise<Reply> {
  return listEmails(rc, rc.query.q ?? '');
}

async function listEmails(rc: Rc, keyword: string): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const accounts = rc.app.store.collection<Account>(USERS);
  const emails = rc.app.store.collection<EmailDoc>(EMAILS);
  const q = keyword.trim().toLowerCase();
  let rows: Row[];
  let total: number;
  const owners = new Map<number, string>();
  if (q === '') {
    // The first skip+limit of each list in address order hold the page; their merge is cut to it.
    const upTo = win.skip + win.limit;
    const [primaries, extras, nPrimaries, nExtras] = await Promise.all([
      accounts.find({ type: 'user' }, { sort: { lowerEmail: 1 }, limit: upTo, ...ACCOUNT_FIELDS }),
      emails.find({}, { sort: { lowerEmail: 1, id: 1 }, limit: upTo }),
      accounts.count({ type: 'user' }),
      emails.count({}),
    ]);
    for (const a of primaries) owners.set(a.id, a.login);
    rows = [...primaries.map(primaryRow), ...extras.map(extraRow)].sort(compare).slice(win.skip, upTo);
    total = nPrimaries + nExtras;
  } else {
    // A substring search has no index to walk: the addresses and the accounts' names are read once (site admins only).
    const [people, extras] = await Promise.all([accounts.find({ type: 'user' }, ACCOUNT_FIELDS), emails.find({})]);
    const nameMatches = new Set<number>();
    for (const a of people) {
      owners.set(a.id, a.login);
      if (a.lowerName.includes(q) || (a.fullName ?? '').toLowerCase().includes(q)) nameMatches.add(a.id);
    }
    const all = [...people.map(primaryRow), ...extras.filter((e) => owners.has(e.uid)).map(extraRow)]
      .filter((r) => nameMatches.has(r.uid) || r.lowerEmail.includes(q))
      .sort(compare);
    total = all.length;
    rows = all.slice(win.skip, win.skip + win.limit);
  }
  const missing = rows.map((r) => r.uid).filter((uid) => !owners.has(uid));
  if (missing.length) for (const [id, a] of await rc.app.services.get('users').byIds(missing)) owners.set(id, a.login);
  const body = rows.map((r) => ({ email: r.email, verified: r.verified, primary: r.primary, user_id: r.uid, username: owners.get(r.uid) ?? '' }));
  return { status: 200, body, headers: pageHeaders(rc, total, win) };
}
