// Native SSH public key parsing: one line (with or without authorized_keys options) or an RFC 4716 block in,
// the normalised "<type> <base64> <comment>" line, size and SHA256 fingerprint out; every refusal says why.
import { createHash, createPublicKey } from 'node:crypto';
import sshpk from 'sshpk';

/** Minimum sizes per key family; -1 (or a family missing from the map) refuses the family. */
export interface MinimumSizes {
  ed25519?: number;
  ecdsa?: number;
  rsa?: number;
  dsa?: number;
}

export type KeyFamily = 'ed25519' | 'ecdsa' | 'rsa' | 'dsa';

export interface ParsedSshKey {
  /** Wire type name, e.g. `ssh-ed25519`. */
  type: string;
  family: KeyFamily;
  /** Key size in bits as `ssh-keygen -l` reports it. */
  bits: number;
  /** Canonical base64 of the wire blob. */
  base64: string;
  comment: string;
  /** `<type> <base64>[ <comment>]`, what is stored and served. */
  line: string;
  /** `SHA256:<unpadded base64>`, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
}

/** A key the user sent cannot be accepted; `message` is the reason shown in the 422. */
export class SshKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SshKeyError';
  }
}

const FAMILY_OF: Record<string, KeyFamily> = {
  'ssh-ed25519': 'ed25519',
  'ecdsa-sha2-nistp256': 'ecdsa',
  'ecdsa-sha2-nistp384': 'ecdsa',
  'ecdsa-sha2-nistp521': 'ecdsa',
  'ssh-rsa': 'rsa',
  'ssh-dss': 'dsa',
};

/** Type names OpenSSH knows that we refuse with "unsupported" rather than "not a key". */
const OTHER_KNOWN_TYPES = new Set([
  'sk-ssh-ed25519@openssh.com', 'sk-ecdsa-sha2-nistp256@openssh.com', 'ssh-ed448',
  'ssh-rsa-cert-v01@openssh.com', 'ssh-dss-cert-v01@openssh.com', 'ssh-ed25519-cert-v01@openssh.com',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com', 'ecdsa-sha2-nistp384-cert-v01@openssh.com',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com', 'sk-ssh-ed25519-cert-v01@openssh.com',
  'sk-ecdsa-sha2-nistp256-cert-v01@openssh.com', 'rsa-sha2-256', 'rsa-sha2-512',
]);

const EC_CURVES: Record<string, { curve: string; bits: number; pointLength: number }> = {
  'ecdsa-sha2-nistp256': { curve: 'nistp256', bits: 256, pointLength: 65 },
  'ecdsa-sha2-nistp384': { curve: 'nistp384', bits: 384, pointLength: 97 },
  'ecdsa-sha2-nistp521': { curve: 'nistp521', bits: 521, pointLength: 133 },
};

export const SUPPORTED_TYPES = Object.keys(FAMILY_OF);

const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;
const TYPE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9.@_+-]{0,63}$/;
const PRIVATE_RE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----|^PuTTY-User-Key-File-/m;
const RFC4716_BEGIN = '---- BEGIN SSH2 PUBLIC KEY ----';
const RFC4716_END = '---- END SSH2 PUBLIC KEY ----';

/** Parses what a user pasted and checks it against the configured minimum sizes. Throws SshKeyError. */
export function parseSshPublicKey(input: string, minimumSizes: MinimumSizes): ParsedSshKey {
  const text = input.replace(/\r\n?/g, '\n').trim();
  if (text === '') throw new SshKeyError('the key is empty');
  if (PRIVATE_RE.test(text)) {
    throw new SshKeyError('this is a private key; never share it: paste the public key (the .pub file) instead');
  }
  let raw: { type: string | null; base64: string; comment: string };
  if (text.includes(RFC4716_BEGIN) || text.includes(RFC4716_END)) {
    raw = parseRfc4716(text);
  } else {
    const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
    if (lines.length > 1) {
      const keyish = lines.filter((l) => looksLikeKeyLine(l)).length;
      if (keyish > 1) throw new SshKeyError('only one key may be added at a time; add each key on its own');
      throw new SshKeyError('the key must be a single line ("<type> <base64> [comment]") or an RFC 4716 block');
    }
    raw = parseLine(lines[0] ?? '');
  }
  return decodeAndCheck(raw, minimumSizes);
}

/** Whether a line holds something that looks like a public key (used only to word the two-keys refusal). */
function looksLikeKeyLine(line: string): boolean {
  return /(^|\s)[A-Za-z0-9][A-Za-z0-9.@_+-]*-[A-Za-z0-9.@_+-]*\s+AAAA[A-Za-z0-9+/]/.test(line)
    || /^AAAA[A-Za-z0-9+/]{8,}/.test(line);
}

/** `[options] [type] base64 [comment]` → parts (not yet decoded). */
function parseLine(line: string, allowOptions = true): { type: string | null; base64: string; comment: string } {
  const m = /^(\S+)(?:\s+(\S+))?(?:\s+([\s\S]*))?$/.exec(line);
  if (!m) throw new SshKeyError('not an SSH public key');
  const [, first, second, rest] = m as unknown as [string, string, string | undefined, string | undefined];
  // Wire blobs start with a 4-byte big-endian length < 2^24, so their base64 starts with "AAAA".
  if (first.startsWith('AAAA') && BASE64_RE.test(first)) {
    return { type: null, base64: first, comment: [second, rest].filter(Boolean).join(' ') };
  }
  if (TYPE_NAME_RE.test(first) && (isKnownType(first) || (second !== undefined && second.startsWith('AAAA')))) {
    if (second === undefined) throw new SshKeyError(`the key data after "${first}" is missing`);
    return { type: first, base64: second, comment: rest ?? '' };
  }
  if (allowOptions) {
    const afterOptions = skipOptions(line);
    if (afterOptions !== null && afterOptions !== '') return parseLine(afterOptions, false);
  }
  throw new SshKeyError('not an SSH public key: expected "<type> <base64> [comment]", e.g. the contents of ~/.ssh/id_ed25519.pub');
}

function isKnownType(name: string): boolean {
  return name in FAMILY_OF || OTHER_KNOWN_TYPES.has(name);
}

/** Skips an authorized_keys options field (commas, `name="quoted value"` with `\"` escapes); null if malformed. */
function skipOptions(line: string): string | null {
  let inQuotes = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (inQuotes) {
      if (c === '\\' && line[i + 1] === '"') i++;
      else if (c === '"') inQuotes = false;
    } else if (c === '"') {
      inQuotes = true;
    } else if (c === ' ' || c === '\t') {
      return line.slice(i).trim();
    }
  }
  return null; // unterminated quote, or options with no key after them
}

/** An RFC 4716 block: BEGIN line, `Tag: value` headers (with `\` continuations), base64 body, END line. */
function parseRfc4716(text: string): { type: null; base64: string; comment: string } {
  const begins = text.split(RFC4716_BEGIN).length - 1;
  if (begins > 1) throw new SshKeyError('only one key may be added at a time; add each key on its own');
  const lines = text.split('\n').map((l) => l.trim());
  if (lines[0] !== RFC4716_BEGIN || lines[lines.length - 1] !== RFC4716_END) {
    throw new SshKeyError(`an RFC 4716 key must start with "${RFC4716_BEGIN}" and end with "${RFC4716_END}"`);
  }
  const body = lines.slice(1, -1);
  let comment = '';
  let i = 0;
  // Headers come first; a header value continues onto the next line when it ends with a backslash.
  while (i < body.length && /^[\x21-\x39\x3b-\x7e]{1,64}:/.test(body[i]!)) {
    let header = body[i]!;
    while (header.endsWith('\\') && i + 1 < body.length) header = header.slice(0, -1) + body[++i]!;
    i++;
    const colon = header.indexOf(':');
    if (header.slice(0, colon).toLowerCase() === 'comment') {
      comment = header.slice(colon + 1).trim().replace(/^"(.*)"$/, '$1');
    }
  }
  const base64 = body.slice(i).join('');
  if (base64 === '') throw new SshKeyError('the RFC 4716 block holds no key data');
  if (!BASE64_RE.test(base64)) throw new SshKeyError('the key data is not valid base64');
  return { type: null, base64, comment };
}

/** Reads the SSH wire format: uint32 length-prefixed strings. */
class WireReader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}
  string(what: string): Buffer {
    if (this.offset + 4 > this.buf.length) throw new SshKeyError(`the key data is truncated (no room for the ${what})`);
    const len = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    if (len > this.buf.length - this.offset) throw new SshKeyError(`the key data is truncated (the ${what} is cut short)`);
    const out = this.buf.subarray(this.offset, this.offset + len);
    this.offset += len;
    return out;
  }
  get done(): boolean {
    return this.offset === this.buf.length;
  }
}

function bitLength(mpint: Buffer): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  if (i === mpint.length) return 0;
  return (mpint.length - i - 1) * 8 + (32 - Math.clz32(mpint[i]!));
}

function decodeAndCheck(raw: { type: string | null; base64: string; comment: string }, minimumSizes: MinimumSizes): ParsedSshKey {
  if (raw.type !== null && !isKnownType(raw.type) && !TYPE_NAME_RE.test(raw.type)) throw new SshKeyError('not an SSH public key');
  if (!BASE64_RE.test(raw.base64) || raw.base64.length % 4 !== 0) {
    throw new SshKeyError('the key data is truncated or is not valid base64');
  }
  const blob = Buffer.from(raw.base64, 'base64');
  const reader = new WireReader(blob);
  const typeBytes = reader.string('key type');
  const blobType = typeBytes.toString('latin1');
  if (!TYPE_NAME_RE.test(blobType)) throw new SshKeyError('the key data is corrupt (no key type inside)');
  if (raw.type !== null && raw.type !== blobType) {
    throw new SshKeyError(`the key type "${raw.type}" does not match the key data, which is "${blobType}"`);
  }
  const family = FAMILY_OF[blobType];
  if (!family) {
    throw new SshKeyError(`unsupported key type "${blobType}"; supported: ${SUPPORTED_TYPES.join(', ')}`);
  }

  let bits: number;
  switch (family) {
    case 'rsa': {
      reader.string('RSA exponent');
      bits = bitLength(reader.string('RSA modulus'));
      break;
    }
    case 'dsa': {
      bits = bitLength(reader.string('DSA p'));
      reader.string('DSA q');
      reader.string('DSA g');
      reader.string('DSA public value');
      break;
    }
    case 'ecdsa': {
      const spec = EC_CURVES[blobType]!;
      const curve = reader.string('curve name').toString('latin1');
      if (curve !== spec.curve) throw new SshKeyError(`the key data is corrupt (curve "${curve.slice(0, 32)}" inside a ${blobType} key)`);
      const point = reader.string('curve point');
      if (point.length !== spec.pointLength || point[0] !== 4) throw new SshKeyError('the key data is corrupt (bad curve point)');
      bits = spec.bits;
      break;
    }
    case 'ed25519': {
      const pk = reader.string('ed25519 public key');
      if (pk.length !== 32) throw new SshKeyError('the key data is corrupt (an ed25519 key is 32 bytes)');
      bits = 256;
      break;
    }
  }
  if (!reader.done) throw new SshKeyError('the key data is corrupt (unexpected bytes after the key)');
  // Let OpenSSL check the numbers themselves (e.g. that an ECDSA point lies on its curve).
  try {
    const key = sshpk.parseKey(blob, 'rfc4253');
    createPublicKey(key.toString('pkcs8'));
  } catch {
    throw new SshKeyError(`the key data is not a valid ${blobType} public key`);
  }

  const minimum = minimumSizes[family];
  if (minimum === undefined || minimum < 0) throw new SshKeyError(`key type "${blobType}" is not allowed on this server`);
  if (bits < minimum) throw new SshKeyError(`the key is too short: ${bits} bits, this server needs at least ${minimum} for ${family}`);

  const base64 = blob.toString('base64');
  const comment = cleanComment(raw.comment);
  return {
    type: blobType,
    family,
    bits,
    base64,
    comment,
    line: comment ? `${blobType} ${base64} ${comment}` : `${blobType} ${base64}`,
    fingerprint: fingerprintOf(blob),
  };
}

/** Control characters never reach authorized_keys or the plain-text endpoint. */
function cleanComment(comment: string): string {
  // eslint-disable-next-line no-control-regex
  return comment.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '').replace(/\t/g, ' ').trim();
}

export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}
