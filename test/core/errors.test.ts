// Every error code is raised somewhere outside the table, and documented in the README's error table.
import t from 'tap';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, ForgeError, fail } from '../../core/errors.js';
import { PACKAGE_ROOT } from '../../core/config.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

const HELPERS: Record<string, string> = {
  notFound: 'NOT_FOUND', forbidden: 'FORBIDDEN', validation: 'VALIDATION', conflict: 'CONFLICT',
  badRequest: 'BAD_REQUEST', unauthorized: 'UNAUTHORIZED',
};

t.test('every error code is used and documented', async (t) => {
  const files = [...sources(path.join(PACKAGE_ROOT, 'core')), ...sources(path.join(PACKAGE_ROOT, 'plugins'))]
    .filter((f) => !f.endsWith(path.join('core', 'errors.ts')));
  const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
  const used = new Set<string>();
  for (const code of Object.keys(ERROR_CODES)) if (new RegExp(`['"]${code}['"]`).test(text)) used.add(code);
  for (const [helper, code] of Object.entries(HELPERS)) if (new RegExp(`fail\\.${helper}\\(`).test(text)) used.add(code);
  // INTERNAL is what the edge answers for any unexpected throw.
  if (/status = 500/.test(readFileSync(path.join(PACKAGE_ROOT, 'core', 'http', 'error-reply.ts'), 'utf8'))) used.add('INTERNAL');
  const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    t.ok(used.has(code), `${code} is raised somewhere`);
    t.match(readme, new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${info.status}\\s*\\|`), `${code} (${info.status}) is in the README's error table`);
  }
});

t.test('a 4xx error captures no stack; a 5xx keeps it; the process-wide limit is left as it was', async (t) => {
  const before = Error.stackTraceLimit;
  const notFound = fail.notFound();
  t.equal(notFound.status, 404);
  t.equal(notFound.stack, `ForgeError: ${ERROR_CODES.NOT_FOUND.fixedMessage}`, 'a 404 has its message and no frames');
  t.notMatch(new ForgeError('VALIDATION', 'name is too long').stack ?? '', /\n\s+at /, 'a 422 has no frames');
  t.match(new ForgeError('INTERNAL', 'boom').stack ?? '', /\n\s+at /, 'a 500 keeps its frames for the log');
  t.equal(Error.stackTraceLimit, before);
  t.match(new Error('plain').stack ?? '', /\n\s+at /, 'other errors still capture stacks');
});
