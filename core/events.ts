// A small awaited event bus: plugins tell their dependents what happened (e.g. an account was deleted).
import type { EventBus, EventHandler } from './plugin.js';

export function createEventBus(): EventBus {
  const handlers = new Map<string, EventHandler[]>();
  return {
    on(event, handler) {
      const list = handlers.get(event) ?? [];
      list.push(handler as EventHandler);
      handlers.set(event, list);
    },
    async emit(event, payload) {
      for (const handler of handlers.get(event) ?? []) await handler(payload);
    },
    has: (event) => (handlers.get(event)?.length ?? 0) > 0,
  };
}
