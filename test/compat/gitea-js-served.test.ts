// Which gitea-js methods forgekit serves: counted with the kernel's router over the built-in plugins' routes, kept in
// the README's table, each one called by a test/compat/gitea-js-<group>.test.ts file, under Gitea's operationId.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { builtinPlugins } from '../../plugins/index.js';
import { PACKAGE_ROOT } from '../../core/config.js';
import { giteaTypes, servedMethods } from '../helpers/gitea-js.js';
import { servedTable } from '../helpers/gitea-js-table.js';

const served = servedMethods(builtinPlugins);
const total = served.length;
const count = served.filter((s) => s.route).length;

t.test('gitea-js methods served', async (t) => {
  t.equal(total, giteaTypes().methods.length);
  t.ok(total >= 400, `gitea-js declares ${total} methods`);
  t.comment(`gitea-js methods served: ${count}/${total}`);
  console.log(`gitea-js methods served: ${count}/${total}`);
  for (const s of served) t.comment(`${s.route ? 'served ' : 'missing'} ${s.method.tag.padEnd(13)} ${s.method.operationId} ${s.method.method} ${s.method.path}`);
});

t.test("README's table of served gitea-js groups matches the routes", async (t) => {
  const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const expected = servedTable().table;
  t.ok(readme.includes(expected), `README.md must contain exactly this table (npm run readme:gitea-table rewrites it):\n${expected}\n`);
});

t.test("served routes carry Gitea's operationId", async (t) => {
  for (const s of served) {
    if (!s.route?.operationId) continue;
    // Several of Gitea's operations can share one of our routes only when Gitea itself aliases a path.
    t.equal(s.route.operationId, s.method.operationId, `${s.method.method} ${s.method.path}`);
  }
});

t.test('every served method is called by a gitea-js compatibility test', async (t) => {
  const dir = path.join(PACKAGE_ROOT, 'test', 'compat');
  const text = readdirSync(dir).filter((n) => /^gitea-js-.*\.test\.ts$/.test(n)).map((n) => readFileSync(path.join(dir, n), 'utf8')).join('\n');
  const uncalled = served.filter((s) => s.route && !new RegExp(`\\.${s.method.namespace}\\.${s.method.key}\\(`).test(text));
  const groupsLeft = [...new Set(uncalled.map((s) => s.method.tag))].sort();
  // Groups whose files are still to be written are listed as a todo (never hidden): the list is the work left.
  t.same(uncalled.map((s) => `${s.method.namespace}.${s.method.key}`), [], 'each served method appears as client.<namespace>.<method>( in test/compat',
    groupsLeft.length ? { todo: `gitea-js-<group>.test.ts still to write for: ${groupsLeft.join(', ')}` } : {});
});
