// Plain CommonMark (mode `markdown` and `/markdown/raw`) with commonmark.js, the reference implementation.
import { HtmlRenderer, Parser } from 'commonmark';
import type { Node } from 'commonmark';
import { MAX_MARKDOWN_DEPTH, urlBudget } from './budget.js';

/**
 * Bounds the output before rendering. Links and images past the URL budget lose their destination and keep their
 * text, like cmark's limit on reference expansion; nodes nested deeper than MAX_MARKDOWN_DEPTH are unwrapped.
 */
function enforceLimits(doc: Node, inputLength: number): void {
  let left = urlBudget(inputLength);
  const unwrap: Node[] = [];
  let depth = 0;
  const walker = doc.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    const node = step.node;
    if (!node.isContainer) continue;
    if (!step.entering) {
      depth--;
      continue;
    }
    depth++;
    if (depth > MAX_MARKDOWN_DEPTH) {
      unwrap.push(node);
      continue;
    }
    if (node.type !== 'link' && node.type !== 'image') continue;
    const cost = (node.destination ?? '').length + (node.title ?? '').length;
    if (cost <= left) left -= cost;
    else unwrap.push(node);
  }
  for (const node of unwrap) {
    for (let child = node.firstChild; child; child = node.firstChild) node.insertBefore(child);
    node.unlink();
  }
}

export interface CommonMarkRenderer {
  render(text: string): string;
}

export function createCommonMark(): CommonMarkRenderer {
  const parser = new Parser();
  const renderer = new HtmlRenderer({ safe: false });
  return {
    render(text: string): string {
      const doc = parser.parse(text);
      enforceLimits(doc, text.length);
      return renderer.render(doc);
    },
  };
}
