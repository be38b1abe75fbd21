// The server's garbage collector for the CPUs it may use (bin/gc-mode.ts): the decision, the CPU count from affinity
// and cgroup quotas (v1 and v2, nested, containers' mount roots), and `forgekit serve` relaunching itself with
// `--single-threaded-gc` on one CPU — signals passed on, exit code and signal passed back.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cgroupCpuQuota, gcFlags, runsSingleThreadedGc, usableCpus } from '../../bin/gc-mode.js';
import { freePort } from '../helpers/forge.js';
import { ENV_BIN } from '../helpers/child-env.js';
import { BIN } from './operator-helpers.js';

t.test('the decision: single-threaded below two CPUs under auto, the mode when forced, the operator\'s flags first', async (t) => {
  t.same(gcFlags('auto', 1, []), ['--single-threaded-gc']);
  t.same(gcFlags('auto', 2, []), []);
  t.same(gcFlags('auto', 64, ['--max-old-space-size=4096']), []);
  t.same(gcFlags('single-threaded', 8, []), ['--single-threaded-gc']);
  t.same(gcFlags('concurrent', 1, []), []);
  t.same(gcFlags('auto', 1, ['--single-threaded-gc']), [], 'already running with it: no second relaunch');
  t.same(gcFlags('auto', 1, ['--no-concurrent-marking']), [], 'the operator chose the threads');
  t.same(gcFlags('single-threaded', 1, ['--concurrent_marking']), [], 'underscore spelling too');
  t.same(gcFlags('auto', 1, ['--single-threaded']), []);
  t.same(gcFlags('auto', 1, ['--single-threaded-gc-extra']), ['--single-threaded-gc'], 'a flag that only starts alike is not one');
  t.equal(runsSingleThreadedGc(['--single-threaded-gc']), true);
  t.equal(runsSingleThreadedGc(['--single_threaded']), true);
  t.equal(runsSingleThreadedGc(['--max-semi-space-size=32']), false);
});

/** A fake /proc and /sys: file path → contents; anything else is missing. */
function files(map: Record<string, string>) {
  return (file: string) => {
    const text = map[file];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    return text;
  };
}

const V2_MOUNT = '30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n';
const V1_MOUNTS = (root: string) => [
  `32 31 0:29 ${root} /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct`,
  `34 31 0:31 ${root} /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset`,
].join('\n');

t.test('cgroup v2: the smallest cpu.max on the path up to the root', async (t) => {
  const read = files({
    '/proc/self/mountinfo': V2_MOUNT,
    '/proc/self/cgroup': '0::/system.slice/forge.service\n',
    '/sys/fs/cgroup/system.slice/forge.service/cpu.max': '150000 100000\n',
    '/sys/fs/cgroup/system.slice/cpu.max': 'max 100000\n',
    '/sys/fs/cgroup/cpu.max': '400000 100000\n',
  });
  t.equal(cgroupCpuQuota(read), 1.5);
  t.equal(usableCpus(8, read), 1, '1.5 CPUs of quota: one whole CPU');
  t.equal(usableCpus(1, read), 1);
  const parentSmaller = files({
    '/proc/self/mountinfo': V2_MOUNT,
    '/proc/self/cgroup': '0::/a/b\n',
    '/sys/fs/cgroup/a/b/cpu.max': '800000 100000',
    '/sys/fs/cgroup/a/cpu.max': '200000 100000',
  });
  t.equal(usableCpus(16, parentSmaller), 2, 'a parent\'s quota caps its children');
  const none = files({ '/proc/self/mountinfo': V2_MOUNT, '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': 'max 100000' });
  t.equal(cgroupCpuQuota(none), null);
  t.equal(usableCpus(6, none), 6, 'no quota: the affinity');
  const tiny = files({ '/proc/self/mountinfo': V2_MOUNT, '/proc/self/cgroup': '0::/x\n', '/sys/fs/cgroup/x/cpu.max': '20000 100000' });
  t.equal(usableCpus(4, tiny), 1, 'a fifth of a CPU still runs on one');
});

t.test('cgroup v1: cfs quota and period, the mount\'s root inside a container, -1 for none', async (t) => {
  const container = files({
    '/proc/self/mountinfo': V1_MOUNTS('/docker/abc123'),
    '/proc/self/cgroup': '4:cpuset:/docker/abc123\n3:cpu,cpuacct:/docker/abc123\n0::/\n',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '100000\n',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
  });
  t.equal(cgroupCpuQuota(container), 1, 'the group is the mount\'s root');
  t.equal(usableCpus(32, container), 1);
  const host = files({
    '/proc/self/mountinfo': V1_MOUNTS('/'),
    '/proc/self/cgroup': '3:cpu,cpuacct:/user.slice\n',
    '/sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.cfs_quota_us': '-1',
    '/sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.cfs_period_us': '100000',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '-1',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000',
  });
  t.equal(cgroupCpuQuota(host), null);
  t.equal(usableCpus(4, host), 4);
});

t.test('no cgroups to read (not Linux, a sandbox): the affinity alone', async (t) => {
  t.equal(cgroupCpuQuota(files({})), null);
  t.equal(usableCpus(3, files({})), 3);
  t.equal(usableCpus(3, files({ '/proc/self/mountinfo': 'garbage', '/proc/self/cgroup': '' })), 3);
});

t.test('this machine: the count is a whole number between 1 and the affinity', async (t) => {
  const n = usableCpus();
  t.ok(Number.isInteger(n) && n >= 1 && n <= os.availableParallelism(), `${n} of ${os.availableParallelism()}`);
});

/** `forgekit serve` as a real process, optionally pinned to CPU 0; resolves once it logged which collector it runs. */
async function serve(t: Test, env: Record<string, string>, pinned: boolean) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-gc-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const node = [ENV_BIN, '-u', 'NODE_OPTIONS', process.execPath, BIN, 'serve'];
  const [cmd, ...args] = pinned ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(cmd!, args, {
    env: { ...process.env, PORT: String(port), FORGEKIT_DATA_DIR: dataDir, FORGEKIT_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setInterval(() => {
      const line = out.split('\n').find((l) => l.includes('"msg":"garbage collector"'));
      if (line) { clearInterval(timer); resolve(JSON.parse(line)); }
    }, 20);
    void exited.then(({ code }) => { clearInterval(timer); reject(new Error(`exited ${code}: ${out}`)); });
  });
  return { child, port, ready, exited, output: () => out };
}

/** The forgekit processes whose parent is `pid` (ps exits 1 when there is none). */
function childServers(pid: number): Array<{ pid: number; args: string }> {
  const { stdout } = spawnSync('ps', ['--ppid', String(pid), '-o', 'pid=,args='], { encoding: 'utf8' });
  return stdout.split('\n').filter((l) => l.includes(BIN)).map((l) => {
    const [, id, args] = /^\s*(\d+)\s+(.*)$/.exec(l)!;
    return { pid: Number(id), args: args! };
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

t.test('forgekit serve on one CPU runs the server in a child with the single-threaded collector', async (t) => {
  const s = await serve(t, {}, true);
  const logged = await s.ready;
  t.match(logged, { gc: 'single-threaded', mode: 'auto', cpus: 1 });
  const children = childServers(s.child.pid!);
  t.equal(children.length, 1, 'one server process under the launcher');
  t.match(children[0]!.args, /--single-threaded-gc/);
  const version = await fetch(`http://127.0.0.1:${s.port}/api/v1/version`);
  t.equal(version.status, 200, 'the relaunched server answers');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null }, 'SIGTERM reaches the server, which stops cleanly; the launcher exits 0 after it');
  t.notOk(alive(children[0]!.pid), 'no server left behind');
});

t.test('SIGINT is passed on too; a server killed by a signal ends the launcher by the same signal', async (t) => {
  const a = await serve(t, { FORGEKIT_GC: 'single-threaded' }, false);
  t.match(await a.ready, { gc: 'single-threaded', mode: 'single-threaded' }, 'forced without pinning');
  a.child.kill('SIGINT');
  t.same(await a.exited, { code: 0, signal: null });

  const b = await serve(t, { FORGEKIT_GC: 'single-threaded' }, false);
  await b.ready;
  process.kill(childServers(b.child.pid!)[0]!.pid, 'SIGKILL');
  t.same(await b.exited, { code: null, signal: 'SIGKILL' });
});

t.test('a server that fails to boot after the relaunch: its message, exit code 1', async (t) => {
  const s = await serve(t, { FORGEKIT_GC: 'single-threaded', FORGEKIT_PLUGINS: '-users' }, false);
  await t.rejects(s.ready, /needs plugin "users", which is disabled/);
  t.same(await s.exited, { code: 1, signal: null });
});

t.test('concurrent (or auto on two CPUs) keeps V8\'s collector in the one process', async (t) => {
  const s = await serve(t, { FORGEKIT_GC: 'concurrent' }, true);
  t.match(await s.ready, { gc: 'concurrent', mode: 'concurrent', cpus: 1 });
  t.same(childServers(s.child.pid!), [], 'no relaunch');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  if (os.availableParallelism() >= 2 && usableCpus() >= 2) {
    const auto = await serve(t, {}, false);
    t.match(await auto.ready, { gc: 'concurrent', mode: 'auto' });
    t.same(childServers(auto.child.pid!), []);
    auto.child.kill('SIGTERM');
    t.same(await auto.exited, { code: 0, signal: null });
  }
  await t.rejects(serve(t, { FORGEKIT_GC: 'sometimes' }, false).then((x) => x.ready), /server\.gc/, 'a bad mode is a config error');
});
