// Plugin `webhooks`: Gitea's repository, organization, user and system webhooks, with durable at-least-once delivery.
import { definePlugin, type RouteDef, type ScopeCategory } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import '../../schemas/contracts/webhooks.js';
import { handlersFor, testRepoHook, type Scope } from './handlers.js';
import { createHookBody, editHookBody, HookDeliveryListSchema, HookDeliverySchema, HookListSchema, HookSchema, settingsSchema } from './schemas.js';
import { DELIVERIES, DELIVERY_INDEXES, HOOK_INDEXES, HOOKS, Webhooks, type WebhookSettings } from './service.js';

interface ScopeDef {
  scope: Scope;
  prefix: string;
  params: Record<string, object>;
  /** operationId prefix (Gitea's: repo, org, user, admin). */
  op: string;
  category: ScopeCategory;
  /** How Gitea's summaries name the collection. */
  listSummary: string;
}

const SCOPES: ScopeDef[] = [
  { scope: 'repo', prefix: '/repos/:owner/:repo/hooks', params: { owner: nameParam, repo: nameParam }, op: 'repo', category: 'repository', listSummary: 'List the hooks in a repository' },
  { scope: 'org', prefix: '/orgs/:org/hooks', params: { org: nameParam }, op: 'org', category: 'organization', listSummary: "List an organization's webhooks" },
  { scope: 'user', prefix: '/user/hooks', params: {}, op: 'user', category: 'user', listSummary: "List the authenticated user's webhooks" },
  { scope: 'admin', prefix: '/admin/hooks', params: {}, op: 'admin', category: 'admin', listSummary: "List system's webhooks" },
];

function routesOf(s: ScopeDef): RouteDef[] {
  const h = handlersFor(s.scope);
  const auth = s.scope === 'admin' ? 'admin' : 'user';
  const base = paramsSchema(s.params);
  const withId = paramsSchema({ ...s.params, id: idParam });
  const withDelivery = paramsSchema({ ...s.params, id: idParam, delivery: idParam });
  const common = { auth, scope: s.category } as const;
  const hookResponse = { 200: ref('forgekit/Hook') };
  return [
    { ...common, method: 'GET', path: s.prefix, handler: h.list, operationId: `${s.op}ListHooks`, summary: s.listSummary,
      schema: { ...(s.scope === 'user' || s.scope === 'admin' ? {} : { params: base }), querystring: listQuery(), response: { 200: ref('forgekit/HookList') } } },
    { ...common, method: 'POST', path: s.prefix, body: 'json', handler: h.create, operationId: `${s.op}CreateHook`, summary: 'Create a hook',
      schema: { ...(s.scope === 'user' || s.scope === 'admin' ? {} : { params: base }), body: createHookBody, response: { 201: ref('forgekit/Hook') } } },
    { ...common, method: 'GET', path: `${s.prefix}/:id`, handler: h.get, operationId: `${s.op}GetHook`, summary: 'Get a hook',
      schema: { params: withId, response: hookResponse } },
    { ...common, method: 'PATCH', path: `${s.prefix}/:id`, body: 'json', handler: h.edit, operationId: `${s.op}EditHook`,
      summary: s.scope === 'repo' ? 'Edit a hook in a repository' : 'Update a hook', schema: { params: withId, body: editHookBody, response: hookResponse } },
    { ...common, method: 'DELETE', path: `${s.prefix}/:id`, handler: h.remove, operationId: `${s.op}DeleteHook`,
      summary: s.scope === 'repo' ? 'Delete a hook in a repository' : 'Delete a hook', schema: { params: withId } },
    { ...common, method: 'GET', path: `${s.prefix}/:id/deliveries`, handler: h.deliveries, operationId: `${s.op}ListHookDeliveries`,
      summary: "List a hook's deliveries, newest first (forgekit)", schema: { params: withId, querystring: listQuery(), response: { 200: ref('forgekit/HookDeliveryList') } } },
    { ...common, method: 'GET', path: `${s.prefix}/:id/deliveries/:delivery`, handler: h.delivery, operationId: `${s.op}GetHookDelivery`,
      summary: "Get one of a hook's deliveries (forgekit)", schema: { params: withDelivery, response: { 200: ref('forgekit/HookDelivery') } } },
    { ...common, method: 'POST', path: `${s.prefix}/:id/deliveries/:delivery/attempts`, handler: h.redeliver, operationId: `${s.op}RedeliverHookDelivery`,
      summary: 'Send a delivery again, as a new delivery (forgekit)', schema: { params: withDelivery, response: { 201: ref('forgekit/HookDelivery') } } },
  ];
}

export default definePlugin<Webhooks, WebhookSettings>({
  name: 'webhooks',
  settings: settingsSchema,
  dependencies: ['users', 'repos'],
  optionalDependencies: ['orgs', 'git', 'contents'],
  collections: [
    { name: HOOKS, indexes: HOOK_INDEXES },
    { name: DELIVERIES, indexes: DELIVERY_INDEXES },
  ],
  schemas: [HookSchema, HookListSchema, HookDeliverySchema, HookDeliveryListSchema],
  async start(ctx) {
    const service = new Webhooks(ctx);
    await service.start();
    const p = service.payloads;
    // Every handler records its deliveries before it returns: the emitter awaits it before acknowledging the change.
    ctx.events.on('git.push', (e) => service.dispatch('git.push', [e.repo], () => p.push(e)));
    ctx.events.on('git.ref.created', (e) => service.dispatch('git.ref.created', [e.repo], () => p.refCreated(e)));
    ctx.events.on('git.ref.deleted', (e) => service.dispatch('git.ref.deleted', [e.repo], () => p.refDeleted(e)));
    ctx.events.on('issue.changed', (e) => service.dispatch('issue.changed', [e.repo], () => p.issue(e)));
    ctx.events.on('issue_comment.changed', (e) => service.dispatch('issue_comment.changed', [e.repo], () => p.issueComment(e)));
    ctx.events.on('pull_request.changed', (e) => service.dispatch('pull_request.changed', [e.repo], () => p.pullRequest(e)));
    ctx.events.on('pull_request.reviewed', (e) => service.dispatch('pull_request.reviewed', [e.repo], () => p.pullReview(e)));
    ctx.events.on('release.changed', (e) => service.dispatch('release.changed', [e.repo], () => p.release(e)));
    ctx.events.on('status.created', (e) => service.dispatch('status.created', [e.repo], () => p.status(e)));
    ctx.events.on('repo.created', async (e) => {
      if (e.repo.forkId === null) {
        await service.dispatch('repo.created', [e.repo], () => p.repositoryAction('created', e.repo, e.owner, e.creatorId));
        return;
      }
      const parent = await ctx.services.get('repos').byId(e.repo.forkId);
      await service.dispatch('repo.created', parent ? [parent, e.repo] : [e.repo], async () => {
        const out = [];
        if (parent) out.push(await p.fork(parent, e.repo, e.creatorId));
        // Gitea announces a fork as a created repository only to an organization owner's hooks.
        if (e.owner.type === 'org') out.push(await p.repositoryAction('created', e.repo, e.owner, e.creatorId));
        return out;
      });
    });
    ctx.events.on('repo.deleted', (e) => service.onRepoDeleted(e.repo, e.owner));
    ctx.events.on('account.deleted', async ({ account }) => {
      try {
        await service.onAccountDeleted(account);
      } catch (err) {
        ctx.log.error({ err, accountId: account.id }, 'removing the hooks of a deleted account failed');
      }
    });
    return service;
  },
  async stop(ctx) {
    await (ctx.services.get('webhooks') as Webhooks).stop(Math.min(ctx.config.shutdownTimeoutMs, 10_000));
  },
  routes: [
    ...SCOPES.flatMap(routesOf),
    {
      method: 'POST', path: '/repos/:owner/:repo/hooks/:id/tests', auth: 'user', handler: testRepoHook, body: 'none',
      operationId: 'repoTestHook', summary: 'Test a push webhook', scope: 'repository',
      schema: {
        params: paramsSchema({ owner: nameParam, repo: nameParam, id: idParam }),
        querystring: { type: 'object', properties: { ref: { type: 'string', maxLength: 255 } } },
      },
    },
  ],
});
