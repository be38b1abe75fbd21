// git's smart HTTP protocol at the site root (`/<owner>/<repo>.git/...`): ref advertisement, fetch and push, each
// streamed through `git upload-pack` / `git receive-pack --stateless-rpc` without buffering packs in memory.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { fail, ForgeError } from '../../core/errors.js';
import type { RequestContext } from '../../core/plugin.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { PushAttempt } from '../../schemas/contracts/git.js';
import { gitMessage, killGroup } from './runner.js';
import { CommandListError, readCommands, refusalReply, type ReceiveCommands } from '../lib/receive-commands.js';
import type { GitService } from './service.js';
import { endResponse, responseGone } from '../lib/response-gone.js';

type Service = 'upload-pack' | 'receive-pack';
type GitParams = { owner: string; repo: string };
type Rc<Q = unknown> = RequestContext<GitParams, Q, unknown>;

const NO_CACHE = {
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  Pragma: 'no-cache',
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
};

function git(rc: Rc<any>): GitService {
  return rc.app.services.get('git');
}

/** The `:repo` segment arrives as `name.git`; the bare name is accepted too. */
export function repoParam(param: string): string {
  return param.toLowerCase().endsWith('.git') ? param.slice(0, -4) : param;
}

/** The client's `Git-Protocol` header (protocol v2 negotiation), passed to git when it is well-formed. */
function protocolEnv(rc: Rc<any>): Record<string, string> {
  const header = rc.req.headers['git-protocol'];
  return typeof header === 'string' && /^[A-Za-z0-9=:._,-]{1,256}$/.test(header) ? { GIT_PROTOCOL: header } : {};
}

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, '0') + text;
}

/**
 * A transfer has no total time limit (the kernel exempts stream routes from the server's requestTimeout): a clone or
 * push is cut when its connection moved no byte either way for `transferIdleMs`, however long it has run.
 */
function idleLimit(rc: Rc<any>, g: GitService): void {
  rc.res.setTimeout(g.settings.transferIdleMs, () => {
    rc.log.warn({ idleMs: g.settings.transferIdleMs }, 'git transfer idle too long: connection cut');
    rc.res.destroy();
  });
}

/** GET /{owner}/{repo}/info/refs?service=git-upload-pack|git-receive-pack */
export async function infoRefs(rc: Rc<{ service?: string }>): Promise<void> {
  const requested = rc.query.service;
  if (requested !== 'git-upload-pack' && requested !== 'git-receive-pack') {
    throw fail.badRequest('only the smart HTTP protocol is served: ?service=git-upload-pack or ?service=git-receive-pack');
  }
  const service = requested.slice(4) as Service;
  const g = git(rc);
  const { repo, owner } = await g.resolveForGit(rc.caller, rc.params.owner, repoParam(rc.params.repo), service === 'receive-pack');
  const env = protocolEnv(rc);
  const args = [service, '--stateless-rpc', '--advertise-refs'];
  if (service === 'upload-pack') args.push('--strict');
  args.push(g.repoDir(repo, owner));
  // Protocol v2 starts with its capability advertisement; v0/v1 clients expect the service line first.
  const prefix = env.GIT_PROTOCOL?.includes('version=2') ? '' : `${pktLine(`# service=git-${service}\n`)}0000`;
  const release = g.transfers.enter(repo.id);
  idleLimit(rc, g);
  try {
    await stream(rc, g, args, env, null, `application/x-git-${service}-advertisement`, prefix);
  } finally {
    release();
  }
}

/** POST /{owner}/{repo}/git-upload-pack */
export function uploadPack(rc: Rc): Promise<void> {
  return rpc(rc, 'upload-pack');
}

/** POST /{owner}/{repo}/git-receive-pack */
export function receivePack(rc: Rc): Promise<void> {
  return rpc(rc, 'receive-pack');
}

async function rpc(rc: Rc, service: Service): Promise<void> {
  const g = git(rc);
  let found: { repo: RepoRecord; owner: Account };
  let input: Readable;
  let release: (() => void) | undefined;
  try {
    found = await g.resolveForGit(rc.caller, rc.params.owner, repoParam(rc.params.repo), service === 'receive-pack');
    release = g.transfers.enter(found.repo.id);
    idleLimit(rc, g);
    const type = (rc.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== `application/x-git-${service}-request`) {
      throw new ForgeError('UNSUPPORTED_MEDIA_TYPE', `Content-Type application/x-git-${service}-request is required`);
    }
    const encoding = (rc.req.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding === 'gzip' || encoding === 'x-gzip') {
      const gunzip = createGunzip();
      // A corrupt body fails here before git has started and `pipeline` listens (the awaits in between: the directory
      // check, the spawn): unheard, that 'error' was an uncaught exception, which ends a server. `pipeline` still
      // sees the error, from the stream's errored state, once it is attached.
      gunzip.on('error', () => undefined);
      rc.req.pipe(gunzip);
      rc.req.once('error', (err) => gunzip.destroy(err));
      input = gunzip;
    } else if (encoding === '' || encoding === 'identity') {
      input = rc.req;
    } else {
      throw new ForgeError('UNSUPPORTED_MEDIA_TYPE', `unsupported Content-Encoding ${encoding}`);
    }
  } catch (err) {
    release?.();
    // The request body (possibly a large pack) is left unread: close the connection rather than drain it.
    rc.res.setHeader('Connection', 'close');
    throw err;
  }
  try {
    await transfer(rc, g, service, found, input);
  } finally {
    release();
  }
}

async function transfer(rc: Rc, g: GitService, service: Service, found: { repo: RepoRecord; owner: Account }, input: Readable): Promise<void> {
  const { repo, owner } = found;
  let after: (() => Promise<void>) | undefined;
  let options: { config: string[]; env: Record<string, string> } = { config: [], env: {} };
  if (service === 'receive-pack') {
    const pusherId = rc.caller?.id ?? null;
    const before = await g.readRefs(repo, owner);
    let commands: ReceiveCommands;
    try {
      commands = await readCommands(input);
    } catch (err) {
      rc.res.setHeader('Connection', 'close');
      if (err instanceof CommandListError) throw fail.badRequest(err.message);
      throw err;
    }
    const attempt: PushAttempt = { repo, owner, pusherId, via: 'http', updates: commands.updates };
    const reason = await g.checkPush(attempt);
    if (reason) {
      // git has not seen the request: drain what the client still sends (the pack), then answer as receive-pack would.
      for await (const _ of commands.body) { /* discard */ }
      rc.res.writeHead(200, { ...NO_CACHE, 'Content-Type': 'application/x-git-receive-pack-result' });
      await endResponse(rc.res, refusalReply(commands.updates, commands.capabilities, reason));
      return;
    }
    // Refs a guard needs fast-forward only, whose new commits are in the pack: forgekit's pre-receive hook judges them.
    options = g.receivePackOptions(attempt);
    input = commands.body;
    // Before the response ends, so a client that sees its push finish also sees the record updated and events sent.
    after = () => g.afterPush(repo, owner, before, pusherId, 'http');
  }
  // git itself refuses a pack over the limit (receive.maxInputSize), and tells the client why.
  const args = [...options.config, service, '--stateless-rpc'];
  if (service === 'upload-pack') args.push('--strict');
  args.push(g.repoDir(repo, owner));
  await stream(rc, g, args, { ...protocolEnv(rc), ...options.env }, input, `application/x-git-${service}-result`, '', after);
}

/**
 * Runs git with the request body (if any) on stdin and its stdout as the response body. Headers are sent once git
 * has started; a client that goes away kills git; `after` runs once git has exited, before the response ends.
 */
async function stream(
  rc: Rc<any>, g: GitService, args: string[], env: Record<string, string>, input: Readable | null,
  contentType: string, prefix: string, after?: () => Promise<void>,
): Promise<void> {
  const { res } = rc;
  const dir = args[args.length - 1]!;
  if (!(await g.storage.exists(dir))) {
    // A record without storage (seeded data, a directory removed by hand): say so in the log, not in the response.
    rc.log.error({ dir }, 'repository record has no git directory');
    res.setHeader('Connection', 'close');
    throw fail.notFound();
  }
  // No total time: a long clone or push is fine while bytes move (the idle limit is on the connection).
  const child: ChildProcess = g.runner.spawn(args, { env, timeoutMs: 0 });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 8192) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err) => reject(err));
  });

  res.writeHead(200, { ...NO_CACHE, 'Content-Type': contentType });
  if (prefix) res.write(prefix);
  const onClose = () => {
    if (res.writableFinished) return;
    killGroup(child);
    // The closed response unpipes git's stdout and leaves it paused: what it holds would never be read, so it would
    // never end, the child's 'close' would never come, and this request (and its transfer place) would wait for ever.
    child.stdout!.destroy();
  };
  res.once('close', onClose);
  // Gone while git started (or while this request waited before): 'close' is past and will not come again.
  if (responseGone(res)) onClose();

  child.stdin!.on('error', () => undefined); // git may stop reading early (e.g. it rejected the request)
  if (input) {
    pipeline(input, child.stdin!).catch((err) => {
      rc.log.debug({ err }, 'git request body ended early');
      killGroup(child);
    });
  } else {
    child.stdin!.end();
  }
  child.stdout!.pipe(res, { end: false });
  const stdoutDone = new Promise<void>((resolve) => child.stdout!.once('close', () => resolve()));

  const code = await exited;
  await stdoutDone;
  if (code !== 0) rc.log.warn({ git: args.find((a) => a.endsWith('-pack')), code, error: gitMessage(stderr) }, 'git exited with an error');
  if (after) {
    // The idle limit is for a client that stops sending: while the server brings the record and events up to date
    // (a push of a thousand new branches takes minutes on a loaded machine) no byte moves, and that is not the client.
    rc.res.setTimeout(0);
    try {
      await after();
    } catch (err) {
      rc.log.error({ err }, 'refreshing the repository after a push failed');
    }
  }
  res.off('close', onClose);
  await endResponse(res);
}
