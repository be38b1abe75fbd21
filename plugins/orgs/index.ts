// Plugin `orgs`: organizations (accounts of type org, kept by `users`), their teams and team membership.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { RESOURCE_SCHEMAS, ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED, type OrgsService } from '../../schemas/services.js';
import * as h from './handlers.js';
import { adminListAllOrgs } from './admin.js';
import {
  OrganizationListSchema, OrganizationPermissionsSchema, OrganizationSchema, TeamListSchema, TeamSchema, TeamSearchResultsSchema,
  createOrgBody, createTeamBody, editOrgBody, editTeamBody,
} from './schemas.js';
import { Orgs, ORG_INTENTS, PUBLIC_MEMBERS, TEAMS, TEAM_MEMBERS } from './service.js';

const orgParams = paramsSchema({ org: nameParam });
const teamParams = paramsSchema({ id: idParam });
const teamUserParams = paramsSchema({ id: idParam, username: nameParam });
const orgUserParams = paramsSchema({ org: nameParam, username: nameParam });
const userParams = paramsSchema({ username: nameParam });
const userOrgParams = paramsSchema({ username: nameParam, org: nameParam });
const list = listQuery();
const teamSearchQuery = listQuery({ q: { type: 'string', maxLength: 255 }, include_desc: { type: 'boolean' } });

export default definePlugin<OrgsService>({
  name: 'orgs',
  dependencies: ['users'],
  schemas: [...RESOURCE_SCHEMAS, OrganizationSchema, OrganizationListSchema, OrganizationPermissionsSchema, TeamSchema, TeamListSchema, TeamSearchResultsSchema],
  collections: [
    {
      name: TEAMS,
      indexes: [
        { fields: { id: 1 }, unique: true },
        { fields: { orgId: 1, lowerName: 1 }, unique: true },
        { fields: { orgId: 1 } },
      ],
    },
    {
      name: TEAM_MEMBERS,
      indexes: [
        { fields: { teamId: 1, userId: 1 }, unique: true },
        { fields: { teamId: 1 } },
        { fields: { userId: 1 } },
        { fields: { orgId: 1 } },
      ],
    },
    { name: ORG_INTENTS, indexes: [{ fields: { id: 1 }, unique: true }] },
    {
      name: PUBLIC_MEMBERS,
      indexes: [{ fields: { orgId: 1, userId: 1 }, unique: true }, { fields: { userId: 1 } }],
    },
  ],
  async start(ctx) {
    const service = new Orgs(ctx);
    await service.finishUnfinished();
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => service.onAccountDeleted(account));
    const users = ctx.services.get('users');
    users.addDeletionGuard({ blockers: (account) => service.deletionBlockers(account) });
    // A private organization is seen by its members; a private user by the users sharing an organization with them.
    service.witness = users.addVisibilityWitness((account, viewerId) => service.sharesOrg(account, viewerId), (ids, viewerId) => service.usersSharingOrg(ids, viewerId), { reportsChanges: true });
    return service;
  },
  routes: [
    {
      operationId: 'orgCreate', summary: 'Create an organization', scope: 'organization',
      method: 'POST', path: '/orgs', auth: 'user', body: 'json', handler: h.createOrg,
      schema: { body: createOrgBody, response: { 201: ref('forgekit/Organization') } },
    },
    {
      operationId: 'adminCreateOrg', summary: 'Create an organization', scope: 'admin',
      method: 'POST', path: '/admin/users/:username/orgs', auth: 'admin', body: 'json', handler: h.adminCreateOrg,
      schema: { params: userParams, body: createOrgBody, response: { 201: ref('forgekit/Organization') } },
    },
    {
      operationId: 'orgGetAll', summary: 'Get list of organizations', scope: 'organization',
      method: 'GET', path: '/orgs', auth: 'optional', handler: h.listAllOrgs,
      schema: { querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      operationId: 'orgEdit', summary: 'Edit an organization', scope: 'organization',
      method: 'PATCH', path: '/orgs/:org', auth: 'user', body: 'json', handler: h.editOrg,
      schema: { params: orgParams, body: editOrgBody, response: { 200: ref('forgekit/Organization') } },
    },
    {
      operationId: 'orgGetUserPermissions', summary: 'Get user permissions in organization', scope: 'organization',
      method: 'GET', path: '/users/:username/orgs/:org/permissions', auth: 'optional', handler: h.getUserOrgPermissions,
      schema: { params: userOrgParams, response: { 200: ref('forgekit/OrganizationPermissions') } },
    },
    {
      operationId: 'teamSearch', summary: 'Search for teams within an organization', scope: 'organization',
      method: 'GET', path: '/orgs/:org/teams/search', auth: 'user', handler: h.searchTeams,
      schema: { params: orgParams, querystring: teamSearchQuery, response: { 200: ref('forgekit/TeamSearchResults') } },
    },
    {
      operationId: 'orgEditTeam', summary: 'Edit a team', scope: 'organization',
      method: 'PATCH', path: '/teams/:id', auth: 'user', body: 'json', handler: h.editTeam,
      schema: { params: teamParams, body: editTeamBody, response: { 200: ref('forgekit/Team') } },
    },
    {
      operationId: 'orgListTeamMember', summary: 'List a particular member of team', scope: 'organization',
      method: 'GET', path: '/teams/:id/members/:username', auth: 'user', handler: h.getTeamMember,
      schema: { params: teamUserParams, response: { 200: ref('forgekit/User') } },
    },
    {
      operationId: 'orgListPublicMembers', summary: 'List an organization\'s public members', scope: 'organization',
      method: 'GET', path: '/orgs/:org/public_members', auth: 'optional', handler: h.listPublicMembers,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      operationId: 'orgIsPublicMember', summary: 'Check if a user is a public member of an organization', scope: 'organization',
      method: 'GET', path: '/orgs/:org/public_members/:username', auth: 'optional', handler: h.checkPublicMember,
      schema: { params: orgUserParams },
    },
    {
      operationId: 'orgPublicizeMember', summary: 'Publicize a user\'s membership', scope: 'organization',
      method: 'PUT', path: '/orgs/:org/public_members/:username', auth: 'user', handler: h.publicizeMember,
      schema: { params: orgUserParams },
    },
    {
      operationId: 'orgConcealMember', summary: 'Conceal a user\'s membership', scope: 'organization',
      method: 'DELETE', path: '/orgs/:org/public_members/:username', auth: 'user', handler: h.concealMember,
      schema: { params: orgUserParams },
    },
    {
      operationId: 'orgUpdateAvatar', summary: 'Update an organization\'s avatar (base64 PNG, JPEG, GIF or WebP)', scope: 'organization',
      // gitea-js sends the UpdateUserAvatarOption untyped: JSON taken as text/plain or untyped too.
      method: 'POST', path: '/orgs/:org/avatar', auth: 'user', body: 'json', textPlainJson: true,
      // base64 takes 4 bytes per 3 of the 1 MiB image; the decoded size is checked by the users service.
      bodyLimit: Math.ceil((1024 * 1024 * 4) / 3) + 4096, handler: h.updateOrgAvatar,
      schema: { params: orgParams, body: { type: 'object', properties: { image: { type: 'string', minLength: 1 } }, required: ['image'] } },
    },
    {
      operationId: 'orgDeleteAvatar', summary: 'Delete an organization\'s avatar (back to the generated one)', scope: 'organization',
      method: 'DELETE', path: '/orgs/:org/avatar', auth: 'user', handler: h.deleteOrgAvatar,
      schema: { params: orgParams },
    },
    {
      operationId: 'orgGet', summary: 'Get an organization', scope: 'organization',
      method: 'GET', path: '/orgs/:org', auth: 'optional', handler: h.getOrg,
      schema: { params: orgParams, response: { 200: ref('forgekit/Organization') } },
    },
    {
      operationId: 'orgDelete', summary: 'Delete an organization', scope: 'organization',
      method: 'DELETE', path: '/orgs/:org', auth: 'user', handler: h.deleteOrg,
      schema: { params: orgParams },
    },
    {
      operationId: 'orgListCurrentUserOrgs', summary: 'List the current user\'s organizations', scope: 'organization',
      method: 'GET', path: '/user/orgs', auth: 'user', handler: h.listMyOrgs,
      schema: { querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      // Gitea registers it in the /user group: the user scope category.
      operationId: 'userListTeams', summary: 'List all the teams a user belongs to', scope: 'user',
      method: 'GET', path: '/user/teams', auth: 'user', handler: h.listMyTeams,
      schema: { querystring: list, response: { 200: ref('forgekit/TeamList') } },
    },
    {
      operationId: 'orgListUserOrgs', summary: 'List a user\'s organizations', scope: 'organization',
      method: 'GET', path: '/users/:username/orgs', auth: 'optional', handler: h.listUserOrgs,
      schema: { params: userParams, querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      operationId: 'orgListTeams', summary: 'List an organization\'s teams', scope: 'organization',
      method: 'GET', path: '/orgs/:org/teams', auth: 'user', handler: h.listTeams,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/TeamList') } },
    },
    {
      operationId: 'orgCreateTeam', summary: 'Create a team', scope: 'organization',
      method: 'POST', path: '/orgs/:org/teams', auth: 'user', body: 'json', handler: h.createTeam,
      schema: { params: orgParams, body: createTeamBody, response: { 201: ref('forgekit/Team') } },
    },
    {
      operationId: 'orgGetTeam', summary: 'Get a team', scope: 'organization',
      method: 'GET', path: '/teams/:id', auth: 'user', handler: h.getTeam,
      schema: { params: teamParams, response: { 200: ref('forgekit/Team') } },
    },
    {
      operationId: 'orgDeleteTeam', summary: 'Delete a team', scope: 'organization',
      method: 'DELETE', path: '/teams/:id', auth: 'user', handler: h.deleteTeam,
      schema: { params: teamParams },
    },
    {
      operationId: 'orgListTeamMembers', summary: 'List a team\'s members', scope: 'organization',
      method: 'GET', path: '/teams/:id/members', auth: 'user', handler: h.listTeamMembers,
      schema: { params: teamParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      operationId: 'orgAddTeamMember', summary: 'Add a team member', scope: 'organization',
      method: 'PUT', path: '/teams/:id/members/:username', auth: 'user', handler: h.addTeamMember,
      schema: { params: teamUserParams },
    },
    {
      operationId: 'orgRemoveTeamMember', summary: 'Remove a team member', scope: 'organization',
      method: 'DELETE', path: '/teams/:id/members/:username', auth: 'user', handler: h.removeTeamMember,
      schema: { params: teamUserParams },
    },
    {
      operationId: 'orgListMembers', summary: 'List an organization\'s members', scope: 'organization',
      method: 'GET', path: '/orgs/:org/members', auth: 'optional', handler: h.listOrgMembers,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      operationId: 'orgIsMember', summary: 'Check if a user is a member of an organization', scope: 'organization',
      method: 'GET', path: '/orgs/:org/members/:username', auth: 'optional', handler: h.checkOrgMember,
      schema: { params: orgUserParams },
    },
    {
      operationId: 'orgDeleteMember', summary: 'Remove a member from an organization', scope: 'organization',
      method: 'DELETE', path: '/orgs/:org/members/:username', auth: 'user', handler: h.removeOrgMember,
      schema: { params: orgUserParams },
    },
    // Site administration (the auth engineer's, issue 14): every organization, whatever its visibility.
    {
      operationId: 'adminGetAllOrgs', summary: 'List all organizations', scope: 'admin',
      method: 'GET', path: '/admin/orgs', auth: 'admin', handler: adminListAllOrgs,
      schema: { querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
  ],
});
