// contents plugin writes through HTTP, checked with the real git client: files (create/update/delete, several in one
// commit), stale blob ids, concurrent writers (no lost commits), branches, tags and branch protection enforced on API
// writes and on git pushes.
import t from 'tap';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { definePlugin } from '../../core/plugin.js';
import type { PushEvent } from '../../schemas/events.js';
import { runGit, withAuth, type GitResult } from '../helpers/git-client.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('contents: writes', async (t) => {
  const gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-cw-client-'));
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-cw-work-'));
  const pushes: PushEvent[] = [];
  const listener = definePlugin({
    name: 'cw-listener',
    dependencies: ['git'],
    start(ctx) { ctx.events.on('git.push', (p) => { pushes.push(p); }); },
  });
  const f: TestForge = await startForge({ extraPlugins: [listener] });
  t.teardown(async () => {
    await f.close();
    await rm(gitHome, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });
  const git = (args: string[], cwd?: string): Promise<GitResult> => runGit(args, { home: gitHome, cwd });
  const alice: TestUser = await f.createUser({ username: 'writer-alice' });
  const bob: TestUser = await f.createUser({ username: 'writer-bob' });
  const carol: TestUser = await f.createUser({ username: 'writer-carol' });
  const created = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'docs' } });
  t.equal(created.status, 201);
  const A = '/repos/writer-alice/docs';
  const url = withAuth(created.json.clone_url, 'writer-alice', alice.token);
  let n = 0;
  const clone = async () => {
    const dir = path.join(work, `c${++n}`);
    const r = await git(['clone', '-q', url, dir]);
    if (r.code !== 0) throw new Error(r.stderr);
    return dir;
  };

  t.test('files: create in an empty repository, update, delete, several at once', async (t) => {
    const first = await f.request('POST', `${A}/contents/README.md`, { token: alice.token, json: { content: b64('hello\n'), message: 'first' } });
    t.equal(first.status, 201, first.text);
    t.match(first.json.content, { name: 'README.md', path: 'README.md', type: 'file', size: 6, encoding: 'base64', content: b64('hello\n') });
    t.match(first.json.commit, { message: 'first\n', author: { name: 'writer-alice', email: 'writer-alice@noreply.127.0.0.1' }, parents: [] });
    t.equal(first.json.content.last_commit_sha, first.json.commit.sha);
    const repo = await f.request('GET', A);
    t.equal(repo.json.empty, false, 'the record follows at once');
    t.equal(repo.json.default_branch, 'master');
    t.equal(pushes.at(-1)?.via, 'api');
    t.equal(pushes.at(-1)?.after, first.json.commit.sha);

    const dir = await clone();
    t.equal(await readFile(path.join(dir, 'README.md'), 'utf8'), 'hello\n', 'git fetches what the API wrote');
    t.equal((await git(['log', '-1', '--format=%an <%ae>%n%s'], dir)).stdout.trim(), 'writer-alice <writer-alice@noreply.127.0.0.1>\nfirst');

    const dup = await f.request('POST', `${A}/contents/README.md`, { token: alice.token, json: { content: b64('x') } });
    t.equal(dup.status, 422, 'an existing file cannot be created');
    const underFile = await f.request('POST', `${A}/contents/README.md/x`, { token: alice.token, json: { content: b64('x') } });
    t.equal(underFile.status, 422, 'a file is no directory');

    const sha = first.json.content.sha;
    const upd = await f.request('PUT', `${A}/contents/README.md`, {
      token: alice.token,
      json: { content: b64('hello again\n'), sha, message: 'second', author: { name: 'Ann', email: 'ann@example.com' }, dates: { author: '2020-01-02T03:04:05Z' }, signoff: true },
    });
    t.equal(upd.status, 200, upd.text);
    t.match(upd.json.commit, { author: { name: 'Ann', email: 'ann@example.com', date: '2020-01-02T03:04:05Z' }, parents: [{ sha: first.json.commit.sha }] });
    t.match(upd.json.commit.message, /^second\n\nSigned-off-by: Ann <ann@example.com>\n$/);
    const stale = await f.request('PUT', `${A}/contents/README.md`, { token: alice.token, json: { content: b64('lost\n'), sha } });
    t.equal(stale.status, 409, 'a stale sha is a conflict');
    const missing = await f.request('PUT', `${A}/contents/nope.md`, { token: alice.token, json: { content: b64('x'), sha } });
    t.equal(missing.status, 404);

    const many = await f.request('POST', `${A}/contents`, {
      token: alice.token,
      json: {
        message: 'many', files: [
          { operation: 'create', path: 'docs/a.md', content: b64('a\n') },
          { operation: 'create', path: 'docs/b.md', content: b64('b\n') },
          { operation: 'update', path: 'README.md', content: b64('three\n'), sha: upd.json.content.sha },
        ],
      },
    });
    t.equal(many.status, 201, many.text);
    t.equal(many.json.files.length, 3);
    t.equal(many.json.files[0].path, 'docs/a.md');
    const del = await f.request('DELETE', `${A}/contents/docs/b.md`, { token: alice.token, json: { sha: many.json.files[1].sha } });
    t.equal(del.status, 200, del.text);
    t.equal(del.json.content, null);
    t.match(del.json.commit.message, /^Delete docs\/b.md/);
    t.equal((await git(['pull', '-q'], dir)).code, 0);
    t.equal(await readFile(path.join(dir, 'README.md'), 'utf8'), 'three\n');
    t.equal(await readFile(path.join(dir, 'docs', 'a.md'), 'utf8'), 'a\n');
    t.equal((await git(['ls-files'], dir)).stdout.trim().split('\n').sort().join(','), 'README.md,docs/a.md');
    t.equal((await git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim(), '4');

    const nb = await f.request('POST', `${A}/contents/new.md`, { token: alice.token, json: { content: b64('n'), new_branch: 'topic' } });
    t.equal(nb.status, 201);
    t.equal((await f.request('GET', `${A}/branches/topic`)).json.commit.id, nb.json.commit.sha);
    t.equal((await f.request('GET', `${A}/contents/new.md`)).status, 404, 'the base branch is unchanged');
    t.equal((await f.request('POST', `${A}/contents/x.md`, { token: alice.token, json: { content: b64('n'), new_branch: 'topic' } })).status, 422, 'new_branch must be new');
    t.equal((await f.request('POST', `${A}/contents/x.md`, { token: alice.token, json: { content: b64('n'), branch: 'nope' } })).status, 404);

    t.equal((await f.request('POST', `${A}/contents/x.md`, { token: bob.token, json: { content: b64('n') } })).status, 403, 'readers cannot write');
    t.equal((await f.request('POST', `${A}/contents/x.md`, { json: { content: b64('n') } })).status, 401);
    for (const bad of ['..%2Fx', '.git%2Fconfig', '-rf']) {
      t.equal((await f.request('POST', `${A}/contents/${bad}`, { token: alice.token, json: { content: b64('n') } })).status, 422, `refused: ${bad}`);
    }
    t.equal((await f.request('POST', `${A}/contents/y.md`, { token: alice.token, json: { content: '!!notbase64' } })).status, 422);
  });

  t.test('an account that shows its email commits with it (hide_email: false); others with the no-reply address', async (t) => {
    const shown = await f.createUser({ username: 'writer-dora', email: 'dora@example.org' });
    t.equal((await f.request('PATCH', '/user/settings', { token: shown.token, json: { hide_email: false } })).status, 200);
    t.equal((await f.request('POST', '/user/repos', { token: shown.token, json: { name: 'open' } })).status, 201);
    const w = await f.request('POST', '/repos/writer-dora/open/contents/a.txt', { token: shown.token, json: { content: b64('a\n') } });
    t.equal(w.status, 201, w.text);
    t.match(w.json.commit.author, { name: 'writer-dora', email: 'dora@example.org' });
    t.match(w.json.commit.committer, { name: 'writer-dora', email: 'dora@example.org' });
    t.equal((await f.request('PATCH', '/user/settings', { token: shown.token, json: { hide_email: true } })).status, 200);
    const hidden = await f.request('PUT', '/repos/writer-dora/open/contents/a.txt', { token: shown.token, json: { content: b64('b\n'), sha: w.json.content.sha } });
    t.equal(hidden.status, 200, hidden.text);
    t.match(hidden.json.commit.author, { email: 'writer-dora@noreply.127.0.0.1' }, 'hidden again: the no-reply address');
  });

  t.test('concurrent writers never lose a commit', async (t) => {
    const before = Number((await f.request('GET', `${A}/commits?limit=1`)).headers.get('x-total-count'));
    const N = 8;
    const results = await Promise.all(Array.from({ length: N }, (_, i) =>
      f.request('POST', `${A}/contents/concurrent/f${i}.txt`, { token: alice.token, json: { content: b64(`${i}\n`) } })));
    t.same(results.map((r) => r.status), Array(N).fill(201), 'all distinct files land');
    const after = await f.request('GET', `${A}/commits?limit=50`);
    t.equal(Number(after.headers.get('x-total-count')), before + N, 'one commit each');
    const listing = await f.request('GET', `${A}/contents/concurrent`);
    t.equal(listing.json.length, N, 'every file is there');

    // Everyone updates the same file from the same blob id: exactly one wins, the rest are clean conflicts.
    const current = await f.request('GET', `${A}/contents/README.md`);
    const racers = await Promise.all(Array.from({ length: N }, (_, i) =>
      f.request('PUT', `${A}/contents/README.md`, { token: alice.token, json: { content: b64(`racer ${i}\n`), sha: current.json.sha } })));
    const statuses = racers.map((r) => r.status).sort();
    t.equal(statuses.filter((s) => s === 200).length, 1, 'one update wins');
    t.equal(statuses.filter((s) => s === 409).length, N - 1, 'the others conflict');
    const final = await f.request('GET', `${A}/contents/README.md`);
    const winner = racers.find((r) => r.status === 200)!;
    t.equal(final.json.sha, winner.json.content.sha, 'the winner is what the branch holds');
  });

  t.test('branches and tags', async (t) => {
    const head = (await f.request('GET', `${A}/branches/master`)).json.commit.id;
    const fromBranch = await f.request('POST', `${A}/branches`, { token: alice.token, json: { new_branch_name: 'dev', old_branch_name: 'master' } });
    t.equal(fromBranch.status, 201, fromBranch.text);
    t.match(fromBranch.json, { name: 'dev', commit: { id: head } });
    t.equal((await f.request('POST', `${A}/branches`, { token: alice.token, json: { new_branch_name: 'dev' } })).status, 409);
    t.equal((await f.request('POST', `${A}/branches`, { token: alice.token, json: { new_branch_name: 'x', old_ref_name: 'nope' } })).status, 404);
    t.equal((await f.request('POST', `${A}/branches`, { token: alice.token, json: { new_branch_name: 'bad..name' } })).status, 422);
    t.equal((await f.request('POST', `${A}/branches`, { token: bob.token, json: { new_branch_name: 'bobs' } })).status, 403);

    const light = await f.request('POST', `${A}/tags`, { token: alice.token, json: { tag_name: 'v1.0', target: 'dev' } });
    t.equal(light.status, 201, light.text);
    t.match(light.json, { name: 'v1.0', id: head, commit: { sha: head } });
    const ann = await f.request('POST', `${A}/tags`, { token: alice.token, json: { tag_name: 'v1.1', message: 'annotated' } });
    t.equal(ann.status, 201, ann.text);
    t.not(ann.json.id, head, 'an annotated tag is its own object');
    t.equal(ann.json.message, 'annotated\n');
    const obj = await f.request('GET', `${A}/git/tags/${ann.json.id}`);
    t.match(obj.json, { tag: 'v1.1', object: { sha: head }, tagger: { name: 'writer-alice', email: 'writer-alice@noreply.127.0.0.1' } });
    const fromTag = await f.request('POST', `${A}/branches`, { token: alice.token, json: { new_branch_name: 'from-tag', old_ref_name: 'v1.1' } });
    t.equal(fromTag.json.commit.id, head);
    t.equal((await f.request('POST', `${A}/tags`, { token: alice.token, json: { tag_name: 'v1.1' } })).status, 409);
    const dir = await clone();
    t.equal((await git(['rev-parse', 'v1.1^{commit}'], dir)).stdout.trim(), head, 'git sees the tags');
    t.equal((await f.request('DELETE', `${A}/tags/v1.0`, { token: alice.token })).status, 204);
    t.equal((await f.request('GET', `${A}/tags/v1.0`)).status, 404);

    t.equal((await f.request('PATCH', `${A}/branches/from-tag`, { token: alice.token, json: { name: 'renamed' } })).status, 204);
    t.equal((await f.request('GET', `${A}/branches/from-tag`)).status, 404);
    t.equal((await f.request('GET', `${A}/branches/renamed`)).json.commit.id, head);
    t.equal((await f.request('DELETE', `${A}/branches/renamed`, { token: alice.token })).status, 204);
    t.equal((await f.request('DELETE', `${A}/branches/renamed`, { token: alice.token })).status, 404);
    t.equal((await f.request('DELETE', `${A}/branches/master`, { token: alice.token })).status, 403, 'never the default branch');

    t.equal((await f.request('PATCH', `${A}/branches/master`, { token: alice.token, json: { name: 'main' } })).status, 204);
    const repo = await f.request('GET', A);
    t.equal(repo.json.default_branch, 'main', 'renaming the default branch moves it');
    const fresh = await clone();
    t.equal((await git(['rev-parse', '--abbrev-ref', 'HEAD'], fresh)).stdout.trim(), 'main');
  });

  t.test('branch protection: CRUD, and enforced on API writes and pushes', async (t) => {
    t.equal((await f.request('PUT', `${A}/collaborators/writer-carol`, { token: alice.token, json: { permission: 'write' } })).status, 204);
    const rule = await f.request('POST', `${A}/branch_protections`, {
      token: alice.token, json: { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['writer-alice'], required_approvals: 2, enable_status_check: true, status_check_contexts: ['ci'] },
    });
    t.equal(rule.status, 201, rule.text);
    t.match(rule.json, { rule_name: 'main', branch_name: 'main', required_approvals: 2, status_check_contexts: ['ci'], push_whitelist_usernames: ['writer-alice'] });
    t.equal((await f.request('POST', `${A}/branch_protections`, { token: alice.token, json: { rule_name: 'main' } })).status, 403, 'exists');
    t.equal((await f.request('POST', `${A}/branch_protections`, { token: carol.token, json: { rule_name: 'dev' } })).status, 403, 'needs admin');
    t.equal((await f.request('POST', `${A}/branch_protections`, { token: alice.token, json: { rule_name: 'x', push_whitelist_usernames: ['ghost'] } })).status, 422);
    t.equal((await f.request('GET', `${A}/branch_protections`, { token: alice.token })).json.length, 1);
    t.equal((await f.request('GET', `${A}/branch_protections/main`, { token: alice.token })).json.required_approvals, 2);
    t.equal((await f.request('GET', `${A}/branch_protections/main`, { token: bob.token })).status, 403);

    const branch = await f.request('GET', `${A}/branches/main`, { token: carol.token });
    t.match(branch.json, { protected: true, required_approvals: 2, enable_status_check: true, status_check_contexts: ['ci'], user_can_push: false, effective_branch_protection_name: 'main' });
    t.equal((await f.request('GET', `${A}/branches/main`, { token: alice.token })).json.user_can_push, true);

    const readme = await f.request('GET', `${A}/contents/README.md`);
    const refused = await f.request('PUT', `${A}/contents/README.md`, { token: carol.token, json: { content: b64('carol\n'), sha: readme.json.sha } });
    t.equal(refused.status, 403, 'API write refused');
    t.match(refused.json.message, /protected/);
    const toBranch = await f.request('PUT', `${A}/contents/README.md`, { token: carol.token, json: { content: b64('carol\n'), sha: readme.json.sha, new_branch: 'carol-work' } });
    t.equal(toBranch.status, 200, 'a new branch is fine');

    const carolUrl = withAuth(created.json.clone_url, 'writer-carol', carol.token);
    const dir = path.join(work, 'carol');
    t.equal((await git(['clone', '-q', carolUrl, dir])).code, 0);
    await writeFile(path.join(dir, 'c.txt'), 'c');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 'carol'], dir);
    const push = await git(['push', 'origin', 'HEAD:main'], dir);
    t.not(push.code, 0);
    t.match(push.stderr, /\[remote rejected\] HEAD -> main \(branch main is protected: you are not allowed to push to it\)/);
    t.equal((await git(['push', '-q', 'origin', 'HEAD:refs/heads/carol-2'], dir)).code, 0, 'unprotected branches take pushes');
    t.equal((await f.request('DELETE', `${A}/branch_protections/main`, { token: alice.token })).status, 204);
    t.equal((await f.request('DELETE', `${A}/branch_protections/main`, { token: alice.token })).status, 404);
    const again = await git(['push', 'origin', 'HEAD:main'], dir);
    t.equal(again.code, 0, again.stderr);

    // Protected branches cannot be deleted, by API or push.
    t.equal((await f.request('POST', `${A}/branch_protections`, { token: alice.token, json: { rule_name: 'carol-*', enable_push: true } })).status, 201);
    t.equal((await f.request('DELETE', `${A}/branches/carol-2`, { token: alice.token })).status, 403);
    const delPush = await git(['push', 'origin', ':carol-2'], dir);
    t.not(delPush.code, 0);
    t.match(delPush.stderr, /cannot be deleted/);

    // Force pushes over smart HTTP whose new commits come in the same pack (the guards run before the pack arrives):
    // git refuses the non-fast-forward itself (receive.denyNonFastForwards) unless the rule allows force pushes.
    t.equal((await f.request('POST', `${A}/branch_protections`, { token: alice.token, json: { rule_name: 'stable', enable_push: true } })).status, 201);
    t.equal((await git(['push', '-q', 'origin', 'HEAD:refs/heads/stable'], dir)).code, 0, 'creating the protected branch');
    const tip = async () => (await f.request('GET', `${A}/branches/stable`, { token: alice.token })).json.commit.id;
    await writeFile(path.join(dir, 's1.txt'), 's1');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 's1'], dir);
    const s1 = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const ff = await git(['push', 'origin', 'HEAD:stable'], dir);
    t.equal(ff.code, 0, `a fast-forward with new commits is accepted: ${ff.stderr}`);
    t.equal(await tip(), s1);
    await git(['reset', '-q', '--hard', 'HEAD~1'], dir);
    await writeFile(path.join(dir, 's2.txt'), 's2');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 's2 (rewritten)'], dir);
    const s2 = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const forced = await git(['push', '--force', 'origin', 'HEAD:stable'], dir);
    t.not(forced.code, 0, 'a force push with a new commit is refused');
    t.match(forced.stderr, /non-fast-forward|rejected/);
    t.equal(await tip(), s1, 'the protected branch did not move');
    t.equal((await f.request('PATCH', `${A}/branch_protections/stable`, { token: alice.token, json: { enable_force_push: true } })).status, 200);
    const allowed = await git(['push', '--force', 'origin', 'HEAD:stable'], dir);
    t.equal(allowed.code, 0, `allowed by the rule: ${allowed.stderr}`);
    t.equal(await tip(), s2);
    await git(['reset', '-q', '--hard', 'HEAD~1'], dir);
    await writeFile(path.join(dir, 's3.txt'), 's3');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 's3'], dir);
    t.equal((await git(['push', '-q', '--force', 'origin', 'HEAD:refs/heads/free'], dir)).code, 0, 'create an unprotected branch');
    await git(['reset', '-q', '--hard', 'HEAD~1'], dir);
    await writeFile(path.join(dir, 's4.txt'), 's4');
    await git(['add', '.'], dir);
    await git(['commit', '-qm', 's4'], dir);
    t.equal((await git(['push', '-q', '--force', 'origin', 'HEAD:free'], dir)).code, 0, 'unprotected branches take force pushes');
  });
});
