// The service other plugins use (schemas/contracts/gpg-keys.ts): the uploaded key behind a signature's key id,
// for commit and tag verification by the contents plugin.
import type { Store } from '../../core/store/port.js';
import type { GpgKeysService, SigningKey } from '../../schemas/contracts/gpg-keys.js';
import type { GpgKeyDoc } from './convert.js';

export function gpgKeysService(store: Store, collection: string): GpgKeysService {
  const keys = store.collection<GpgKeyDoc>(collection);
  return {
    async signingKey(keyId: string): Promise<SigningKey | null> {
      if (!/^[0-9A-Fa-f]{16}$/.test(keyId)) return null;
      const row = await keys.findOne({ keyId: keyId.toUpperCase() });
      if (!row) return null;
      const primary = row.primaryKeyId ? await keys.findOne({ keyId: row.primaryKeyId, primaryKeyId: '' }) : row;
      if (!primary) return null;
      return {
        ownerId: row.ownerId, keyId: row.keyId, primaryKeyId: primary.keyId, content: primary.content,
        emails: primary.uidEmails, canSign: row.canSign, expiresAt: row.expiresAt,
      };
    },
  };
}
