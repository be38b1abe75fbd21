// forgekit-plugin-hello: the smallest useful plugin package. Load it with
//   FORGEKIT_LOAD_PLUGINS=forgekit-plugin-hello   (installed with npm)   or   FORGEKIT_LOAD_PLUGINS=./examples/plugin-hello
// It relies only on the plugin API contract (README "Plugin API"): a plain plugin object, the `users` service, a
// settings schema with defaults, route schemas, and `{ status, body }` replies. Errors are `{ status: 404 }`-style
// replies built from the documented error shape, so it needs nothing imported from forgekit at run time.

/** @type {import('forgekit').Plugin} */
const hello = {
  name: 'hello',
  dependencies: ['users'],
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: { greeting: { type: 'string', minLength: 1, maxLength: 100, default: 'Hello' } },
  },
  schemas: [
    {
      $id: 'hello/Greeting',
      type: 'object',
      properties: { greeting: { type: 'string' }, login: { type: 'string' } },
      required: ['greeting', 'login'],
    },
  ],
  start(ctx) {
    ctx.log.debug('hello plugin started');
    return { greet: (login) => `${ctx.settings.greeting}, ${login}!` };
  },
  routes: [
    {
      operationId: 'helloGreetUser',
      summary: 'Greet a user by name',
      scope: 'user',
      method: 'GET',
      path: '/hello/:username',
      auth: 'optional',
      schema: {
        params: {
          type: 'object',
          properties: { username: { type: 'string', minLength: 1, maxLength: 40 } },
          required: ['username'],
          additionalProperties: false,
        },
        response: { 200: { $ref: 'hello/Greeting' } },
      },
      async handler(rc) {
        const users = rc.app.services.get('users');
        const account = await users.byName(rc.params.username);
        if (!account || account.type !== 'user') {
          return { status: 404 };
        }
        const { greet } = rc.app.services.get('hello');
        return { status: 200, body: { greeting: greet(account.login), login: account.login } };
      },
    },
  ],
};

export default hello;
