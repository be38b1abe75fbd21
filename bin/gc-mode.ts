// Which garbage collector the server process runs with, for the CPUs it may use.
//
// V8 marks, sweeps and scavenges on helper threads beside the JavaScript thread. With two or more CPUs that work runs
// beside the requests; on one CPU the helper threads only take turns with the JavaScript thread, and while a large
// heap is marked, requests stall for 50–120 ms at a time (bench/RESULTS.md, "One CPU, one collector thread"). V8's
// `--single-threaded-gc` does the same work in small steps on the JavaScript thread instead. It cannot be switched on
// once V8 runs (`v8.setFlagsFromString` aborts in the next marking cycle) and NODE_OPTIONS refuses it, so
// `forgekit serve` starts the server in a child process with the flag: the JVM picks its serial collector on one CPU
// the same way.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `auto`: single-threaded on fewer than two usable CPUs; `concurrent`: V8's default; `single-threaded`: always. */
export type GcMode = 'auto' | 'single-threaded' | 'concurrent';

export const SINGLE_THREADED_GC = '--single-threaded-gc';

/** Node/V8 flags by which an operator already chose how the collector uses threads: those win over `auto`. */
const THREADING_FLAG = /^--(no-)?(single-threaded|single-threaded-gc|concurrent-marking|parallel-marking|parallel-scavenge|concurrent-sweeping)(=|$)/;

/** The flags the server process must start with (none when V8's default suits or `execArgv` already chose). */
export function gcFlags(mode: GcMode, cpus: number, execArgv: readonly string[]): string[] {
  if (execArgv.some((flag) => THREADING_FLAG.test(flag.replace(/_/g, '-')))) return [];
  return mode === 'single-threaded' || (mode === 'auto' && cpus < 2) ? [SINGLE_THREADED_GC] : [];
}

/** Whether this process runs with a single-threaded collector. */
export function runsSingleThreadedGc(execArgv: readonly string[] = process.execArgv): boolean {
  return execArgv.some((flag) => /^--single-threaded(-gc)?$/.test(flag.replace(/_/g, '-')));
}

type ReadFile = (file: string) => string;
const readText: ReadFile = (file) => readFileSync(file, 'utf8');

/** Whole CPUs this process may use: its CPU affinity, capped by a cgroup CPU quota (a container's `--cpus`); at least 1. */
export function usableCpus(affinity = os.availableParallelism(), read: ReadFile = readText): number {
  const quota = cgroupCpuQuota(read);
  return Math.max(1, quota === null ? affinity : Math.min(affinity, Math.floor(quota)));
}

/**
 * The smallest CPU quota (in CPUs) on this process's cgroup or any cgroup above it, v2 (`cpu.max`) or v1
 * (`cpu.cfs_quota_us` / `cpu.cfs_period_us`); null without a quota or where cgroups cannot be read.
 */
export function cgroupCpuQuota(read: ReadFile = readText): number | null {
  let mountinfo: string;
  let groups: string;
  try {
    mountinfo = read('/proc/self/mountinfo');
    groups = read('/proc/self/cgroup');
  } catch {
    return null;
  }
  let smallest: number | null = null;
  for (const line of mountinfo.split('\n')) {
    const [mount, fs] = line.split(' - ');
    if (!mount || !fs) continue;
    const fields = mount.split(' ');
    const [fsType, , superOptions = ''] = fs.split(' ');
    const root = fields[3] ?? '/';
    const mountPoint = fields[4] ?? '';
    let quotaIn: ((dir: string) => number | null) | null = null;
    let groupPath: string | undefined;
    if (fsType === 'cgroup2') {
      groupPath = groups.split('\n').find((g) => g.startsWith('0::'))?.slice(3);
      quotaIn = (dir) => cpuMax(read(path.join(dir, 'cpu.max')));
    } else if (fsType === 'cgroup' && superOptions.split(',').includes('cpu')) {
      groupPath = groups.split('\n').map((g) => g.split(':')).find((g) => g.length >= 3 && g[1]!.split(',').includes('cpu'))?.[2];
      quotaIn = (dir) => cfsQuota(read(path.join(dir, 'cpu.cfs_quota_us')), read(path.join(dir, 'cpu.cfs_period_us')));
    }
    if (!quotaIn || groupPath === undefined) continue;
    // The group's path is relative to the hierarchy's root; the mount shows the part of it below `root`.
    const relative = root !== '/' && groupPath.startsWith(root) ? groupPath.slice(root.length) : groupPath;
    for (let dir = path.join(mountPoint, relative); ; dir = path.dirname(dir)) {
      let quota: number | null = null;
      try { quota = quotaIn(dir); } catch { /* no such group level here, or no cpu controller at it */ }
      if (quota !== null && (smallest === null || quota < smallest)) smallest = quota;
      if (dir === mountPoint || dir.length <= mountPoint.length) break;
    }
  }
  return smallest;
}

/** cgroup v2 `cpu.max`: "max 100000" (none) or "<quota> <period>". */
function cpuMax(text: string): number | null {
  const [quota, period] = text.trim().split(/\s+/);
  return quota === 'max' ? null : positiveRatio(Number(quota), Number(period));
}

/** cgroup v1: a quota of -1 is none. */
function cfsQuota(quota: string, period: string): number | null {
  return Number(quota) < 0 ? null : positiveRatio(Number(quota), Number(period));
}

function positiveRatio(quota: number, period: number): number | null {
  return quota > 0 && period > 0 ? quota / period : null;
}

/**
 * Runs this same command again in a child node with `flags` added (stdio shared, signals passed on) and ends as the
 * child ends: with its exit code, or by the signal that ended it.
 */
export function relaunchWith(flags: string[]): void {
  const child = spawn(process.execPath, [...process.execArgv, ...flags, ...process.argv.slice(1)], { stdio: 'inherit' });
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  child.once('error', (err) => {
    process.stderr.write(`forgekit: cannot start the server process: ${err.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
