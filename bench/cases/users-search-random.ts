// Randomized `/users/search` cases (issue 20): requests drawn from the seeded logins across selectivities (a
// substring of 1–8 characters of a random login, or no query at all: from one match to every user), pages, limits
// and callers — anonymous (public accounts only), a signed-in organization member (limited accounts too; each
// private match is put to the visibility witnesses: a shared organization, a follow) and a site admin (everything).
// The seeder adds limited (3%) and private (1%) users that own nothing (repository cases are unchanged), so each
// caller sees a different set. The seed is printed while seeding (`FORGEKIT_BENCH_SEED=<n>` repeats a run); bench/families.ts
// summarises the family (median and worst ratio, p99). Each request is checked: status 200, an exact total, and
// no limited or private account for an anonymous caller.
import type { BenchCase, BenchRole, SeedContext } from '../case.js';
import { prng } from '../dataset.js';
import { benchSeed } from './search-random.js';
import type { Doc } from '../../core/store/port.js';
import { FIRST_NAMES, LAST_NAMES } from '../words.js';
import { header } from '../case.js';

const QUICK = process.argv.includes('--quick');
const PER_FAMILY = QUICK ? 1 : 6;

let logins: string[] = [];

/**
 * Captures the seeded logins and adds accounts that are not public: 3% as many limited and 1% as many private users
 * as the dataset has, named like the others and owning nothing (the repository cases are unchanged).
 */
export async function seedUsersSearchRandom(ctx: SeedContext): Promise<void> {
  const taken = new Set(ctx.users.map((u) => u.login.toLowerCase()));
  const users = ctx.store.collection('users');
  const docs: Doc[] = [];
  const counts = { limited: 0, private: 0 };
  for (const [visibility, share] of [['limited', 0.03], ['private', 0.01]] as const) {
    for (let i = 0; i < Math.max(3, Math.round(ctx.users.length * share)); i++) {
      const first = FIRST_NAMES[Math.floor(ctx.random() * FIRST_NAMES.length)]!;
      const last = LAST_NAMES[Math.floor(ctx.random() * LAST_NAMES.length)]!;
      let login = ctx.random() < 0.5 ? `${first}-${last}` : `${first}${last}`;
      for (let n = 2; taken.has(login.toLowerCase()); n++) login = `${first}-${last}${n}`;
      taken.add(login.toLowerCase());
      const fullName = `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`;
      const now = '2026-01-01T00:00:00Z';
      docs.push({
        id: await ctx.store.nextId('users'), login, lowerName: login.toLowerCase(), type: 'user', fullName, visibility,
        email: `${login.toLowerCase()}@example.com`, lowerEmail: `${login.toLowerCase()}@example.com`, isAdmin: false,
        description: '', website: '', location: '', numFollowers: 0, numFollowing: 0, numStars: 0,
        createdAt: now, updatedAt: now,
      });
      counts[visibility]++;
    }
  }
  await users.insertMany(docs);
  logins = [...ctx.users.map((u) => u.login), ...docs.map((d) => d.login as string)].map((l) => l.toLowerCase());
  ctx.log(`users-search-random: seed ${benchSeed()}; ${counts.limited} limited and ${counts.private} private users added to ${ctx.users.length}`);
}

interface Family {
  key: string;
  as?: BenchRole;
}

const FAMILIES: Family[] = [{ key: 'anon' }, { key: 'member', as: 'member' }, { key: 'admin', as: 'admin' }];

const drawn = new Map<string, string>();

function draw(family: Family, k: number): string {
  const key = `${family.key}/${k}`;
  const hit = drawn.get(key);
  if (hit) return hit;
  if (logins.length === 0) throw new Error('users-search-random: no seeded logins (the seeder did not run)');
  const r = prng(benchSeed() ^ (k * 6007 + family.key.length * 130363 + family.key.charCodeAt(0) * 31));
  const login = logins[Math.floor(r() * logins.length)]!;
  const len = 1 + Math.floor(r() * Math.min(8, login.length));
  const at = Math.floor(r() * (login.length - len + 1));
  const term = r() < 0.1 ? '' : login.slice(at, at + len);
  const page = 1 + Math.floor(r() * r() * 5);
  const limit = [10, 30, 50][Math.floor(r() * 3)]!;
  const path = `/users/search?q=${encodeURIComponent(term)}&page=${page}&limit=${limit}`;
  drawn.set(key, path);
  return path;
}

export const cases: BenchCase[] = FAMILIES.flatMap((family) => Array.from({ length: PER_FAMILY }, (_, k): BenchCase => ({
  name: `users-rnd-${family.key}-${k}`,
  group: 'search',
  ...(family.as ? { as: family.as } : {}),
  plugins: ['users'],
  path: () => draw(family, k),
  description: `randomized /users/search, caller ${family.key}, request ${k}`,
  check: (res) => {
    if (res.status !== 200) return `status ${res.status}`;
    if (!/^\d+$/.test(header(res, 'x-total-count') ?? '')) return 'no exact X-Total-Count';
    const body = JSON.parse(res.body.toString('utf8')) as { ok: boolean; data: Array<{ visibility: string }> };
    if (!body.ok || !Array.isArray(body.data)) return 'not {ok,data}';
    if (!family.as && body.data.some((u) => u.visibility !== 'public')) return 'a limited or private account for an anonymous caller';
    return null;
  },
})));
