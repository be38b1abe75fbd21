// Stored GPG key rows → the API GPGKey resource (the only place that shape is made).
import type { EmailAddress } from '../../schemas/services.js';
import type { GpgKeyInfo } from './parse.js';

/**
 * What the `gpg_keys` collection holds: one row per primary key and one per subkey, with the parsed key's ids,
 * public-key packet and capabilities as they are.
 */
export interface GpgKeyDoc extends Omit<GpgKeyInfo, 'createdAt' | 'expiresAt'> {
  [key: string]: unknown;
  id: number;
  ownerId: number;
  /** "" for a primary key; the primary's key id for a subkey. */
  primaryKeyId: string;
  /** The key packet's creation time (RFC 3339). */
  createdAt: string;
  expiresAt: string | null;
  /** Primary rows: the lower-cased addresses of the key's self-certified user ids. Subkeys: []. */
  uidEmails: string[];
  /** Primary rows: the whole public key (binary, base64) for the `.gpg` export. Subkeys: "". */
  content: string;
  /** When it was added. */
  addedAt: string;
}

export interface ApiGpgKey {
  id: number;
  primary_key_id: string;
  key_id: string;
  public_key: string;
  emails: Array<{ email: string; verified: boolean }>;
  subkeys: ApiGpgKey[];
  can_sign: boolean;
  can_encrypt_comms: boolean;
  can_encrypt_storage: boolean;
  can_certify: boolean;
  created_at: string;
  expires_at: string | null;
  /** The key's identity is an address its owner verified (computed when shown, like `emails`). */
  verified: boolean;
}

/** The key's user-id addresses that its owner has, as the owner spelled them, with their verification. */
function ownedEmails(doc: GpgKeyDoc, ownerEmails: EmailAddress[]): ApiGpgKey['emails'] {
  const emails: ApiGpgKey['emails'] = [];
  if (doc.uidEmails.length === 0) return emails;
  const byLower = new Map(ownerEmails.map((e) => [e.email.toLowerCase(), e]));
  for (const address of doc.uidEmails) {
    const owned = byLower.get(address);
    if (owned) emails.push({ email: owned.email, verified: owned.verified });
  }
  return emails;
}

/**
 * The GPGKey resource from its row, its subkey rows and the owner's addresses. `emails` is computed when shown: the
 * key's addresses that are (still) addresses of the owner, with their current `verified` state. Subkeys carry
 * `emails: []` and `subkeys: []` (arrays, never null).
 */
export function toApiGpgKey(doc: GpgKeyDoc, subkeys: GpgKeyDoc[], ownerEmails: EmailAddress[], primaryVerified?: boolean): ApiGpgKey {
  const emails = ownedEmails(doc, ownerEmails);
  // Verified when one of the key's identities is a verified address of its owner; subkeys share their primary's.
  const verified = primaryVerified ?? emails.some((e) => e.verified);
  return {
    id: doc.id,
    primary_key_id: doc.primaryKeyId,
    key_id: doc.keyId,
    public_key: doc.publicKey,
    emails,
    subkeys: subkeys.map((s) => toApiGpgKey(s, [], [], verified)),
    can_sign: doc.canSign,
    can_encrypt_comms: doc.canEncryptComms,
    can_encrypt_storage: doc.canEncryptStorage,
    can_certify: doc.canCertify,
    created_at: doc.createdAt,
    expires_at: doc.expiresAt,
    verified,
  };
}
