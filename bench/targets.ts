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
    case 'mixed':
      // Issue 20: the mixed workload (reads, lists, searches, relation toggles and creates) ≥ 0.40.
      return { minRatio: 0.4 };
    default:
      return {};
  }
}

/** The bare server counts as saturated (the physical limit reached) from this share of a core. */
export const SATURATED = 0.8;

export interface Verdict {
  target: Target;
  /** null when the case has no target (or nothing was measured). */
  met: boolean | null;
  misses: string[];
  /** Which ratio the ratio target was judged on. */
  basis: 'req/s' | 'cpu';
  judgedRatio: number;
  /** Why part of the target was judged differently or not at all (e.g. the machine was too busy). */
  notes: string[];
}

export interface Measured {
  /** forgekit req/s ÷ bare req/s (median of the round pairs). */
  ratio: number;
  /** bare CPU µs/req ÷ forgekit CPU µs/req; null where /proc is unavailable. */
  cpuRatio: number | null;
  /** The bare server's CPU time over wall time during its runs; null where unknown. */
  bareBusy: number | null;
  p99Ms: number;
  bareP99Ms: number;
  connections: number;
}

/**
 * The ratio target asks what share of the machine's HTTP capacity forgekit's own work leaves. The req/s ratio
 * answers that only when the bare server reached the limit (a core kept busy); when it did not — the load generator
 * or other work on the machine held both back — the CPU ratio answers the same question directly (at saturation
 * the two are equal: req/s = 1 / CPU per request), and the verdict says it used it.
 * The p99 target is judged only at 50 connections, and only when the bare server itself stayed under it in the
 * same run — when even the physical limit misses it, the machine was too busy to tell.
 */
export function judge(group: string, m: Measured): Verdict {
  const target = targetFor(group);
  const misses: string[] = [];
  const notes: string[] = [];
  let judged = false;
  let basis: Verdict['basis'] = 'req/s';
  let judgedRatio = m.ratio;
  if (m.bareBusy !== null && m.bareBusy < SATURATED && m.cpuRatio !== null) {
    basis = 'cpu';
    judgedRatio = m.cpuRatio;
    notes.push(`bare server ${Math.round(m.bareBusy * 100)}% busy, not at the limit: judged on the CPU ratio ${m.cpuRatio}`);
  }
  if (target.minRatio !== undefined) {
    judged = true;
    if (judgedRatio < target.minRatio) misses.push(`${basis === 'cpu' ? 'CPU ratio' : 'ratio'} ${judgedRatio} < ${target.minRatio}`);
  }
  if (target.maxP99Ms !== undefined) {
    if (m.connections !== P99_CONNECTIONS) {
      notes.push(`p99 target not judged at ${m.connections} connections`);
    } else if (!p99Judgeable(m.bareP99Ms, target.maxP99Ms)) {
      notes.push(`p99 target not judged: the bare server's own p99 was ${m.bareP99Ms} ms (machine too busy)`);
    } else {
      judged = true;
      if (m.p99Ms >= target.maxP99Ms) misses.push(`p99 ${m.p99Ms} ms ≥ ${target.maxP99Ms} ms`);
    }
  }
  return { target, met: judged ? misses.length === 0 : null, misses, basis, judgedRatio, notes };
}

/**
 * Whether a p99 target can be judged on a request: only when the bare server's own p99 stayed under it (else the
 * machine stalled both servers). A case's verdict and its family's (bench/families.ts) both ask this.
 */
export function p99Judgeable(bareP99Ms: number, maxP99Ms: number): boolean {
  return bareP99Ms < maxP99Ms;
}

/** The family of a case that did not name one. */
export function inferGroup(method: string, path: string): string {
  if (path.startsWith('/version')) return 'version';
  if (path.includes('/search')) return 'search';
  if (path.startsWith('/markdown')) return 'markup';
  return method === 'GET' ? 'list' : 'write';
}
