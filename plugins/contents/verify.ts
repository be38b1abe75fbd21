// Commit and tag signature verification against the keys users uploaded (gpg-keys service), with openpgp.js, as
// Gitea reports it: verified only when the signature checks out with an uploaded signing key AND the committer's
// email is one of the key's addresses that is also an address of the key's owner.
// openpgp.js (~70 ms to load) is imported with the first signature checked.
import type * as OpenPgp from 'openpgp';
import type { PluginContext } from '../../core/plugin.js';
import type { GpgKeysService } from '../../schemas/contracts/gpg-keys.js';
import '../../schemas/contracts/gpg-keys.js';
import { unsignedVerification, type Verification } from './convert.js';
import { Lru } from '../lib/lru.js';
import type { ParsedCommit, ParsedTag } from './git-read.js';

/** Results by object id (an object's signature never changes; keys can, so entries expire). */
const cache = new Lru<string, { at: number; value: Verification }>(10_000);
const CACHE_MS = 60_000;

export function makeVerifier(ctx: PluginContext): (obj: ParsedCommit | ParsedTag) => Promise<Verification> {
  return async (obj) => {
    if (!obj.signature) return unsignedVerification();
    const hit = cache.get(obj.sha);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
    const value = await verify(ctx, obj);
    cache.set(obj.sha, { at: Date.now(), value });
    return value;
  };
}

async function verify(ctx: PluginContext, obj: ParsedCommit | ParsedTag): Promise<Verification> {
  const base = { verified: false, signature: obj.signature!, payload: obj.payload, signer: null };
  if (!ctx.services.has('gpg-keys')) return { ...base, reason: 'gpg.error.no_gpg_keys_found' };
  const keys: GpgKeysService = ctx.services.get('gpg-keys');
  const openpgp = await import('openpgp');
  let signature: OpenPgp.Signature;
  try {
    signature = await openpgp.readSignature({ armoredSignature: obj.signature! });
  } catch {
    return { ...base, reason: 'gpg.error.extract_sign' };
  }
  const ids = signature.getSigningKeyIDs().map((k) => k.toHex().toUpperCase());
  const signerEmail = ('committer' in obj ? obj.committer.email : obj.tagger?.email ?? '').toLowerCase();
  for (const id of ids) {
    const stored = await keys.signingKey(id);
    if (!stored) continue;
    try {
      const key = await openpgp.readKey({ binaryKey: Buffer.from(stored.content, 'base64') });
      const message = await openpgp.createMessage({ binary: Buffer.from(obj.payload, 'utf8') });
      const result = await openpgp.verify({ message, signature, verificationKeys: key, expectSigned: false });
      const check = result.signatures.find((s) => s.keyID.toHex().toUpperCase() === id);
      if (!check || !(await check.verified.catch(() => false))) return { ...base, reason: 'gpg.error.generate_hash' };
    } catch {
      return { ...base, reason: 'gpg.error.generate_hash' };
    }
    const users = ctx.services.get('users');
    const owner = await users.byId(stored.ownerId);
    if (!owner) return { ...base, reason: 'gpg.error.no_gpg_keys_found' };
    const ownerEmails = new Set((await users.emailsOf(owner.id)).filter((e) => e.verified).map((e) => e.email.toLowerCase()));
    if (!stored.emails.includes(signerEmail) || !ownerEmails.has(signerEmail)) {
      return { ...base, reason: 'gpg.error.no_committer_account' };
    }
    return {
      verified: true, reason: `${owner.login} / ${stored.keyId}`, signature: obj.signature!, payload: obj.payload,
      signer: { name: owner.fullName || owner.login, email: signerEmail, username: owner.login },
    };
  }
  return { ...base, reason: 'gpg.error.no_gpg_keys_found' };
}
