// Randomized `/repos/search` cases (issue 20): for each family, requests drawn from the seeded repository names across
// selectivities (a substring of 1–10 characters of a random name: from one match to half the names), pages and
// callers. The seed is printed while seeding (`FORGEKIT_BENCH_SEED=<n>` repeats a run); the per-family median and
// worst ratio and p99 are computed from the result file by bench/families.ts. Each request is checked: status 200,
// an exact total header, and no private repository (nor one of a limited or private owner) for anonymous callers.
import type { BenchCase, BenchRole, SeedContext } from '../case.js';
import { FULL_SIZES, planDataset, prng } from '../dataset.js';
import { header } from '../case.js';

let seed: number | null = null;
/**
 * The randomized cases' seed: FORGEKIT_BENCH_SEED, else the clock. Read at first use, not when this module loads:
 * run.js imports it, and measure.js and profile.js (which import run.js) adopt a kept data dir's seed (kept-seed.ts)
 * only after that — a seed fixed at import drew their requests from the clock, so two such runs asked different ones.
 */
export function benchSeed(): number {
  return (seed ??= Number(process.env.FORGEKIT_BENCH_SEED ?? 0) || (Date.now() % 2_147_483_647));
}
const QUICK = process.argv.includes('--quick');
const PER_FAMILY = QUICK ? 1 : 6;

let names: string[] = [];
let ownerId = 0;

/**
 * Captures the names the cases draw their terms from (nothing is written): the seeded ones — except in a growth
 * series (`--repos N` other than the full dataset's), where they come from the full dataset's plan, so every size is
 * asked the very same requests (the plan is not a prefix of a larger one: drawn from the seeded names, the 1M run
 * asked other terms and pages than the 100k run, and the growth compared unlike requests, e.g. an empty page with a
 * full one).
 */
export async function seedSearchRandom(ctx: SeedContext): Promise<void> {
  const growth = !ctx.quick && ctx.sizes.repos !== FULL_SIZES.repos;
  names = growth ? planDataset(FULL_SIZES).repos.map((r) => r.lowerName) : ctx.repos.map((r) => r.lowerName);
  ownerId = ctx.fixture.accounts.owner.id;
  drawn.clear();
  ctx.log(`search-random: seed ${benchSeed()} (FORGEKIT_BENCH_SEED=${benchSeed()} repeats these requests)${growth ? `; terms drawn from the ${FULL_SIZES.repos}-repository plan's names, as at every size of a growth series` : ''}`);
}


interface Family {
  key: string;
  as?: BenchRole;
  extra: (r: () => number) => string;
}

const FAMILIES: Family[] = [
  { key: 'q-anon', extra: () => '' },
  { key: 'q-owner', as: 'owner', extra: () => '' },
  { key: 'q-member', as: 'member', extra: () => '' },
  { key: 'q-admin', as: 'admin', extra: () => '' },
  { key: 'desc', extra: () => '&includeDesc=true' },
  { key: 'filters', as: 'owner', extra: (r) => ['&mode=source', '&archived=false&template=false', '&mode=fork', '&is_private=false'][Math.floor(r() * 4)]! },
  { key: 'uid', extra: () => `&uid=${ownerId}&exclusive=true` },
  { key: 'sorted', extra: (r) => ['&sort=stars&order=desc', '&sort=created', '&sort=id&order=desc'][Math.floor(r() * 3)]! },
];

const drawn = new Map<string, string>();

function draw(family: Family, k: number): string {
  const key = `${family.key}/${k}`;
  const hit = drawn.get(key);
  if (hit) return hit;
  if (names.length === 0) throw new Error('search-random: no seeded names (the seeder did not run)');
  const r = prng(benchSeed() ^ (k * 7919 + family.key.length * 104729 + family.key.charCodeAt(0)));
  const name = names[Math.floor(r() * names.length)]!;
  const len = 1 + Math.floor(r() * Math.min(10, name.length));
  const at = Math.floor(r() * (name.length - len + 1));
  const term = name.slice(at, at + len);
  const page = 1 + Math.floor(r() * r() * 5);
  const limit = [10, 30, 50][Math.floor(r() * 3)]!;
  const path = `/repos/search?q=${encodeURIComponent(term)}&page=${page}&limit=${limit}${family.extra(r)}`;
  drawn.set(key, path);
  return path;
}

export const cases: BenchCase[] = FAMILIES.flatMap((family) => Array.from({ length: PER_FAMILY }, (_, k): BenchCase => ({
  name: `search-rnd-${family.key}-${k}`,
  group: 'search',
  ...(family.as ? { as: family.as } : {}),
  path: () => draw(family, k),
  description: `randomized /repos/search, family ${family.key}, request ${k}`,
  check: (res) => {
    if (res.status !== 200) return `status ${res.status}`;
    if (!/^\d+$/.test(header(res, 'x-total-count') ?? '')) return 'no exact X-Total-Count';
    const body = JSON.parse(res.body.toString('utf8')) as { ok: boolean; data: Array<{ private: boolean; owner: { visibility?: string } }> };
    if (!body.ok || !Array.isArray(body.data)) return 'not {ok,data}';
    if (!family.as && body.data.some((r) => r.private)) return 'a private repository for an anonymous caller';
    // The plan's limited and private organizations (bench/dataset.ts) own repositories anonymous callers must not see.
    if (!family.as && body.data.some((r) => r.owner.visibility !== 'public')) return 'a repository of a hidden owner for an anonymous caller';
    return null;
  },
})));
