// Ref listings kept while git's ref storage is unchanged (plugins/contents/ref-snapshots.ts), on a real repository
// changed by the real git: every kind of ref change (create, move, delete, nested names, an empty leftover
// directory, pack-refs, tags) is seen by the next listing, and an unchanged repository is listed without git.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, readdir, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { refListing } from '../../plugins/contents/ref-snapshots.js';

t.test('ref listings follow every ref change', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-ref-snapshots-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com', GIT_CONFIG_NOSYSTEM: '1', HOME: dir };
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', path.join(dir, 'r.git'), ...args], { env }).toString().trim();
  execFileSync('git', ['init', '-q', '--bare', path.join(dir, 'r.git')], { env });
  const gitDir = path.join(dir, 'r.git');
  const tree = git('mktree', '--missing');
  const c1 = execFileSync('git', ['--git-dir', gitDir, 'commit-tree', tree, '-m', 'one'], { env, input: '' }).toString().trim();
  const c2 = execFileSync('git', ['--git-dir', gitDir, 'commit-tree', tree, '-p', c1, '-m', 'two'], { env, input: '' }).toString().trim();
  git('update-ref', 'refs/heads/main', c1);

  /** Pushes every ref time into the past, as in a repository nobody changed for a while. */
  const age = async () => {
    const old = new Date(Date.now() - 60_000);
    const walk = async (p: string): Promise<void> => {
      await utimes(p, old, old).catch(() => undefined);
      for (const e of await readdir(p, { withFileTypes: true }).catch(() => [])) if (e.isDirectory()) await walk(path.join(p, e.name));
    };
    await walk(path.join(gitDir, 'refs'));
    await utimes(path.join(gitDir, 'packed-refs'), old, old).catch(() => undefined);
  };
  let runs = 0;
  const list = (prefix = 'refs/heads/') => refListing(gitDir, prefix, `test\0${prefix}`, async () => {
    runs++;
    return git('for-each-ref', '--format=%(refname) %(objectname)', prefix).split('\n').filter(Boolean);
  });

  await age();
  t.same(await list(), [`refs/heads/main ${c1}`]);
  const before = runs;
  t.same(await list(), [`refs/heads/main ${c1}`]);
  t.equal(runs, before, 'unchanged storage: the snapshot answers, git is not run');

  const changes: Array<[string, () => Promise<void> | void, string[]]> = [
    ['a new branch', () => { git('update-ref', 'refs/heads/feature', c1); }, [`refs/heads/feature ${c1}`, `refs/heads/main ${c1}`]],
    ['a branch moved', () => { git('update-ref', 'refs/heads/main', c2, c1); }, [`refs/heads/feature ${c1}`, `refs/heads/main ${c2}`]],
    ['a nested name', () => { git('update-ref', 'refs/heads/renovate/deps/x', c1); }, [`refs/heads/feature ${c1}`, `refs/heads/main ${c2}`, `refs/heads/renovate/deps/x ${c1}`]],
    ['a nested ref moved', () => { git('update-ref', 'refs/heads/renovate/deps/x', c2); }, [`refs/heads/feature ${c1}`, `refs/heads/main ${c2}`, `refs/heads/renovate/deps/x ${c2}`]],
    ['refs packed', () => { git('pack-refs', '--all'); }, [`refs/heads/feature ${c1}`, `refs/heads/main ${c2}`, `refs/heads/renovate/deps/x ${c2}`]],
    ['a packed branch deleted', () => { git('update-ref', '-d', 'refs/heads/feature'); }, [`refs/heads/main ${c2}`, `refs/heads/renovate/deps/x ${c2}`]],
    ['a packed branch moved', () => { git('update-ref', 'refs/heads/main', c1); }, [`refs/heads/main ${c1}`, `refs/heads/renovate/deps/x ${c2}`]],
    ['a ref in an empty leftover directory', async () => {
      await mkdir(path.join(gitDir, 'refs', 'heads', 'empty'), { recursive: true });
      await age();
      await list(); // the snapshot now covers the empty directory
      git('update-ref', 'refs/heads/empty/one', c1);
    }, [`refs/heads/empty/one ${c1}`, `refs/heads/main ${c1}`, `refs/heads/renovate/deps/x ${c2}`]],
  ];
  for (const [what, change, expected] of changes) {
    await age();
    await list(); // a kept snapshot before the change
    const kept = runs;
    t.equal((await list(), runs), kept, `${what}: listed from the snapshot before the change`);
    await change();
    t.same(await list(), expected, `${what}: seen at once`);
  }

  // A single ref's listing (a prefix that names one ref) sees its creation in the parent directory.
  await age();
  t.same(await list('refs/tags/v1'), []);
  git('update-ref', 'refs/tags/v1', c1);
  t.same(await list('refs/tags/v1'), [`refs/tags/v1 ${c1}`], 'a tag created where none was');

  // A change while git lists (or just before) is never kept: the next listing runs git again.
  git('update-ref', 'refs/heads/fresh', c1);
  const fresh = runs;
  await list();
  await list();
  t.equal(runs, fresh + 2, 'storage changed within the racy window: listed by git each time');
});
