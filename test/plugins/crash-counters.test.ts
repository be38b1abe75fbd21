// Crash-safe relation counters: a server SIGKILLed between a star/watch/follow row write and its counter moves
// leaves a counter intent behind, and the next start recounts exactly what it names (plugins/lib/counter-intents.ts).
// Without the intents the counters stayed off by one forever (the crash-ledger test caught it under load).
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crashDuring } from '../helpers/crash.js';
import { startForge } from '../helpers/forge.js';
import { builtinPlugins, checkConsistency } from '../../plugins/index.js';

const send = (method: string) => async (url: string, token: string) =>
  (await fetch(url, { method, headers: { Authorization: `token ${token}` } })).status;

t.test('a crash between a relation row and its counters is recounted at the next start', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-crash-counters-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let f = await startForge({ dataDir });
  await f.createUser({ username: 'bob' });
  t.equal((await f.request('POST', '/user/repos', { token: f.admin.token, json: { name: 'r1' } })).status, 201);
  t.equal((await f.request('GET', '/repos/root/r1')).json.watchers_count, 1, 'the owner watches what it creates');
  await f.close();

  await crashDuring(dataDir, 'stars.add:after-row', (api, token) => send('PUT')(`${api}/user/starred/root/r1`, token));
  await crashDuring(dataDir, 'watches.remove:after-row', (api, token) => send('DELETE')(`${api}/repos/root/r1/subscription`, token));
  await crashDuring(dataDir, 'follows.add:after-row', (api, token) => send('PUT')(`${api}/user/following/bob`, token));

  f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const token = f.admin.token;
  t.equal((await f.request('GET', '/user/starred/root/r1', { token })).status, 204, 'the star row written before the crash is there');
  const repo = (await f.request('GET', '/repos/root/r1')).json;
  t.equal(repo.stars_count, 1, 'stars_count recounted from the rows');
  t.equal(repo.watchers_count, 0, 'watchers_count recounted: the deleted watch row is not counted');
  const root = (await f.request('GET', '/users/root', { token })).json;
  t.equal(root.starred_repos_count, 1, "the user's star count recounted");
  t.equal(root.following_count, 1, 'following_count recounted');
  t.equal((await f.request('GET', '/users/bob', { token })).json.followers_count, 1, 'followers_count recounted');
  for (const name of ['stars_intents', 'watches_intents', 'follows_intents']) {
    t.equal(await f.forge.store.collection(name).count({}), 0, `${name}: replayed intents are gone`);
  }
  const report = await checkConsistency({ store: f.forge.store, dataDir: f.dataDir, collections: builtinPlugins.flatMap((p) => p.collections ?? []) });
  t.same(report.problems.map((p) => p.message), [], 'counters equal rows');

  // A clean change leaves no intent behind.
  t.equal((await f.request('DELETE', '/user/starred/root/r1', { token })).status, 204);
  t.equal(await f.forge.store.collection('stars_intents').count({}), 0, 'a finished change removes its intent');
  t.equal((await f.request('GET', '/repos/root/r1')).json.stars_count, 0);
});
