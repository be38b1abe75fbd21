// The `users` plugin: accounts (users and organizations), profiles, user search, email addresses, password login.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, paramsSchema, usernameParams } from '../../schemas/common.js';
import { UserSchema, UserListSchema, ref } from '../../schemas/resources.js';
import { Users, USERS, EMAILS } from './service.js';
import * as h from './handlers.js';
import { AVATARS, AVATAR_MAX_BYTES } from './avatar.js';

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
const emailsBody = {
  type: 'object',
  properties: { emails: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 254 } } },
  required: ['emails'],
};

export default definePlugin<Users>({
  name: 'users',
  schemas: [UserSchema, UserListSchema, UserSearchResultsSchema, EmailSchema],
  collections: [
    {
      name: USERS,
      indexes: [
        { fields: { id: 1 }, unique: true },
        { fields: { lowerName: 1 }, unique: true },
        { fields: { lowerEmail: 1 }, unique: true, sparse: true },
        { fields: { grams: 1 } },
        { fields: { type: 1, id: 1 } },
      ],
    },
    {
      name: EMAILS,
      indexes: [{ fields: { id: 1 }, unique: true }, { fields: { uid: 1 } }, { fields: { lowerEmail: 1 }, unique: true }],
    },
    { name: AVATARS, indexes: [{ fields: { uid: 1 }, unique: true }] },
  ],
  start(ctx) {
    const users = new Users(ctx);
    ctx.auth.provide({ password: (login, password) => users.verifyLogin(login, password) });
    return users;
  },
  routes: [
    { operationId: 'userGetCurrent', summary: 'Get the authenticated user', method: 'GET', path: '/user', auth: 'user', schema: { response: { 200: ref('forgekit/User') } }, handler: h.getCurrentUser },
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
      method: 'GET', path: '/users/:username', auth: 'optional',
      schema: { params: usernameParams, response: { 200: ref('forgekit/User') } },
      handler: h.getUser,
    },
    { operationId: 'userListEmails', summary: 'List the authenticated user\'s email addresses', method: 'GET', path: '/user/emails', auth: 'user', schema: { response: { 200: emailList } }, handler: h.listEmails },
    {
      operationId: 'userAddEmail', summary: 'Add email addresses',
      method: 'POST', path: '/user/emails', auth: 'user', body: 'json',
      schema: { body: emailsBody, response: { 201: emailList } }, handler: h.addEmails,
    },
    {
      operationId: 'userDeleteEmail', summary: 'Delete email addresses',
      method: 'DELETE', path: '/user/emails', auth: 'user', body: 'json',
      schema: { body: emailsBody }, handler: h.deleteEmails,
    },
    {
      operationId: 'userUpdateAvatar', summary: 'Update the authenticated user\'s avatar (base64 PNG, JPEG, GIF or WebP)', scope: 'user',
      // Read as text and parsed as JSON by the handler whatever the Content-Type: gitea-js sends this body as
      // text/plain (Gitea's swagger names no media type here) and Gitea accepts it.
      method: 'POST', path: '/user/avatar', auth: 'user', body: 'text',
      // base64 takes 4 bytes per 3; the decoded size is checked by the handler.
      bodyLimit: Math.ceil((AVATAR_MAX_BYTES * 4) / 3) + 4096,
      handler: h.updateAvatar,
    },
    {
      operationId: 'userDeleteAvatar', summary: 'Delete the authenticated user\'s avatar (back to the generated one)', scope: 'user',
      method: 'DELETE', path: '/user/avatar', auth: 'user', handler: h.deleteAvatar,
    },
    {
      operationId: 'getAvatar', summary: 'The avatar image of an account (uploaded, or a generated identicon)',
      method: 'GET', path: '/avatars/:id', auth: 'public', mount: 'root',
      schema: { params: paramsSchema({ id: idParam }) },
      handler: h.getAvatar,
    },
  ],
});
