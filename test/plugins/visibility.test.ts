// The visibility matrix: an anonymous caller, an unrelated user, a read-only collaborator, a team member, a site
// admin and the owner each see exactly what they should in GET /repos/{o}/{r}, both lists, search, X-Total-Count
// and the permissions object; a private repository is a 404 (never a 403) to those who cannot read it.
import t from 'tap';
import { startForge, expectStatus } from '../helpers/forge.js';
import { builtinPlugins } from '../../plugins/index.js';

type Perm = { admin: boolean; push: boolean; pull: boolean };
const NONE = null;
const PULL: Perm = { admin: false, push: false, pull: true };
const PUSH: Perm = { admin: false, push: true, pull: true };
const ALL: Perm = { admin: true, push: true, pull: true };

const REPOS = ['vowner/v-pub', 'vowner/v-priv', 'vorg/v-orgpub', 'vorg/v-orgpriv', 'vorg/v-orgsecret'] as const;
type RepoName = (typeof REPOS)[number];
type Actor = 'anonymous' | 'stranger' | 'reader' | 'teammate' | 'admin' | 'owner';

/** What each actor may do on each repository (null: cannot read it, so it does not exist for them). */
const MATRIX: Record<Actor, Record<RepoName, Perm | null>> = {
  anonymous: { 'vowner/v-pub': PULL, 'vowner/v-priv': NONE, 'vorg/v-orgpub': PULL, 'vorg/v-orgpriv': NONE, 'vorg/v-orgsecret': NONE },
  stranger: { 'vowner/v-pub': PULL, 'vowner/v-priv': NONE, 'vorg/v-orgpub': PULL, 'vorg/v-orgpriv': NONE, 'vorg/v-orgsecret': NONE },
  // A read collaborator on v-priv.
  reader: { 'vowner/v-pub': PULL, 'vowner/v-priv': PULL, 'vorg/v-orgpub': PULL, 'vorg/v-orgpriv': NONE, 'vorg/v-orgsecret': NONE },
  // A member of vorg's "Devs" team (write), whose repository list holds v-orgpriv and v-orgpub.
  teammate: { 'vowner/v-pub': PULL, 'vowner/v-priv': NONE, 'vorg/v-orgpub': PUSH, 'vorg/v-orgpriv': PUSH, 'vorg/v-orgsecret': NONE },
  admin: { 'vowner/v-pub': ALL, 'vowner/v-priv': ALL, 'vorg/v-orgpub': ALL, 'vorg/v-orgpriv': ALL, 'vorg/v-orgsecret': ALL },
  owner: { 'vowner/v-pub': ALL, 'vowner/v-priv': ALL, 'vorg/v-orgpub': ALL, 'vorg/v-orgpriv': ALL, 'vorg/v-orgsecret': ALL },
};

/** Readable repositories of an actor in name order (lower-cased name, ties by id: creation order here). */
function readable(actor: Actor, filter: (r: RepoName) => boolean = () => true): RepoName[] {
  return REPOS.filter((r) => MATRIX[actor][r] !== null && filter(r))
    .sort((a, b) => (a.split('/')[1]! < b.split('/')[1]! ? -1 : 1));
}

t.test('visibility matrix', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'vowner' });
  const stranger = await f.createUser({ username: 'stranger' });
  const reader = await f.createUser({ username: 'reader' });
  const teammate = await f.createUser({ username: 'teammate' });
  const tokens: Record<Actor, string | undefined> = {
    anonymous: undefined, stranger: stranger.token, reader: reader.token, teammate: teammate.token, admin: f.admin.token, owner: owner.token,
  };
  const ok = expectStatus;
  await ok(f.request('POST', '/user/repos', { token: owner.token, json: { name: 'v-pub' } }), 201);
  await ok(f.request('POST', '/user/repos', { token: owner.token, json: { name: 'v-priv', private: true } }), 201);
  await ok(f.request('POST', '/orgs', { token: owner.token, json: { username: 'vorg' } }), 201);
  await ok(f.request('POST', '/org/vorg/repos', { token: owner.token, json: { name: 'v-orgpub' } }), 201);
  await ok(f.request('POST', '/org/vorg/repos', { token: owner.token, json: { name: 'v-orgpriv', private: true } }), 201);
  await ok(f.request('POST', '/org/vorg/repos', { token: owner.token, json: { name: 'v-orgsecret', private: true } }), 201);
  await ok(f.request('PUT', '/repos/vowner/v-priv/collaborators/reader', { token: owner.token, json: { permission: 'read' } }), 204);
  const devs = await f.request('POST', '/orgs/vorg/teams', { token: owner.token, json: { name: 'Devs', permission: 'write' } });
  await ok(f.request('PUT', `/teams/${devs.json.id}/members/teammate`, { token: owner.token }), 204);
  await ok(f.request('PUT', `/teams/${devs.json.id}/repos/vorg/v-orgpriv`, { token: owner.token }), 204);
  await ok(f.request('PUT', `/teams/${devs.json.id}/repos/vorg/v-orgpub`, { token: owner.token }), 204);
  const vorg = await f.request('GET', '/orgs/vorg');
  const actors = Object.keys(MATRIX) as Actor[];

  t.test('GET /repos/{owner}/{repo}', async (t) => {
    for (const actor of actors) {
      for (const repo of REPOS) {
        const res = await f.request('GET', `/repos/${repo.toUpperCase()}`, { token: tokens[actor] });
        const want = MATRIX[actor][repo];
        if (want === null) {
          t.equal(res.status, 404, `${actor} × ${repo}: 404`);
          t.match(res.json, { message: "The target couldn't be found.", url: String }, `${actor} × ${repo}: the fixed 404 body`);
        } else {
          t.equal(res.status, 200, `${actor} × ${repo}: 200`);
          t.same(res.json.permissions, want, `${actor} × ${repo}: permissions`);
          const seesEmail = (actor === 'owner' || actor === 'admin') && repo.startsWith('vowner/');
          t.equal(res.json.owner.email, seesEmail ? owner.email : '', `${actor} × ${repo}: the owner's email only for self and admins`);
        }
      }
    }
  });

  t.test('GET /users/{username}/repos and /orgs/{org}/repos', async (t) => {
    for (const actor of actors) {
      for (const [path, prefix] of [['/users/vowner/repos', 'vowner/'], ['/users/vorg/repos', 'vorg/'], ['/orgs/vorg/repos', 'vorg/']] as const) {
        const want = readable(actor, (r) => r.startsWith(prefix));
        const res = await f.request('GET', path, { token: tokens[actor] });
        t.equal(res.status, 200);
        t.same(res.json.map((r: any) => r.full_name), want, `${actor} ${path}`);
        t.equal(res.headers.get('x-total-count'), String(want.length), `${actor} ${path}: X-Total-Count`);
        t.same(res.json.map((r: any) => r.permissions), want.map((r) => MATRIX[actor][r]), `${actor} ${path}: permissions`);
        // One per page: the count never includes what the actor cannot read, and the pages hold exactly those.
        const pages: string[] = [];
        for (let page = 1; page <= want.length + 1; page++) {
          const one = await f.request('GET', `${path}?limit=1&page=${page}`, { token: tokens[actor] });
          t.equal(one.headers.get('x-total-count'), String(want.length));
          pages.push(...one.json.map((r: any) => r.full_name));
        }
        t.same(pages, want, `${actor} ${path}: paging`);
      }
    }
  });

  t.test('GET /user/repos', async (t) => {
    t.equal((await f.request('GET', '/user/repos')).status, 401, 'anonymous');
    const lists: Record<Exclude<Actor, 'anonymous'>, RepoName[]> = {
      stranger: [],
      reader: ['vowner/v-priv'],
      teammate: ['vorg/v-orgpriv', 'vorg/v-orgpub'],
      // Everything a site admin *can* access is everything; this list is what they own or were granted.
      admin: [],
      owner: readable('owner'),
    };
    for (const [actor, want] of Object.entries(lists) as Array<[Exclude<Actor, 'anonymous'>, RepoName[]]>) {
      const res = await f.request('GET', '/user/repos', { token: tokens[actor] });
      t.equal(res.status, 200);
      t.same(res.json.map((r: any) => r.full_name), want, `${actor}`);
      t.equal(res.headers.get('x-total-count'), String(want.length), `${actor}: X-Total-Count`);
      t.same(res.json.map((r: any) => r.permissions), want.map((r) => MATRIX[actor][r]), `${actor}: permissions`);
    }
  });

  t.test('GET /repos/search', async (t) => {
    for (const actor of actors) {
      for (const q of ['', 'v-', 'v-o', 'v-org', 'PRIV', 'secret']) {
        const want = readable(actor, (r) => r.split('/')[1]!.includes(q.toLowerCase()));
        const res = await f.request('GET', `/repos/search?q=${q}`, { token: tokens[actor] });
        t.equal(res.status, 200);
        t.same(res.json.data.map((r: any) => r.full_name), want, `${actor} q=${JSON.stringify(q)}`);
        t.equal(res.headers.get('x-total-count'), String(want.length), `${actor} q=${JSON.stringify(q)}: X-Total-Count`);
        t.same(res.json.data.map((r: any) => r.permissions), want.map((r) => MATRIX[actor][r]), `${actor} q=${JSON.stringify(q)}: permissions`);
      }
      for (const q of ['', 'v-o', 'v-orgs']) {
        const want = readable(actor, (r) => r.startsWith('vorg/') && r.includes(q));
        const res = await f.request('GET', `/repos/search?q=${q}&uid=${vorg.json.id}`, { token: tokens[actor] });
        t.same(res.json.data.map((r: any) => r.full_name), want, `${actor} q=${JSON.stringify(q)} uid=vorg`);
        t.equal(res.headers.get('x-total-count'), String(want.length));
      }
    }
  });

  t.test('private repositories are 404, never 403, for those who cannot read them', async (t) => {
    const calls: Array<[string, string, unknown?]> = [
      ['PATCH', '/repos/vowner/v-priv', { description: 'x' }],
      ['DELETE', '/repos/vowner/v-priv'],
      ['GET', '/repos/vowner/v-priv/collaborators'],
      ['GET', '/repos/vowner/v-priv/collaborators/reader'],
      ['PUT', '/repos/vowner/v-priv/collaborators/stranger', { permission: 'admin' }],
      ['DELETE', '/repos/vowner/v-priv/collaborators/reader'],
      ['PATCH', '/repos/vorg/v-orgsecret', { private: false }],
      ['DELETE', '/repos/vorg/v-orgsecret'],
    ];
    for (const actor of ['stranger', 'teammate'] as const) {
      for (const [method, path, json] of calls) {
        const res = await f.request(method, path, { token: tokens[actor], ...(json ? { json } : {}) });
        t.equal(res.status, 404, `${actor} ${method} ${path}`);
      }
    }
    // Readable but not enough: now a 403.
    t.equal((await f.request('PATCH', '/repos/vowner/v-priv', { token: reader.token, json: { description: 'x' } })).status, 403);
    t.equal((await f.request('DELETE', '/repos/vorg/v-orgpriv', { token: teammate.token })).status, 403);
    t.equal((await f.request('PATCH', '/repos/vowner/v-pub', { token: stranger.token, json: { description: 'x' } })).status, 403);
    t.equal((await f.request('GET', '/repos/vowner/v-priv')).status, 404, 'unchanged');
  });

  const has = (name: string) => builtinPlugins.some((p) => p.name === name);
  t.test('stars and watches use the same access check', { skip: !has('stars') || !has('watch') ? 'stars/watch plugins not built in' : false }, async (t) => {
    for (const actor of ['stranger', 'reader', 'teammate'] as const) {
      for (const repo of REPOS) {
        const want = MATRIX[actor][repo] === null ? 404 : 204;
        t.equal((await f.request('PUT', `/user/starred/${repo}`, { token: tokens[actor] })).status, want, `${actor} stars ${repo}`);
        t.equal((await f.request('GET', `/user/starred/${repo}`, { token: tokens[actor] })).status, want, `${actor} checks ${repo}`);
        t.equal((await f.request('PUT', `/repos/${repo}/subscription`, { token: tokens[actor] })).status, want === 204 ? 200 : 404, `${actor} watches ${repo}`);
      }
    }
    for (const actor of ['anonymous', 'stranger', 'reader', 'teammate', 'owner'] as const) {
      const res = await f.request('GET', '/users/reader/starred', { token: tokens[actor] });
      if (actor === 'anonymous') {
        t.ok(res.status === 401 || res.status === 200, 'anonymous');
        continue;
      }
      const want = readable('reader').filter((r) => MATRIX[actor][r] !== null);
      t.same(res.json.map((r: any) => r.full_name).sort(), [...want].sort(), `${actor} sees the reader's stars they can read`);
      t.equal(res.headers.get('x-total-count'), String(want.length));
    }
  });
});
