// The `webhooks` plugin's service: what other plugins (metrics, the admin surface) may ask of the delivery queue.

export interface WebhookQueueStats {
  /** Deliveries recorded and not yet finished (waiting, being sent, or waiting for a retry). */
  pending: number;
  /** Deliveries being sent right now. */
  inFlight: number;
  /** Deliveries that succeeded / finally failed since this process started. */
  delivered: number;
  failed: number;
}

export interface WebhooksService {
  /** The queue depth and counters, read without touching the store. */
  stats(): WebhookQueueStats;
  /** Resolves when no delivery is pending or in flight (tests, graceful drains); never waits for a retry timer. */
  idle(): Promise<void>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    webhooks: WebhooksService;
  }
}
