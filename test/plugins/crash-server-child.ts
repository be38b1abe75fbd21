// Child process for crash-creates.test.ts: a forge on <dataDir> (FORGEKIT_CRASH_AT in its env picks the point where
// it SIGKILLs itself); prints `ready <api> <admin token>` once it serves.
import { startForge } from '../helpers/forge.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: crash-server-child <dataDir>');
const f = await startForge({ dataDir });
process.stdout.write(`ready ${f.api} ${f.admin.token}\n`);
