// Which clone addresses a migration (and every later mirror sync) may use: http(s) and git URLs to public hosts;
// local paths and loopback/private addresses only when the operator allows them. Credentials never stay in the URL.
import { lookup as dnsLookup } from 'node:dns/promises';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isPublicAddress } from '../lib/addresses.js';
import net from 'node:net';
import path from 'node:path';

export type LookupFn = (hostname: string) => Promise<string[]>;

export interface RemoteCheckOptions {
  allowLocal: boolean;
  /** Directories a local source may never be inside (forgekit's own data: other users' repositories). */
  forbiddenRoots: string[];
  lookup?: LookupFn;
}

export interface Remote {
  /** The address git uses and forgekit stores: no user name, no password. */
  url: string;
  kind: 'http' | 'git' | 'local';
  username?: string;
  password?: string;
  /** `host:port:addr[,addr]` for `http.curloptResolve`: git connects to the addresses that were checked. */
  pin?: string;
}

export class RemoteRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteRefused';
  }
}

const MAX_URL = 2048;

async function defaultLookup(hostname: string): Promise<string[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** Validates and normalises a clone address; throws RemoteRefused with the reason. */
export async function checkRemote(input: string, opts: RemoteCheckOptions): Promise<Remote> {
  const raw = input.trim();
  if (!raw) throw new RemoteRefused('must not be empty');
  if (raw.length > MAX_URL) throw new RemoteRefused(`must be at most ${MAX_URL} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f]/.test(raw)) throw new RemoteRefused('must not contain spaces or control characters');
  if (raw.startsWith('-')) throw new RemoteRefused('is not a URL');

  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (path.isAbsolute(raw)) return localPath(raw, opts);
    throw new RemoteRefused('must be an http, https or git URL');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RemoteRefused('is not a valid URL');
  }
  if (scheme === 'file') {
    if (url.host !== '' && url.host !== 'localhost') throw new RemoteRefused('file URLs must not name a host');
    return localPath(decodeURIComponent(url.pathname), opts);
  }
  if (scheme !== 'http' && scheme !== 'https' && scheme !== 'git') throw new RemoteRefused('must be an http, https or git URL');

  const username = url.username ? safeDecode(url.username) : undefined;
  const password = url.password ? safeDecode(url.password) : undefined;
  url.username = '';
  url.password = '';
  url.hash = '';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new RemoteRefused('must name a host');
  const port = url.port ? Number(url.port) : scheme === 'https' ? 443 : scheme === 'http' ? 80 : 9418;

  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.lookup ?? defaultLookup)(host);
    } catch {
      throw new RemoteRefused(`host ${host} cannot be resolved`);
    }
    if (addresses.length === 0) throw new RemoteRefused(`host ${host} cannot be resolved`);
  }
  if (!opts.allowLocal) {
    const bad = addresses.find((a) => !isPublicAddress(a));
    if (bad !== undefined) throw new RemoteRefused('refers to a local or private network address, which this server does not allow');
  }
  // git resolves a git:// host again itself (no way to pin it like curl's resolve list): a name could rebind to a
  // local address after this check, so only an address literal is accepted there.
  if (scheme === 'git' && !opts.allowLocal && !net.isIP(host)) {
    throw new RemoteRefused('git:// URLs must name an IP address on this server (use https, or the address)');
  }
  const remote: Remote = { url: url.toString(), kind: scheme === 'git' ? 'git' : 'http', username, password };
  if (scheme !== 'git' && !net.isIP(host)) {
    remote.pin = `${host}:${port}:${addresses.map((a) => (a.includes(':') ? `[${a}]` : a)).join(',')}`;
  }
  return remote;
}

async function localPath(p: string, opts: RemoteCheckOptions): Promise<Remote> {
  if (!opts.allowLocal) throw new RemoteRefused('local paths are not allowed on this server');
  let real: string;
  try {
    real = await realpath(path.resolve(p));
    if (!(await stat(real)).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new RemoteRefused('the local path does not exist');
  }
  for (const root of opts.forbiddenRoots) {
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      realRoot = path.resolve(root);
    }
    const rel = path.relative(realRoot, real);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
      throw new RemoteRefused("must not point into this server's own data directory");
    }
  }
  await checkAlternates(real, opts.forbiddenRoots);
  return { url: real, kind: 'local' };
}

/** True when `p` is `root` or inside it (both real paths). */
async function inside(p: string, roots: string[]): Promise<boolean> {
  for (const root of roots) {
    const realRoot = await realpath(root).catch(() => path.resolve(root));
    const rel = path.relative(realRoot, p);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return true;
  }
  return false;
}

/**
 * A local repository may borrow objects through `objects/info/alternates` (one path per line, relative to its
 * objects dir, followed recursively by git up to 5 levels): none of them may lead into the server's data dir, or a
 * clone of it would carry other users' (private) objects.
 */
async function checkAlternates(repo: string, forbiddenRoots: string[]): Promise<void> {
  const queue = [path.join(repo, 'objects'), path.join(repo, '.git', 'objects')];
  const seen = new Set<string>();
  for (let depth = 0; queue.length && depth < 64; depth++) {
    const objects = queue.shift()!;
    if (seen.has(objects)) continue;
    seen.add(objects);
    const text = await readFile(path.join(objects, 'info', 'alternates'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const entry = line.trim();
      if (!entry || entry.startsWith('#')) continue;
      const target = path.resolve(objects, entry.replace(/^"(.*)"$/, '$1'));
      const real = await realpath(target).catch(() => target);
      if (await inside(real, forbiddenRoots)) throw new RemoteRefused("borrows objects (objects/info/alternates) from this server's own data directory");
      queue.push(real);
    }
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}


export { isPublicAddress };
