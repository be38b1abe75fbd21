// The `gpg-keys` plugin's service as other plugins see it: finding the uploaded key that made a signature.
export interface SigningKey {
  /** The account that uploaded the key. */
  ownerId: number;
  /** Upper-case hex id of the key (primary or subkey) that matched. */
  keyId: string;
  /** The primary key's id (the same as keyId when the primary itself matched). */
  primaryKeyId: string;
  /** The whole public key (primary, subkeys, user ids) as binary OpenPGP, base64. */
  content: string;
  /** Lower-cased addresses of the key's self-certified user ids. */
  emails: string[];
  canSign: boolean;
  /** RFC 3339, or null when the key never expires. */
  expiresAt: string | null;
}

export interface GpgKeysService {
  /** The uploaded key (or subkey) with this 16-hex-digit id, with its primary's public key; null when none. */
  signingKey(keyId: string): Promise<SigningKey | null>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    'gpg-keys': GpgKeysService;
  }
}
