// The `markup` plugin: markdown rendering (CommonMark and Gitea-flavoured), always sanitised.
import { definePlugin } from '../../core/plugin.js';
import type { ForgeConfig } from '../../core/config.js';
import { createMarkupService, readSettings } from './service.js';
import type { MarkupService } from './service.js';
import { renderMarkdown, renderRaw } from './handlers.js';

export const DEFAULT_MAX_BYTES = 1024 * 1024;

/** `plugins.markup.maxBytes`: larger bodies are answered 413 before anything is parsed. */
function maxBytes(config: ForgeConfig): number {
  const value = config.plugins?.markup?.maxBytes;
  return typeof value === 'number' && value > 0 ? value : DEFAULT_MAX_BYTES;
}

/**
 * Documents handled at once per route: two per render worker, so a worker always has the next document parsed and
 * waiting. The rest wait as raw bytes (see the kernel's route `concurrency`): under load, queued documents held as
 * parsed strings outlived young-generation collections and grew the main heap by about 13 MB/s. Rendering inline
 * (no workers) blocks the event loop anyway, so it needs no limit.
 */
function concurrency(config: ForgeConfig): number {
  return readSettings(config.plugins?.markup ?? {}).workers * 2;
}

const html = { 200: { type: 'string' } };

export default definePlugin<MarkupService>({
  name: 'markup',
  start(ctx) {
    return createMarkupService(ctx.urls.root, readSettings(ctx.settings));
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
