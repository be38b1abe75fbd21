// What the numbers were measured on: CPU, memory, kernel, Node, load, commit — written next to every result.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { PACKAGE_ROOT } from '../core/config.js';

export interface MachineInfo {
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  platform: string;
  kernel: string;
  node: string;
  /** 1/5/15-minute load averages when the run started: other work on the machine shows here. */
  loadAtStart: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    node: process.version,
    loadAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export interface CommitInfo {
  commit: string;
  short: string;
  /** Tracked files differ from the commit (the numbers may include uncommitted work). */
  dirty: boolean;
}

export function commitInfo(): CommitInfo {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
    return { commit, short: commit.slice(0, 10), dirty: status.trim() !== '' };
  } catch {
    return { commit: 'unknown', short: 'nogit', dirty: false };
  }
}

/** Pins a process (all its threads) to a CPU list with taskset, when taskset exists. Returns whether it did. */
export function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
