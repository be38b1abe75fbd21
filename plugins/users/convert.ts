// Stored account → API User. The only place a User is shaped; the email shows only to its owner and site admins.
import type { Caller } from '../../core/plugin.js';
import type { Account, ApiUser } from '../../schemas/services.js';

export function toApiUser(account: Account, viewer: Caller | null, rootUrl: string): ApiUser {
  return toApiUserShown(account, seesEmail(account, viewer), rootUrl);
}

/** Whether a viewer sees an account's email: its owner and site admins do. */
export function seesEmail(account: Account, viewer: Caller | null): boolean {
  return viewer !== null && (viewer.id === account.id || viewer.isAdmin);
}

/**
 * The User as a stranger sees it, or (`privileged`: the account itself, site admins) with its email and the account
 * state Gitea shows only to them (is_admin, last_login, active, prohibit_login, language).
 */
export function toApiUserShown(account: Account, privileged: boolean, rootUrl: string): ApiUser {
  return {
    id: account.id,
    login: account.login,
    login_name: privileged ? (account.loginName as string | undefined) ?? '' : '',
    source_id: 0,
    full_name: account.fullName,
    email: privileged ? account.email : '',
    // A local avatar: a Gravatar URL would publish a hash of the (private) email address.
    avatar_url: `${rootUrl}avatars/${account.id}`,
    html_url: rootUrl + encodeURIComponent(account.login),
    language: privileged ? (account.language as string | undefined) ?? '' : '',
    is_admin: privileged ? account.isAdmin : false,
    last_login: privileged ? (account.lastLogin as string | null | undefined) ?? null : null,
    created: account.createdAt,
    restricted: account.restricted === true,
    active: privileged ? account.active !== false : true,
    prohibit_login: privileged ? account.prohibitLogin === true : false,
    location: account.location ?? '',
    website: account.website ?? '',
    description: account.description ?? '',
    visibility: visibilityOf(account),
    followers_count: account.numFollowers ?? 0,
    following_count: account.numFollowing ?? 0,
    starred_repos_count: account.numStars ?? 0,
    username: account.login,
  };
}

export type Visibility = 'public' | 'limited' | 'private';

/** An account's visibility; records made before the setting existed are public. */
export function visibilityOf(account: Account): Visibility {
  const v = account.visibility;
  return v === 'limited' || v === 'private' ? v : 'public';
}
