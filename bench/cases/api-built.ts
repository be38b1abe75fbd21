// The dataset of issue 20's report, built the way a user builds it: 20,000 repositories created through the API by 40
// owners (38 users and 2 organizations, 500 each, 50 of them private), names of two or three words joined by dashes
// with a number. On it, the report's three requests (`api-built-*`: a 3-letter term in ~3% of the names, anonymous and
// as an owner of 500 repositories; a 5-letter term in ~10% at 10 connections) and randomized requests per caller
// (`api-rnd-<caller>-<k>`: anonymous, an owner, an organization member, a collaborator, a site admin) drawn across
// selectivities (a 1–10-character piece of a random name: one match to half the names), pages and page sizes.
//
// Run it on an empty base so the search sees only these repositories, and every answer's total is checked against the
// count this file computes from what it created:
//   FORGEKIT_BENCH_SEED=<n> node dist/bench/run.js --repos 0 --case api-built --case api-rnd
// The cases are explicit (never part of a run of every case): building takes minutes. `--quick` builds 400 (8 owners).
import type { BenchCase, BenchClient, BenchFixture, RecordedResponse, SeedContext } from '../case.js';
import { header } from '../case.js';
import { prng } from '../dataset.js';
import { REPO_WORDS } from '../words.js';

const QUICK = process.argv.includes('--quick');
const SEED = Number(process.env.FORGEKIT_BENCH_SEED ?? 0) || 20_261_128;
const OWNERS = QUICK ? 8 : 40;
const ORGS = 2;
const PER_OWNER = QUICK ? 50 : 500;
const PRIVATE_PER_OWNER = PER_OWNER / 10;
const COLLABORATIONS = QUICK ? 5 : 25;
const PER_CALLER = QUICK ? 1 : 6;
const CREATORS = 8;

interface BuiltRepo {
  name: string;
  owner: number;
  private: boolean;
}

interface Built {
  repos: BuiltRepo[];
  /** Owner i's login and the token that creates in its name (an organization's: its creator's). */
  owners: Array<{ login: string; token: string; org: boolean }>;
  member: { token: string; org: number };
  collaborator: { token: string; repos: Set<number> };
  /** The seeded base had repositories of its own: totals cannot be checked. */
  mixedBase: boolean;
  seconds: number;
}

type Caller = 'anon' | 'owner' | 'member' | 'collab' | 'admin';

/** Names of two or three Zipf-drawn words and a number, unique per owner. */
export function repoNames(count: number, seed: number): string[] {
  const r = prng(seed);
  const word = () => REPO_WORDS[Math.floor(r() * r() * REPO_WORDS.length)]!;
  const out: string[] = [];
  const taken = new Set<string>();
  while (out.length < count) {
    const name = `${word()}-${word()}${r() < 0.5 ? `-${word()}` : ''}-${1 + Math.floor(r() * 999)}`;
    if (taken.has(name)) continue;
    taken.add(name);
    out.push(name);
  }
  return out;
}

/** Whether `caller` may see repository i (the visibility rules the server must apply; all owners are public). */
function visible(b: Built, i: number, caller: Caller): boolean {
  const repo = b.repos[i]!;
  if (!repo.private || caller === 'admin') return true;
  if (caller === 'owner') return repo.owner === 0;
  if (caller === 'member') return repo.owner === b.member.org;
  if (caller === 'collab') return b.collaborator.repos.has(i);
  return false;
}

/** The exact total of `/repos/search?q=term` for a caller: visible names containing the term (as Gitea: substring). */
export function expectedTotal(b: Built, term: string, caller: Caller): number {
  const t = term.toLowerCase();
  let n = 0;
  for (let i = 0; i < b.repos.length; i++) if (b.repos[i]!.name.includes(t) && visible(b, i, caller)) n++;
  return n;
}

/** The substring of `length` characters whose share of the names is closest to `share` (ties: alphabetical). */
export function termWithShare(names: string[], length: number, share: number): string {
  const counts = new Map<string, number>();
  for (const name of names) {
    const seen = new Set<string>();
    for (let i = 0; i + length <= name.length; i++) seen.add(name.slice(i, i + length));
    for (const s of seen) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let best = '';
  let bestGap = Infinity;
  for (const [s, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const gap = Math.abs(n / names.length - share);
    if (gap < bestGap) [best, bestGap] = [s, gap];
  }
  return best;
}

async function must(what: string, res: Promise<{ status: number; text: string; json: any }>, status: number): Promise<any> {
  const r = await res;
  if (r.status !== status) throw new Error(`api-built: ${what} answered ${r.status} ${r.text.slice(0, 200)}`);
  return r.json;
}

async function build(client: BenchClient, fx: BenchFixture): Promise<Built> {
  const started = Date.now();
  const names = repoNames(OWNERS * PER_OWNER, SEED);
  const users = [];
  for (let i = 0; i < OWNERS - ORGS; i++) users.push(await client.createUser({ username: `api-owner-${i}` }));
  const owners: Built['owners'] = users.map((u) => ({ login: u.username, token: u.token, org: false }));
  // The organizations are created by owners 1 and 2; the member reads every repository of the first one.
  for (let k = 0; k < ORGS; k++) {
    const creator = users[1 + k]!;
    const login = `api-org-${k}`;
    await must(`creating ${login}`, client.request('POST', '/orgs', { token: creator.token, json: { username: login } }), 201);
    owners.push({ login, token: creator.token, org: true });
  }
  const memberOrg = OWNERS - ORGS;
  const member = await client.createUser({ username: 'api-member' });
  const team = await must('creating a team', client.request('POST', `/orgs/${owners[memberOrg]!.login}/teams`, {
    token: owners[memberOrg]!.token,
    json: { name: 'readers', permission: 'read', includes_all_repositories: true, units: ['repo.code', 'repo.issues', 'repo.pulls', 'repo.releases'] },
  }), 201);
  await must('adding the member', client.request('PUT', `/teams/${team.id}/members/api-member`, { token: owners[memberOrg]!.token }), 204);

  // Owner o creates names o, o + OWNERS, o + 2·OWNERS, …; its first PRIVATE_PER_OWNER are private.
  const repos: BuiltRepo[] = names.map((name, i) => ({ name, owner: i % OWNERS, private: Math.floor(i / OWNERS) < PRIVATE_PER_OWNER }));
  let next = 0;
  await Promise.all(Array.from({ length: CREATORS }, async () => {
    while (next < repos.length) {
      const repo = repos[next++]!;
      const owner = owners[repo.owner]!;
      const path = owner.org ? `/orgs/${owner.login}/repos` : '/user/repos';
      await must(`creating ${owner.login}/${repo.name}`, client.request('POST', path, { token: owner.token, json: { name: repo.name, private: repo.private } }), 201);
    }
  }));

  // The collaborator reads some private repositories of owner 3 (a user).
  const collab = await client.createUser({ username: 'api-collab' });
  const shared = new Set<number>();
  for (let i = 0; i < repos.length && shared.size < COLLABORATIONS; i++) {
    if (repos[i]!.owner !== 3 || !repos[i]!.private) continue;
    await must('adding the collaborator', client.request('PUT', `/repos/${owners[3]!.login}/${repos[i]!.name}/collaborators/api-collab`, {
      token: owners[3]!.token, json: { permission: 'read' },
    }), 204);
    shared.add(i);
  }
  return {
    repos,
    owners,
    member: { token: member.token, org: memberOrg },
    collaborator: { token: collab.token, repos: shared },
    mixedBase: fx.sizes.repos > 0,
    seconds: (Date.now() - started) / 1000,
  };
}

let fixture: BenchFixture | null = null;

/** Writes nothing: keeps the run's fixture (the site admin's token creates the accounts; the base's size). */
export async function seedApiBuilt(ctx: SeedContext): Promise<void> {
  fixture = ctx.fixture;
  ctx.log(`api-built: seed ${SEED} (FORGEKIT_BENCH_SEED=${SEED} repeats the dataset and the requests)`);
}

let building: Promise<Built> | null = null;
let built: Built | null = null;

/** The dataset, built once per run by the first case's setup. */
async function dataset(client: BenchClient): Promise<Built> {
  if (!fixture) throw new Error('api-built: no fixture (its seeder did not run)');
  building ??= build(client, fixture).then((b) => {
    built = b;
    console.log(`  api-built: ${b.repos.length} repositories by ${OWNERS} owners created through the API in ${b.seconds.toFixed(0)} s (seed ${SEED})`);
    return b;
  });
  return building;
}

function tokenOf(b: Built, caller: Caller): string | undefined {
  if (caller === 'owner') return b.owners[0]!.token;
  if (caller === 'member') return b.member.token;
  if (caller === 'collab') return b.collaborator.token;
  return undefined; // anonymous; the admin signs with the seeded role (`as: 'admin'`)
}

/** Status, an exact total equal to the computed one (on an empty base), the page's size, no private leak. */
function checkAnswer(res: RecordedResponse, term: string, caller: Caller, page: number, limit: number): string | null {
  if (res.status !== 200) return `status ${res.status}`;
  const total = header(res, 'x-total-count');
  if (!/^\d+$/.test(total ?? '')) return 'no exact X-Total-Count';
  const body = JSON.parse(res.body.toString('utf8')) as { ok: boolean; data: Array<{ private: boolean; name: string }> };
  if (!body.ok || !Array.isArray(body.data)) return 'not {ok,data}';
  if (caller === 'anon' && body.data.some((r) => r.private)) return 'a private repository for an anonymous caller';
  if (!built || built.mixedBase) return null;
  const expected = expectedTotal(built, term, caller);
  if (Number(total) !== expected) return `X-Total-Count ${total}, expected ${expected} for q=${term} as ${caller}`;
  const size = Math.max(0, Math.min(limit, expected - (page - 1) * limit));
  if (body.data.length !== size) return `${body.data.length} on the page, expected ${size}`;
  return null;
}

interface Draw { term: string; page: number; limit: number }

function drawFor(caller: Caller, k: number): Draw {
  if (!built) throw new Error('api-built: not built yet');
  const r = prng(SEED ^ (k * 7919 + caller.charCodeAt(0) * 104729 + caller.length));
  const name = built.repos[Math.floor(r() * built.repos.length)]!.name;
  const len = 1 + Math.floor(r() * Math.min(10, name.length));
  const at = Math.floor(r() * (name.length - len + 1));
  return { term: name.slice(at, at + len), page: 1 + Math.floor(r() * r() * 5), limit: [10, 30, 50][Math.floor(r() * 3)]! };
}

const searchPath = (d: Draw) => `/repos/search?q=${encodeURIComponent(d.term)}&page=${d.page}&limit=${d.limit}`;

/** The report's requests: the term is chosen from the built names, so the path is known only after setup. */
function reportCase(name: string, caller: Caller, length: number, share: number, limit: number, connections?: number): BenchCase {
  let draw: Draw | null = null;
  return {
    name,
    group: 'search',
    explicit: true,
    path: '/repos/search', // the real path comes from setup
    ...(connections ? { connections } : {}),
    setup: async (client) => {
      const b = await dataset(client);
      draw = { term: termWithShare(b.repos.map((x) => x.name), length, share), page: 1, limit };
      return { token: tokenOf(b, caller), path: searchPath(draw) };
    },
    check: (res) => (draw ? checkAnswer(res, draw.term, caller, draw.page, draw.limit) : 'not prepared'),
    description: `issue 20's report: q of ${length} letters in ~${share * 100}% of the names, ${caller}, limit ${limit}${connections ? `, ${connections} connections` : ''}`,
  };
}

const CALLERS: Caller[] = ['anon', 'owner', 'member', 'collab', 'admin'];

export const cases: BenchCase[] = [
  reportCase('api-built-q3-anon', 'anon', 3, 0.03, 10),
  reportCase('api-built-q3-owner', 'owner', 3, 0.03, 10),
  reportCase('api-built-q5-anon', 'anon', 5, 0.10, 10, 10),
  ...CALLERS.flatMap((caller) => Array.from({ length: PER_CALLER }, (_, k): BenchCase => {
    let draw: Draw | null = null;
    return {
      name: `api-rnd-${caller}-${k}`,
      group: 'search',
      explicit: true,
      ...(caller === 'admin' ? { as: 'admin' as const } : {}),
      path: '/repos/search', // the real path comes from setup
      setup: async (client) => {
        const b = await dataset(client);
        draw = drawFor(caller, k);
        return { token: tokenOf(b, caller), path: searchPath(draw) };
      },
      check: (res) => (draw ? checkAnswer(res, draw.term, caller, draw.page, draw.limit) : 'not prepared'),
      description: `randomized /repos/search on the API-built dataset as ${caller}, request ${k}`,
    };
  })),
];
