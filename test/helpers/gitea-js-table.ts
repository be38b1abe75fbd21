// The README's table of served gitea-js groups, computed from the built-in plugins' routes. The compat test checks the
// README holds exactly this table; `npm run readme:gitea-table` rewrites it after routes change.
import { builtinPlugins } from '../../plugins/index.js';
import { servedMethods } from './gitea-js.js';

export function servedTable(): { table: string; count: number; total: number } {
  const served = servedMethods(builtinPlugins);
  const count = served.filter((s) => s.route).length;
  const tags = [...new Set(served.map((s) => s.method.tag))].sort();
  const rows = tags.map((tag) => {
    const all = served.filter((s) => s.method.tag === tag);
    return `| ${tag} | ${all.filter((s) => s.route).length} | ${all.length} |`;
  });
  const table = ['| gitea-js group (Gitea tag) | served | methods |', '|---|---|---|', ...rows, `| **all** | **${count}** | **${served.length}** |`].join('\n');
  return { table, count, total: served.length };
}
