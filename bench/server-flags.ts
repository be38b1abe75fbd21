// The node flags of the bench's forgekit server: the collector `forgekit serve` would start it with on the CPUs it
// gets (bin/gc-mode.ts: single-threaded when pinned to one CPU), then the run's own `--node-flag`s, which win where
// they choose how the collector uses threads.
import { gcFlags, usableCpus, type GcMode } from '../bin/gc-mode.js';

export function forgeServerFlags(gc: GcMode, pinnedToOneCpu: boolean, extra: readonly string[] = []): string[] {
  return [...gcFlags(gc, pinnedToOneCpu ? 1 : usableCpus(), extra), ...extra];
}
