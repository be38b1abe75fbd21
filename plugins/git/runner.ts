// Runs the system git: argument arrays only (never a shell), a controlled environment, timeouts, and a registry of
// live processes so shutdown can wait for them or kill them. This is the one place git processes are started:
// `run` (a command to completion) goes through the spawn helper process (spawn-helper.ts) when it is up, so the
// server does not fork its large address space on its main thread; `spawn` (a streamed transfer or a long-lived
// reader) and every run while the helper is down start git here.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { SpawnHelper } from './spawn-helper.js';

export interface GitRunnerOptions {
  binary: string;
  /** A directory forgekit controls, used as HOME so no user or system git config applies. */
  home: string;
  timeoutMs: number;
  log: Logger;
  /** Start `run` commands from the spawn helper process (default true); false: always from this process. */
  spawnHelper?: boolean;
}

export interface RunOptions {
  /** Working directory (for commands that act on a repository, pass `--git-dir` or cwd). */
  cwd?: string;
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Extra environment (e.g. GIT_DIR, GIT_PROTOCOL, credential config). Never logged. */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** stdout beyond this many bytes fails the command (a guard, not a feature). */
  maxStdout?: number;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** A git command that failed: exit code, timeout, or spawn failure. `stderr` is kept short. */
export class GitError extends Error {
  readonly code: number | null;
  readonly stderr: string;
  readonly timedOut: boolean;
  constructor(message: string, code: number | null, stderr: string, timedOut: boolean) {
    super(message);
    this.name = 'GitError';
    this.code = code;
    this.stderr = stderr;
    this.timedOut = timedOut;
  }
}

const STDERR_KEEP = 16 * 1024;
const DEFAULT_MAX_STDOUT = 16 * 1024 * 1024;

export class GitRunner {
  private readonly live = new Set<ChildProcess>();
  private stopping = false;
  private readonly helper: SpawnHelper | null;

  constructor(private readonly opts: GitRunnerOptions) {
    this.helper = opts.spawnHelper === false ? null : new SpawnHelper(opts.log);
  }

  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  async start(): Promise<void> {
    await Promise.all([mkdir(this.opts.home, { recursive: true, mode: 0o700 }), this.helper?.start()]);
  }

  /** The spawn helper's process id while `run` goes through it (tests). */
  get helperPid(): number | undefined {
    return this.helper?.available ? this.helper.pid : undefined;
  }

  /**
   * The environment every git process gets: nothing inherited but PATH, no system config, HOME/XDG pointing at an
   * empty directory of ours (so no ~/.gitconfig applies), never a terminal prompt, the C locale for stable messages.
   */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: this.opts.home,
      XDG_CONFIG_HOME: this.opts.home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      SSH_ASKPASS: '',
      LANG: 'C',
      LC_ALL: 'C',
      ...extra,
    };
  }

  /**
   * Starts git and registers it; the caller wires stdin/stdout. The process gets its own process group so a
   * timeout or shutdown kills git and the helpers it started (pack-objects, index-pack).
   */
  spawn(args: string[], options: RunOptions = {}): ChildProcess {
    if (this.stopping) throw new GitError('git is shutting down', null, '', false);
    const child = spawn(this.opts.binary, args, {
      cwd: options.cwd,
      env: this.env(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    this.live.add(child);
    // 0: no total time (transfers bound their idle time themselves).
    const timeoutMs = options.timeoutMs ?? this.opts.timeoutMs;
    const timer = timeoutMs > 0 ? setTimeout(() => {
      (child as ChildProcess & { timedOut?: boolean }).timedOut = true;
      killGroup(child);
    }, timeoutMs) : undefined;
    timer?.unref();
    child.once('close', () => {
      clearTimeout(timer);
      this.live.delete(child);
    });
    child.once('error', () => {
      clearTimeout(timer);
      this.live.delete(child);
    });
    return child;
  }

  /** Runs git to completion, collecting output; rejects with GitError on a non-zero exit or a timeout. */
  run(args: string[], options: RunOptions = {}): Promise<RunResult> {
    if (this.stopping) return Promise.reject(new GitError('git is shutting down', null, '', false));
    const viaHelper = this.helper?.run({
      binary: this.opts.binary,
      args,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      env: this.env(options.env),
      ...(options.input !== undefined ? { input: options.input } : {}),
      timeoutMs: options.timeoutMs ?? this.opts.timeoutMs,
      maxStdout: options.maxStdout ?? DEFAULT_MAX_STDOUT,
      stderrKeep: STDERR_KEEP,
    });
    if (viaHelper) {
      return viaHelper.then((r) => {
        if (r.spawnError !== undefined) throw new GitError(`cannot run git: ${r.spawnError}`, null, '', false);
        const stderr = r.stderr.slice(0, STDERR_KEEP);
        if (r.timedOut) throw new GitError(`git ${args[0]} timed out`, r.code, stderr, true);
        if (r.overflow) throw new GitError(`git ${args[0]} produced too much output`, r.code, stderr, false);
        if (r.code !== 0) throw new GitError(`git ${args[0]} failed (exit ${r.code})`, r.code, stderr, false);
        return { stdout: Buffer.from(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength).toString('utf8'), stderr };
      }, (err: Error) => {
        throw new GitError(`git ${args[0]}: ${err.message}`, null, '', false);
      });
    }
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = this.spawn(args, options);
      } catch (err) {
        reject(err);
        return;
      }
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = '';
      const maxStdout = options.maxStdout ?? DEFAULT_MAX_STDOUT;
      let overflow = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > maxStdout) {
          if (!overflow) killGroup(child);
          overflow = true;
          return;
        }
        out.push(chunk);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        if (err.length < STDERR_KEEP) err += chunk.toString('utf8');
      });
      child.stdin!.on('error', () => undefined); // git may exit before reading all input; the exit code tells
      child.once('error', (e) => reject(new GitError(`cannot run git: ${(e as Error).message}`, null, '', false)));
      child.once('close', (code) => {
        const stderr = err.slice(0, STDERR_KEEP);
        const timedOut = (child as ChildProcess & { timedOut?: boolean }).timedOut === true;
        if (timedOut) reject(new GitError(`git ${args[0]} timed out`, code, stderr, true));
        else if (overflow) reject(new GitError(`git ${args[0]} produced too much output`, code, stderr, false));
        else if (code !== 0) reject(new GitError(`git ${args[0]} failed (exit ${code})`, code, stderr, false));
        else resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr });
      });
      if (options.input !== undefined) child.stdin!.end(options.input);
      else child.stdin!.end();
    });
  }

  /** How many git processes are running (tests, shutdown), the spawn helper's included. */
  get running(): number {
    return this.live.size + (this.helper?.size ?? 0);
  }

  /** Refuses new processes, waits up to `graceMs` for running ones, then kills what is left. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const deadline = Date.now() + graceMs;
    while (this.running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const left = [...this.live];
    const helperLeft = this.helper?.size ?? 0;
    for (const child of left) killGroup(child);
    this.helper?.killAll();
    await Promise.all(left.map((child) => (child.exitCode !== null || child.signalCode !== null)
      ? undefined
      : new Promise<void>((resolve) => child.once('close', () => resolve()))));
    // Killed helper jobs answer once their process has closed; stopping the helper settles any that cannot.
    while ((this.helper?.size ?? 0) > 0 && Date.now() < deadline + 5000) await new Promise((r) => setTimeout(r, 20));
    await this.helper?.stop();
    if (left.length + helperLeft) this.opts.log.warn({ killed: left.length + helperLeft }, 'killed git processes at shutdown');
  }
}

/** Kills the process group (git and its helpers); falls back to the process itself. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try { child.kill('SIGKILL'); } catch { /* already gone */ }
  }
}

/** The last meaningful line of git's stderr, without anything that looks like credentials, for messages and logs. */
export function gitMessage(stderr: string, max = 300): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !/^(hint|warning):/i.test(l));
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines[lines.length - 1] ?? '';
  return redact(line).slice(0, max);
}

/** Removes `user:password@` from URLs inside a text. */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1');
}
