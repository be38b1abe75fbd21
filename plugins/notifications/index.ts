// Plugin `notifications`: the caller's notification threads (Gitea's rules), fed by issue and pull-request events.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, ownerRepoParams, paramsSchema } from '../../schemas/common.js';
import { ACCOUNT_DELETED, REPO_DELETED, REPO_UPDATED } from '../../schemas/services.js';
import type { PluginContext } from '../../core/plugin.js';
import { subscribe } from './events.js';
import * as h from './handlers.js';
import {
  NOTIFICATION_INDEXES, NOTIFICATION_REPO_INDEXES, NOTIFICATION_REPOS, NOTIFICATION_STATE, NOTIFICATION_STATE_INDEXES, NOTIFICATIONS, Notifications,
} from './service.js';
import '../../schemas/contracts/issues.js';

const status = { type: 'string', enum: ['unread', 'read', 'pinned'] } as const;
const time = { type: 'string', maxLength: 64 } as const;
const threadQuery = listQuery({
  all: { type: 'boolean' },
  'status-types': { type: 'array', maxItems: 3, items: status },
  'subject-type': { type: 'array', maxItems: 4, items: { type: 'string', enum: ['issue', 'pull', 'commit', 'repository'] } },
  since: time,
  before: time,
});
const markQuery = {
  type: 'object',
  properties: {
    last_read_at: time, all: { type: 'string', maxLength: 8 }, 'status-types': { type: 'array', maxItems: 3, items: status }, 'to-status': status,
  },
};

const SubjectSchema = {
  $id: 'forgekit/NotificationSubject', type: 'object',
  required: ['title', 'url', 'html_url', 'latest_comment_url', 'latest_comment_html_url', 'type', 'state'],
  properties: {
    title: { type: 'string' }, url: { type: 'string' }, html_url: { type: 'string' }, latest_comment_url: { type: 'string' },
    latest_comment_html_url: { type: 'string' }, type: { type: 'string' }, state: { type: 'string' },
  },
};
const ThreadSchema = {
  $id: 'forgekit/NotificationThread', type: 'object',
  required: ['id', 'repository', 'subject', 'unread', 'pinned', 'updated_at', 'url'],
  properties: {
    id: { type: 'integer' }, repository: { $ref: 'forgekit/Repository' }, subject: { $ref: 'forgekit/NotificationSubject' },
    unread: { type: 'boolean' }, pinned: { type: 'boolean' }, updated_at: { type: 'string', format: 'date-time' }, url: { type: 'string' },
  },
};
const ThreadListSchema = { $id: 'forgekit/NotificationThreadList', type: 'array', items: { $ref: 'forgekit/NotificationThread' } };
/** The running service of each started instance (several forges may share a process in tests). */
const running = new WeakMap<PluginContext, Notifications>();

const CountSchema = { $id: 'forgekit/NotificationCount', type: 'object', required: ['new'], properties: { new: { type: 'integer' } } };

export default definePlugin<Notifications>({
  name: 'notifications',
  dependencies: ['users', 'repos'],
  optionalDependencies: ['issues', 'watch'],
  collections: [
    { name: NOTIFICATIONS, indexes: NOTIFICATION_INDEXES },
    { name: NOTIFICATION_REPOS, indexes: NOTIFICATION_REPO_INDEXES },
    { name: NOTIFICATION_STATE, indexes: NOTIFICATION_STATE_INDEXES },
  ],
  schemas: [SubjectSchema, ThreadSchema, ThreadListSchema, CountSchema],
  async start(ctx) {
    const service = new Notifications(ctx);
    service.serializeSubject = ctx.serializer({ $ref: 'forgekit/NotificationSubject' });
    await service.open();
    subscribe(ctx, service);
    ctx.events.on(REPO_DELETED, ({ repo }) => service.onRepoDeleted(repo.id));
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => service.onAccountDeleted(account.id));
    // Readability copies follow every access change (see service.ts).
    ctx.events.on('access.changed', ({ userIds, repoIds, ownerIds }) => service.settleAfterChange({ userIds, repoIds, ownerIds }));
    ctx.events.on(REPO_UPDATED, ({ repo, before }) => {
      if (repo.private !== before.private || repo.ownerId !== before.ownerId) return service.settleAfterChange({ repoIds: [repo.id] });
    });
    running.set(ctx, service);
    return service;
  },
  async stop(ctx) {
    await running.get(ctx)?.close();
    running.delete(ctx);
  },
  routes: [
    {
      method: 'GET', path: '/notifications', auth: 'user', handler: h.listAll,
      operationId: 'notifyGetList', summary: "List users's notification threads", scope: 'notification',
      schema: { querystring: threadQuery, response: { 200: { $ref: 'forgekit/NotificationThreadList' } } },
    },
    {
      method: 'PUT', path: '/notifications', auth: 'user', handler: h.markAll,
      operationId: 'notifyReadList', summary: 'Mark notification threads as read, pinned or unread', scope: 'notification',
      schema: { querystring: markQuery, response: { 205: { $ref: 'forgekit/NotificationThreadList' } } },
    },
    {
      method: 'GET', path: '/notifications/new', auth: 'user', handler: h.countNew,
      operationId: 'notifyNewAvailable', summary: 'Check if unread notifications exist', scope: 'notification',
      schema: { response: { 200: { $ref: 'forgekit/NotificationCount' } } },
    },
    {
      method: 'GET', path: '/notifications/threads/:id', auth: 'user', handler: h.getThread,
      operationId: 'notifyGetThread', summary: 'Get notification thread by ID', scope: 'notification',
      schema: { params: paramsSchema({ id: idParam }), response: { 200: { $ref: 'forgekit/NotificationThread' } } },
    },
    {
      method: 'PATCH', path: '/notifications/threads/:id', auth: 'user', handler: h.markThread,
      operationId: 'notifyReadThread', summary: 'Mark notification thread as read by ID', scope: 'notification',
      schema: { params: paramsSchema({ id: idParam }), querystring: { type: 'object', properties: { 'to-status': status } }, response: { 205: { $ref: 'forgekit/NotificationThread' } } },
    },
    {
      method: 'GET', path: '/repos/:owner/:repo/notifications', auth: 'user', handler: h.listRepo,
      operationId: 'notifyGetRepoList', summary: "List users's notification threads on a specific repo", scope: 'notification',
      schema: { params: ownerRepoParams, querystring: threadQuery, response: { 200: { $ref: 'forgekit/NotificationThreadList' } } },
    },
    {
      method: 'PUT', path: '/repos/:owner/:repo/notifications', auth: 'user', handler: h.markRepo,
      operationId: 'notifyReadRepoList', summary: 'Mark notification threads as read, pinned or unread on a specific repo', scope: 'notification',
      schema: { params: ownerRepoParams, querystring: markQuery, response: { 205: { $ref: 'forgekit/NotificationThreadList' } } },
    },
  ],
});
