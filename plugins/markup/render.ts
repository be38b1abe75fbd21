// The markup renderer: picks the engine for a mode, renders, and sanitises every output.
import { createCommonMark } from './commonmark.js';
import { createGfm, createPlainMarkdownIt } from './gfm.js';
import type { PlainRenderer } from './gfm.js';
import { sanitize } from './sanitize.js';
import { contextPrefix } from './urls.js';
import { limitBlockStructure } from './prelimit.js';

export type MarkupMode = 'markdown' | 'gfm' | 'comment';

export interface RenderOptions {
  /** `gfm`, `comment`, or anything else (`markdown`, empty, unknown) for plain CommonMark. */
  mode?: string;
  /** Repository path (`owner/repo`) or absolute http(s) URL that relative and special links resolve under. */
  context?: string;
  /** Relative links resolve under `<Context>/wiki/`, images under `<Context>/wiki/raw/`. */
  wiki?: boolean;
  /**
   * The CommonMark engine of mode `markdown`: commonmark.js (the default), or markdown-it's CommonMark preset, the
   * linear-time fallback the worker pool switches to when commonmark.js runs long on a hostile document.
   */
  engine?: 'commonmark' | 'markdown-it';
}

export interface MarkupRenderer {
  /** Renders to sanitised HTML. Synchronous and bounded: see budget.ts and the pathological-input tests. */
  render(text: string, options?: RenderOptions): string;
}

/** Mode names are matched case-insensitively; anything unknown is plain markdown, like the reference server. */
export function normalizeMode(mode: string | undefined): MarkupMode {
  const m = (mode ?? '').trim().toLowerCase();
  return m === 'gfm' || m === 'comment' ? m : 'markdown';
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
