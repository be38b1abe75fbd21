// Inline vs worker rendering is decided by cost, not bytes only: a small document dense in delimiters goes to a worker.
import t from 'tap';
import { createMarkupRenderer } from '../../plugins/markup/render.js';
import { createMarkupService, rendersInline } from '../../plugins/markup/service.js';

const PROSE = `# Title

Some *prose* with a [link](https://example.com/page) and \`code\`, then more words so that the paragraph is long.
- an item
- another item with **bold** text

`;

t.test('the decision', async (t) => {
  const prose = PROSE.repeat(Math.floor(4000 / PROSE.length));
  t.ok(prose.length <= 4096);
  t.ok(rendersInline(prose, 4096), `ordinary markdown of ${prose.length} bytes renders inline`);
  t.notOk(rendersInline('[a]('.repeat(1000), 4096), '`[a](` ×1000 (4 KB) goes to a worker');
  t.notOk(rendersInline('*_'.repeat(2000), 4096), 'emphasis delimiters count too');
  t.notOk(rendersInline('<a>'.repeat(1300), 4096), 'so do HTML brackets');
  t.notOk(rendersInline('x'.repeat(4097), 4096), 'bytes still bound it');
  t.ok(rendersInline('[a](b)', 4096), 'a tiny document with a few delimiters stays inline');
});

t.test('the dense document renders the same in a worker', async (t) => {
  const service = createMarkupService('http://127.0.0.1/', { workers: 1, timeoutMs: 10_000, inlineMaxBytes: 4096, workerHeapMb: 128, workerIdleMs: 0 });
  t.teardown(() => service.close());
  const doc = '[a]('.repeat(1000);
  const inline = createMarkupRenderer({ rootUrl: 'http://127.0.0.1/' }).render(doc, { mode: 'markdown' });
  t.equal(await service.render(doc, { mode: 'markdown' }), inline);
});
