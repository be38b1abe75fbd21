// The markup renderer: picks the engine for a mode, renders, and sanitises every output.
import { createCommonMark } from './commonmark.js';
import { createGfm, createPlainMarkdownIt } from './gfm.js';
import type { PlainRenderer } from './gfm.js';
import { sanitize } from './sanitize.js';
import { contextPrefix } from './urls.js';
import { limitBlockStructure } from './prelimit.js';
import { normalizeMode, type RenderOptions } from './mode.js';

export type { MarkupMode, RenderOptions } from './mode.js';
export { normalizeMode } from './mode.js';

export interface MarkupRenderer {
  /** Renders to sanitised HTML. Synchronous and bounded: see budget.ts and the pathological-input tests. */
  render(text: string, options?: RenderOptions): string;
}

export function createMarkupRenderer({ rootUrl }: { rootUrl: string }): MarkupRenderer {
  const root = rootUrl.endsWith('/') ? rootUrl : rootUrl + '/';
  const commonmark = createCommonMark();
  let fallback: PlainRenderer | undefined;
  const gfmDocument = createGfm({ breaks: false });
  const gfmComment = createGfm({ breaks: true });
  return {
    render(text: string, options: RenderOptions = {}): string {
      if (text === '') return '';
      text = limitBlockStructure(text);
      const mode = normalizeMode(options.mode);
      if (mode === 'markdown') {
        if (options.engine === 'markdown-it') return sanitize((fallback ??= createPlainMarkdownIt()).render(text));
        return sanitize(commonmark.render(text));
      }
      const context = options.context ?? '';
      const engine = mode === 'comment' ? gfmComment : gfmDocument;
      const html = engine.render(text, {
        rootUrl: root,
        prefix: contextPrefix(root, context),
        hasContext: context.trim() !== '',
        wiki: options.wiki === true,
      });
      return sanitize(html);
    },
  };
}
