// Stored follow rows → API Users: the accounts on one side of each row, in row order, shaped for the caller.
import type { Caller } from '../../core/plugin.js';
import type { Account, ApiUser, UsersService } from '../../schemas/services.js';

/** One follow relation: `followerId` follows `followingId`. `id` orders relations (newest first in lists). */
export interface FollowRow {
  [key: string]: unknown;
  id: number;
  followerId: number;
  followingId: number;
  createdAt: string;
}

/** The accounts in `ids` order as API Users; an id whose account vanished meanwhile is skipped. */
export function toApiUsers(ids: number[], accounts: Map<number, Account>, users: UsersService, caller: Caller | null): ApiUser[] {
  const out: ApiUser[] = [];
  for (const id of ids) {
    const account = accounts.get(id);
    if (account) out.push(users.toApi(account, caller));
  }
  return out;
}
