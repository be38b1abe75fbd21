// Randomized list cases (issue 20): for each family, requests drawn across owners (small and large), pages, limits
// and callers (anonymous, an owner with private repositories, an organization member, a collaborator, the site
// admin), named `list-rnd-<family>-<k>`. The seed is the one search-random.ts prints (`FORGEKIT_BENCH_SEED=<n>`
// repeats a run); bench/families.ts summarises each family (median and worst ratio, p99).
//
// The seeder adds what the plan lacks for lists to vary: stars by ~600 ordinary users (a few with thousands, most
// with a handful; members also star private repositories of their organizations) and collaborators (40 users, each
// on 3–30 repositories, private ones included). Every request's expected total is computed from the plan (and, for
// the issue families, from the seeded issues), so each check is exact: status 200, X-Total-Count, the page length,
// and no private repository (or issue of one) that the caller cannot read — nor one of an owner it cannot see (the
// plan's limited and private organizations, bench/dataset.ts: anonymous callers meet ~100 hidden owners that own
// repositories and issues). Families that list subscriptions or issues
// need the relations or issues seeder (`needs`): under `--skip-seeder issues` they are skipped, with the reason.
import type { BenchCase, BenchRole, RecordedResponse, SeedContext } from '../case.js';
import { header } from '../case.js';
import { planDataset, prng, tokenOf, type DatasetPlan } from '../dataset.js';
import { benchSeed } from './search-random.js';
import { insertRelations } from './relations.js';
import { COLLABORATIONS } from '../../plugins/repos/service.js';
import { ISSUES, LABELS } from '../../plugins/issues/service.js';
import { HOT_LABEL } from './issues.js';

const QUICK = process.argv.includes('--quick');
const PER_FAMILY = QUICK ? 1 : 6;
const LIMITS = [10, 30, 50];
const LABEL_CHOICES = [HOT_LABEL, 'kind/feature', 'prio/high', 'help wanted'];

interface Caller {
  id: number;
  login: string;
  admin?: boolean;
}

/** What the seeder saw and wrote: the plan plus the relations this file adds, for drawing requests and totals. */
interface World {
  plan: DatasetPlan;
  repoById: Map<number, DatasetPlan['repos'][number]>;
  reposByOwner: Map<number, number[]>;
  /** orgId → member user ids (any team). */
  membersOf: Map<number, Set<number>>;
  /** userId → org ids. */
  orgsOf: Map<number, Set<number>>;
  /** userId → repository ids it collaborates on. */
  collabOf: Map<number, Set<number>>;
  /** userId → starred repository ids (this file's stars only; the starrer role is left out). */
  starsOf: Map<number, number[]>;
  collaborators: number[];
  starrers: number[];
  /** Owners by repository count, descending (users and orgs). */
  bigOwners: number[];
  userOwners: number[];
  orgOwners: number[];
  /** Issue rows (`repoId`, closed, label names) by repository, when the issues seeder ran before this one. */
  issues: Map<number, Array<{ closed: boolean; labels: string[] }>> | null;
}

let world: World | null = null;
const roleIds: Partial<Record<BenchRole, number>> = {};

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/** Stars and collaborations (written), and the world the draws and checks read. */
export async function seedListRandom(ctx: SeedContext): Promise<void> {
  const plan = planDataset(ctx.sizes);
  const repoById = new Map(plan.repos.map((r) => [r.id, r]));
  const reposByOwner = new Map<number, number[]>();
  for (const r of plan.repos) {
    const list = reposByOwner.get(r.ownerId);
    if (list) list.push(r.id);
    else reposByOwner.set(r.ownerId, [r.id]);
  }
  const membersOf = new Map<number, Set<number>>();
  const orgsOf = new Map<number, Set<number>>();
  for (const m of plan.memberships) {
    addTo(membersOf, m.orgId, m.userId);
    addTo(orgsOf, m.userId, m.orgId);
  }
  for (const [role, a] of Object.entries(plan.roles)) roleIds[role as BenchRole] = a.id;
  const roleSet = new Set(Object.values(plan.roles).map((a) => a.id));
  const ordinary = plan.users.filter((u) => !roleSet.has(u.id));
  const random = ctx.random;

  // Collaborators: 40 users (5 with --quick), each on 3–30 repositories of other owners, a third of them private.
  const collabOf = new Map<number, Set<number>>();
  const collaborators: number[] = [];
  // Not on repositories of private organizations: whether a collaborator who is no member sees one is a question this
  // benchmark leaves to the visibility tests (it would need the plan to model it).
  const collaborable = plan.repos.filter((r) => plan.accounts[r.ownerId - 1]!.visibility !== 'private');
  const privateRepos = collaborable.filter((r) => r.private);
  const collabDocs: Array<Record<string, unknown>> = [];
  for (let i = 0; i < (ctx.quick ? 5 : 40); i++) {
    const user = ordinary[Math.floor(random() * ordinary.length)]!;
    if (collabOf.has(user.id)) continue;
    collaborators.push(user.id);
    const n = 3 + Math.floor(random() * 28);
    for (let k = 0; k < n; k++) {
      const pool = random() < 0.35 ? privateRepos : collaborable;
      const repo = pool[Math.floor(random() * pool.length)]!;
      if (repo.ownerId === user.id || collabOf.get(user.id)?.has(repo.id)) continue;
      addTo(collabOf, user.id, repo.id);
      collabDocs.push({ repoId: repo.id, userId: user.id, permission: (['read', 'write', 'admin'] as const)[k % 3], createdAt: '2026-01-01T00:00:00Z' });
    }
  }
  await ctx.store.collection(COLLABORATIONS).insertMany(collabDocs as any);

  // Stars: 600 ordinary users (30 with --quick), the k-th starring ~2000/k^0.9 public repositories (at least 1),
  // plus up to 3 private repositories of an organization it belongs to.
  const publicRepos = plan.repos.filter((r) => !r.private);
  const starsOf = new Map<number, number[]>();
  const pairs: Array<{ uid: number; repo: { id: number; ownerId: number; private: boolean } }> = [];
  const nStarrers = ctx.quick ? 30 : 600;
  const top = ctx.quick ? 150 : 2000;
  for (let k = 0; k < nStarrers; k++) {
    const user = ordinary[Math.floor(random() * ordinary.length)]!;
    if (starsOf.has(user.id)) continue;
    const chosen = new Set<number>();
    const want = Math.max(1, Math.round(top / Math.pow(k + 1, 0.9)));
    for (let tries = 0; chosen.size < want && tries < want * 3; tries++) {
      const repo = publicRepos[Math.floor(random() * publicRepos.length)]!;
      if (repo.ownerId !== user.id) chosen.add(repo.id);
    }
    for (const orgId of orgsOf.get(user.id) ?? []) {
      const own = (reposByOwner.get(orgId) ?? []).filter((id) => repoById.get(id)!.private);
      for (let j = 0; j < Math.min(3, own.length); j++) chosen.add(own[Math.floor(random() * own.length)]!);
    }
    const ids = [...chosen];
    starsOf.set(user.id, ids);
    for (const id of ids) {
      const r = repoById.get(id)!;
      pairs.push({ uid: user.id, repo: { id: r.id, ownerId: r.ownerId, private: r.private } });
    }
  }
  await insertRelations(ctx.store, 'stars', pairs);

  // The issues the issues seeder wrote (it runs before this file's seeder), for exact totals; none when it did not run
  // (or in a profile's replay, whose store keeps nothing).
  let issues: World['issues'] = null;
  try {
    const rows = await ctx.store.collection(ISSUES).find({}, { projection: { repoId: 1, isClosed: 1, labelIds: 1 } });
    const labels = await ctx.store.collection(LABELS).find({}, { projection: { id: 1, name: 1 } });
    if (Array.isArray(rows) && rows.length > 0 && Array.isArray(labels)) {
      const labelName = new Map(labels.map((l) => [l.id as number, l.name as string]));
      issues = new Map();
      for (const row of rows) {
        const list = issues.get(row.repoId as number) ?? [];
        list.push({ closed: row.isClosed === true, labels: ((row.labelIds as number[]) ?? []).map((id) => labelName.get(id) ?? '') });
        issues.set(row.repoId as number, list);
      }
    }
  } catch {
    issues = null;
  }

  const owners = [...reposByOwner.entries()].sort((a, b) => b[1].length - a[1].length).map(([id]) => id);
  const isOrg = new Set(plan.orgs.map((o) => o.id));
  world = {
    plan, repoById, reposByOwner, membersOf, orgsOf, collabOf, starsOf, collaborators,
    starrers: [...starsOf.keys()],
    bigOwners: owners.slice(0, 20),
    userOwners: owners.filter((id) => !isOrg.has(id)),
    orgOwners: owners.filter((id) => isOrg.has(id)),
    issues,
  };
  ctx.log(`list-random: seed ${benchSeed()}; ${collabDocs.length} collaborations of ${collaborators.length} users, ${pairs.length} stars of ${starsOf.size} users${issues ? `, issues of ${issues.size} repositories` : ', no issues seeded'}`);
}

// ---- access, as the plan grants it ----

/** Whether the caller may see the account at all: a limited one needs a signed-in caller, a private one a member. */
function seesOwner(w: World, caller: Caller | null, ownerId: number): boolean {
  const visibility = w.plan.accounts[ownerId - 1]!.visibility;
  if (visibility === 'public') return true;
  if (!caller) return false;
  if (visibility === 'limited' || caller.admin || caller.id === ownerId) return true;
  return w.membersOf.get(ownerId)?.has(caller.id) === true;
}

function canRead(w: World, caller: Caller | null, repoId: number): boolean {
  const r = w.repoById.get(repoId);
  if (!r) return false;
  if (!seesOwner(w, caller, r.ownerId)) return false;
  if (!r.private) return true;
  if (!caller) return false;
  if (caller.admin || r.ownerId === caller.id) return true;
  if (w.membersOf.get(r.ownerId)?.has(caller.id)) return true;
  return w.collabOf.get(caller.id)?.has(repoId) === true;
}

/** `/user/repos`: owned, reached through an organization's teams (all include every repository), or collaborated on. */
function myRepos(w: World, caller: Caller): number {
  const ids = new Set(w.reposByOwner.get(caller.id) ?? []);
  for (const orgId of w.orgsOf.get(caller.id) ?? []) for (const id of w.reposByOwner.get(orgId) ?? []) ids.add(id);
  for (const id of w.collabOf.get(caller.id) ?? []) ids.add(id);
  return ids.size;
}

// ---- requests ----

interface Drawn {
  path: string;
  caller: Caller | null;
  total: number;
  skip: number;
  limit: number;
  /** The items are repositories (checked for readability) or issues (state/labels checked). */
  kind: 'repos' | 'orgs' | 'users' | 'issues';
  state?: 'open' | 'closed' | 'all';
  label?: string;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function account(w: World, id: number, admin = false): Caller {
  const a = w.plan.accounts[id - 1]!;
  return { id, login: a.login, ...(admin ? { admin: true } : {}) };
}

function role(w: World, name: BenchRole): Caller {
  return account(w, roleIds[name]!, name === 'admin');
}

/** A page of `total` items at `limit`: mostly near the front, sometimes the last page, now and then one past it. */
function page(r: () => number, total: number): { page: number; limit: number; skip: number } {
  const limit = pick(r, LIMITS);
  const pages = Math.max(1, Math.ceil(total / limit));
  const x = r();
  const p = x < 0.1 ? pages + 1 : x < 0.3 ? pages : 1 + Math.floor(r() * r() * Math.min(pages, 20));
  return { page: p, limit, skip: (p - 1) * limit };
}

function ownerPick(w: World, r: () => number, pool: number[]): number {
  return r() < 0.4 ? pick(r, w.bigOwners.filter((id) => pool.includes(id)).length ? w.bigOwners.filter((id) => pool.includes(id)) : pool) : pick(r, pool);
}

function countReadable(w: World, caller: Caller | null, ids: Iterable<number>): number {
  let n = 0;
  for (const id of ids) if (canRead(w, caller, id)) n++;
  return n;
}

interface Family {
  key: string;
  needs?: string[];
  plugins?: string[];
  draw: (w: World, r: () => number) => Drawn;
}

const FAMILIES: Family[] = [
  {
    // GET /user/repos: the owner role (1,000 repositories, 100 private), the bench-org member, another organization
    // member, a collaborator.
    key: 'user-repos',
    draw: (w, r) => {
      const x = r();
      const caller = x < 0.25 ? role(w, 'owner') : x < 0.5 ? role(w, 'member')
        : x < 0.75 ? account(w, pick(r, [...w.orgsOf.keys()].filter((id) => !Object.values(roleIds).includes(id))))
          : account(w, pick(r, w.collaborators));
      const total = myRepos(w, caller);
      const pg = page(r, total);
      return { path: `/user/repos?page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'repos' };
    },
  },
  {
    // GET /users/{u}/repos anonymously, for large and small owners.
    key: 'owner-repos-anon',
    draw: (w, r) => {
      const owner = ownerPick(w, r, w.userOwners);
      const total = countReadable(w, null, w.reposByOwner.get(owner)!);
      const pg = page(r, total);
      return { path: `/users/${w.plan.accounts[owner - 1]!.login}/repos?page=${pg.page}&limit=${pg.limit}`, caller: null, total, skip: pg.skip, limit: pg.limit, kind: 'repos' };
    },
  },
  {
    // GET /users/{u}/repos signed in: the owner itself, a collaborator on one of its repositories, the admin, anyone.
    key: 'owner-repos-signed',
    draw: (w, r) => {
      const x = r();
      let owner: number;
      let caller: Caller;
      if (x < 0.3) {
        owner = x < 0.15 ? roleIds.owner! : ownerPick(w, r, w.userOwners);
        caller = account(w, owner);
      } else if (x < 0.6) {
        const collaborator = pick(r, w.collaborators);
        const repo = w.repoById.get(pick(r, [...w.collabOf.get(collaborator)!]))!;
        owner = repo.ownerId;
        caller = account(w, collaborator);
      } else if (x < 0.8) {
        owner = ownerPick(w, r, w.userOwners);
        caller = role(w, 'admin');
      } else {
        owner = ownerPick(w, r, w.userOwners);
        caller = role(w, 'starrer');
      }
      const total = countReadable(w, caller, w.reposByOwner.get(owner)!);
      const pg = page(r, total);
      const kind = w.plan.accounts[owner - 1]!.type === 'org' ? 'orgs' : 'users';
      return { path: `/${kind}/${w.plan.accounts[owner - 1]!.login}/repos?page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'repos' };
    },
  },
  {
    // GET /orgs/{org}/repos: anonymous, a member of that organization (its private repositories too), the admin.
    key: 'org-repos',
    draw: (w, r) => {
      const org = r() < 0.3 ? w.plan.org.id : ownerPick(w, r, w.orgOwners);
      const x = r();
      const members = [...(w.membersOf.get(org) ?? [])];
      let caller = x < 0.35 ? null : x < 0.75 && members.length ? account(w, pick(r, members)) : role(w, 'admin');
      // An organization hidden from the drawn caller answers 404: asked by a member (or the admin) instead.
      if (!seesOwner(w, caller, org)) caller = members.length ? account(w, pick(r, members)) : role(w, 'admin');
      const total = countReadable(w, caller, w.reposByOwner.get(org)!);
      const pg = page(r, total);
      return { path: `/orgs/${w.plan.accounts[org - 1]!.login}/repos?page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'repos' };
    },
  },
  {
    // GET /users/{u}/starred: a user with thousands of stars or a handful, asked anonymously, by itself, by the admin.
    key: 'starred',
    plugins: ['stars'],
    draw: (w, r) => {
      const user = r() < 0.3 ? pick(r, w.starrers.slice(0, 5)) : pick(r, w.starrers);
      const x = r();
      const caller = x < 0.4 ? null : x < 0.8 ? account(w, user) : role(w, 'admin');
      const total = countReadable(w, caller, w.starsOf.get(user)!);
      const pg = page(r, total);
      return { path: `/users/${w.plan.accounts[user - 1]!.login}/starred?page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'repos' };
    },
  },
  {
    // GET /users/{u}/subscriptions: every user watches its own repositories (the relations seeder), private ones too.
    key: 'subscriptions',
    plugins: ['watch'],
    needs: ['relations'],
    draw: (w, r) => {
      const starrer = roleIds.starrer!;
      const user = ownerPick(w, r, w.userOwners.filter((id) => id !== starrer));
      const x = r();
      const caller = x < 0.4 ? null : x < 0.8 ? account(w, user) : role(w, 'admin');
      const total = countReadable(w, caller, w.reposByOwner.get(user)!);
      const pg = page(r, total);
      return { path: `/users/${w.plan.accounts[user - 1]!.login}/subscriptions?page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'repos' };
    },
  },
  {
    // GET /user/orgs of an organization member, and GET /orgs/{org}/members anonymously (no public memberships are
    // seeded: empty) or as a member (every member).
    key: 'org-members',
    draw: (w, r) => {
      const x = r();
      if (x < 0.4) {
        const user = r() < 0.3 ? roleIds.member! : pick(r, [...w.orgsOf.keys()]);
        const total = w.orgsOf.get(user)!.size;
        const pg = page(r, total);
        return { path: `/user/orgs?page=${pg.page}&limit=${pg.limit}`, caller: account(w, user), total, skip: pg.skip, limit: pg.limit, kind: 'orgs' };
      }
      const org = r() < 0.3 ? w.plan.org.id : pick(r, [...w.membersOf.keys()]);
      const members = [...w.membersOf.get(org)!];
      const caller = x < 0.6 && seesOwner(w, null, org) ? null : account(w, pick(r, members));
      const total = caller ? members.length : 0;
      const pg = page(r, total);
      return { path: `/orgs/${w.plan.accounts[org - 1]!.login}/members?page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'users' };
    },
  },
  {
    // GET /repos/{o}/{r}/issues: one of the four large repositories or a small one, state and label filters, pages;
    // private repositories asked by a member of their organization or their owner.
    key: 'issues-list',
    plugins: ['issues'],
    needs: ['issues'],
    draw: (w, r) => {
      const issues = w.issues!;
      const withIssues = [...issues.keys()];
      const large = withIssues.filter((id) => issues.get(id)!.length > 100);
      const repoId = r() < 0.5 && large.length ? pick(r, large) : pick(r, withIssues);
      const repo = w.repoById.get(repoId)!;
      const members = [...(w.membersOf.get(repo.ownerId) ?? [])];
      let caller = !repo.private ? (r() < 0.6 ? null : role(w, 'member')) : w.plan.accounts[repo.ownerId - 1]!.type === 'user' ? account(w, repo.ownerId) : account(w, pick(r, members));
      // A repository of an organization hidden from the drawn caller answers 404: asked by a member instead.
      if (!canRead(w, caller, repoId)) caller = members.length ? account(w, pick(r, members)) : role(w, 'admin');
      const state = pick(r, ['open', 'closed', 'all'] as const);
      const rows = issues.get(repoId)!;
      const labelled = rows.some((i) => i.labels.length > 0);
      const label = labelled && r() < 0.5 ? pick(r, LABEL_CHOICES) : undefined;
      const total = rows.filter((i) => (state === 'all' || (state === 'closed') === i.closed) && (!label || i.labels.includes(label))).length;
      const pg = page(r, total);
      const owner = w.plan.accounts[repo.ownerId - 1]!.login;
      return {
        path: `/repos/${owner}/${repo.name}/issues?state=${state}${label ? `&labels=${encodeURIComponent(label)}` : ''}&page=${pg.page}&limit=${pg.limit}`,
        caller, total, skip: pg.skip, limit: pg.limit, kind: 'issues', state, ...(label ? { label } : {}),
      };
    },
  },
  {
    // GET /repos/issues/search anonymously (public repositories of public owners: the limited and private
    // organizations' issues are subtracted) or for a signed-in member (of bench-org, whose private large repository it
    // reads, or of another organization; private organizations' issues subtracted unless it is a member), by state, pages.
    key: 'issues-search',
    plugins: ['issues'],
    needs: ['issues'],
    draw: (w, r) => {
      const issues = w.issues!;
      const x = r();
      const caller = x < 0.3 ? null : x < 0.6 ? role(w, 'member') : account(w, pick(r, [...w.orgsOf.keys()]));
      const state = pick(r, ['open', 'closed', 'all'] as const);
      let total = 0;
      for (const [repoId, rows] of issues) {
        if (!canRead(w, caller, repoId)) continue;
        for (const i of rows) if (state === 'all' || (state === 'closed') === i.closed) total++;
      }
      const pg = page(r, Math.min(total, 1000));
      return { path: `/repos/issues/search?state=${state}&page=${pg.page}&limit=${pg.limit}`, caller, total, skip: pg.skip, limit: pg.limit, kind: 'issues', state };
    },
  },
];

const drawn = new Map<string, Drawn>();

function draw(family: Family, k: number): Drawn {
  const key = `${family.key}/${k}`;
  const hit = drawn.get(key);
  if (hit) return hit;
  if (!world) throw new Error('list-random: the seeder did not run');
  if (family.needs?.includes('issues') && !world.issues) throw new Error(`list-random: no issues seeded (the issues seeder did not run; a profile's replay keeps none: give profile.js --path and --login of the request)`);
  let h = 0;
  for (const ch of family.key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  const d = family.draw(world, prng(benchSeed() ^ (k * 15_485_863 + h)));
  drawn.set(key, d);
  return d;
}

function check(d: Drawn, res: RecordedResponse): string | null {
  if (res.status !== 200) return `status ${res.status}`;
  const count = header(res, 'x-total-count');
  if (count !== String(d.total)) return `X-Total-Count is ${count}, expected ${d.total}`;
  let body: any;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return 'the body is not JSON';
  }
  if (!Array.isArray(body)) return 'the body is not a JSON array';
  const expected = Math.max(0, Math.min(d.limit, d.total - d.skip));
  if (body.length !== expected) return `expected ${expected} items, got ${body.length}`;
  const w = world!;
  if (d.kind === 'repos') {
    const hidden = body.find((repo: any) => !canRead(w, d.caller, repo.id));
    if (hidden) return `repository ${hidden.full_name} (private, or of a hidden owner) shown to ${d.caller?.login ?? 'an anonymous caller'}`;
  }
  if (d.kind === 'issues') {
    if (body.some((i: any) => d.state !== 'all' && i.state !== d.state)) return `an issue not ${d.state}`;
    if (d.label && body.some((i: any) => !i.labels.some((l: any) => l.name === d.label))) return `an issue without ${d.label}`;
    const hidden = body.find((i: any) => i.repository && !canRead(w, d.caller, i.repository.id));
    if (hidden) return `an issue of ${hidden.repository.full_name} (private, or of a hidden owner) shown to ${d.caller?.login ?? 'an anonymous caller'}`;
  }
  return null;
}

export const cases: BenchCase[] = FAMILIES.flatMap((family) => Array.from({ length: PER_FAMILY }, (_, k): BenchCase => ({
  name: `list-rnd-${family.key}-${k}`,
  group: 'list',
  path: '/',
  ...(family.plugins ? { plugins: family.plugins } : {}),
  ...(family.needs ? { needs: family.needs } : {}),
  description: `randomized list, family ${family.key}, request ${k}`,
  setup: async () => {
    const d = draw(family, k);
    return { path: d.path, ...(d.caller ? { token: tokenOf(d.caller.login), as: d.caller.login } : {}) };
  },
  check: (res) => check(draw(family, k), res),
})));
