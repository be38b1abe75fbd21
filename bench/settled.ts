// The server child's `settled` message: the work its plugins left running after the boot (the issues' q index) has
// ended. Every tool that measures waits for it first, so the boot's tail is not counted against a case's requests.
import type { ChildProcess } from 'node:child_process';
import type { BackgroundReport } from '../core/background.js';

export interface SettledMessage {
  type: 'settled';
  /** From listening to the end of the last piece of work. */
  sinceReadyMs: number;
  work: BackgroundReport[];
}

/** The child's `settled` message (listen before its `ready` arrives: it may follow at once). */
export function settledOf(child: ChildProcess, timeoutMs: number): Promise<SettledMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      reject(new Error(`the server's background work did not end within ${timeoutMs} ms`));
    }, timeoutMs).unref();
    const onExit = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      reject(new Error('the server exited before its background work ended'));
    };
    const onMessage = (msg: { type?: string }) => {
      if (msg?.type !== 'settled') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg as SettledMessage);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `issues: q trigram index 3.0 s` per piece, `; `-joined (empty when there was none). */
export function workText(work: readonly BackgroundReport[]): string {
  return work.map((w) => `${w.name} ${seconds(w.ms)}${w.ok ? '' : ', failed'}`).join('; ');
}

/** `settled 3.1 s after listening (issues: q trigram index 3.0 s)`. */
export function settledNote(msg: SettledMessage): string {
  return `settled ${seconds(msg.sinceReadyMs)} after listening (${workText(msg.work) || 'no background work'})`;
}
