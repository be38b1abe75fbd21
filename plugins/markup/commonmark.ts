// Plain CommonMark (mode `markdown` and `/markdown/raw`) with commonmark.js, the reference implementation.
import { HtmlRenderer, Parser } from 'commonmark';
import type { Node } from 'commonmark';
import { urlBudget } from './budget.js';

/**
 * Links and images past the URL budget lose their destination and keep their text, like cmark's limit on
 * reference expansion: the document still renders, in bounded size.
 */
function enforceBudget(doc: Node, inputLength: number): void {
  let left = urlBudget(inputLength);
  const over: Node[] = [];
  const walker = doc.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    if (!step.entering) continue;
    const node = step.node;
    if (node.type !== 'link' && node.type !== 'image') continue;
    const cost = (node.destination ?? '').length + (node.title ?? '').length;
    if (cost <= left) left -= cost;
    else over.push(node);
  }
  for (const node of over) {
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
      enforceBudget(doc, text.length);
      return renderer.render(doc);
    },
  };
}
