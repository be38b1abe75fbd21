// What the SSH and GPG key plugins share: a signed-in user's own key by id, and the two per-owner list operations.
import { fail } from '../../core/errors.js';
import type { Caller, Reply, RequestContext } from '../../core/plugin.js';
import type { Collection, Doc } from '../../core/store/port.js';
import { accountOr404, me } from './request.js';

/** A stored key row: owned by one account. */
export interface OwnedKeyDoc extends Doc {
  id: number;
  ownerId: number;
}

/** GET /user/…/{id}: the caller's key (site admins read every key); a missing key or another user's is a 404. */
export async function readableKey<D extends OwnedKeyDoc>(keys: Collection<D>, id: number, caller: Caller): Promise<D> {
  const doc = await keys.findOne({ id });
  if (!doc || (doc.ownerId !== caller.id && !caller.isAdmin)) throw fail.notFound();
  return doc;
}

/** DELETE /user/…/{id}: 404 when missing, 403 for another user's key unless the caller is a site admin. */
export async function deletableKey<D extends OwnedKeyDoc>(keys: Collection<D>, id: number, caller: Caller): Promise<D> {
  const doc = await keys.findOne({ id });
  if (!doc) throw fail.notFound();
  if (doc.ownerId !== caller.id && !caller.isAdmin) throw fail.forbidden('You do not have access to this key');
  return doc;
}

type ListFor = (rc: RequestContext<any, any, any>, ownerId: number) => Promise<Reply>;

/** The caller's list (`/user/…`) and any user's public list (`/users/{username}/…`, 404 without such a user). */
export function ownerListHandlers(listFor: ListFor): {
  listMine(rc: RequestContext<any, any, any>): Promise<Reply>;
  listOfUser(rc: RequestContext<{ username: string }, any, any>): Promise<Reply>;
} {
  return {
    listMine: (rc) => listFor(rc, me(rc).id),
    listOfUser: async (rc) => listFor(rc, (await accountOr404(rc, rc.params.username)).id),
  };
}
