// The XSS suite: filter-evasion vectors (test/fixtures/markup/xss-vectors.json) through POST /markdown/raw and
// POST /markdown in every mode. Each output is checked statically (parsed like a browser tokenizer would) and then
// loaded in headless Chromium, where every element is clicked, hovered and focused: no script may run.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Parser } from 'htmlparser2';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';
import { browserUnavailable, openBrowserHarness } from '../markup/browser.js';

const FORBIDDEN_TAGS = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form',
  'button', 'select', 'option', 'textarea', 'svg', 'math', 'link', 'meta', 'base', 'template', 'noscript', 'audio',
  'video', 'source', 'marquee', 'isindex', 'keygen', 'body', 'html', 'head', 'title', 'xmp']);
const URL_ATTRS = new Set(['href', 'src', 'cite', 'action', 'formaction', 'background', 'poster', 'srcset', 'data', 'xlink:href']);
const SAFE_DATA_IMAGE = /^data:image\/(?:png|gif|jpe?g|webp|avif|bmp|x-icon);base64,/i;

/** What a browser would see in a URL: control characters and whitespace are ignored around and inside schemes. */
function compact(url: string): string {
  return url.replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028\u2029\u205f\u3000\ufeff]+/g, '');
}

/** Everything in the HTML that a sanitised document must not hold (attribute values arrive entity-decoded). */
function staticProblems(html: string): string[] {
  const problems: string[] = [];
  const parser = new Parser({
    onopentag(name, attribs) {
      if (FORBIDDEN_TAGS.has(name)) problems.push(`<${name}>`);
      if (name === 'input' && !(attribs.type === 'checkbox' && 'disabled' in attribs)) problems.push('<input> that is not a disabled checkbox');
      if (name === 'a' && attribs.rel !== 'nofollow') problems.push('<a> without rel="nofollow"');
      for (const [attr, value] of Object.entries(attribs)) {
        if (attr.startsWith('on')) problems.push(`${name}[${attr}]`);
        if (attr === 'style' || attr === 'srcdoc' || attr === 'target' || attr === 'id' || attr === 'name') problems.push(`${name}[${attr}]`);
        if (attr === 'class' && !(name === 'code' && /^language-[A-Za-z0-9_+#.-]+$/.test(value))) problems.push(`${name}[class="${value}"]`);
        if (URL_ATTRS.has(attr)) {
          const url = compact(value);
          const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
          const ok = scheme === undefined || scheme === 'http' || scheme === 'https' || scheme === 'mailto'
            || (scheme === 'data' && name === 'img' && attr === 'src' && SAFE_DATA_IMAGE.test(url));
          if (!ok || !['href', 'src', 'cite'].includes(attr)) problems.push(`${name}[${attr}="${value}"]`);
        }
      }
    },
  }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return problems;
}

interface Rendered {
  vector: string;
  how: string;
  html: string;
}

t.test('XSS vectors never yield executable markup', async (t) => {
  const { vectors } = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'markup', 'xss-vectors.json'), 'utf8')) as { vectors: string[] };
  t.ok(vectors.length >= 60, `${vectors.length} vectors`);

  const f = await startForge();
  t.teardown(() => f.close());
  const rendered: Rendered[] = [];
  const ways: Array<[string, (v: string) => Promise<{ status: number; text: string }>]> = [
    ['raw', (v) => f.request('POST', '/markdown/raw', { body: v, headers: { 'Content-Type': 'text/plain' } })],
    ['markdown', (v) => f.request('POST', '/markdown', { json: { Text: v, Mode: 'markdown' } })],
    ['gfm', (v) => f.request('POST', '/markdown', { json: { Text: v, Mode: 'gfm', Context: 'o/r' } })],
    ['gfm wiki', (v) => f.request('POST', '/markdown', { json: { Text: v, Mode: 'gfm', Context: 'o/r', Wiki: true } })],
    ['comment', (v) => f.request('POST', '/markdown', { json: { Text: v, Mode: 'comment', Context: 'https://example.com/o/r' } })],
  ];
  for (const vector of vectors) {
    for (const [how, send] of ways) {
      const res = await send(vector);
      if (res.status !== 200) t.fail(`${how} ${JSON.stringify(vector)} answered ${res.status}`);
      rendered.push({ vector, how, html: res.text });
    }
  }

  t.test('static checks of every output', async (t) => {
    let clean = 0;
    for (const r of rendered) {
      const problems = staticProblems(r.html);
      if (problems.length === 0) clean++;
      else t.fail(`${r.how} ${JSON.stringify(r.vector)} → ${JSON.stringify(r.html)}: ${problems.join('; ')}`);
    }
    t.equal(clean, rendered.length, `${clean}/${rendered.length} outputs clean`);
    // The checks themselves catch what they are for.
    t.same(staticProblems('<img src=x onerror=alert(1)><a href="jav&#x61;script:x">a</a><svg></svg>'),
      ['img[onerror]', '<a> without rel="nofollow"', 'a[href="javascript:x"]', '<svg>']);
  });

  t.test('in a real browser nothing runs', async (t) => {
    const missing = browserUnavailable();
    if (missing) {
      if (process.env.FORGEKIT_SKIP_BROWSER === '1') {
        t.comment(`browser check skipped by FORGEKIT_SKIP_BROWSER=1 (${missing})`);
        t.pass('skipped by hand');
        return;
      }
      t.fail(missing);
      return;
    }
    const browser = await openBrowserHarness();
    t.teardown(() => browser.close());

    // Positive control: the harness sees script run by load, by event, by click, by focus.
    const control = await browser.check([
      '<img src=x onerror=alert(1)>', '<a href="javascript:confirm(2)">x</a>', '<div onmouseover="prompt(3)">h</div>',
      '<input autofocus onfocus="alert(4)">', '<svg onload=alert(5)>',
    ]);
    for (const signal of ['alert(1)', 'confirm(2)', 'prompt(3)', 'alert(4)', 'alert(5)']) {
      t.ok(control.executed.some((e) => e.includes(signal)), `the harness detects ${signal}`);
    }
    t.ok(control.domProblems.length >= 4, 'and flags the unsafe DOM');

    const unique = [...new Map(rendered.map((r) => [r.html, r])).values()];
    const BATCH = 25;
    let executedPages = 0;
    for (let i = 0; i < unique.length; i += BATCH) {
      const batch = unique.slice(i, i + BATCH);
      const report = await browser.check(batch.map((r) => r.html));
      if (report.executed.length === 0 && report.domProblems.length === 0) continue;
      executedPages++;
      // Pinpoint the vector(s): one page per output of the failing batch.
      for (const r of batch) {
        const single = await browser.check([r.html]);
        if (single.executed.length > 0 || single.domProblems.length > 0) {
          t.fail(`${r.how} ${JSON.stringify(r.vector)} → ${JSON.stringify(r.html)}: ran ${JSON.stringify(single.executed)}, DOM ${JSON.stringify(single.domProblems)}`);
        }
      }
    }
    t.equal(executedPages, 0, `${unique.length} distinct outputs of ${rendered.length} renders loaded and poked: no script ran`);
  });
});
