// Hook routes for the four scopes Gitea has (repository, organization, the caller's own, system), plus the delivery
// history and redelivery. Each scope resolves to (kind, scope id) and a permission check; the rest is shared.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { ACCESS } from '../../schemas/services.js';
import { toApiDelivery, toApiHook } from './convert.js';
import type { HookInput, HookKind, HookRecord, Webhooks } from './service.js';

type Params = { owner?: string; repo?: string; org?: string; id?: number; delivery?: number };
type Rc<Q = unknown, B = unknown> = RequestContext<Params, Q, B>;

export type Scope = 'repo' | 'org' | 'user' | 'admin';

function service(rc: Rc<any, any>): Webhooks {
  return rc.app.services.get('webhooks') as Webhooks; // the contract, implemented by this plugin's class
}

/** Who may manage the scope's hooks: repository admins, organization owners, the user, site admins. */
async function resolveScope(rc: Rc<any, any>, scope: Scope): Promise<{ kind: HookKind; scopeId: number | null }> {
  const caller = rc.caller!;
  switch (scope) {
    case 'repo': {
      const { repo } = await rc.app.services.get('repos').resolve(caller, rc.params.owner!, rc.params.repo!, ACCESS.admin);
      return { kind: 'repo', scopeId: repo.id };
    }
    case 'org': {
      const org = await rc.app.services.get('users').byName(rc.params.org!);
      if (!org || org.type !== 'org') throw fail.notFound();
      if (!caller.isAdmin && !(await rc.app.services.get('orgs').isOwner(org.id, caller.id))) throw fail.forbidden('you must be an owner of the organization');
      return { kind: 'owner', scopeId: org.id };
    }
    case 'user':
      return { kind: 'owner', scopeId: caller.id };
    case 'admin':
      return { kind: 'system', scopeId: null };
  }
}

function hookReply(rc: Rc<any, any>, status: number, hook: HookRecord): Reply {
  return { status, body: toApiHook(hook, service(rc).unseal(hook.authorization)) };
}

export const handlersFor = (scope: Scope) => ({
  async list(rc: Rc<{ page?: number; limit?: number }>): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
    const { rows, total } = await service(rc).list(kind, scopeId, win.skip, win.limit);
    return { status: 200, body: rows.map((h) => toApiHook(h, service(rc).unseal(h.authorization))), headers: pageHeaders(rc, total, win) };
  },
  async create(rc: Rc<unknown, HookInput>): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    return hookReply(rc, 201, await service(rc).create(kind, scopeId, rc.body));
  },
  async get(rc: Rc): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    return hookReply(rc, 200, await service(rc).byId(kind, scopeId, rc.params.id!));
  },
  async edit(rc: Rc<unknown, HookInput>): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    const hook = await service(rc).byId(kind, scopeId, rc.params.id!);
    return hookReply(rc, 200, await service(rc).edit(hook, rc.body));
  },
  async remove(rc: Rc): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    await service(rc).remove(await service(rc).byId(kind, scopeId, rc.params.id!));
    return { status: 204 };
  },
  async deliveries(rc: Rc<{ page?: number; limit?: number }>): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    const hook = await service(rc).byId(kind, scopeId, rc.params.id!);
    const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
    const col = service(rc).deliveries;
    const [rows, total] = await Promise.all([
      col.find({ hookId: hook.id }, { sort: { id: -1 }, skip: win.skip, limit: win.limit }),
      col.count({ hookId: hook.id }),
    ]);
    return { status: 200, body: rows.map(toApiDelivery), headers: pageHeaders(rc, total, win) };
  },
  async delivery(rc: Rc): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    const hook = await service(rc).byId(kind, scopeId, rc.params.id!);
    const row = await service(rc).deliveries.findOne({ id: rc.params.delivery!, hookId: hook.id });
    if (!row) throw fail.notFound();
    return { status: 200, body: toApiDelivery(row) };
  },
  async redeliver(rc: Rc): Promise<Reply> {
    const { kind, scopeId } = await resolveScope(rc, scope);
    const hook = await service(rc).byId(kind, scopeId, rc.params.id!);
    const row = await service(rc).deliveries.findOne({ id: rc.params.delivery!, hookId: hook.id });
    if (!row) throw fail.notFound();
    return { status: 201, body: toApiDelivery(await service(rc).redeliver(hook, row)) };
  },
});

/** POST /repos/{owner}/{repo}/hooks/{id}/tests — Gitea sends a push payload of the latest commit, whatever the hook's events. */
export async function testRepoHook(rc: Rc<{ ref?: string }>): Promise<Reply> {
  const { repo, owner } = await rc.app.services.get('repos').resolve(rc.caller, rc.params.owner!, rc.params.repo!, ACCESS.admin);
  const hook = await service(rc).byId('repo', repo.id, rc.params.id!);
  await service(rc).test(hook, repo, owner, rc.caller!.id, rc.query?.ref);
  return { status: 204 };
}
