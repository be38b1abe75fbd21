// Site administration of organizations: GET /admin/orgs (Gitea's admin GetAllOrgs), every visibility, name order.
import type { RequestContext, Reply } from '../../core/plugin.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import { users } from '../lib/request.js';
import type { Orgs } from './service.js';

export async function adminListAllOrgs(rc: RequestContext<unknown, { page?: number; limit?: number }>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const { accounts, total } = await users(rc).listAccounts('org', win.skip, win.limit);
  const orgs = rc.app.services.get('orgs') as Orgs;
  return { status: 200, type: 'json-text', body: orgs.orgsJson(accounts, rc.caller), headers: pageHeaders(rc, total, win) };
}
