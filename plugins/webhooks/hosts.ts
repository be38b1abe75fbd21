// Which webhook targets may be reached, in Gitea's vocabulary (webhook.ALLOWED_HOST_LIST): a comma list of
// `loopback`, `private`, `external`, `*`, host globs and CIDRs. An address is allowed when any entry allows it; a host
// name matched by a glob is allowed whatever it resolves to (the operator named it).
import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';
import { isPublicAddress } from '../lib/addresses.js';
import { compileGlob } from '../lib/glob.js';

export type LookupFn = (hostname: string) => Promise<string[]>;

export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

function blockList(v4: Array<[string, number]>, v6: Array<[string, number]>): net.BlockList {
  const list = new net.BlockList();
  for (const [a, p] of v4) list.addSubnet(a, p, 'ipv4');
  for (const [a, p] of v6) list.addSubnet(a, p, 'ipv6');
  return list;
}

const LOOPBACK = blockList([['127.0.0.0', 8]], [['::1', 128]]);
/** Go's net.IP.IsPrivate (what Gitea's `private` means): RFC 1918 and RFC 4193. */
const PRIVATE = blockList([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]], [['fc00::', 7]]);

function family(address: string): 'ipv4' | 'ipv6' | null {
  const f = net.isIP(address);
  return f === 4 ? 'ipv4' : f === 6 ? 'ipv6' : null;
}

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged by its IPv4 part. */
function unmap(address: string): string {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return address;
}

export function isLoopback(address: string): boolean {
  const a = unmap(address);
  const f = family(a);
  return f !== null && LOOPBACK.check(a, f);
}

export function isPrivate(address: string): boolean {
  const a = unmap(address);
  const f = family(a);
  return f !== null && PRIVATE.check(a, f);
}

/** Globally routable unicast only: the same classifier as migration sources (ipaddr.js, IPv4-translated forms too). */
export function isExternal(address: string): boolean {
  return isPublicAddress(address);
}

export class HostMatchList {
  private readonly any: boolean = false;
  private readonly builtins = new Set<'loopback' | 'private' | 'external'>();
  private readonly globs: RegExp[] = [];
  private readonly nets = new net.BlockList();
  private hasNets = false;

  /** Parses the list; throws with the bad entry named (boot fails on a bad setting). */
  constructor(readonly source: string) {
    for (const raw of source.split(',')) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry === '*') this.any = true;
      else if (entry === 'loopback' || entry === 'private' || entry === 'external') this.builtins.add(entry);
      else if (entry.includes('/') && family(entry.split('/')[0]!) !== null) {
        const [addr, bits] = entry.split('/') as [string, string];
        const f = family(addr)!;
        const prefix = Number(bits);
        if (!/^\d+$/.test(bits) || prefix > (f === 'ipv4' ? 32 : 128)) throw new Error(`invalid CIDR "${entry}"`);
        this.nets.addSubnet(addr, prefix, f);
        this.hasNets = true;
      } else {
        try {
          this.globs.push(compileGlob(entry));
        } catch (err) {
          throw new Error(`invalid host pattern "${entry}": ${(err as Error).message}`);
        }
      }
    }
  }

  /** Whether a host name (or `host:port`) is named by a glob of the list. */
  matchesName(hostname: string, port: number): boolean {
    const host = hostname.toLowerCase();
    return this.globs.some((g) => g.test(host) || g.test(`${host}:${port}`));
  }

  allowsAddress(address: string): boolean {
    if (this.any) return true;
    if (this.builtins.has('loopback') && isLoopback(address)) return true;
    if (this.builtins.has('private') && isPrivate(address)) return true;
    if (this.builtins.has('external') && isExternal(address)) return true;
    if (this.hasNets) {
      const a = unmap(address);
      const f = family(a);
      if (f && this.nets.check(a, f)) return true;
    }
    return this.globs.some((g) => g.test(address.toLowerCase()));
  }
}

export interface Target {
  url: URL;
  hostname: string;
  port: number;
  /** The checked address the request connects to (no second DNS answer can swap it). */
  address: string;
  family: 4 | 6;
}

async function defaultLookup(hostname: string): Promise<string[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** Syntax only: an absolute http(s) URL without credentials. Throws TargetRefused with the reason. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefused('must be an http or https URL');
  if (url.username || url.password) throw new TargetRefused('must not carry credentials (use authorization_header)');
  if (!url.hostname) throw new TargetRefused('must name a host');
  return url;
}

/**
 * Resolves and checks a target: the address to connect to, or TargetRefused with the reason. With `lenientDns` a
 * name that does not resolve (now) passes (creation time: the delivery checks again).
 */
export async function checkTarget(raw: string, allowed: HostMatchList, lookup: LookupFn = defaultLookup, lenientDns = false): Promise<Target | null> {
  const url = parseTargetUrl(raw);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  let addresses: string[];
  if (net.isIP(hostname)) addresses = [hostname];
  else {
    try {
      addresses = await lookup(hostname);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) {
      if (lenientDns) return null;
      throw new TargetRefused(`host ${hostname} cannot be resolved`);
    }
  }
  const named = !net.isIP(hostname) && allowed.matchesName(hostname, port);
  const usable = named ? addresses : addresses.filter((a) => allowed.allowsAddress(a));
  if (usable.length === 0) {
    throw new TargetRefused(`${hostname} resolves to ${addresses[0]}, which webhook.ALLOWED_HOST_LIST ("${allowed.source}") does not allow`);
  }
  const address = usable[0]!;
  return { url, hostname, port, address, family: net.isIP(address) === 6 ? 6 : 4 };
}
