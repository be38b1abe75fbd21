// Runs the system git: argument arrays only (never a shell), a controlled environment, timeouts, and a registry of
// live processes so shutdown can wait for them or kill them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';

export interface GitRunnerOptions {
  binary: string;
  /** A directory forgekit controls, used as HOME so no user or system git config applies. */
  home: string;
  timeoutMs: number;
  log: Logger;
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

  constructor(private readonly opts: GitRunnerOptions) {}

  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  async start(): Promise<void> {
    await mkdir(this.opts.home, { recursive: true, mode: 0o700 });
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

  /** How many git processes are running (tests, shutdown). */
  get running(): number {
    return this.live.size;
  }

  /** Refuses new processes, waits up to `graceMs` for running ones, then kills what is left. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const deadline = Date.now() + graceMs;
    while (this.live.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const left = [...this.live];
    for (const child of left) killGroup(child);
    await Promise.all(left.map((child) => (child.exitCode !== null || child.signalCode !== null)
      ? undefined
      : new Promise<void>((resolve) => child.once('close', () => resolve()))));
    if (left.length) this.opts.log.warn({ killed: left.length }, 'killed git processes at shutdown');
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
