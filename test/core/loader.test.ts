import t from 'tap';
import { resolvePlugins, checkDuplicateRoutes, PluginLoadError } from '../../core/loader.js';
import type { Plugin } from '../../core/plugin.js';

const p = (name: string, dependencies: string[] = [], extra: Partial<Plugin> = {}): Plugin => ({ name, dependencies, ...extra });
const handler = async () => ({ status: 200 });

t.test('orders plugins by dependencies whatever the registration order', async (t) => {
  const ordered = resolvePlugins([p('stars', ['repos', 'users']), p('repos', ['users']), p('users')], []);
  t.same(ordered.map((x) => x.name), ['users', 'repos', 'stars']);
});

t.test('optional dependencies order the start only when enabled', async (t) => {
  const ordered = resolvePlugins([p('a', [], { optionalDependencies: ['b'] }), p('b')], []);
  t.same(ordered.map((x) => x.name), ['b', 'a']);
  t.same(resolvePlugins([p('a', [], { optionalDependencies: ['b'] }), p('b')], ['b']).map((x) => x.name), ['a']);
});

t.test('a missing dependency fails naming both plugins', async (t) => {
  t.throws(() => resolvePlugins([p('stars', ['repos'])], []), { name: 'PluginLoadError', message: /plugin "stars" needs plugin "repos", which does not exist/ });
});

t.test('disabling a plugin another needs fails naming both', async (t) => {
  t.throws(() => resolvePlugins([p('users'), p('tokens', ['users'])], ['users']), { message: /plugin "tokens" needs plugin "users", which is disabled/ });
});

t.test('disabling an unknown plugin fails', async (t) => {
  t.throws(() => resolvePlugins([p('users')], ['nope']), { message: /cannot disable unknown plugin "nope"/ });
});

t.test('a cycle fails and shows the cycle', async (t) => {
  t.throws(() => resolvePlugins([p('a', ['b']), p('b', ['c']), p('c', ['a'])], []), { message: /dependency cycle: a -> b -> c -> a/ });
});

t.test('a duplicate plugin name fails', async (t) => {
  t.throws(() => resolvePlugins([p('users'), p('users')], []), { message: /duplicate plugin name "users"/ });
});

t.test('malformed plugin objects fail with the plugin named', async (t) => {
  t.throws(() => resolvePlugins([null], []), PluginLoadError);
  t.throws(() => resolvePlugins([{ name: 'Bad Name' }], []), { message: /name must match/ });
  t.throws(() => resolvePlugins([{ name: 'x', dependencies: 'users' }], []), { message: /plugin "x": dependencies must be an array/ });
  t.throws(() => resolvePlugins([{ name: 'x', routes: [{ method: 'GET', path: '/a', auth: 'nobody', handler }] }], []), { message: /plugin "x" route #0 .*auth must be one of/ });
  t.throws(() => resolvePlugins([{ name: 'x', routes: [{ method: 'BREW', path: '/a', auth: 'public', handler }] }], []), { message: /unknown method BREW/ });
  t.throws(() => resolvePlugins([{ name: 'x', routes: [{ method: 'GET', path: '/a', auth: 'public' }] }], []), { message: /handler must be a function/ });
  t.throws(() => resolvePlugins([{ name: 'x', collections: [{ name: 'Bad-Name' }] }], []), { message: /collection needs a name/ });
  t.throws(() => resolvePlugins([{ name: 'x', collections: [{ name: 'rows', indexes: [{ on: 'id' }] }] }], []), { message: /"rows" has an invalid index list/ });
  t.throws(() => resolvePlugins([{ name: 'x', collections: [{ name: 'rows', retiredIndexes: 'grams' }] }], []), { message: /"rows" has an invalid retired index list/ });
  t.throws(() => resolvePlugins([{ name: 'x', start: 'go' }], []), { message: /start must be a function/ });
});

t.test('duplicate routes fail naming both plugins, whatever the parameter names', async (t) => {
  t.throws(() => checkDuplicateRoutes([
    { plugin: 'a', method: 'GET', fullPath: '/api/v1/repos/:owner/:repo' },
    { plugin: 'b', method: 'GET', fullPath: '/api/v1/repos/:username/:reponame' },
  ]), { message: /duplicate route GET .*plugin "a" and plugin "b"/ });
  t.doesNotThrow(() => checkDuplicateRoutes([
    { plugin: 'a', method: 'GET', fullPath: '/api/v1/x' },
    { plugin: 'b', method: 'PUT', fullPath: '/api/v1/x' },
  ]));
});
