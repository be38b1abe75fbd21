// Commit signature verification against uploaded GPG keys: a commit signed by gpg with a key the committer uploaded
// is verified (signer, reason `<login> / <key id>`); unsigned, unknown-key and foreign-email commits are not.
import t from 'tap';
import { mkdtemp, readFile, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';
import { runGit, withAuth } from '../helpers/git-client.js';
import { startForge } from '../helpers/forge.js';
import { Receiver } from '../helpers/receiver.js';

const KEYS = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'gpg');
const KEY_ID = '16E79244C56F4BC3';

t.test('contents: commit verification', async (t) => {
  const gitHome = await mkdtemp(path.join(os.tmpdir(), 'forgekit-verify-'));
  const gnupg = path.join(gitHome, '.gnupg');
  await mkdir(gnupg, { recursive: true });
  await chmod(gnupg, 0o700);
  execFileSync('gpg', ['--batch', '--quiet', '--homedir', gnupg, '--import', path.join(KEYS, 'ed25519.secret.asc')], { stdio: 'ignore' });
  const rx = await new Receiver().start();
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } as any });
  t.teardown(async () => {
    await f.close();
    await rx.close();
    await rm(gitHome, { recursive: true, force: true });
  });
  const bob = await f.createUser({ username: 'signer-bob', email: 'bob@example.net' });
  t.equal((await f.request('POST', '/user/gpg_keys', { token: bob.token, json: { armored_public_key: await readFile(path.join(KEYS, 'ed25519.asc'), 'utf8') } })).status, 201);
  const repo = await f.request('POST', '/user/repos', { token: bob.token, json: { name: 'signed' } });
  t.equal((await f.request('POST', '/repos/signer-bob/signed/hooks', {
    token: bob.token, json: { type: 'gitea', active: true, events: ['push'], config: { url: `${rx.url}/push`, content_type: 'json' } },
  })).status, 201);
  const dir = path.join(gitHome, 'w');
  const run = (args: string[], email = 'bob@example.net') => execFileSync('git', args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH, HOME: gitHome, GNUPGHOME: gnupg, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C', LC_ALL: 'C',
      GIT_AUTHOR_NAME: 'Bob Builder', GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: 'Bob Builder', GIT_COMMITTER_EMAIL: email,
    },
  }).toString().trim();
  await mkdir(dir);
  run(['init', '-q', '-b', 'main']);
  const commit = async (file: string, email: string, sign: boolean) => {
    await writeFile(path.join(dir, file), file);
    run(['add', file]);
    run(['-c', `user.signingkey=${KEY_ID}`, 'commit', '-q', ...(sign ? ['-S'] : []), '-m', file], email);
    return run(['rev-parse', 'HEAD']);
  };
  const good = await commit('good', 'bob@example.net', true);
  const foreign = await commit('foreign', 'someone@example.org', true);
  const plain = await commit('plain', 'bob@example.net', false);
  t.equal((await runGit(['push', '-q', withAuth(repo.json.clone_url, 'signer-bob', bob.token), 'main'], { home: gitHome, cwd: dir })).code, 0);

  // The push webhook's commits carry the same verification as the commit routes (Gitea's PayloadCommitVerification).
  const [push] = await rx.count(1);
  const payload = JSON.parse(push!.body);
  t.same(payload.commits.map((c: any) => c.id), [plain, foreign, good], 'push payload: newest first');
  t.match(payload.commits[0].verification, { verified: false, reason: 'gpg.error.not_signed_commit', signer: null, signature: '', payload: '' });
  t.match(payload.commits[1].verification, { verified: false, reason: 'gpg.error.no_committer_account', signature: /^-----BEGIN PGP SIGNATURE-----/ });
  t.match(payload.commits[2].verification, { verified: true, reason: `signer-bob / ${KEY_ID}`, signer: { name: 'signer-bob', username: 'signer-bob', email: 'bob@example.net' } });
  t.same(payload.head_commit.verification, payload.commits[0].verification, 'head_commit too');

  const list = await f.request('GET', '/repos/signer-bob/signed/commits');
  t.same(list.json.map((c: any) => c.sha), [plain, foreign, good]);
  t.match(list.json[0].commit.verification, { verified: false, reason: 'gpg.error.not_signed_commit', signer: null, signature: '' });
  t.match(list.json[1].commit.verification, { verified: false, reason: 'gpg.error.no_committer_account', signature: /^-----BEGIN PGP SIGNATURE-----/ });
  const v = list.json[2].commit.verification;
  t.match(v, { verified: true, reason: `signer-bob / ${KEY_ID}`, signer: { username: 'signer-bob', email: 'bob@example.net' } });
  t.match(v.payload, /^tree [0-9a-f]{40}\n/);
  t.notMatch(v.payload, /gpgsig/);
  const branch = await f.request('GET', '/repos/signer-bob/signed/branches/main');
  t.equal(branch.json.commit.verification.verified, false, 'the branch head is the unsigned commit');
  const one = await f.request('GET', `/repos/signer-bob/signed/git/commits/${good}`);
  t.equal(one.json.commit.verification.verified, true);

  // A pull request's commits carry the same verification (GET /pulls/{n}/commits).
  run(['checkout', '-q', '-b', 'feature']);
  const featureSha = await commit('feature', 'bob@example.net', true);
  t.equal((await runGit(['push', '-q', withAuth(repo.json.clone_url, 'signer-bob', bob.token), 'feature'], { home: gitHome, cwd: dir })).code, 0);
  run(['checkout', '-q', 'main']);
  const pr = await f.request('POST', '/repos/signer-bob/signed/pulls', { token: bob.token, json: { head: 'feature', base: 'main', title: 'signed change' } });
  t.equal(pr.status, 201, pr.text);
  const prCommits = await f.request('GET', `/repos/signer-bob/signed/pulls/${pr.json.number}/commits`);
  t.same(prCommits.json.map((c: any) => c.sha), [featureSha]);
  t.match(prCommits.json[0].commit.verification, { verified: true, reason: `signer-bob / ${KEY_ID}`, signer: { username: 'signer-bob' } }, 'pull request commits: verified');

  // The key goes: the same signature is no longer verified (after the cache's minute, or for a fresh object).
  const keys = await f.request('GET', '/user/gpg_keys', { token: bob.token });
  t.equal((await f.request('DELETE', `/user/gpg_keys/${keys.json[0].id}`, { token: bob.token })).status, 204);
  const later = await commit('later', 'bob@example.net', true);
  t.equal((await runGit(['push', '-q', withAuth(repo.json.clone_url, 'signer-bob', bob.token), 'main'], { home: gitHome, cwd: dir })).code, 0);
  t.match((await f.request('GET', `/repos/signer-bob/signed/git/commits/${later}`)).json.commit.verification, { verified: false, reason: 'gpg.error.no_gpg_keys_found' });
});
