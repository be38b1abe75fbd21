// A test plugin that hands a test the issues service, for what only the service shows (its `q` index, its plans,
// the pages it pivoted): `held.issues` is set when the forge starts.
import { definePlugin } from '../../core/plugin.js';

export function issuesProbe<T = any>(name = 'issues-probe') {
  const held: { issues?: T } = {};
  const plugin = definePlugin({ name, dependencies: ['issues'], start(ctx) { held.issues = ctx.services.get('issues') as T; } });
  return { held, plugin };
}
