// Compile-time checks of the typed plugin contracts: this file is compiled by the normal build (`tsc -p
// tsconfig.json`), and every `@ts-expect-error` line must be an error, so a contract that stops catching a wrong
// service name, event payload, settings key or nullable caller breaks the build. At run time it only checks that the
// typed route definitions are what they were given.
import t from 'tap';
import { defineRoute, definePlugin, type AnyRoute, type PluginContext, type RequestContext, type SignedInContext } from '../../core/plugin.js';
import '../../schemas/services.js';
import '../../schemas/events.js';

interface HelloSettings {
  greeting: string;
}

export function servicesAndEvents(ctx: PluginContext<HelloSettings>): void {
  const users = ctx.services.get('users');
  void users.byName('ann'); // typed: UsersService
  // @ts-expect-error a method the users service does not have
  void users.byNickname('ann');
  // @ts-expect-error a wrong argument type for a typed service
  void ctx.services.get('repos').byId('1');
  // @ts-expect-error a service no file declares in ForgeServices (there is no untyped fallback)
  void ctx.services.get('no-such-plugin');

  ctx.events.on('account.deleted', ({ account }) => void account.login);
  // @ts-expect-error a payload field the event does not carry
  ctx.events.on('account.deleted', ({ user }) => void user);
  // @ts-expect-error an event that is not in the vocabulary
  void ctx.events.emit('account.vanished', {});
  // @ts-expect-error a wrong payload for an emitted event
  void ctx.events.emit('team.deleted', { account: null });

  void ctx.settings.greeting.toUpperCase();
  // @ts-expect-error a settings key the plugin does not declare
  void ctx.settings.colour;
}

export const routes: AnyRoute[] = [
  // On a signed-in route the caller is never null.
  { method: 'GET', path: '/a', auth: 'user', handler: async (rc) => ({ status: 200, body: rc.caller.login }) },
  // @ts-expect-error on an optional route the caller may be null
  { method: 'GET', path: '/b', auth: 'optional', handler: async (rc) => ({ status: 200, body: rc.caller.login }) },
  // @ts-expect-error a handler that needs a signed-in caller does not fit a public route
  { method: 'GET', path: '/c', auth: 'public', handler: async (rc: SignedInContext) => ({ status: 200, body: rc.caller.id }) },
  {
    method: 'GET', path: '/d/:id', auth: 'admin',
    handler: async (rc: RequestContext<{ id: number }, unknown, unknown, 'admin'>) => ({ status: 200, body: rc.params.id + rc.caller.id }),
  },
];

export const typedParams = defineRoute<'basic', { id: number }, { q?: string }, { name: string }>({
  method: 'POST', path: '/e/:id', auth: 'basic', body: 'json',
  handler: async (rc) => {
    // @ts-expect-error params are typed by the route: id is a number
    const id: string = rc.params.id;
    return { status: 201, body: { id, name: rc.body.name, q: rc.query.q ?? '', by: rc.caller.login } };
  },
});

export const typedPlugin = definePlugin<{ hello(): string }, HelloSettings>({
  name: 'typed',
  routes: [...routes, typedParams],
  start: (ctx) => ({ hello: () => ctx.settings.greeting }),
});

t.test('typed route definitions are returned unchanged', async (t) => {
  t.equal(typedPlugin.routes!.length, 5);
  t.equal(typedParams.auth, 'basic');
});
