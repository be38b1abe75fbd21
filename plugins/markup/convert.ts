// Rendered markup → the API's MarkdownRender reply (an HTML document, not JSON).
import type { Reply } from '../../core/plugin.js';

/**
 * Defence in depth behind the sanitiser: a browser that opens a rendered document directly runs no script, loads
 * nothing but images, and treats the page as a unique origin (`sandbox` without `allow-scripts`).
 */
export const MARKUP_CSP = "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; sandbox";

export function toMarkdownRender(html: string): Reply {
  return { status: 200, type: 'html', body: html, headers: { 'Content-Security-Policy': MARKUP_CSP } };
}
