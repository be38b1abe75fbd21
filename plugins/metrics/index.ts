// `GET /metrics`: Prometheus metrics when `plugins.metrics.enabled` (like Gitea's [metrics] ENABLED), protected by
// `plugins.metrics.token` (`Authorization: Bearer <token>`) when set. The instrumentation is in instrument.ts.
import { timingSafeEqual } from 'node:crypto';
import { definePlugin } from '../../core/plugin.js';
import { fail, ForgeError } from '../../core/errors.js';
import type { ForgeMetrics } from './instrument.js';

export interface MetricsSettings {
  enabled: boolean;
  token: string;
}

export const METRICS_SETTINGS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean', default: false },
    token: { type: 'string', default: '' },
  },
} as const;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The plugin serving `metrics` (absent when metrics are off: the route answers 404 like an unknown path). */
export function createMetricsPlugin(metrics?: ForgeMetrics) {
  return definePlugin<undefined, MetricsSettings>({
    name: 'metrics',
    settings: METRICS_SETTINGS,
    // Read at scrape time through their typed services when they are enabled.
    optionalDependencies: ['git', 'webhooks'],
    start(ctx) {
      if (!metrics || !ctx.settings.enabled) return undefined;
      ctx.kernel.onRequestFinished(metrics.observe);
      const { services } = ctx;
      metrics.connect({
        git: services.has('git') ? () => services.get('git').stats() : undefined,
        webhooks: services.has('webhooks') ? () => services.get('webhooks').stats() : undefined,
        routes: () => ctx.kernel.routes(),
      });
      return undefined;
    },
    routes: [
      {
        operationId: 'getMetrics', summary: 'Prometheus metrics (when enabled; Bearer token when configured)',
        scope: 'misc', method: 'GET', path: '/metrics', mount: 'root', auth: 'public',
        schema: { response: { 200: { type: 'string' } } },
        async handler(rc) {
          if (!metrics || !rc.app.settings.enabled) throw fail.notFound();
          const token = rc.app.settings.token;
          if (token) {
            const header = rc.req.headers.authorization ?? '';
            const given = /^Bearer (.+)$/i.exec(header)?.[1] ?? '';
            if (!sameSecret(given, token)) {
              throw new ForgeError('UNAUTHORIZED', 'a metrics token is required (Authorization: Bearer <token>)', { 'WWW-Authenticate': 'Bearer realm="forgekit metrics"' });
            }
          }
          const text = await metrics.registry.metrics();
          return { status: 200, type: 'text', body: text, headers: { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' } };
        },
      },
    ],
  });
}

export default createMetricsPlugin();
