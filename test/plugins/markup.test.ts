// markup plugin through HTTP: POST /markdown (modes, links, Context, Wiki), POST /markdown/raw, sanitisation,
// body limits, validation, pathological input and the render time limit.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { startForge } from '../helpers/forge.js';
import type { TestForge } from '../helpers/forge.js';

// The reference server's test setup (G:routers/api/v1/misc/markdown_test.go): AppURL http://localhost:3000/.
const ROOT = 'http://localhost:3000/';
const SHA = 'd8a994ef243349f321568f9e36d5c3f444b99cae';

async function md(f: TestForge, json: unknown) {
  const res = await f.request('POST', '/markdown', { json });
  return res;
}

async function html(f: TestForge, json: Record<string, unknown>): Promise<string> {
  const res = await md(f, json);
  if (res.status !== 200) throw new Error(`POST /markdown answered ${res.status}: ${res.text}`);
  return res.text;
}

async function raw(f: TestForge, body: string, headers: Record<string, string> = { 'Content-Type': 'text/plain' }) {
  return f.request('POST', '/markdown/raw', { body, headers });
}

t.test('markup', async (t) => {
  const f = await startForge({ config: { rootUrl: ROOT } });
  t.teardown(() => f.close());

  t.test('POST /markdown: the reference outputs (gitea-behavior §2.2)', async (t) => {
    t.equal(await html(f, { Text: '[[Name|Link]]', Mode: 'gfm', Context: 'gogits/gogs', Wiki: true }),
      '<p><a href="http://localhost:3000/gogits/gogs/wiki/Link" rel="nofollow">Name</a></p>\n', 'wiki short link');
    t.equal(await html(f, { Text: '@r-lyeh', Mode: 'gfm', Context: 'gogits/gogs', Wiki: true }),
      '<p><a href="http://localhost:3000/r-lyeh" rel="nofollow">@r-lyeh</a></p>\n', 'mention');
    t.equal(await html(f, { Text: '[[Name|Link]]', Mode: 'markdown', Context: 'gogits/gogs', Wiki: true }),
      '<p>[[Name|Link]]</p>\n', 'no short links in plain markdown');
    const res = await md(f, { Text: '# Title', Mode: 'gfm' });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(res.text, '<h1>Title</h1>\n');
  });

  t.test('POST /markdown: keys match case-insensitively, like the reference decoder', async (t) => {
    const expected = '<p><a href="http://localhost:3000/o/r/wiki/P" rel="nofollow">P</a></p>\n';
    t.equal(await html(f, { text: '[[P]]', mode: 'gfm', context: 'o/r', wiki: true }), expected);
    t.equal(await html(f, { TEXT: '[[P]]', MODE: 'gfm', CONTEXT: 'o/r', WIKI: true }), expected);
    t.equal(await html(f, { tExT: '[[P]]', Mode: 'GFM', Context: 'o/r', Wiki: true }), expected, 'mode names too');
  });

  t.test('POST /markdown: empty text and no body', async (t) => {
    for (const json of [{ Text: '' }, {}, { Mode: 'gfm', Context: 'o/r' }]) {
      const res = await md(f, json);
      t.equal(res.status, 200);
      t.equal(res.text, '', `${JSON.stringify(json)} renders nothing`);
      t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    }
    const none = await f.request('POST', '/markdown');
    t.equal(none.status, 200, 'a request without a body renders nothing');
    t.equal(none.text, '');
  });

  t.test('POST /markdown: modes', async (t) => {
    const text = '@alice #1 ~~x~~\n\n| a |\n|---|\n| 1 |';
    const plain = '<p>@alice #1 ~~x~~</p>\n<p>| a |\n|---|\n| 1 |</p>\n';
    for (const mode of ['markdown', '', 'Markdown', 'asciidoc', undefined]) {
      t.equal(await html(f, { Text: text, Mode: mode, Context: 'o/r' }), plain, `mode ${JSON.stringify(mode)} is plain CommonMark`);
    }
    const gfm = await html(f, { Text: text, Mode: 'gfm', Context: 'o/r' });
    t.match(gfm, '<a href="http://localhost:3000/alice" rel="nofollow">@alice</a>');
    t.match(gfm, '<a href="http://localhost:3000/o/r/issues/1" rel="nofollow">#1</a>');
    t.match(gfm, '<del>x</del>');
    t.match(gfm, '<table>\n<thead>\n<tr>\n<th>a</th>');
    t.equal(await html(f, { Text: text, Mode: 'comment', Context: 'o/r' }), gfm, 'comment mode has the same extensions');
    t.equal(await html(f, { Text: 'one\ntwo', Mode: 'comment' }), '<p>one<br />\ntwo</p>\n', 'comments keep line breaks');
    t.equal(await html(f, { Text: 'one\ntwo', Mode: 'gfm' }), '<p>one\ntwo</p>\n', 'documents do not');
  });

  t.test('gfm: tables, strikethrough, task lists, autolinks', async (t) => {
    t.equal(await html(f, { Mode: 'gfm', Text: '| L | C | R |\n|:--|:-:|--:|\n| 1 | 2 | 3 |' }),
      '<table>\n<thead>\n<tr>\n<th align="left">L</th>\n<th align="center">C</th>\n<th align="right">R</th>\n</tr>\n</thead>\n'
      + '<tbody>\n<tr>\n<td align="left">1</td>\n<td align="center">2</td>\n<td align="right">3</td>\n</tr>\n</tbody>\n</table>\n');
    t.equal(await html(f, { Mode: 'gfm', Text: '~~old~~ new' }), '<p><del>old</del> new</p>\n');
    t.equal(await html(f, { Mode: 'gfm', Text: '- [ ] todo\n- [x] done\n- not a task' }),
      '<ul>\n<li><input type="checkbox" disabled /> todo</li>\n<li><input type="checkbox" disabled checked /> done</li>\n<li>not a task</li>\n</ul>\n');
    t.equal(await html(f, { Mode: 'gfm', Text: 'see https://example.com/a?b=1, www.example.org and mail@example.com.' }),
      '<p>see <a href="https://example.com/a?b=1" rel="nofollow">https://example.com/a?b=1</a>, '
      + '<a href="http://www.example.org" rel="nofollow">www.example.org</a> and '
      + '<a href="mailto:mail@example.com" rel="nofollow">mail@example.com</a>.</p>\n');
    t.equal(await html(f, { Mode: 'markdown', Text: 'https://example.com' }), '<p>https://example.com</p>\n', 'no bare-URL links in plain markdown');
  });

  t.test('gfm: mentions, issues, commits', async (t) => {
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Text: `thanks @bob, see #12 and go-gitea/gitea#34 (fixed in ${SHA}).` }),
      '<p>thanks <a href="http://localhost:3000/bob" rel="nofollow">@bob</a>, see '
      + '<a href="http://localhost:3000/o/r/issues/12" rel="nofollow">#12</a> and '
      + '<a href="http://localhost:3000/go-gitea/gitea/issues/34" rel="nofollow">go-gitea/gitea#34</a> '
      + `(fixed in <a href="http://localhost:3000/o/r/commit/${SHA}" rel="nofollow">d8a994ef24</a>).</p>\n`);
    t.equal(await html(f, { Mode: 'gfm', Text: `#12 and ${SHA}` }), `<p>#12 and ${SHA}</p>\n`, 'without a Context there is no repository to point at');
    t.equal(await html(f, { Mode: 'gfm', Text: 'mail bob@example.org' }),
      '<p>mail <a href="mailto:bob@example.org" rel="nofollow">bob@example.org</a></p>\n', 'an email address is not a mention');
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Text: `http://localhost:3000/o/r/commit/${SHA} http://localhost:3000/o/r/issues/5` }),
      `<p><a href="http://localhost:3000/o/r/commit/${SHA}" rel="nofollow">d8a994ef24</a> `
      + '<a href="http://localhost:3000/o/r/issues/5" rel="nofollow">#5</a></p>\n', 'pasted commit and issue URLs get short labels');
  });

  t.test('gfm: no special links inside code, code blocks or links', async (t) => {
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Text: '`@bob #1` and\n\n```\n@bob #1 ' + SHA + '\n```\n\n    @bob #1' }),
      '<p><code>@bob #1</code> and</p>\n<pre><code>@bob #1 ' + SHA + '\n</code></pre>\n<pre><code>@bob #1\n</code></pre>\n');
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Text: '[@bob #1](https://example.com) <a href="https://example.com">@bob #1</a> <code>@bob</code>' }),
      '<p><a href="https://example.com" rel="nofollow">@bob #1</a> <a href="https://example.com" rel="nofollow">@bob #1</a> <code>@bob</code></p>\n');
  });

  t.test('gfm: relative links and images resolve under Context', async (t) => {
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Text: '[doc](docs/a.md) [top](#top) [abs](https://example.com/x) [root](/LICENSE)' }),
      '<p><a href="http://localhost:3000/o/r/docs/a.md" rel="nofollow">doc</a> <a href="#top" rel="nofollow">top</a> '
      + '<a href="https://example.com/x" rel="nofollow">abs</a> <a href="http://localhost:3000/o/r/LICENSE" rel="nofollow">root</a></p>\n');
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r/src/branch/main', Text: '![logo](img/logo.png)' }),
      '<p><a href="http://localhost:3000/o/r/raw/branch/main/img/logo.png" rel="nofollow"><img src="http://localhost:3000/o/r/raw/branch/main/img/logo.png" alt="logo" /></a></p>\n',
      'images are served raw and link to themselves');
    t.equal(await html(f, { Mode: 'gfm', Context: 'https://other.example/team/app', Text: '[a](b)' }),
      '<p><a href="https://other.example/team/app/b" rel="nofollow">a</a></p>\n', 'an absolute Context is used as is, not joined to the root');
    t.equal(await html(f, { Mode: 'gfm', Text: '[a](b)' }), '<p><a href="http://localhost:3000/b" rel="nofollow">a</a></p>\n', 'no Context: under the root');
    t.equal(await html(f, { Mode: 'markdown', Context: 'o/r', Text: '[a](b)' }), '<p><a href="b" rel="nofollow">a</a></p>\n', 'plain markdown ignores Context');
  });

  t.test('gfm: Wiki resolves under <Context>/wiki/', async (t) => {
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Wiki: true, Text: '[Page](Other-Page) ![pic](pic.png) [[Home]]' }),
      '<p><a href="http://localhost:3000/o/r/wiki/Other-Page" rel="nofollow">Page</a> '
      + '<a href="http://localhost:3000/o/r/wiki/raw/pic.png" rel="nofollow"><img src="http://localhost:3000/o/r/wiki/raw/pic.png" alt="pic" /></a> '
      + '<a href="http://localhost:3000/o/r/wiki/Home" rel="nofollow">Home</a></p>\n');
    t.equal(await html(f, { Mode: 'gfm', Context: 'o/r', Wiki: false, Text: '[Page](Other-Page)' }),
      '<p><a href="http://localhost:3000/o/r/Other-Page" rel="nofollow">Page</a></p>\n');
  });

  t.test('POST /markdown/raw: plain CommonMark, any Content-Type', async (t) => {
    const text = '# Hi @bob #1\n\n[[Name|Link]] ~~x~~';
    const expected = '<h1>Hi @bob #1</h1>\n<p>[[Name|Link]] ~~x~~</p>\n';
    for (const headers of [{ 'Content-Type': 'text/plain' }, { 'Content-Type': 'application/json' }, { 'Content-Type': 'application/octet-stream' }, {}]) {
      const res = await raw(f, text, headers as Record<string, string>);
      t.equal(res.status, 200);
      t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      t.equal(res.text, expected, `Content-Type ${JSON.stringify(headers)}`);
    }
    t.equal((await raw(f, '')).text, '', 'an empty body renders nothing');
    t.equal((await raw(f, 'ünïcödé ✓')).text, '<p>ünïcödé ✓</p>\n');
    t.equal((await raw(f, text)).text, await html(f, { Text: text, Mode: 'markdown' }), 'the same as mode markdown');
  });

  t.test('every mode is sanitised', async (t) => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>'
      + '<iframe src="https://example.com"></iframe><form action="/x"><input name=a><button>b</button></form>'
      + '<p style="color:red" class="c" onclick="alert(1)">p</p><svg onload=alert(1)><circle/></svg>\n\n'
      + '[link](javascript:alert(1)) ![img](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=) ![ok](data:image/png;base64,iVBORw0KGgo=)\n\n'
      + '```js\ncode\n```\n\n```evil"><script>\nx\n```';
    const outputs = [
      (await raw(f, evil)).text,
      await html(f, { Text: evil, Mode: 'markdown' }),
      await html(f, { Text: evil, Mode: 'gfm', Context: 'o/r' }),
      await html(f, { Text: evil, Mode: 'comment', Context: 'o/r' }),
    ];
    for (const out of outputs) {
      t.notMatch(out, /<script|<iframe|<form|<button|<svg|<style|onerror|onclick|onload|style=/i);
      t.notMatch(out, /="[^"]*(javascript:|data:image\/svg)/i, 'no script or svg URL in an attribute');
      t.notMatch(out, /<input(?![^>]*type="checkbox")/, 'no form controls');
      t.match(out, '<img src="x" />', 'the image stays, its handler goes');
      t.match(out, 'src="data:image/png;base64,iVBORw0KGgo="', 'inline raster images stay');
      t.match(out, '<code class="language-js">', 'code keeps its language class');
      t.notMatch(out, /class="(?!language-)/, 'no other class');
      t.notMatch(out, /<a (?![^>]*rel="nofollow")/, 'every link is nofollow');
    }
  });

  t.test('the 50 KB README renders in gfm mode', async (t) => {
    const text = await readFile(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'markup', 'readme-50k.md'), 'utf8');
    t.ok(Buffer.byteLength(text) >= 50 * 1024);
    const out = await html(f, { Text: text, Mode: 'gfm', Context: 'mcollina/autocannon' });
    t.match(out, '<h1>autocannon</h1>');
    t.match(out, '<a href="http://localhost:3000/mcollina/autocannon/autocannon-banner.png" rel="nofollow"><img src="http://localhost:3000/mcollina/autocannon/autocannon-banner.png" alt="banner" /></a>');
    t.match(out, '<a href="http://localhost:3000/mcollina" rel="nofollow">@mcollina</a>');
    t.match(out, '<a href="http://localhost:3000/mcollina/autocannon/issues/42" rel="nofollow">#42</a>');
    t.match(out, '<th align="left">Option</th>');
    t.match(out, '<input type="checkbox" disabled checked /> HTTP/1.1 pipelining');
    t.match(out, '<pre><code class="language-js">');
  });

  t.test('body limits', async (t) => {
    const big = 'a'.repeat(1024 * 1024 + 1);
    const res = await raw(f, big);
    t.equal(res.status, 413, 'raw over 1 MiB');
    t.match(res.json, { message: /larger than 1048576 bytes/ });
    t.equal((await md(f, { Text: big })).status, 413, 'JSON over 1 MiB');
    t.equal((await raw(f, 'a'.repeat(1024 * 1024 - 1))).status, 200, 'just under the limit renders');

    const small = await startForge({ config: { plugins: { markup: { maxBytes: 1000 } } } });
    t.teardown(() => small.close());
    t.equal((await small.request('POST', '/markdown/raw', { body: 'b'.repeat(1000) })).status, 200, 'at the configured limit');
    t.equal((await small.request('POST', '/markdown/raw', { body: 'b'.repeat(1001) })).status, 413, 'over the configured limit');
    t.equal((await small.request('POST', '/markdown', { json: { Text: 'b'.repeat(1000) } })).status, 413);
  });

  t.test('bad input is a clear 4xx', async (t) => {
    const notString = await md(f, { Text: 42 });
    t.equal(notString.status, 422);
    t.match(notString.json.message, /Text/);
    const notBool = await md(f, { Text: 'x', Wiki: 'yes' });
    t.equal(notBool.status, 422);
    t.match(notBool.json.message, /Wiki/);
    const longContext = await md(f, { Text: 'x', Mode: 'gfm', Context: 'c'.repeat(2049) });
    t.equal(longContext.status, 422);
    t.match(longContext.json.message, /Context/);
    t.equal((await f.request('POST', '/markdown', { body: '{"Text": ', headers: { 'Content-Type': 'application/json' } })).status, 400);
    t.equal((await f.request('POST', '/markdown', { body: 'Text=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status, 415);
    t.equal((await f.request('POST', '/markdown', { json: ['Text'] })).status, 422, 'the body must be an object');
    t.equal((await f.request('GET', '/markdown')).status, 405);
    t.equal((await raw(f, '\u0000\uffff\ud800 <\u0000script>')).status, 200, 'odd characters render');
    const invalidUtf8 = await f.request('POST', '/markdown/raw', { body: Buffer.from([0x61, 0xff, 0xfe, 0x62]) });
    t.equal(invalidUtf8.status, 200);
    t.equal(invalidUtf8.text, '<p>a\ufffd\ufffdb</p>\n', 'invalid UTF-8 becomes replacement characters');
  });

  t.test('pathological input renders in bounded time through HTTP', async (t) => {
    // Its own server with a 30 s render limit: plain markdown still switches engines after 2 s, but a loaded CI
    // machine (2 cores, other test files running) must not turn a slow linear render into a 422. That limit is the
    // bound: a quadratic path (minutes) is stopped by the server's own timer and answers 422, so a 200 is the proof.
    const f = await startForge({ config: { rootUrl: ROOT, plugins: { markup: { timeoutMs: 30_000 } } } });
    t.teardown(() => f.close());
    const cases: Record<string, string> = {
      'nested block quotes': '> '.repeat(100_000) + 'a',
      'list markers on one line': '* '.repeat(100_000) + 'a',
      'unclosed link destinations': '[a](b'.repeat(40_000),
      'nested emphasis': '*a **a '.repeat(15_000) + 'b' + ' a** a*'.repeat(15_000),
      'raw html nesting': '<div>'.repeat(40_000),
      '100k-character line': 'x'.repeat(100_000) + ' ' + 'y'.repeat(100_000),
      'many backticks': Array.from({ length: 800 }, (_, i) => 'e' + '`'.repeat(i)).join(''),
    };
    for (const [name, text] of Object.entries(cases)) {
      for (const mode of ['raw', 'gfm']) {
        const started = performance.now();
        const res = mode === 'raw' ? await raw(f, text) : await md(f, { Text: text, Mode: 'gfm', Context: 'o/r' });
        const ms = performance.now() - started;
        t.equal(res.status, 200, `${name} (${mode}, ${text.length} chars) in ${ms.toFixed(0)} ms`);
      }
    }
    t.equal((await f.request('GET', '/version')).status, 200, 'the server is still fine');
  });

  t.test('a document past the time limit is refused, the server stays up', async (t) => {
    // 1 s: the slow document needs about 10 s on a quiet machine, and the next one, rendered by a freshly started
    // worker, keeps room on a loaded one (with 100 ms it was sometimes refused while the whole suite ran).
    const strict = await startForge({ config: { plugins: { markup: { timeoutMs: 1000 } } } });
    t.teardown(() => strict.close());
    const slow = '[ a_'.repeat(250_000);
    const [res, version] = await Promise.all([
      strict.request('POST', '/markdown', { json: { Text: slow, Mode: 'gfm' } }),
      strict.request('GET', '/version'),
    ]);
    t.equal(res.status, 422);
    // The refusal names the time limit: the pool's own timer stopped the render (it needs about 10 s unstopped). No
    // wall-clock bound here: on a loaded machine the request's round trip says nothing about the limit.
    t.match(res.json, { message: /^Text: the document did not render within 1000 ms/ });
    t.equal(version.status, 200, 'other requests are served meanwhile');
    t.equal((await strict.request('POST', '/markdown', { json: { Text: '# ok '.repeat(2000), Mode: 'gfm' } })).status, 200, 'the next document renders');
  });

  t.test('workers and the event loop render alike', async (t) => {
    const inline = await startForge({ config: { plugins: { markup: { workers: 0 } } } });
    t.teardown(() => inline.close());
    const pooled = await startForge({ config: { plugins: { markup: { inlineMaxBytes: 0 } } } });
    t.teardown(() => pooled.close());
    const text = await readFile(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'markup', 'readme-50k.md'), 'utf8');
    for (const json of [{ Text: text, Mode: 'gfm', Context: 'o/r' }, { Text: text }, { Text: '@a #1', Mode: 'comment', Context: 'o/r' }]) {
      const a = await inline.request('POST', '/markdown', { json });
      const b = await pooled.request('POST', '/markdown', { json });
      t.equal(a.status, 200);
      t.equal(b.text.replaceAll(pooled.url, 'ROOT'), a.text.replaceAll(inline.url, 'ROOT'), `${json.Mode ?? 'markdown'}: same output`);
    }
  });

  t.test('many documents at once through one worker: two are taken in at a time, every one gets its own answer', async (t) => {
    // One worker: the routes let two documents in at a time (the kernel's route concurrency); the rest wait as bytes.
    const small = await startForge({ config: { plugins: { markup: { workers: 1, inlineMaxBytes: 0 } } } });
    t.teardown(() => small.close());
    const docs = Array.from({ length: 24 }, (_, i) => `# doc ${i}\n\n${'word '.repeat(200 + i)}`);
    const answers = await Promise.all(docs.map((text, i) => (i % 2
      ? small.request('POST', '/markdown/raw', { body: text, headers: { 'Content-Type': 'text/plain' } })
      : small.request('POST', '/markdown', { json: { Text: text, Mode: 'gfm' } }))));
    t.ok(answers.every((res) => res.status === 200), 'all 24 rendered');
    t.ok(answers.every((res, i) => res.text.startsWith(`<h1>doc ${i}</h1>`) && res.text.split('word').length - 1 === 200 + i), 'each its own document');
  });
});
