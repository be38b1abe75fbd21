// `forgekit admin user list|create|delete|change-password` (and the older `admin create-user`).
import { parseArgs } from 'node:util';
import type { Forge } from '../../plugins/index.js';
import type { Account, UsersService } from '../../schemas/services.js';
import { CommandError, openForge, printJson, UsageError } from './context.js';

export const ADMIN_USAGE = `usage:
  forgekit admin user list [--admin] [--json]
  forgekit admin user create --username NAME --password PASS --email EMAIL [--admin] [--full-name NAME] [--json]
  forgekit admin user delete --username NAME
  forgekit admin user change-password --username NAME --password PASS
  (alias: forgekit admin create-user ... = forgekit admin user create ...)
Works on the data of a stopped server (the embedded store is locked while a server runs).`;

async function withForge<T>(run: (forge: Forge, users: UsersService) => Promise<T>): Promise<T> {
  const forge = await openForge();
  try {
    return await run(forge, forge.service('users'));
  } finally {
    await forge.close();
  }
}

function summary(a: Account) {
  return { id: a.id, username: a.login, email: a.email, full_name: a.fullName, is_admin: a.isAdmin, created: a.createdAt };
}

async function list(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { admin: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } } });
  const accounts = await withForge(async (forge) => {
    const filter: Record<string, unknown> = { type: 'user' };
    if (values.admin) filter.isAdmin = true;
    return forge.store.collection<Account>('users').find(filter, { sort: { id: 1 } });
  });
  if (values.json) return printJson(accounts.map(summary));
  const rows = [['ID', 'USERNAME', 'EMAIL', 'ADMIN', 'CREATED'], ...accounts.map((a) => [String(a.id), a.login, a.email, a.isAdmin ? 'yes' : 'no', String(a.createdAt)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
}

async function create(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' }, password: { type: 'string' }, email: { type: 'string' }, 'full-name': { type: 'string' },
      admin: { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
    },
  });
  if (!values.username || !values.password || !values.email) throw new UsageError('--username, --password and --email are required');
  const account = await withForge((_f, users) => users.createUser({
    username: values.username!, password: values.password!, email: values.email!, fullName: values['full-name'], isAdmin: values.admin === true,
  }));
  if (values.json) return printJson(summary(account));
  process.stdout.write(`created ${account.isAdmin ? 'site administrator' : 'user'} ${account.login} (id ${account.id})\n`);
}

async function remove(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' } } });
  if (!values.username) throw new UsageError('--username is required');
  await withForge(async (_f, users) => {
    const account = await users.byName(values.username!);
    if (!account || account.type !== 'user') throw new CommandError(`no user named ${values.username}`);
    await users.deleteAccount(account);
  });
  process.stdout.write(`deleted user ${values.username}\n`);
}

async function changePassword(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' }, password: { type: 'string' } } });
  if (!values.username || !values.password) throw new UsageError('--username and --password are required');
  await withForge(async (_f, users) => {
    const account = await users.byName(values.username!);
    if (!account || account.type !== 'user') throw new CommandError(`no user named ${values.username}`);
    await users.setPassword(account, values.password!);
  });
  process.stdout.write(`changed the password of ${values.username}\n`);
}

export async function admin(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  if (group === 'create-user') return create([action, ...rest].filter((a): a is string => a !== undefined));
  if (group !== 'user') throw new UsageError(group ? `unknown admin command: ${group}` : 'admin needs a command');
  switch (action) {
    case 'list': return list(rest);
    case 'create': return create(rest);
    case 'delete': return remove(rest);
    case 'change-password': return changePassword(rest);
    default: throw new UsageError(action ? `unknown admin user command: ${action}` : 'admin user needs a command');
  }
}
