// Gitea-flavoured markdown (modes `gfm` and `comment`) on markdown-it: CommonMark plus tables, strikethrough,
// task lists, bare-URL autolinks and the reference server's special links, all as token rewrites.
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as MarkdownItInstance, StateCore, Token } from 'markdown-it';
import { findSpecialLinks, shortUrlLabel } from './special-links.js';
import type { Segment, SpecialLinkOptions } from './special-links.js';
import { MAX_MARKDOWN_DEPTH, urlBudget } from './budget.js';
import { isAbsoluteUrl, rawPrefix, resolveUnder } from './urls.js';

/** What one gfm render needs to know, carried in markdown-it's env. */
export interface GfmContext extends SpecialLinkOptions {
  /** Relative links resolve under `<prefix>wiki/`, images under `<prefix>wiki/raw/`. */
  wiki: boolean;
}

const ENV_KEY = 'forgekit';

function contextOf(state: StateCore): GfmContext {
  return state.env[ENV_KEY] as GfmContext;
}

// ---- task lists ---------------------------------------------------------------------------------------------------

const TASK = /^\[([ xX])\][ \t]/;

/** `- [ ] todo` / `- [x] done`: the marker at the start of an item's first paragraph becomes a disabled checkbox. */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open' || tokens[i - 2]!.type !== 'list_item_open') continue;
    const first = inline.children?.[0];
    if (!first || first.type !== 'text') continue;
    const m = TASK.exec(first.content);
    if (!m) continue;
    const box = new state.Token('html_inline', '', 0);
    box.content = m[1] === ' ' ? '<input type="checkbox" disabled="" />' : '<input type="checkbox" disabled="" checked="" />';
    first.content = first.content.slice(3);
    inline.children!.unshift(box);
  }
}

// ---- links --------------------------------------------------------------------------------------------------------

function linkToken(state: StateCore, href: string, text: string): Token[] {
  const open = new state.Token('link_open', 'a', 1);
  open.attrs = [['href', href]];
  open.markup = 'forgekit';
  const body = new state.Token('text', '', 0);
  body.content = text;
  const close = new state.Token('link_close', 'a', -1);
  close.markup = 'forgekit';
  return [open, body, close];
}

function imageToken(state: StateCore, src: string, alt: string): Token {
  const image = new state.Token('image', 'img', 0);
  image.attrs = [['src', src], ['alt', '']];
  const text = new state.Token('text', '', 0);
  text.content = alt;
  image.children = [text];
  image.content = alt;
  return image;
}

function segmentTokens(state: StateCore, segments: Segment[]): Token[] {
  const out: Token[] = [];
  for (const seg of segments) {
    if (seg.kind === 'text') {
      const t = new state.Token('text', '', 0);
      t.content = seg.text;
      out.push(t);
    } else if (seg.kind === 'link') {
      out.push(...linkToken(state, seg.href, seg.text));
    } else {
      out.push(imageToken(state, seg.src, seg.alt));
    }
  }
  return out;
}

const HTML_OPEN_A = /^<a(?:\s|>|\/>)/i;
const HTML_CLOSE_A = /^<\/a\s*>/i;
const HTML_OPEN_CODE = /^<(?:code|pre|kbd|samp)(?:\s|>)/i;
const HTML_CLOSE_CODE = /^<\/(?:code|pre|kbd|samp)\s*>/i;

/** External `.svg` images are shown, not wrapped in a link (the reference server's exception). */
const SVG = /\.svg(?:[?#]|$)/i;

function resolveLink(tok: Token, ctx: GfmContext): void {
  const href = tok.attrGet('href');
  if (typeof href !== 'string' || isAbsoluteUrl(href)) return;
  const resolved = resolveUnder(ctx.wiki ? ctx.prefix + 'wiki/' : ctx.prefix, href);
  if (resolved !== null) tok.attrSet('href', resolved);
}

function resolveImage(tok: Token, ctx: GfmContext): void {
  const src = tok.attrGet('src');
  if (typeof src !== 'string' || isAbsoluteUrl(src)) return;
  const resolved = resolveUnder(ctx.wiki ? ctx.prefix + 'wiki/raw/' : rawPrefix(ctx.prefix), src);
  if (resolved !== null) tok.attrSet('src', resolved);
}

/**
 * One pass over an inline run: resolve relative links and images, label pasted commit/issue URLs, wrap images in
 * links to themselves, and turn special references in plain text into links. Text inside links, code spans and
 * raw `<a>`/`<code>` HTML is left alone (code blocks are block tokens and never reach here).
 */
function rewriteInline(state: StateCore, children: Token[], ctx: GfmContext): Token[] {
  const out: Token[] = [];
  let inLink = 0;
  let inHtmlLink = 0;
  let inHtmlCode = 0;
  for (let i = 0; i < children.length; i++) {
    const tok = children[i]!;
    switch (tok.type) {
      case 'link_open': {
        inLink++;
        if (tok.markup === 'linkify' || tok.markup === 'autolink') {
          const label = children[i + 1];
          const href = tok.attrGet('href');
          if (label?.type === 'text' && children[i + 2]?.type === 'link_close' && typeof href === 'string') {
            const short = shortUrlLabel(href);
            if (short !== null) label.content = short;
          }
        } else {
          resolveLink(tok, ctx);
        }
        break;
      }
      case 'link_close':
        inLink = Math.max(0, inLink - 1);
        break;
      case 'html_inline':
        if (HTML_OPEN_A.test(tok.content)) inHtmlLink++;
        else if (HTML_CLOSE_A.test(tok.content)) inHtmlLink = Math.max(0, inHtmlLink - 1);
        else if (HTML_OPEN_CODE.test(tok.content)) inHtmlCode++;
        else if (HTML_CLOSE_CODE.test(tok.content)) inHtmlCode = Math.max(0, inHtmlCode - 1);
        break;
      case 'image': {
        resolveImage(tok, ctx);
        const src = tok.attrGet('src');
        if (inLink === 0 && inHtmlLink === 0 && typeof src === 'string' && !/^data:/i.test(src.trim())
          && !(SVG.test(src) && isAbsoluteUrl(src) && !src.startsWith(ctx.rootUrl))) {
          const [open, , close] = linkToken(state, src, '');
          out.push(open!, tok, close!);
          continue;
        }
        break;
      }
      case 'text':
        if (inLink === 0 && inHtmlLink === 0 && inHtmlCode === 0) {
          const segments = findSpecialLinks(tok.content, ctx);
          if (segments) {
            for (const t of segmentTokens(state, segments)) {
              if (t.type === 'image') {
                const [open, , close] = linkToken(state, t.attrGet('src') as string, '');
                out.push(open!, t, close!);
              } else {
                out.push(t);
              }
            }
            continue;
          }
        }
        break;
      default:
        break;
    }
    out.push(tok);
  }
  return out;
}

function specialLinks(state: StateCore): void {
  const ctx = contextOf(state);
  for (const block of state.tokens) {
    if (block.type === 'inline' && block.children) block.children = rewriteInline(state, block.children, ctx);
  }
}

// ---- tables -------------------------------------------------------------------------------------------------------

const TEXT_ALIGN = /^text-align:(left|right|center)$/;

/** Column alignment as the `align` attribute: no style attribute ever reaches the sanitiser. */
function tableAlign(state: StateCore): void {
  for (const tok of state.tokens) {
    if ((tok.type !== 'th_open' && tok.type !== 'td_open') || !tok.attrs) continue;
    const style = tok.attrGet('style');
    tok.attrs = tok.attrs.filter(([name]) => name !== 'style');
    const m = typeof style === 'string' ? TEXT_ALIGN.exec(style) : null;
    if (m) tok.attrSet('align', m[1]!);
  }
}

// ---- output size --------------------------------------------------------------------------------------------------

function urlCost(tok: Token): number {
  let cost = 0;
  for (const [name, value] of tok.attrs ?? []) {
    if (name === 'href' || name === 'src' || name === 'title') cost += String(value).length;
  }
  return cost;
}

function altText(tok: Token): string {
  return (tok.children ?? []).map((c) => c.content).join('');
}

/**
 * Bounds the output: past the URL budget, links keep their text and images their alt text (see budget.ts); inline
 * elements nested deeper than MAX_MARKDOWN_DEPTH (emphasis runs) are unwrapped. markdown-it caps blocks itself.
 */
function enforceLimits(state: StateCore): void {
  let left = urlBudget(state.src.length);
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const depth = block.level;
    const out: Token[] = [];
    const dropped: boolean[] = [];
    for (const tok of block.children) {
      if (tok.nesting === 1) {
        let drop = depth + dropped.length >= MAX_MARKDOWN_DEPTH;
        if (!drop && tok.type === 'link_open') {
          const cost = urlCost(tok);
          drop = cost > left;
          if (!drop) left -= cost;
        }
        dropped.push(drop);
        if (!drop) out.push(tok);
      } else if (tok.nesting === -1) {
        if (!dropped.pop()) out.push(tok);
      } else if (tok.type === 'image') {
        const cost = urlCost(tok);
        if (cost <= left) {
          left -= cost;
          out.push(tok);
        } else {
          const t = new state.Token('text', '', 0);
          t.content = altText(tok);
          out.push(t);
        }
      } else {
        out.push(tok);
      }
    }
    block.children = out;
  }
}

// ---- the parser ---------------------------------------------------------------------------------------------------

/** `www.example.com` autolinks like GitHub's; other scheme-less hosts (`README.md`) stay text. */
function addWwwLinks(md: MarkdownItInstance): void {
  let tail: RegExp | undefined;
  md.linkify.add('www.', {
    validate(text, pos, self) {
      // The host and path rules of linkify-it's own http: schema, sticky at the position after `www.`.
      tail ??= new RegExp(self.re.get_url_host_port().source + self.re.get_path().source, 'iy');
      tail.lastIndex = pos;
      const m = tail.exec(text);
      return m ? m[0].length : 0;
    },
    normalize(match) {
      match.url = 'http://' + match.url;
    },
  });
}

export interface GfmRenderer {
  render(text: string, ctx: GfmContext): string;
}

/** `breaks`: newlines in paragraphs are line breaks (comments, like the reference server's comment setting). */
export function createGfm({ breaks }: { breaks: boolean }): GfmRenderer {
  const md = new MarkdownIt('default', { html: true, linkify: true, typographer: false, breaks, maxNesting: 100 });
  addWwwLinks(md);
  md.core.ruler.before('text_join', 'forgekit_tasks', taskLists);
  md.core.ruler.before('text_join', 'forgekit_links', specialLinks);
  md.core.ruler.push('forgekit_tables', tableAlign);
  md.core.ruler.push('forgekit_limits', enforceLimits);
  return {
    render(text: string, ctx: GfmContext): string {
      return md.render(text, { [ENV_KEY]: ctx });
    },
  };
}
