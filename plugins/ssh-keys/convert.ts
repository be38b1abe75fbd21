// Stored SSH key document → the API PublicKey resource (the only place that shape is made).
import type { Urls } from '../../core/plugin.js';

/** What the `public_keys` collection holds. */
export interface SshKeyDoc {
  [key: string]: unknown;
  id: number;
  ownerId: number;
  title: string;
  /** The normalised line "<type> <base64> <comment>". */
  content: string;
  fingerprint: string;
  type: string;
  bits: number;
  createdAt: string;
}

export interface ApiPublicKey {
  id: number;
  key: string;
  url: string;
  title: string;
  fingerprint: string;
  created_at: string;
}

export function toApiKey(doc: SshKeyDoc, urls: Urls): ApiPublicKey {
  return {
    id: doc.id,
    key: doc.content,
    url: `${urls.api}user/keys/${doc.id}`,
    title: doc.title,
    fingerprint: doc.fingerprint,
    created_at: doc.createdAt,
  };
}
