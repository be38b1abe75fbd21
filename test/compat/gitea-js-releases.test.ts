// gitea-js (the generated Gitea client) against forgekit's releases plugin, unmodified: releases and their
// attachments (uploaded the way gitea-js sends them: multipart/form-data with an `attachment` file), each answer
// checked against gitea-js's declared types.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';

t.test('gitea-js release methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const api = giteaClient(f, alice.token);
  t.equal((await api.user.createCurrentUserRepo({ name: 'proj', auto_init: true, readme: 'Default' })).status, 201);

  const created = await api.repos.repoCreateRelease('alice', 'proj', { tag_name: 'v1.0', name: 'One', body: 'first' });
  t.equal(created.status, 201);
  assertConforms(t, 'repoCreateRelease', created.data);
  const id = created.data.id!;
  const pre = await api.repos.repoCreateRelease('alice', 'proj', { tag_name: 'v1.1-rc', prerelease: true });
  t.equal(pre.status, 201);

  const listed = await api.repos.repoListReleases('alice', 'proj', { 'pre-release': false });
  assertConforms(t, 'repoListReleases', listed.data);
  t.same(listed.data.map((r) => r.tag_name), ['v1.0']);
  assertConforms(t, 'repoGetRelease', (await api.repos.repoGetRelease('alice', 'proj', id)).data);
  const byTag = await api.repos.repoGetReleaseByTag('alice', 'proj', 'v1.0');
  assertConforms(t, 'repoGetReleaseByTag', byTag.data);
  t.equal(byTag.data.id, id);
  const latest = await api.repos.repoGetLatestRelease('alice', 'proj');
  assertConforms(t, 'repoGetLatestRelease', latest.data);
  t.equal(latest.data.tag_name, 'v1.0');
  const edited = await api.repos.repoEditRelease('alice', 'proj', id, { name: 'One!' });
  assertConforms(t, 'repoEditRelease', edited.data);
  t.equal(edited.data.name, 'One!');

  // attachments
  const file = new File([Buffer.from('#!/bin/sh\necho hi\n')], 'tool.sh', { type: 'application/x-sh' });
  const up = await api.repos.repoCreateReleaseAttachment('alice', 'proj', id, { attachment: file });
  t.equal(up.status, 201);
  assertConforms(t, 'repoCreateReleaseAttachment', up.data);
  t.equal(up.data.name, 'tool.sh');
  t.equal(up.data.size, 18);
  const named = await api.repos.repoCreateReleaseAttachment('alice', 'proj', id, { attachment: file }, { name: 'renamed.sh' });
  t.equal(named.data.name, 'renamed.sh');
  const assets = await api.repos.repoListReleaseAttachments('alice', 'proj', id);
  assertConforms(t, 'repoListReleaseAttachments', assets.data);
  t.same(assets.data.map((a) => a.name), ['tool.sh', 'renamed.sh']);
  const one = await api.repos.repoGetReleaseAttachment('alice', 'proj', id, up.data.id!);
  assertConforms(t, 'repoGetReleaseAttachment', one.data);
  const renamed = await api.repos.repoEditReleaseAttachment('alice', 'proj', id, up.data.id!, { name: 'tool-v1.sh' });
  assertConforms(t, 'repoEditReleaseAttachment', renamed.data);
  t.equal(renamed.data.name, 'tool-v1.sh');
  const dl = await fetch(renamed.data.browser_download_url!);
  t.equal(await dl.text(), '#!/bin/sh\necho hi\n');
  t.equal((await api.repos.repoDeleteReleaseAttachment('alice', 'proj', id, up.data.id!)).status, 204);
  t.equal((await settle(api.repos.repoGetReleaseAttachment('alice', 'proj', id, up.data.id!))).status, 404);

  t.equal((await api.repos.repoDeleteReleaseByTag('alice', 'proj', 'v1.1-rc')).status, 204);
  t.equal((await api.repos.repoDeleteRelease('alice', 'proj', id)).status, 204);
  t.equal((await settle(api.repos.repoGetRelease('alice', 'proj', id))).status, 404);
});

t.test('gitea-js issue and comment attachment methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const api = giteaClient(f, alice.token);
  t.equal((await api.user.createCurrentUserRepo({ name: 'proj' })).status, 201);
  const issue = (await api.repos.issueCreateIssue('alice', 'proj', { title: 'crash' })).data;
  const file = new File([Buffer.from('stack trace\n')], 'trace.txt', { type: 'text/plain' });

  const up = await api.repos.issueCreateIssueAttachment('alice', 'proj', issue.number!, { attachment: file });
  t.equal(up.status, 201);
  assertConforms(t, 'issueCreateIssueAttachment', up.data);
  t.equal(up.data.name, 'trace.txt');
  const listed = await api.repos.issueListIssueAttachments('alice', 'proj', issue.number!);
  assertConforms(t, 'issueListIssueAttachments', listed.data);
  t.same(listed.data.map((a) => a.id), [up.data.id]);
  assertConforms(t, 'issueGetIssueAttachment', (await api.repos.issueGetIssueAttachment('alice', 'proj', issue.number!, up.data.id!)).data);
  const renamed = await api.repos.issueEditIssueAttachment('alice', 'proj', issue.number!, up.data.id!, { name: 'trace-1.txt' });
  assertConforms(t, 'issueEditIssueAttachment', renamed.data);
  t.equal(renamed.data.name, 'trace-1.txt');
  t.same((await api.repos.issueGetIssue('alice', 'proj', issue.number!)).data.assets?.map((a) => a.name), ['trace-1.txt']);
  t.equal((await api.repos.issueDeleteIssueAttachment('alice', 'proj', issue.number!, up.data.id!)).status, 204);
  t.equal((await settle(api.repos.issueGetIssueAttachment('alice', 'proj', issue.number!, up.data.id!))).status, 404);

  const comment = (await api.repos.issueCreateComment('alice', 'proj', issue.number!, { body: 'log attached' })).data;
  const cup = await api.repos.issueCreateIssueCommentAttachment('alice', 'proj', comment.id!, { attachment: file }, { name: 'log.txt' });
  t.equal(cup.status, 201);
  assertConforms(t, 'issueCreateIssueCommentAttachment', cup.data);
  t.equal(cup.data.name, 'log.txt');
  const clisted = await api.repos.issueListIssueCommentAttachments('alice', 'proj', comment.id!);
  assertConforms(t, 'issueListIssueCommentAttachments', clisted.data);
  t.same(clisted.data.map((a) => a.id), [cup.data.id]);
  assertConforms(t, 'issueGetIssueCommentAttachment', (await api.repos.issueGetIssueCommentAttachment('alice', 'proj', comment.id!, cup.data.id!)).data);
  const crenamed = await api.repos.issueEditIssueCommentAttachment('alice', 'proj', comment.id!, cup.data.id!, { name: 'log-1.txt' });
  assertConforms(t, 'issueEditIssueCommentAttachment', crenamed.data);
  t.same((await api.repos.issueGetComment('alice', 'proj', comment.id!)).data.assets?.map((a) => a.name), ['log-1.txt']);
  t.equal((await api.repos.issueDeleteIssueCommentAttachment('alice', 'proj', comment.id!, cup.data.id!)).status, 204);
  t.same((await api.repos.issueListIssueCommentAttachments('alice', 'proj', comment.id!)).data, []);
});
