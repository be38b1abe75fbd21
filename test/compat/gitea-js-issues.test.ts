// gitea-js (the generated Gitea client) against forgekit's issues plugin, unmodified: every issue, comment, reaction,
// label, milestone, assignee, subscription and pin method a client of the issues capability calls.
import t from 'tap';
import { giteaApi } from 'gitea-js';
import { startForge } from '../helpers/forge.js';
import { assertConforms } from '../helpers/gitea-js.js';

t.test('gitea-js issue methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const api = giteaApi(f.url, { token: alice.token, customFetch: fetch });
  const asBob = giteaApi(f.url, { token: bob.token, customFetch: fetch });
  t.equal((await api.user.createCurrentUserRepo({ name: 'proj' })).status, 201);
  t.equal((await api.orgs.orgCreate({ username: 'acme' })).status, 201);

  // labels and milestones
  const bug = (await api.repos.issueCreateLabel('alice', 'proj', { name: 'bug', color: '#ee0701' })).data;
  t.equal(bug.color, 'ee0701');
  t.same((await api.repos.issueListLabels('alice', 'proj')).data.map((l) => l.name), ['bug']);
  t.equal((await api.repos.issueGetLabel('alice', 'proj', bug.id!)).data.name, 'bug');
  t.equal((await api.repos.issueEditLabel('alice', 'proj', bug.id!, { description: 'broken' })).data.description, 'broken');
  const orgLabel = (await api.orgs.orgCreateLabel('acme', { name: 'org', color: '#00ff00' })).data;
  t.same((await api.orgs.orgListLabels('acme')).data.map((l) => l.id), [orgLabel.id]);
  t.equal((await api.orgs.orgGetLabel('acme', orgLabel.id!)).data.name, 'org');
  t.equal((await api.orgs.orgEditLabel('acme', orgLabel.id!, { name: 'org2' })).data.name, 'org2');
  t.equal((await api.orgs.orgDeleteLabel('acme', orgLabel.id!)).status, 204);
  const ms = (await api.repos.issueCreateMilestone('alice', 'proj', { title: 'v1', due_on: '2030-01-01T00:00:00Z' })).data;
  t.equal(ms.title, 'v1');
  t.same((await api.repos.issueGetMilestonesList('alice', 'proj')).data.map((m) => m.title), ['v1']);
  t.equal((await api.repos.issueGetMilestone('alice', 'proj', String(ms.id))).data.title, 'v1');
  t.equal((await api.repos.issueEditMilestone('alice', 'proj', String(ms.id), { description: 'first' })).data.description, 'first');

  // issues
  const created = await api.repos.issueCreateIssue('alice', 'proj', { title: 'Broken', body: 'it broke', labels: [bug.id!], milestone: ms.id, assignees: ['alice'] });
  t.equal(created.status, 201);
  const issue = created.data;
  t.equal(issue.number, 1);
  t.same(issue.labels!.map((l) => l.name), ['bug']);
  t.equal(issue.milestone!.id, ms.id);
  t.equal(issue.assignees![0]!.login, 'alice');
  t.equal((await api.repos.issueGetIssue('alice', 'proj', 1)).data.title, 'Broken');
  const listed = await api.repos.issueListIssues('alice', 'proj', { state: 'open', labels: 'bug', type: 'issues' });
  t.same(listed.data.map((i) => i.number), [1]);
  t.equal(listed.headers.get('x-total-count'), '1');
  t.same((await api.repos.issueSearchIssues({ q: 'broke' })).data.map((i) => i.number), [1]);
  const edited = await api.repos.issueEditIssue('alice', 'proj', 1, { title: 'Broken badly', state: 'closed' });
  t.equal(edited.status, 201);
  t.equal(edited.data.state, 'closed');
  t.equal((await api.repos.issueEditIssueDeadline('alice', 'proj', 1, { due_date: '2031-02-03T04:05:06Z' })).data.due_date, '2031-02-03T04:05:06Z');
  t.same((await api.repos.repoGetAssignees('alice', 'proj')).data.map((u) => u.login), ['alice']);

  // issue labels
  await api.repos.issueCreateLabel('alice', 'proj', { name: 'docs', color: '#0000ff' });
  t.same((await api.repos.issueAddLabel('alice', 'proj', 1, { labels: ['docs'] as unknown as number[] })).data.map((l) => l.name), ['bug', 'docs']);
  t.same((await api.repos.issueGetLabels('alice', 'proj', 1)).data.map((l) => l.name), ['bug', 'docs']);
  t.same((await api.repos.issueReplaceLabels('alice', 'proj', 1, { labels: [bug.id!] })).data.map((l) => l.name), ['bug']);
  t.equal((await api.repos.issueRemoveLabel('alice', 'proj', 1, bug.id!)).status, 204);
  t.equal((await api.repos.issueClearLabels('alice', 'proj', 1)).status, 204);

  // comments and reactions
  const comment = (await asBob.repos.issueCreateComment('alice', 'proj', 1, { body: 'me too' })).data;
  t.equal(comment.body, 'me too');
  t.same((await api.repos.issueGetComments('alice', 'proj', 1)).data.map((c) => c.id), [comment.id]);
  t.same((await api.repos.issueGetRepoComments('alice', 'proj')).data.map((c) => c.id), [comment.id]);
  t.equal((await api.repos.issueGetComment('alice', 'proj', comment.id!)).data.body, 'me too');
  t.equal((await asBob.repos.issueEditComment('alice', 'proj', comment.id!, { body: 'me three' })).data.body, 'me three');
  t.equal((await asBob.repos.issuePostIssueReaction('alice', 'proj', 1, { content: 'heart' })).status, 201);
  t.same((await api.repos.issueGetIssueReactions('alice', 'proj', 1)).data.map((r) => r.content), ['heart']);
  t.equal((await asBob.repos.issueDeleteIssueReaction('alice', 'proj', 1, { content: 'heart' })).status, 200);
  t.equal((await asBob.repos.issuePostCommentReaction('alice', 'proj', comment.id!, { content: '+1' })).status, 201);
  t.same((await api.repos.issueGetCommentReactions('alice', 'proj', comment.id!)).data.map((r) => r.content), ['+1']);
  t.equal((await asBob.repos.issueDeleteCommentReaction('alice', 'proj', comment.id!, { content: '+1' })).status, 200);
  t.equal((await asBob.repos.issueDeleteComment('alice', 'proj', comment.id!)).status, 204);
  // The deprecated paths under /issues/{index}/comments/{id}.
  const old = (await asBob.repos.issueCreateComment('alice', 'proj', 1, { body: 'old path' })).data;
  const oldEdited = await asBob.repos.issueEditCommentDeprecated('alice', 'proj', 1, old.id!, { body: 'old path, edited' });
  t.equal(oldEdited.data.body, 'old path, edited');
  assertConforms(t, 'issueEditCommentDeprecated', oldEdited.data);
  t.equal((await asBob.repos.issueDeleteCommentDeprecated('alice', 'proj', 1, old.id!)).status, 204);

  // subscriptions and pins
  t.equal((await asBob.repos.issueDeleteSubscription('alice', 'proj', 1, 'bob')).status, 201, 'commenting subscribed bob');
  t.equal((await asBob.repos.issueCheckSubscription('alice', 'proj', 1)).data.subscribed, false);
  t.equal((await asBob.repos.issueAddSubscription('alice', 'proj', 1, 'bob')).status, 201);
  t.equal((await asBob.repos.issueCheckSubscription('alice', 'proj', 1)).data.subscribed, true);
  t.ok((await api.repos.issueSubscriptions('alice', 'proj', 1)).data.some((u) => u.login === 'bob'));
  t.equal((await asBob.repos.issueDeleteSubscription('alice', 'proj', 1, 'bob')).status, 201);
  t.equal((await api.repos.pinIssue('alice', 'proj', 1)).status, 204);
  t.same((await api.repos.repoListPinnedIssues('alice', 'proj')).data.map((i) => i.number), [1]);
  t.same((await api.repos.repoNewPinAllowed('alice', 'proj')).data, { issues: true, pull_requests: true });
  t.equal((await api.repos.moveIssuePin('alice', 'proj', 1, 1)).status, 204);
  t.equal((await api.repos.unpinIssue('alice', 'proj', 1)).status, 204);

  // clean-up methods
  t.equal((await api.repos.issueDeleteMilestone('alice', 'proj', String(ms.id))).status, 204);
  t.equal((await api.repos.issueDeleteLabel('alice', 'proj', bug.id!)).status, 204);
  t.equal((await api.repos.issueDelete('alice', 'proj', 1)).status, 204);
  await t.rejects(api.repos.issueGetIssue('alice', 'proj', 1), 'gitea-js rejects a 404 (with its JSON body)');
});
