// The server process's V8 heap settings: the old-generation headroom (how far V8 lets the old generation grow past
// what the last full collection kept before it starts the next one), allocation-site pretenuring and the young
// generation's size (below).
//
// Why the headroom: forgekit keeps ~0.5 GiB of indexes and documents live. On a heap that large V8 chooses its smallest
// growth factor (1.1: its collector is fast next to what a server promotes), so every ~50 MiB that requests leave in
// the old generation start a full collection — about half a second of marking on the server's core, which shows as p99
// spikes of 100–400 ms every few seconds under load (bench/RESULTS.md). A fixed headroom of 25% makes those collections
// four to five times rarer for ~130 MiB more at the peak. Set once the server listens.
//
// The boot gets its own, larger headroom (`bootHeadroomPercent`): with V8's own factors (up to 4 while a program
// allocates fast) the heap of a start that loads 0.5 GiB grew to ~850 MiB of which ~290 was garbage of the load and
// index builds before the first full collection — a start's RSS peaked at ~990 MiB, near the whole server's budget.
// At 100% it peaks at ~730 MiB for the same start time (within the noise of 3 pinned starts each).
// `forgekit serve` applies both; a forge embedded in another process leaves that process's V8 settings alone.
import v8 from 'node:v8';

/** Sets the headroom (percent of the live old generation; 0: V8's own choice again). Takes effect at the next limit V8 computes. */
export function applyHeapHeadroom(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0 || percent > 400) throw new RangeError(`heap headroom must be an integer percent from 0 to 400 (got ${percent})`);
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** The headroom while a server starts: at least 100%, or V8's own choice where the operator asked for it (0). */
export function bootHeadroomPercent(runtimePercent: number): number {
  return runtimePercent === 0 ? 0 : Math.max(runtimePercent, BOOT_HEADROOM_PERCENT);
}

const BOOT_HEADROOM_PERCENT = 100;

/**
 * Turns V8's allocation-site pretenuring on or off for this process (`forgekit serve` and the bench server turn it
 * off first thing, before the boot allocates anything; `heapPretenuring` in the config turns it back on).
 *
 * Why off: V8 counts, per allocation site, how many of its objects survive scavenges, and a site whose objects
 * mostly survive gets its later objects allocated straight in the old generation. A load that starts while the
 * post-start index builds run (the issues' `q` index: 1.5 s, 86 MiB) makes request objects survive for a while, and
 * about one server process in three then kept request allocation sites pretenured for its whole life: request
 * objects born old hold their young parts alive, so every scavenge copied and promoted ~3.5 MB (8–9 ms instead of
 * 2, every ~23 ms), full collections followed every few seconds, and every request cost 1.3–2.5× the CPU with a p99
 * of ~20 ms (`GET /version` 32–45 µs against 14–17; bench/RESULTS.md, twelfth session). A full collection does not
 * end that state; only a new process did. Without pretenuring, 23 of 23 processes stayed fast, at the same boot
 * time and memory. Nothing forgekit keeps relies on it: its long-lived data is built once at start.
 */
export function applyPretenuring(enabled: boolean): void {
  v8.setFlagsFromString(enabled ? '--allocation-site-pretenuring' : '--no-allocation-site-pretenuring');
}

/**
 * Node flags the `forgekit serve` process starts with (`npm start` passes them, and so does the benchmark to both its
 * servers, bare and forgekit). V8 sizes its young generation when the process starts: these cannot be set from inside,
 * unlike the two settings above. The `forgekit` command's `#!` line stays `#!/usr/bin/env node`: `env -S` (the only
 * way to pass a flag there) is missing from BusyBox's env, e.g. on Alpine; started without them, `forgekit serve`
 * logs which are missing.
 *
 * Why a 32 MiB semi-space (V8's default is 16): a scavenge of this server's young generation costs ~1.7 ms whatever
 * survives it (0.14 MB of the 14 MB a scavenge found, under load: the in-flight requests), and at 25,000 small list
 * requests a second one ran every ~18 ms — 9% of the server's CPU (`--trace-gc-nvp`, bench/RESULTS.md). Twice the
 * semi-space makes them half as frequent for about the same pause: 4.7%. The price is up to 32 MiB more young
 * generation, committed only as it fills.
 */
export const SERVE_NODE_FLAGS: readonly string[] = Object.freeze(['--max-semi-space-size=32']);

/** The `SERVE_NODE_FLAGS` this process was not started with (command line or NODE_OPTIONS): for a start-up hint. */
export function missingServeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  // V8 reads `--max_semi_space_size` as `--max-semi-space-size`; an operator's own value counts as given (theirs wins).
  const names = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map((arg) => arg.split('=')[0]!.replace(/_/g, '-')));
  return SERVE_NODE_FLAGS.filter((flag) => !names.has(flag.split('=')[0]!));
}
