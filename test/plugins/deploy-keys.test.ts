// Deploy keys through HTTP: a real ssh-keygen key deployed to a repository; the DeployKey embeds the Repository for
// the repository's owner and site admins only (Gitea's appendPrivateInformation); other repository admins get the
// key without it; readers 403, strangers on a private repository 404.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startForge } from '../helpers/forge.js';

t.test('deploy keys embed their repository for its owner and site admins', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-deploy-keys-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci', '-f', path.join(dir, 'k')]);
  const key = (await readFile(path.join(dir, 'k.pub'), 'utf8')).trim();
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const admin = await f.createUser();
  const reader = await f.createUser();
  const stranger = await f.createUser();
  const repo = (await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'deployed', private: true } })).json;
  const api = `/repos/${repo.full_name}/keys`;
  for (const [u, permission] of [[admin, 'admin'], [reader, 'read']] as const) {
    t.equal((await f.request('PUT', `/repos/${repo.full_name}/collaborators/${u.username}`, { token: alice.token, json: { permission } })).status, 204);
  }
  const created = await f.request('POST', api, { token: alice.token, json: { title: 'ci', key, read_only: true } });
  t.equal(created.status, 201, created.text);
  t.match(created.json, { title: 'ci', read_only: true, repository: { id: repo.id, full_name: repo.full_name, private: true } });
  t.equal((await f.request('GET', `${api}/${created.json.id}`, { token: alice.token })).json.repository.full_name, repo.full_name, 'owner: embedded');
  t.equal((await f.request('GET', api, { token: f.admin.token })).json[0].repository.full_name, repo.full_name, 'site admin: embedded');
  const byAdmin = await f.request('GET', `${api}/${created.json.id}`, { token: admin.token });
  t.equal(byAdmin.status, 200, 'a repository admin manages deploy keys');
  t.notOk('repository' in byAdmin.json, 'but does not get the repository embedded');
  t.equal((await f.request('GET', api, { token: reader.token })).status, 403);
  t.equal((await f.request('GET', api, { token: stranger.token })).status, 404);
  t.equal((await f.request('DELETE', `${api}/${created.json.id}`, { token: alice.token })).status, 204);
});
