// markup plugin, pure parts: special links, URL resolution, input and output limits, pathological inputs in bounded
// time (rendered directly, for speed; test/plugins/markup.test.ts covers the same through HTTP).
import t from 'tap';
import { Parser } from 'htmlparser2';
import { findSpecialLinks, shortUrlLabel } from '../../plugins/markup/special-links.js';
import type { SpecialLinkOptions } from '../../plugins/markup/special-links.js';
import { contextPrefix, isAbsoluteUrl, rawPrefix, resolveUnder } from '../../plugins/markup/urls.js';
import { limitBlockStructure, MAX_LINE_MARKERS, MAX_PREFIX_WHITESPACE } from '../../plugins/markup/prelimit.js';
import { limitNesting, MAX_DEPTH } from '../../plugins/markup/nesting.js';
import { urlBudget } from '../../plugins/markup/budget.js';
import { createMarkupRenderer, normalizeMode } from '../../plugins/markup/render.js';
import { createMarkupService, renderWorkers } from '../../plugins/markup/service.js';
import { availableParallelism } from 'node:os';
import { createRenderPool, RenderLimitError } from '../../plugins/markup/pool.js';
import { sanitize } from '../../plugins/markup/sanitize.js';

const ROOT = 'http://localhost:3000/';
const OPTS: SpecialLinkOptions = { rootUrl: ROOT, prefix: `${ROOT}o/r/`, hasContext: true };
const renderer = createMarkupRenderer({ rootUrl: ROOT });
const gfm = (text: string, context = 'o/r', wiki = false) => renderer.render(text, { mode: 'gfm', context, wiki });

/** The deepest element nesting htmlparser2 (the sanitiser's parser) reaches on `html`. */
function parserDepth(html: string): number {
  let depth = 0;
  let max = 0;
  const parser = new Parser({
    onopentag() { max = Math.max(max, ++depth); },
    onclosetag() { depth--; },
  });
  parser.write(html);
  parser.end();
  return max;
}

t.test('special links', async (t) => {
  t.test('mentions', async (t) => {
    t.same(findSpecialLinks('hi @r-lyeh!', OPTS), [
      { kind: 'text', text: 'hi ' },
      { kind: 'link', href: `${ROOT}r-lyeh`, text: '@r-lyeh' },
      { kind: 'text', text: '!' },
    ]);
    t.same(findSpecialLinks('@a.b.', OPTS)?.[0], { kind: 'link', href: `${ROOT}a.b`, text: '@a.b' }, 'a trailing dot ends the sentence');
    t.equal(findSpecialLinks('mail me at a@b.example', OPTS), null, 'an email address is not a mention');
    t.equal(findSpecialLinks('@', OPTS), null);
    t.equal(findSpecialLinks('@-x', OPTS), null, 'names start with a letter, digit or underscore');
  });
  t.test('issues need a context; cross-repo issues do not', async (t) => {
    t.same(findSpecialLinks('see #12.', OPTS)?.[1], { kind: 'link', href: `${ROOT}o/r/issues/12`, text: '#12' });
    t.same(findSpecialLinks('(#3)', OPTS)?.[1], { kind: 'link', href: `${ROOT}o/r/issues/3`, text: '#3' });
    t.equal(findSpecialLinks('a#12 #12a #x', OPTS), null, 'not inside words');
    t.equal(findSpecialLinks('#12', { ...OPTS, hasContext: false }), null);
    t.same(findSpecialLinks('go-gitea/gitea#5', { ...OPTS, hasContext: false }), [
      { kind: 'link', href: `${ROOT}go-gitea/gitea/issues/5`, text: 'go-gitea/gitea#5' },
    ]);
  });
  t.test('commit SHAs', async (t) => {
    const sha = 'd8a994ef243349f321568f9e36d5c3f444b99cae';
    t.same(findSpecialLinks(`fixed in ${sha}`, OPTS)?.[1], { kind: 'link', href: `${ROOT}o/r/commit/${sha}`, text: 'd8a994ef24' });
    t.equal(findSpecialLinks('1234567890123456789012345678901234567890', OPTS), null, 'all digits is a number');
    t.equal(findSpecialLinks(`${sha}0`, OPTS), null, '41 hex characters is not a SHA');
    t.equal(findSpecialLinks(sha, { ...OPTS, hasContext: false }), null);
  });
  t.test('wiki short links', async (t) => {
    t.same(findSpecialLinks('[[Name|Link]]', OPTS), [{ kind: 'link', href: `${ROOT}o/r/wiki/Link`, text: 'Name' }]);
    t.same(findSpecialLinks('[[Home Page]]', OPTS), [{ kind: 'link', href: `${ROOT}o/r/wiki/Home-Page`, text: 'Home Page' }]);
    t.same(findSpecialLinks('[[https://example.com/x|Example]]', OPTS), [{ kind: 'link', href: 'https://example.com/x', text: 'Example' }], 'MediaWiki order when the first part is the link');
    t.same(findSpecialLinks('[[logo.png|alt=The logo]]', OPTS), [{ kind: 'image', src: `${ROOT}o/r/wiki/raw/logo.png`, alt: 'The logo' }]);
    t.equal(findSpecialLinks('[[]] [[|]] [[a||b]]', OPTS), null);
  });
  t.test('an earlier kind wins an overlap', async (t) => {
    const out = findSpecialLinks('@o/r#1', OPTS)!;
    t.same(out[0], { kind: 'link', href: `${ROOT}o`, text: '@o' });
  });
  t.test('pasted URLs get short labels', async (t) => {
    t.equal(shortUrlLabel('https://example.com/o/r/commit/d8a994ef243349f321568f9e36d5c3f444b99cae'), 'd8a994ef24');
    t.equal(shortUrlLabel('http://localhost:3000/o/r/issues/42'), '#42');
    t.equal(shortUrlLabel('http://localhost:3000/o/r/pulls/7#issuecomment-1'), '#7');
    t.equal(shortUrlLabel('http://localhost:3000/o/r/src/branch/main'), null);
  });
});

t.test('URL resolution', async (t) => {
  t.equal(contextPrefix(ROOT, 'gogits/gogs'), `${ROOT}gogits/gogs/`);
  t.equal(contextPrefix(ROOT, '/gogits/gogs/'), `${ROOT}gogits/gogs/`);
  t.equal(contextPrefix(ROOT, ''), ROOT);
  t.equal(contextPrefix(ROOT, 'https://other.example/a/b'), 'https://other.example/a/b/', 'an absolute http(s) Context is used as is');
  t.equal(contextPrefix(ROOT, '//evil.example/x'), `${ROOT}evil.example/x/`, 'never protocol-relative');
  t.equal(contextPrefix(ROOT, 'javascript:alert(1)'), `${ROOT}javascript:alert(1)/`, 'other schemes are a path under the root');
  t.equal(contextPrefix(ROOT, 'a/b?x=1#y'), `${ROOT}a/b/`, 'query and fragment dropped');
  t.equal(resolveUnder(`${ROOT}o/r/`, 'docs/a.md'), `${ROOT}o/r/docs/a.md`);
  t.equal(resolveUnder(`${ROOT}o/r/`, '/docs/a.md'), `${ROOT}o/r/docs/a.md`, 'a leading slash is relative to the context too');
  t.equal(resolveUnder(`${ROOT}o/r/`, '#top'), '#top');
  t.equal(resolveUnder(`${ROOT}o/r/`, 'https://x.example/'), 'https://x.example/');
  t.equal(rawPrefix(`${ROOT}o/r/src/branch/main/`), `${ROOT}o/r/raw/branch/main/`);
  t.ok(isAbsoluteUrl('mailto:a@b') && isAbsoluteUrl('//x') && isAbsoluteUrl(' JavaScript:x') && !isAbsoluteUrl('a/b:c'));
});

t.test('modes', async (t) => {
  t.equal(normalizeMode('GFM'), 'gfm');
  t.equal(normalizeMode(' comment '), 'comment');
  t.equal(normalizeMode('markdown'), 'markdown');
  t.equal(normalizeMode(''), 'markdown');
  t.equal(normalizeMode('asciidoc'), 'markdown', 'anything unknown is plain markdown');
  t.equal(normalizeMode(undefined), 'markdown');
});

t.test('input limits per line', async (t) => {
  const markers = '* '.repeat(MAX_LINE_MARKERS + 50) + 'a';
  const limited = limitBlockStructure(markers);
  t.equal(limited, '* '.repeat(MAX_LINE_MARKERS) + '\\' + '* '.repeat(50) + 'a', 'the marker past the limit is escaped');
  t.equal(limitBlockStructure('1. '.repeat(MAX_LINE_MARKERS + 1) + 'x'), '1. '.repeat(MAX_LINE_MARKERS) + '1\\. x');
  t.equal(limitBlockStructure('>'.repeat(MAX_LINE_MARKERS + 1)), '>'.repeat(MAX_LINE_MARKERS) + '\\>');
  const indented = ' '.repeat(MAX_PREFIX_WHITESPACE + 100) + '* a';
  t.equal(limitBlockStructure(indented), ' '.repeat(MAX_PREFIX_WHITESPACE) + '* a');
  const normal = '> * quote\n    code\n' + 'word '.repeat(200);
  t.equal(limitBlockStructure(normal), normal, 'ordinary text is returned unchanged');
});

t.test('nesting cap before the sanitiser', async (t) => {
  const deep = '<div>'.repeat(5000) + 'x' + '</div>'.repeat(5000);
  const capped = limitNesting(deep);
  t.ok(parserDepth(capped) <= MAX_DEPTH, `parser depth ${parserDepth(capped)} ≤ ${MAX_DEPTH}`);
  t.match(capped, /x/, 'text kept');
  // Implied closes and stray closers: the parser's stack must stay within ours whatever the markup does.
  const tricky = '<p><div></p>'.repeat(3000) + '<li><li><b></i>'.repeat(1000) + '<table><tr><td>'.repeat(500)
    + '<svg><path/><g/>'.repeat(500) + '<a><script><b></script>'.repeat(300) + '<textarea><div></textarea>'.repeat(300);
  t.ok(parserDepth(limitNesting(tricky)) <= MAX_DEPTH + 1, 'tricky markup stays capped');
  // Random tag soup at a small cap: implied closes, void and raw-text elements, foreign content, stray closers.
  const vocabulary = ['<p>', '</p>', '<div>', '</div>', '<li>', '<b>', '</b>', '<i>', '</li>', '<table>', '<tr>', '<td>',
    '</td>', '<svg>', '<path/>', '</svg>', '<br>', '</br>', '<img src=x>', '<a>', '</a>', '<select>', '<option>', '<ul>',
    '<h1>', '<h2>', '</h1>', '<dd>', '<dt>', '<script>x</script>', '<textarea>t</textarea>', '<form>', '<button>', 'text'];
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let round = 0; round < 200; round++) {
    let soup = '';
    for (let i = 0; i < 400; i++) soup += vocabulary[Math.floor(random() * vocabulary.length)];
    const depth = parserDepth(limitNesting(soup, 16));
    if (depth > 17) {
      t.fail(`tag soup reached depth ${depth}: ${soup}`);
      return;
    }
  }
  t.pass('200 random tag soups stay within the cap');
  const shallow = '<p>a <b>b</b></p>'.repeat(2000);
  t.equal(limitNesting(shallow), shallow, 'shallow documents are unchanged');
  t.equal(sanitize('<b>'.repeat(20000) + 'deep'), '<b>'.repeat(MAX_DEPTH) + 'deep' + '</b>'.repeat(MAX_DEPTH), 'the sanitised output holds the capped depth');
});

t.test('output limits', async (t) => {
  t.test('reference definitions cannot multiply the output', async (t) => {
    const url = '/' + 'x'.repeat(100_000);
    const text = `[a]: ${url}\n\n` + '[a] '.repeat(50_000);
    for (const mode of ['markdown', 'gfm']) {
      const html = renderer.render(text, { mode });
      t.ok(html.length < urlBudget(text.length) + text.length * 10, `${mode}: ${html.length} characters`);
      t.match(html, /<a href="(http:\/\/localhost:3000)?\/x{100000}"/, `${mode}: the first references still link`);
    }
  });
  t.test('a long Context cannot multiply the output', async (t) => {
    const context = 'o/' + 'c'.repeat(2000);
    const text = '#1 '.repeat(100_000);
    const html = renderer.render(text, { mode: 'gfm', context });
    t.ok(html.length < urlBudget(text.length) + text.length * 10, `${html.length} characters`);
    t.match(html, /issues\/1/);
  });
  t.test('deep nesting is unwrapped, content kept', async (t) => {
    for (const mode of ['markdown', 'gfm']) {
      const html = renderer.render('> '.repeat(1000) + 'deep', { mode });
      t.ok(parserDepth(html) <= 101, `${mode}: depth ${parserDepth(html)}`);
      t.match(html, /deep/);
    }
    const emph = '*a **a '.repeat(2000) + 'b' + ' a** a*'.repeat(2000);
    t.ok(parserDepth(renderer.render(emph, { mode: 'gfm' })) <= 101);
    t.ok(parserDepth(renderer.render(emph, { mode: 'markdown' })) <= 101);
  });
});

t.test('gfm rendering details', async (t) => {
  t.equal(gfm('| a | b |\n|:--|--:|\n| 1 | 2 |'), '<table>\n<thead>\n<tr>\n<th align="left">a</th>\n<th align="right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td align="left">1</td>\n<td align="right">2</td>\n</tr>\n</tbody>\n</table>\n');
  t.equal(gfm('- [ ] a\n- [x] b\n- [X] c\n- \\[ ] d'), '<ul>\n<li><input type="checkbox" disabled /> a</li>\n<li><input type="checkbox" disabled checked /> b</li>\n<li><input type="checkbox" disabled checked /> c</li>\n<li>[ ] d</li>\n</ul>\n');
  t.equal(gfm('~~gone~~'), '<p><del>gone</del></p>\n');
  t.equal(gfm('![x](img/a.png)', 'o/r/src/branch/main'), `<p><a href="${ROOT}o/r/raw/branch/main/img/a.png" rel="nofollow"><img src="${ROOT}o/r/raw/branch/main/img/a.png" alt="x" /></a></p>\n`, 'images are wrapped in a link and served raw');
  t.equal(gfm('![x](https://cdn.example/a.svg)'), '<p><img src="https://cdn.example/a.svg" alt="x" /></p>\n', 'external svg images are not wrapped');
  t.equal(gfm('[x](a.md)', 'o/r', true), `<p><a href="${ROOT}o/r/wiki/a.md" rel="nofollow">x</a></p>\n`);
  t.equal(gfm('![x](a.png)', 'o/r', true), `<p><a href="${ROOT}o/r/wiki/raw/a.png" rel="nofollow"><img src="${ROOT}o/r/wiki/raw/a.png" alt="x" /></a></p>\n`);
  t.equal(gfm('www.example.com/a.'), '<p><a href="http://www.example.com/a" rel="nofollow">www.example.com/a</a>.</p>\n');
  t.equal(gfm('README.md and v1.2'), '<p>README.md and v1.2</p>\n', 'scheme-less names are not links');
  t.equal(renderer.render('a\nb', { mode: 'comment' }), '<p>a<br />\nb</p>\n', 'comments break lines');
  t.equal(gfm('a\nb'), '<p>a\nb</p>\n', 'documents do not');
});

t.test('pathological inputs render in bounded time', async (t) => {
  // Known quadratic patterns of markdown parsers (cmark/commonmark.js pathological tests, markdown-it issues, GFM
  // tables) plus patterns aimed at this plugin's own passes. 150 KB each: linear work takes well under a second;
  // a quadratic path would take minutes (commonmark.js alone on 200 KB of unclosed link destinations: 144 s). Rendered the way the
  // server renders them: in a worker, with the linear fallback engine for plain markdown after 2 s.
  // A 30 s limit and a 20 s bound: a loaded CI machine may take several seconds for the linear cases (the fallback
  // alone waits 2 s, then starts a fresh worker); a quadratic path would still take minutes.
  const service = createMarkupService(ROOT, { workers: 1, timeoutMs: 30_000, inlineMaxBytes: 0, workerHeapMb: 128, workerIdleMs: 0 });
  t.teardown(() => service.close());
  await service.render('warm up the worker', { mode: 'gfm' });
  const SIZE = 150_000;
  const rep = (s: string) => s.repeat(Math.ceil(SIZE / s.length));
  const n = SIZE / 14;
  const cases: Record<string, string> = {
    'nested strong/emph': '*a **a '.repeat(n) + 'b' + ' a** a*'.repeat(n),
    'emph closers without openers': rep('a_ '),
    'emph openers without closers': rep('_a '),
    'link closers without openers': rep('a]'),
    'link openers without closers': rep('[a'),
    'mismatched openers and closers': rep('*a_ '),
    'openers and closers multiple of 3': 'a**b' + rep('c* '),
    'link openers and emph closers': rep('[ a_'),
    '[ (]( repeated': rep('[ (]('),
    'nested brackets': '['.repeat(SIZE / 2) + 'a' + ']'.repeat(SIZE / 2),
    'nested block quotes': '> '.repeat(SIZE / 2) + 'a',
    'list markers on one line': rep('* ') + 'a',
    'deeply indented lists': Array.from({ length: 350 }, (_, i) => '  '.repeat(i) + '* a\n').join(''),
    'many backtick runs': Array.from({ length: 540 }, (_, i) => 'e' + '`'.repeat(i)).join(''),
    'unclosed link destinations <': rep('[a](<b'),
    'unclosed link destinations': rep('[a](b'),
    'unclosed comments': '</' + rep('<!--'),
    '100k-character line': 'a'.repeat(100_000) + ' ' + 'b'.repeat(100_000),
    'long run of backticks': '`'.repeat(SIZE),
    'long run of <': '<'.repeat(SIZE),
    'raw html nesting': rep('<div>'),
    'raw html stray closers': rep('<b>').slice(0, SIZE / 2) + rep('</i>').slice(0, SIZE / 2),
    'entity-like runs': rep('&#'),
    'reference definitions': Array.from({ length: 5000 }, (_, i) => `[r${i}]: /u${i}\n`).join('') + rep('[r1] ').slice(0, SIZE / 2),
    'table with many columns': '|' + 'a|'.repeat(20_000) + '\n|' + '-|'.repeat(20_000) + '\n' + 'x\n'.repeat(30_000),
    'bare URL fragments': rep('www.') + rep('http://'),
    'email fragments': rep('a@'),
    'mention and issue runs': rep('@') + rep('#1 ') + rep('a/b#'),
    'wiki link openers': rep('[['),
    'hex runs': rep('abcdef0123456789'),
  };
  for (const [name, text] of Object.entries(cases)) {
    for (const mode of ['markdown', 'gfm']) {
      const started = performance.now();
      const html = await service.render(text, { mode, context: 'o/r' });
      const ms = performance.now() - started;
      t.type(html, 'string', `${name} (${mode}, ${text.length} chars): rendered (${ms.toFixed(0)} ms, not asserted)`);
    }
  }
});

t.test('render pool', async (t) => {
  t.test('a document past the time limit is refused and the worker replaced', async (t) => {
    const pool = createRenderPool({ size: 1, rootUrl: ROOT, timeoutMs: 150 });
    t.teardown(() => pool.close());
    t.equal(await pool.render('# warm', { mode: 'gfm' }), '<h1>warm</h1>\n');
    await t.rejects(pool.render('[ a_'.repeat(250_000), { mode: 'gfm' }), RenderLimitError);
    t.equal(await pool.render('*next*', { mode: 'gfm' }), '<p><em>next</em></p>\n', 'a fresh worker takes the next document');
  });
  t.test('plain markdown falls back to the linear engine instead of failing', async (t) => {
    const pool = createRenderPool({ size: 1, rootUrl: ROOT, timeoutMs: 20_000, fallbackAfterMs: 100 });
    t.teardown(() => pool.close());
    await pool.render('warm', { mode: 'markdown' });
    const hostile = '[a](b'.repeat(40_000); // commonmark.js: quadratic, seconds
    const started = performance.now();
    const html = await pool.render(hostile, { mode: 'markdown' });
    t.comment(`rendered in ${(performance.now() - started).toFixed(0)} ms (not asserted)`);
    t.equal(html, renderer.render(hostile, { mode: 'markdown', engine: 'markdown-it' }), 'by markdown-it\'s CommonMark preset, not by failing');
    t.equal(await pool.render('[a](b)', { mode: 'markdown' }), '<p><a href="b" rel="nofollow">a</a></p>\n');
  });
  t.test('closing rejects what is queued', async (t) => {
    const pool = createRenderPool({ size: 1, rootUrl: ROOT, timeoutMs: 10_000 });
    const pending = [pool.render('a', { mode: 'gfm' }), pool.render('b', { mode: 'gfm' })].map((p) => t.rejects(p, /closed/));
    await pool.close();
    await Promise.all(pending);
    await t.rejects(pool.render('c', {}), /closed/);
  });
});

t.test('a document of the full 1 MiB body limit renders within the default worker heap', async (t) => {
  const { readFile } = await import('node:fs/promises');
  const readme = await readFile(new URL('../../../test/fixtures/markup/readme-50k.md', import.meta.url), 'utf8');
  const text = readme.repeat(Math.floor(1_048_000 / readme.length));
  const service = createMarkupService(ROOT, { workers: 1, timeoutMs: 30_000, inlineMaxBytes: 0, workerHeapMb: 128, workerIdleMs: 0 });
  t.teardown(() => service.close());
  for (const mode of ['gfm', 'markdown'] as const) {
    const html = await service.render(text, { mode });
    t.ok(html.length > text.length / 2, `${mode}: ${text.length} characters rendered to ${html.length} characters of HTML`);
  }
});

t.test('render workers: the setting, else one per CPU the process may use, at most two', async (t) => {
  t.equal(renderWorkers({}, 1), 1, 'a process held to one CPU starts one');
  t.equal(renderWorkers({}, 2), 2);
  t.equal(renderWorkers({}, 16), 2, 'never more than two unasked');
  t.equal(renderWorkers({ workers: 0 }, 16), 0, 'an explicit 0 renders on the event loop');
  t.equal(renderWorkers({ workers: 6 }, 1), 6, 'an explicit count is kept');
  t.equal(renderWorkers({}), Math.min(2, availableParallelism()), "by default the CPUs are this process's own");
});

t.test('render pool: an idle worker stops after idleMs, and the next document starts one', async (t) => {
  const pool = createRenderPool({ size: 2, rootUrl: ROOT, timeoutMs: 10_000, idleMs: 600 });
  t.teardown(() => pool.close());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const doc = '# Title\n\n' + 'Some *text* with [a link](https://example.com).\n\n'.repeat(200);
  t.equal(pool.workers, 0, 'no worker before the first document');
  const [a, b] = await Promise.all([pool.render(doc, { mode: 'gfm' }), pool.render(doc, { mode: 'gfm' })]);
  t.equal(a, b);
  t.ok(a.includes('<h1>Title</h1>'));
  t.equal(pool.workers, 2, 'two documents at once: two workers');
  await sleep(1500);
  t.equal(pool.workers, 0, 'both stopped once idle for idleMs');
  t.equal(await pool.render(doc, { mode: 'gfm' }), a, 'a later document starts a worker again and renders the same');
  let most = 0;
  for (let i = 0; i < 4; i++) {
    await sleep(300);
    most = Math.max(most, pool.workers);
    if (pool.workers !== 1) break;
    await pool.render(doc, { mode: 'gfm' });
  }
  t.equal(pool.workers, 1, 'a worker given a document every 300 ms is never idle for 600 ms (1.2 s in all)');
  t.equal(most, 1);
});

t.test('render pool: idleMs 0 keeps the workers', async (t) => {
  const pool = createRenderPool({ size: 1, rootUrl: ROOT, timeoutMs: 10_000 });
  t.teardown(() => pool.close());
  await pool.render('# x\n\n' + 'y '.repeat(3000), { mode: 'gfm' });
  await new Promise((r) => setTimeout(r, 500));
  t.equal(pool.workers, 1);
});
