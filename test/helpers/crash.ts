// Crash tests' child server: a forge on a data dir in its own process (test/plugins/crash-server-child.ts), killed
// by SIGKILL at an injected point (FORGEKIT_CRASH_AT, plugins/lib/crash-points.ts) or by the test while it writes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from './child-env.js';

const CHILD = fileURLToPath(new URL('../plugins/crash-server-child.js', import.meta.url));
/** How much of a child's stderr is kept for the error when it dies before serving. */
const STDERR_KEPT = 8 * 1024;

export interface CrashChild {
  child: ChildProcess;
  api: string;
  token: string;
  /** The signal the child ended by (null: it exited by itself). */
  exited: Promise<NodeJS.Signals | null>;
}

/**
 * Starts the child server on `dataDir` and waits for its `ready` line. Its stderr is passed through and its tail
 * kept: a child that ends before serving fails with its exit code and what it printed, not a bare "never ready".
 */
export async function startCrashChild(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<CrashChild> {
  const child = spawn(...nodeCommand([CHILD, dataDir]), { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  let ending: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (code, signal) => {
    ending = { code, signal };
    resolve(signal);
  }));
  const rl = createInterface({ input: child.stdout! });
  for await (const line of rl) {
    if (line.startsWith('ready ')) {
      const [, api, token] = line.split(' ');
      return { child, api: api!, token: token!, exited };
    }
  }
  await exited;
  const how = ending as { code: number | null; signal: NodeJS.Signals | null } | null;
  throw new Error(`the child server never became ready (exit code ${how?.code}, signal ${how?.signal}); its stderr:\n${stderr}`);
}

/** Starts the child server with `crashAt`, runs `action` against it, and waits for it to die by SIGKILL. */
export async function crashDuring(dataDir: string, crashAt: string, action: (api: string, token: string) => Promise<unknown>): Promise<void> {
  const { api, token, exited } = await startCrashChild(dataDir, { ...process.env, FORGEKIT_CRASH_AT: crashAt });
  // The request dies with the server: its failure is the expected outcome.
  await action(api, token).catch(() => undefined);
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the child ended by ${signal}, not at ${crashAt}`);
}
