// Bench cases for the repos plugin: the name search through the n-gram index (common, rare, short, empty, as an org
// member, as a site admin) and the repository lists (/users/{u}/repos?page=3, /user/repos of a 1,000-repository
// owner). The harness seeds the repositories (bench/seed.ts); the server builds its search index from them at start
// (plugins/repos/memory-index.ts), so no seeder is exported here. Each check also verifies what a fast wrong answer
// would get wrong: name order, the term really in every name, no private repository for anonymous callers.
import type { BenchCase, BenchFixture, RecordedResponse } from '../case.js';
import { header } from '../case.js';

function body(res: RecordedResponse): any {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Items in (lower-cased name, id) order, the order every repository list and the search use. */
function inNameOrder(items: Array<{ id: number; name: string }>): boolean {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const x = a.name.toLowerCase();
    const y = b.name.toLowerCase();
    if (x > y || (x === y && a.id > b.id)) return false;
  }
  return true;
}

interface SearchExpect {
  /** Exact page length, or a minimum when `atLeast`. */
  length: (fx: BenchFixture) => number;
  atLeast?: boolean;
  term?: (fx: BenchFixture) => string;
  anonymous?: boolean;
  ownerId?: (fx: BenchFixture) => number;
  needsPrivate?: boolean;
  /** The exact X-Total-Count, when the dataset says it. */
  total?: (fx: BenchFixture) => number;
}

function searchCheck(e: SearchExpect) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    const b = body(res);
    if (b?.ok !== true || !Array.isArray(b.data)) return 'the body is not {ok: true, data: [...]}';
    const data = b.data as Array<{ id: number; name: string; private: boolean; owner: { id: number; visibility?: string }; permissions: unknown }>;
    const n = e.length(fx);
    if (e.atLeast ? data.length < n : data.length !== n) return `expected ${e.atLeast ? 'at least ' : ''}${n} results, got ${data.length}`;
    if (!inNameOrder(data)) return 'results are not in name order';
    const term = e.term?.(fx).toLowerCase();
    if (term && data.some((r) => !r.name.toLowerCase().includes(term))) return `a result does not contain "${term}"`;
    if (e.anonymous && data.some((r) => r.private)) return 'a private repository was shown to an anonymous caller';
    if (e.anonymous && data.some((r) => r.owner.visibility !== 'public')) return 'a repository of a limited or private owner was shown to an anonymous caller';
    if (e.ownerId && data.some((r) => r.owner.id !== e.ownerId!(fx))) return 'a result of another owner despite uid';
    if (e.needsPrivate && !data.some((r) => r.private)) return 'no private repository in the page: the member path is not exercised';
    if (data.some((r) => typeof r.permissions !== 'object')) return 'a result without permissions';
    const total = Number(header(res, 'x-total-count'));
    if (!Number.isInteger(total) || total < data.length) return `X-Total-Count is ${header(res, 'x-total-count')}`;
    if (e.total && total !== e.total(fx)) return `X-Total-Count is ${total}, expected ${e.total(fx)}`;
    return null;
  };
}

function listCheck(length: (fx: BenchFixture) => number, total: (fx: BenchFixture) => number | null, opts: { anonymous?: boolean; admin?: boolean } = {}) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    const b = body(res);
    if (!Array.isArray(b)) return 'the body is not a JSON array';
    if (b.length !== length(fx)) return `expected ${length(fx)} items, got ${b.length}`;
    if (!inNameOrder(b)) return 'items are not in name order';
    if (opts.anonymous && b.some((r: any) => r.private)) return 'a private repository was shown to an anonymous caller';
    if (opts.admin && b.some((r: any) => r.permissions?.admin !== true)) return "the owner's permissions are not admin";
    const want = total(fx);
    if (want !== null && header(res, 'x-total-count') !== String(want)) return `X-Total-Count is ${header(res, 'x-total-count')}, expected ${want}`;
    if (!header(res, 'link')) return 'no Link header';
    return null;
  };
}

export const cases: BenchCase[] = [
  {
    name: 'repos-search-common',
    group: 'search',
    path: '/repos/search?q={terms.common}&limit=10',
    plugins: ['repos'],
    check: searchCheck({ length: () => 10, term: (fx) => fx.terms.common, anonymous: true }),
    description: 'Anonymous search for a 3-letter term thousands of names contain: one gram lookup, the page read in name order from the store, the total counted by the index.',
  },
  {
    name: 'repos-search-rare',
    group: 'search',
    path: '/repos/search?q={terms.rare}&limit=10',
    plugins: ['repos'],
    check: searchCheck({ length: () => 1, atLeast: true, term: (fx) => fx.terms.rare, anonymous: true }),
    description: "Anonymous search for a word only a handful of names contain: its rarest trigram's posting list, verified literally.",
  },
  {
    name: 'repos-search-short',
    group: 'search',
    path: (fx) => `/repos/search?q=${encodeURIComponent(fx.terms.common.slice(0, 2))}&limit=10`,
    plugins: ['repos'],
    check: searchCheck({ length: () => 10, term: (fx) => fx.terms.common.slice(0, 2), anonymous: true }),
    description: 'Anonymous search for a 2-letter term (a bigram posting list: a large share of all names).',
  },
  {
    name: 'repos-search-all',
    group: 'search',
    path: '/repos/search?limit=10',
    plugins: ['repos'],
    check: searchCheck({ length: () => 10, anonymous: true }),
    description: 'Anonymous search without q: the first page of every public repository in name order.',
  },
  {
    name: 'repos-search-org-member',
    group: 'search',
    path: '/repos/search?q={terms.org}&uid={org.id}&limit=10',
    as: 'member',
    plugins: ['repos', 'orgs'],
    // The member's team reads every repository of the org: every match counts, private ones included.
    check: searchCheck({ length: () => 1, atLeast: true, term: (fx) => fx.terms.org, ownerId: (fx) => fx.org.id, needsPrivate: true, total: (fx) => fx.termCounts.org }),
    description: "Search inside an organization as a member of its write team: the org's private repositories are included.",
  },
  {
    name: 'repos-search-admin',
    group: 'search',
    path: '/repos/search?q={terms.common}&limit=10',
    as: 'admin',
    plugins: ['repos'],
    check: searchCheck({ length: () => 10, term: (fx) => fx.terms.common, total: (fx) => fx.termCounts.common }),
    description: 'A site admin searches every repository, private ones included (both gram fields).',
  },
  {
    name: 'users-repos-page3',
    group: 'list',
    path: '/users/{accounts.owner.login}/repos?page=3',
    plugins: ['repos'],
    check: listCheck(() => 30, () => null, { anonymous: true }),
    description: "Anonymous third page of a 1,000-repository user's public repositories (the page is read in name order, the count is an index lookup).",
  },
  {
    name: 'user-repos-owner',
    group: 'list',
    path: '/user/repos',
    as: 'owner',
    plugins: ['repos'],
    check: listCheck(() => 30, (fx) => fx.sizes.ownerRepos, { admin: true }),
    description: 'First page of /user/repos for the owner of 1,000 repositories (token auth): grants, one sorted query, a count.',
  },
];
