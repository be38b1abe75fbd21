// The kernel's log destination: lines are copied into one reusable buffer and written with one write(2) per batch.
//
// Why not sonic-boom (pino.destination): with `minLength` it appends each line to a growing string and measures
// that whole string's UTF-8 length on every write, which flattens it: a copy of the pending batch per line, i.e.
// several KiB of garbage per request. Under load that was a third of a small request's CPU time (scavenges).
// Here a line costs one UTF-8 encode into a preallocated buffer. Writes are synchronous, like pino's own default:
// one write(2) per batch (12 KiB ≈ 70 request lines) costs less than handing it to the thread pool and back, the
// order of lines is kept without bookkeeping, and nothing is lost when the process exits.
import { writeSync } from 'node:fs';

export interface LogBatcherOptions {
  /** File descriptor to write to (1: standard output). */
  fd: number;
  /** A batch is written once it holds this many bytes. */
  batchBytes: number;
  /** What may wait in memory while the descriptor refuses writes (EAGAIN): beyond it new lines are dropped. */
  capacityBytes?: number;
}

/** Live batchers, written out when the process exits (one listener for all of them). */
const live = new Set<LogBatcher>();
let exitHook = false;

export class LogBatcher {
  private readonly fd: number;
  private readonly batchBytes: number;
  private readonly buf: Buffer;
  private used = 0;
  private closed = false;
  /** Lines dropped because the descriptor stayed full (EAGAIN) or failed for good (EPIPE, EBADF…). */
  dropped = 0;
  /** The descriptor failed with something other than EAGAIN: nothing more is written. */
  private broken = false;

  constructor(options: LogBatcherOptions) {
    this.fd = options.fd;
    this.batchBytes = options.batchBytes;
    this.buf = Buffer.allocUnsafe(Math.max(options.capacityBytes ?? options.batchBytes * 8, options.batchBytes * 2));
    live.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const batcher of live) batcher.flushSync();
      });
    }
  }

  /** Appends a line (already newline-terminated). Always accepts: a logger must never stall the server. */
  write(line: string): boolean {
    if (this.broken || this.closed) {
      this.dropped++;
      return true;
    }
    // UTF-8 needs at most 3 bytes per UTF-16 unit: room for that is room enough.
    const worst = line.length * 3;
    if (this.used + worst > this.buf.length) {
      this.flushSync();
      if (this.used + worst > this.buf.length) {
        if (this.used === 0) this.writeOversized(line);
        else this.dropped++;
        return true;
      }
    }
    this.used += this.buf.write(line, this.used, 'utf8');
    if (this.used >= this.batchBytes) this.flushSync();
    return true;
  }

  /** Writes what is pending now. What the descriptor refuses (EAGAIN) stays pending for the next flush. */
  flushSync(): void {
    let done = 0;
    while (done < this.used && !this.broken) {
      try {
        done += writeSync(this.fd, this.buf, done, this.used - done);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
        this.broken = true;
      }
    }
    if (this.broken) {
      this.used = 0;
      return;
    }
    if (done > 0 && done < this.used) this.buf.copyWithin(0, done, this.used);
    this.used -= done;
  }

  /** pino's `logger.flush(cb)` calls this. */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync();
    cb?.();
  }

  /** Writes what is pending and stops: later lines are dropped (counted). */
  end(): void {
    this.flushSync();
    this.closed = true;
    live.delete(this);
  }

  /** A single line larger than the whole buffer: written on its own (still one write, or dropped). */
  private writeOversized(line: string): void {
    const bytes = Buffer.from(line, 'utf8');
    let done = 0;
    while (done < bytes.length) {
      try {
        done += writeSync(this.fd, bytes, done, bytes.length - done);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') this.broken = true;
        this.dropped++;
        return;
      }
    }
  }
}
