// allow_import_local enforced (Gitea's CanImportLocal): migrating from a local path needs the server's permission
// (plugins.git.migrateAllowLocal) and the caller's — a site admin, or an account an admin gave allow_import_local.
// allow_git_hook: the git hook routes answer as Gitea with hooks disabled (403 to everyone after the access checks).
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startForge } from '../helpers/forge.js';
import { runGit } from '../helpers/git-client.js';

const REFUSED = 'clone_addr: You are not allowed to import local repositories.';

t.test('local-path migrations need allow_import_local', async (t) => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-import-local-'));
  t.teardown(() => rm(work, { recursive: true, force: true }));
  const source = path.join(work, 'src.git');
  const r = await runGit(['init', '-q', '--bare', source], { home: work });
  t.equal(r.code, 0);
  const f = await startForge({ env: { FORGEKIT_MIGRATE_ALLOW_LOCAL: 'true' } });
  t.teardown(() => f.close());
  const lou = await f.createUser({ username: 'lou' });
  const migrate = (token: string, addr: string, name: string) => f.request('POST', '/repos/migrate', { token, json: { clone_addr: addr, repo_name: name } });

  for (const addr of [source, `file://${source}`]) {
    const refused = await migrate(lou.token, addr, 'nope');
    t.equal(refused.status, 422, addr);
    t.equal(refused.json.message, REFUSED);
  }
  t.equal((await f.request('GET', '/repos/lou/nope', { token: lou.token })).status, 404, 'nothing made');
  t.equal((await f.request('POST', '/user/repos', { token: lou.token, json: { name: 'served', auto_init: true } })).status, 201);
  t.equal((await migrate(lou.token, `${f.url}/lou/served.git`, 'over-http')).status, 201, 'a URL is not a local path');

  t.equal((await migrate(f.admin.token, source, 'by-admin')).status, 201, 'site admins may');
  const granted = await f.request('PATCH', '/admin/users/lou', { token: f.admin.token, json: { allow_import_local: true } });
  t.equal(granted.status, 200);
  t.equal((await migrate(lou.token, source, 'granted')).status, 201, 'allowed once an admin grants it');
  t.equal((await f.request('PATCH', '/admin/users/lou', { token: f.admin.token, json: { allow_import_local: false } })).status, 200);
  t.equal((await migrate(lou.token, source, 'revoked')).json.message, REFUSED, 'revoked at once');
});

t.test('allow_import_local does not override the server refusing local paths', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const lou = await f.createUser({ username: 'lou' });
  t.equal((await f.request('PATCH', '/admin/users/lou', { token: f.admin.token, json: { allow_import_local: true } })).status, 200);
  const res = await f.request('POST', '/repos/migrate', { token: lou.token, json: { clone_addr: '/tmp', repo_name: 'x' } });
  t.equal(res.status, 422);
  t.match(res.json.message, /local paths are not allowed on this server/);
  const admin = await f.request('POST', '/repos/migrate', { token: f.admin.token, json: { clone_addr: '/tmp', repo_name: 'x' } });
  t.match(admin.json.message, /local paths are not allowed on this server/, 'site admins neither');
});

t.test('git hooks: refused to everyone, allow_git_hook or not (no server-side hooks run here)', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'hook-owner' });
  const reader = await f.createUser({ username: 'hook-reader' });
  t.equal((await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'pub' } })).status, 201);
  t.equal((await f.request('POST', '/user/repos', { token: owner.token, json: { name: 'priv', private: true } })).status, 201);
  t.equal((await f.request('PATCH', '/admin/users/hook-owner', { token: f.admin.token, json: { allow_git_hook: true } })).status, 200);
  const calls: Array<[string, string, unknown?]> = [
    ['GET', '/repos/hook-owner/pub/hooks/git'],
    ['GET', '/repos/hook-owner/pub/hooks/git/pre-receive'],
    ['PATCH', '/repos/hook-owner/pub/hooks/git/pre-receive', { content: '#!/bin/sh\ntouch /tmp/forgekit-hook-ran\n' }],
    ['DELETE', '/repos/hook-owner/pub/hooks/git/pre-receive'],
  ];
  for (const [method, p, json] of calls) {
    for (const token of [owner.token, f.admin.token]) {
      const res = await f.request(method, p, { token, json });
      t.equal(res.status, 403, `${method} ${p}: a repository admin with allow_git_hook, and a site admin`);
      t.match(res.json.message, /must be allowed to edit Git hooks/);
    }
    t.equal((await f.request(method, p, { token: reader.token, json })).status, 403, `${method} ${p}: not a repository admin`);
    t.equal((await f.request(method, p, { json })).status, 401, `${method} ${p}: anonymous`);
    t.equal((await f.request(method, p.replace('/pub/', '/priv/'), { token: reader.token, json })).status, 404, `${method}: a private repository stays hidden`);
  }
  t.equal((await f.request('GET', '/repos/hook-owner/pub/hooks', { token: owner.token })).status, 200, 'webhooks are untouched');
});
