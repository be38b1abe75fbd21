#!/usr/bin/env node
// The forgekit command line: `forgekit [serve]` runs the server; `forgekit admin create-user ...` adds an account.
import { parseArgs } from 'node:util';
import { createForge, type Forge } from '../plugins/index.js';
import type { UsersService } from '../schemas/services.js';

const USAGE = `usage:
  forgekit [serve]
  forgekit admin create-user --username NAME --password PASS --email EMAIL [--admin] [--full-name NAME]`;

async function serve(): Promise<void> {
  const forge = await createForge({ env: process.env });
  await forge.listen();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    forge.log.info({ signal }, 'shutting down');
    forge.close().then(() => process.exit(0), (err) => {
      forge.log.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Works on the embedded store while the server is stopped (two processes must not share one embedded store). */
async function createUser(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      email: { type: 'string' },
      'full-name': { type: 'string' },
      admin: { type: 'boolean', default: false },
    },
  });
  if (!values.username || !values.password || !values.email) throw new UsageError('--username, --password and --email are required');
  const forge: Forge = await createForge({ env: { ...process.env, FORGEKIT_LOG_LEVEL: process.env.FORGEKIT_LOG_LEVEL ?? 'warn' } });
  try {
    const users = forge.service<UsersService>('users');
    const account = await users.createUser({
      username: values.username,
      password: values.password,
      email: values.email,
      fullName: values['full-name'],
      isAdmin: values.admin === true,
    });
    process.stdout.write(`created ${account.isAdmin ? 'site administrator' : 'user'} ${account.login} (id ${account.id})\n`);
  } finally {
    await forge.close();
  }
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', sub, ...rest] = argv;
  if (command === 'serve') return serve();
  if (command === 'admin' && sub === 'create-user') return createUser(rest);
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const error = err as Error;
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
  else process.stderr.write(`forgekit: ${error.message}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
