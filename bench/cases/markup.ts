// Bench case for the markup plugin: a 50 KB README (real READMEs plus a gfm section, test/fixtures/markup) rendered
// in gfm mode with a repository context, so every pass runs: parse, special links, link resolution, sanitiser.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import type { BenchCase, RecordedResponse } from '../case.js';

export const README_50K = readFileSync(path.join(PACKAGE_ROOT, 'test', 'fixtures', 'markup', 'readme-50k.md'), 'utf8');

function checkRendered(res: RecordedResponse): string | null {
  const type = res.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (!type.startsWith('text/html')) return `Content-Type is ${type}, expected text/html`;
  const html = res.body.toString('utf8');
  if (!html.includes('<table>')) return 'no table in the rendered README';
  if (!html.includes('rel="nofollow">@mcollina</a>')) return 'the @mention was not linked';
  if (!html.includes('<input type="checkbox" disabled')) return 'the task list was not rendered';
  return null;
}

export const markdownGfm50k: BenchCase = {
  name: 'markdown-gfm-50k',
  group: 'markup',
  method: 'POST',
  path: '/markdown',
  body: { Text: README_50K, Mode: 'gfm', Context: 'mcollina/autocannon' },
  plugins: ['markup'],
  check: checkRendered,
  description: 'POST /markdown: a 50 KB README in gfm mode with a repository context (tables, task lists, mentions, issue and commit links, relative images), sanitised.',
};

export const cases: BenchCase[] = [markdownGfm50k];

export default markdownGfm50k;
