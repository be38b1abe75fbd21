// The `markup` plugin: markdown rendering (CommonMark and Gitea-flavoured), always sanitised.
import { definePlugin } from '../../core/plugin.js';
import { createMarkupService, renderWorkers, type MarkupSettings } from './service.js';
import type { MarkupService } from './service.js';
import { renderMarkdown, renderRaw } from './handlers.js';

/** `plugins.markup.*`: the defaults live here only. */
const SETTINGS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /** Larger bodies are answered 413 before anything is parsed. */
    maxBytes: { type: 'integer', minimum: 1, default: 1048576 },
    /** No default: one worker per CPU the process may run on, at most two (`renderWorkers`). */
    workers: { type: 'integer', minimum: 0, maximum: 64 },
    timeoutMs: { type: 'integer', minimum: 100, default: 10000 },
    inlineMaxBytes: { type: 'integer', minimum: 0, default: 4096 },
    workerHeapMb: { type: 'integer', minimum: 32, default: 128 },
    workerIdleMs: { type: 'integer', minimum: 0, default: 30000 },
  },
};

type Settings = MarkupSettings & { maxBytes: number };

/**
 * Documents handled at once per route: two per render worker, so a worker always has the next document parsed and
 * waiting. The rest wait as raw bytes (see the kernel's route `concurrency`): under load, queued documents held as
 * parsed strings outlived young-generation collections and grew the main heap by about 13 MB/s. Rendering inline
 * (no workers) blocks the event loop anyway, so it needs no limit.
 */
const concurrency = (_config: unknown, settings: Readonly<Record<string, any>>): number => renderWorkers(settings as Settings) * 2;
const maxBytes = (_config: unknown, settings: Readonly<Record<string, any>>): number => (settings as Settings).maxBytes;

const html = { 200: { type: 'string' } };

export default definePlugin<MarkupService, Settings>({
  name: 'markup',
  settings: SETTINGS,
  start(ctx) {
    return createMarkupService(ctx.urls.root, ctx.settings);
  },
  async stop(ctx) {
    await ctx.services.get('markup').close();
  },
  routes: [
    {
      operationId: 'renderMarkdown', summary: 'Render a markdown document as HTML',
      method: 'POST',
      path: '/markdown',
      scope: 'misc',
      auth: 'public',
      body: 'json',
      bodyOptional: true,
      bodyLimit: maxBytes,
      concurrency,
      schema: {
        body: {
          type: 'object',
          properties: {
            Text: { type: 'string' },
            Mode: { type: 'string', maxLength: 64 },
            // Bounded: the prefix is repeated in every resolved link.
            Context: { type: 'string', maxLength: 2048 },
            Wiki: { type: 'boolean' },
          },
        },
        response: html,
      },
      handler: renderMarkdown,
    },
    {
      operationId: 'renderMarkdownRaw', summary: 'Render raw markdown as HTML',
      method: 'POST',
      path: '/markdown/raw',
      scope: 'misc',
      auth: 'public',
      body: 'text',
      bodyLimit: maxBytes,
      concurrency,
      schema: { response: html },
      handler: renderRaw,
    },
  ],
});
