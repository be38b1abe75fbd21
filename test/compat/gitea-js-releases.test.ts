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
