// POST /markdown and POST /markdown/raw.
import type { RequestContext } from '../../core/plugin.js';
import type { MarkupService } from './service.js';
import { toMarkdownRender } from './convert.js';

/** The JSON body of `POST /markdown`; keys arrive matched case-insensitively (`text`, `MODE` …). */
export interface MarkdownOption {
  Text?: string;
  Mode?: string;
  Context?: string;
  Wiki?: boolean;
}

function markup(rc: RequestContext): MarkupService {
  return rc.app.services.get('markup');
}

export async function renderMarkdown(rc: RequestContext<unknown, unknown, MarkdownOption>) {
  const { Text = '', Mode, Context, Wiki } = rc.body ?? {};
  return toMarkdownRender(await markup(rc).render(Text, { mode: Mode, context: Context, wiki: Wiki }));
}

/** The body is the text, whatever its Content-Type; always plain CommonMark. */
export async function renderRaw(rc: RequestContext<unknown, unknown, string>) {
  return toMarkdownRender(await markup(rc).render(rc.body ?? '', { mode: 'markdown' }));
}
