// The spawn helper process (spawn-helper.ts starts it): a small long-lived node process that starts the git commands
// `GitRunner.run` asks for and sends back their exit code and output. Starting a process from the server costs a
// fork of the server's whole address space on its main thread (≈ 3 ms of CPU and 5–25 ms blocked at 860 MiB RSS);
// from this process it costs what a 40 MiB process costs. It exits when its parent goes away.
import { spawn, type ChildProcess } from 'node:child_process';

/** What the server asks for: one git command run to completion. */
export interface HelperJob {
  type: 'run';
  id: number;
  binary: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  input?: Uint8Array | string;
  timeoutMs: number;
  maxStdout: number;
  stderrKeep: number;
}

/** What the helper answers, once the process has closed (or could not start). */
export interface HelperResult {
  type: 'done';
  id: number;
  code: number | null;
  stdout: Uint8Array;
  stderr: string;
  timedOut: boolean;
  overflow: boolean;
  /** Set when the process could not be started (ENOENT, EACCES…). */
  spawnError?: string;
}

const live = new Map<number, ChildProcess>();

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try { child.kill('SIGKILL'); } catch { /* already gone */ }
  }
}

function send(msg: HelperResult): void {
  if (process.connected) process.send!(msg);
}

function run(job: HelperJob): void {
  let child: ChildProcess;
  try {
    child = spawn(job.binary, job.args, { cwd: job.cwd, env: job.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
  } catch (err) {
    send({ type: 'done', id: job.id, code: null, stdout: new Uint8Array(0), stderr: '', timedOut: false, overflow: false, spawnError: (err as Error).message });
    return;
  }
  live.set(job.id, child);
  let timedOut = false;
  let overflow = false;
  const out: Buffer[] = [];
  let outBytes = 0;
  let err = '';
  const timer = job.timeoutMs > 0 ? setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, job.timeoutMs) : undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
    if (outBytes > job.maxStdout) {
      if (!overflow) killGroup(child);
      overflow = true;
      return;
    }
    out.push(chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    if (err.length < job.stderrKeep) err += chunk.toString('utf8');
  });
  child.stdin!.on('error', () => undefined); // git may exit before reading all input; the exit code tells
  let answered = false;
  child.once('error', (e) => {
    clearTimeout(timer);
    live.delete(job.id);
    if (answered) return;
    answered = true;
    send({ type: 'done', id: job.id, code: null, stdout: new Uint8Array(0), stderr: '', timedOut: false, overflow: false, spawnError: e.message });
  });
  child.once('close', (code) => {
    clearTimeout(timer);
    live.delete(job.id);
    if (answered) return;
    answered = true;
    send({ type: 'done', id: job.id, code, stdout: Buffer.concat(out), stderr: err.slice(0, job.stderrKeep), timedOut, overflow });
  });
  if (job.input !== undefined) child.stdin!.end(typeof job.input === 'string' ? job.input : Buffer.from(job.input.buffer, job.input.byteOffset, job.input.byteLength));
  else child.stdin!.end();
}

process.on('message', (msg: HelperJob | { type: 'kill'; id?: number }) => {
  if (msg.type === 'run') run(msg);
  else if (msg.type === 'kill') {
    if (msg.id === undefined) for (const child of live.values()) killGroup(child);
    else { const child = live.get(msg.id); if (child) killGroup(child); }
  }
});

// The server went away (exit, crash, or close): nothing is left to answer to, so the commands are ended too.
process.on('disconnect', () => {
  for (const child of live.values()) killGroup(child);
  process.exit(0);
});
process.send?.({ type: 'ready', pid: process.pid });
