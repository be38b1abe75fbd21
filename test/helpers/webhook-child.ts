// A forgekit server in its own process, for crash tests: argv[2] is a JSON config override (dataDir, admin, plugins…);
// it prints one JSON line `{"url": …}` when it listens, and runs until it is killed.
import { createForge } from '../../plugins/index.js';

const overrides = JSON.parse(process.argv[2] ?? '{}');
const forge = await createForge({ env: {}, config: { host: '127.0.0.1', port: 0, logLevel: 'silent', ...overrides } });
const { url } = await forge.listen();
process.stdout.write(JSON.stringify({ url }) + '\n');
