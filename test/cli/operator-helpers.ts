// Helpers for the operator-command tests: the CLI as a real process, a server process, a data dir's file hashes.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../../core/config.js';
import { nodeCommand } from '../helpers/child-env.js';

export const BIN = path.join(PACKAGE_ROOT, 'dist', 'bin', 'forgekit.js');
export const exec = promisify(execFile);

export interface Run { code: number; stdout: string; stderr: string }

export async function cli(args: string[], env: Record<string, string>): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(...nodeCommand([BIN, ...args]), { env: { ...process.env, FORGEKIT_LOG_LEVEL: 'warn', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export function serve(env: Record<string, string>) {
  const child = spawn(...nodeCommand([BIN, 'serve']), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters: Array<[RegExp, () => void]> = [];
  const onData = (d: Buffer) => {
    out += d;
    for (const [re, resolve] of [...waiters]) if (re.test(out)) { waiters.splice(waiters.findIndex((w) => w[1] === resolve), 1); resolve(); }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp) => new Promise<void>((resolve, reject) => {
    if (re.test(out)) return resolve();
    waiters.push([re, resolve]);
    void exited.then((code) => reject(new Error(`exited ${code} before ${re}: ${out}`)));
  });
  return { child, exited, waitFor, output: () => out };
}

export async function tree(dir: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, entry.name);
    if (r === path.join('store', 'LOCK')) continue;
    if (entry.isDirectory()) Object.assign(out, await tree(dir, r));
    else out[r] = createHash('sha256').update(await readFile(path.join(dir, r))).digest('hex');
  }
  return out;
}

