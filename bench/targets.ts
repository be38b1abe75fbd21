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

export function judge(group: string, ratio: number, p99Ms: number, connections: number): Verdict {
  const target = targetFor(group);
  const misses: string[] = [];
  let judged = false;
  if (target.minRatio !== undefined) {
    judged = true;
    if (ratio < target.minRatio) misses.push(`ratio ${ratio} < ${target.minRatio}`);
  }
  if (target.maxP99Ms !== undefined && connections === P99_CONNECTIONS) {
    judged = true;
    if (p99Ms >= target.maxP99Ms) misses.push(`p99 ${p99Ms} ms ≥ ${target.maxP99Ms} ms`);
  }
  return { target, met: judged ? misses.length === 0 : null, misses };
}

/** The family of a case that did not name one. */
export function inferGroup(method: string, path: string): string {
  if (path.startsWith('/version')) return 'version';
  if (path.includes('/search')) return 'search';
  if (path.startsWith('/markdown')) return 'markup';
  return method === 'GET' ? 'list' : 'write';
}
