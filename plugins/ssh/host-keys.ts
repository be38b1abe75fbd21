// The server's host keys: generated on first start under the data dir (ed25519, plus RSA for old clients), kept
// private (0700 directory, 0600 files), read on every later start.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ssh2 from 'ssh2';

export interface HostKey {
  type: 'ed25519' | 'rsa';
  privateKey: Buffer;
  /** `SHA256:<unpadded base64>`, as `ssh-keygen -lf` and the client's known_hosts prompt show it. */
  fingerprint: string;
  /** The public key line, for known_hosts. */
  publicLine: string;
}

const KINDS = [
  { type: 'ed25519', file: 'ssh_host_ed25519_key' },
  { type: 'rsa', file: 'ssh_host_rsa_key' },
] as const;

export async function loadOrCreateHostKeys(dir: string): Promise<HostKey[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const keys: HostKey[] = [];
  for (const kind of KINDS) {
    const file = path.join(dir, kind.file);
    let pem: Buffer;
    try {
      pem = await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const pair = generateKeyPair(kind.type);
      // `wx`: two processes starting at once never overwrite each other's key; the loser reads the winner's.
      try {
        await writeFile(file, pair.private, { mode: 0o600, flag: 'wx' });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      pem = await readFile(file);
    }
    await chmod(file, 0o600);
    const parsed = ssh2.utils.parseKey(pem);
    if (parsed instanceof Error) throw new Error(`cannot read SSH host key ${file}: ${parsed.message}`);
    const blob = parsed.getPublicSSH();
    keys.push({
      type: kind.type,
      privateKey: pem,
      fingerprint: fingerprintOf(blob),
      publicLine: `${parsed.type} ${blob.toString('base64')}`,
    });
  }
  return keys;
}

type Generate = (type: HostKey['type']) => { private: string; public: string };

const ssh2Generate: Generate = (type) =>
  type === 'rsa' ? ssh2.utils.generateKeyPairSync('rsa', { bits: 3072 }) : ssh2.utils.generateKeyPairSync('ed25519');

/**
 * A key pair that ssh2 itself can read back. ssh2's generator strips every leading zero byte of an ed25519 public key,
 * so about one key in 256 comes out 31 bytes long and `parseKey` rejects it (mscdex/ssh2#1390, #1513, open): such a
 * pair is thrown away and another drawn.
 */
export function generateKeyPair(type: HostKey['type'], generate: Generate = ssh2Generate): { private: string; public: string } {
  for (let attempt = 1; ; attempt++) {
    const pair = generate(type);
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) && !(ssh2.utils.parseKey(pair.public) instanceof Error)) return pair;
    // Eight unreadable pairs in a row (odds 1 in 2^64 from the bug above) means the generator itself is broken.
    if (attempt === 8) throw new Error(`cannot generate a readable ${type} key pair`);
  }
}

export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}
