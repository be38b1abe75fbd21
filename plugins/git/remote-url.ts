// Which clone addresses a migration (and every later mirror sync) may use: http(s) and git URLs to public hosts;
// local paths and loopback/private addresses only when the operator allows them. Credentials never stay in the URL.
import { lookup as dnsLookup } from 'node:dns/promises';
import { realpath, stat } from 'node:fs/promises';
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
  return { url: real, kind: 'local' };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Ranges a migration must not reach unless the operator allows it: loopback, private, link-local, reserved… */
const BLOCKED = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128], ['::1', 128], ['::', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23],
  ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(net6, prefix, 'ipv6');

/** True for a globally routable unicast address. IPv4-mapped IPv6 addresses are judged by their IPv4 part. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = mappedIpv4(address);
  if (mapped !== null) return isPublicAddress(mapped);
  return !BLOCKED.check(address, 'ipv6');
}

function mappedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}
