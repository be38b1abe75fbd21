// A preload for the forgekit server of a bench run: when the event loop stalls (a 5 ms timer fires more than 25 ms
// late) and every garbage collection pause of 2 ms or more, with times since process start, one line each, to
// FORGEKIT_STALL_TRACE (default <tmpdir>/forgekit-stalls-<pid>.log). It answers "are the slow answers the collector's?"
// without a profiler in the way:
//
//   node dist/bench/run.js --node-flag=--import=$PWD/dist/bench/stall-trace.js …
//   node dist/bench/measure.js --node-flag=--import=$PWD/dist/bench/stall-trace.js …
//
// Lines: `stall <ms since start> <ms late>` and `gc <ms since start> <pause ms> <kind>`.
import { appendFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';

const STALL_MS = 25;
const TICK_MS = 5;
const MIN_PAUSE_MS = 2;

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental-marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};

/** A gc entry's line, or null below the pause worth a line. */
export function gcLine(startTime: number, duration: number, kind: number | undefined): string | null {
  if (duration < MIN_PAUSE_MS) return null;
  return `gc ${startTime.toFixed(0)} ${duration.toFixed(1)} ${KINDS[kind ?? -1] ?? `kind-${kind}`}`;
}

/** A timer tick's line: how late it fired, when more than STALL_MS. */
export function stallLine(previous: number, now: number): string | null {
  const late = now - previous - TICK_MS;
  return late > STALL_MS ? `stall ${previous.toFixed(0)} ${late.toFixed(0)}` : null;
}

function start(file: string): void {
  writeFileSync(file, '');
  const lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    appendFileSync(file, `${lines.join('\n')}\n`);
    lines.length = 0;
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const line = gcLine(e.startTime, e.duration, ((e as { detail?: { kind?: number } }).detail)?.kind);
      if (line) lines.push(line);
    }
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const line = stallLine(last, now);
    if (line) lines.push(line);
    last = now;
  }, TICK_MS).unref();
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}

// Imported by a test for its two functions: only a preload (`--import`) traces.
if (/--import[= ]\S*stall-trace/.test(process.execArgv.join(' '))) {
  start(process.env.FORGEKIT_STALL_TRACE ?? path.join(os.tmpdir(), `forgekit-stalls-${process.pid}.log`));
}
