// The `admin` plugin: site-admin user management and the first admin account from FORGEKIT_ADMIN_* at start.
import { definePlugin, type PluginContext } from '../../core/plugin.js';
import { listQuery, usernameParams } from '../../schemas/common.js';
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
    // forgekit has one login source (0) and sends no mail: send_notify is accepted and has nothing to do.
    login_name: { type: 'string', maxLength: 255 },
    source_id: { type: 'integer' },
    send_notify: { type: 'boolean' },
    must_change_password: { type: 'boolean' },
    restricted: { type: 'boolean' },
    visibility: { type: 'string', enum: ['public', 'limited', 'private'] },
  },
  required: ['username', 'email', 'password'],
};

/** Gitea's EditUserOption; every field optional (Gitea's `login_name`/`source_id` only matter for external sources). */
const editUserBody = {
  type: 'object',
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    full_name: { type: 'string', maxLength: 100 },
    login_name: { type: 'string', maxLength: 255 },
    source_id: { type: 'integer' },
    active: { type: 'boolean' },
    admin: { type: 'boolean' },
    allow_create_organization: { type: 'boolean' },
    allow_git_hook: { type: 'boolean' },
    allow_import_local: { type: 'boolean' },
    max_repo_creation: { type: 'integer', minimum: -1 },
    prohibit_login: { type: 'boolean' },
    restricted: { type: 'boolean' },
    visibility: { type: 'string', enum: ['public', 'limited', 'private'] },
    website: { type: 'string', maxLength: 255 },
    location: { type: 'string', maxLength: 50 },
    description: { type: 'string', maxLength: 255 },
    password: { type: 'string', minLength: 6, maxLength: 255 },
    must_change_password: { type: 'boolean' },
  },
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
      operationId: 'adminSearchUsers', summary: 'Search users according filter conditions', scope: 'admin',
      method: 'GET', path: '/admin/users', auth: 'admin',
      schema: {
        querystring: listQuery({ source_id: { type: 'integer' }, login_name: { type: 'string', maxLength: 255 } }),
        response: { 200: ref('forgekit/UserList') },
      },
      handler: h.listUsers,
    },
    {
      operationId: 'adminEditUser', summary: 'Edit an existing user', scope: 'admin',
      method: 'PATCH', path: '/admin/users/:username', auth: 'admin', body: 'json',
      schema: { params: usernameParams, body: editUserBody, response: { 200: ref('forgekit/User') } },
      handler: h.editUser,
    },
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
