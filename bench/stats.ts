// Numbers from load runs: exact latency percentiles (every response time kept, not a 1 ms-bucket histogram),
// throughput, and the forgekit ÷ bare ratio with its spread across interleaved rounds.

/** A growable list of response times in milliseconds. */
export class Samples {
  private data = new Float64Array(1 << 14);
  length = 0;

  push(ms: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = ms;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Nearest-rank percentile of sorted values (p in 0..100); 0 for no values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function sortedCopy(parts: Float64Array[]): Float64Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out.sort();
}

export interface RunStats {
  requests: number;
  seconds: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  timeouts: number;
  /** Responses whose status was not the recorded one. */
  wrongStatus: number;
  /** CPU time the measured server used during the run (user + system, all threads; Linux /proc). */
  serverCpuMs?: number;
  /** That CPU time per answered request, in µs: the cost of one request, much less sensitive to other load. */
  cpuUsPerRequest?: number;
  /** CPU the other (idle) server used meanwhile: its leftovers (GC, log flushing) disturbing this run. */
  otherServerCpuMs?: number;
  /** serverCpuMs over the run's wall time: near 1 when the server was the bottleneck, lower when something else was. */
  cpuBusy?: number;
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export function runStats(latencies: Float64Array, seconds: number, errors: number, timeouts: number, wrongStatus: number): RunStats {
  const sorted = sortedCopy([latencies]);
  return {
    requests: latencies.length,
    seconds: round2(seconds),
    reqPerSec: seconds > 0 ? Math.round(latencies.length / seconds) : 0,
    p50Ms: round2(percentile(sorted, 50)),
    p99Ms: round2(percentile(sorted, 99)),
    maxMs: round2(sorted.length ? sorted[sorted.length - 1]! : 0),
    errors,
    timeouts,
    wrongStatus,
  };
}

export interface TargetSummary {
  rounds: RunStats[];
  /** Server CPU per request over all rounds, in µs (null where not measurable). */
  cpuUsPerRequest: number | null;
  /** Server CPU time over wall time, all rounds (1 = one core fully busy); null where not measurable. */
  cpuBusy: number | null;
  /** All rounds together: requests over total time, percentiles over every response. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

export function combine(rounds: RunStats[], latencies: Float64Array[]): TargetSummary {
  const sorted = sortedCopy(latencies);
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  const cpu = rounds.every((r) => r.serverCpuMs !== undefined) ? rounds.reduce((n, r) => n + r.serverCpuMs!, 0) : null;
  return {
    rounds,
    cpuUsPerRequest: cpu !== null && requests > 0 ? Math.round((cpu * 1000) / requests) : null,
    cpuBusy: cpu !== null && seconds > 0 ? Math.round((cpu / (seconds * 1000)) * 100) / 100 : null,
    reqPerSec: seconds > 0 ? Math.round(requests / seconds) : 0,
    p50Ms: round2(percentile(sorted, 50)),
    p99Ms: round2(percentile(sorted, 99)),
    requests,
    errors: rounds.reduce((n, r) => n + r.errors + r.timeouts + r.wrongStatus, 0),
  };
}

export interface RatioSummary {
  /**
   * The number we track: the median over the A/B round pairs of forgekit req/s ÷ bare req/s. Each pair ran back to
   * back, so slow drifts of the machine's load cancel within a pair, and a burst that hits one pair is outvoted.
   */
  ratio: number;
  /** forgekit req/s ÷ bare req/s over all rounds together (requests over time). */
  ofTotals: number;
  /** The ratio per A/B round pair: its spread is the noise of this run. */
  perRound: number[];
  /**
   * bare CPU µs per request ÷ forgekit CPU µs per request: the same question asked of CPU time instead of
   * throughput (null where /proc is unavailable). On a busy machine it moves much less than the req/s ratio.
   */
  cpu: number | null;
  min: number;
  max: number;
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function ratioOf(forge: TargetSummary, bare: TargetSummary): RatioSummary {
  const perRound = forge.rounds.map((r, i) => {
    const b = bare.rounds[i];
    return b && b.reqPerSec > 0 ? Math.round((r.reqPerSec / b.reqPerSec) * 1000) / 1000 : 0;
  });
  return {
    ratio: Math.round(median(perRound) * 1000) / 1000,
    ofTotals: bare.reqPerSec > 0 ? Math.round((forge.reqPerSec / bare.reqPerSec) * 1000) / 1000 : 0,
    cpu: forge.cpuUsPerRequest && bare.cpuUsPerRequest ? Math.round((bare.cpuUsPerRequest / forge.cpuUsPerRequest) * 1000) / 1000 : null,
    perRound,
    min: perRound.length ? Math.min(...perRound) : 0,
    max: perRound.length ? Math.max(...perRound) : 0,
  };
}
