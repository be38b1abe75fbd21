// git plugin units: the clone_addr policy, address ranges, path safety, templates and license filling, the sync
// queue, and the git runner's timeouts and shutdown (with the real git binary).
import t from 'tap';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { checkRemote, isPublicAddress, RemoteRefused, type RemoteCheckOptions } from '../../plugins/git/remote-url.js';
import { GitError, GitRunner, gitMessage, redact } from '../../plugins/git/runner.js';
import { GitStorage, isSafeBranch, isSafeSegment, parseCountObjects, UnsafePathError } from '../../plugins/git/storage.js';
import { SyncQueue } from '../../plugins/git/sync-queue.js';
import { Templates, splitList } from '../../plugins/git/templates.js';
import { waitFor } from '../helpers/wait.js';

const log = pino({ level: 'silent' });

t.test('clone_addr policy', async (t) => {
  const dns: Record<string, string[]> = {
    'git.example.com': ['93.184.216.34'],
    'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
    'rebind.example.com': ['127.0.0.1'],
    'internal.example.com': ['fd00::1'],
  };
  const lookup = async (host: string) => {
    if (!dns[host]) throw new Error('ENOTFOUND');
    return dns[host]!;
  };
  const strict: RemoteCheckOptions = { allowLocal: false, forbiddenRoots: [], lookup };
  const refused = async (addr: string, reason: RegExp, opts = strict) => {
    await t.rejects(checkRemote(addr, opts), RemoteRefused, addr);
    await checkRemote(addr, opts).catch((err) => t.match(err.message, reason, `${addr}: ${err.message}`));
  };

  const ok = await checkRemote('https://git.example.com/org/repo.git', strict);
  t.same(ok, { url: 'https://git.example.com/org/repo.git', kind: 'http', username: undefined, password: undefined, pin: 'git.example.com:443:93.184.216.34' });
  const creds = await checkRemote('http://me:p%40ss@git.example.com:8080/r.git#frag', strict);
  t.equal(creds.url, 'http://git.example.com:8080/r.git', 'credentials and fragment removed from the URL');
  t.equal(creds.username, 'me');
  t.equal(creds.password, 'p@ss', 'decoded');
  t.equal(creds.pin, 'git.example.com:8080:93.184.216.34');
  const v6 = await checkRemote('https://v6.example.com/r.git', strict);
  t.equal(v6.pin, 'v6.example.com:443:[2606:2800:220:1:248:1893:25c8:1946]');
  const gitUrl = await checkRemote('git://93.184.216.34/r.git', strict);
  t.equal(gitUrl.kind, 'git');
  t.equal(gitUrl.pin, undefined, 'no curl pinning for the git protocol');
  await refused('git://git.example.com/r.git', /must name an IP address/); // git would resolve the name again itself
  t.equal((await checkRemote('https://93.184.216.34/r.git', strict)).pin, undefined, 'an IP literal needs no pin');

  await refused('https://mixed.example.com/r.git', /local or private/);
  await refused('https://rebind.example.com/r.git', /local or private/);
  await refused('https://internal.example.com/r.git', /local or private/);
  await refused('https://unknown.example.com/r.git', /cannot be resolved/);
  await refused('ssh://git.example.com/r.git', /http, https or git/);
  await refused('ftp://git.example.com/r.git', /http, https or git/);
  await refused('git@git.example.com:r.git', /http, https or git/);
  await refused('ext::sh', /http, https or git/);
  await refused('-uhttps://x', /not a URL/);
  await refused('', /empty/);
  await refused(`https://git.example.com/${'a'.repeat(3000)}`, /at most/);
  await refused('https://git.example.com/a\nb', /control/);
  await refused('http:///nohost', /host|valid/);
  await refused('/tmp', /local paths/);
  await refused('file:///tmp', /local paths/);

  const work = await mkdtemp(path.join(os.tmpdir(), 'forgekit-remote-'));
  t.teardown(() => rm(work, { recursive: true, force: true }));
  const data = path.join(work, 'data');
  const outside = path.join(work, 'outside.git');
  await mkdir(path.join(data, 'repositories', 'bob', 'x.git'), { recursive: true });
  await mkdir(outside);
  const open: RemoteCheckOptions = { allowLocal: true, forbiddenRoots: [data], lookup };
  t.same(await checkRemote(outside, open), { url: outside, kind: 'local' });
  t.same(await checkRemote(`file://${outside}`, open), { url: outside, kind: 'local' });
  t.equal((await checkRemote('https://rebind.example.com/r.git', open)).kind, 'http', 'loopback allowed by the operator');
  await refused(path.join(data, 'repositories', 'bob', 'x.git'), /data directory/, open);
  await refused(`${outside}/../data/repositories/bob/x.git`, /data directory/, open);
  await refused(data, /data directory/, open);
  await refused(path.join(work, 'missing'), /does not exist/, open);
  await refused('file://evil.example.com/etc', /host/, open);
  // A local source borrowing objects from the data dir (objects/info/alternates), directly or through another one.
  const borrower = path.join(work, 'borrower.git');
  await mkdir(path.join(borrower, 'objects', 'info'), { recursive: true });
  await writeFile(path.join(borrower, 'objects', 'info', 'alternates'), `${path.join(data, 'repositories', 'bob', 'x.git', 'objects')}\n`);
  await refused(borrower, /alternates/, open);
  const chain = path.join(work, 'chain.git');
  await mkdir(path.join(chain, 'objects', 'info'), { recursive: true });
  await writeFile(path.join(chain, 'objects', 'info', 'alternates'), `# a comment\n../../borrower.git/objects\n`);
  await refused(chain, /alternates/, open);
  const worktree = path.join(work, 'worktree');
  await mkdir(path.join(worktree, '.git', 'objects', 'info'), { recursive: true });
  await writeFile(path.join(worktree, '.git', 'objects', 'info', 'alternates'), `${path.join(chain, 'objects')}\n`);
  await refused(worktree, /alternates/, open);
});

t.test('isPublicAddress', async (t) => {
  for (const a of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) t.ok(isPublicAddress(a), a);
  for (const a of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '192.0.2.5', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2001:db8::1', 'not-an-ip',
    '::ffff:0:7f00:1', '::ffff:0:a00:1', '2002:7f00:1::', '64:ff9b:1::7f00:1', '100::1', '198.18.0.1', '192.0.0.8', '::7f00:1']) {
    t.notOk(isPublicAddress(a), a);
  }
  t.ok(isPublicAddress('::ffff:8.8.8.8'), 'a mapped public IPv4 address');
  t.ok(isPublicAddress('172.32.0.1'), 'just outside 172.16/12');
});

t.test('path safety', async (t) => {
  const storage = new GitStorage({} as GitRunner, '/srv/forge/repositories', log);
  t.equal(storage.repoDir('Alice', 'Hello.World'), '/srv/forge/repositories/alice/hello.world.git');
  t.equal(storage.repoDir('a-b_c', '.hidden'), '/srv/forge/repositories/a-b_c/.hidden.git');
  for (const [owner, name] of [['alice', '..'], ['alice', '.'], ['..', 'x'], ['alice', '../x'], ['alice', 'a/b'], ['alice', 'a\\b'],
    ['alice', ''], ['', 'x'], ['alice', '/etc'], ['alice', 'x\u0000y'], ['al ice', 'x'], ['alice', 'ü'], ['alice', 'a'.repeat(101)]]) {
    t.throws(() => storage.repoDir(owner!, name!), UnsafePathError, `${JSON.stringify(owner)}/${JSON.stringify(name)}`);
  }
  t.ok(isSafeSegment('ok.name-1_x'));
  t.notOk(isSafeSegment('..'));
  for (const b of ['master', 'main', 'feature/x', 'release-1.0']) t.ok(isSafeBranch(b), b);
  for (const b of ['', '-x', 'a..b', 'a b', 'a~1', 'x.lock', '/x', 'x/', 'a@{1}', 'a:b', 'a\nb']) t.notOk(isSafeBranch(b), JSON.stringify(b));
});

t.test('templates', async (t) => {
  const templates = new Templates();
  await templates.load();
  t.ok(templates.gitignoreNames().length >= 30, `${templates.gitignoreNames().length} gitignore templates`);
  for (const name of ['Node', 'Python', 'Go', 'Rust', 'Java', 'C', 'C++']) t.ok(templates.gitignore(name.toUpperCase()), name);
  t.same(templates.readmeNames(), ['Default']);
  t.same(splitList(' Node, ,python ,'), ['Node', 'python']);

  t.equal(templates.check({ gitignores: 'node,Go', license: 'mit', readme: 'default' }), null);
  t.equal(templates.check({ gitignores: '', license: '', readme: '' }), null);
  t.match(templates.check({ gitignores: 'Node,Klingon', license: '', readme: '' }), /^gitignores: unknown template "Klingon"/);
  t.match(templates.check({ gitignores: '', license: 'WTFPL-9', readme: '' }), /^license: /);
  t.match(templates.check({ gitignores: '', license: '', readme: 'Nope' }), /^readme: /);

  t.equal(templates.licenseKey('mit'), 'MIT');
  t.equal(templates.licenseKey('MIT License'), 'MIT', 'by full name');
  t.equal(templates.licenseKey('apache-2.0'), 'Apache-2.0');
  t.equal(templates.licenseKey('Apache v2 License'), 'Apache-2.0', "Gitea 2017's name");
  t.equal(templates.licenseKey('GPL v3'), 'GPL-3.0-only');
  t.equal(templates.licenseKey('gpl-3.0'), 'GPL-3.0');
  t.equal(templates.licenseKey('nope'), null);

  const values = { owner: 'Jane Doe', year: 2031, repoName: 'widget' };
  const cases: Array<[string, RegExp]> = [
    ['MIT', /Copyright \(c\) 2031 Jane Doe/],
    ['BSD-3-Clause', /Copyright \(c\) 2031 Jane Doe/],
    ['BSD-2-Clause', /2031 Jane Doe/],
    ['Apache-2.0', /Copyright 2031 Jane Doe/],
    ['GPL-3.0-only', /Copyright \(C\) 2031\s+Jane Doe/],
    ['AGPL-3.0-only', /Copyright \(C\) 2031\s+Jane Doe/],
    ['ISC', /^ISC License:\n\nCopyright \(c\) 2031 Jane Doe\n/],
  ];
  for (const [key, expected] of cases) {
    const text = templates.fillLicense(key, values);
    t.match(text, expected, key);
    t.notMatch(text, /<year>|\[yyyy\]|<name of author>|<copyright holders>|<owner>|\[name of copyright owner\]/, `${key}: no placeholders left`);
    t.ok(text.endsWith('\n'));
  }
  t.match(templates.fillLicense('GPL-3.0-only', values), /widget/, '<program> filled with the repository name');
  t.match(templates.fillLicense('MPL-2.0', values), /Mozilla Public License/, 'a license without placeholders is used as is');

  const files = templates.initFiles({ gitignores: 'python,Node,PYTHON', license: 'MIT', readme: '' }, {
    ...values, description: 'Does things', cloneUrl: 'http://h/jane/widget.git',
  });
  t.same([...files.keys()].sort(), ['.gitignore', 'LICENSE', 'README.md']);
  t.equal(files.get('README.md'), '# widget\n\nDoes things\n');
  t.same(files.get('.gitignore')!.match(/^# ---> .+$/gm), ['# ---> Python', '# ---> Node'], 'listed order, duplicates once');
});

t.test('parseCountObjects', async (t) => {
  t.equal(parseCountObjects('count: 3\nsize: 12\nin-pack: 9\npacks: 1\nsize-pack: 30\nprune-packable: 0\ngarbage: 0\nsize-garbage: 4\n'), 42);
  t.equal(parseCountObjects('count: 0\nsize: 0\nin-pack: 0\npacks: 0\nsize-pack: 0\n'), 0);
});

t.test('messages and redaction', async (t) => {
  t.equal(redact("fatal: unable to access 'https://user:secret@host/x.git/': 403"), "fatal: unable to access 'https://host/x.git/': 403");
  t.equal(gitMessage("Cloning into bare repository 'x'...\nhint: foo\nfatal: repository 'https://u:p@h/x' not found\n"), "fatal: repository 'https://h/x' not found");
  t.equal(gitMessage(''), '');
});

t.test('sync queue: never two syncs of one repository at once; requests coalesce; bounded concurrency', async (t) => {
  const active = new Set<number>();
  let maxParallel = 0;
  let overlap = false;
  const runs: number[] = [];
  // Each sync holds until the test releases it, so "while 1 runs" is a state the test sees, not a moment it guesses.
  const held: Array<() => void> = [];
  const queue = new SyncQueue(async (id) => {
    if (active.has(id)) overlap = true;
    active.add(id);
    maxParallel = Math.max(maxParallel, active.size);
    runs.push(id);
    await new Promise<void>((resolve) => held.push(resolve));
    active.delete(id);
    if (id === 99) throw new Error('boom');
  }, 2, log);
  for (let i = 0; i < 10; i++) queue.enqueue(1);
  queue.enqueue(2);
  queue.enqueue(3);
  queue.enqueue(99);
  t.ok(queue.isQueued(1));
  await waitFor('two syncs to be running', () => held.length === 2);
  t.same(runs, [1, 2], 'two at once, in order; 3 and 99 wait');
  for (let i = 0; i < 5; i++) queue.enqueue(1); // while 1 runs: one more run afterwards
  let idle = false;
  const whenIdle = queue.idle().then(() => { idle = true; });
  while (!idle) {
    await waitFor('a sync to release, or the queue to be idle', () => held.length > 0 || idle);
    held.shift()?.();
  }
  await whenIdle;
  t.notOk(overlap, 'no overlap per repository');
  t.equal(maxParallel, 2, 'at most 2 at once');
  t.equal(runs.filter((id) => id === 1).length, 2, 'the requests for 1 coalesced into one run plus one rerun');
  t.same(runs.filter((id) => id !== 1).sort((a, b) => a - b), [2, 3, 99], 'a failing job does not stop the queue');
  queue.enqueue(5);
  queue.forget(5);
  const stopping = queue.stop();
  await waitFor('the running sync of 5', () => held.length === 1);
  held.shift()!();
  await stopping;
  queue.enqueue(6);
  t.notOk(queue.isQueued(6), 'nothing is accepted after stop');
  t.notOk(runs.includes(6));
});

t.test('git runner: arguments only, errors, timeouts, shutdown', async (t) => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-runner-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const runner = new GitRunner({ binary: 'git', home: path.join(home, 'home'), timeoutMs: 20_000, log });
  await runner.start();
  t.match((await runner.run(['--version'])).stdout, /^git version /);
  const env = runner.env({ EXTRA: '1' });
  t.equal(env.GIT_TERMINAL_PROMPT, '0');
  t.equal(env.GIT_CONFIG_NOSYSTEM, '1');
  t.equal(env.HOME, path.join(home, 'home'));
  t.notOk('GIT_DIR' in env, 'nothing inherited beyond PATH');
  const shellish = await runner.run(['rev-parse', '--sq-quote', '$(touch /tmp/forgekit-shell)', ';', '&&', '|']);
  t.match(shellish.stdout, /\$\(touch/, 'arguments reach git verbatim: no shell');

  const failed = await runner.run(['--git-dir', path.join(home, 'nope'), 'rev-parse', 'HEAD']).catch((e) => e);
  t.type(failed, GitError);
  t.equal(failed.timedOut, false);
  t.match(failed.stderr, /not a git repository/);

  // A process that would wait for stdin forever: only the timeout ends it.
  const hanging = runner.spawn(['cat-file', '--batch'], { timeoutMs: 300 });
  await new Promise((r) => hanging.once('close', r));
  t.equal((hanging as any).timedOut, true, 'killed by the timeout');

  const batch = await runner.run(['cat-file', '--batch'], { timeoutMs: 5000 });
  t.equal(batch.stdout, '', 'run() closes stdin when there is no input, so a reader of stdin ends');
  const overflow = await runner.run(['--version'], { maxStdout: 4 }).catch((e) => e);
  t.match(overflow.message, /too much output/, 'stdout is bounded');

  const stuck = runner.spawn(['cat-file', '--batch']);
  t.equal(runner.running, 1);
  await runner.stop(200);
  t.equal(stuck.signalCode, 'SIGKILL', 'stop() kills what does not end in the grace period');
  t.equal(runner.running, 0);
  await t.rejects(runner.run(['--version']), GitError, 'no new processes after stop');
});

t.test('git runner: run() goes through the spawn helper process, with the same results, and falls back without it', async (t) => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-helper-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const runner = new GitRunner({ binary: 'git', home: path.join(home, 'home'), timeoutMs: 20_000, log });
  const direct = new GitRunner({ binary: 'git', home: path.join(home, 'home'), timeoutMs: 20_000, log, spawnHelper: false });
  await Promise.all([runner.start(), direct.start()]);
  t.teardown(() => Promise.all([runner.stop(0), direct.stop(0)]));
  const helperPid = runner.helperPid;
  t.ok(helperPid && helperPid !== process.pid, 'the helper runs in its own process');
  t.equal(direct.helperPid, undefined, 'a runner made without the helper has none');

  // The process that starts git is the helper: a shell as the binary prints its parent.
  const sh = new GitRunner({ binary: 'sh', home: path.join(home, 'home'), timeoutMs: 20_000, log });
  await sh.start();
  t.equal((await sh.run(['-c', 'echo $PPID'])).stdout.trim(), String(sh.helperPid), 'git is started by the helper');
  t.match((await sh.run(['-c', 'echo "$HOME|$GIT_TERMINAL_PROMPT|$EXTRA|${SECRET_OF_SERVER:-none}"'], { env: { EXTRA: 'x' } })).stdout.trim(),
    `${path.join(home, 'home')}|0|x|none`, 'the runner\'s environment, and nothing of the server\'s');
  t.equal((await sh.run(['-c', 'pwd'], { cwd: home })).stdout.trim(), home, 'cwd');

  // Same answers as git started by the server itself: output, stdin (bytes and text), exit codes, stderr, bounds.
  const input = Buffer.from('blob ünï\0bytes\n');
  for (const [name, r] of [['helper', runner], ['direct', direct]] as const) {
    t.equal((await r.run(['hash-object', '--stdin'], { input })).stdout, (await direct.run(['hash-object', '--stdin'], { input })).stdout, `${name}: stdin bytes`);
    t.equal((await r.run(['hash-object', '--stdin'], { input: 'text\n' })).stdout, '8e27be7d6154a1f68ea9160ef0e18691d20560dc\n', `${name}: stdin text`);
    const failed = await r.run(['--git-dir', path.join(home, 'nope'), 'rev-parse', 'HEAD']).catch((e) => e);
    t.type(failed, GitError);
    t.equal(failed.code, 128);
    t.equal(failed.timedOut, false);
    t.match(failed.message, /^git --git-dir failed \(exit 128\)$/);
    t.match(failed.stderr, /not a git repository/);
    t.match((await r.run(['--version'], { maxStdout: 4 }).catch((e) => e)).message, /too much output/, `${name}: stdout is bounded`);
    t.equal((await r.run(['cat-file', '--batch'])).stdout, '', `${name}: stdin closed without input`);
  }
  const sleeper = new GitRunner({ binary: 'sleep', home: path.join(home, 'home'), timeoutMs: 20_000, log });
  await sleeper.start();
  const slow = await sleeper.run(['60'], { timeoutMs: 300 }).catch((e) => e);
  t.equal(slow.timedOut, true, 'the timeout kills a helper job');
  const missing = new GitRunner({ binary: path.join(home, 'no-such-git'), home: path.join(home, 'home'), timeoutMs: 20_000, log });
  await missing.start();
  t.match((await missing.run(['--version']).catch((e) => e)).message, /^cannot run git: /, 'a binary that cannot start');
  await missing.stop(0);

  // stop() kills what the helper still runs, then ends the helper.
  const stuck = sleeper.run(['60']).catch((e) => e);
  await waitFor('the helper job to be under way', () => sleeper.running === 1);
  const sleeperHelper = sleeper.helperPid!;
  await sleeper.stop(100);
  t.type(await stuck, GitError, 'a killed job rejects');
  t.equal(sleeper.running, 0);
  await waitFor('the helper to exit', () => { try { process.kill(sleeperHelper, 0); return false; } catch { return true; } });

  // The helper dies: commands under way fail, later ones are started by the server itself.
  const pending = sh.run(['-c', 'sleep 60']).catch((e) => e);
  await waitFor('the job to be under way', () => sh.running === 1);
  process.kill(sh.helperPid!, 'SIGKILL');
  t.type(await pending, GitError, 'a job of a helper that died rejects');
  await waitFor('the runner to notice', () => sh.helperPid === undefined);
  t.equal((await sh.run(['-c', 'echo $PPID'])).stdout.trim(), String(process.pid), 'fallback: started by the server');
  await sh.stop(0);
});

t.test('storage: init, fast-import commit, stats, HEAD settling', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'forgekit-storage-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const runner = new GitRunner({ binary: 'git', home: path.join(root, 'home'), timeoutMs: 20_000, log });
  await runner.start();
  const storage = new GitStorage(runner, path.join(root, 'repositories'), log);
  await storage.start();
  const dir = storage.repoDir('jane', 'widget');
  await storage.prepare(dir);
  await storage.init(dir, 'trunk');
  t.same(await storage.stats(dir), { empty: true, size: 0 });
  t.equal(await storage.headBranch(dir), 'trunk');
  t.equal(await storage.settleHead(dir, 'trunk'), 'trunk', 'nothing to settle without branches');
  await storage.commitFiles(dir, 'trunk', new Map([['README.md', '# widget\n'], ['LICENSE', 'ünïcödé ✓\n']]), { name: 'Jane <Doe>\n', email: 'jane @example.com' }, 'Initial commit\n');
  const stats = await storage.stats(dir);
  t.equal(stats.empty, false);
  t.ok(stats.size > 0);
  const show = await runner.run(['--git-dir', dir, 'log', '--format=%an|%ae|%s', 'trunk']);
  t.equal(show.stdout.trim(), 'Jane Doe|jane@example.com|Initial commit', 'identity cleaned of <, > and newlines');
  t.equal((await runner.run(['--git-dir', dir, 'show', 'trunk:LICENSE'])).stdout, 'ünïcödé ✓\n', 'UTF-8 content byte-exact');
  await t.rejects(storage.commitFiles(dir, 'trunk', new Map([['../evil', 'x']]), { name: 'x', email: 'x@x' }, 'x'), UnsafePathError);
  await t.rejects(storage.init(storage.repoDir('jane', 'other'), '--upload-pack=evil'), UnsafePathError);

  await storage.setHead(dir, 'master');
  t.equal(await storage.settleHead(dir, 'master'), 'trunk', 'HEAD on a missing branch moves to an existing one');
  t.equal(await storage.headBranch(dir), 'trunk');
  await storage.remove(dir);
  t.notOk(await storage.exists(dir));
  t.notOk(await storage.exists(path.dirname(dir)), 'the empty owner directory is removed too');
});
