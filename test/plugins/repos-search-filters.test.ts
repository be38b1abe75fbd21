// GET /repos/search with Gitea's filters (routers/api/v1/repo/repo.go Search): mode, exclusive, private, is_private,
// archived, template, topic, includeDesc, uid (owned or reached), starredBy, priority_owner_id, sort and order.
// Every combination asked is checked against a model of the data for anonymous, owner and site-admin callers.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import type { RepoRecord } from '../../schemas/services.js';
import type { Repos } from '../../plugins/repos/service.js';
import { startForge } from '../helpers/forge.js';

interface Model {
  id: number;
  owner: string;
  ownerId: number;
  lowerName: string;
  desc: string;
  private: boolean;
  fork: boolean;
  mirror: boolean;
  archived: boolean;
  template: boolean;
  topics: string[];
  stars: number;
  created: number;
}

t.test('filters agree with the model', async (t) => {
  const held: { repos?: Repos; emit?: (repo: RepoRecord) => Promise<void> } = {};
  const probe = definePlugin({
    name: 'filters-probe', dependencies: ['repos'],
    start(ctx) {
      held.repos = ctx.services.get('repos') as Repos;
      held.emit = (repo) => ctx.events.emit('repo.updated', { repo, before: repo });
    },
  });
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const ann = await f.createUser({ username: 'ann' });
  const ben = await f.createUser({ username: 'ben' });
  const col = await f.createUser({ username: 'col' });
  const repos = held.repos!;
  const made: Model[] = [];
  const users = { ann, ben, col } as const;
  const words = ['map', 'mapper', 'happy', 'hap', 'zip', 'tool', 'toolkit', 'apple', 'pa', 'x'];
  let k = 0;
  for (const owner of ['ann', 'ben', 'col'] as const) {
    for (let i = 0; i < 10; i++, k++) {
      const name = `${words[(k * 7) % words.length]}-${words[(k * 3) % words.length]}-${k}`;
      const priv = k % 4 === 1;
      const desc = k % 3 === 0 ? `About ${words[(k * 5) % words.length]} things` : '';
      const res = await f.request('POST', '/user/repos', { token: users[owner].token, json: { name, private: priv, description: desc } });
      t.equal(res.status, 201, name);
      const m: Model = {
        id: res.json.id, owner, ownerId: users[owner].id, lowerName: name.toLowerCase(), desc: desc.toLowerCase(), private: priv,
        fork: k % 5 === 2, mirror: k % 7 === 3, archived: k % 6 === 4, template: k % 4 === 3,
        topics: k % 3 === 1 ? ['go', k % 2 ? 'cli' : 'web'] : [], stars: 0, created: k,
      };
      // Flags and topics as other plugins (forks, migrations, topics) store them: on the record, then the index told.
      await repos.repos.updateOne({ id: m.id }, { $set: { fork: m.fork, mirror: m.mirror, archived: m.archived, template: m.template, topics: m.topics } });
      repos.index.upsert((await repos.byId(m.id)) as RepoRecord);
      made.push(m);
    }
  }
  // col collaborates on one of ann's private repositories; ben stars three repositories.
  const annPrivate = made.find((m) => m.owner === 'ann' && m.private)!;
  t.equal((await f.request('PUT', `/repos/ann/${annPrivate.lowerName}/collaborators/col`, { token: ann.token, json: { permission: 'read' } })).status, 204);
  const starred = made.filter((m) => !m.private).slice(2, 5);
  for (const m of starred) {
    t.equal((await f.request('PUT', `/user/starred/${m.owner}/${m.lowerName}`, { token: ben.token })).status, 204);
    m.stars++;
  }

  const callers = { anonymous: undefined, ann: ann.token, col: col.token, admin: f.admin.token } as const;
  type Who = keyof typeof callers;
  const reads = (who: Who, m: Model) => !m.private || who === 'admin' || m.owner === who || (who === 'col' && m.id === annPrivate.id);
  const byName = (a: Model, b: Model) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id);
  const idOf = (login: string) => users[login as keyof typeof users].id;
  const reaches = (uid: string, m: Model) => m.owner === uid || (uid === 'col' && m.id === annPrivate.id);

  const cases: Array<Record<string, string>> = [
    {}, { q: 'map' }, { q: 'ap' }, { q: 'happy' }, { q: 'pa' }, { q: 'things', includeDesc: 'true' }, { q: 'ap', includeDesc: 'true' },
    { q: 'about', includeDesc: 'false' }, { mode: 'fork' }, { mode: 'source' }, { mode: 'mirror' }, { mode: 'source', q: 'ap' },
    { archived: 'true' }, { archived: 'false', q: 'a' }, { template: 'true' }, { template: 'false', mode: 'source' },
    { is_private: 'true' }, { is_private: 'false', q: 'p' }, { private: 'false' }, { topic: 'true', q: 'go' }, { topic: 'true', q: 'CLI' },
    { uid: 'col' }, { uid: 'col', exclusive: 'true' }, { uid: 'col', mode: 'collaborative' }, { uid: 'ann', q: 'ap' },
    { starredBy: 'ben' }, { starredBy: 'ben', q: 'p' }, { priority_owner_id: 'ben', q: 'ap' }, { priority_owner_id: 'col' },
    { sort: 'id', order: 'desc' }, { sort: 'stars', order: 'desc', q: 'a' }, { sort: 'created' }, { sort: 'alpha', order: 'desc' },
  ];
  const model = (who: Who, c: Record<string, string>): Model[] => {
    const q = (c.q ?? '').toLowerCase();
    let out = made.filter((m) => reads(who, m));
    if (c.private === 'false' || who === 'anonymous') out = out.filter((m) => !m.private);
    if (q) {
      if (c.topic === 'true') out = out.filter((m) => m.topics.includes(q));
      else out = out.filter((m) => m.lowerName.includes(q) || (c.includeDesc === 'true' && m.desc.includes(q)));
    }
    if (c.mode === 'fork') out = out.filter((m) => m.fork);
    if (c.mode === 'mirror') out = out.filter((m) => m.mirror);
    if (c.mode === 'source') out = out.filter((m) => !m.fork && !m.mirror);
    if (c.mode === 'collaborative') out = out.filter((m) => !m.mirror);
    for (const flag of ['archived', 'template'] as const) if (c[flag] !== undefined) out = out.filter((m) => m[flag] === (c[flag] === 'true'));
    if (c.is_private !== undefined) out = out.filter((m) => m.private === (c.is_private === 'true'));
    if (c.uid) {
      const uid = c.uid;
      if (c.exclusive === 'true') out = out.filter((m) => m.owner === uid);
      else if (c.mode === 'collaborative') out = out.filter((m) => m.owner !== uid && reaches(uid, m));
      else out = out.filter((m) => reaches(uid, m));
    }
    if (c.starredBy) out = out.filter((m) => starred.includes(m));
    const dir = c.order === 'desc' ? -1 : 1;
    const sorters: Record<string, (a: Model, b: Model) => number> = {
      alpha: (a, b) => byName(a, b) * dir,
      id: (a, b) => (a.id - b.id) * dir,
      created: (a, b) => (a.created - b.created || a.id - b.id) * dir,
      stars: (a, b) => (a.stars - b.stars || a.id - b.id) * dir,
    };
    out.sort(sorters[c.sort ?? 'alpha']!);
    if (c.priority_owner_id) {
      const p = c.priority_owner_id;
      out = [...out.filter((m) => m.owner === p), ...out.filter((m) => m.owner !== p)];
    }
    return out;
  };

  for (const who of Object.keys(callers) as Who[]) {
    for (const c of cases) {
      const all = model(who, c);
      for (const [page, limit] of [[1, 50], [1, 3], [2, 3], [4, 3]] as const) {
        const params = new URLSearchParams({ ...c, page: String(page), limit: String(limit) });
        for (const key of ['uid', 'starredBy', 'priority_owner_id']) if (params.has(key)) params.set(key, String(idOf(params.get(key)!)));
        const res = await f.request('GET', `/repos/search?${params}`, { token: callers[who] });
        const got = res.status === 200 ? res.json.data.map((r: any) => r.id) : res.status;
        const want = all.slice((page - 1) * limit, page * limit).map((m) => m.id);
        if (JSON.stringify(got) !== JSON.stringify(want) || res.headers.get('x-total-count') !== String(all.length)) {
          t.fail(`${who} ${params}`, { got, want, total: res.headers.get('x-total-count'), wantTotal: all.length });
        }
      }
    }
    t.pass(`${who}: every filter as the model says`);
  }

  t.test('the index follows changes: privacy, topics, deletion', async (t) => {
    const m = made.find((x) => x.owner === 'ben' && !x.private)!;
    t.equal((await f.request('PATCH', `/repos/ben/${m.lowerName}`, { token: ben.token, json: { private: true } })).status, 200);
    t.notOk((await f.request('GET', `/repos/search?q=${m.lowerName}`)).json.data.some((r: any) => r.id === m.id), 'private now: not for anonymous');
    t.ok((await f.request('GET', `/repos/search?q=${m.lowerName}`, { token: ben.token })).json.data.some((r: any) => r.id === m.id), 'its owner still finds it');
    await repos.repos.updateOne({ id: m.id }, { $set: { topics: ['rare-topic'] } });
    const after = (await repos.byId(m.id)) as RepoRecord;
    // A topics plugin stores through the repos service, which emits repo.updated: the index listens to it.
    await held.emit!(after);
    t.same((await f.request('GET', '/repos/search?topic=true&q=rare-topic', { token: ben.token })).json.data.map((r: any) => r.id), [m.id]);
    t.equal((await f.request('DELETE', `/repos/ben/${m.lowerName}`, { token: ben.token })).status, 204);
    t.equal((await f.request('GET', '/repos/search?topic=true&q=rare-topic', { token: f.admin.token })).headers.get('x-total-count'), '0', 'deleted: gone');
  });

  t.test('bad values are 422', async (t) => {
    for (const qs of ['mode=all', 'sort=name', 'order=up', 'archived=maybe', 'uid=x']) {
      t.equal((await f.request('GET', `/repos/search?${qs}`)).status, 422, qs);
    }
  });
});
