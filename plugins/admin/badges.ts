// User badges (Gitea's /admin/users/{username}/badges): the badges themselves are defined by the operator
// (`plugins.admin.badges`, Gitea has no API to make them either); site admins give them to users and take them back.
import type { Reply, RequestContext } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { isDuplicateKeyError } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { Account } from '../../schemas/services.js';
import { users } from '../lib/request.js';

export const USER_BADGES = 'user_badges';

/** A badge as the operator defines it. */
export interface BadgeDefinition {
  slug: string;
  description: string;
  image_url: string;
}

export interface AdminSettings {
  badges: BadgeDefinition[];
}

export interface UserBadgeDoc {
  [key: string]: unknown;
  uid: number;
  slug: string;
  createdAt: string;
}

export const badgeSettingsSchema = {
  type: 'array',
  default: [],
  maxItems: 1000,
  description: 'the badges site admins may give to users: slug (unique), description, image_url',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['slug'],
    properties: {
      slug: { type: 'string', minLength: 1, maxLength: 255 },
      description: { type: 'string', maxLength: 255, default: '' },
      image_url: { type: 'string', maxLength: 2048, default: '' },
    },
  },
} as const;

export const BadgeSchema = {
  $id: 'forgekit/Badge',
  type: 'object',
  properties: { id: { type: 'integer' }, slug: { type: 'string' }, description: { type: 'string' }, image_url: { type: 'string' } },
  required: ['id', 'slug', 'description', 'image_url'],
} as const;

export const badgesBody = {
  type: 'object',
  properties: { badge_slugs: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 255 } } },
};

type Rc<B = unknown> = RequestContext<{ username: string }, unknown, B>;

function definitions(rc: Rc<any>): BadgeDefinition[] {
  return (rc.app.settings as AdminSettings).badges ?? [];
}

/** The badge's API object; its id is its place in the configured list (1-based), stable while the list is. */
function toApi(defs: BadgeDefinition[], slug: string) {
  const i = defs.findIndex((d) => d.slug === slug);
  if (i < 0) return null;
  const d = defs[i]!;
  return { id: i + 1, slug: d.slug, description: d.description ?? '', image_url: d.image_url ?? '' };
}

async function namedUser(rc: Rc<any>): Promise<Account> {
  const account = await users(rc).byName(rc.params.username);
  if (!account) throw fail.notFound();
  if (account.type !== 'user') throw fail.validation('username', 'is an organization, not a user');
  return account;
}

function col(rc: Rc<any>) {
  return rc.app.store.collection<UserBadgeDoc>(USER_BADGES);
}

/** GET /admin/users/{username}/badges — the user's badges in the configured order (a badge no longer configured is left out). */
export async function listBadges(rc: Rc): Promise<Reply> {
  const account = await namedUser(rc);
  const defs = definitions(rc);
  const held = await col(rc).find({ uid: account.id });
  const body = held.map((b) => toApi(defs, b.slug)).filter((b) => b !== null).sort((a, b) => a.id - b.id);
  return { status: 200, body, headers: { 'X-Total-Count': String(body.length) } };
}

/** POST /admin/users/{username}/badges — gives the badges (idempotent); an unknown slug is a 422 and nothing is given. */
export async function addBadges(rc: Rc<{ badge_slugs?: string[] }>): Promise<Reply> {
  const account = await namedUser(rc);
  const defs = definitions(rc);
  const slugs = [...new Set(rc.body.badge_slugs ?? [])];
  const unknown = slugs.filter((s) => !defs.some((d) => d.slug === s));
  if (unknown.length) throw fail.validation('badge_slugs', `no such badge: ${unknown.join(', ')}`);
  for (const slug of slugs) {
    try {
      await col(rc).insertOne({ uid: account.id, slug, createdAt: nowRfc3339() });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // already held
    }
  }
  return { status: 204 };
}

/** DELETE /admin/users/{username}/badges — takes the badges back; one the user does not hold is nothing to do. */
export async function removeBadges(rc: Rc<{ badge_slugs?: string[] }>): Promise<Reply> {
  const account = await namedUser(rc);
  const slugs = [...new Set(rc.body.badge_slugs ?? [])];
  if (slugs.length) await col(rc).deleteMany({ uid: account.id, slug: { $in: slugs } });
  return { status: 204 };
}
