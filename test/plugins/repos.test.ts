// repos plugin through HTTP: create (user and org), read, edit, delete, collaborators, team repositories, lists,
// the Repository resource, fork links and the storage capability contract.
import t from 'tap';
import { startForge, type TestForge } from '../helpers/forge.js';
import { builtinPlugins } from '../../plugins/index.js';
import { definePlugin, type Plugin } from '../../core/plugin.js';
import {
  REPO_CREATED, REPO_DELETED, REPO_UPDATED,
  type RepoInitOptions, type RepoRecord, type RepoStorageProvider,
} from '../../schemas/services.js';
import { REPO_SETTING_NAMES } from '../../schemas/resources.js';
import { nextSecondAfter } from '../helpers/wait.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const REPO_KEYS = ['clone_url', 'created_at', 'default_branch', 'description', 'empty', 'fork', 'forks_count', 'full_name',
  'html_url', 'id', 'mirror', 'name', 'open_issues_count', 'owner', 'parent', 'permissions', 'private', 'size', 'ssh_url',
  'stars_count', 'updated_at', 'watchers_count', 'website', ...REPO_SETTING_NAMES, 'template', 'language', 'languages_url', 'url',
  'link', 'original_url', 'open_pr_counter', 'release_counter', 'archived', 'archived_at', 'avatar_url', 'internal',
  'mirror_interval', 'object_format_name', 'topics', 'licenses'].sort();

/** rel → URL of a Link header. */
function links(header: string | null): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>;\s*rel="(\w+)"/.exec(part);
    if (m) out[m[2]!] = new URL(m[1]!);
  }
  return out;
}

interface ProbeEvent { event: string; repoId: number; name: string; ownerId: number | null; creatorId?: number | null; beforePrivate?: boolean }

/** Test-only plugin: records repository events and forks through ReposService.create, the way the git plugin does. */
function reposProbe(storage?: RepoStorageProvider): { plugin: Plugin<unknown>; events: ProbeEvent[] } {
  const events: ProbeEvent[] = [];
  const plugin = definePlugin({
    name: 'repos-probe',
    dependencies: ['repos', 'users'],
    // Starts after a git storage plugin when there is one, so a fake storage set here wins.
    optionalDependencies: ['git'],
    start(ctx) {
      ctx.events.on(REPO_CREATED, (p: any) => { events.push({ event: REPO_CREATED, repoId: p.repo.id, name: p.repo.name, ownerId: p.owner?.id ?? null, creatorId: p.creatorId }); });
      ctx.events.on(REPO_DELETED, (p: any) => { events.push({ event: REPO_DELETED, repoId: p.repo.id, name: p.repo.name, ownerId: p.owner?.id ?? null }); });
      ctx.events.on(REPO_UPDATED, (p: any) => { events.push({ event: REPO_UPDATED, repoId: p.repo.id, name: p.repo.name, ownerId: p.repo.ownerId, beforePrivate: p.before.private }); });
      if (storage) ctx.services.get('repos').setStorage(storage);
    },
    routes: [{
      method: 'POST', path: '/probe/forks/:owner/:repo', auth: 'user', body: 'json', bodyOptional: true,
      async handler(rc) {
        const repos = rc.app.services.get('repos');
        const users = rc.app.services.get('users');
        const { repo } = await repos.resolve(rc.caller, rc.params.owner, rc.params.repo);
        const target = rc.body?.organization ? await users.byName(rc.body.organization) : await users.byId(rc.caller!.id);
        const fork = await repos.create(target!, {
          name: rc.body?.name ?? repo.name, description: repo.description, private: repo.private, fork: true, forkId: repo.id,
        }, rc.caller);
        return { status: 202, body: (await repos.toApi([fork], rc.caller))[0] };
      },
    }],
  });
  return { plugin, events };
}

/** The storage plugins (and whatever needs them) to switch off for a forge that must run without storage. */
function storagePlugins(): string[] {
  const off = new Set(builtinPlugins.filter((p) => p.name === 'git').map((p) => p.name));
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of builtinPlugins) {
      if (!off.has(p.name) && (p.dependencies ?? []).some((d) => off.has(d))) {
        off.add(p.name);
        grew = true;
      }
    }
  }
  return [...off];
}

t.test('repositories', async (t) => {
  const probe = reposProbe();
  const f = await startForge({ extraPlugins: [probe.plugin], disabledPlugins: storagePlugins() });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const carol = await f.createUser({ username: 'carol' });
  const dave = await f.createUser({ username: 'dave' });

  t.test('POST /user/repos → 201 Repository', async (t) => {
    const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'Hello', description: 'Hi there' } });
    t.equal(res.status, 201);
    const r = res.json;
    t.same(Object.keys(r).sort(), REPO_KEYS, 'exactly the spec fields and the settings');
    t.match(r, {
      id: Number, name: 'Hello', full_name: 'alice/Hello', description: 'Hi there', empty: true, private: false, fork: false,
      parent: null, mirror: false, size: 0, html_url: `${f.url}/alice/Hello`, clone_url: `${f.url}/alice/Hello.git`,
      ssh_url: 'git@127.0.0.1:alice/Hello.git', website: '', stars_count: 0, forks_count: 0, open_issues_count: 0,
      default_branch: 'master', permissions: { admin: true, push: true, pull: true },
    });
    t.match(r.owner, { id: alice.id, login: 'alice', full_name: '', email: alice.email, avatar_url: r.owner.avatar_url, username: 'alice' });
    t.match(r.created_at, RFC3339);
    t.match(r.updated_at, RFC3339);
    t.ok(Math.abs(Date.parse(r.created_at) - Date.now()) < 60_000, 'a real timestamp');
    t.equal(typeof r.watchers_count, 'number');
    const created = probe.events.find((e) => e.event === REPO_CREATED && e.repoId === r.id);
    t.same(created, { event: REPO_CREATED, repoId: r.id, name: 'Hello', ownerId: alice.id, creatorId: alice.id }, 'repo.created emitted');
    const get = await f.request('GET', '/repos/alice/Hello');
    t.same(get.json, { ...r, owner: { ...r.owner, email: '' }, permissions: { admin: false, push: false, pull: true } }, 'GET reads the stored document back');

    const priv = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'secret', private: true, auto_init: true } });
    t.equal(priv.status, 201);
    t.equal(priv.json.private, true);
  });

  t.test('POST /user/repos: validation, conflicts, auth', async (t) => {
    const post = (json: unknown, token: string | null = alice.token) => f.request('POST', '/user/repos', { token: token ?? undefined, json });
    t.equal((await post({ name: 'x' }, null)).status, 401);
    const missing = await post({ description: 'no name' });
    t.equal(missing.status, 422);
    t.match(missing.json.message, /name/);
    for (const name of ['', '.', '..', 'a b', 'a/b', 'x.git', 'X.Git', 'y.wiki', 'n'.repeat(101), 'ümlaut', '%', '*']) {
      const res = await post({ name });
      t.equal(res.status, 422, `name ${JSON.stringify(name)}`);
      t.match(res.json.message, /name/);
    }
    t.equal((await post({ name: 'n'.repeat(100) })).status, 201, '100 characters is fine');
    t.equal((await post({ name: 'desc', description: 'd'.repeat(256) })).status, 422, 'description over 255');
    t.equal((await post({ name: 'desc2', description: 'é'.repeat(255) })).status, 201, '255 characters (not bytes)');
    t.equal((await post({ name: 1 })).status, 422, 'name must be a string');
    t.equal((await post({ name: 'x', private: 'yes' })).status, 422, 'private must be a boolean');
    const dup = await post({ name: 'HELLO' });
    t.equal(dup.status, 409, 'duplicate, case-insensitive');
    t.match(dup.json, { message: /exists/, url: String });
    t.equal((await post({ name: 'hello' }, bob.token)).status, 201, 'names are per owner');
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, body: '{"name":', headers: { 'Content-Type': 'application/json' } })).status, 400);
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, body: 'name=x' })).status, 415);
    t.equal((await post({ NAME: 'CaseKeys' })).status, 201, 'body keys match case-insensitively');
    const racing = await Promise.all(['Race', 'race', 'RACE', 'rAcE', 'racE'].map((name) => post({ name })));
    t.same(racing.map((r) => r.status).sort(), [201, 409, 409, 409, 409], 'concurrent creates of one name: one wins');
    t.equal((await f.request('GET', '/repos/search?q=race')).headers.get('x-total-count'), '1', 'and one index entry');
  });

  t.test('POST /org/{org}/repos', async (t) => {
    t.equal((await f.request('POST', '/orgs', { token: alice.token, json: { username: 'team-a' } })).status, 201);
    const created = await f.request('POST', '/org/team-a/repos', { token: alice.token, json: { name: 'Tool', private: true } });
    t.equal(created.status, 201);
    t.equal(created.json.full_name, 'team-a/Tool');
    t.equal(created.json.owner.login, 'team-a');
    t.same(created.json.permissions, { admin: true, push: true, pull: true }, 'org owners are owners');
    t.equal(probe.events.find((e) => e.repoId === created.json.id)?.creatorId, alice.id, 'creator recorded');
    t.equal((await f.request('POST', '/orgs/TEAM-A/repos', { token: alice.token, json: { name: 'Other' } })).status, 201, '/orgs alias');
    t.equal((await f.request('POST', '/org/team-a/repos', { token: alice.token, json: { name: 'tool' } })).status, 409);
    const unknown = await f.request('POST', '/org/no-such-org/repos', { token: alice.token, json: { name: 'x' } });
    t.equal(unknown.status, 422, 'unknown organization');
    t.match(unknown.json.message, /organization/);
    t.equal((await f.request('POST', '/org/bob/repos', { token: bob.token, json: { name: 'x' } })).status, 422, 'a user is not an organization');
    const teams = (await f.request('GET', '/orgs/team-a/teams', { token: alice.token })).json;
    const devs = await f.request('POST', '/orgs/team-a/teams', { token: alice.token, json: { name: 'Devs', permission: 'admin', includes_all_repositories: true } });
    await f.request('PUT', `/teams/${devs.json.id}/members/bob`, { token: alice.token });
    t.ok(teams.length > 0);
    const notOwner = await f.request('POST', '/org/team-a/repos', { token: bob.token, json: { name: 'x' } });
    t.equal(notOwner.status, 403, 'a member who is not an owner');
    t.match(notOwner.json, { message: String, url: String });
    t.equal((await f.request('POST', '/org/team-a/repos', { token: carol.token, json: { name: 'x' } })).status, 403, 'a stranger');
    t.equal((await f.request('POST', '/org/team-a/repos', { json: { name: 'x' } })).status, 401);
    t.equal((await f.request('POST', '/org/team-a/repos', { token: alice.token, json: { name: 'bad.git' } })).status, 422);
    t.equal((await f.request('POST', '/org/team-a/repos', { token: f.admin.token, json: { name: 'ByAdmin' } })).status, 201, 'site admins may create in any organization');
  });

  t.test('GET /repos/{owner}/{repo}', async (t) => {
    const res = await f.request('GET', '/repos/ALICE/hello');
    t.equal(res.status, 200, 'case-insensitive owner and name');
    t.equal(res.json.name, 'Hello');
    for (const path of ['/repos/alice/nope', '/repos/nobody-here/hello', '/repos/alice/secret']) {
      const miss = await f.request('GET', path);
      t.equal(miss.status, 404, path);
      t.match(miss.json, { message: "The target couldn't be found.", url: String }, 'one fixed message: missing and private read the same');
    }
    t.equal((await f.request('GET', '/repos/alice/secret', { token: bob.token })).status, 404, 'private: 404 for a stranger, not 403');
    t.equal((await f.request('GET', '/repos/alice/SECRET', { token: alice.token })).status, 200);
    t.equal((await f.request('GET', '/repos/alice/secret', { token: f.admin.token })).json.permissions.admin, true, 'site admin');
    t.equal((await f.request('GET', '/repos/alice/hello', { token: 'f'.repeat(40) })).status, 401, 'bad credentials are a 401');
  });

  t.test('collaborators', async (t) => {
    const put = (user: string, json?: unknown, token = alice.token) =>
      f.request('PUT', `/repos/alice/secret/collaborators/${user}`, { token, ...(json === undefined ? {} : { json }) });
    t.equal((await put('bob')).status, 204, 'no body: write');
    t.equal((await put('carol', { permission: 'read' })).status, 204);
    t.equal((await put('carol', { permission: 'read' })).status, 204, 'idempotent');
    t.equal((await put('carol', { permission: 'owner' })).status, 422, 'unknown permission');
    t.equal((await put('nobody-here')).status, 422, 'unknown user');
    t.equal((await put('team-a')).status, 422, 'an organization');
    t.equal((await put('alice')).status, 422, 'the owner');
    t.equal((await put('dave', undefined, bob.token)).status, 403, 'write is not enough to manage collaborators');
    t.equal((await put('dave', undefined, dave.token)).status, 404, 'a stranger does not see the private repository');
    t.equal((await f.request('PUT', '/repos/alice/secret/collaborators/dave')).status, 401);

    t.equal((await f.request('GET', '/repos/alice/secret', { token: carol.token })).json.permissions.pull, true, 'the reader reads');
    t.same((await f.request('GET', '/repos/alice/secret', { token: carol.token })).json.permissions, { admin: false, push: false, pull: true });
    t.same((await f.request('GET', '/repos/alice/secret', { token: bob.token })).json.permissions, { admin: false, push: true, pull: true });

    const list = await f.request('GET', '/repos/alice/secret/collaborators', { token: bob.token });
    t.equal(list.status, 200, 'writers list collaborators');
    t.same(list.json.map((u: any) => u.login), ['bob', 'carol']);
    t.equal(list.headers.get('x-total-count'), '2');
    t.equal((await f.request('GET', '/repos/alice/secret/collaborators', { token: carol.token })).status, 403, 'readers do not');
    t.equal((await f.request('GET', '/repos/alice/secret/collaborators', { token: dave.token })).status, 404);
    t.equal((await f.request('GET', '/repos/alice/secret/collaborators')).status, 401);

    t.equal((await f.request('GET', '/repos/alice/secret/collaborators/CAROL', { token: alice.token })).status, 204);
    t.equal((await f.request('GET', '/repos/alice/secret/collaborators/dave', { token: alice.token })).status, 404);
    t.equal((await f.request('GET', '/repos/alice/secret/collaborators/nobody-here', { token: alice.token })).status, 404);
    t.equal((await f.request('GET', '/repos/alice/secret/collaborators/bob', { token: dave.token })).status, 404);

    t.equal((await put('bob', { permission: 'admin' })).status, 204, 'raise to admin');
    t.equal((await put('dave', undefined, bob.token)).status, 204, 'an admin collaborator manages collaborators');
    t.equal((await f.request('DELETE', '/repos/alice/secret/collaborators/dave', { token: bob.token })).status, 204);
    t.equal((await f.request('DELETE', '/repos/alice/secret/collaborators/dave', { token: bob.token })).status, 204, 'idempotent');
    t.equal((await f.request('GET', '/repos/alice/secret', { token: dave.token })).status, 404, 'access is gone');
    t.equal((await f.request('DELETE', '/repos/alice/secret/collaborators/bob', { token: carol.token })).status, 403);
    t.equal((await f.request('DELETE', '/repos/alice/secret/collaborators/nobody-here', { token: alice.token })).status, 422);
    t.equal((await f.request('DELETE', '/repos/alice/secret/collaborators/bob')).status, 401);
    t.equal((await put('bob', { permission: 'write' })).status, 204, 'lower again');
  });

  t.test('PATCH /repos/{owner}/{repo}: merge settings are stored, read back and checked together', async (t) => {
    const made = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'merge-flags' } });
    t.equal(made.status, 201);
    t.match(made.json, {
      allow_merge_commits: true, allow_rebase: true, allow_rebase_explicit: true, allow_squash_merge: true,
      allow_fast_forward_only_merge: true, allow_rebase_update: true, default_merge_style: 'merge',
      default_delete_branch_after_merge: false, has_issues: true, has_pull_requests: true, has_wiki: true,
    }, "Gitea's defaults for a new repository");
    const changed = await f.request('PATCH', '/repos/alice/merge-flags', {
      token: alice.token, json: { allow_merge_commits: false, allow_rebase: false, default_merge_style: 'squash', default_delete_branch_after_merge: true },
    });
    t.equal(changed.status, 200);
    t.match(changed.json, { allow_merge_commits: false, allow_rebase: false, allow_squash_merge: true, default_merge_style: 'squash', default_delete_branch_after_merge: true });
    const read = await f.request('GET', '/repos/alice/merge-flags');
    t.match(read.json, { allow_merge_commits: false, allow_rebase: false, default_merge_style: 'squash' }, 'stored');
    const list = await f.request('GET', '/repos/search?q=merge-flags');
    t.match(list.json.data[0], { allow_merge_commits: false, default_merge_style: 'squash' }, 'lists show the stored settings too');
    const off = await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { allow_squash_merge: false } });
    t.equal(off.status, 422, 'the default merge style must stay allowed');
    t.match(off.json.message, /default_merge_style/);
    t.equal((await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { default_merge_style: 'octopus' } })).status, 422);
    t.equal((await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { allow_rebase: 'yes' } })).status, 422);
    t.equal((await f.request('GET', '/repos/alice/merge-flags')).json.allow_squash_merge, true, 'a refused PATCH changes nothing');
    t.equal((await f.request('PATCH', '/repos/alice/merge-flags', { token: bob.token, json: { allow_rebase: true } })).status, 403);
    const sameName = await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { name: 'merge-flags', description: 'named as before' } });
    t.equal(sameName.status, 200, 'the current name in the body (clients send the whole option) is accepted');
    t.equal(sameName.json.description, 'named as before');
    const renamed = await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { name: 'new-name', description: 'not this' } });
    t.equal(renamed.status, 422, 'renaming is refused, never a 200 that keeps the old name');
    t.match(renamed.json.message, /renaming a repository is not supported/);
    t.equal((await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { name: 'Merge-Flags' } })).status, 422, 'a case change is a rename too');
    t.equal((await f.request('GET', '/repos/alice/new-name')).status, 404);
    t.equal((await f.request('GET', '/repos/alice/merge-flags')).json.description, 'named as before', 'nothing of a refused PATCH is written');
    const archived = await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { archived: true, template: true } });
    t.match(archived.json, { archived: true, archived_at: String, template: true }, 'archived and template are stored');
    const unarchived = await f.request('PATCH', '/repos/alice/merge-flags', { token: alice.token, json: { archived: false } });
    t.match(unarchived.json, { archived: false, archived_at: null }, 'settings stay editable: unarchived');
    const made2 = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'on-main', default_branch: 'main', auto_init: true } });
    t.equal(made2.json.default_branch, 'main', 'default_branch honoured at creation');
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'sha', object_format_name: 'sha256' } })).status, 422, 'sha256 is refused, not silently sha1');
    t.equal((await f.request('DELETE', '/repos/alice/on-main', { token: alice.token })).status, 204);
    t.equal((await f.request('DELETE', '/repos/alice/merge-flags', { token: alice.token })).status, 204);
  });

  t.test('PATCH /repos/{owner}/{repo}', async (t) => {
    const before = (await f.request('GET', '/repos/alice/hello')).json;
    await nextSecondAfter(before.updated_at); // updated_at has second precision
    const res = await f.request('PATCH', '/repos/alice/hello', {
      token: alice.token, json: { description: 'Changed', website: 'https://hello.example', default_branch: 'main' },
    });
    t.equal(res.status, 200);
    t.match(res.json, { description: 'Changed', website: 'https://hello.example', default_branch: 'main', private: false });
    t.not(res.json.updated_at, before.updated_at, 'updated_at moves');
    t.equal(res.json.created_at, before.created_at);
    t.equal((await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: {} })).status, 200, 'nothing to change');
    t.equal((await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: { description: 'd'.repeat(256) } })).status, 422);
    t.equal((await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: { default_branch: 'a..b' } })).status, 422);
    t.equal((await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: { private: 'no' } })).status, 422);
    t.equal((await f.request('PATCH', '/repos/alice/hello', { token: bob.token, json: { description: 'x' } })).status, 403, 'read access on a public repository');
    t.equal((await f.request('PATCH', '/repos/alice/secret', { token: bob.token, json: { description: 'x' } })).status, 403, 'write collaborator');
    t.equal((await f.request('PATCH', '/repos/alice/secret', { token: dave.token, json: { description: 'x' } })).status, 404, 'stranger on a private repository');
    t.equal((await f.request('PATCH', '/repos/alice/hello', { json: { description: 'x' } })).status, 401);
    t.equal((await f.request('PATCH', '/repos/alice/nope', { token: alice.token, json: {} })).status, 404);

    await f.request('PUT', '/repos/alice/hello/collaborators/carol', { token: alice.token, json: { permission: 'admin' } });
    const hide = await f.request('PATCH', '/repos/alice/hello', { token: carol.token, json: { private: true } });
    t.equal(hide.status, 200, 'admin collaborators edit');
    t.equal(hide.json.private, true);
    const updated = probe.events.filter((e) => e.event === REPO_UPDATED && e.name === 'Hello').pop();
    t.match(updated, { beforePrivate: false }, 'repo.updated carries the previous state');
    t.equal((await f.request('GET', '/repos/alice/hello')).status, 404, 'now hidden from anonymous callers');
    t.same((await f.request('GET', '/repos/search?q=hello')).json.data.map((r: any) => r.full_name), ['bob/hello'], 'and from their search');
    t.equal((await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: { private: false } })).json.private, false);
    t.same((await f.request('GET', '/repos/search?q=hello')).json.data.map((r: any) => r.full_name), ['alice/Hello', 'bob/hello']);
    await f.request('DELETE', '/repos/alice/hello/collaborators/carol', { token: alice.token });
  });

  t.test('team repositories', async (t) => {
    // team-a: alice owns it; bob is in Devs (admin, all repositories).
    const readers = await f.request('POST', '/orgs/team-a/teams', { token: alice.token, json: { name: 'Readers', permission: 'read' } });
    const writers = await f.request('POST', '/orgs/team-a/teams', { token: alice.token, json: { name: 'Writers', permission: 'write' } });
    await f.request('PUT', `/teams/${readers.json.id}/members/carol`, { token: alice.token });
    await f.request('PUT', `/teams/${writers.json.id}/members/carol`, { token: alice.token });
    t.equal((await f.request('GET', '/repos/team-a/tool', { token: carol.token })).status, 404, 'membership alone grants nothing');
    t.same((await f.request('GET', `/teams/${readers.json.id}/repos`, { token: carol.token })).json, []);
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/team-a/tool`, { token: alice.token })).status, 204);
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/TEAM-A/TOOL`, { token: alice.token })).status, 204, 'idempotent');
    const read = await f.request('GET', '/repos/team-a/tool', { token: carol.token });
    t.equal(read.status, 200, 'the team grants read');
    t.same(read.json.permissions, { admin: false, push: false, pull: true });
    t.equal((await f.request('PUT', `/teams/${writers.json.id}/repos/team-a/tool`, { token: alice.token })).status, 204);
    t.same((await f.request('GET', '/repos/team-a/tool', { token: carol.token })).json.permissions, { admin: false, push: true, pull: true }, 'the highest team wins');
    const list = await f.request('GET', `/teams/${readers.json.id}/repos`, { token: carol.token });
    t.same(list.json.map((r: any) => r.full_name), ['team-a/Tool']);
    t.equal(list.headers.get('x-total-count'), '1');
    const all = await f.request('GET', `/teams/${(await f.request('GET', '/orgs/team-a/teams', { token: alice.token })).json.find((x: any) => x.name === 'Devs').id}/repos`, { token: bob.token });
    t.same(all.json.map((r: any) => r.name), ['ByAdmin', 'Other', 'Tool'], 'an all-repositories team lists every repository of the org');
    t.same((await f.request('GET', '/repos/team-a/tool', { token: bob.token })).json.permissions, { admin: true, push: true, pull: true }, 'and grants its mode on each');

    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/team-a/tool`, { token: carol.token })).status, 403, 'members do not manage teams');
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/team-a/tool`, { token: dave.token })).status, 404, 'the team is invisible to strangers');
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/alice/hello`, { token: alice.token })).status, 422, "a repository outside the team's organization");
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/team-a/nope`, { token: alice.token })).status, 404);
    t.equal((await f.request('PUT', `/teams/999999/repos/team-a/tool`, { token: alice.token })).status, 404);
    t.equal((await f.request('PUT', `/teams/${readers.json.id}/repos/team-a/tool`)).status, 401);
    t.equal((await f.request('GET', `/teams/${readers.json.id}/repos`, { token: dave.token })).status, 404);

    t.equal((await f.request('DELETE', `/teams/${writers.json.id}/repos/team-a/tool`, { token: alice.token })).status, 204);
    t.same((await f.request('GET', '/repos/team-a/tool', { token: carol.token })).json.permissions.push, false, 'back to read');
    t.equal((await f.request('DELETE', `/teams/${writers.json.id}/repos/team-a/tool`, { token: alice.token })).status, 204, 'idempotent');
    t.equal((await f.request('DELETE', `/teams/${readers.json.id}`, { token: alice.token })).status, 204);
    t.equal((await f.request('GET', '/repos/team-a/tool', { token: carol.token })).status, 404, "a deleted team's grants go with it");
  });

  t.test('lists: /user/repos and /users/{username}/repos', async (t) => {
    for (const name of ['list-c', 'list-a', 'List-B', 'list-d', 'list-e']) {
      await f.request('POST', '/user/repos', { token: dave.token, json: { name, private: name === 'list-d' } });
    }
    const mine = await f.request('GET', '/user/repos', { token: dave.token });
    t.equal(mine.status, 200);
    t.same(mine.json.map((r: any) => r.name), ['list-a', 'List-B', 'list-c', 'list-d', 'list-e'], 'name order, case-insensitive');
    t.equal(mine.headers.get('x-total-count'), '5');
    t.ok(mine.json.every((r: any) => r.permissions.admin), 'owner permissions');
    const page = await f.request('GET', '/user/repos?limit=2&page=2', { token: dave.token });
    t.same(page.json.map((r: any) => r.name), ['list-c', 'list-d']);
    const link = links(page.headers.get('link'));
    t.same(Object.keys(link).sort(), ['first', 'last', 'next', 'prev']);
    t.same([link.next, link.last, link.first, link.prev].map((u) => [u!.pathname, u!.searchParams.get('page'), u!.searchParams.get('limit')]),
      [['/api/v1/user/repos', '3', '2'], ['/api/v1/user/repos', '3', '2'], ['/api/v1/user/repos', '1', '2'], ['/api/v1/user/repos', '1', '2']]);
    t.equal((await f.request('GET', '/user/repos')).status, 401);
    t.equal((await f.request('GET', '/user/repos?page=x', { token: dave.token })).status, 422);

    const theirs = await f.request('GET', '/users/DAVE/repos?limit=3');
    t.equal(theirs.status, 200);
    t.same(theirs.json.map((r: any) => r.name), ['list-a', 'List-B', 'list-c'], 'anonymous: public ones only');
    t.equal(theirs.headers.get('x-total-count'), '4');
    t.ok(theirs.json.every((r: any) => r.permissions.pull && !r.permissions.push));
    const p2 = await f.request('GET', '/users/dave/repos?limit=3&page=2');
    t.same(p2.json.map((r: any) => r.name), ['list-e'], 'the private one is skipped, not counted');
    t.equal((await f.request('GET', '/users/dave/repos', { token: dave.token })).headers.get('x-total-count'), '5', 'self');
    t.equal((await f.request('GET', '/users/dave/repos', { token: f.admin.token })).headers.get('x-total-count'), '5', 'site admin');
    t.equal((await f.request('GET', '/users/nobody-here/repos')).status, 404);
    const org = await f.request('GET', '/orgs/team-a/repos', { token: bob.token });
    t.same(org.json.map((r: any) => r.name), ['ByAdmin', 'Other', 'Tool']);
    t.equal((await f.request('GET', '/orgs/alice/repos')).status, 404, 'a user is not an organization');

    const bobs = await f.request('GET', '/user/repos?limit=50', { token: bob.token });
    t.same(bobs.json.map((r: any) => r.full_name), ['team-a/ByAdmin', 'bob/hello', 'team-a/Other', 'alice/secret', 'team-a/Tool'],
      'own, all-repositories team and collaborations, in name order');
    t.same(bobs.json.find((r: any) => r.name === 'secret').permissions, { admin: false, push: true, pull: true }, 'with the real permissions');
    t.equal(bobs.headers.get('x-total-count'), '5');
  });

  t.test('forks: parent link, counts, deletion leaves forks standalone', async (t) => {
    const fork = await f.request('POST', '/probe/forks/alice/hello', { token: bob.token, json: { name: 'hello-fork' } });
    t.equal(fork.status, 202);
    t.match(fork.json, { fork: true, full_name: 'bob/hello-fork' });
    t.match(fork.json.parent, { full_name: 'alice/Hello', parent: null, forks_count: 1, permissions: { pull: true, push: false } });
    t.equal((await f.request('GET', '/repos/alice/hello')).json.forks_count, 1, 'forks_count is kept by the service');
    const fork2 = await f.request('POST', '/probe/forks/alice/hello', { token: carol.token });
    t.equal(fork2.status, 202);
    t.equal((await f.request('GET', '/repos/alice/hello')).json.forks_count, 2);
    t.equal((await f.request('DELETE', '/repos/carol/hello', { token: carol.token })).status, 204);
    t.equal((await f.request('GET', '/repos/alice/hello')).json.forks_count, 1, 'deleting a fork lowers the count');

    // A parent made private later is not shown to those who cannot read it.
    await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: { private: true } });
    t.equal((await f.request('GET', '/repos/bob/hello-fork', { token: dave.token })).json.parent, null, 'unreadable parent hidden');
    t.not((await f.request('GET', '/repos/bob/hello-fork', { token: alice.token })).json.parent, null);
    await f.request('PATCH', '/repos/alice/hello', { token: alice.token, json: { private: false } });

    const before = probe.events.length;
    t.equal((await f.request('DELETE', '/repos/alice/hello', { token: alice.token })).status, 204);
    const deleted = probe.events.slice(before).find((e) => e.event === REPO_DELETED);
    t.match(deleted, { name: 'Hello', ownerId: alice.id }, 'repo.deleted emitted with the owner');
    t.equal((await f.request('GET', '/repos/alice/hello')).status, 404);
    const orphan = await f.request('GET', '/repos/bob/hello-fork');
    t.equal(orphan.status, 200, 'the fork survives');
    t.equal(orphan.json.fork, false, 'as a standalone repository');
    t.equal(orphan.json.parent, null);
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'hello' } })).status, 201, 'the name is free again');
    t.same((await f.request('GET', '/repos/search?q=hello-fork')).json.data.map((r: any) => r.full_name), ['bob/hello-fork']);
  });

  t.test('DELETE /repos/{owner}/{repo}', async (t) => {
    await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'doomed' } });
    await f.request('PUT', '/repos/alice/doomed/collaborators/bob', { token: alice.token, json: { permission: 'admin' } });
    t.equal((await f.request('DELETE', '/repos/alice/doomed', { token: bob.token })).status, 403, 'an admin collaborator is not the owner');
    t.equal((await f.request('DELETE', '/repos/alice/doomed', { token: carol.token })).status, 403, 'read access');
    t.equal((await f.request('DELETE', '/repos/alice/secret', { token: dave.token })).status, 404, 'private and unreadable');
    t.equal((await f.request('DELETE', '/repos/alice/doomed')).status, 401);
    t.equal((await f.request('DELETE', '/repos/alice/doomed', { token: f.admin.token })).status, 204, 'site admins delete anything');
    t.equal((await f.request('DELETE', '/repos/alice/doomed', { token: alice.token })).status, 404, 'gone');
    t.notOk((await f.request('GET', '/user/repos?limit=50', { token: bob.token })).json.some((r: any) => r.name === 'doomed'), 'collaborations went with it');
    if (builtinPlugins.some((p) => p.name === 'stars') && builtinPlugins.some((p) => p.name === 'watch')) {
      await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'starred-then-gone' } });
      t.equal((await f.request('PUT', '/user/starred/alice/starred-then-gone', { token: bob.token })).status, 204);
      t.equal((await f.request('PUT', '/repos/alice/starred-then-gone/subscription', { token: bob.token })).status, 200);
      t.equal((await f.request('DELETE', '/repos/alice/starred-then-gone', { token: alice.token })).status, 204);
      t.notOk((await f.request('GET', '/user/starred', { token: bob.token })).json.some((r: any) => r.name === 'starred-then-gone'), 'its stars went with it');
      t.notOk((await f.request('GET', '/user/subscriptions', { token: bob.token })).json.some((r: any) => r.name === 'starred-then-gone'), 'and its watches');
      await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'starred-then-gone' } });
      const fresh = await f.request('GET', '/repos/alice/starred-then-gone');
      t.equal(fresh.json.stars_count, 0, 'a new repository of the same name starts from zero');
      t.equal((await f.request('GET', '/user/starred/alice/starred-then-gone', { token: bob.token })).status, 404);
    }
    // The org's owners delete org repositories; members with admin access do not.
    t.equal((await f.request('DELETE', '/repos/team-a/other', { token: bob.token })).status, 403);
    t.equal((await f.request('DELETE', '/repos/team-a/other', { token: alice.token })).status, 204);
  });

  t.test('deleting an account deletes its repositories', async (t) => {
    const erin = await f.createUser({ username: 'erin' });
    await f.request('POST', '/user/repos', { token: erin.token, json: { name: 'erins' } });
    await f.request('POST', '/probe/forks/erin/erins', { token: bob.token, json: { name: 'erins-fork' } });
    await f.request('PUT', '/repos/bob/hello/collaborators/erin', { token: bob.token });
    t.equal((await f.request('DELETE', '/admin/users/erin?purge=true', { token: f.admin.token })).status, 204);
    t.equal((await f.request('GET', '/repos/erin/erins', { token: f.admin.token })).status, 404);
    t.same((await f.request('GET', '/repos/search?q=erins', { token: f.admin.token })).json.data.map((r: any) => r.full_name), ['bob/erins-fork']);
    t.equal((await f.request('GET', '/repos/bob/erins-fork')).json.fork, false);
    t.same((await f.request('GET', '/repos/bob/hello/collaborators', { token: bob.token })).json, [], 'its collaborations too');
  });
});

t.test('ssh and root URL settings', async (t) => {
  const f = await startForge({
    env: { FORGEKIT_ROOT_URL: 'https://forge.example/sub' },
    config: { plugins: { repos: { ssh: { domain: 'ssh.forge.example', port: 2222, user: 'forge' } } } },
  });
  t.teardown(() => f.close());
  const u = await f.createUser({ username: 'urls' });
  const res = await f.request('POST', '/user/repos', { token: u.token, json: { name: 'r' } });
  t.equal(res.json.html_url, 'https://forge.example/sub/urls/r');
  t.equal(res.json.clone_url, 'https://forge.example/sub/urls/r.git');
  t.equal(res.json.ssh_url, 'ssh://forge@ssh.forge.example:2222/urls/r.git');
});

t.test('the storage capability contract', async (t) => {
  const calls: string[] = [];
  let failCreate = false;
  const storage: RepoStorageProvider = {
    checkInit(init: RepoInitOptions) {
      return init.license === 'Nope' ? 'license: unknown license template "Nope"' : null;
    },
    async create(repo: RepoRecord, _owner, init: RepoInitOptions) {
      calls.push(`create ${repo.name} ${init.autoInit} ${init.readme}`);
      if (failCreate) throw new Error('disk full');
      return { empty: !init.autoInit, size: init.autoInit ? 42 : 0 };
    },
    async remove(repo: RepoRecord) {
      calls.push(`remove ${repo.name}`);
    },
  };
  const probe = reposProbe(storage);
  const f: TestForge = await startForge({ extraPlugins: [probe.plugin] });
  t.teardown(() => f.close());
  const u = await f.createUser({ username: 'store' });
  const init = await f.request('POST', '/user/repos', { token: u.token, json: { name: 'inited', auto_init: true } });
  t.equal(init.status, 201);
  t.equal(init.json.empty, false, 'empty from the storage');
  t.equal(init.json.size, 42, 'size from the storage');
  t.same(calls, ['create inited true Default'], 'auto_init without readme uses the Default template');
  const bad = await f.request('POST', '/user/repos', { token: u.token, json: { name: 'bad', auto_init: true, license: 'Nope' } });
  t.equal(bad.status, 422);
  t.match(bad.json.message, /license/);
  t.equal(calls.length, 1, 'nothing created after a failed check');
  failCreate = true;
  const broken = await f.request('POST', '/user/repos', { token: u.token, json: { name: 'broken' } });
  t.equal(broken.status, 500);
  t.notMatch(broken.text, /disk full/, 'no internals in the body');
  t.equal((await f.request('GET', '/repos/store/broken', { token: u.token })).status, 404, 'no record without storage');
  t.same((await f.request('GET', '/repos/search?q=broken')).json.data, [], 'nor an index entry');
  failCreate = false;
  t.equal((await f.request('POST', '/user/repos', { token: u.token, json: { name: 'broken' } })).status, 201, 'the name is free');
  t.equal((await f.request('DELETE', '/repos/store/inited', { token: u.token })).status, 204);
  t.equal(calls[calls.length - 1], 'remove inited', 'delete removes the storage');
});
