// CommonMark conformance: every example of the CommonMark spec (npm commonmark-spec) through POST /markdown/raw.
// Each output must equal the spec's expected HTML after the same sanitiser, so every difference from the spec is
// the sanitiser's doing; the counts of the README come from here.
import t from 'tap';
import { createRequire } from 'node:module';
import { Parser } from 'htmlparser2';
import { startForge } from '../helpers/forge.js';
import { sanitize } from '../../plugins/markup/sanitize.js';
import { createMarkupRenderer } from '../../plugins/markup/render.js';

interface SpecExample {
  markdown: string;
  html: string;
  section: string;
  number: number;
}

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { tests: SpecExample[] };
// The spec writes tabs as → in its examples.
const examples = spec.tests.map((e) => ({ ...e, markdown: e.markdown.replace(/→/g, '\t'), html: e.html.replace(/→/g, '\t') }));

/** The spec's HTML with what the sanitiser adds to every link. */
function withNofollow(html: string): string {
  return html.replace(/<a ([^>]*)>/g, (_, attrs: string) => `<a ${attrs} rel="nofollow">`);
}

/**
 * The document as parsed (tags, decoded attribute values, decoded text), with rel="nofollow" on links: two HTML
 * strings with the same tokens differ only in how they are spelled (entities, quotes, `/>`, implied end tags).
 */
function tokens(html: string): string {
  const out: string[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push(`text:${text}`);
    text = '';
  };
  const parser = new Parser({
    onopentag(name, attribs) {
      flush();
      const attrs = { ...attribs, ...(name === 'a' ? { rel: 'nofollow' } : {}) };
      out.push(`<${name} ${JSON.stringify(Object.entries(attrs).sort())}`);
    },
    ontext(data) { text += data; },
    oncomment(data) {
      flush();
      out.push(`<!--${data}`);
    },
    onprocessinginstruction(name, data) {
      flush();
      out.push(`<?${name}${data}`);
    },
    onclosetag(name) {
      flush();
      out.push(`</${name}`);
    },
  });
  parser.write(html);
  parser.end();
  flush();
  return out.join('\n');
}

t.test('CommonMark spec examples through POST /markdown/raw', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  t.equal(examples.length, 652, 'the spec of commonmark-spec 0.31.2');

  const buckets = { identical: [] as number[], nofollow: [] as number[], serialisation: [] as number[], removed: [] as number[] };
  const failures: number[] = [];
  for (const ex of examples) {
    const res = await f.request('POST', '/markdown/raw', { body: ex.markdown, headers: { 'Content-Type': 'text/plain' } });
    if (res.status !== 200 || res.text !== sanitize(ex.html)) {
      failures.push(ex.number);
      t.equal(res.text, sanitize(ex.html), `example ${ex.number} (${ex.section})`);
      continue;
    }
    if (res.text === ex.html) buckets.identical.push(ex.number);
    else if (res.text === withNofollow(ex.html)) buckets.nofollow.push(ex.number);
    else if (tokens(res.text) === tokens(ex.html)) buckets.serialisation.push(ex.number);
    else buckets.removed.push(ex.number);
  }
  t.same(failures, [], 'every example equals the sanitised expected HTML');
  const passed = examples.length - failures.length;
  t.comment(`CommonMark ${passed}/${examples.length} examples equal the spec's HTML after sanitising it`);
  t.comment(`  ${buckets.identical.length} byte-identical to the spec's HTML`);
  t.comment(`  ${buckets.nofollow.length} identical but for rel="nofollow" on links`);
  t.comment(`  ${buckets.serialisation.length} the same document but for nofollow, spelled differently (entities, quotes, void tags, end tags): ${buckets.serialisation.join(',')}`);
  t.comment(`  ${buckets.removed.length} where the allowlist removed raw HTML, an attribute, an unsafe URL or a class: ${buckets.removed.join(',')}`);
  t.equal(buckets.identical.length + buckets.nofollow.length + buckets.serialisation.length + buckets.removed.length, passed);
  t.ok(buckets.identical.length >= 450, `${buckets.identical.length} byte-identical`);
});

t.test('the linear fallback engine on the same examples', async (t) => {
  // markdown-it's CommonMark preset, used only when commonmark.js runs long on a hostile document (pool.ts).
  const renderer = createMarkupRenderer({ rootUrl: 'http://localhost:3000/' });
  const differing = examples.filter((ex) => renderer.render(ex.markdown, { mode: 'markdown', engine: 'markdown-it' }) !== sanitize(ex.html));
  t.comment(`markdown-it fallback: ${examples.length - differing.length}/${examples.length}; differing: ${differing.map((e) => e.number).join(',')}`);
  for (const ex of differing) {
    // Its known differences are whitespace only: an empty block quote is written on one line.
    const out = renderer.render(ex.markdown, { mode: 'markdown', engine: 'markdown-it' });
    t.equal(out.replace(/\s+/g, ''), sanitize(ex.html).replace(/\s+/g, ''), `example ${ex.number} differs in whitespace only`);
  }
  t.ok(differing.length <= 5);
});
