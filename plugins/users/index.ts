// The `users` plugin: accounts (users and organizations), profiles, user search, email addresses, password login.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, paramsSchema, searchPagingSettings, usernameParams } from '../../schemas/common.js';
import { UserSchema, UserListSchema, ref } from '../../schemas/resources.js';
import { Users, USERS, EMAILS, type UsersSettings } from './service.js';
import * as h from './handlers.js';
import { AVATARS, AVATAR_MAX_BYTES } from './avatar.js';
import { UserSettingsSchema, getSettings, updateSettings, userSettingsBody } from './settings.js';
import { AdminEmailSchema, listAllEmails, searchEmails } from './admin-emails.js';

const EmailSchema = {
  $id: 'forgekit/Email',
  type: 'object',
  properties: { email: { type: 'string' }, verified: { type: 'boolean' }, primary: { type: 'boolean' } },
  required: ['email', 'verified', 'primary'],
} as const;
/** `GET /users/search`: Gitea's `{ok, data}` envelope (the 2017 swagger's bare list was a documentation bug). */
const UserSearchResultsSchema = {
  $id: 'forgekit/UserSearchResults',
  type: 'object',
  properties: { ok: { type: 'boolean' }, data: { $ref: 'forgekit/UserList' } },
  required: ['ok', 'data'],
} as const;
const emailList = { type: 'array', items: ref('forgekit/Email') };
const adminEmailList = { type: 'array', items: ref('forgekit/AdminEmail') };
const emailsBody = {
  type: 'object',
  properties: { emails: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 254 } } },
  required: ['emails'],
};

const throttleRule = (maxFailures: number) => ({
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    maxFailures: { type: 'integer', minimum: 0, default: maxFailures, description: 'failed sign-ins allowed per window (0: no throttle)' },
    windowSeconds: { type: 'integer', minimum: 1, default: 300 },
    lockSeconds: { type: 'integer', minimum: 1, default: 300, description: 'how long sign-ins are refused (429) once the window is full' },
  },
});

export default definePlugin<Users, UsersSettings>({
  name: 'users',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      search: searchPagingSettings,
      maxConcurrentHashes: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
      signInThrottle: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: { perAccount: throttleRule(10), perAddress: throttleRule(100) },
      },
    },
  },
  schemas: [UserSchema, UserListSchema, UserSearchResultsSchema, EmailSchema, UserSettingsSchema, AdminEmailSchema],
  collections: [
    {
      name: USERS,
      indexes: [
        { fields: { id: 1 }, unique: true },
        { fields: { lowerName: 1 }, unique: true },
        { fields: { lowerEmail: 1 }, unique: true, sparse: true },
        { fields: { type: 1, id: 1 } },
        { fields: { type: 1, lowerName: 1 } },
        // Accounts that are not public (limited, private) are found through it: repository access hides their repositories.
        { fields: { visibility: 1 } },
      ],
    },
    {
      name: EMAILS,
      indexes: [{ fields: { id: 1 }, unique: true }, { fields: { uid: 1 } }, { fields: { lowerEmail: 1 }, unique: true }],
    },
    { name: AVATARS, indexes: [{ fields: { uid: 1 }, unique: true }] },
  ],
  async start(ctx) {
    const users = new Users(ctx);
    await users.loadIndex();
    ctx.auth.provide({ password: (login, password, client) => users.verifyLogin(login, password, client) });
    return users;
  },
  routes: [
    { operationId: 'userGetCurrent', summary: 'Get the authenticated user', scope: 'user', method: 'GET', path: '/user', auth: 'user', schema: { response: { 200: ref('forgekit/User') } }, handler: h.getCurrentUser },
    {
      method: 'GET', path: '/users/search', auth: 'optional', operationId: 'userSearch', summary: 'Search for users', scope: 'user',
      schema: {
        querystring: listQuery({ q: { type: 'string', maxLength: 255 } }),
        response: { 200: ref('forgekit/UserSearchResults') },
      },
      handler: h.searchUsers,
    },
    {
      operationId: 'userGet', summary: 'Get a user',
      scope: 'user', method: 'GET', path: '/users/:username', auth: 'optional',
      schema: { params: usernameParams, response: { 200: ref('forgekit/User') } },
      handler: h.getUser,
    },
    { operationId: 'userListEmails', summary: 'List the authenticated user\'s email addresses', scope: 'user', method: 'GET', path: '/user/emails', auth: 'user', schema: { response: { 200: emailList } }, handler: h.listEmails },
    {
      operationId: 'userAddEmail', summary: 'Add email addresses',
      scope: 'user', method: 'POST', path: '/user/emails', auth: 'user', body: 'json',
      schema: { body: emailsBody, response: { 201: emailList } }, handler: h.addEmails,
    },
    {
      operationId: 'userDeleteEmail', summary: 'Delete email addresses',
      scope: 'user', method: 'DELETE', path: '/user/emails', auth: 'user', body: 'json',
      schema: { body: emailsBody }, handler: h.deleteEmails,
    },
    {
      operationId: 'userUpdateAvatar', summary: 'Update the authenticated user\'s avatar (base64 PNG, JPEG, GIF or WebP)', scope: 'user',
      // gitea-js sends this body as text/plain (Gitea's swagger names no media type here) and Gitea accepts it.
      method: 'POST', path: '/user/avatar', auth: 'user', body: 'json', textPlainJson: true,
      schema: { body: { type: 'object', properties: { image: { type: 'string', minLength: 1 } }, required: ['image'] } },
      // base64 takes 4 bytes per 3; the decoded size is checked by the handler.
      bodyLimit: Math.ceil((AVATAR_MAX_BYTES * 4) / 3) + 4096,
      handler: h.updateAvatar,
    },
    {
      operationId: 'userDeleteAvatar', summary: 'Delete the authenticated user\'s avatar (back to the generated one)', scope: 'user',
      method: 'DELETE', path: '/user/avatar', auth: 'user', handler: h.deleteAvatar,
    },
    {
      operationId: 'getUserSettings', summary: 'Get user settings', scope: 'user',
      method: 'GET', path: '/user/settings', auth: 'user', schema: { response: { 200: ref('forgekit/UserSettings') } }, handler: getSettings,
    },
    {
      operationId: 'updateUserSettings', summary: 'Update user settings', scope: 'user',
      method: 'PATCH', path: '/user/settings', auth: 'user', body: 'json',
      schema: { body: userSettingsBody, response: { 200: ref('forgekit/UserSettings') } }, handler: updateSettings,
    },
    {
      operationId: 'adminGetAllEmails', summary: 'List all emails', scope: 'admin', method: 'GET', path: '/admin/emails', auth: 'admin',
      schema: { querystring: listQuery(), response: { 200: adminEmailList } }, handler: listAllEmails,
    },
    {
      operationId: 'adminSearchEmails', summary: 'Search all emails', scope: 'admin', method: 'GET', path: '/admin/emails/search', auth: 'admin',
      schema: { querystring: listQuery({ q: { type: 'string', maxLength: 255 } }), response: { 200: adminEmailList } }, handler: searchEmails,
    },
    {
      operationId: 'getAvatar', summary: 'The avatar image of an account (uploaded, or a generated identicon)',
      scope: 'misc', method: 'GET', path: '/avatars/:id', auth: 'public', mount: 'root',
      schema: { params: paramsSchema({ id: idParam }) },
      handler: h.getAvatar,
    },
  ],
});
