// Push processing through real git over smart HTTP: the record is true at once (empty, size, default branch,
// updated_at), one `git.push` per moved ref with its commits (newest first, at most 20, added/removed/modified) plus
// `git.ref.created`/`git.ref.deleted`, and the default branch cannot be deleted; push guards refuse with a git error.
import t from 'tap';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { definePlugin } from '../../core/plugin.js';
import type { PushEvent, RefEvent } from '../../schemas/events.js';
import '../../schemas/contracts/git.js';
import { runGit, withAuth, type GitResult } from '../helpers/git-client.js';
import { startForge, type TestForge } from '../helpers/forge.js';

type Seen = { event: string; payload: PushEvent | RefEvent };

t.test('push processing', async (t) => {
  const gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pushclient-'));
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pushwork-'));
  const seen: Seen[] = [];
  let refuse: string | null = null;
  const listener = definePlugin({
    name: 'push-listener',
    dependencies: ['git'],
    start(ctx) {
      ctx.events.on('git.push', (p) => { seen.push({ event: 'git.push', payload: p }); });
      ctx.events.on('git.ref.created', (p) => { seen.push({ event: 'git.ref.created', payload: p }); });
      ctx.events.on('git.ref.deleted', (p) => { seen.push({ event: 'git.ref.deleted', payload: p }); });
      ctx.services.get('git').addPushGuard(async (attempt) => (refuse && attempt.updates.some((u) => u.ref === 'refs/heads/guarded') ? refuse : null));
    },
  });
  const f: TestForge = await startForge({ extraPlugins: [listener] });
  t.teardown(async () => {
    await f.close();
    await rm(gitHome, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });
  const git = (args: string[], cwd?: string): Promise<GitResult> => runGit(args, { home: gitHome, cwd });
  const alice = await f.createUser({ username: 'pusher' });
  const created = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'events' } });
  t.equal(created.status, 201);
  const url = withAuth(created.json.clone_url, 'pusher', alice.token);
  const dir = path.join(work, 'w');
  t.equal((await git(['init', '-q', '-b', 'trunk', dir])).code, 0);
  await git(['remote', 'add', 'origin', url], dir);
  const commit = async (file: string, content: string | null, message: string) => {
    if (content === null) await unlink(path.join(dir, file));
    else await writeFile(path.join(dir, file), content);
    await git(['add', '-A'], dir);
    const r = await git(['commit', '-qm', message], dir);
    if (r.code !== 0) throw new Error(r.stderr);
    return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  };

  t.test('first push of an empty repository', async (t) => {
    const c1 = await commit('a.txt', 'one\n', 'add a');
    const c2 = await commit('b.txt', 'two\n', 'add b');
    const c3 = await commit('a.txt', 'one!\n', 'change a');
    seen.length = 0;
    const before = await f.request('GET', '/repos/pusher/events');
    const push = await git(['push', '-q', 'origin', 'trunk'], dir);
    t.equal(push.code, 0, push.stderr);
    const repo = await f.request('GET', '/repos/pusher/events');
    t.equal(repo.json.empty, false);
    t.ok(repo.json.size > 0);
    t.equal(repo.json.default_branch, 'trunk', 'the first pushed branch is the default');
    t.ok(repo.json.updated_at >= before.json.updated_at);
    t.same(seen.map((s) => s.event), ['git.ref.created', 'git.push']);
    const ref = seen[0]!.payload as RefEvent;
    t.match(ref, { ref: 'trunk', refType: 'branch', sha: c3, via: 'http', senderId: alice.id });
    const ev = seen[1]!.payload as PushEvent;
    t.match(ev, { ref: 'refs/heads/trunk', before: '0'.repeat(40), after: c3, pusherId: alice.id, via: 'http', totalCommits: 3 });
    t.equal(ev.repo.defaultBranch, 'trunk', 'the payload carries the updated record');
    t.equal(ev.repo.empty, false);
    t.same(ev.commits.map((c) => c.id), [c3, c2, c1], 'newest first');
    t.same(ev.commits[0]!.modified, ['a.txt']);
    t.same(ev.commits[1]!.added, ['b.txt']);
    t.same(ev.commits[2]!.added, ['a.txt']);
    t.equal(ev.commits[0]!.message, 'change a\n');
    t.match(ev.commits[0]!.author, { name: 'Test Author', email: 'author@example.com' });
    t.match(ev.commits[0]!.timestamp, /^\d{4}-\d\d-\d\dT/);
  });

  t.test('an update carries only the new commits, at most 20, counting all', async (t) => {
    const old = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push(await commit(`n${i}.txt`, `${i}\n`, `commit ${i}`));
    await commit('b.txt', null, 'remove b');
    seen.length = 0;
    t.equal((await git(['push', '-q', 'origin', 'trunk'], dir)).code, 0);
    t.same(seen.map((s) => s.event), ['git.push']);
    const ev = seen[0]!.payload as PushEvent;
    t.equal(ev.before, old);
    t.equal(ev.totalCommits, 24);
    t.equal(ev.commits.length, 20);
    t.same(ev.commits[0]!.removed, ['b.txt']);
    t.equal(ev.commits[1]!.id, ids[22]);
  });

  t.test('a new branch carries only commits no ref had; tags and deletions', async (t) => {
    await git(['checkout', '-q', '-b', 'feature'], dir);
    const f1 = await commit('f.txt', 'f\n', 'feature work');
    seen.length = 0;
    t.equal((await git(['push', '-q', 'origin', 'feature'], dir)).code, 0);
    t.same(seen.map((s) => s.event), ['git.ref.created', 'git.push']);
    const ev = seen[1]!.payload as PushEvent;
    t.equal(ev.totalCommits, 1);
    t.same(ev.commits.map((c) => c.id), [f1]);

    seen.length = 0;
    await git(['tag', 'v1', f1], dir);
    t.equal((await git(['push', '-q', 'origin', 'v1'], dir)).code, 0);
    t.same(seen.map((s) => s.event), ['git.ref.created', 'git.push']);
    t.match(seen[0]!.payload, { ref: 'v1', refType: 'tag', sha: f1 });
    t.match(seen[1]!.payload, { ref: 'refs/tags/v1', commits: [] });

    seen.length = 0;
    t.equal((await git(['push', '-q', 'origin', ':feature'], dir)).code, 0);
    t.same(seen.map((s) => s.event), ['git.push', 'git.ref.deleted']);
    t.match(seen[0]!.payload, { ref: 'refs/heads/feature', before: f1, after: '0'.repeat(40), commits: [] });
    t.match(seen[1]!.payload, { ref: 'feature', refType: 'branch', sha: f1 });
  });

  t.test('the default branch cannot be deleted; guards refuse with a git error and nothing moves', async (t) => {
    seen.length = 0;
    const del = await git(['push', 'origin', ':trunk'], dir);
    t.not(del.code, 0);
    t.match(del.stderr, /\[remote rejected\] trunk \(the default branch cannot be deleted\)/);
    t.match(del.stderr, /remote: the default branch cannot be deleted/);
    t.equal((await git(['ls-remote', url, 'refs/heads/trunk'])).stdout.split('\t')[0], (await git(['rev-parse', 'trunk'], dir)).stdout.trim());
    t.same(seen, [], 'no events');

    refuse = 'branch guarded is protected';
    await git(['checkout', '-q', '-b', 'guarded'], dir);
    await commit('g.txt', 'g\n', 'guarded work');
    const guarded = await git(['push', 'origin', 'guarded'], dir);
    t.not(guarded.code, 0);
    t.match(guarded.stderr, /\[remote rejected\] guarded -> guarded \(branch guarded is protected\)/);
    t.equal((await git(['ls-remote', url, 'refs/heads/guarded'])).stdout, '', 'the ref was not created');
    refuse = null;
    const ok = await git(['push', '-q', 'origin', 'guarded'], dir);
    t.equal(ok.code, 0, ok.stderr);
    t.equal(seen.filter((s) => s.event === 'git.push').length, 1);
  });

  t.test('a malformed command list is a 400, git never sees it', async (t) => {
    const res = await f.request('POST', '/pusher/events.git/git-receive-pack', {
      root: true, basic: ['pusher', alice.token], headers: { 'Content-Type': 'application/x-git-receive-pack-request' }, body: '0010garbage-here0000',
    });
    t.equal(res.status, 400);
  });
});
