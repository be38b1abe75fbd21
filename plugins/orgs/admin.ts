// Site administration of organizations: GET /admin/orgs (Gitea's admin GetAllOrgs), every visibility, name order.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import { users } from '../lib/request.js';
import { orgs } from './handlers.js';

export async function adminListAllOrgs(rc: RequestContext<unknown, { page?: number; limit?: number }>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const { accounts, total } = await users(rc).listAccounts('org', win.skip, win.limit);
  return { status: 200, type: 'json-text', body: orgs(rc).orgsJson(accounts, rc.caller), headers: pageHeaders(rc, total, win) };
}
