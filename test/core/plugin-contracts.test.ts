// Plugin-owned settings (schema + defaults, validated at boot) and the typed service/event maps at run time.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { startForge } from '../helpers/forge.js';

interface GreetSettings {
  greeting: string;
  limits: { max: number };
}

interface GreetService {
  hello(name: string): string;
  heard(): number;
}

// A third-party plugin declares its service in the typed map exactly as the built-ins do.
declare module '../../core/plugin.js' {
  interface ForgeServices {
    greet: GreetService;
  }
}

const greet = definePlugin<GreetService, GreetSettings>({
  name: 'greet',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      greeting: { type: 'string', minLength: 1, default: 'hello' },
      limits: {
        type: 'object', additionalProperties: false, default: {},
        properties: { max: { type: 'integer', minimum: 1, default: 3 } },
      },
    },
  },
  routes: [{
    method: 'GET', path: '/greet/:name', auth: 'public',
    schema: {
      params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      response: { 200: { type: 'object', properties: { text: { type: 'string' }, max: { type: 'integer' }, heard: { type: 'integer' } } } },
    },
    handler: async (rc) => {
      await rc.app.events.emit('star.changed', { action: 'created', repo: { id: 1 } as never, senderId: 7 });
      const service = rc.app.services.get('greet');
      return { status: 200, body: { text: service.hello(rc.params.name), max: rc.app.settings.limits.max, heard: service.heard() } };
    },
  }],
  start(ctx) {
    let heard = 0;
    ctx.events.on('star.changed', (p) => { heard += p.senderId; });
    return { hello: (name: string) => `${ctx.settings.greeting}, ${name}`, heard: () => heard };
  },
});

t.test('defaults come from the plugin schema', async (t) => {
  const f = await startForge({ extraPlugins: [greet] });
  t.teardown(() => f.close());
  const res = await f.request('GET', '/greet/ann');
  t.equal(res.status, 200);
  t.same(res.json, { text: 'hello, ann', max: 3, heard: 7 }, 'defaults filled in; the event reached its subscriber');
});

t.test('configured values win and are validated', async (t) => {
  const f = await startForge({ extraPlugins: [greet], config: { plugins: { greet: { greeting: 'hi', limits: { max: 9 } } } } });
  t.teardown(() => f.close());
  t.same((await f.request('GET', '/greet/bo')).json, { text: 'hi, bo', max: 9, heard: 7 });
});

t.test('a bad value stops the boot naming the key', async (t) => {
  await t.rejects(startForge({ extraPlugins: [greet], config: { plugins: { greet: { limits: { max: 0 } } } } }),
    { name: 'ConfigError', message: /"plugins\.greet\.limits\.max": must be >= 1/ });
  await t.rejects(startForge({ extraPlugins: [greet], config: { plugins: { greet: { colour: 'red' } } } }),
    { message: /"plugins\.greet\.colour": must NOT have additional properties/ });
});

t.test('a settings value that is not a schema object fails the load', async (t) => {
  await t.rejects(startForge({ extraPlugins: [{ ...greet, name: 'greet2', routes: [], settings: 'nope' as never }] }),
    { name: 'PluginLoadError', message: /settings must be a JSON schema object/ });
});
