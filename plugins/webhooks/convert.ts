// Stored hooks and deliveries → API objects (gitea-js `Hook`; forgekit's `HookDelivery`).
import { headerEvent } from './event-types.js';
import { maskAuthorization } from './sender.js';
import type { DeliveryRecord, HookRecord } from './service.js';

/** Gitea's Hook. The secret never leaves; the authorization header is shown with its credential hidden. */
export function toApiHook(hook: HookRecord, authorization: string): Record<string, unknown> {
  return {
    id: hook.id,
    type: hook.type,
    branch_filter: hook.branchFilter,
    config: { url: hook.url, content_type: hook.contentType, http_method: hook.httpMethod },
    events: hook.events,
    authorization_header: maskAuthorization(authorization),
    active: hook.active,
    updated_at: hook.updatedAt,
    created_at: hook.createdAt,
  };
}

export function toApiDelivery(d: DeliveryRecord): Record<string, unknown> {
  return {
    id: d.id,
    uuid: d.uuid,
    hook_id: d.hookId,
    event: headerEvent(d.type),
    event_type: d.type,
    state: d.state,
    is_succeed: d.state === 'delivered',
    attempts: d.attempts,
    redelivery_of: d.redeliveryOf,
    created_at: d.createdAt,
    delivered_at: d.deliveredAt,
    duration_ms: d.durationMs,
    error: d.error,
    request: {
      url: d.request?.url ?? d.target.url,
      http_method: d.request?.method ?? d.target.httpMethod,
      headers: d.request?.headers ?? {},
      body: d.payload,
    },
    response: d.response ?? { status: 0, headers: {}, body: '' },
  };
}
