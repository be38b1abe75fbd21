// Gitea's access-token scopes (models/auth/access_token_scope.go): `all`, `read:<category>`, `write:<category>`,
// write implying read, held as a bitmap; and the check a route's scope makes of a token caller.
import type { HttpMethod, RouteDef, ScopeCategory } from './plugin.js';

/** Gitea's categories, in Gitea's order (the order normalised scope lists are written in). */
export const SCOPE_CATEGORIES: readonly ScopeCategory[] = [
  'activitypub', 'admin', 'misc', 'notification', 'organization', 'package', 'issue', 'repository', 'user',
];

const READ_BIT = new Map<ScopeCategory, number>();
const WRITE_BIT = new Map<ScopeCategory, number>();
SCOPE_CATEGORIES.forEach((category, i) => {
  READ_BIT.set(category, 1 << (2 * i));
  WRITE_BIT.set(category, 1 << (2 * i + 1));
});

/** The bits one scope name grants (write includes read), or undefined for a name Gitea does not know. */
function bitsOf(scope: string): number | undefined {
  if (scope === 'all') return ALL_SCOPES;
  const colon = scope.indexOf(':');
  if (colon === -1) return undefined;
  const level = scope.slice(0, colon);
  const category = scope.slice(colon + 1) as ScopeCategory;
  const read = READ_BIT.get(category);
  if (read === undefined) return undefined;
  if (level === 'read') return read;
  if (level === 'write') return read | WRITE_BIT.get(category)!;
  return undefined;
}

/** Every scope: what `all` grants, and what tokens stored before scopes existed are given. */
export const ALL_SCOPES = SCOPE_CATEGORIES.reduce((bits, c) => bits | READ_BIT.get(c)! | WRITE_BIT.get(c)!, 0);

export class ScopeError extends Error {}

/**
 * Parses a list of scope names (each may itself be a comma list, as Gitea joins them) into a bitmap; empty names are
 * skipped, an unknown one throws ScopeError with Gitea's wording.
 */
export function parseScopes(names: readonly string[]): number {
  let bits = 0;
  for (const joined of names) {
    for (const raw of joined.split(',')) {
      const name = raw.trim();
      if (name === '') continue;
      const b = bitsOf(name);
      if (b === undefined) throw new ScopeError(`invalid access token scope: ${name}`);
      bits |= b;
    }
  }
  return bits;
}

/** The shortest list naming exactly these bits, in Gitea's order: `all`, else `write:x` over `read:x`. */
export function scopeNames(bits: number): string[] {
  if ((bits & ALL_SCOPES) === ALL_SCOPES) return ['all'];
  const names: string[] = [];
  for (const c of SCOPE_CATEGORIES) {
    if (bits & WRITE_BIT.get(c)!) names.push(`write:${c}`);
    else if (bits & READ_BIT.get(c)!) names.push(`read:${c}`);
  }
  return names;
}

/**
 * What a route demands of a token: one scope per category it names, `write:` for methods that change things and
 * `read:` for GET (Gitea's tokenRequiresScopes), unless the route says otherwise (`scopeLevel`). `misc` demands
 * nothing: Gitea keeps the category only as a placeholder (its miscellaneous routes need no scope). Null when the
 * route demands nothing of a token.
 */
export interface ScopeDemand {
  /** One entry per required scope: its bits and its name. */
  readonly required: ReadonlyArray<{ bits: number; name: string }>;
}

export function scopeDemand(def: Pick<RouteDef, 'scope' | 'scopeLevel'> & { method: HttpMethod }): ScopeDemand | null {
  if (def.scope === undefined) return null;
  const categories = (Array.isArray(def.scope) ? def.scope : [def.scope]) as ScopeCategory[];
  const level = def.scopeLevel ?? (def.method === 'GET' ? 'read' : 'write');
  const required = categories
    .filter((c) => c !== 'misc')
    .map((c) => ({ bits: level === 'read' ? READ_BIT.get(c)! : WRITE_BIT.get(c)!, name: `${level}:${c}` }));
  return required.length ? { required } : null;
}

/** Null when the granted bits satisfy the demand, else the names of the scopes that are missing. */
export function missingScopes(granted: number, demand: ScopeDemand): string[] | null {
  let missing: string[] | null = null;
  for (const r of demand.required) if ((granted & r.bits) === 0) (missing ??= []).push(r.name);
  return missing;
}
