// The orgs service keeps each user's teams and organizations (every signed-in access check asks for them) until a
// membership or team changes: repeated requests read no membership row, and every change — a member added or removed,
// a team's permission or includes_all_repositories changed, a team deleted, a member leaving the organization, the
// organization deleted — decides the very next request. A probe counts the service's membership reads per user.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import type { Filter } from '../../core/store/port.js';
import { startForge, expectStatus } from '../helpers/forge.js';

const ok = expectStatus;

/** Counts `find`s of the orgs service's membership rows by user (what the kept teams spare). */
function membershipReadsProbe() {
  const reads: number[] = [];
  const plugin = definePlugin({
    name: 'membership-reads-probe',
    dependencies: ['orgs'],
    start(ctx) {
      const members = (ctx.services.get('orgs') as unknown as { members: { find: (f: Filter, o?: unknown) => Promise<unknown[]> } }).members;
      const find = members.find.bind(members);
      members.find = (filter: Filter, options?: unknown) => {
        if (typeof filter.userId === 'number' && Object.keys(filter).length === 1) reads.push(filter.userId);
        return find(filter, options);
      };
    },
  });
  return { reads, plugin };
}

t.test('kept teams: no membership read per request, every change seen by the next request', async (t) => {
  const { reads, plugin } = membershipReadsProbe();
  const f = await startForge({ extraPlugins: [plugin] });
  t.teardown(() => f.close());
  const boss = await f.createUser({ username: 'tk-boss' });
  const dev = await f.createUser({ username: 'tk-dev' });
  const devId = (await f.request('GET', '/user', { token: dev.token })).json.id as number;
  await ok(f.request('POST', '/orgs', { token: boss.token, json: { username: 'tk-org' } }), 201);
  await ok(f.request('POST', '/org/tk-org/repos', { token: boss.token, json: { name: 'secret', private: true } }), 201);
  const team = await f.request('POST', '/orgs/tk-org/teams', { token: boss.token, json: { name: 'Devs', permission: 'read', includes_all_repositories: true } });
  t.equal(team.status, 201);
  const teamId = team.json.id as number;

  const devReads = async (path: string) => (await f.request('GET', path, { token: dev.token })).status;
  const readsOfDev = () => {
    const n = reads.filter((id) => id === devId).length;
    reads.length = 0;
    return n;
  };
  const canPush = async () => (await f.request('GET', '/repos/tk-org/secret', { token: dev.token })).json.permissions?.push;

  t.equal(await devReads('/repos/tk-org/secret'), 404, 'not a member: the private repository does not exist');
  await ok(f.request('PUT', `/teams/${teamId}/members/tk-dev`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 200, 'a member of an all-repositories team reads it at once');
  readsOfDev();
  for (let i = 0; i < 3; i++) t.equal(await devReads('/repos/tk-org/secret'), 200);
  t.same((await f.request('GET', '/user/orgs', { token: dev.token })).json.map((o: any) => o.username), ['tk-org']);
  t.equal(readsOfDev(), 0, 'repeated requests read no membership row');

  t.equal(await canPush(), false, 'read permission');
  // (Without units or units_map Gitea keeps each unit's mode: only admin raises them all.)
  await ok(f.request('PATCH', `/teams/${teamId}`, { token: boss.token, json: { name: 'Devs', permission: 'admin', includes_all_repositories: true } }), 200);
  t.equal(await canPush(), true, 'the team\'s permission raised: seen by the next request');
  await ok(f.request('PATCH', `/teams/${teamId}`, { token: boss.token, json: { name: 'Devs', permission: 'write', includes_all_repositories: false } }), 200);
  t.equal(await devReads('/repos/tk-org/secret'), 404, 'no longer all repositories, and the repository not listed: gone at once');
  await ok(f.request('PUT', `/teams/${teamId}/repos/tk-org/secret`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 200, 'the repository added to the team');

  await ok(f.request('DELETE', `/teams/${teamId}/members/tk-dev`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 404, 'removed from the team: gone at once');
  t.same((await f.request('GET', '/user/orgs', { token: dev.token })).json, [], 'and no longer a member');
  await ok(f.request('PUT', `/teams/${teamId}/members/tk-dev`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 200);
  await ok(f.request('DELETE', '/orgs/tk-org/members/tk-dev', { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 404, 'removed from the organization: gone at once');
  await ok(f.request('PUT', `/teams/${teamId}/members/tk-dev`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 200);
  await ok(f.request('DELETE', `/teams/${teamId}`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 404, 'the team deleted: gone at once');
  t.same((await f.request('GET', '/user/orgs', { token: dev.token })).json, []);

  // A new team on the same organization, then the organization deleted.
  const again = await f.request('POST', '/orgs/tk-org/teams', { token: boss.token, json: { name: 'Again', permission: 'admin', includes_all_repositories: true } });
  await ok(f.request('PUT', `/teams/${again.json.id}/members/tk-dev`, { token: boss.token }), 204);
  t.equal(await devReads('/repos/tk-org/secret'), 200, 'member of the new team');
  await ok(f.request('DELETE', '/repos/tk-org/secret', { token: boss.token }), 204);
  await ok(f.request('DELETE', '/orgs/tk-org', { token: boss.token }), 204);
  t.same((await f.request('GET', '/user/orgs', { token: dev.token })).json, [], 'the organization deleted: no longer listed');
});
