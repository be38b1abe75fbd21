// Crash tests' child server: a forge on a data dir in its own process (test/plugins/crash-server-child.ts), killed
// by SIGKILL at an injected point (FORGEKIT_CRASH_AT, plugins/lib/crash-points.ts) while a request is in flight.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from './child-env.js';

const CHILD = fileURLToPath(new URL('../plugins/crash-server-child.js', import.meta.url));

/** Starts the child server with `crashAt`, runs `action` against it, and waits for it to die by SIGKILL. */
export async function crashDuring(dataDir: string, crashAt: string, action: (api: string, token: string) => Promise<unknown>): Promise<void> {
  const child = spawn(...nodeCommand([CHILD, dataDir]), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FORGEKIT_CRASH_AT: crashAt } });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const rl = createInterface({ input: child.stdout });
  let ready: string[] | null = null;
  for await (const line of rl) {
    if (line.startsWith('ready ')) {
      ready = line.split(' ');
      break;
    }
  }
  if (!ready) throw new Error('the child server never became ready');
  // The request dies with the server: its failure is the expected outcome.
  await action(ready[1]!, ready[2]!).catch(() => undefined);
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the child ended by ${signal}, not at ${crashAt}`);
}
