// The table of cases: one request shape each. A case file in bench/cases/ with the same name or the same
// request shape replaces the one here (the capability's engineer knows its hot path best).
import type { BenchCase, BenchFixture, RecordedResponse } from './case.js';
import { header } from './case.js';

function json(res: RecordedResponse): any {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The body is a JSON array of exactly `n` items. */
function arrayOf(n: (fx: BenchFixture) => number) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    const body = json(res);
    if (!Array.isArray(body)) return 'the body is not a JSON array';
    return body.length === n(fx) ? null : `expected ${n(fx)} items, got ${body.length}`;
  };
}

function totalIs(n: (fx: BenchFixture) => number) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    const total = header(res, 'x-total-count');
    return total === String(n(fx)) ? null : `X-Total-Count is ${total}, expected ${n(fx)}`;
  };
}

function all(...checks: Array<(res: RecordedResponse, fx: BenchFixture) => string | null>) {
  return (res: RecordedResponse, fx: BenchFixture) => {
    for (const check of checks) {
      const problem = check(res, fx);
      if (problem) return problem;
    }
    return null;
  };
}

/** `{ok: true, data}` with `data.length` checked. */
function searchResults(check: (n: number, data: any[]) => string | null) {
  return (res: RecordedResponse): string | null => {
    const body = json(res);
    if (body?.ok !== true || !Array.isArray(body.data)) return 'the body is not {ok: true, data: [...]}';
    return check(body.data.length, body.data);
  };
}

export const DEFAULT_CASES: BenchCase[] = [
  {
    name: 'version',
    group: 'version',
    path: '/version',
    plugins: ['version'],
    description: 'The cheapest route: kernel dispatch, logging and serialisation only.',
  },
  {
    name: 'repos-search-common',
    group: 'search',
    path: '/repos/search?q={terms.common}&limit=10',
    plugins: ['repos'],
    check: searchResults((n) => (n === 10 ? null : `expected a full page of 10, got ${n}`)),
    description: 'Anonymous search for a 3-letter term thousands of names contain.',
  },
  {
    name: 'repos-search-rare',
    group: 'search',
    path: '/repos/search?q={terms.rare}&limit=10',
    plugins: ['repos'],
    check: searchResults((n) => (n >= 1 ? null : 'the rare term found nothing')),
    description: 'Anonymous search for a word only a handful of names contain.',
  },
  {
    name: 'repos-search-org-member',
    group: 'search',
    path: '/repos/search?q={terms.org}&uid={org.id}&limit=10',
    as: 'member',
    plugins: ['repos', 'orgs'],
    // The member's team reads every repository of the org: all matches count, private ones included.
    check: all(totalIs((fx) => fx.termCounts.org), searchResults((n) => (n > 0 ? null : 'nothing found in the organization'))),
    description: 'Search inside an organization as a signed-in team member (private repositories included).',
  },
  {
    name: 'users-repos-page3',
    group: 'list',
    path: '/users/{accounts.owner.login}/repos?page=3',
    plugins: ['repos'],
    check: arrayOf(() => 30),
    description: "Anonymous third page of a 1,000-repository user's public repositories.",
  },
  {
    name: 'user-repos-owner',
    group: 'list',
    path: '/user/repos',
    as: 'owner',
    plugins: ['repos'],
    check: all(arrayOf(() => 30), totalIs((fx) => fx.sizes.ownerRepos)),
    description: 'First page of /user/repos for the owner of 1,000 repositories (token auth).',
  },
  {
    name: 'user-starred-page50',
    group: 'list',
    path: (fx) => `/user/starred?page=${fx.quick ? 5 : 50}`,
    as: 'starrer',
    plugins: ['stars'],
    check: arrayOf(() => 30),
    description: 'Page 50 of the starred repositories of a user with 5,000 stars (token auth).',
  },
  {
    name: 'users-search',
    group: 'search',
    path: '/users/search?q={terms.user}',
    plugins: ['users'],
    check: searchResults((n) => (n === 10 ? null : `expected a full page of 10, got ${n}`)),
    description: 'Anonymous user search for a 3-letter substring of many logins and full names.',
  },
  {
    name: 'user-keys',
    group: 'list',
    path: '/user/keys',
    as: 'keys',
    plugins: ['ssh-keys'],
    check: all(arrayOf((fx) => Math.min(30, fx.sizes.sshKeys)), totalIs((fx) => fx.sizes.sshKeys)),
    description: 'The SSH keys of a user with 50 of them (token auth).',
  },
];

/**
 * Cases of the table that only a capability's case file can define (they need its fixtures): listed so that a run
 * without the file says so instead of silently measuring less.
 */
export const CASES_FROM_FILES: Array<{ name: string; file: string; what: string }> = [
  { name: 'markdown-gfm-50k', file: 'bench/cases/markup.ts', what: 'POST /markdown with a 50 KB README (its fixture comes with the markup case file)' },
];
