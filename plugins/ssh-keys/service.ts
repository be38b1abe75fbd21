// The ssh-keys service: one parser for every SSH public key forgekit accepts, and fingerprint lookups.
import { fail } from '../../core/errors.js';
import type { PluginContext } from '../../core/plugin.js';
import type { FingerprintGuard, ParsedPublicKey, SshKeysService, UserKeyRef } from '../../schemas/contracts/ssh-keys.js';
import type { SshKeyDoc } from './convert.js';
import { parseSshPublicKey, SshKeyError, type MinimumSizes } from './parse.js';

export const COLLECTION = 'public_keys';

export function createSshKeysService(ctx: PluginContext): SshKeysService {
  const guards: FingerprintGuard[] = [];
  const keys = ctx.store.collection<SshKeyDoc>(COLLECTION);
  return {
    parse(text: string, field = 'key'): ParsedPublicKey {
      try {
        const parsed = parseSshPublicKey(text, ctx.settings.minimumSizes as MinimumSizes);
        return { type: parsed.type, bits: parsed.bits, line: parsed.line, fingerprint: parsed.fingerprint };
      } catch (err) {
        if (err instanceof SshKeyError) throw fail.validation(field, err.message);
        throw err;
      }
    },
    async userKeyByFingerprint(fingerprint: string): Promise<UserKeyRef | null> {
      const doc = await keys.findOne({ fingerprint });
      return doc ? { id: doc.id, ownerId: doc.ownerId, fingerprint: doc.fingerprint } : null;
    },
    addFingerprintGuard(guard: FingerprintGuard): void {
      guards.push(guard);
    },
    async guardReason(fingerprint: string): Promise<string | null> {
      for (const guard of guards) {
        const reason = await guard(fingerprint);
        if (reason) return reason;
      }
      return null;
    },
  };
}
