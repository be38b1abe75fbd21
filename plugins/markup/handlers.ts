// POST /markdown and POST /markdown/raw.
import type { RequestContext } from '../../core/plugin.js';
import type { MarkupRenderer } from './render.js';
import { toMarkdownRender } from './convert.js';

/** The JSON body of `POST /markdown`; keys arrive matched case-insensitively (`text`, `MODE` …). */
export interface MarkdownOption {
  Text?: string;
  Mode?: string;
  Context?: string;
  Wiki?: boolean;
}

function renderer(rc: RequestContext): MarkupRenderer {
  return rc.app.services.get<MarkupRenderer>('markup');
}

export async function renderMarkdown(rc: RequestContext<unknown, unknown, MarkdownOption>) {
  const { Text = '', Mode, Context, Wiki } = rc.body ?? {};
  return toMarkdownRender(renderer(rc).render(Text, { mode: Mode, context: Context, wiki: Wiki }));
}

/** The body is the text, whatever its Content-Type; always plain CommonMark. */
export async function renderRaw(rc: RequestContext<unknown, unknown, string>) {
  return toMarkdownRender(renderer(rc).render(rc.body ?? '', { mode: 'markdown' }));
}
