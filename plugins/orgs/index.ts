// Plugin `orgs`: organizations (accounts of type org, kept by `users`), their teams and team membership.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { RESOURCE_SCHEMAS, ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED, type OrgsService } from '../../schemas/services.js';
import * as h from './handlers.js';
import { listAllOrgs } from './admin.js';
import { OrganizationListSchema, OrganizationSchema, TeamListSchema, TeamSchema, createOrgBody, createTeamBody } from './schemas.js';
import { Orgs, ORG_INTENTS, TEAMS, TEAM_MEMBERS } from './service.js';

const orgParams = paramsSchema({ org: nameParam });
const teamParams = paramsSchema({ id: idParam });
const teamUserParams = paramsSchema({ id: idParam, username: nameParam });
const orgUserParams = paramsSchema({ org: nameParam, username: nameParam });
const userParams = paramsSchema({ username: nameParam });
const list = listQuery();

export default definePlugin<OrgsService>({
  name: 'orgs',
  dependencies: ['users'],
  schemas: [...RESOURCE_SCHEMAS, OrganizationSchema, OrganizationListSchema, TeamSchema, TeamListSchema],
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
  ],
  async start(ctx) {
    const service = new Orgs(ctx);
    await service.finishUnfinished();
    ctx.events.on(ACCOUNT_DELETED, ({ account }) => service.onAccountDeleted(account));
    ctx.services.get('users').addDeletionGuard({ blockers: (account) => service.deletionBlockers(account) });
    return service;
  },
  routes: [
    {
      operationId: 'orgCreate', summary: 'Create an organization',
      scope: 'organization', method: 'POST', path: '/orgs', auth: 'user', body: 'json', handler: h.createOrg,
      schema: { body: createOrgBody, response: { 201: ref('forgekit/Organization') } },
    },
    {
      operationId: 'adminCreateOrg', summary: 'Create an organization',
      scope: 'admin', method: 'POST', path: '/admin/users/:username/orgs', auth: 'admin', body: 'json', handler: h.adminCreateOrg,
      schema: { params: userParams, body: createOrgBody, response: { 201: ref('forgekit/Organization') } },
    },
    {
      operationId: 'orgGet', summary: 'Get an organization',
      scope: 'organization', method: 'GET', path: '/orgs/:org', auth: 'optional', handler: h.getOrg,
      schema: { params: orgParams, response: { 200: ref('forgekit/Organization') } },
    },
    {
      operationId: 'orgDelete', summary: 'Delete an organization',
      scope: 'organization', method: 'DELETE', path: '/orgs/:org', auth: 'user', handler: h.deleteOrg,
      schema: { params: orgParams },
    },
    {
      operationId: 'orgListCurrentUserOrgs', summary: 'List the current user\'s organizations',
      scope: ['user', 'organization'] as const, method: 'GET', path: '/user/orgs', auth: 'user', handler: h.listMyOrgs,
      schema: { querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      operationId: 'orgListUserOrgs', summary: 'List a user\'s organizations',
      scope: ['user', 'organization'] as const, method: 'GET', path: '/users/:username/orgs', auth: 'optional', handler: h.listUserOrgs,
      schema: { params: userParams, querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      operationId: 'orgListTeams', summary: 'List an organization\'s teams',
      scope: 'organization', method: 'GET', path: '/orgs/:org/teams', auth: 'user', handler: h.listTeams,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/TeamList') } },
    },
    {
      operationId: 'orgCreateTeam', summary: 'Create a team',
      scope: 'organization', method: 'POST', path: '/orgs/:org/teams', auth: 'user', body: 'json', handler: h.createTeam,
      schema: { params: orgParams, body: createTeamBody, response: { 201: ref('forgekit/Team') } },
    },
    {
      operationId: 'orgGetTeam', summary: 'Get a team',
      scope: 'organization', method: 'GET', path: '/teams/:id', auth: 'user', handler: h.getTeam,
      schema: { params: teamParams, response: { 200: ref('forgekit/Team') } },
    },
    {
      operationId: 'orgDeleteTeam', summary: 'Delete a team',
      scope: 'organization', method: 'DELETE', path: '/teams/:id', auth: 'user', handler: h.deleteTeam,
      schema: { params: teamParams },
    },
    {
      operationId: 'orgListTeamMembers', summary: 'List a team\'s members',
      scope: 'organization', method: 'GET', path: '/teams/:id/members', auth: 'user', handler: h.listTeamMembers,
      schema: { params: teamParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      operationId: 'orgAddTeamMember', summary: 'Add a team member',
      scope: 'organization', method: 'PUT', path: '/teams/:id/members/:username', auth: 'user', handler: h.addTeamMember,
      schema: { params: teamUserParams },
    },
    {
      operationId: 'orgRemoveTeamMember', summary: 'Remove a team member',
      scope: 'organization', method: 'DELETE', path: '/teams/:id/members/:username', auth: 'user', handler: h.removeTeamMember,
      schema: { params: teamUserParams },
    },
    {
      operationId: 'orgListMembers', summary: 'List an organization\'s members',
      scope: 'organization', method: 'GET', path: '/orgs/:org/members', auth: 'optional', handler: h.listOrgMembers,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      operationId: 'orgIsMember', summary: 'Check if a user is a member of an organization',
      scope: 'organization', method: 'GET', path: '/orgs/:org/members/:username', auth: 'optional', handler: h.checkOrgMember,
      schema: { params: orgUserParams },
    },
    {
      operationId: 'orgDeleteMember', summary: 'Remove a member from an organization',
      scope: 'organization', method: 'DELETE', path: '/orgs/:org/members/:username', auth: 'user', handler: h.removeOrgMember,
      schema: { params: orgUserParams },
    },
    // Site administration (the auth engineer's, issue 14): every organization, whatever its visibility.
    {
      operationId: 'adminGetAllOrgs', summary: 'List all organizations', scope: 'admin',
      method: 'GET', path: '/admin/orgs', auth: 'admin', handler: listAllOrgs,
      schema: { querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
  ],
});
