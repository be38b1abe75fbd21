#!/usr/bin/env node
// The forgekit command line: the server, and the offline operator commands (admin, doctor, dump, restore) that work
// on a stopped server's data. Exit codes: 0 done, 1 failed, 2 bad command line.
import { createForge } from '../plugins/index.js';
import { admin, ADMIN_USAGE } from './cli/admin.js';
import { doctor, DOCTOR_USAGE } from './cli/doctor.js';
import { dump, restore, BACKUP_USAGE } from './cli/backup.js';
import { CommandError, UsageError } from './cli/context.js';
import { firstStartHints } from './cli/first-start.js';
import { prettyLogger, wantsPretty } from './cli/pretty-log.js';
import { loadConfig } from '../core/config.js';
import { applyHeapHeadroom, applyPretenuring, bootHeadroomPercent, missingServeFlags } from '../core/heap-headroom.js';

const USAGE = `usage: forgekit <command> [options]

commands:
  serve                      run the server (the default command; configuration from config/default.json and the env)
  admin user list|create|delete|change-password
                             manage accounts (admin create-user is kept as an alias of admin user create)
  doctor [--fix]             check (and repair) the stored data
  dump --file FILE           archive the store and the repositories
  restore --file FILE        restore an archive into an empty data dir

admin, doctor, dump and restore work while the server is stopped. Add --help to a command for its options,
--json for machine-readable output.`;

async function serve(): Promise<void> {
  const config = loadConfig({ env: process.env });
  applyPretenuring(config.heapPretenuring);
  applyHeapHeadroom(bootHeadroomPercent(config.heapHeadroomPercent));
  // A terminal gets readable lines; a pipe, a file or a log collector gets JSON (or whatever logFormat forces).
  const forge = await createForge({ env: process.env, ...(wantsPretty(config) ? { logger: prettyLogger(config) } : {}) });
  const { url } = await forge.listen();
  applyHeapHeadroom(forge.config.heapHeadroomPercent);
  forge.log.info({ heapHeadroomPercent: forge.config.heapHeadroomPercent, bootHeadroomPercent: bootHeadroomPercent(config.heapHeadroomPercent), heapPretenuring: config.heapPretenuring },
    'old-generation headroom set');
  const missing = missingServeFlags();
  if (missing.length) forge.log.info({ missing }, `started without ${missing.join(' ')} (npm start passes it): young-generation collections run twice as often`);
  await firstStartHints(forge, url);
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

const HELP: Record<string, string> = { admin: ADMIN_USAGE, doctor: DOCTOR_USAGE, dump: BACKUP_USAGE, restore: BACKUP_USAGE, serve: 'usage: forgekit [serve]' };

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    if (!HELP[command]) throw new UsageError(`unknown command: ${command}`);
    process.stdout.write(`${HELP[command]}\n`);
    return;
  }
  switch (command) {
    case 'serve': return serve();
    case 'admin': return admin(rest);
    case 'doctor': return doctor(rest);
    case 'dump': return dump(rest);
    case 'restore': return restore(rest);
    default: throw new UsageError(`unknown command: ${argv.join(' ')}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const error = err as Error & { code?: string };
  if (error instanceof UsageError || error.code?.startsWith('ERR_PARSE_ARGS')) {
    const command = process.argv[2] ?? '';
    process.stderr.write(`forgekit: ${error.message}\n${HELP[command] ?? USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`forgekit: ${error.message}\n`);
  process.exit(error instanceof CommandError ? 1 : 1);
});
