// Branch protection on real pushes: the allow-lists by team and for deploy keys (Gitea's CanUserPush /
// CanUserForcePush / IsUserMergeWhitelisted and its pre-receive rule for deploy keys), and the force-push rule judged
// per ref over SSH and smart HTTP (a rewrite of an unprotected branch goes through beside a protected one; a rewrite of
// the protected one is refused with the branch unmoved; deletes, tags, multi-ref and atomic pushes behave as in git).
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, startForge, type TestForge, type TestUser } from '../helpers/forge.js';
import { runGit, withAuth, type GitResult } from '../helpers/git-client.js';

function sh(cmd: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000, env: { PATH: process.env.PATH ?? '', LANG: 'C' } }, (err, _stdout, stderr) => {
      resolve({ code: err ? 1 : 0, stderr: String(stderr) });
    });
  });
}

t.test('branch protection on pushes', async (t) => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-protect-'));
  const port = await freePort();
  const f: TestForge = await startForge({ config: { plugins: { ssh: { port }, repos: { ssh: { port } } } } });
  t.teardown(async () => {
    await f.close();
    await rm(work, { recursive: true, force: true });
  });
  const service = f.forge.service<{ hostKeys: Array<{ publicLine: string }> }>('ssh');
  const knownHosts = path.join(work, 'known_hosts');
  await writeFile(knownHosts, service.hostKeys.map((k) => `[127.0.0.1]:${port} ${k.publicLine}\n`).join(''));
  const home = await mkdtemp(path.join(work, 'home-'));
  async function keygen(name: string): Promise<{ file: string; pub: string }> {
    const file = path.join(work, name);
    const r = await sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@test`, '-f', file]);
    if (r.code !== 0) throw new Error(r.stderr);
    return { file, pub: (await readFile(`${file}.pub`, 'utf8')).trim() };
  }
  const sshCommand = (key: string) => ['ssh', '-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${knownHosts}`,
    '-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', '-p', String(port)].join(' ');
  const git = (key: string, args: string[], cwd?: string): Promise<GitResult> => runGit(args, { home, cwd, env: { GIT_SSH_COMMAND: sshCommand(key) } });
  const sshUrl = `ssh://git@127.0.0.1:${port}/acme/app.git`;
  let n = 0;
  const dest = (name: string) => path.join(work, `${name}-${++n}`);

  // An organization with two write teams: `pushers` (alice) and `devs` (bob); its repository acme/app.
  const owner: TestUser = await f.createUser({ username: 'boss' });
  const alice: TestUser = await f.createUser({ username: 'alice' });
  const bob: TestUser = await f.createUser({ username: 'bob' });
  t.equal((await f.request('POST', '/orgs', { token: owner.token, json: { username: 'acme' } })).status, 201);
  for (const [team, member] of [['pushers', alice], ['devs', bob]] as const) {
    const res = await f.request('POST', '/orgs/acme/teams', { token: owner.token, json: { name: team, permission: 'write', includes_all_repositories: true } });
    t.equal(res.status, 201, res.text);
    t.equal((await f.request('PUT', `/teams/${res.json.id}/members/${member.username}`, { token: owner.token })).status, 204);
  }
  t.equal((await f.request('POST', '/orgs/acme/repos', { token: owner.token, json: { name: 'app', auto_init: true } })).status, 201);
  const keys = { alice: await keygen('alice'), bob: await keygen('bob'), deploy: await keygen('deploy') };
  for (const [user, key] of [[alice, keys.alice], [bob, keys.bob]] as const) {
    t.equal((await f.request('POST', '/user/keys', { token: user.token, json: { title: 'laptop', key: key.pub } })).status, 201);
  }
  t.equal((await f.request('POST', '/repos/acme/app/keys', { token: owner.token, json: { title: 'ci', key: keys.deploy.pub, read_only: false } })).status, 201);

  const tip = async (branch: string) => {
    const res = await f.request('GET', `/repos/acme/app/branches/${branch}`, { token: owner.token });
    return res.status === 200 ? res.json.commit.id as string : null;
  };
  const rule = async (body: object) => {
    await f.request('DELETE', '/repos/acme/app/branch_protections/master', { token: owner.token });
    const res = await f.request('POST', '/repos/acme/app/branch_protections', { token: owner.token, json: { rule_name: 'master', ...body } });
    if (res.status !== 201) throw new Error(`rule: ${res.status} ${res.text}`);
  };
  /** A fresh clone by `key` at the current master. */
  const clone = async (key: string) => {
    const dir = dest('clone');
    const r = await git(key, ['clone', '-q', sshUrl, dir]);
    if (r.code !== 0) throw new Error(r.stderr);
    return dir;
  };
  /** A commit on top of HEAD (a fast-forward). */
  const advance = async (key: string, dir: string, what: string) => {
    await writeFile(path.join(dir, `${what}.txt`), `${what}\n`);
    await git(key, ['add', '.'], dir);
    await git(key, ['commit', '-q', '-m', what], dir);
    return (await git(key, ['rev-parse', 'HEAD'], dir)).stdout.trim();
  };
  /** HEAD replaced by a new commit with the same parent (pushing it is a rewrite). */
  const rewrite = async (key: string, dir: string, what: string) => {
    await writeFile(path.join(dir, `${what}.txt`), `${what}\n`);
    await git(key, ['add', '.'], dir);
    await git(key, ['commit', '-q', '--amend', '-m', what], dir);
    return (await git(key, ['rev-parse', 'HEAD'], dir)).stdout.trim();
  };

  t.test('force-push allow-list by team: a member may, a non-member may not', async (t) => {
    await rule({ enable_push: true, enable_force_push: true, enable_force_push_allowlist: true, force_push_allowlist_teams: ['Pushers'] });
    const kept = await tip('master');
    const bobDir = await clone(keys.bob.file);
    await rewrite(keys.bob.file, bobDir, 'bob-rewrite');
    const refused = await git(keys.bob.file, ['push', '--force', 'origin', 'HEAD:master'], bobDir);
    t.not(refused.code, 0, 'bob (devs) may not force-push');
    t.match(refused.stderr, /force push is not allowed/);
    t.equal(await tip('master'), kept, 'the branch did not move');
    const aliceDir = await clone(keys.alice.file);
    const rewritten = await rewrite(keys.alice.file, aliceDir, 'alice-rewrite');
    const allowed = await git(keys.alice.file, ['push', '--force', 'origin', 'HEAD:master'], aliceDir);
    t.equal(allowed.code, 0, `alice (pushers) may: ${allowed.stderr}`);
    t.equal(await tip('master'), rewritten);
  });

  t.test('push allow-list by team, and the merge allow-list by team in the branch', async (t) => {
    await rule({ enable_push: true, enable_push_whitelist: true, push_whitelist_teams: ['pushers'], enable_merge_whitelist: true, merge_whitelist_teams: ['pushers'] });
    const kept = await tip('master');
    const bobDir = await clone(keys.bob.file);
    await advance(keys.bob.file, bobDir, 'bob-push');
    const refused = await git(keys.bob.file, ['push', 'origin', 'HEAD:master'], bobDir);
    t.not(refused.code, 0);
    t.match(refused.stderr, /you are not allowed to push to it/);
    t.equal(await tip('master'), kept);
    const aliceDir = await clone(keys.alice.file);
    const sha = await advance(keys.alice.file, aliceDir, 'alice-push');
    t.equal((await git(keys.alice.file, ['push', 'origin', 'HEAD:master'], aliceDir)).code, 0, 'a member of the listed team pushes');
    t.equal(await tip('master'), sha);
    const asAlice = (await f.request('GET', '/repos/acme/app/branches/master', { token: alice.token })).json;
    const asBob = (await f.request('GET', '/repos/acme/app/branches/master', { token: bob.token })).json;
    t.match(asAlice, { user_can_push: true, user_can_merge: true });
    t.match(asBob, { user_can_push: false, user_can_merge: false });
  });

  t.test('deploy keys: pushes and force pushes follow the rule\'s deploy-key flags', async (t) => {
    // On the push allow-list by name only: the deploy key is not the repository's owner, nor anybody listed.
    await rule({ enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['alice'], push_whitelist_deploy_keys: false });
    const dir = await clone(keys.deploy.file);
    await advance(keys.deploy.file, dir, 'deploy-1');
    const refused = await git(keys.deploy.file, ['push', 'origin', 'HEAD:master'], dir);
    t.not(refused.code, 0, 'a deploy key is refused where the allow-list does not take deploy keys');
    t.match(refused.stderr, /you are not allowed to push to it/);
    await rule({ enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['alice'], push_whitelist_deploy_keys: true });
    const pushed = await git(keys.deploy.file, ['push', 'origin', 'HEAD:master'], dir);
    t.equal(pushed.code, 0, `allowed with push_whitelist_deploy_keys: ${pushed.stderr}`);

    await rule({ enable_push: true, enable_force_push: true, enable_force_push_allowlist: true, force_push_allowlist_usernames: ['alice'], force_push_allowlist_deploy_keys: false });
    const kept = await tip('master');
    const rewritten = await rewrite(keys.deploy.file, dir, 'deploy-rewrite');
    const forced = await git(keys.deploy.file, ['push', '--force', 'origin', 'HEAD:master'], dir);
    t.not(forced.code, 0, 'a deploy key may not force-push where the force-push allow-list does not take deploy keys');
    t.equal(await tip('master'), kept, 'the branch did not move');
    await rule({ enable_push: true, enable_force_push: true, enable_force_push_allowlist: true, force_push_allowlist_usernames: ['alice'], force_push_allowlist_deploy_keys: true });
    const allowed = await git(keys.deploy.file, ['push', '--force', 'origin', 'HEAD:master'], dir);
    t.equal(allowed.code, 0, `allowed with force_push_allowlist_deploy_keys: ${allowed.stderr}`);
    t.equal(await tip('master'), rewritten);
  });

  t.test('over SSH the force-push rule is exact per ref', async (t) => {
    await rule({ enable_push: true });
    const dir = await clone(keys.alice.file);
    const base = (await git(keys.alice.file, ['rev-parse', 'HEAD'], dir)).stdout.trim();
    // An unprotected branch of a repository with a protected one takes force pushes.
    await git(keys.alice.file, ['checkout', '-q', '-b', 'feature'], dir);
    await advance(keys.alice.file, dir, 'feature-1');
    t.equal((await git(keys.alice.file, ['push', '-q', 'origin', 'feature'], dir)).code, 0, 'a new branch');
    const featureRewritten = await rewrite(keys.alice.file, dir, 'feature-rewrite');
    const free = await git(keys.alice.file, ['push', '--force', 'origin', 'feature'], dir);
    t.equal(free.code, 0, `force push to an unprotected branch: ${free.stderr}`);
    t.equal(await tip('feature'), featureRewritten);

    // The protected one refuses a rewrite and does not move.
    await git(keys.alice.file, ['checkout', '-q', 'master'], dir);
    await rewrite(keys.alice.file, dir, 'master-rewrite');
    const refused = await git(keys.alice.file, ['push', '--force', 'origin', 'master'], dir);
    t.not(refused.code, 0);
    t.match(refused.stderr, /\[remote rejected\] master -> master/);
    t.match(refused.stderr, /force push is not allowed/);
    t.equal(await tip('master'), base, 'the protected branch did not move');

    // One push: a fast-forward of the protected branch (its new commit in the pack, judged by git) and a rewrite of the
    // unprotected one — both move (a whole-push fast-forward-only mode would refuse the rewrite).
    await git(keys.alice.file, ['checkout', '-q', 'master'], dir);
    await git(keys.alice.file, ['reset', '-q', '--hard', base], dir);
    const masterFf = await advance(keys.alice.file, dir, 'master-ff-1');
    await git(keys.alice.file, ['checkout', '-q', 'feature'], dir);
    const featureAgain = await rewrite(keys.alice.file, dir, 'feature-rewrite-2');
    const both = await git(keys.alice.file, ['push', '--force', 'origin', 'master', 'feature'], dir);
    t.equal(both.code, 0, `both refs: ${both.stderr}`);
    t.match(both.stderr, /\+ [0-9a-f]+\.\.\.[0-9a-f]+ feature -> feature \(forced update\)/);
    t.equal(await tip('feature'), featureAgain, 'the unprotected branch took its rewrite');
    t.equal(await tip('master'), masterFf, 'the protected branch its fast-forward');
    // A push with a refused ref is refused whole, as Gitea's pre-receive does: nothing moves.
    const featureThird = await rewrite(keys.alice.file, dir, 'feature-rewrite-3');
    await git(keys.alice.file, ['checkout', '-q', 'master'], dir);
    await rewrite(keys.alice.file, dir, 'master-rewrite-2');
    const mixed = await git(keys.alice.file, ['push', '--force', 'origin', 'master', 'feature'], dir);
    t.not(mixed.code, 0);
    t.match(mixed.stderr, /force push is not allowed/);
    t.equal(await tip('feature'), featureAgain, 'the unprotected branch did not move either');
    t.equal(await tip('master'), masterFf, 'the protected branch did not move');
    t.not(featureThird, featureAgain);

    // Fast-forwards, tags (created and moved), deletes, protocol v1, and a push with nothing to send.
    await git(keys.alice.file, ['reset', '-q', '--hard', masterFf], dir);
    const ff = await advance(keys.alice.file, dir, 'master-ff');
    const v1 = await runGit(['-c', 'protocol.version=1', 'push', 'origin', 'master'], { home, cwd: dir, env: { GIT_SSH_COMMAND: sshCommand(keys.alice.file) } });
    t.equal(v1.code, 0, `a fast-forward of the protected branch (protocol v1): ${v1.stderr}`);
    t.equal(await tip('master'), ff);
    await git(keys.alice.file, ['tag', 'v1', base], dir);
    await git(keys.alice.file, ['tag', '-a', '-m', 'release', 'v2'], dir);
    t.equal((await git(keys.alice.file, ['push', 'origin', 'v1', 'v2'], dir)).code, 0, 'tags');
    await git(keys.alice.file, ['tag', '-f', 'v1', ff], dir);
    t.equal((await git(keys.alice.file, ['push', '--force', 'origin', 'v1'], dir)).code, 0, 'a moved tag');
    const tags = (await f.request('GET', '/repos/acme/app/tags', { token: alice.token })).json.map((x: any) => [x.name, x.commit.sha]);
    t.same(tags.sort(), [['v1', ff], ['v2', ff]]);
    const upToDate = await git(keys.alice.file, ['push', 'origin', 'master'], dir);
    t.equal(upToDate.code, 0);
    t.match(upToDate.stderr, /Everything up-to-date/);
    t.equal((await git(keys.alice.file, ['push', 'origin', ':feature'], dir)).code, 0, 'an unprotected branch is deleted');
    t.equal(await tip('feature'), null);
    const del = await git(keys.alice.file, ['push', 'origin', ':master'], dir);
    t.not(del.code, 0, 'the protected default branch is not');
    t.equal(await tip('master'), ff);
  });

  t.test('over smart HTTP the force-push rule is exact per ref too', async (t) => {
    await rule({ enable_push: true });
    const dir = await clone(keys.alice.file);
    const base = (await git(keys.alice.file, ['rev-parse', 'HEAD'], dir)).stdout.trim();
    const http = withAuth(`${f.url}/acme/app.git`, 'alice', alice.token);
    await git(keys.alice.file, ['checkout', '-q', '-b', 'topic'], dir);
    await advance(keys.alice.file, dir, 'topic-1');
    t.equal((await runGit(['push', '-q', http, 'topic'], { home, cwd: dir })).code, 0);
    const topic = await rewrite(keys.alice.file, dir, 'topic-rewrite');
    await git(keys.alice.file, ['checkout', '-q', 'master'], dir);
    await rewrite(keys.alice.file, dir, 'master-rewrite-http');
    const both = await runGit(['push', '--force', http, 'master', 'topic'], { home, cwd: dir });
    t.not(both.code, 0, 'a rewrite of the protected branch, its commit in the pack, refuses the push');
    t.match(both.stderr, /force push is not allowed/);
    t.equal(await tip('master'), base, 'the protected branch did not move');
    await git(keys.alice.file, ['reset', '-q', '--hard', base], dir);
    const ffOnBase = await advance(keys.alice.file, dir, 'master-ff-http');
    const together = await runGit(['push', '--force', http, 'master', 'topic'], { home, cwd: dir });
    t.equal(together.code, 0, `a fast-forward of the protected branch beside a rewrite of another: ${together.stderr}`);
    t.equal(await tip('topic'), topic, 'the unprotected branch took its rewrite');
    t.equal(await tip('master'), ffOnBase, 'the protected branch its fast-forward');
  });
});
