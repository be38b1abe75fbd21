// Stored SSH key document → the API PublicKey resource (the only place that shape is made).
import type { Urls } from '../../core/plugin.js';
import type { ApiUser } from '../../schemas/services.js';

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
  /** Gitea's private information: only for the key's owner and site admins. */
  key_type?: 'user';
  read_only?: boolean;
  user?: ApiUser;
}

/** The key with Gitea's private information (key_type, read_only, the owner): for its owner and site admins. */
export function toApiKeyPrivate(doc: SshKeyDoc, urls: Urls, owner: ApiUser): ApiPublicKey {
  // User keys always grant what their owner may do; read-only keys are deploy keys (another capability).
  return { ...toApiKey(doc, urls), key_type: 'user', read_only: false, user: owner };
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
