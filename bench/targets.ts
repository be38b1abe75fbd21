// The targets, per case family: ratio forgekit ÷ bare (same run, embedded store) and p99 at 50 connections.

export interface Target {
  minRatio?: number;
  /** Only judged when the run used `P99_CONNECTIONS` connections. */
  maxP99Ms?: number;
}

export const P99_CONNECTIONS = 50;
export const BOOT_MAX_MS = 10_000;
export const RSS_MAX_BYTES = 1024 * 1024 * 1024;

export function targetFor(group: string): Target {
  switch (group) {
    case 'version':
      return { minRatio: 0.85 };
    case 'search':
    case 'list':
      return { minRatio: 0.5, maxP99Ms: 25 };
    default:
      return {};
  }
}

export interface Verdict {
  target: Target;
  /** null when the case has no target (or nothing was measured). */
  met: boolean | null;
  misses: string[];
}

export interface Verdict {
  target: Target;
  /** null when the case has no target (or nothing was measured). */
  met: boolean | null;
  misses: string[];
  /** Why part of the target was not judged (e.g. the machine was too noisy for the p99 target). */
  notes: string[];
}

/**
 * The p99 target is judged only where it means something: at 50 connections, and only when the bare server itself
 * stayed under it in the same run — when even the physical limit misses it, the machine was too busy to tell.
 */
export function judge(group: string, ratio: number, p99Ms: number, connections: number, bareP99Ms = 0): Verdict {
  const target = targetFor(group);
  const misses: string[] = [];
  const notes: string[] = [];
  let judged = false;
  if (target.minRatio !== undefined) {
    judged = true;
    if (ratio < target.minRatio) misses.push(`ratio ${ratio} < ${target.minRatio}`);
  }
  if (target.maxP99Ms !== undefined) {
    if (connections !== P99_CONNECTIONS) {
      notes.push(`p99 target not judged at ${connections} connections`);
    } else if (bareP99Ms >= target.maxP99Ms) {
      notes.push(`p99 target not judged: the bare server's own p99 was ${bareP99Ms} ms (machine too busy)`);
    } else {
      judged = true;
      if (p99Ms >= target.maxP99Ms) misses.push(`p99 ${p99Ms} ms ≥ ${target.maxP99Ms} ms`);
    }
  }
  return { target, met: judged ? misses.length === 0 : null, misses, notes };
}

/** The family of a case that did not name one. */
export function inferGroup(method: string, path: string): string {
  if (path.startsWith('/version')) return 'version';
  if (path.includes('/search')) return 'search';
  if (path.startsWith('/markdown')) return 'markup';
  return method === 'GET' ? 'list' : 'write';
}
