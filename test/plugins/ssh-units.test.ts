// The SSH command parser: the three git services on owner/repo, quoted or not, nothing else.
import t from 'tap';
import { acceptedEnv, parseGitCommand } from '../../plugins/ssh/command.js';

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
