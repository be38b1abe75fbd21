// Work a plugin starts at boot and lets run after the server listens (an index built while requests are answered).
// The kernel only keeps count: `Forge.settled()` tells an embedder, a test or the benchmark when all of it has ended,
// so a measurement of the steady state does not take the boot's tail for the cost of its requests.
import type { Logger } from 'pino';

export interface BackgroundReport {
  /** What the work is, as its plugin named it (`issues: q trigram index`). */
  name: string;
  /** From its registration to its end. */
  ms: number;
  /** False when it ended with an error (logged when it did). */
  ok: boolean;
}

export class BackgroundWork {
  private readonly pending = new Set<Promise<void>>();
  private readonly done: BackgroundReport[] = [];

  constructor(private readonly log: Logger) {}

  /** Tracks `work` until it ends; a failure is logged here, never left unhandled. */
  register(name: string, work: Promise<unknown>): void {
    const started = performance.now();
    const tracked: Promise<void> = work.then(
      () => this.end(tracked, { name, ms: Math.round(performance.now() - started), ok: true }),
      (err: unknown) => {
        this.log.error({ err, work: name }, 'background work failed');
        this.end(tracked, { name, ms: Math.round(performance.now() - started), ok: false });
      },
    );
    this.pending.add(tracked);
  }

  private end(tracked: Promise<void>, report: BackgroundReport): void {
    this.pending.delete(tracked);
    this.done.push(report);
  }

  /** Resolves once no registered work is left running (at once when none was), with every piece's report. */
  async settled(): Promise<BackgroundReport[]> {
    // Work registered while waiting is waited for too.
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    return [...this.done];
  }
}
