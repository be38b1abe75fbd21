// Fault injection for crash tests: `FORGEKIT_CRASH_AT=<point>` makes the process SIGKILL itself when it reaches that
// point of a multi-step write. Unset (always, in production) it costs one comparison.

const target = process.env.FORGEKIT_CRASH_AT ?? '';

/** Dies (SIGKILL, no cleanup, like a power cut) when `point` is the configured crash point. */
export function crashPoint(point: string): void {
  if (target !== '' && target === point) process.kill(process.pid, 'SIGKILL');
}
