// Background mergeability of pull requests, through real git pushes and the API: a push to the base that creates a
// conflict, a fix pushed to the head, many pushes in a row (the final answer is for the latest heads), a stored
// answer that is stale never letting a conflicting merge through, and checks queued when the process stops (no
// workers) resolved after the next start. Polls with waitFor: when a check runs is not asserted, only what it says.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { runGit, withAuth } from '../helpers/git-client.js';
import { waitFor } from '../helpers/wait.js';

async function git(home: string, cwd: string, ...args: string[]): Promise<string> {
  const r = await runGit(args, { home, cwd });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

async function setup(f: TestForge, home: string, name: string): Promise<{ alice: TestUser; base: string; wc: string }> {
  const alice = await f.createUser();
  const res = await f.request('POST', '/user/repos', { token: alice.token, json: { name, auto_init: true, readme: 'Default' } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  const wc = await mkdtemp(path.join(home, 'wc-'));
  await git(home, wc, 'clone', '-q', withAuth(`${f.url}/${res.json.full_name}.git`, alice.username, alice.token), '.');
  return { alice, base: `/repos/${res.json.full_name}`, wc };
}

/** Commits `files` on `branch` (created from `from` when new) and pushes it; the new commit. */
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

t.test('mergeability in the background', async (t) => {
  const f = await startForge();
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pullcheck-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const { alice, base, wc } = await setup(f, home, 'bg');
  const get = async (n: number) => (await f.request('GET', `${base}/pulls/${n}`)).json;

  t.test('a push to the base that conflicts, then a fix pushed to the head', async (t) => {
    await commitOn(home, wc, 'feat', { 'f.txt': 'feature\n' }, 'feature');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'feat', base: 'master', title: 'feat' } });
    t.equal(opened.status, 201, opened.text);
    t.equal(opened.json.mergeable, true, 'creation checks inline');
    const n = opened.json.number;
    const master = await commitOn(home, wc, 'master', { 'f.txt': 'base\n' }, 'base side');
    const conflicted = await waitFor('the check after the base moved', async () => {
      const pr = await get(n);
      return pr.base.sha === master && pr.conflicted_files.length ? pr : null;
    });
    t.equal(conflicted.mergeable, false);
    t.same(conflicted.conflicted_files, ['f.txt']);
    const refused = await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(refused.status, 405, 'a conflicting pull request is not merged');

    // The fix: the head takes the base's content (both sides add the same file).
    const fixed = await commitOn(home, wc, 'feat', { 'f.txt': 'base\n', 'g.txt': 'more\n' }, 'resolve');
    t.equal((await get(n)).head.sha, fixed, 'the head commit is recorded before the push answers');
    const clean = await waitFor('the check after the head moved', async () => {
      const pr = await get(n);
      return pr.mergeable === true && pr.head.sha === fixed ? pr : null;
    });
    t.same(clean.conflicted_files, []);
    t.equal(clean.base.sha, master);
    const merged = await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'merge' } });
    t.equal(merged.status, 200, merged.text);
  });

  t.test('many pushes in a row: the final answer is for the latest heads', async (t) => {
    await git(home, wc, 'fetch', '-q', 'origin');
    await commitOn(home, wc, 'many', { 'm.txt': 'feature\n' }, 'many');
    const opened = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'many', base: 'master', title: 'many' } });
    t.equal(opened.json.mergeable, true);
    const n = opened.json.number;
    // Eight pushes to the base that do not conflict, the ninth does.
    await git(home, wc, 'checkout', '-q', '-B', 'master', 'origin/master');
    let master = '';
    for (let i = 1; i <= 8; i++) master = await commitOn(home, wc, 'master', { [`other-${i}.txt`]: `${i}\n` }, `other ${i}`);
    master = await commitOn(home, wc, 'master', { 'm.txt': 'base\n' }, 'base m');
    const conflicted = await waitFor('the answer for the last base', async () => {
      const pr = await get(n);
      return pr.base.sha === master && pr.conflicted_files.length ? pr : null;
    });
    t.equal(conflicted.mergeable, false);
    t.same(conflicted.conflicted_files, ['m.txt']);
    // Five pushes to the head in a row; the last one resolves.
    let head = '';
    for (let i = 1; i <= 4; i++) head = await commitOn(home, wc, 'many', { [`h-${i}.txt`]: `${i}\n` }, `head ${i}`);
    head = await commitOn(home, wc, 'many', { 'm.txt': 'base\n' }, 'resolve m');
    const clean = await waitFor('the answer for the last head', async () => {
      const pr = await get(n);
      return pr.mergeable === true && pr.head.sha === head ? pr : null;
    });
    t.same(clean.conflicted_files, []);
    t.equal(clean.base.sha, master);
    t.equal(clean.changed_files, 5, 'counts are for the last head: h-1..h-4 and m.txt');
    t.equal((await f.request('POST', `${base}/pulls/${n}/merge`, { token: alice.token, json: { Do: 'squash' } })).status, 200);
  });
});

t.test('queued checks survive a stop and run after the next start; a stale answer never merges a conflict', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pullcheck-data-'));
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pullcheck-'));
  t.teardown(() => Promise.all([rm(dataDir, { recursive: true, force: true }), rm(home, { recursive: true, force: true })]));
  // No workers: every queued check stays `checking` in the store (the state a process that died leaves behind).
  const f = await startForge({ dataDir, config: { plugins: { pulls: { checkConcurrency: 0 } } } });
  const { alice, base, wc } = await setup(f, home, 'restart');
  const get = async (g: TestForge, n: number) => (await g.request('GET', `${base}/pulls/${n}`)).json;
  await commitOn(home, wc, 'x', { 'x.txt': 'head\n' }, 'x');
  await git(home, wc, 'checkout', '-q', 'master');
  await commitOn(home, wc, 'y', { 'y.txt': 'head\n' }, 'y');
  const px = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'x', base: 'master', title: 'x' } });
  const py = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: 'y', base: 'master', title: 'y' } });
  t.equal(px.json.mergeable, true);
  t.equal(py.json.mergeable, true);
  await git(home, wc, 'checkout', '-q', 'master');
  const master = await commitOn(home, wc, 'master', { 'x.txt': 'base\n' }, 'base x');
  const pending = await get(f, px.json.number);
  t.equal(pending.mergeable, false, 'checking: not mergeable until the check answers (Gitea)');
  t.same(pending.conflicted_files, [], 'no answer yet');
  t.equal((await get(f, py.json.number)).mergeable, false, 'the other pull request on the base is queued too');

  // A stored answer that says mergeable while the branches conflict: the merge route checks afresh.
  await f.forge.store.collection('pull_requests').updateOne({ id: px.json.id }, { $set: { status: 'mergeable', conflictedFiles: [] } });
  t.equal((await get(f, px.json.number)).mergeable, true, 'the stale answer is shown');
  const refused = await f.request('POST', `${base}/pulls/${px.json.number}/merge`, { token: alice.token, json: { Do: 'merge' } });
  t.equal(refused.status, 405, refused.text);
  t.match(refused.json.message, /cannot be merged automatically/);
  await git(home, wc, 'fetch', '-q', 'origin');
  t.equal(await git(home, wc, 'rev-parse', 'origin/master'), master, 'the base did not move');
  // The merge route stored its own fresh answer; put the row back as the push left it (queued), then stop.
  await f.forge.store.collection('pull_requests').updateOne({ id: px.json.id }, { $set: { status: 'checking', conflictedFiles: [], baseSha: px.json.base.sha } });
  t.equal((await get(f, px.json.number)).base.sha, px.json.base.sha);
  await f.close();

  const g = await startForge({ dataDir });
  t.teardown(() => g.close());
  const x = await waitFor('the conflict found after the start', async () => {
    const pr = await get(g, px.json.number);
    return pr.conflicted_files.length ? pr : null;
  });
  t.equal(x.mergeable, false);
  t.same(x.conflicted_files, ['x.txt']);
  t.equal(x.base.sha, master);
  const y = await waitFor('the clean pull request answered after the start', async () => {
    const pr = await get(g, py.json.number);
    return pr.mergeable === true ? pr : null;
  });
  t.equal(y.base.sha, master);
  t.same(y.conflicted_files, []);
});

t.test('a bounded queue: checks beyond checkQueueLimit wait in the store and still run', async (t) => {
  // One id in memory and one worker: a base push that affects four pull requests overflows the queue at once.
  const f = await startForge({ config: { plugins: { pulls: { checkConcurrency: 1, checkQueueLimit: 1 } } } });
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-pullcheck-'));
  t.teardown(async () => {
    await f.close();
    await rm(home, { recursive: true, force: true });
  });
  const { alice, base, wc } = await setup(f, home, 'bounded');
  const numbers: number[] = [];
  for (let i = 0; i < 4; i++) {
    await commitOn(home, wc, `q${i}`, { 'shared.txt': `head ${i}\n` }, `q${i}`);
    const pr = await f.request('POST', `${base}/pulls`, { token: alice.token, json: { head: `q${i}`, base: 'master', title: `q${i}` } });
    t.equal(pr.json.mergeable, true);
    numbers.push(pr.json.number);
  }
  await git(home, wc, 'checkout', '-q', 'master');
  const master = await commitOn(home, wc, 'master', { 'shared.txt': 'base\n' }, 'base shared');
  for (const n of numbers) {
    const pr = await waitFor(`the check of #${n}`, async () => {
      const got = (await f.request('GET', `${base}/pulls/${n}`)).json;
      return got.base.sha === master && got.conflicted_files.length ? got : null;
    });
    t.same(pr.conflicted_files, ['shared.txt'], `#${n} answered`);
  }
});
