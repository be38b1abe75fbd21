// Plugin `orgs`: organizations (accounts of type org, kept by `users`), their teams and team membership.
import { definePlugin } from '../../core/plugin.js';
import { idParam, listQuery, nameParam, paramsSchema } from '../../schemas/common.js';
import { RESOURCE_SCHEMAS, ref } from '../../schemas/resources.js';
import { ACCOUNT_DELETED, type Account, type OrgsService } from '../../schemas/services.js';
import * as h from './handlers.js';
import { OrganizationListSchema, OrganizationSchema, TeamListSchema, TeamSchema, createOrgBody, createTeamBody } from './schemas.js';
import { Orgs, TEAMS, TEAM_MEMBERS } from './service.js';

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
  ],
  start(ctx) {
    const service = new Orgs(ctx);
    ctx.events.on(ACCOUNT_DELETED, ({ account }: { account: Account }) => service.onAccountDeleted(account));
    ctx.services.get('users').addDeletionGuard({ blockers: (account) => service.deletionBlockers(account) });
    return service;
  },
  routes: [
    {
      method: 'POST', path: '/orgs', auth: 'user', body: 'json', handler: h.createOrg,
      schema: { body: createOrgBody, response: { 201: ref('forgekit/Organization') } },
    },
    {
      method: 'POST', path: '/admin/users/:username/orgs', auth: 'admin', body: 'json', handler: h.adminCreateOrg,
      schema: { params: userParams, body: createOrgBody, response: { 201: ref('forgekit/Organization') } },
    },
    {
      method: 'GET', path: '/orgs/:org', auth: 'optional', handler: h.getOrg,
      schema: { params: orgParams, response: { 200: ref('forgekit/Organization') } },
    },
    {
      method: 'DELETE', path: '/orgs/:org', auth: 'user', handler: h.deleteOrg,
      schema: { params: orgParams },
    },
    {
      method: 'GET', path: '/user/orgs', auth: 'user', handler: h.listMyOrgs,
      schema: { querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      method: 'GET', path: '/users/:username/orgs', auth: 'optional', handler: h.listUserOrgs,
      schema: { params: userParams, querystring: list, response: { 200: ref('forgekit/OrganizationList') } },
    },
    {
      method: 'GET', path: '/orgs/:org/teams', auth: 'user', handler: h.listTeams,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/TeamList') } },
    },
    {
      method: 'POST', path: '/orgs/:org/teams', auth: 'user', body: 'json', handler: h.createTeam,
      schema: { params: orgParams, body: createTeamBody, response: { 201: ref('forgekit/Team') } },
    },
    {
      method: 'GET', path: '/teams/:id', auth: 'user', handler: h.getTeam,
      schema: { params: teamParams, response: { 200: ref('forgekit/Team') } },
    },
    {
      method: 'DELETE', path: '/teams/:id', auth: 'user', handler: h.deleteTeam,
      schema: { params: teamParams },
    },
    {
      method: 'GET', path: '/teams/:id/members', auth: 'user', handler: h.listTeamMembers,
      schema: { params: teamParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      method: 'PUT', path: '/teams/:id/members/:username', auth: 'user', handler: h.addTeamMember,
      schema: { params: teamUserParams },
    },
    {
      method: 'DELETE', path: '/teams/:id/members/:username', auth: 'user', handler: h.removeTeamMember,
      schema: { params: teamUserParams },
    },
    {
      method: 'GET', path: '/orgs/:org/members', auth: 'optional', handler: h.listOrgMembers,
      schema: { params: orgParams, querystring: list, response: { 200: ref('forgekit/UserList') } },
    },
    {
      method: 'GET', path: '/orgs/:org/members/:username', auth: 'optional', handler: h.checkOrgMember,
      schema: { params: orgUserParams },
    },
    {
      method: 'DELETE', path: '/orgs/:org/members/:username', auth: 'user', handler: h.removeOrgMember,
      schema: { params: orgUserParams },
    },
  ],
});
