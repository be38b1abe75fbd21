// gitea-js (the generated Gitea client) against forgekit's pulls plugin, unmodified: every pull request and review
// method, each answer checked against gitea-js's declared type with assertConforms.
import t from 'tap';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';
import { startForge } from '../helpers/forge.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('gitea-js pull request methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'pa' });
  const bob = await f.createUser({ username: 'pb' });
  const api = giteaClient(f, alice.token);
  const asBob = giteaClient(f, bob.token);
  t.equal((await api.user.createCurrentUserRepo({ name: 'proj', auto_init: true, readme: 'Default' })).status, 201);
  t.equal((await api.repos.repoAddCollaborator('pa', 'proj', 'pb', { permission: 'write' })).status, 204);
  // Branches with commits, written through the contents API (a new branch from master per file).
  for (const [branch, file] of [['feat', 'a.txt'], ['other', 'b.txt'], ['third', 'c.txt']] as const) {
    const res = await api.repos.repoCreateFile('pa', 'proj', file, { content: b64(`${file}\n`), branch: 'master', new_branch: branch, message: `add ${file}` });
    t.equal(res.status, 201);
  }

  const created = await api.repos.repoCreatePullRequest('pa', 'proj', { head: 'feat', base: 'master', title: 'Feature', body: 'body', reviewers: ['pb'] });
  t.equal(created.status, 201);
  assertConforms(t, 'repoCreatePullRequest', created.data);
  t.equal(created.data.mergeable, true);
  const n = created.data.number!;

  const listed = await api.repos.repoListPullRequests('pa', 'proj', { state: 'open', sort: 'oldest' });
  assertConforms(t, 'repoListPullRequests', listed.data);
  t.same(listed.data.map((p) => p.number), [n]);
  const got = await api.repos.repoGetPullRequest('pa', 'proj', n);
  assertConforms(t, 'repoGetPullRequest', got.data);
  const pair = await api.repos.repoGetPullRequestByBaseHead('pa', 'proj', 'master', 'feat');
  assertConforms(t, 'repoGetPullRequestByBaseHead', pair.data);
  t.equal(pair.data.number, n);
  const pinned = await api.repos.repoListPinnedPullRequests('pa', 'proj');
  assertConforms(t, 'repoListPinnedPullRequests', pinned.data);
  const edited = await api.repos.repoEditPullRequest('pa', 'proj', n, { title: 'Feature!', body: 'more' });
  t.equal(edited.status, 201);
  assertConforms(t, 'repoEditPullRequest', edited.data);
  t.equal(edited.data.title, 'Feature!');

  const diff = await api.repos.repoDownloadPullDiffOrPatch('pa', 'proj', n, 'diff', {}, { format: 'text' });
  t.match(String(diff.data), /diff --git a\/a\.txt b\/a\.txt/);
  const patch = await api.repos.repoDownloadPullDiffOrPatch('pa', 'proj', n, 'patch', {}, { format: 'text' });
  t.match(String(patch.data), /Subject: \[PATCH\] add a\.txt/);
  const files = await api.repos.repoGetPullRequestFiles('pa', 'proj', n);
  assertConforms(t, 'repoGetPullRequestFiles', files.data);
  t.same(files.data.map((x) => [x.filename, x.status]), [['a.txt', 'added']]);
  const commits = await api.repos.repoGetPullRequestCommits('pa', 'proj', n);
  assertConforms(t, 'repoGetPullRequestCommits', commits.data);
  t.equal(commits.data.length, 1);

  // reviews
  const requested = await api.repos.repoCreatePullReviewRequests('pa', 'proj', n, { reviewers: ['pb'] });
  t.equal(requested.status, 201);
  assertConforms(t, 'repoCreatePullReviewRequests', requested.data);
  t.equal((await api.repos.repoDeletePullReviewRequests('pa', 'proj', n, { reviewers: ['pb'] })).status, 204);
  const pending = await asBob.repos.repoCreatePullReview('pa', 'proj', n, {
    body: 'first look', comments: [{ path: 'a.txt', body: 'this line', new_position: 1 }],
  });
  assertConforms(t, 'repoCreatePullReview', pending.data);
  t.equal(pending.data.state, 'PENDING');
  t.equal((await settle(api.repos.repoGetPullReview('pa', 'proj', n, pending.data.id!))).status, 404, "someone else's pending review is hidden");
  const submitted = await asBob.repos.repoSubmitPullReview('pa', 'proj', n, pending.data.id!, { event: 'APPROVED', body: 'lgtm' });
  assertConforms(t, 'repoSubmitPullReview', submitted.data);
  t.equal(submitted.data.state, 'APPROVED');
  t.equal(submitted.data.official, true);
  const one = await api.repos.repoGetPullReview('pa', 'proj', n, pending.data.id!);
  assertConforms(t, 'repoGetPullReview', one.data);
  const reviews = await api.repos.repoListPullReviews('pa', 'proj', n);
  assertConforms(t, 'repoListPullReviews', reviews.data);
  t.same(reviews.data.map((r) => r.state), ['APPROVED']);
  const comments = await api.repos.repoGetPullReviewComments('pa', 'proj', n, pending.data.id!);
  assertConforms(t, 'repoGetPullReviewComments', comments.data);
  t.match(comments.data, [{ path: 'a.txt', body: 'this line', position: 1, diff_hunk: /^@@ -0,0 \+1 @@\n\+a\.txt$/ }]);
  const dismissed = await api.repos.repoDismissPullReview('pa', 'proj', n, pending.data.id!, { message: 'stale' });
  assertConforms(t, 'repoDismissPullReview', dismissed.data);
  t.equal(dismissed.data.dismissed, true);
  const undismissed = await api.repos.repoUnDismissPullReview('pa', 'proj', n, pending.data.id!);
  assertConforms(t, 'repoUnDismissPullReview', undismissed.data);
  t.equal(undismissed.data.dismissed, false);
  const comment = await asBob.repos.repoCreatePullReview('pa', 'proj', n, { event: 'COMMENT', body: 'a remark' });
  t.equal((await asBob.repos.repoDeletePullReview('pa', 'proj', n, comment.data.id!)).status, 204);

  // update and merge
  const second = (await api.repos.repoCreatePullRequest('pa', 'proj', { head: 'other', base: 'master', title: 'Other' })).data;
  t.equal((await settle(api.repos.repoPullRequestIsMerged('pa', 'proj', n))).status, 404);
  t.equal((await api.repos.repoMergePullRequest('pa', 'proj', n, { Do: 'merge' })).status, 200);
  t.equal((await settle(api.repos.repoPullRequestIsMerged('pa', 'proj', n))).status, 204);
  t.equal((await api.repos.repoUpdatePullRequest('pa', 'proj', second.number!, { style: 'merge' })).status, 200);
  const updated = await api.repos.repoGetPullRequestCommits('pa', 'proj', second.number!);
  t.equal(updated.data.length, 2, 'the base was merged into the head: its own commit and the merge commit');
  t.equal((await api.repos.repoMergePullRequest('pa', 'proj', second.number!, { Do: 'squash', MergeTitleField: 'Squashed' })).status, 200);
  const merged = await api.repos.repoGetPullRequest('pa', 'proj', second.number!);
  t.equal(merged.data.merged, true);
  assertConforms(t, 'repoGetPullRequest', merged.data);
});
