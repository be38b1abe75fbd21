// gitea-js (the generated Gitea client) against forgekit's notifications plugin, unmodified: the inbox, one thread,
// marking read (per thread, per repository, everything) and the unread count, answers checked against gitea-js's types.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';

t.test('gitea-js notification methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const api = giteaClient(f, alice.token);
  const asBob = giteaClient(f, bob.token);
  t.equal((await api.user.createCurrentUserRepo({ name: 'proj' })).status, 201);
  t.equal((await asBob.repos.issueCreateIssue('alice', 'proj', { title: 'Hello', body: 'there' })).status, 201);
  t.equal((await asBob.repos.issueCreateIssue('alice', 'proj', { title: 'Again' })).status, 201);

  const count = await api.notifications.notifyNewAvailable();
  assertConforms(t, 'notifyNewAvailable', count.data);
  t.equal(count.data.new, 2);
  const list = await api.notifications.notifyGetList({ 'status-types': ['unread', 'pinned'], 'subject-type': ['issue'] });
  assertConforms(t, 'notifyGetList', list.data);
  t.same(list.data.map((n) => n.subject?.title).sort(), ['Again', 'Hello']);
  const id = list.data[0]!.id!;
  const thread = await api.notifications.notifyGetThread(String(id));
  assertConforms(t, 'notifyGetThread', thread.data);
  t.equal((await settle(api.notifications.notifyReadThread(String(id), { 'to-status': 'read' }))).status, 205);
  const repoList = await api.repos.notifyGetRepoList('alice', 'proj');
  assertConforms(t, 'notifyGetRepoList', repoList.data);
  t.equal(repoList.data.length, 1);
  t.equal((await settle(api.repos.notifyReadRepoList('alice', 'proj'))).status, 205);
  t.equal((await api.notifications.notifyNewAvailable()).data.new, 0);
  t.equal((await settle(api.notifications.notifyReadList({ all: 'true', 'to-status': 'unread' }))).status, 205);
  t.equal((await api.notifications.notifyNewAvailable()).data.new, 2);
  t.equal((await settle(api.notifications.notifyReadList())).status, 205);
  t.equal((await api.notifications.notifyNewAvailable()).data.new, 0);
});
