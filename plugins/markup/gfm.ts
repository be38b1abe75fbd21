// Gitea-flavoured markdown (modes `gfm` and `comment`) on markdown-it: CommonMark plus tables, strikethrough,
// task lists, bare-URL autolinks and the reference server's special links, all as token rewrites. Also markdown-it's
// CommonMark preset with the same output limits: the linear-time fallback for plain markdown (see pool.ts).
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as MarkdownItInstance, StateCore, Token } from 'markdown-it';
import { findSpecialLinks, shortUrlLabel } from './special-links.js';
import type { SpecialLinkOptions } from './special-links.js';
import { MAX_MARKDOWN_DEPTH, urlBudget } from './budget.js';
import { isAbsoluteUrl, rawPrefix, resolveUnder } from './urls.js';

/** What one gfm render needs to know, carried in markdown-it's env. */
export interface GfmContext extends SpecialLinkOptions {
  /** Relative links resolve under `<prefix>wiki/`, images under `<prefix>wiki/raw/`. */
  wiki: boolean;
}

const ENV_KEY = 'forgekit';

/** The gfm context of a render; null for plain CommonMark (limits only, no link rewriting). */
function contextOf(state: StateCore): GfmContext | null {
  return (state.env[ENV_KEY] as GfmContext | undefined) ?? null;
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

const HTML_OPEN_A = /^<a(?:\s|>|\/>)/i;
const HTML_CLOSE_A = /^<\/a\s*>/i;
const HTML_OPEN_CODE = /^<(?:code|pre|kbd|samp)(?:\s|>)/i;
const HTML_CLOSE_CODE = /^<\/(?:code|pre|kbd|samp)\s*>/i;

/** External `.svg` images are shown, not wrapped in a link (the reference server's exception). */
const SVG = /\.svg(?:[?#]|$)/i;

/** What a render may still spend on URL characters (budget.ts); shared by every inline run of one document. */
interface Budget {
  left: number;
}

function spend(budget: Budget, cost: number): boolean {
  if (cost > budget.left) return false;
  budget.left -= cost;
  return true;
}

function textToken(state: StateCore, content: string): Token {
  const t = new state.Token('text', '', 0);
  t.content = content;
  return t;
}

function altText(tok: Token): string {
  return (tok.children ?? []).map((c) => c.content).join('');
}

function attr(tok: Token, name: string): string {
  const v = tok.attrGet(name);
  return typeof v === 'string' ? v : '';
}

/** Where a relative URL resolves: links under the context (or its wiki), images under its raw files. */
function baseFor(kind: 'link' | 'image', ctx: GfmContext): string {
  if (kind === 'link') return ctx.wiki ? ctx.prefix + 'wiki/' : ctx.prefix;
  return ctx.wiki ? ctx.prefix + 'wiki/raw/' : rawPrefix(ctx.prefix);
}

/**
 * Charges the budget for a link or image before its URL is built (so a huge reference definition repeated many
 * times is refused before anything is copied), then resolves a relative URL. False when over budget.
 */
function chargeAndResolve(tok: Token, name: 'href' | 'src', ctx: GfmContext | null, budget: Budget, copies: number): boolean {
  const url = attr(tok, name);
  const relative = ctx !== null && url !== '' && !url.trim().startsWith('#') && !isAbsoluteUrl(url);
  const base = relative ? baseFor(name === 'href' ? 'link' : 'image', ctx) : '';
  if (!spend(budget, (base.length + url.length) * copies + attr(tok, 'title').length)) return false;
  if (relative) {
    const resolved = resolveUnder(base, url);
    if (resolved !== null) tok.attrSet(name, resolved);
  }
  return true;
}

/** Images outside links link to themselves (external `.svg` and inline `data:` images excepted). */
function shouldWrap(src: string, ctx: GfmContext | null): boolean {
  if (ctx === null || /^data:/i.test(src.trim())) return false;
  return !(SVG.test(src) && isAbsoluteUrl(src) && !src.startsWith(ctx.rootUrl));
}

function pushImage(state: StateCore, out: Token[], image: Token, wrap: boolean): void {
  if (!wrap) {
    out.push(image);
    return;
  }
  const [open, , close] = linkToken(state, attr(image, 'src'), '');
  out.push(open!, image, close!);
}

/**
 * One pass over an inline run: resolve relative links and images, label pasted commit/issue URLs, wrap images in
 * links to themselves, and turn special references in plain text into links, all within the URL budget. Text
 * inside links, code spans and raw `<a>`/`<code>` HTML is left alone (code blocks never reach here).
 */
function rewriteInline(state: StateCore, children: Token[], ctx: GfmContext | null, budget: Budget): Token[] {
  const out: Token[] = [];
  const linkKept: boolean[] = [];
  let inLink = 0;
  let inHtmlLink = 0;
  let inHtmlCode = 0;
  for (let i = 0; i < children.length; i++) {
    const tok = children[i]!;
    switch (tok.type) {
      case 'link_open': {
        inLink++;
        const kept = chargeAndResolve(tok, 'href', ctx, budget, 1);
        linkKept.push(kept);
        if (!kept) continue;
        if (ctx !== null && (tok.markup === 'linkify' || tok.markup === 'autolink')) {
          const label = children[i + 1];
          if (label?.type === 'text' && children[i + 2]?.type === 'link_close') {
            const short = shortUrlLabel(attr(tok, 'href'));
            if (short !== null) label.content = short;
          }
        }
        break;
      }
      case 'link_close':
        inLink = Math.max(0, inLink - 1);
        if (linkKept.pop() === false) continue;
        break;
      case 'html_inline':
        if (HTML_OPEN_A.test(tok.content)) inHtmlLink++;
        else if (HTML_CLOSE_A.test(tok.content)) inHtmlLink = Math.max(0, inHtmlLink - 1);
        else if (HTML_OPEN_CODE.test(tok.content)) inHtmlCode++;
        else if (HTML_CLOSE_CODE.test(tok.content)) inHtmlCode = Math.max(0, inHtmlCode - 1);
        break;
      case 'image': {
        const wrap = inLink === 0 && inHtmlLink === 0 && shouldWrap(attr(tok, 'src'), ctx);
        if (!chargeAndResolve(tok, 'src', ctx, budget, wrap ? 2 : 1)) {
          out.push(textToken(state, altText(tok)));
          continue;
        }
        pushImage(state, out, tok, wrap && shouldWrap(attr(tok, 'src'), ctx));
        continue;
      }
      case 'text':
        if (ctx !== null && inLink === 0 && inHtmlLink === 0 && inHtmlCode === 0) {
          const segments = findSpecialLinks(tok.content, ctx);
          if (segments) {
            for (const seg of segments) {
              if (seg.kind === 'text') {
                out.push(textToken(state, seg.text));
              } else if (seg.kind === 'link') {
                if (spend(budget, seg.href.length)) out.push(...linkToken(state, seg.href, seg.text));
                else out.push(textToken(state, seg.text));
              } else if (spend(budget, seg.src.length * 2)) {
                pushImage(state, out, imageToken(state, seg.src, seg.alt), true);
              } else {
                out.push(textToken(state, seg.alt));
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
  const budget: Budget = { left: urlBudget(state.src.length) };
  for (const block of state.tokens) {
    if (block.type === 'inline' && block.children) block.children = rewriteInline(state, block.children, ctx, budget);
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

// ---- nesting ------------------------------------------------------------------------------------------------------

/**
 * Inline elements nested deeper than MAX_MARKDOWN_DEPTH (emphasis runs) are unwrapped, content kept. Block nesting
 * is bounded by the per-line limits (prelimit.ts), below markdown-it's own maxNesting (which would drop content).
 */
function limitInlineDepth(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    const dropped: boolean[] = [];
    for (const tok of block.children) {
      if (tok.nesting === 1) {
        const drop = block.level + dropped.length >= MAX_MARKDOWN_DEPTH;
        dropped.push(drop);
        if (!drop) out.push(tok);
      } else if (tok.nesting === -1) {
        if (!dropped.pop()) out.push(tok);
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
  const md = new MarkdownIt('default', { html: true, linkify: true, typographer: false, breaks, maxNesting: 200 });
  addWwwLinks(md);
  md.core.ruler.before('text_join', 'forgekit_tasks', taskLists);
  md.core.ruler.before('text_join', 'forgekit_links', specialLinks);
  md.core.ruler.push('forgekit_tables', tableAlign);
  md.core.ruler.push('forgekit_depth', limitInlineDepth);
  // Strikethrough as `<del>`, like GitHub and the reference server (markdown-it writes `<s>`).
  md.renderer.rules.s_open = () => '<del>';
  md.renderer.rules.s_close = () => '</del>';
  return {
    render(text: string, ctx: GfmContext): string {
      return md.render(text, { [ENV_KEY]: ctx });
    },
  };
}

export interface PlainRenderer {
  render(text: string): string;
}

/**
 * markdown-it's CommonMark preset (it passes the same spec examples) with the URL budget and depth limits: linear
 * time on the inputs where commonmark.js is not (unclosed link destinations, unclosed comments).
 */
export function createPlainMarkdownIt(): PlainRenderer {
  const md = new MarkdownIt('commonmark', { html: true, maxNesting: 200 });
  md.core.ruler.before('text_join', 'forgekit_links', specialLinks);
  md.core.ruler.push('forgekit_depth', limitInlineDepth);
  return {
    render(text: string): string {
      return md.render(text, {});
    },
  };
}
