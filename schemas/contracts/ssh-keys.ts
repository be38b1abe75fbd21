// The `ssh-keys` plugin's service: parsing SSH public keys the one way forgekit does, and finding a user's key by
// fingerprint (the SSH server's lookup). Deploy keys share the fingerprint namespace through guards.

/** A public key as parsed by the `ssh-keys` plugin (see plugins/ssh-keys/parse.ts). */
export interface ParsedPublicKey {
  /** Wire type name, e.g. `ssh-ed25519`. */
  type: string;
  bits: number;
  /** `<type> <base64>[ <comment>]`, what is stored and served. */
  line: string;
  /** `SHA256:<unpadded base64>`, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
}

/** A stored user key, as much as other plugins need of it. */
export interface UserKeyRef {
  id: number;
  ownerId: number;
  fingerprint: string;
}

/**
 * Asked before a user key is stored: the reason (422 on `key`) when another capability already uses the
 * fingerprint (a deploy key), else null.
 */
export type FingerprintGuard = (fingerprint: string) => Promise<string | null>;

export interface SshKeysService {
  /** Parses with the configured minimum sizes; throws a 422 naming `field` with the reason. */
  parse(text: string, field?: string): ParsedPublicKey;
  /** The user key with this fingerprint, if any. */
  userKeyByFingerprint(fingerprint: string): Promise<UserKeyRef | null>;
  /** Registers a guard consulted before every user key is stored. */
  addFingerprintGuard(guard: FingerprintGuard): void;
  /** What the registered guards say about a fingerprint: the first reason, or null. */
  guardReason(fingerprint: string): Promise<string | null>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    'ssh-keys': SshKeysService;
  }
}
