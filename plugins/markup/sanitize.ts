// The allowlist every rendered document passes through, whatever the mode: markup and safe links survive, nothing
// that runs, styles, frames, submits or phones home does.
import sanitizeHtml from 'sanitize-html';
import { limitNesting } from './nesting.js';

const ALLOWED_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'kbd', 'samp', 'var',
  'em', 'strong', 'b', 'i', 'u', 's', 'strike', 'del', 'ins', 'sub', 'sup', 'mark', 'small', 'abbr', 'cite', 'dfn',
  'q', 'a', 'img', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  'caption', 'colgroup', 'col', 'details', 'summary', 'div', 'span', 'figure', 'figcaption', 'ruby', 'rt', 'rp',
  'bdi', 'wbr', 'time',
  // Task-list checkboxes only: every other input type is dropped and a checkbox is always disabled.
  'input',
];

const TABLE_CELL = ['align', 'colspan', 'rowspan'];

const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  a: ['href', 'title', 'rel'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  ol: ['start'],
  td: TABLE_CELL,
  th: TABLE_CELL,
  col: ['span'],
  colgroup: ['span'],
  input: ['type', 'checked', 'disabled'],
  abbr: ['title'],
  dfn: ['title'],
  q: ['cite'],
  blockquote: ['cite'],
  del: ['cite', 'datetime'],
  ins: ['cite', 'datetime'],
  time: ['datetime'],
  details: ['open'],
};

/** Tags whose content is dropped with them (their text would be code, style rules or a frame's fallback). */
const NON_TEXT_TAGS = [
  'script', 'style', 'textarea', 'option', 'select', 'noscript', 'title', 'iframe', 'frame', 'frameset', 'object',
  'embed', 'applet', 'template', 'xmp', 'noembed', 'noframes', 'plaintext', 'svg', 'math', 'head', 'button',
];

/** Inline images only of raster types a browser never executes; `data:image/svg+xml` and others are dropped. */
const SAFE_DATA_IMAGE = /^data:image\/(?:png|gif|jpe?g|webp|avif|bmp|x-icon);base64,[a-z0-9+/=]*$/i;

/** What the browser would see after dropping the whitespace and control characters it ignores inside URLs. */
function compactUrl(value: string): string {
  return value.replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]+/g, '');
}

function transformImg(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const out = { ...attribs };
  if (typeof out.src === 'string') {
    const src = compactUrl(out.src);
    if (/^data:/i.test(src)) {
      if (SAFE_DATA_IMAGE.test(src)) out.src = src;
      else delete out.src;
    }
  }
  return { tagName, attribs: out };
}

function transformLink(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const out = { ...attribs };
  delete out.rel;
  out.rel = 'nofollow';
  return { tagName, attribs: out };
}

/** A checkbox is rewritten to a disabled one; any other input is marked for `exclusiveFilter` to drop. */
function transformInput(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  if (String(attribs.type ?? '').trim().toLowerCase() !== 'checkbox') return { tagName, attribs: { type: 'dropped' } };
  const out: sanitizeHtml.Attributes = { type: 'checkbox', disabled: '' };
  if (attribs.checked !== undefined) out.checked = '';
  return { tagName, attribs: out };
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: ALLOWED_ATTRIBUTES,
  allowedClasses: { code: [/^language-[A-Za-z0-9_+#.-]+$/] },
  allowedStyles: {},
  parseStyleAttributes: false,
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: true,
  allowedIframeHostnames: [],
  allowVulnerableTags: false,
  disallowedTagsMode: 'discard',
  nonTextTags: NON_TEXT_TAGS,
  selfClosing: ['img', 'br', 'hr', 'wbr', 'col', 'input'],
  enforceHtmlBoundary: false,
  transformTags: { a: transformLink, img: transformImg, input: transformInput },
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
};

/** Sanitises rendered HTML. Pure and synchronous; the same policy for every mode. */
export function sanitize(html: string): string {
  if (html === '') return '';
  return sanitizeHtml(limitNesting(html), OPTIONS);
}
