// Every route of every built-in plugin declares its token scope category (Gitea's `tokenRequiresScopes`), so a token
// made for one capability never reaches another by a route that forgot to say what it is.
import t from 'tap';
import { builtinPlugins } from '../../plugins/index.js';
import { scopeDemand, SCOPE_CATEGORIES } from '../../core/scopes.js';

t.test('every route declares a scope', async (t) => {
  const missing: string[] = [];
  for (const plugin of builtinPlugins) {
    for (const route of plugin.routes ?? []) {
      if (route.scope === undefined) missing.push(`${plugin.name}: ${route.method} ${route.path}`);
    }
  }
  t.same(missing, [], 'routes without a `scope` (add Gitea\'s category: see core/scopes.ts)');
});

t.test('scopes name known categories', async (t) => {
  for (const plugin of builtinPlugins) {
    for (const route of plugin.routes ?? []) {
      const categories = route.scope === undefined ? [] : Array.isArray(route.scope) ? route.scope : [route.scope];
      for (const c of categories) t.ok(SCOPE_CATEGORIES.includes(c), `${plugin.name}: ${route.method} ${route.path}: ${c}`);
      // A route's demand can be computed (misc demands nothing).
      scopeDemand(route);
    }
  }
});
