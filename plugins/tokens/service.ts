// Access tokens: random 40-hex values shown once, stored only as SHA-256 hashes; resolves a token to its caller.
import { createHash, randomBytes } from 'node:crypto';
import type { Caller, PluginContext } from '../../core/plugin.js';
import type { Collection } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { UsersService } from '../../schemas/services.js';

export const TOKENS = 'tokens';

export interface TokenDoc {
  [key: string]: unknown;
  id: number;
  uid: number;
  name: string;
  hash: string;
  lastEight: string;
  createdAt: string;
}

/** Resolved tokens are cached briefly: every API request with a token would otherwise cost two store reads. */
const CACHE_MS = 30_000;
const CACHE_MAX = 50_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class Tokens {
  private readonly tokens: Collection<TokenDoc>;
  private readonly cache = new Map<string, { caller: Caller; tokenId: number; expires: number }>();

  constructor(private readonly ctx: PluginContext) {
    this.tokens = ctx.store.collection<TokenDoc>(TOKENS);
  }

  private get users(): UsersService {
    return this.ctx.services.get('users');
  }

  async create(uid: number, name: string): Promise<{ doc: TokenDoc; token: string }> {
    const token = randomBytes(20).toString('hex');
    const doc: TokenDoc = {
      id: await this.ctx.store.nextId(TOKENS),
      uid,
      name,
      hash: hashToken(token),
      lastEight: token.slice(-8),
      createdAt: nowRfc3339(),
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
    if (deleted) this.forget((entry) => entry.tokenId === id);
    return deleted !== null;
  }

  /** An account's tokens with this name (names are not unique). */
  byName(uid: number, name: string): Promise<TokenDoc[]> {
    return this.tokens.find({ uid, name }, { limit: 2 });
  }

  async deleteAllOf(uid: number): Promise<void> {
    await this.tokens.deleteMany({ uid });
    this.forget((entry) => entry.caller.id === uid);
  }

  async verify(token: string): Promise<Caller | null> {
    const hash = hashToken(token);
    const cached = this.cache.get(hash);
    if (cached && cached.expires > Date.now()) return cached.caller;
    const doc = await this.tokens.findOne({ hash });
    if (!doc) return null;
    const account = await this.users.byId(doc.uid);
    if (!account) return null;
    const caller: Caller = { id: account.id, login: account.login, isAdmin: account.isAdmin, via: 'token' };
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { caller, tokenId: doc.id, expires: Date.now() + CACHE_MS });
    return caller;
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
