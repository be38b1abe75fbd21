// The `ssh` plugin: git over SSH (clone, fetch, push, archive) with the keys users upload and deploy keys, served by
// a built-in SSH server (ssh2) when `plugins.ssh.port` / FORGEKIT_SSH_PORT names a port. No system sshd, no shell.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { definePlugin } from '../../core/plugin.js';
// The server, its host keys and ssh2 (~60 ms to load) are imported only when a port is configured.
import type { SshSettings } from './server.js';

export interface SshService {
  /** Where the server listens; null when SSH is off. */
  address(): AddressInfo | null;
  /** Host key fingerprints (`SHA256:…`), for known_hosts checks; empty when off. */
  readonly hostKeys: ReadonlyArray<{ type: string; fingerprint: string; publicLine: string }>;
  /** Open connections (metrics, tests). */
  connections(): number;
  /** Stops listening and ends every connection (the plugin's stop). */
  close(): Promise<void>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    ssh: SshService;
  }
}

const ms = (min: number, value: number) => ({ type: 'integer', minimum: min, default: value });

export default definePlugin<SshService, SshSettings>({
  name: 'ssh',
  dependencies: ['users', 'repos', 'git', 'ssh-keys'],
  optionalDependencies: ['deploy-keys'],
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      port: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1, maximum: 65535 }], default: null },
      host: { type: 'string', default: '' },
      hostKeyDir: { type: 'string', default: '' },
      maxAuthAttempts: { type: 'integer', minimum: 1, maximum: 100, default: 6 },
      loginGraceMs: ms(100, 30_000),
      idleTimeoutMs: ms(100, 300_000),
      maxConnectionMs: ms(100, 3_600_000),
      maxConnections: { type: 'integer', minimum: 1, default: 64 },
      maxChannelsPerConnection: { type: 'integer', minimum: 1, default: 4 },
    },
  },
  async start(ctx) {
    const settings = ctx.settings;
    if (settings.port === null) {
      return { address: () => null, hostKeys: [], connections: () => 0, close: async () => undefined };
    }
    const [{ GitBridge }, { loadOrCreateHostKeys }, { SshServer }] = await Promise.all([import('./git-bridge.js'), import('./host-keys.js'), import('./server.js')]);
    const hostKeys = await loadOrCreateHostKeys(settings.hostKeyDir || path.join(ctx.config.dataDir, 'ssh'));
    const instance = new SshServer(hostKeys, settings, new GitBridge(ctx.services), ctx.log);
    const address = await instance.listen(settings.host || ctx.config.host);
    ctx.log.info({ port: address.port, host: address.address, fingerprints: hostKeys.map((k) => `${k.type} ${k.fingerprint}`) },
      'ssh server listening');
    return {
      address: () => address,
      hostKeys: hostKeys.map(({ type, fingerprint, publicLine }) => ({ type, fingerprint, publicLine })),
      connections: () => instance.connections,
      close: () => instance.close(),
    };
  },
  async stop(ctx) {
    await ctx.services.get('ssh').close();
  },
});
