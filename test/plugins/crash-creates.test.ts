// Crash-safe creates: a server SIGKILLed at injected points of a repository or organization create leaves nothing
// half-made visible after a restart (the start-up pass rolls back or finishes), and the name stays usable.
import t from 'tap';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crashDuring } from '../helpers/crash.js';
import { startForge } from '../helpers/forge.js';
import { builtinPlugins, checkConsistency } from '../../plugins/index.js';
import type { TestForge } from '../helpers/forge.js';

const consistency = (f: TestForge, fix = false) =>
  checkConsistency({ store: f.forge.store, dataDir: f.dataDir, collections: builtinPlugins.flatMap((p) => p.collections ?? []), fix });

async function post(url: string, token: string, body: unknown): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return res.status;
}

t.test('SIGKILL in the middle of creates leaves nothing half-made', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-crash-creates-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));

  const points: Array<[string, (api: string, token: string) => Promise<unknown>]> = [
    ['repo.create:after-record', (api, token) => post(`${api}/user/repos`, token, { name: 'torn-a', auto_init: true })],
    ['repo.create:after-storage', (api, token) => post(`${api}/user/repos`, token, { name: 'torn-b', auto_init: true })],
    ['org.create:after-account', (api, token) => post(`${api}/orgs`, token, { username: 'torn-org-a' })],
    ['org.create:after-team', (api, token) => post(`${api}/orgs`, token, { username: 'torn-org-b' })],
  ];
  for (const [point, action] of points) await crashDuring(dataDir, point, action);

  const f = await startForge({ dataDir });
  t.teardown(() => f.close());
  for (const name of ['torn-a', 'torn-b']) {
    t.equal((await f.request('GET', `/repos/root/${name}`, { token: f.admin.token })).status, 404, `${name}: the half-made record is gone`);
    const again = await f.request('POST', '/user/repos', { token: f.admin.token, json: { name, auto_init: true } });
    t.equal(again.status, 201, `${name}: the name is free again`);
    t.equal(again.json.empty, false);
  }
  for (const name of ['torn-org-a', 'torn-org-b']) {
    const org = await f.request('GET', `/orgs/${name}`);
    t.equal(org.status, 200, `${name}: the organization the owner asked for exists`);
    const members = await f.request('GET', `/orgs/${name}/members`, { token: f.admin.token });
    t.same(members.json.map((m: any) => m.login), ['root'], `${name}: its creator owns it (Owners team finished)`);
    const teams = await f.request('GET', `/orgs/${name}/teams`, { token: f.admin.token });
    t.same(teams.json.map((x: any) => x.name), ['Owners']);
  }
  const report = await consistency(f);
  t.same(report.problems.map((p) => p.message), [], 'the consistency pass finds nothing left');
});

t.test('the consistency pass reports what it cannot repair', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  await f.request('POST', '/user/repos', { token: f.admin.token, json: { name: 'lost-dir' } });
  await rm(path.join(f.dataDir, 'repositories', 'root', 'lost-dir.git'), { recursive: true, force: true });
  // Made by hand, as a crash under an older version left them: a half-made record and an ownerless organization.
  await f.forge.store.collection('repos').updateOne({ name: 'lost-dir' }, { $set: { creating: true } });
  await f.request('POST', '/orgs', { token: f.admin.token, json: { username: 'ownerless' } });
  await f.forge.store.collection('team_members').deleteMany({ userId: f.admin.id, owners: true });
  const report = await consistency(f);
  t.match(report.problems.map((p) => `${p.check}: ${p.message}`).sort(), [
    /^git: repos #\d+ \(root\/lost-dir\): its git directory .* is missing$/,
    /^halfmade: repos #\d+ \(lost-dir\): a create was interrupted$/,
    /^owner: organization ownerless \(#\d+\) has no owner$/,
  ]);
});

t.test('storage of a rolled-back create is removed even when the start that rolled it back stops first', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-leftover-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startForge({ dataDir });
  await first.request('POST', '/user/repos', { token: first.admin.token, json: { name: 'half-made', auto_init: true } });
  // As a crash mid-create leaves it: the record still `creating`, its storage made.
  await first.forge.store.collection('repos').updateOne({ name: 'half-made' }, { $set: { creating: true } });
  const gitDir = path.join(dataDir, 'repositories', 'root', 'half-made.git');
  await first.close();
  // A start without a storage provider (the git plugin off): the record is rolled back, the storage cannot go yet —
  // as when a start is killed between the two. A row says what is left to remove.
  const second = await startForge({ dataDir, disabledPlugins: ['git', 'contents', 'pulls', 'releases', 'ssh'] });
  t.equal((await second.request('GET', '/repos/root/half-made', { token: second.admin.token })).status, 404, 'the record is rolled back');
  t.same((await second.forge.store.collection('repo_leftover_storage').find({})).map((r: any) => r.repo.name), ['half-made'], 'the storage to remove is recorded');
  await second.close();
  t.ok(await stat(gitDir).then(() => true, () => false), 'the storage is still there');
  // The next start with storage removes it before it serves requests; the row goes after it.
  const third = await startForge({ dataDir });
  t.teardown(() => third.close());
  t.notOk(await stat(gitDir).then(() => true, () => false), 'the storage is gone');
  t.same(await third.forge.store.collection('repo_leftover_storage').find({}), [], 'and so is the row');
  // (Only the storage is checked: the hand-made state above had finished the create's watch, which a real crash
  // before the record's last write would not have.)
  t.same((await consistency(third)).problems.map((p) => p.message).filter((m) => /git/.test(m)), [], 'no storage without a record');
  t.equal((await third.request('POST', '/user/repos', { token: third.admin.token, json: { name: 'half-made', auto_init: true } })).status, 201, 'the name is free');
});
