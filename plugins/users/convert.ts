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

/** The User with or without its email. */
export function toApiUserShown(account: Account, showEmail: boolean, rootUrl: string): ApiUser {
  return {
    id: account.id,
    login: account.login,
    full_name: account.fullName,
    email: showEmail ? account.email : '',
    // A fixed local avatar: a Gravatar URL would publish a hash of the (private) email address.
    avatar_url: `${rootUrl}img/avatar_default.png`,
    username: account.login,
  };
}
