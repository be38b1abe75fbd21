// `GET /api/healthz` (Gitea's address and shape): overall status plus one check for the store and one for git.
import { execFile } from 'node:child_process';
import { definePlugin } from '../../core/plugin.js';

interface Check {
  status: 'pass' | 'fail';
  time: string;
  output?: string;
}

const CHECK = {
  type: 'array',
  items: {
    type: 'object',
    properties: { status: { type: 'string' }, time: { type: 'string' }, output: { type: 'string' } },
    required: ['status', 'time'],
  },
};

/** Gitea's health response (`routers/web/healthcheck`): status, description, checks by component. */
const HEALTH = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['pass', 'fail', 'warn'] },
    description: { type: 'string' },
    checks: { type: 'object', properties: { 'store:ping': CHECK, 'git:version': CHECK } },
  },
  required: ['status', 'description', 'checks'],
};

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

async function storePing(read: () => Promise<unknown>): Promise<Check> {
  try {
    await read();
    return { status: 'pass', time: now() };
  } catch (err) {
    return { status: 'fail', time: now(), output: `store read failed: ${(err as Error).message}` };
  }
}

function gitVersion(binary: string): Promise<Check> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { timeout: 10_000 }, (err, stdout) => {
      if (err || !/^git version /.test(stdout)) resolve({ status: 'fail', time: now(), output: `git is not usable: ${err?.message ?? stdout.trim()}` });
      else resolve({ status: 'pass', time: now() });
    });
  });
}

const PING = 'health_ping';

export default definePlugin({
  name: 'health',
  // Its own (empty) collection: the ping reads the store without depending on any other plugin.
  collections: [{ name: PING }],
  routes: [
    {
      operationId: 'healthCheck', summary: 'Health of the server: the store answers, git runs',
      scope: 'misc', method: 'GET', path: '/api/healthz', mount: 'root', auth: 'public',
      schema: { response: { 200: HEALTH, 500: HEALTH } },
      async handler(rc) {
        const { store, config } = rc.app;
        const gitBinary = (config.plugins.git?.gitBinary as string | undefined) ?? 'git';
        const [storeCheck, gitCheck] = await Promise.all([
          storePing(() => store.collection(PING).findOne({})),
          gitVersion(gitBinary),
        ]);
        const ok = storeCheck.status === 'pass' && gitCheck.status === 'pass';
        return {
          status: ok ? 200 : 500,
          body: { status: ok ? 'pass' : 'fail', description: 'forgekit', checks: { 'store:ping': [storeCheck], 'git:version': [gitCheck] } },
          headers: { 'Cache-Control': 'no-store' },
        };
      },
    },
  ],
});
