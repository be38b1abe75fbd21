// Caps the element nesting of rendered HTML before it is sanitised. htmlparser2 (under sanitize-html) keeps its open
// elements in an array it unshifts into, so every open tag costs the current depth: 300k nested blockquotes or
// `<b>`s took minutes. Tags that would open deeper than the cap are dropped here (their text stays), in one linear
// pass with htmlparser2's own tokenizer, so both passes split the document into the same tags.
import { Tokenizer } from 'htmlparser2';

/** Deeper than any real document; at this depth the sanitiser's per-tag cost is negligible. */
export const MAX_DEPTH = 512;

/** Elements that never hold children (the parser never pushes them). */
const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input',
  'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** Tags that switch the tokenizer into raw text: never dropped, so the sanitiser tokenizes exactly what we saw. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);

/** What a dropped tag becomes: a comment, so the text on either side cannot join into a new tag. */
const PLACEHOLDER = '<!---->';

/**
 * Returns `html` with every open tag that would nest deeper than `maxDepth` replaced by an empty comment.
 *
 * The parser's stack is always a subsequence of the one kept here: we push every non-void open tag (the parser may
 * push it, or implicitly close others first), and pop only on a close tag that matches our top element, which is
 * then either the parser's top too (and popped by it) or already gone from the parser's stack. So the parser's
 * depth never exceeds ours, and ours never exceeds `maxDepth` (+1 for a raw-text element). Sloppy markup that
 * leaves elements unclosed only makes us count deeper than the parser does, never shallower.
 */
export function limitNesting(html: string, maxDepth = MAX_DEPTH): string {
  if (html.length < maxDepth * 3) return html; // cannot hold maxDepth open tags
  const stack: string[] = [];
  const cuts: Array<[number, number]> = [];
  let tagStart = -1;
  let tagName = '';
  const openTagEnd = (endIndex: number): void => {
    if (tagStart < 0) return;
    if (!VOID.has(tagName)) {
      if (stack.length >= maxDepth && !RAW_TEXT.has(tagName)) cuts.push([tagStart, endIndex + 1]);
      else stack.push(tagName);
    }
    tagStart = -1;
  };
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, {
    onopentagname(start, endIndex) {
      tagStart = start - 1;
      tagName = html.slice(start, endIndex).toLowerCase();
    },
    onopentagend: openTagEnd,
    onselfclosingtag: openTagEnd,
    onclosetag(start, endIndex) {
      if (stack.length > 0 && stack[stack.length - 1] === html.slice(start, endIndex).toLowerCase()) stack.pop();
    },
    onattribdata() {},
    onattribentity() {},
    onattribend() {},
    onattribname() {},
    oncdata() {},
    oncomment() {},
    ondeclaration() {},
    onend() {},
    onprocessinginstruction() {},
    ontext() {},
    ontextentity() {},
  });
  tokenizer.write(html);
  tokenizer.end();
  if (cuts.length === 0) return html;
  let out = '';
  let pos = 0;
  for (const [start, end] of cuts) {
    out += html.slice(pos, start) + PLACEHOLDER;
    pos = end;
  }
  return out + html.slice(pos);
}
