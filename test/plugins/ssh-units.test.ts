// The SSH command parser: the three git services on owner/repo, quoted or not, nothing else. Host key generation.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ssh2 from 'ssh2';
import { PACKAGE_ROOT } from '../../core/config.js';
import { acceptedEnv, parseGitCommand } from '../../plugins/ssh/command.js';
import { generateKeyPair } from '../../plugins/ssh/host-keys.js';

t.test('accepted forms', async (t) => {
  const want = { service: 'upload-pack', owner: 'alice', repo: 'proj' };
  for (const cmd of [
    "git-upload-pack 'alice/proj.git'", "git-upload-pack '/alice/proj.git'", 'git-upload-pack alice/proj.git',
    'git-upload-pack /alice/proj', 'git-upload-pack "alice/proj.git"', "  git-upload-pack 'alice/proj.GIT'  ",
  ]) t.same(parseGitCommand(cmd), want, cmd);
  t.same(parseGitCommand("git-receive-pack 'a-b/c.d_e.git'"), { service: 'receive-pack', owner: 'a-b', repo: 'c.d_e' });
  t.same(parseGitCommand("git-upload-archive 'x/y'"), { service: 'upload-archive', owner: 'x', repo: 'y' });
});

t.test('refused forms', async (t) => {
  for (const cmd of [
    '', 'ls /', 'sh -c id', 'git upload-pack alice/proj', 'git-upload-pack', "git-upload-pack 'alice/proj.git' extra",
    "git-upload-pack '../../etc/passwd'", "git-upload-pack 'alice/../bob/x.git'", "git-upload-pack 'alice/..'",
    "git-upload-pack '/srv/git/alice/proj.git'", "git-upload-pack 'alice'", "git-upload-pack 'alice/proj.git; rm -rf /'",
    "git-upload-pack 'alice/$(id)'", "git-upload-pack '-u/x'x", "git-upload-pack 'al ice/proj'", "git-upload-pack 'alice/proj\u0000'",
    'git-upload-pack ' + 'a'.repeat(600), "git-receive-pack 'alice/./'", "git-upload-pack '.'/x",
  ]) t.throws(() => parseGitCommand(cmd), { name: 'CommandError' }, JSON.stringify(cmd.slice(0, 60)));
});

t.test('environment', async (t) => {
  t.ok(acceptedEnv('GIT_PROTOCOL', 'version=2'));
  t.notOk(acceptedEnv('GIT_PROTOCOL', 'version=2; rm'));
  t.notOk(acceptedEnv('LD_PRELOAD', '/tmp/x.so'));
  t.notOk(acceptedEnv('GIT_DIR', '/etc'));
});

t.test('a key pair ssh2 cannot read back is drawn again', async (t) => {
  const dir = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'keys', 'ssh2-bug');
  const short = { private: readFileSync(path.join(dir, 'ed25519-short-public'), 'utf8'), public: readFileSync(path.join(dir, 'ed25519-short-public.pub'), 'utf8').trim() };
  t.ok(ssh2.utils.parseKey(short.private) instanceof Error, 'the fixture is the unreadable kind');
  // A readable pair for the second draw, found beforehand: a fresh pair is itself unreadable now and then (the same
  // bug), and a third draw would make this test fail by chance.
  let good = ssh2.utils.generateKeyPairSync('ed25519');
  while (ssh2.utils.parseKey(good.private) instanceof Error) good = ssh2.utils.generateKeyPairSync('ed25519');
  const drawn: string[] = [];
  const pair = generateKeyPair('ed25519', (type) => {
    drawn.push(type);
    return drawn.length === 1 ? short : good;
  });
  t.same(drawn, ['ed25519', 'ed25519'], 'one more pair drawn');
  t.not(pair.private, short.private);
  const parsed = ssh2.utils.parseKey(pair.private);
  t.notOk(parsed instanceof Error, 'the returned pair reads back');
  t.equal((parsed as { type: string }).type, 'ssh-ed25519');
  let tries = 0;
  t.throws(() => generateKeyPair('ed25519', () => (tries++, short)), /cannot generate a readable ed25519 key pair/);
  t.equal(tries, 8, 'a generator that never yields a readable pair is given up on');
});
