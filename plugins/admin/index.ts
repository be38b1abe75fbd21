// The `admin` plugin: site-admin user management and the first admin account from FORGEKIT_ADMIN_* at start.
import { definePlugin, type PluginContext } from '../../core/plugin.js';
import { usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import * as h from './handlers.js';

const createUserBody = {
  type: 'object',
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 40 },
    email: { type: 'string', minLength: 3, maxLength: 254 },
    password: { type: 'string', minLength: 6, maxLength: 255 },
    full_name: { type: 'string', maxLength: 100 },
    admin: { type: 'boolean' },
    // Accepted for Gitea client compatibility; forgekit has one login source and sends no mail.
    login_name: { type: 'string' },
    source_id: { type: 'integer' },
    send_notify: { type: 'boolean' },
  },
  required: ['username', 'email', 'password'],
};

/** Creates the configured first admin once; an existing account of that name is left as it is. */
async function bootstrapAdmin(ctx: PluginContext): Promise<void> {
  const { username, password, email } = ctx.config.admin;
  if (!username) return;
  if (!password || !email) throw new Error('FORGEKIT_ADMIN_USERNAME needs FORGEKIT_ADMIN_PASSWORD and FORGEKIT_ADMIN_EMAIL');
  const users = ctx.services.get('users');
  if (await users.byName(username)) return;
  await users.createUser({ username, password, email, isAdmin: true });
  ctx.log.info({ username }, 'created the first site administrator');
}

export default definePlugin({
  name: 'admin',
  dependencies: ['users'],
  async start(ctx) {
    await bootstrapAdmin(ctx);
  },
  routes: [
    {
      operationId: 'adminCreateUser', summary: 'Create a user',
      scope: 'admin', method: 'POST', path: '/admin/users', auth: 'admin', body: 'json',
      schema: { body: createUserBody, response: { 201: ref('forgekit/User') } },
      handler: h.createUser,
    },
    {
      operationId: 'adminDeleteUser', summary: 'Delete a user', scope: 'admin', method: 'DELETE', path: '/admin/users/:username', auth: 'admin',
      schema: { params: usernameParams, querystring: { type: 'object', properties: { purge: { type: 'boolean' } } } },
      handler: h.deleteUser,
    },
  ],
});
