// The server's side of the spawn helper (spawn-helper-child.ts): a small node process started once, at the git
// plugin's start, that starts the commands of `GitRunner.run` so the server's main thread never forks its own large
// address space for them. The runner falls back to starting git itself whenever the helper is not there (it did not
// start, it died, or the runner was made without it).
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { HelperJob, HelperResult } from './spawn-helper-child.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'spawn-helper-child.js');
const START_TIMEOUT_MS = 15_000;

type Job = Omit<HelperJob, 'type' | 'id'>;

export class SpawnHelper {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: HelperResult) => void; reject: (err: Error) => void }>();

  constructor(private readonly log: Logger) {}

  /** Starts the helper; resolves false (and logs why) when it could not start — the runner then spawns itself. */
  async start(): Promise<boolean> {
    let child: ChildProcess;
    try {
      // No inherited flags (--cpu-prof, --inspect, a large heap) and nothing of the server's environment: every job
      // carries its own environment.
      child = fork(CHILD, [], {
        execArgv: [],
        env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' },
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
    } catch (err) {
      this.log.warn({ err }, 'git spawn helper did not start; git is started by the server itself');
      return false;
    }
    const log = this.log;
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false, new Error('no answer')), START_TIMEOUT_MS);
      const onMessage = (m: { type?: string }) => { if (m?.type === 'ready') done(true); };
      const onGone = (err?: unknown) => done(false, err instanceof Error ? err : new Error('exited'));
      function done(started: boolean, err?: Error): void {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('error', onGone);
        child.off('exit', onGone);
        if (!started) {
          child.kill('SIGKILL');
          log.warn({ err }, 'git spawn helper did not start; git is started by the server itself');
        }
        resolve(started);
      }
      child.on('message', onMessage);
      child.once('error', onGone);
      child.once('exit', onGone);
    });
    if (!ok) return false;
    this.child = child;
    child.on('message', (m: HelperResult) => {
      if (m?.type !== 'done') return;
      const waiter = this.pending.get(m.id);
      if (!waiter) return;
      this.pending.delete(m.id);
      this.idle();
      waiter.resolve(m);
    });
    child.on('error', () => undefined); // a failed send; the exit below settles what is waiting
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.pending.size) this.log.warn({ code, signal, waiting: this.pending.size }, 'git spawn helper exited with commands under way');
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const w of waiting) w.reject(new Error('the git spawn helper exited'));
    });
    this.idle();
    return true;
  }

  /** Whether jobs go to the helper now. */
  get available(): boolean {
    return this.child !== null && this.child.connected;
  }

  /** The helper's process id (tests: the git processes it starts are its children). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Jobs sent and not answered yet. */
  get size(): number {
    return this.pending.size;
  }

  /** Runs one command in the helper; null when the helper is not available (the caller starts git itself). */
  run(job: Job): Promise<HelperResult> | null {
    const child = this.child;
    if (child === null || !child.connected) return null;
    const id = this.nextId++;
    const promise = new Promise<HelperResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    try {
      child.send({ type: 'run', id, ...job } satisfies HelperJob);
    } catch {
      this.pending.delete(id);
      this.idle();
      return null;
    }
    // While a job is under way the helper keeps the event loop alive (a CLI command awaiting git; its exit settles
    // the job if it dies).
    child.ref();
    child.channel?.ref();
    return promise;
  }

  /** Kills every command under way (process groups); their jobs then answer as killed. */
  killAll(): void {
    if (this.child?.connected) this.child.send({ type: 'kill' });
  }

  /** Ends the helper (it kills whatever it still runs) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    const exited = child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /** With nothing under way, the helper does not keep the process alive. */
  private idle(): void {
    if (this.pending.size === 0 && this.child) {
      this.child.unref();
      this.child.channel?.unref();
    }
  }
}
