// issues plugin: counters left wrong by a crash between a write and its counter moves are recounted at the next
// start from the intents the change left behind (and only those).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { INTENTS } from '../../plugins/issues/service.js';
import { startForge } from '../helpers/forge.js';

t.test('a restart recounts what unfinished changes name', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-issues-repair-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let f = await startForge({ dataDir });
  const alice = await f.createUser({ username: 'alice' });
  const post = async (p: string, json: unknown) => {
    const res = await f.request('POST', p, { token: alice.token, json });
    if (res.status !== 201) throw new Error(`${p}: ${res.status} ${res.text}`);
    return res.json;
  };
  const repo = await post('/user/repos', { name: 'r' });
  const ms = await post('/repos/alice/r/milestones', { title: 'm' });
  for (let i = 0; i < 3; i++) await post('/repos/alice/r/issues', { title: `i${i}`, milestone: ms.id });
  await post('/repos/alice/r/issues/1/comments', { body: 'c' });
  t.equal((await f.request('GET', '/repos/alice/r')).json.open_issues_count, 3);
  t.equal((await f.forge.store.collection(INTENTS).count({})), 0, 'finished changes leave no intent');

  // What a crash after the writes and before their $inc would leave: wrong counters and the intents naming them.
  const store = f.forge.store;
  await store.collection('repos').updateOne({ id: repo.id }, { $set: { numOpenIssues: 7 } });
  await store.collection('milestones').updateOne({ id: ms.id }, { $set: { numOpen: 0, numClosed: 5 } });
  const issue1 = await store.collection('issues').findOne({ repoId: repo.id, number: 1 });
  await store.collection('issues').updateOne({ id: issue1!.id }, { $set: { numComments: 9 } });
  await store.collection(INTENTS).insertOne({ id: 1000, repoIds: [repo.id], milestoneIds: [ms.id], issueIds: [issue1!.id], createdAt: '2026-01-01T00:00:00Z' });
  await f.close();

  f = await startForge({ dataDir });
  t.teardown(() => f.close());
  t.equal((await f.request('GET', '/repos/alice/r')).json.open_issues_count, 3, 'open_issues_count recounted');
  const m = (await f.request('GET', `/repos/alice/r/milestones/${ms.id}`)).json;
  t.same([m.open_issues, m.closed_issues], [3, 0], 'milestone recounted');
  t.equal((await f.request('GET', '/repos/alice/r/issues/1')).json.comments, 1, 'comment count recounted');
  t.equal(await f.forge.store.collection(INTENTS).count({}), 0, 'intents cleared');
});
