// A user's own starred and watched lists (`GET /users/{me}/subscriptions` signed in as me): every owner reads its own
// repositories, so the private rows of repositories the user owns are shown without asking repository access about
// each (a user watches all it creates: hundreds of private rows, each once a lookup). Rows of other owners' private
// repositories still are asked about, and hidden once the user lost access. Anonymous callers and strangers still
// see only the public rows. Also: the relation indexes earlier versions built are dropped at start.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import type { Caller } from '../../core/plugin.js';
import type { IndexSpec } from '../../core/store/port.js';
import { startForge, expectStatus } from '../helpers/forge.js';

const ok = expectStatus;
const names = (res: { json: any }) => (res.json as Array<{ full_name: string }>).map((r) => r.full_name);

/** A plugin that records every `readableIds` question the repos service is asked (caller login, ids). */
function readableIdsProbe() {
  const asked: Array<{ login: string | null; ids: number[] }> = [];
  const plugin = definePlugin({
    name: 'readable-ids-probe',
    dependencies: ['repos'],
    start(ctx) {
      const repos = ctx.services.get('repos');
      const original = repos.readableIds.bind(repos);
      repos.readableIds = (caller: Caller | null, ids: number[]) => {
        asked.push({ login: caller?.login ?? null, ids: [...ids] });
        return original(caller, ids);
      };
    },
  });
  return { asked, plugin };
}

t.test('own lists: own private rows shown without a lookup, others\' private rows asked about', async (t) => {
  const { asked, plugin } = readableIdsProbe();
  const f = await startForge({ extraPlugins: [plugin] });
  t.teardown(() => f.close());
  const me = await f.createUser({ username: 'ro-me' });
  const other = await f.createUser({ username: 'ro-other' });
  const stranger = await f.createUser({ username: 'ro-stranger' });
  // Six repositories of mine, every other one private; I watch them by creating them and star them too.
  const mine: string[] = [];
  for (let i = 0; i < 6; i++) {
    await ok(f.request('POST', '/user/repos', { token: me.token, json: { name: `own${i}`, private: i % 2 === 1 } }), 201);
    await ok(f.request('PUT', `/user/starred/ro-me/own${i}`, { token: me.token }), 204);
    mine.push(`ro-me/own${i}`);
  }
  const newestFirst = [...mine].reverse();
  const publicOnes = mine.filter((_, i) => i % 2 === 0).reverse();

  for (const list of ['starred', 'subscriptions']) {
    asked.length = 0;
    const self = await f.request('GET', `/users/ro-me/${list}?limit=50`, { token: me.token });
    t.equal(self.status, 200);
    t.same(names(self), newestFirst, `${list}, as me: all six, private ones too, newest first`);
    t.equal(self.headers.get('x-total-count'), '6');
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) paged.push(...names(await f.request('GET', `/users/ro-me/${list}?limit=2&page=${page}`, { token: me.token })));
    t.same(paged, newestFirst, `${list}, as me: the same in pages of 2`);
    t.same(asked, [], `${list}, as me: no repository access question (every private row is mine)`);
    for (const [who, token] of [['anonymous', undefined], ['a stranger', stranger.token]] as const) {
      const res = await f.request('GET', `/users/ro-me/${list}?limit=50`, { token });
      t.same(names(res), publicOnes, `${list}, ${who}: the three public ones`);
      t.equal(res.headers.get('x-total-count'), '3', `${list}, ${who}: counted so`);
    }
  }

  // Two private repositories of another owner, which I read as a collaborator, star and watch; then lose one.
  for (const name of ['theirs-kept', 'theirs-lost']) {
    await ok(f.request('POST', '/user/repos', { token: other.token, json: { name, private: true } }), 201);
    await ok(f.request('PUT', `/repos/ro-other/${name}/collaborators/ro-me`, { token: other.token, json: { permission: 'read' } }), 204);
    await ok(f.request('PUT', `/user/starred/ro-other/${name}`, { token: me.token }), 204);
    await ok(f.request('PUT', `/repos/ro-other/${name}/subscription`, { token: me.token }), 200);
  }
  await ok(f.request('DELETE', '/repos/ro-other/theirs-lost/collaborators/ro-me', { token: other.token }), 204);
  const kept = (await f.request('GET', '/repos/ro-other/theirs-kept', { token: other.token })).json.id as number;
  const lost = (await f.request('GET', '/repos/ro-other/theirs-lost', { token: other.token })).json.id as number;
  for (const list of ['starred', 'subscriptions']) {
    asked.length = 0;
    const self = await f.request('GET', `/users/ro-me/${list}?limit=50`, { token: me.token });
    t.same(names(self), ['ro-other/theirs-kept', ...newestFirst], `${list}, as me: mine and the one I still read, not the lost one`);
    t.equal(self.headers.get('x-total-count'), '7', `${list}, as me: the lost one is not counted`);
    const second = await f.request('GET', `/users/ro-me/${list}?limit=3&page=2`, { token: me.token });
    t.same(names(second), newestFirst.slice(2, 5), `${list}, as me: page 2 of 3 skips the lost row`);
    const questions = asked.filter((a) => a.login === 'ro-me');
    t.ok(questions.length > 0, `${list}, as me: the other owner's private rows were asked about`);
    for (const q of questions) t.same([...q.ids].sort((a, b) => a - b), [kept, lost].sort((a, b) => a - b), `${list}, as me: only about the other owner's two, never mine`);
    const anon = await f.request('GET', `/users/ro-me/${list}?limit=50`);
    t.same(names(anon), publicOnes, `${list}, anonymous: still the three public ones`);
    t.equal(anon.headers.get('x-total-count'), '3');
  }
});

t.test('the relation indexes of earlier versions are dropped at start', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-retired-relation-indexes-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startForge({ dataDir });
  const user = await first.createUser({ username: 'ri-user' });
  await ok(first.request('POST', '/user/repos', { token: user.token, json: { name: 'r' } }), 201);
  // What earlier versions declared beside the current ones.
  const old: IndexSpec[] = [{ fields: { uid: 1 } }, { fields: { uid: 1, repoPrivate: 1 } }, { fields: { uid: 1, repoPrivate: 1, id: -1 } }, { fields: { uid: 1, repoPrivate: 1, repoOwnerId: 1 } }];
  const oldKeys = ['uid', 'repoPrivate,uid', 'id,repoPrivate,uid', 'repoOwnerId,repoPrivate,uid'];
  for (const name of ['stars', 'watches']) {
    await first.forge.store.ensureCollection({ name, indexes: old });
  }
  const files = await collectionFiles(dataDir, ['stars.db', 'watches.db']);
  for (const file of files) t.ok(oldKeys.every((k) => indexesIn(file).has(k)), `${path.basename(file)}: the old indexes are stored`);
  await first.close();
  const again = await startForge({ dataDir });
  t.teardown(() => again.close());
  for (const file of files) {
    const kept = indexesIn(file);
    t.same(oldKeys.filter((k) => kept.has(k)), [], `${path.basename(file)}: the old indexes are dropped at start`);
    t.ok(kept.has('repoOwnerId,uid,unlisted') && kept.has('id,uid,unlisted'), `${path.basename(file)}: the current ones are there`);
  }
  for (const name of ['stars', 'watches']) t.not((await again.forge.store.collection(name).explain({ uid: user.id })).index, null, `${name}: { uid } is still served by an index`);
  const res = await again.request('GET', '/users/ri-user/subscriptions', { token: user.token });
  t.same(names(res), ['ri-user/r'], 'the list still works');
});

/** The collection files (by base name) under the data dir. */
async function collectionFiles(dir: string, wanted: string[]): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  const files = entries.filter((e) => wanted.includes(path.basename(e))).map((e) => path.join(dir, e));
  if (files.length !== wanted.length) throw new Error(`expected ${wanted.join(', ')} under ${dir}, found ${files.join(', ')}`);
  return files;
}

/** The index keys (field names sorted, comma-joined) a collection file leaves in place: its index records replayed. */
function indexesIn(file: string): Set<string> {
  const keys = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('$$index')) continue;
    const record = JSON.parse(line) as { $$indexCreated?: { fieldName: string }; $$indexRemoved?: string };
    if (record.$$indexCreated) keys.add(record.$$indexCreated.fieldName);
    if (record.$$indexRemoved) keys.delete(record.$$indexRemoved);
  }
  return keys;
}
