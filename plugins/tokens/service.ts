// Access tokens: random 40-hex values shown once, stored only as SHA-256 hashes; resolves a token to its caller.
import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import type { Caller, PluginContext } from '../../core/plugin.js';
import type { Collection } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { UsersService } from '../../schemas/services.js';
import { Generations } from '../lib/generations.js';
import { ALL_SCOPES, parseScopes } from '../../core/scopes.js';

export const TOKENS = 'tokens';

export interface TokenDoc {
  [key: string]: unknown;
  id: number;
  uid: number;
  name: string;
  hash: string;
  lastEight: string;
  createdAt: string;
  /**
   * Gitea's normalised scope list, comma-joined (`write:repository,read:user`, or `all`). Tokens stored before
   * scopes existed have none and keep the full access they were made with (as Gitea's migration gave them `all`).
   */
  scope?: string;
}

/** The bits a stored token grants. */
export function grantedBits(doc: TokenDoc): number {
  if (doc.scope === undefined) return ALL_SCOPES;
  try {
    return parseScopes([doc.scope]);
  } catch {
    return 0; // a scope this version does not know grants nothing rather than everything
  }
}

/** Resolved tokens are cached briefly: every API request with a token would otherwise cost two store reads. */
const CACHE_MS = 30_000;
const CACHE_MAX = 50_000;

/**
 * A token's SHA-256, hex. Every request with a token hashes it (the cache is keyed by the hash, never by the token):
 * Node ≥ 20.12's one-shot `crypto.hash` makes no Hash object per call (under load, 3 µs of a 40 µs list request with
 * `createHash`, about 1 with it); older Node 20 releases lack it.
 */
export const hashToken: (token: string) => string = typeof crypto.hash === 'function'
  ? (token) => crypto.hash('sha256', token, 'hex')
  : (token) => createHash('sha256').update(token).digest('hex');

export class Tokens {
  private readonly tokens: Collection<TokenDoc>;
  private readonly cache = new Map<string, { caller: Caller; tokenId: number; stamp: number; revokeStamp: number; expires: number }>();
  /** Bumped per token id when the token is deleted: cached and in-flight checks of it stop counting. */
  private readonly revoked = new Generations();
  /** A seam for tests: awaited after a token's rows were read and before the result is used. Never set in production. */
  beforeVerdict: (() => Promise<void>) | null = null;

  constructor(private readonly ctx: PluginContext) {
    this.tokens = ctx.store.collection<TokenDoc>(TOKENS);
  }

  private get users(): UsersService {
    return this.ctx.services.get('users');
  }

  /** `scope`: the normalised scope list (core/scopes.ts `scopeNames`), comma-joined. */
  async create(uid: number, name: string, scope: string): Promise<{ doc: TokenDoc; token: string }> {
    const token = randomBytes(20).toString('hex');
    const doc: TokenDoc = {
      id: await this.ctx.store.nextId(TOKENS),
      uid,
      name,
      hash: hashToken(token),
      lastEight: token.slice(-8),
      createdAt: nowRfc3339(),
      scope,
    };
    await this.tokens.insertOne(doc);
    return { doc, token };
  }

  list(uid: number, skip: number, limit: number): Promise<TokenDoc[]> {
    return this.tokens.find({ uid }, { sort: { id: -1 }, skip, limit });
  }

  count(uid: number): Promise<number> {
    return this.tokens.count({ uid });
  }

  async delete(uid: number, id: number): Promise<boolean> {
    const deleted = await this.tokens.findOneAndDelete({ id, uid });
    if (deleted) {
      this.revoked.bump(id);
      this.forget((entry) => entry.tokenId === id);
    }
    return deleted !== null;
  }

  /** An account's tokens with this name (names are not unique). */
  byName(uid: number, name: string): Promise<TokenDoc[]> {
    return this.tokens.find({ uid, name }, { limit: 2 });
  }

  async deleteAllOf(uid: number): Promise<void> {
    const ids = (await this.tokens.find({ uid }, { projection: { id: 1 } })).map((t) => t.id);
    await this.tokens.deleteMany({ uid });
    for (const id of ids) this.revoked.bump(id);
    this.forget((entry) => entry.caller.id === uid);
  }

  /** The caller a token stands for, or null. A token checked in the last moments is answered at once, not as a promise. */
  verify(token: string): Caller | null | Promise<Caller | null> {
    const hash = hashToken(token);
    const cached = this.cache.get(hash);
    if (cached && cached.expires > Date.now() && this.stillValid(cached.tokenId, cached.caller.id, cached.stamp, cached.revokeStamp)) {
      return cached.caller;
    }
    return this.verifyFromRows(hash);
  }

  private async verifyFromRows(hash: string): Promise<Caller | null> {
    // A token or account changed while the rows were read: read again (a deleted one is then simply gone).
    for (let attempt = 0; attempt < 3; attempt++) {
      const stamp = this.users.credentialStamp();
      const revokeStamp = this.revoked.stamp();
      const doc = await this.tokens.findOne({ hash });
      if (!doc) return null;
      const account = await this.users.byId(doc.uid);
      if (this.beforeVerdict) await this.beforeVerdict();
      if (!this.stillValid(doc.id, doc.uid, stamp, revokeStamp)) continue;
      if (!account) return null;
      // Checked on every verification that reads the rows (the cache is dropped when the account's rights change).
      this.users.checkSignIn(account);
      const caller: Caller = { id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'token', scopes: grantedBits(doc), restricted: account.restricted === true };
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(hash, { caller, tokenId: doc.id, stamp, revokeStamp, expires: Date.now() + CACHE_MS });
      return caller;
    }
    return null;
  }

  private stillValid(tokenId: number, uid: number, stamp: number, revokeStamp: number): boolean {
    return this.revoked.current(tokenId, revokeStamp) && this.users.credentialsCurrent(uid, stamp);
  }

  private forget(predicate: (entry: { caller: Caller; tokenId: number }) => boolean): void {
    for (const [key, entry] of this.cache) if (predicate(entry)) this.cache.delete(key);
  }
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** This plugin's own service (its handlers reach it through the registry); no other plugin depends on it. */
    tokens: Tokens;
  }
}
