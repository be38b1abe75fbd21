// Site administration of organizations: GET /admin/orgs (Gitea's admin GetAllOrgs), every visibility, name order.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import { users } from '../lib/request.js';
import { toApiOrg } from './convert.js';

export async function adminListAllOrgs(rc: RequestContext<unknown, { page?: number; limit?: number }>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const { accounts, total } = await users(rc).listAccounts('org', win.skip, win.limit);
  return { status: 200, body: accounts.map((o) => toApiOrg(o, users(rc), rc.caller)), headers: pageHeaders(rc, total, win) };
}
