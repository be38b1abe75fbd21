// Waiting in tests: for a condition, never for a fixed time, and never an assertion about how long something took.
// The deadline only turns a condition that never comes into a loud failure; it is generous because the machine
// running the suite may be loaded many times over.

/** How long a condition may take before the test fails naming it. */
export const CONDITION_DEADLINE_MS = 120_000;

/**
 * Resolves with the first truthy value of `probe` (polled every few milliseconds); throws `timed out waiting for
 * <what>` when none came before the deadline.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = CONDITION_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Resolves once the wall clock has moved past `ms` (a later timestamp is then a different one). */
export async function clockPast(ms: number): Promise<void> {
  await waitFor(`the clock to pass ${ms}`, () => Date.now() > ms);
}

/**
 * Resolves once the wall clock is in a later second than the RFC 3339 timestamp `iso`: for fields stored with second
 * precision (`updated_at`, `mirror_updated`), so a change made afterwards carries a different value.
 */
export async function nextSecondAfter(iso: string): Promise<void> {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`not a timestamp: ${iso}`);
  await clockPast(Math.floor(ms / 1000) * 1000 + 999);
}
