// The caller's own settings: GET/PATCH /user/settings (Gitea's UserSettings / UserSettingsOptions).
import type { RequestContext, Reply } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import type { Account } from '../../schemas/services.js';
import type { Users } from './service.js';

const users = (rc: RequestContext) => rc.app.services.get('users') as Users;

export const UserSettingsSchema = {
  $id: 'forgekit/UserSettings',
  type: 'object',
  properties: {
    full_name: { type: 'string' },
    website: { type: 'string' },
    description: { type: 'string' },
    location: { type: 'string' },
    language: { type: 'string' },
    theme: { type: 'string' },
    diff_view_style: { type: 'string' },
    // forgekit never shows an address to other users (decisions.md), whatever this says; it is the account's
    // choice for the commits forgekit writes on its behalf.
    hide_email: { type: 'boolean' },
    hide_activity: { type: 'boolean' },
  },
  required: ['full_name', 'website', 'description', 'location', 'language', 'theme', 'diff_view_style', 'hide_email', 'hide_activity'],
} as const;

export const userSettingsBody = {
  type: 'object',
  properties: {
    full_name: { type: 'string', maxLength: 100 },
    website: { type: 'string', maxLength: 255 },
    description: { type: 'string', maxLength: 255 },
    location: { type: 'string', maxLength: 50 },
    language: { type: 'string', maxLength: 20 },
    theme: { type: 'string', maxLength: 30 },
    diff_view_style: { type: 'string', enum: ['', 'unified', 'split'] },
    hide_email: { type: 'boolean' },
    hide_activity: { type: 'boolean' },
  },
} as const;

interface SettingsBody {
  full_name?: string;
  website?: string;
  description?: string;
  location?: string;
  language?: string;
  theme?: string;
  diff_view_style?: string;
  hide_email?: boolean;
  hide_activity?: boolean;
}

function toSettings(a: Account) {
  return {
    full_name: a.fullName ?? '',
    website: a.website ?? '',
    description: a.description ?? '',
    location: a.location ?? '',
    language: (a.language as string | undefined) ?? '',
    theme: (a.theme as string | undefined) ?? '',
    diff_view_style: (a.diffViewStyle as string | undefined) ?? '',
    // Gitea's default for new accounts (KEEP_EMAIL_PRIVATE) is off, but forgekit never publishes an address: on.
    hide_email: (a.hideEmail as boolean | undefined) ?? true,
    hide_activity: (a.hideActivity as boolean | undefined) ?? false,
  };
}

async function me(rc: RequestContext): Promise<Account> {
  const account = await users(rc).byId(rc.caller!.id);
  if (!account) throw fail.notFound();
  return account;
}

export async function getSettings(rc: RequestContext): Promise<Reply> {
  return { status: 200, body: toSettings(await me(rc)) };
}

/** A website must be an http(s) URL (or empty), as Gitea's binding checks it. */
function checkWebsite(website: string | undefined): void {
  if (website === undefined || website === '') return;
  let url: URL;
  try {
    url = new URL(website);
  } catch {
    throw fail.validation('website', 'must be a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail.validation('website', 'must be an http(s) URL');
}

export async function updateSettings(rc: RequestContext<unknown, unknown, SettingsBody>): Promise<Reply> {
  const b = rc.body;
  checkWebsite(b.website);
  const updated = await users(rc).editAccount(await me(rc), {
    fullName: b.full_name, website: b.website, description: b.description, location: b.location, language: b.language,
    theme: b.theme, diffViewStyle: b.diff_view_style, hideEmail: b.hide_email, hideActivity: b.hide_activity,
  });
  return { status: 200, body: toSettings(updated) };
}
