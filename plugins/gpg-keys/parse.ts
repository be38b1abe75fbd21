// OpenPGP public key parsing with openpgp.js: the first key of an armored block → primary and subkey records
// (ids from the fingerprint, capabilities from the key flags, each key's own expiry) plus its self-certified emails.
import * as openpgp from 'openpgp';

export interface GpgKeyInfo {
  /** Upper-case hex key id (the last 16 hex digits of a v4 fingerprint). */
  keyId: string;
  /** Upper-case hex fingerprint. */
  fingerprint: string;
  /** Base64 of the key's own public-key packet (new-format header + body), as the reference server shows it. */
  publicKey: string;
  canSign: boolean;
  canEncryptComms: boolean;
  canEncryptStorage: boolean;
  canCertify: boolean;
  createdAt: Date;
  /** null when the key never expires. */
  expiresAt: Date | null;
}

export interface ParsedGpgKey {
  primary: GpgKeyInfo;
  subkeys: GpgKeyInfo[];
  /** Addresses of the user ids with a valid self-certification, lower-cased, in key order, no duplicates. */
  emails: string[];
  /** The whole public key (user ids and signatures included), binary, for the `.gpg` export. */
  binary: Uint8Array;
}

export class GpgKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpgKeyError';
  }
}

const PRIVATE_ARMOR_RE = /-----BEGIN PGP PRIVATE KEY BLOCK-----/;
const PUBLIC_ARMOR_RE = /-----BEGIN PGP PUBLIC KEY BLOCK-----/;
const F = openpgp.enums.keyFlags;
const A = openpgp.enums.publicKey;

/** Parses an armored public key block (first key only) and checks its self-signatures. Throws GpgKeyError. */
export async function parseGpgPublicKey(armored: string): Promise<ParsedGpgKey> {
  const text = armored.replace(/\r\n?/g, '\n').trim();
  if (PRIVATE_ARMOR_RE.test(text)) {
    throw new GpgKeyError('this is a private key block; never share it: export the public key with `gpg --armor --export <id>`');
  }
  if (!PUBLIC_ARMOR_RE.test(text)) {
    throw new GpgKeyError('not an armored OpenPGP public key block ("-----BEGIN PGP PUBLIC KEY BLOCK-----")');
  }
  let key: openpgp.Key;
  try {
    const keys = await openpgp.readKeys({ armoredKeys: text });
    key = keys[0]!;
  } catch (err) {
    // A public armor header around secret-key packets is refused as private, never stored.
    if (/secret|private/i.test(String((err as Error)?.message))) throw new GpgKeyError('the block holds private key material; export the public key only');
    throw new GpgKeyError('the key could not be parsed as an OpenPGP public key');
  }
  if (!key || key.isPrivate()) throw new GpgKeyError('the block holds private key material; export the public key only');

  // date=null: check the signatures themselves, not whether they are valid today (expired keys are kept, with their expiry).
  let primaryUser: Awaited<ReturnType<openpgp.Key['getPrimaryUser']>>;
  try {
    primaryUser = await key.getPrimaryUser(null as unknown as Date);
  } catch {
    throw new GpgKeyError('the key has no user id with a valid self-signature');
  }
  const selfCert = primaryUser.selfCertification;
  const primaryPacket = key.keyPacket as openpgp.PublicKeyPacket;
  const flags = selfCert.keyFlags?.[0] ?? (await directKeyFlags(key, primaryPacket));
  const primary = info(primaryPacket, flags, true, lifetimeEnd(primaryPacket, selfCert));

  const subkeys: GpgKeyInfo[] = [];
  for (const subkey of key.subkeys) {
    let binding: openpgp.SignaturePacket;
    try {
      binding = await subkey.verify(null as unknown as Date);
    } catch {
      continue; // a subkey without a valid binding signature is not part of the key
    }
    const packet = subkey.keyPacket as openpgp.PublicSubkeyPacket;
    subkeys.push(info(packet, binding.keyFlags?.[0], false, lifetimeEnd(packet, binding)));
  }

  const emails: string[] = [];
  for (const user of key.users) {
    if (!user.userID) continue;
    try {
      await user.verify(null as unknown as Date);
    } catch {
      continue; // unsigned or badly signed user ids claim nothing
    }
    const email = (user.userID.email || emailOf(user.userID.userID)).toLowerCase();
    if (email && !emails.includes(email)) emails.push(email);
  }
  return { primary, subkeys, emails, binary: key.toPublic().write() };
}

/** Key flags from the newest valid direct-key signature (where RFC 9580 keys put them), if any. */
async function directKeyFlags(key: openpgp.Key, packet: openpgp.PublicKeyPacket): Promise<number | undefined> {
  // Not in the typings, but a documented part of the Key structure.
  const sigs = ((key as unknown as { directSignatures?: openpgp.SignaturePacket[] }).directSignatures ?? [])
    .slice().sort((a, b) => (b.created?.getTime() ?? 0) - (a.created?.getTime() ?? 0));
  for (const sig of sigs) {
    if (sig.keyFlags?.[0] === undefined) continue;
    try {
      await sig.verify(packet, openpgp.enums.signature.key, { key: packet }, null as unknown as Date);
      return sig.keyFlags[0];
    } catch {
      // an invalid signature says nothing
    }
  }
  return undefined;
}

/** `Name <addr>` or a bare address. */
function emailOf(userId: string): string {
  const m = /<([^<>\s]+@[^<>\s]+)>/.exec(userId) ?? /^\s*([^<>\s]+@[^<>\s]+)\s*$/.exec(userId);
  return m ? m[1]! : '';
}

/** Creation time + the signature's key lifetime, or null when it never expires. */
function lifetimeEnd(packet: openpgp.PublicKeyPacket | openpgp.PublicSubkeyPacket, sig: openpgp.SignaturePacket): Date | null {
  const secs = sig.keyNeverExpires ? 0 : sig.keyExpirationTime ?? 0;
  return secs > 0 ? new Date(packet.created.getTime() + secs * 1000) : null;
}

function info(packet: openpgp.PublicKeyPacket | openpgp.PublicSubkeyPacket, flags: number | undefined, isPrimary: boolean, expiresAt: Date | null): GpgKeyInfo {
  const algo = packet.algorithm;
  // Without a key-flags subpacket (very old keys) fall back to what the algorithm can do.
  const algoSigns = algo === A.rsaEncryptSign || algo === A.rsaSign || algo === A.dsa || algo === A.ecdsa || algo === A.eddsaLegacy || algo === A.ed25519 || algo === A.ed448;
  const algoEncrypts = algo === A.rsaEncryptSign || algo === A.rsaEncrypt || algo === A.elgamal || algo === A.ecdh || algo === A.x25519 || algo === A.x448;
  const has = (bit: number, fallback: boolean) => (flags === undefined ? fallback : (flags & bit) !== 0);
  const packets = new openpgp.PacketList<openpgp.AnyPacket>();
  packets.push(packet);
  return {
    keyId: packet.getKeyID().toHex().toUpperCase(),
    fingerprint: packet.getFingerprint().toUpperCase(),
    publicKey: Buffer.from(packets.write() as Uint8Array).toString('base64'),
    canSign: has(F.signData, algoSigns),
    canEncryptComms: has(F.encryptCommunication, algoEncrypts),
    canEncryptStorage: has(F.encryptStorage, algoEncrypts),
    canCertify: has(F.certifyKeys, isPrimary && algoSigns),
    createdAt: packet.created,
    expiresAt,
  };
}

/** One armored block holding every given key (binary key packets concatenated), for `GET /{username}.gpg`. */
export function armorKeys(binaries: Uint8Array[]): string {
  const total = binaries.reduce((n, b) => n + b.length, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const b of binaries) {
    all.set(b, at);
    at += b.length;
  }
  return openpgp.armor(openpgp.enums.armor.publicKey, all);
}
