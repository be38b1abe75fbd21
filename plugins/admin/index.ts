// The `admin` plugin: site-admin user management, user badges, the registry of periodic tasks (/admin/cron) and the
// first admin account from FORGEKIT_ADMIN_* at start.
import { definePlugin, type PluginContext } from '../../core/plugin.js';
import { listQuery, paramsSchema, usernameParams } from '../../schemas/common.js';
import { ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { BadgeSchema, USER_BADGES, addBadges, badgeSettingsSchema, badgesBody, listBadges, removeBadges, type AdminSettings } from './badges.js';
import { CronRegistry, CronSchema, listCron, runCron } from './cron.js';

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

export default definePlugin<CronRegistry, AdminSettings>({
  name: 'admin',
  dependencies: ['users'],
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: { badges: badgeSettingsSchema },
  },
  schemas: [BadgeSchema, CronSchema],
  collections: [{ name: USER_BADGES, indexes: [{ fields: { uid: 1, slug: 1 }, unique: true }, { fields: { uid: 1 } }] }],
  async start(ctx) {
    await bootstrapAdmin(ctx);
    const slugs = ctx.settings.badges.map((b) => b.slug);
    if (new Set(slugs).size !== slugs.length) throw new Error('plugins.admin.badges: a badge slug is defined twice');
    ctx.events.on(ACCOUNT_DELETED, async ({ account }) => {
      await ctx.store.collection(USER_BADGES).deleteMany({ uid: account.id });
    });
    return new CronRegistry(ctx.log);
  },
  async stop(ctx) {
    await (ctx.services.get('admin') as CronRegistry).settle();
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
    {
      operationId: 'adminRenameUser', summary: 'Rename a user', scope: 'admin', method: 'POST', path: '/admin/users/:username/rename', auth: 'admin', body: 'json',
      schema: {
        params: usernameParams,
        body: { type: 'object', properties: { new_username: { type: 'string', minLength: 1, maxLength: 40 } }, required: ['new_username'] },
      },
      handler: h.renameUser,
    },
    {
      operationId: 'adminListUserBadges', summary: "List a user's badges", scope: 'admin', method: 'GET', path: '/admin/users/:username/badges', auth: 'admin',
      schema: { params: usernameParams, response: { 200: { type: 'array', items: ref('forgekit/Badge') } } }, handler: listBadges,
    },
    {
      operationId: 'adminAddUserBadges', summary: 'Add a badge to a user', scope: 'admin', method: 'POST', path: '/admin/users/:username/badges', auth: 'admin', body: 'json',
      schema: { params: usernameParams, body: badgesBody }, handler: addBadges,
    },
    {
      operationId: 'adminDeleteUserBadges', summary: 'Remove a badge from a user', scope: 'admin', method: 'DELETE', path: '/admin/users/:username/badges', auth: 'admin', body: 'json',
      schema: { params: usernameParams, body: badgesBody }, handler: removeBadges,
    },
    {
      operationId: 'adminCronList', summary: 'List cron tasks', scope: 'admin', method: 'GET', path: '/admin/cron', auth: 'admin',
      schema: { querystring: listQuery(), response: { 200: { type: 'array', items: ref('forgekit/Cron') } } }, handler: listCron,
    },
    {
      operationId: 'adminCronRun', summary: 'Run cron task', scope: 'admin', method: 'POST', path: '/admin/cron/:task', auth: 'admin',
      schema: { params: paramsSchema({ task: { type: 'string', minLength: 1, maxLength: 100 } }) }, handler: runCron,
    },
  ],
});
