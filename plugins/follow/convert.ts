// Stored follow rows → the accounts on one side of each row, in row order (the users service shapes them as Users).
import type { Account } from '../../schemas/services.js';

/** One follow relation: `followerId` follows `followingId`. `id` orders relations (newest first in lists). */
export interface FollowRow {
  [key: string]: unknown;
  id: number;
  followerId: number;
  followingId: number;
  createdAt: string;
}

/** The accounts in `ids` order; an id whose account vanished meanwhile is skipped. */
export function accountsInOrder(ids: number[], accounts: Map<number, Account>): Account[] {
  const out: Account[] = [];
  for (const id of ids) {
    const account = accounts.get(id);
    if (account) out.push(account);
  }
  return out;
}
