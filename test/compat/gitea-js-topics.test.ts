// gitea-js (the generated Gitea client) against forgekit's topics plugin, unmodified: a repository's topics and the
// topic search, each answer checked against gitea-js's declared types.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle, shapeProblems } from '../helpers/gitea-js.js';

t.test('gitea-js topic methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const api = giteaClient(f, alice.token);
  t.equal((await api.user.createCurrentUserRepo({ name: 'proj' })).status, 201);

  t.equal((await api.repos.repoUpdateTopics('alice', 'proj', { topics: ['Go', 'cli'] })).status, 204);
  t.equal((await api.repos.repoAddTopic('alice', 'proj', 'web')).status, 204);
  const listed = await api.repos.repoListTopics('alice', 'proj');
  assertConforms(t, 'repoListTopics', listed.data);
  t.same(listed.data.topics, ['cli', 'go', 'web']);
  t.same((await api.repos.repoGet('alice', 'proj')).data.topics, ['cli', 'go', 'web']);
  t.equal((await api.repos.repoDeleteTopic('alice', 'proj', 'web')).status, 204);
  t.equal((await settle(api.repos.repoDeleteTopic('alice', 'proj', 'web'))).status, 404);
  t.equal((await settle(api.repos.repoAddTopic('alice', 'proj', 'Not_Valid'))).status, 422);

  // Gitea answers `{topics: [TopicResponse…]}` (its swagger's bare TopicResponse[] is a documentation slip): each item
  // is held to gitea-js's TopicResponse.
  const found = await api.topics.topicSearch({ q: 'g' });
  t.equal(found.status, 200);
  const items = (found.data as unknown as { topics: unknown[] }).topics;
  t.equal(items.length, 1);
  t.same(shapeProblems(items, { kind: 'array', items: { kind: 'ref', name: 'TopicResponse' } }), [], 'TopicResponse items');
  t.match(items[0], { topic_name: 'go', repo_count: 1 });
});
