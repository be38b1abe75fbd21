// Test helper: the real git client, isolated from the machine's config, plus small file-system checks.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';

export interface GitResult { code: number; stdout: string; stderr: string }

/** Runs git with a private HOME, no system config, no prompts and a fixed identity; never rejects. */
export function runGit(args: string[], options: { home: string; cwd?: string; env?: Record<string, string> }): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('git', args, {
      cwd: options.cwd,
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH, HOME: options.home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C', LC_ALL: 'C',
        GIT_AUTHOR_NAME: 'Test Author', GIT_AUTHOR_EMAIL: 'author@example.com',
        GIT_COMMITTER_NAME: 'Test Author', GIT_COMMITTER_EMAIL: 'author@example.com',
        ...options.env,
      },
    }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** A clone URL with Basic credentials (a password, or a token as the password). */
export function withAuth(url: string, user: string, secret: string): string {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(secret);
  return u.toString();
}

export async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}
