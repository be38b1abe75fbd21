// gitea-js (the generated Gitea client) against forgekit's contents plugin, unmodified: every branch, branch
// protection, tag, commit, compare, git-data (refs, trees, blobs, notes, annotated tags), file (contents, raw, media,
// archive, languages, editorconfig) and file-write method, each answer checked against gitea-js's declared type.
import t from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';
import { runGit, withAuth } from '../helpers/git-client.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

t.test('gitea-js contents methods', async (t) => {
  const f = await startForge();
  const gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gjs-contents-'));
  t.teardown(async () => {
    await f.close();
    await rm(gitHome, { recursive: true, force: true });
  });
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const api = giteaClient(f, alice.token);
  const asBob = giteaClient(f, bob.token);
  const anon = giteaClient(f);
  const repo = await api.user.createCurrentUserRepo({ name: 'proj', auto_init: true, default_branch: 'main', readme: 'Default' });
  t.equal(repo.status, 201);

  // ---- file writes ----
  const created = await api.repos.repoCreateFile('alice', 'proj', 'src/index.ts', { content: b64('export const x = 1;\n'), message: 'add index' });
  t.equal(created.status, 201);
  assertConforms(t, 'repoCreateFile', created.data);
  const updated = await api.repos.repoUpdateFile('alice', 'proj', 'src/index.ts', { content: b64('export const x = 2;\n'), sha: created.data.content!.sha!, message: 'bump' });
  t.equal(updated.status, 200);
  assertConforms(t, 'repoUpdateFile', updated.data);
  const stale = await settle(api.repos.repoUpdateFile('alice', 'proj', 'src/index.ts', { content: b64('lost\n'), sha: created.data.content!.sha!, message: 'stale' }));
  t.equal(stale.status, 409, 'a stale blob sha is a conflict');
  const changed = await api.repos.repoChangeFiles('alice', 'proj', {
    message: 'several',
    files: [
      { operation: 'create', path: 'docs/a.md', content: b64('# a\n') },
      { operation: 'create', path: '.editorconfig', content: b64('root = true\n\n[*.ts]\nindent_style = space\nindent_size = 2\n') },
      { operation: 'create', path: 'gone.txt', content: b64('bye\n') },
    ],
  });
  t.equal(changed.status, 201);
  assertConforms(t, 'repoChangeFiles', changed.data);
  t.equal(changed.data.files!.length, 3);
  const goneSha = changed.data.files!.find((x) => x.path === 'gone.txt')!.sha!;
  const deleted = await settle(api.repos.repoDeleteFile('alice', 'proj', 'gone.txt', { sha: goneSha, message: 'remove' }));
  t.equal(deleted.status, 200);
  assertConforms(t, 'repoDeleteFile', deleted.data);
  t.equal((await settle(asBob.repos.repoCreateFile('alice', 'proj', 'x.txt', { content: b64('x') }))).status, 403, 'a reader cannot write');

  // A pushed note and an annotated tag made by git, for the git-data reads.
  const work = path.join(gitHome, 'work');
  const must = async (args: string[], cwd?: string, env?: Record<string, string>) => {
    const r = await runGit(args, { home: gitHome, cwd, env });
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const url = withAuth(repo.data.clone_url!, 'alice', alice.token);
  await must(['clone', '-q', url, work]);
  await writeFile(path.join(work, 'notes.txt'), 'n\n');
  await must(['add', '.'], work);
  // Authored with alice's primary address, committed with an address she added but never verified.
  t.equal((await api.user.userAddEmail({ emails: ['alice-alt@example.com'] })).status, 201);
  await must(['commit', '-qm', 'pushed with git'], work, { GIT_AUTHOR_EMAIL: alice.email, GIT_COMMITTER_EMAIL: 'alice-alt@example.com' });
  const head = await must(['rev-parse', 'HEAD'], work);
  await must(['notes', 'add', '-m', 'a note', head], work);
  await must(['tag', '-a', 'v0', '-m', 'tag by git', head], work);
  await must(['push', '-q', url, 'main', 'v0', 'refs/notes/commits'], work);

  // ---- branches ----
  const branch = await api.repos.repoCreateBranch('alice', 'proj', { new_branch_name: 'feature', old_ref_name: 'main' });
  t.equal(branch.status, 201);
  assertConforms(t, 'repoCreateBranch', branch.data);
  const branches = await api.repos.repoListBranches('alice', 'proj');
  t.same(branches.data.map((b) => b.name), ['feature', 'main']);
  assertConforms(t, 'repoListBranches', branches.data);
  const main = await api.repos.repoGetBranch('alice', 'proj', 'main');
  assertConforms(t, 'repoGetBranch', main.data);
  t.equal(main.data.commit!.id, head);
  t.equal((await settle(api.repos.repoUpdateBranch('alice', 'proj', 'feature', { name: 'feature2' }))).status, 204);
  t.equal((await api.repos.repoGetBranch('alice', 'proj', 'feature2')).data.name, 'feature2');
  t.equal((await settle(api.repos.repoDeleteBranch('alice', 'proj', 'feature2'))).status, 204);
  t.equal((await settle(api.repos.repoGetBranch('alice', 'proj', 'feature2'))).status, 404);

  // ---- branch protection ----
  const rule = await api.repos.repoCreateBranchProtection('alice', 'proj', {
    rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['alice'],
    required_approvals: 1, enable_status_check: true, status_check_contexts: ['ci/*'],
  });
  t.equal(rule.status, 201);
  assertConforms(t, 'repoCreateBranchProtection', rule.data);
  assertConforms(t, 'repoListBranchProtection', (await api.repos.repoListBranchProtection('alice', 'proj')).data);
  assertConforms(t, 'repoGetBranchProtection', (await api.repos.repoGetBranchProtection('alice', 'proj', 'main')).data);
  const edited = await api.repos.repoEditBranchProtection('alice', 'proj', 'main', { required_approvals: 2 });
  t.equal(edited.data.required_approvals, 2);
  assertConforms(t, 'repoEditBranchProtection', edited.data);
  t.equal((await api.repos.repoGetBranch('alice', 'proj', 'main')).data.protected, true);
  t.equal((await settle(api.repos.repoDeleteBranchProtection('alice', 'proj', 'main'))).status, 204);
  t.same((await api.repos.repoListBranchProtection('alice', 'proj')).data, []);

  // ---- tags ----
  const tag = await api.repos.repoCreateTag('alice', 'proj', { tag_name: 'v1', message: 'release one', target: 'main' });
  t.equal(tag.status, 201);
  assertConforms(t, 'repoCreateTag', tag.data);
  const light = await api.repos.repoCreateTag('alice', 'proj', { tag_name: 'v1-light', target: 'main' });
  assertConforms(t, 'repoCreateTag', light.data);
  const tags = await api.repos.repoListTags('alice', 'proj');
  t.same(tags.data.map((x) => x.name).sort(), ['v0', 'v1', 'v1-light']);
  assertConforms(t, 'repoListTags', tags.data);
  assertConforms(t, 'repoGetTag', (await api.repos.repoGetTag('alice', 'proj', 'v1')).data);
  const annotated = await api.repos.getAnnotatedTag('alice', 'proj', tag.data.id!);
  t.equal(annotated.data.tag, 'v1');
  assertConforms(t, 'getAnnotatedTag', annotated.data);
  t.equal((await settle(api.repos.repoDeleteTag('alice', 'proj', 'v1-light'))).status, 204);

  // ---- commits and compare ----
  const commits = await api.repos.repoGetAllCommits('alice', 'proj', { sha: 'main', stat: true, verification: true, files: true });
  t.equal(commits.data[0]!.sha, head);
  t.equal(commits.headers.get('x-total-count'), String(commits.data.length));
  assertConforms(t, 'repoGetAllCommits', commits.data);
  const byPath = await api.repos.repoGetAllCommits('alice', 'proj', { path: 'src/index.ts' });
  t.same(byPath.data.map((c) => c.commit!.message), ['bump\n', 'add index\n']);
  const one = await api.repos.repoGetSingleCommit('alice', 'proj', head);
  t.equal(one.data.sha, head);
  t.equal(one.data.author?.login, 'alice', 'the author is the account whose primary address the commit carries');
  t.equal(one.data.committer, null, 'an unverified secondary address names nobody');
  t.equal(commits.data.find((c) => c.commit!.message === 'bump\n')!.author?.login, 'alice', 'API writes carry the no-reply address, which names its account');
  assertConforms(t, 'repoGetSingleCommit', one.data);
  const diff = await settle(api.repos.repoDownloadCommitDiffOrPatch('alice', 'proj', head, 'diff', { format: 'text' }));
  t.equal(diff.status, 200);
  t.match(String(diff.data), /\+n/);
  const patch = await settle(api.repos.repoDownloadCommitDiffOrPatch('alice', 'proj', head, 'patch', { format: 'text' }));
  t.match(String(patch.data), /Subject: \[PATCH\] pushed with git/);
  const first = commits.data[commits.data.length - 1]!.sha!;
  const compare = await api.repos.repoCompareDiff('alice', 'proj', `${first}...main`);
  t.equal(compare.data.total_commits, commits.data.length - 1);
  assertConforms(t, 'repoCompareDiff', compare.data);

  // ---- git data ----
  const refs = await api.repos.repoListAllGitRefs('alice', 'proj');
  t.ok(refs.data.some((r) => r.ref === 'refs/heads/main' && r.object!.sha === head));
  assertConforms(t, 'repoListAllGitRefs', refs.data);
  const tagRefs = await api.repos.repoListGitRefs('alice', 'proj', 'tags');
  t.same(tagRefs.data.map((r) => r.ref), ['refs/tags/v0', 'refs/tags/v1']);
  assertConforms(t, 'repoListGitRefs', tagRefs.data);
  const tree = await api.repos.getTree('alice', 'proj', 'main', { recursive: true });
  t.ok(tree.data.tree!.some((e) => e.path === 'src/index.ts' && e.type === 'blob'));
  assertConforms(t, 'getTree', tree.data);
  const blobSha = tree.data.tree!.find((e) => e.path === 'src/index.ts')!.sha!;
  const blob = await api.repos.getBlob('alice', 'proj', blobSha);
  t.equal(Buffer.from(blob.data.content!, 'base64').toString(), 'export const x = 2;\n');
  assertConforms(t, 'getBlob', blob.data);
  const note = await api.repos.repoGetNote('alice', 'proj', head);
  t.equal(note.data.message, 'a note\n');
  assertConforms(t, 'repoGetNote', note.data);

  // ---- files ----
  const file = await api.repos.repoGetContents('alice', 'proj', 'src/index.ts', { ref: 'main' });
  t.equal(file.data.type, 'file');
  assertConforms(t, 'repoGetContents', file.data);
  const dir = await api.repos.repoGetContents('alice', 'proj', 'src');
  t.ok(Array.isArray(dir.data), 'a directory is a list');
  for (const entry of dir.data as unknown as unknown[]) assertConforms(t, 'repoGetContents', entry);
  const root = await api.repos.repoGetContentsList('alice', 'proj');
  t.ok(root.data.some((e) => e.name === 'README.md'));
  assertConforms(t, 'repoGetContentsList', root.data);
  const raw = await settle(api.repos.repoGetRawFile('alice', 'proj', 'src/index.ts', { ref: 'main' }, { format: 'text' }));
  t.equal(raw.status, 200);
  t.equal(raw.data, 'export const x = 2;\n');
  const media = await settle(api.repos.repoGetRawFileOrLfs('alice', 'proj', 'src/index.ts', {}, { format: 'text' }));
  t.equal(media.data, 'export const x = 2;\n');
  const archive = await settle(api.repos.repoGetArchive('alice', 'proj', 'main.zip', { format: 'arrayBuffer' }));
  t.equal(archive.status, 200);
  t.equal(Buffer.from(archive.data as unknown as ArrayBuffer).subarray(0, 2).toString('latin1'), 'PK');
  const langs = await api.repos.repoGetLanguages('alice', 'proj');
  t.ok(langs.data.TypeScript! > 0);
  assertConforms(t, 'repoGetLanguages', langs.data);
  const editorconfig = await settle(api.repos.repoGetEditorConfig('alice', 'proj', 'src/index.ts'));
  t.equal(editorconfig.status, 200);
  t.match(editorconfig.data, { indent_style: 'space', indent_size: '2' });

  // ---- private repositories are 404 to strangers and anonymous callers, through the same client ----
  t.equal((await settle(api.repos.repoEdit('alice', 'proj', { private: true }))).status, 200);
  for (const client of [asBob, anon]) {
    t.equal((await settle(client.repos.repoListBranches('alice', 'proj'))).status, 404);
    t.equal((await settle(client.repos.repoGetContents('alice', 'proj', 'src/index.ts'))).status, 404);
    t.equal((await settle(client.repos.repoGetAllCommits('alice', 'proj'))).status, 404);
  }
});
