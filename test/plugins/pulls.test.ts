// pulls plugin through HTTP with real git: branches pushed over smart HTTP, pull requests opened through the API,
// diff/files/commits, mergeability from merge-tree, every merge style verified by cloning the result, conflicts, a
// moved base, forks across owners and privacy, head updates on push, branch protection, has_pull_requests: false.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { definePlugin } from '../../core/plugin.js';
import { runGit, withAuth } from '../helpers/git-client.js';
import { waitFor } from '../helpers/wait.js';

async function git(home: string, cwd: string, ...args: string[]): Promise<string> {
  const r = await runGit(args, { home, cwd });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv, auto_init: true, readme: 'Default' } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

/** A working clone of a repository, pushing as `user`. */
async function clone(f: TestForge, user: TestUser, fullName: string, home: string): Promise<string> {
  const dir = await mkdtemp(path.join(home, 'wc-'));
  await git(home, dir, 'clone', '-q', withAuth(`${f.url}/${fullName}.git`, user.username, user.token), '.');
  return dir;
}

/** Commits `files` on `branch` (created from `from` when new) and pushes it. */
async function commitOn(home: string, dir: string, branch: string, files: Record<string, string>, message: string, from = 'origin/master'): Promise<string> {
  const exists = (await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { home, cwd: dir })).code === 0;
  if (exists) await git(home, dir, 'checkout', '-q', branch);
  else await git(home, dir, 'checkout', '-q', '-b', branch, from);
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(dir, name), content);
    await git(home, dir, 'add', name);
  }
  await git(home, dir, 'commit', '-q', '-m', message);
  await git(home, dir, 'push', '-q', 'origin', branch);
  return git(home, dir, 'rev-parse', 'HEAD');
}

/** What the pulls plugin emitted, recorded by a test plugin (the webhooks plugin turns these into Gitea payloads). */
const seen: Array<{ event: string; action: string; number: number; merged?: unknown; reviewer?: number }> = [];
const probe = definePlugin({
  name: 'pull-events-probe',
  start(ctx) {
    ctx.events.on('pull_request.changed', (e) => {
      seen.push({ event: 'changed', action: e.action, number: e.number, merged: e.pullRequest.merged, reviewer: e.requestedReviewerId });
    });
    ctx.events.on('pull_request.reviewed', (e) => {
      seen.push({ event: 'reviewed', action: e.kind, number: e.number });
    });
  },
});

t.test('pulls', async (t) => {
  const f = await startForge({ extraPlugins: [probe] });
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pulls-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const alice = await f.createUser();
  const bob = await f.createUser();
  const carol = await f.createUser();
  const repo = await createRepo(f, alice, 'proj');
  const base = `/repos/${repo.full_name}`;
  const wc = await clone(f, alice, repo.full_name, home);
  const masterSha = await git(home, wc, 'rev-parse', 'HEAD');

  let pr1: any;
  t.test('create: 201 PullRequest with head/base, mergeable from merge-tree, counts', async (t) => {
    const headSha = await commitOn(home, wc, 'feature', { 'a.txt': 'one\ntwo\n', 'README.md': '# proj\nchanged\n' }, 'Add a.txt');
    const res = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'feature', base: 'master', title: 'Add a', body: 'Fixes #99' } });
    t.equal(res.status, 201, res.text);
    pr1 = res.json;
    t.match(pr1, {
      number: 1, state: 'open', title: 'Add a', merged: false, mergeable: true, changed_files: 2, additions: 3,
      head: { ref: 'feature', sha: headSha, label: 'feature', repo: { full_name: repo.full_name } },
      base: { ref: 'master', sha: masterSha, repo_id: repo.id }, merge_base: masterSha,
      user: { login: alice.username }, html_url: `${f.url}/${repo.full_name}/pulls/1`, diff_url: `${f.url}/${repo.full_name}/pulls/1.diff`,
    });
    // The issue half shares the number sequence and the issue list's type filter separates them.
    const issue = await f.request('GET', `${base}/issues/1`, { token: alice.token });
    t.equal(issue.status, 200);
    t.match(issue.json.pull_request, { merged: false, merged_at: null });
    t.equal((await f.request('GET', `${base}/issues?type=issues`, { token: alice.token })).json.length, 0);
    t.equal((await f.request('GET', `${base}/issues?type=pulls`, { token: alice.token })).json.length, 1);
    // refs/pull/1/head is there for clients to fetch.
    const ls = await git(home, wc, 'ls-remote', 'origin', 'refs/pull/1/head');
    t.match(ls, headSha);
  });

  t.test('create refusals: same branch 422, unknown branch 404, duplicate 409, stranger of a private repo 404, anonymous 401', async (t) => {
    t.equal((await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'master', base: 'master', title: 'x' } })).status, 422);
    t.equal((await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'nope', base: 'master', title: 'x' } })).status, 404);
    t.equal((await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'feature', base: 'nope', title: 'x' } })).status, 404);
    t.equal((await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'feature', base: 'master', title: 'again' } })).status, 409);
    t.equal((await f.request('POST', `${base}/pulls`, { json: { head: 'feature', base: 'master', title: 'x' } })).status, 401);
    t.equal((await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'feature', base: 'master' } })).status, 422);
  });

  t.test('get, list, by base/head, .diff, .patch, files, commits', async (t) => {
    const got = await f.request('GET', `${base}/pulls/1`);
    t.equal(got.status, 200);
    t.equal(got.json.id, pr1.id);
    const list = await f.request('GET', `${base}/pulls`);
    t.equal(list.status, 200);
    t.equal(list.headers.get('x-total-count'), '1');
    t.equal(list.json[0].number, 1);
    t.equal((await f.request('GET', `${base}/pulls?state=closed`)).json.length, 0);
    const byPair = await f.request('GET', `${base}/pulls/master/feature`);
    t.equal(byPair.status, 200);
    t.equal(byPair.json.number, 1);
    t.equal((await f.request('GET', `${base}/pulls/master/other`)).status, 404);
    const diff = await f.request('GET', `${base}/pulls/1.diff`);
    t.equal(diff.status, 200);
    t.match(diff.text, /diff --git a\/a\.txt b\/a\.txt/);
    t.match(diff.text, /\+changed/);
    const patch = await f.request('GET', `${base}/pulls/1.patch`);
    t.match(patch.text, /Subject: \[PATCH\] Add a\.txt/);
    const files = await f.request('GET', `${base}/pulls/1/files`);
    t.equal(files.status, 200);
    t.equal(files.headers.get('x-total-count'), '2');
    t.same(files.json.map((x: any) => [x.filename, x.status, x.additions, x.deletions, x.changes]).sort(),
      [['README.md', 'modified', 1, 0, 1], ['a.txt', 'added', 2, 0, 2]]);
    const paged = await f.request('GET', `${base}/pulls/1/files?limit=1&page=2`);
    t.equal(paged.json.length, 1);
    const commits = await f.request('GET', `${base}/pulls/1/commits`);
    t.equal(commits.status, 200);
    t.equal(commits.json.length, 1);
    t.match(commits.json[0], { sha: pr1.head.sha, commit: { message: 'Add a.txt\n' }, files: [{}, {}], stats: { additions: 3 } });
    t.equal((await f.request('GET', `${base}/pulls/99`)).status, 404);
    t.equal((await f.request('GET', `${base}/pulls/1/merge`)).status, 404);
  });

  t.test('edit: title/body by the poster, state by writers, readers 403; 201', async (t) => {
    const res = await f.request('PATCH', `${base}/pulls/1`, { token: alice.token, json: { title: 'Add a (edited)', body: 'Fixes #99\nmore' } });
    t.equal(res.status, 201, res.text);
    t.equal(res.json.title, 'Add a (edited)');
    t.equal((await f.request('PATCH', `${base}/pulls/1`, { token: bob.token, json: { title: 'hijack' } })).status, 403);
    const closed = await f.request('PATCH', `${base}/pulls/1`, { token: alice.token, json: { state: 'closed' } });
    t.equal(closed.json.state, 'closed');
    const reopened = await f.request('PATCH', `${base}/pulls/1`, { token: alice.token, json: { state: 'open' } });
    t.equal(reopened.json.state, 'open');
  });

  t.test('merge styles, each verified with git', async (t) => {
    const styles = ['merge', 'squash', 'rebase', 'rebase-merge', 'fast-forward-only'] as const;
    // Each style gets its own branch from the current master, with two commits.
    for (const style of styles) {
      await git(home, wc, 'fetch', '-q', 'origin');
      const branch = `style-${style}`;
      await commitOn(home, wc, branch, { [`${style}-1.txt`]: `${style} 1\n` }, `${style} first`, 'origin/master');
      const head = await commitOn(home, wc, branch, { [`${style}-2.txt`]: `${style} 2\n` }, `${style} second`);
      if (style !== 'fast-forward-only') {
        // Move master on so the merge is not a fast-forward (fast-forward-only needs master to stay an ancestor).
        await git(home, wc, 'fetch', '-q', 'origin');
        await commitOn(home, wc, `bump-${style}`, { [`bump-${style}.txt`]: 'bump\n' }, `bump for ${style}`, 'origin/master');
        await git(home, wc, 'push', '-q', 'origin', `bump-${style}:master`);
      }
      const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: branch, base: 'master', title: `Style ${style}` } });
      t.equal(opened.status, 201, opened.text);
      t.equal(opened.json.mergeable, true);
      const before = (await f.request('GET', `${base}/branches/master`, { token: alice.token })).json.commit.id;
      const merged = await f.request('POST', `${base}/pulls/${opened.json.number}/merge`, { token: alice.token, json: { Do: style } });
      t.equal(merged.status, 200, `${style}: ${merged.text}`);
      const after = await f.request('GET', `${base}/pulls/${opened.json.number}`);
      t.match(after.json, { merged: true, state: 'closed', merged_by: { login: alice.username } }, style);
      t.equal((await f.request('GET', `${base}/pulls/${opened.json.number}/merge`)).status, 204);
      t.equal((await f.request('GET', `${base}/issues/${opened.json.number}`)).json.pull_request.merged, true);
      await git(home, wc, 'fetch', '-q', 'origin');
      const tip = await git(home, wc, 'rev-parse', 'origin/master');
      t.equal(after.json.merge_commit_sha, tip, `${style}: merge_commit_sha is master's new tip`);
      const parents = (await git(home, wc, 'rev-list', '--parents', '-n', '1', tip)).split(' ').slice(1);
      const files = await git(home, wc, 'ls-tree', '--name-only', tip);
      t.match(files, `${style}-1.txt`);
      t.match(files, `${style}-2.txt`);
      const log = await git(home, wc, 'log', '--format=%s', `${before}..${tip}`);
      switch (style) {
        case 'merge':
          t.same(parents, [before, head]);
          t.match(log, /Merge pull request 'Style merge' \(#\d+\) from style-merge into master/);
          break;
        case 'squash':
          t.same(parents, [before]);
          t.equal(log, `Style squash (#${opened.json.number})`);
          break;
        case 'rebase':
          t.equal(log, 'rebase second\nrebase first');
          t.equal((await git(home, wc, 'log', '-1', '--format=%an', tip)), 'Test Author', 'rebase keeps the author');
          break;
        case 'rebase-merge':
          t.equal(parents.length, 2);
          t.equal(parents[0], before);
          t.match(log, /Merge pull request/);
          break;
        case 'fast-forward-only':
          t.equal(tip, head);
          break;
      }
      t.equal((await f.request('POST', `${base}/pulls/${opened.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } })).status, 405, 'merged twice');
    }
  });

  t.test('a work-in-progress title makes a draft that cannot be merged until the prefix goes', async (t) => {
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'wip-branch', { 'wip.txt': 'wip\n' }, 'wip', 'origin/master');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'wip-branch', base: 'master', title: 'WIP: not yet' } });
    t.equal(opened.status, 201, opened.text);
    t.equal(opened.json.draft, true, 'WIP: prefix');
    const n = opened.json.number;
    const refused = await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(refused.status, 405);
    t.equal(refused.json.message, 'Work in progress PRs cannot be merged');
    t.equal((await f.request('PATCH', `${base}/pulls/${n}`, { token: alice.token, json: { title: '[wip] still not' } })).json.draft, true, '[WIP] prefix, any case');
    const ready = await f.request('PATCH', `${base}/pulls/${n}`, { token: alice.token, json: { title: 'Ready now' } });
    t.equal(ready.json.draft, false);
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge' } })).status, 200);
  });

  t.test('conflicts: mergeable false with the files, merge 405; a base that moved between check and merge is never lost', async (t) => {
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'c1', { 'same.txt': 'left\n' }, 'left', 'origin/master');
    await commitOn(home, wc, 'c2', { 'same.txt': 'right\n' }, 'right', 'origin/master');
    const a = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'c1', base: 'master', title: 'c1' } });
    const b = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'c2', base: 'master', title: 'c2' } });
    t.equal(b.json.mergeable, true);
    t.equal((await f.request('POST', `${base}/pulls/${a.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } })).status, 200);
    // The push of the merge queued a background check of the other pull request: `checking` (mergeable false) first.
    const after = await waitFor('the background check of the other pull request', async () => {
      const got = await f.request('GET', `${base}/pulls/${b.json.number}`);
      return got.json.conflicted_files?.length ? got : null;
    });
    t.equal(after.json.mergeable, false, 'the push of the merge re-checked the other pull request');
    t.same(after.json.conflicted_files, ['same.txt']);
    const refused = await f.request('POST', `${base}/pulls/${b.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(refused.status, 405);
    // Racing merges of two mergeable pull requests: both land (serialised), master has both.
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'r1', { 'r1.txt': '1\n' }, 'r1', 'origin/master');
    await commitOn(home, wc, 'r2', { 'r2.txt': '2\n' }, 'r2', 'origin/master');
    const p1 = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'r1', base: 'master', title: 'r1' } });
    const p2 = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'r2', base: 'master', title: 'r2' } });
    const [m1, m2] = await Promise.all([
      f.request('POST', `${base}/pulls/${p1.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } }),
      f.request('POST', `${base}/pulls/${p2.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } }),
    ]);
    const statuses = [m1.status, m2.status].sort();
    t.ok(statuses[0] === 200 && (statuses[1] === 200 || statuses[1] === 409), `both merged, or one answered 409: ${statuses}`);
    await git(home, wc, 'fetch', '-q', 'origin');
    const tree = await git(home, wc, 'ls-tree', '--name-only', 'origin/master');
    if (m1.status === 200) t.match(tree, 'r1.txt');
    if (m2.status === 200) t.match(tree, 'r2.txt');
  });

  t.test('head updates on push: synchronize, and a head pushed into the base marks the pull request merged', async (t) => {
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'sync', { 's.txt': '1\n' }, 's1', 'origin/master');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'sync', base: 'master', title: 'sync' } });
    const newHead = await commitOn(home, wc, 'sync', { 's.txt': '2\n' }, 's2');
    const got = await f.request('GET', `${base}/pulls/${opened.json.number}`);
    t.equal(got.json.head.sha, newHead);
    t.match(await git(home, wc, 'ls-remote', 'origin', `refs/pull/${opened.json.number}/head`), newHead);
    t.equal((await f.request('GET', `${base}/pulls/${opened.json.number}/commits`)).json.length, 2);
    await git(home, wc, 'push', '-q', 'origin', 'sync:master');
    // The background check of the base push finds the head in it (Gitea's testPR → manuallyMerged).
    const merged = await waitFor('the pull request marked merged', async () => {
      const got = await f.request('GET', `${base}/pulls/${opened.json.number}`);
      return got.json.merged && got.json.state === 'closed' ? got : null; // merged first, then the issue half closes
    });
    t.match(merged.json, { merged: true, state: 'closed', merge_commit_sha: newHead, merged_by: { login: alice.username } });
  });

  t.test('manually-merged, head_commit_id, disallowed styles, merge_when_checks_succeed, permissions', async (t) => {
    await git(home, wc, 'fetch', '-q', 'origin');
    const head = await commitOn(home, wc, 'man', { 'm.txt': '1\n' }, 'm', 'origin/master');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'man', base: 'master', title: 'man' } });
    const n = opened.json.number;
    await commitOn(home, wc, 'bump-man', { 'bump-man.txt': '1\n' }, 'bump', 'origin/master');
    await git(home, wc, 'push', '-q', 'origin', 'bump-man:master');
    await git(home, wc, 'fetch', '-q', 'origin');
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: bob.token, json: { Do: 'merge' } })).status, 405, 'a reader may not merge');
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge', head_commit_id: masterSha } })).status, 409);
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge', merge_when_checks_succeed: true } })).status, 422);
    t.equal((await f.request('PATCH', base, { token: alice.token, json: { allow_squash_merge: false } })).status, 200);
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'squash' } })).status, 405);
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'fast-forward-only' } })).status, 409, 'master moved on');
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'manually-merged', MergeCommitID: head } })).status, 409, 'not on master');
    // Land it by hand on master without a merge commit the server sees as a push of the head... then mark it.
    await git(home, wc, 'checkout', '-q', '-B', 'tmp', 'origin/master');
    await git(home, wc, 'merge', '-q', '--no-ff', '-m', 'by hand', 'man');
    const byHand = await git(home, wc, 'rev-parse', 'HEAD');
    await git(home, wc, 'push', '-q', 'origin', 'tmp:master');
    const merged = await waitFor('the pull request marked merged', async () => {
      const got = await f.request('GET', `${base}/pulls/${n}`);
      return got.json.merged && got.json.state === 'closed' ? got : null; // merged first, then the issue half closes
    });
    t.match(merged.json, { merged: true, merge_commit_sha: byHand }, 'the check after the push marked it merged');
  });

  t.test('branch protection: required approvals and status contexts, merge allow-list; delete_branch_after_merge', async (t) => {
    await f.request('PUT', `${base}/collaborators/${carol.username}`, { token: alice.token, json: { permission: 'write' } });
    const rule = await f.request('POST', `${base}/branch_protections`, {
      token: alice.token, json: { rule_name: 'master', enable_push: true, required_approvals: 1, enable_status_check: true, status_check_contexts: ['ci/*'] },
    });
    t.equal(rule.status, 201, rule.text);
    await git(home, wc, 'fetch', '-q', 'origin');
    const head = await commitOn(home, wc, 'prot', { 'p.txt': '1\n' }, 'p', 'origin/master');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'prot', base: 'master', title: 'prot', reviewers: [carol.username] } });
    t.equal(opened.status, 201, opened.text);
    t.same(opened.json.requested_reviewers.map((u: any) => u.login), [carol.username]);
    const n = opened.json.number;
    const noApproval = await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(noApproval.status, 405);
    t.match(noApproval.json.message, /approvals/);
    // The poster cannot approve their own pull request.
    t.equal((await f.request('POST', `${base}/pulls/${n}/reviews`, { token: alice.token, json: { event: 'APPROVED' } })).status, 422);
    const approved = await f.request('POST', `${base}/pulls/${n}/reviews`, { token: carol.token, json: { event: 'APPROVED', body: 'lgtm' } });
    t.equal(approved.status, 200, approved.text);
    t.match(approved.json, { state: 'APPROVED', official: true, commit_id: head, user: { login: carol.username } });
    t.same((await f.request('GET', `${base}/pulls/${n}`)).json.requested_reviewers, [], 'the review answered the request');
    const noStatus = await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(noStatus.status, 405);
    t.match(noStatus.json.message, /status/);
    await f.request('POST', `${base}/statuses/${head}`, { token: alice.token, json: { state: 'success', context: 'ci/build' } });
    const ok = await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge', delete_branch_after_merge: true } });
    t.equal(ok.status, 200, ok.text);
    t.equal((await f.request('GET', `${base}/branches/prot`, { token: alice.token })).status, 404, 'the head branch went');
    // A merge allow-list that leaves out the caller.
    await f.request('PATCH', `${base}/branch_protections/master`, {
      token: alice.token, json: { required_approvals: 0, enable_status_check: false, enable_merge_whitelist: true, merge_whitelist_usernames: [alice.username] },
    });
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'prot2', { 'p2.txt': '1\n' }, 'p2', 'origin/master');
    const second = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'prot2', base: 'master', title: 'prot2' } });
    t.equal((await f.request('POST', `${base}/pulls/${second.json.number}/merge`, { token: carol.token, json: { Do: 'merge' } })).status, 405);
    t.equal((await f.request('POST', `${base}/pulls/${second.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } })).status, 200);
    await f.request('DELETE', `${base}/branch_protections/master`, { token: alice.token });
  });

  t.test('forks across owners: owner:branch head, private fork stays hidden, update merges the base into the head', async (t) => {
    const fork = await f.request('POST', `${base}/forks`, { token: bob.token, json: {} });
    t.equal(fork.status, 202, fork.text);
    const fwc = await clone(f, bob, fork.json.full_name, home);
    const head = await commitOn(home, fwc, 'from-fork', { 'fork.txt': 'fork\n' }, 'from fork', 'origin/master');
    const opened = await f.request('POST', `${base}/pulls`, { token: bob.token, json: { head: `${bob.username}:from-fork`, base: 'master', title: 'From a fork' } });
    t.equal(opened.status, 201, opened.text);
    t.match(opened.json, { head: { label: `${bob.username}:from-fork`, sha: head, repo: { full_name: fork.json.full_name } }, mergeable: true });
    t.match(await git(home, wc, 'ls-remote', 'origin', `refs/pull/${opened.json.number}/head`), head, 'the fork\'s head was fetched into the base');
    // Master moves on; update brings it into the fork's branch.
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'moveon', { 'moveon.txt': '1\n' }, 'moveon', 'origin/master');
    await git(home, wc, 'push', '-q', 'origin', 'moveon:master');
    t.equal((await f.request('POST', `${base}/pulls/${opened.json.number}/update`, { token: carol.token })).status, 403, 'not a writer of the fork, no maintainer edits');
    const upd = await f.request('POST', `${base}/pulls/${opened.json.number}/update`, { token: bob.token });
    t.equal(upd.status, 200, upd.text);
    const after = await f.request('GET', `${base}/pulls/${opened.json.number}`);
    t.not(after.json.head.sha, head);
    await git(home, fwc, 'fetch', '-q', 'origin');
    t.match(await git(home, fwc, 'log', '-1', '--format=%s', 'origin/from-fork'), /Merge branch 'master' into from-fork/);
    const merged = await f.request('POST', `${base}/pulls/${opened.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(merged.status, 200, merged.text);
    await git(home, wc, 'fetch', '-q', 'origin');
    t.match(await git(home, wc, 'ls-tree', '--name-only', 'origin/master'), 'fork.txt');
  });

  t.test('the list shows every pull request as its GET does, to each viewer; a private fork is null to those who cannot read it', async (t) => {
    const forkName = `${bob.username}/${repo.name}`;
    const made = await f.request('PATCH', `/repos/${forkName}`, { token: bob.token, json: { private: true } });
    t.equal(made.status, 200, made.text);
    // Review requests on two open pull requests (the list reads a page's requests in one query).
    const open = (await f.request('GET', `${base}/pulls?state=open&limit=50`, { token: alice.token })).json;
    t.ok(open.length >= 2, 'two open pull requests to ask reviews on');
    for (const [k, who] of [[0, [carol.username]], [1, [carol.username, bob.username]]] as const) {
      const asked = await f.request('POST', `${base}/pulls/${open[k].number}/requested_reviewers`, { token: alice.token, json: { reviewers: who } });
      t.equal(asked.status, 201, asked.text);
    }
    // Issue halves with labels, assignees and a milestone (the list renders the page's halves together).
    const label = await f.request('POST', `${base}/labels`, { token: alice.token, json: { name: 'needs-review', color: '#00aabb' } });
    t.equal(label.status, 201, label.text);
    const milestone = await f.request('POST', `${base}/milestones`, { token: alice.token, json: { title: 'v1' } });
    t.equal(milestone.status, 201, milestone.text);
    for (const k of [0, 1]) {
      t.equal((await f.request('POST', `${base}/issues/${open[k].number}/labels`, { token: alice.token, json: { labels: [label.json.id] } })).status, 200);
    }
    const edited = await f.request('PATCH', `${base}/issues/${open[1].number}`, { token: alice.token, json: { assignees: [alice.username], milestone: milestone.json.id } });
    t.equal(edited.status, 201, edited.text);
    const listed = (await f.request('GET', `${base}/pulls?state=open&limit=50`, { token: alice.token })).json;
    const second = listed.find((p: any) => p.number === open[1].number);
    t.same([second.labels.map((l: any) => l.name), second.assignees.map((u: any) => u.login), second.milestone.title], [['needs-review'], [alice.username], 'v1']);
    t.same(listed.find((p: any) => p.number === open[0].number).labels.map((l: any) => l.name), ['needs-review']);
    t.same(listed.find((p: any) => p.number === open[1].number).requested_reviewers.map((u: any) => u.login).sort(), [carol.username, bob.username].sort());
    t.same(listed.find((p: any) => p.number === open[0].number).requested_reviewers.map((u: any) => u.login), [carol.username]);
    // A page with every pull request of the repository: the fork's, the same-repository ones, open and closed.
    const viewers = [{ name: 'anonymous', token: undefined }, { name: 'alice', token: alice.token }, { name: 'bob', token: bob.token }, { name: 'carol', token: carol.token }];
    let fromFork = 0;
    for (const v of viewers) {
      const list = await f.request('GET', `${base}/pulls?state=all&limit=50`, { token: v.token });
      t.equal(list.status, 200, list.text);
      t.ok(list.json.length >= 5, `${v.name}: a page of several pull requests`);
      t.equal(list.headers.get('content-type'), 'application/json; charset=utf-8');
      for (const item of list.json) {
        const one = await f.request('GET', `${base}/pulls/${item.number}`, { token: v.token });
        t.equal(one.status, 200);
        t.same(item, one.json, `${v.name}: #${item.number} in the list is its GET`);
        t.same(Object.keys(item).sort(), Object.keys(one.json).sort());
        if (item.head.label === `${bob.username}:from-fork`) {
          fromFork++;
          t.equal(item.head.repo_id, made.json.id);
          if (v.name === 'bob') t.equal(item.head.repo.full_name, forkName, 'the fork owner sees the fork');
          else t.equal(item.head.repo, null, `${v.name} does not see the private fork`);
          t.equal(item.base.repo.full_name, repo.full_name);
        } else {
          t.equal(item.head.repo.id, item.base.repo.id, 'a same-repository head carries the base repository');
        }
      }
    }
    t.equal(fromFork, viewers.length, 'the fork\'s pull request is on every viewer\'s page');
    t.equal((await f.request('PATCH', `/repos/${forkName}`, { token: bob.token, json: { private: false } })).status, 200);
  });

  t.test('"Closes #N" in the body closes that issue when the pull request is merged', async (t) => {
    const issue = await f.request('POST', `${base}/issues`, { token: alice.token, json: { title: 'a bug' } });
    t.equal(issue.status, 201);
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'fix', { 'fix.txt': 'fixed\n' }, 'fix', 'origin/master');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'fix', base: 'master', title: 'fix', body: `Closes #${issue.json.number}` } });
    t.equal((await f.request('GET', `${base}/issues/${issue.json.number}`)).json.state, 'open');
    t.equal((await f.request('POST', `${base}/pulls/${opened.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } })).status, 200);
    t.equal((await f.request('GET', `${base}/issues/${issue.json.number}`)).json.state, 'closed');
  });

  t.test('events: opened, edited, closed/reopened, merged, synchronized, review requests and reviews', async (t) => {
    const of = (n: number) => seen.filter((e) => e.number === n).map((e) => `${e.event}:${e.action}${e.merged === true ? ':merged' : ''}`);
    // The title+body edit is two `edited` events (one per field, like Gitea).
    t.same(of(1).slice(0, 5), ['changed:opened', 'changed:edited', 'changed:edited', 'changed:closed', 'changed:reopened']);
    t.ok(seen.some((e) => e.action === 'closed' && e.merged === true), 'a merge is a close with merged: true');
    t.ok(seen.some((e) => e.action === 'synchronized'), 'a push to a head synchronized its pull request');
    t.ok(seen.some((e) => e.action === 'review_requested' && e.reviewer === carol.id), 'review_requested names the reviewer');
    t.ok(seen.some((e) => e.event === 'reviewed' && e.action === 'approved'), 'an approval emitted pull_request.reviewed');
  });

  t.test('private repositories: 404 to strangers everywhere; has_pull_requests: false turns the routes off', async (t) => {
    const priv = await createRepo(f, alice, 'secret', true);
    const pwc = await clone(f, alice, priv.full_name, home);
    await commitOn(home, pwc, 'x', { 'x.txt': 'x\n' }, 'x', 'origin/master');
    const pb = `/repos/${priv.full_name}`;
    t.equal((await f.request('POST', `${pb}/pulls`, { token: alice.token, json: { head: 'x', base: 'master', title: 'x' } })).status, 201);
    for (const p of ['/pulls', '/pulls/1', '/pulls/1.diff', '/pulls/1/files', '/pulls/1/commits', '/pulls/1/reviews', '/pulls/master/x']) {
      t.equal((await f.request('GET', `${pb}${p}`, { token: bob.token })).status, 404, p);
      t.equal((await f.request('GET', `${pb}${p}`)).status, 404, p);
    }
    t.equal((await f.request('POST', `${pb}/pulls/1/merge`, { token: bob.token, json: { Do: 'merge' } })).status, 404);
    t.equal((await f.request('PATCH', pb, { token: alice.token, json: { has_pull_requests: false } })).status, 200);
    t.equal((await f.request('GET', `${pb}/pulls`, { token: alice.token })).status, 404);
    t.equal((await f.request('GET', `${pb}/pulls/1`, { token: alice.token })).status, 404);
  });
});
