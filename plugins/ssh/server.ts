// The SSH server: public-key authentication against users' keys and deploy keys, then exactly one thing per
// session — git's transport services on one repository. Shells, PTYs, forwarding, agent, X11, subsystems and
// environment variables other than GIT_PROTOCOL are refused and logged. Limits: authentication attempts, a login
// grace time, idle and total connection time, concurrent connections and channels.
import type { ChildProcess } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type { Logger } from 'pino';
import ssh2, { type AuthContext, type Connection, type ServerChannel, type Session } from 'ssh2';
import { acceptedEnv, CommandError, parseGitCommand } from './command.js';
import { GitBridge, RefusedError, type SshIdentity, type SshTarget } from './git-bridge.js';
import { CommandListError, readCommands, refusalReply } from '../lib/receive-commands.js';
import { fingerprintOf, type HostKey } from './host-keys.js';

/** Ends git and the helpers it started (its own process group, as the git plugin spawns it). */
function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** A push the rules refused: answered by us, not by git. */
const REFUSED = -1;

export interface SshSettings {
  port: number | null;
  host: string;
  hostKeyDir: string;
  maxAuthAttempts: number;
  loginGraceMs: number;
  idleTimeoutMs: number;
  maxConnectionMs: number;
  maxConnections: number;
  maxChannelsPerConnection: number;
}

/**
 * The listening side. forgekit owns the TCP server and hands each socket to ssh2 (`injectSocket`): the connection
 * cap and the login grace time apply from the first byte, before ssh2 has finished (or even started) a handshake,
 * so half-open or silent connections cannot pile up.
 */
export class SshServer {
  private readonly ssh: ssh2.Server;
  private tcp: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  /** Login grace timers of connections that have not authenticated yet, by remote `address:port`. */
  private readonly unauthenticated = new Map<string, NodeJS.Timeout>();

  constructor(
    hostKeys: HostKey[],
    private readonly settings: SshSettings,
    private readonly bridge: GitBridge,
    private readonly log: Logger,
  ) {
    this.ssh = new ssh2.Server({ hostKeys: hostKeys.map((k) => k.privateKey), ident: 'forgekit' }, (client, info) => {
      const key = `${info.ip}:${info.port}`;
      new SshConnection(client, info.ip, settings, bridge, log).run(() => this.loggedIn(key));
    });
    this.ssh.on('error', (err: Error) => log.error({ err }, 'ssh server error'));
  }

  get connections(): number {
    return this.sockets.size;
  }

  async listen(host: string): Promise<AddressInfo> {
    const tcp = net.createServer((socket) => this.admit(socket));
    this.tcp = tcp;
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.settings.port ?? 0, host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    tcp.on('error', (err) => this.log.error({ err }, 'ssh listener error'));
    return tcp.address() as AddressInfo;
  }

  async close(): Promise<void> {
    const tcp = this.tcp;
    this.tcp = null;
    for (const socket of this.sockets) socket.destroy();
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
  }

  private admit(socket: net.Socket): void {
    socket.on('error', (err) => this.log.debug({ err: err.message }, 'ssh socket error'));
    const remote = `${socket.remoteAddress}:${socket.remotePort}`;
    if (this.sockets.size >= this.settings.maxConnections) {
      this.log.warn({ remote }, 'ssh: too many connections, refused');
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    const grace = setTimeout(() => {
      this.log.info({ remote }, 'ssh: not authenticated in time, connection closed');
      socket.destroy();
    }, this.settings.loginGraceMs);
    this.unauthenticated.set(remote, grace);
    socket.once('close', () => {
      clearTimeout(grace);
      this.unauthenticated.delete(remote);
      this.sockets.delete(socket);
    });
    this.ssh.injectSocket(socket);
  }

  private loggedIn(remote: string): void {
    clearTimeout(this.unauthenticated.get(remote));
    this.unauthenticated.delete(remote);
  }
}

/** One client connection: its authentication, its channels, its git processes and its timers. */
class SshConnection {
  private identity: SshIdentity | null = null;
  private attempts = 0;
  private channels = 0;
  private readonly children = new Set<ChildProcess>();
  private readonly timers: NodeJS.Timeout[] = [];
  private idle!: NodeJS.Timeout;

  constructor(
    private readonly client: Connection,
    private readonly remote: string,
    private readonly settings: SshSettings,
    private readonly bridge: GitBridge,
    private readonly log: Logger,
  ) {}

  /** `onReady` runs once the client has authenticated (the listener stops its login grace timer). */
  run(onReady: () => void): void {
    const { client, settings } = this;
    const end = (why: string) => () => {
      this.log.info({ remote: this.remote, why }, 'ssh: connection ended by the server');
      client.end();
    };
    this.idle = setTimeout(end('idle'), settings.idleTimeoutMs);
    this.timers.push(this.idle, setTimeout(end('connection time limit'), settings.maxConnectionMs));
    // Errors of one connection (malformed traffic, resets) end that connection and nothing else.
    client.on('error', (err: Error) => this.log.debug({ err: err.message, remote: this.remote }, 'ssh connection error'));
    client.on('authentication', (ctx) => {
      this.idle.refresh();
      void this.authenticate(ctx).catch((err) => {
        this.log.error({ err, remote: this.remote }, 'ssh: authentication failed with an error');
        ctx.reject();
      });
    });
    client.on('ready', () => {
      onReady();
      client.on('session', (accept, reject) => {
        if (this.channels >= settings.maxChannelsPerConnection) return this.refuse('too many sessions', reject);
        this.channels++;
        this.session(accept());
      });
      client.on('tcpip', (_accept, reject) => this.refuse('port forwarding (direct-tcpip)', reject));
      client.on('openssh.streamlocal', (_accept, reject) => this.refuse('socket forwarding', reject));
      client.on('request', (_accept, reject, name) => this.refuse(`global request ${name}`, reject));
    });
    client.on('close', () => {
      for (const timer of this.timers) clearTimeout(timer);
      for (const child of this.children) killGroup(child);
    });
  }

  private who(): string {
    const id = this.identity;
    return !id ? 'unauthenticated' : id.kind === 'user' ? id.caller.login : `deploy key ${id.fingerprint}`;
  }

  private refuse(what: string, reject?: () => void): void {
    this.log.warn({ remote: this.remote, who: this.who(), what }, 'ssh: refused');
    reject?.();
  }

  private async authenticate(ctx: AuthContext): Promise<void> {
    if (ctx.method === 'none') return ctx.reject(['publickey']);
    if (++this.attempts > this.settings.maxAuthAttempts) {
      this.refuse('too many authentication attempts');
      ctx.reject();
      this.client.end();
      return;
    }
    if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
    const identity = await this.bridge.identify(fingerprintOf(ctx.key.data));
    if (!identity) return ctx.reject(['publickey']);
    if (ctx.signature) {
      const key = ssh2.utils.parseKey(ctx.key.data);
      if (key instanceof Error || key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['publickey']);
      this.identity = identity;
      this.log.info({ remote: this.remote, who: this.who() }, 'ssh: authenticated');
    }
    // Without a signature the client only asks whether the key would do; accepting makes it sign.
    ctx.accept();
  }

  private session(session: Session): void {
    const env: Record<string, string> = {};
    session.on('env', (accept, reject, info) => {
      if (acceptedEnv(info.key, info.val)) {
        env[info.key] = info.val;
        accept?.();
      } else {
        this.refuse(`environment variable ${info.key.slice(0, 64)}`, reject);
      }
    });
    session.on('pty', (_accept, reject) => this.refuse('a terminal (pty)', reject));
    session.on('x11', (_accept, reject) => this.refuse('X11 forwarding', reject));
    session.on('auth-agent', (_accept, reject) => this.refuse('agent forwarding', reject));
    session.on('subsystem', (_accept, reject, info) => this.refuse(`subsystem ${info.name}`, reject));
    session.on('sftp', (_accept, reject) => this.refuse('sftp', reject));
    session.on('signal', (_accept, reject) => reject?.());
    session.on('window-change', (_accept, reject) => reject?.());
    session.on('shell', (accept) => {
      this.refuse('a shell');
      const who = this.identity?.kind === 'user' ? this.identity.caller.login : 'there';
      this.finish(accept(), 1, `Hi ${who}! You've successfully authenticated, but forgekit does not provide shell access.`);
    });
    session.on('exec', (accept, _reject, info) => {
      void this.exec(accept(), info.command, env);
    });
  }

  /** Tells the client why (on stderr, as git shows it) and closes the channel with an exit status. */
  private finish(channel: ServerChannel, code: number, message?: string): void {
    if (message) channel.stderr.write(`forgekit: ${message}\n`);
    channel.exit(code);
    channel.end();
  }

  private async exec(channel: ServerChannel, command: string, env: Record<string, string>): Promise<void> {
    const identity = this.identity;
    if (!identity) return this.finish(channel, 1, 'not authenticated');
    try {
      const parsed = parseGitCommand(command);
      const target = await this.bridge.authorize(identity, parsed);
      const code = target.write ? await this.push(channel, target, env) : await this.pipe(channel, this.bridge.spawn(parsed, target, env), channel);
      this.log.info({ remote: this.remote, who: this.who(), service: parsed.service, repo: `${parsed.owner}/${parsed.repo}`, code }, 'ssh: git');
      this.finish(channel, code === REFUSED ? 0 : code);
    } catch (err) {
      if (err instanceof CommandError || err instanceof RefusedError || err instanceof CommandListError) {
        this.refuse(`command ${JSON.stringify(command.slice(0, 200))}: ${err.message}`);
        return this.finish(channel, 1, err.message);
      }
      this.log.error({ err, remote: this.remote }, 'ssh: git command failed');
      this.finish(channel, 1, 'internal error');
    }
  }

  /**
   * A push, served as smart HTTP serves it: `receive-pack --stateless-rpc --advertise-refs` writes the ref
   * advertisement and exits; the client's command list (up to its flush) is read and checked against the push rules
   * (default branch, branch protection) with every ref named; then `receive-pack --stateless-rpc` gets the commands
   * and the pack, started with what the rules decided (refs whose fast-forward git must judge once the pack is in).
   * A refused push gets receive-pack's own answer (`[remote rejected]`) from us and what the client still sends (the
   * pack) is discarded. The repository and `git.push` events are brought up to date after git applied the push.
   */
  private async push(channel: ServerChannel, target: SshTarget, env: Record<string, string>): Promise<number> {
    const before = await this.bridge.beforePush(target);
    const advertisement = this.bridge.advertise(target, env);
    advertisement.stdin!.end();
    const advertised = await this.pipe(channel, advertisement, null);
    if (advertised !== 0) return advertised;
    // Through a PassThrough: reading to the end would otherwise destroy the channel, which still carries the answer.
    const inbox = new PassThrough();
    channel.pipe(inbox);
    const commands = await readCommands(inbox);
    // Nothing to update (the client had nothing to push, or went away before its flush): receive-pack would do nothing.
    if (commands.updates.length === 0) return 0;
    const { reason, fastForwardRefs } = await this.bridge.checkPush(target, commands.updates);
    if (reason) {
      this.refuse(`push to ${commands.updates.map((u) => u.ref).join(', ')}: ${reason}`);
      channel.write(refusalReply(commands.updates, commands.capabilities, reason));
      commands.body.resume(); // the pack the client sends anyway
      return REFUSED;
    }
    const code = await this.pipe(channel, this.bridge.receive(target, env, fastForwardRefs), commands.body);
    // The server works, the client waits: a push of many branches must not idle out while its events go out.
    const busy = setInterval(() => this.idle.refresh(), 10_000);
    try {
      await this.bridge.afterPush(target, before);
    } catch (err) {
      this.log.error({ err }, 'ssh: updating the repository after a push failed');
    } finally {
      clearInterval(busy);
    }
    return code;
  }

  /**
   * Streams the input (if any) into git and git's output back, until git exits; any traffic keeps the connection from
   * idling out, and a channel that closes ends git.
   */
  private pipe(channel: ServerChannel, child: ChildProcess, input: Readable | null): Promise<number> {
    this.children.add(child);
    const done = this.exitOf(child);
    const touch = () => this.idle.refresh();
    child.stdout!.on('data', touch);
    child.stdin!.on('error', () => undefined); // git may stop reading early (it refused the request)
    if (input) {
      input.on('data', touch);
      input.pipe(child.stdin!);
    }
    child.stdout!.pipe(channel, { end: false });
    child.stderr!.pipe(channel.stderr, { end: false });
    const onClose = () => killGroup(child);
    channel.once('close', onClose);
    return done.finally(() => channel.off('close', onClose));
  }

  private exitOf(child: ChildProcess): Promise<number> {
    return new Promise((resolve) => {
      child.once('error', () => resolve(128));
      child.once('close', (code) => {
        this.children.delete(child);
        resolve(code ?? 128);
      });
    });
  }
}
