// `forgekit doctor`: finds damaged counters, orphan rows and stray or missing git directories; --fix repairs.
import t from 'tap';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, startForge } from '../helpers/forge.js';
import { cli, exec, serve, tree } from './operator-helpers.js';

// Each command is a fresh process that boots every plugin: slow on a loaded machine, so a longer limit than tap's default.
t.setTimeout(600_000);

t.test('doctor finds and repairs', async (t) => {
  const f = await startForge({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'forgekit-op-')) });
  t.teardown(() => rm(f.dataDir, { recursive: true, force: true }));
  const alice = await f.createUser();
  const bob = await f.createUser();
  for (const name of ['one', 'two']) {
    t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name, auto_init: true } })).status, 201);
  }
  t.equal((await f.request('PUT', `/user/starred/${alice.username}/one`, { token: bob.token })).status, 204);
  t.equal((await f.request('PUT', `/user/following/${alice.username}`, { token: bob.token })).status, 204);
  // Damage of the kinds a crash or a hand edit leaves behind.
  await f.forge.store.collection('users').updateOne({ id: bob.id }, { $set: { numStars: 7 } });
  await f.forge.store.collection('repos').updateOne({ lowerName: 'two' }, { $set: { numWatches: 9 } });
  await f.forge.store.collection('stars').insertOne({ id: 999_001, uid: 424242, repoId: 1 });
  await f.forge.close();
  await mkdir(path.join(f.dataDir, 'repositories', alice.username.toLowerCase(), 'leftover.git'), { recursive: true });
  const env = { FORGEKIT_DATA_DIR: f.dataDir };

  const check = await cli(['doctor', '--json'], env);
  t.equal(check.code, 1, 'problems: exit 1');
  const report = JSON.parse(check.stdout);
  t.equal(report.ok, false);
  const messages = report.problems.map((p: any) => `${p.check}: ${p.message}`).join('\n');
  t.match(messages, /counter: users #\d+: numStars is 7, 1 stars rows count/);
  t.match(messages, /counter: repos #\d+: numWatches is 9, 1 watches rows count/);
  t.match(messages, /orphan: stars #999001: uid 424242 refers to a missing users record/);
  t.match(messages, /git: git directory .*leftover\.git belongs to no repository record/);
  t.match(messages, /counter: repos #1: numStars is 1, 2 stars rows count/, 'the orphan star also counts until it is removed');

  const human = await cli(['doctor'], env);
  t.match(human.stdout, /\[counter\] .* \(fix with --fix: set numStars to 1\)/);
  t.match(human.stderr, /doctor: \d+\/\d+\n/, 'a plain progress counter on stderr when not a terminal');

  const fixed = await cli(['doctor', '--fix'], env);
  t.match(fixed.stdout, /fixed: set numStars to 1/);
  const after = await cli(['doctor', '--json'], env);
  t.equal(after.code, 0, 'after --fix: consistent (orphans go before counters are counted)');
  t.same(JSON.parse(after.stdout).problems, []);
  t.match(fixed.stdout, /fixed: set numStars to 1\)/);
  const lost = await readdir(path.join(f.dataDir, 'lost+found'));
  t.equal(lost.length, 1, 'the stray git directory was moved aside, not deleted');

  await rm(path.join(f.dataDir, 'repositories', alice.username.toLowerCase(), 'two.git'), { recursive: true });
  const gone = await cli(['doctor'], env);
  t.equal(gone.code, 1);
  t.match(gone.stdout, /\[git\] repos #\d+ .*two\): its git directory .* is missing \(needs a person\)/);
});
