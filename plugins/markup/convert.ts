// Rendered markup → the API's MarkdownRender reply (an HTML document, not JSON).
import type { Reply } from '../../core/plugin.js';

export function toMarkdownRender(html: string): Reply {
  return { status: 200, type: 'html', body: html };
}
