// The deterministic synthetic dataset: who exists, who owns which repository, who is in which team. Pure (no I/O):
// the same sizes and seed always give the same plan, so runs on different commits measure the same data.
import { createHash } from 'node:crypto';
import type { BenchRole, DatasetSizes, PlannedRepo } from './case.js';
import { FIRST_NAMES, LAST_NAMES, ORG_WORDS, REPO_WORDS } from './words.js';

export const FULL_SIZES: DatasetSizes = {
  users: 10_000,
  orgs: 2_000,
  repos: 100_000,
  ownerRepos: 1_000,
  stars: 5_000,
  watches: 5_000,
  sshKeys: 50,
  gpgKeys: 20,
  privateShare: 0.1,
};

export const QUICK_SIZES: DatasetSizes = {
  users: 300,
  orgs: 30,
  repos: 3_000,
  ownerRepos: 120,
  stars: 200,
  watches: 200,
  sshKeys: 10,
  gpgKeys: 3,
  privateShare: 0.1,
};

export const ROLE_LOGINS: Record<BenchRole, string> = {
  owner: 'bench-owner',
  starrer: 'bench-starrer',
  keys: 'bench-keys',
  member: 'bench-member',
  admin: 'bench-admin',
};
export const BENCH_ORG = 'bench-org';
/** A word no generated name contains: it is put into a handful of names on purpose (the "rare term"). */
export const RARE_WORD = 'tardigrade';
export const TERMS = { common: 'app', rare: RARE_WORD, org: 'web', user: 'mar' } as const;
export const PASSWORD = 'bench-password-1';

/** mulberry32: a small, fast, well-distributed 32-bit PRNG; deterministic for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seed for a named stream, so adding draws to one part of the plan does not shift another. */
export function seedOf(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32LE(0);
}

/** Picks from `items` with Zipf weights 1/(rank+1)^s: the head is common, the tail rare. */
export function zipfPicker<T>(items: readonly T[], s: number, random: () => number): () => T {
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < items.length; i++) {
    total += 1 / Math.pow(i + 1, s);
    cumulative.push(total);
  }
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo]!;
  };
}

/** The access token of a seeded account: derived from its login, so the harness knows it without storing it. */
export function tokenOf(login: string): string {
  return createHash('sha1').update(`forgekit-bench-token:${login}`).digest('hex');
}

export interface PlannedAccount {
  id: number;
  login: string;
  type: 'user' | 'org';
  fullName: string;
  /** '' for organizations. */
  email: string;
  isAdmin: boolean;
  /**
   * Organizations only may be other than public: every 20th is limited (hidden from anonymous callers), every 100th
   * private (seen by its members and admins), `bench-org` always public. They own repositories and issues like the
   * rest, so every search and list meets owners its caller cannot see, as on a site with such organizations (a hidden
   * owner that owns something had cliffs no case met while only accounts owning nothing were hidden).
   */
  visibility: AccountVisibility;
  createdAt: string;
}

export type AccountVisibility = 'public' | 'limited' | 'private';

/** The visibility the plan gives the i-th organization (0 is `bench-org`). */
export function orgVisibility(i: number): AccountVisibility {
  if (i === 0) return 'public';
  // The 13th of every hundred private (so the quick dataset's 30 organizations have one too), every 20th from the 7th limited.
  return i % 100 === 13 ? 'private' : i % 20 === 7 ? 'limited' : 'public';
}

export interface PlannedRepoFull extends PlannedRepo {
  name: string;
  description: string;
  createdAt: string;
}

export interface PlannedTeam {
  id: number;
  orgId: number;
  name: string;
  permission: 'read' | 'write' | 'admin' | 'owner';
  includesAllRepos: boolean;
  isOwners: boolean;
}

export interface PlannedMembership {
  teamId: number;
  orgId: number;
  userId: number;
  owners: boolean;
}

export interface DatasetPlan {
  sizes: DatasetSizes;
  /** Users first (ids 1..users), then organizations: one account id sequence, like the users plugin. */
  accounts: PlannedAccount[];
  users: PlannedAccount[];
  orgs: PlannedAccount[];
  roles: Record<BenchRole, PlannedAccount>;
  org: PlannedAccount;
  repos: PlannedRepoFull[];
  teams: PlannedTeam[];
  memberships: PlannedMembership[];
  /** How many names contain each search term (reported so readers know what a case searched through). */
  termCounts: Record<keyof typeof TERMS, number>;
}

const EPOCH = Date.UTC(2024, 0, 1);
function stamp(minutes: number): string {
  return new Date(EPOCH + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function planDataset(sizes: DatasetSizes): DatasetPlan {
  const accounts: PlannedAccount[] = [];
  const taken = new Set<string>();
  const claim = (login: string): string => {
    let name = login;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${login}${n}`;
    taken.add(name.toLowerCase());
    return name;
  };

  // Users: the roles first (stable ids), then realistic logins.
  const rUsers = prng(seedOf('users'));
  const roleNames = Object.values(ROLE_LOGINS);
  for (let i = 0; i < sizes.users; i++) {
    let login: string;
    let fullName: string;
    if (i < roleNames.length) {
      login = claim(roleNames[i]!);
      fullName = `Bench ${capitalise(login.slice(6))}`;
    } else {
      const first = FIRST_NAMES[Math.floor(rUsers() * FIRST_NAMES.length)]!;
      const last = LAST_NAMES[Math.floor(rUsers() * LAST_NAMES.length)]!;
      const style = rUsers();
      const base = style < 0.4 ? `${first}-${last}` : style < 0.7 ? `${first}${last}` : style < 0.9 ? `${first}${Math.floor(rUsers() * 100)}` : `${first[0]}${last}`;
      login = claim(base);
      fullName = rUsers() < 0.8 ? `${capitalise(first)} ${capitalise(last)}` : '';
    }
    accounts.push({
      id: accounts.length + 1,
      login,
      type: 'user',
      fullName,
      email: `${login.toLowerCase()}@example.com`,
      isAdmin: login === ROLE_LOGINS.admin,
      visibility: 'public',
      createdAt: stamp(i),
    });
  }
  const users = accounts.slice();

  const rOrgs = prng(seedOf('orgs'));
  for (let i = 0; i < sizes.orgs; i++) {
    const login = i === 0 ? claim(BENCH_ORG)
      : claim(`${REPO_WORDS[Math.floor(rOrgs() * REPO_WORDS.length)]}-${ORG_WORDS[Math.floor(rOrgs() * ORG_WORDS.length)]}`);
    accounts.push({ id: accounts.length + 1, login, type: 'org', fullName: '', email: '', isAdmin: false, visibility: orgVisibility(i), createdAt: stamp(sizes.users + i) });
  }
  const orgs = accounts.slice(sizes.users);
  const byLogin = new Map(accounts.map((a) => [a.login, a]));
  const roles = Object.fromEntries(Object.entries(ROLE_LOGINS).map(([role, login]) => [role, byLogin.get(login)!])) as Record<BenchRole, PlannedAccount>;
  const org = byLogin.get(BENCH_ORG)!;

  // Teams: every organization has its Owners team and a Developers team (write on all repositories).
  const rTeams = prng(seedOf('teams'));
  const teams: PlannedTeam[] = [];
  const memberships: PlannedMembership[] = [];
  const ordinaryUsers = users.filter((u) => !roleNames.includes(u.login));
  const pickUser = () => ordinaryUsers[Math.floor(rTeams() * ordinaryUsers.length)]!;
  const memberKeys = new Set<string>();
  for (const o of orgs) {
    const owners: PlannedTeam = { id: teams.length + 1, orgId: o.id, name: 'Owners', permission: 'owner', includesAllRepos: true, isOwners: true };
    const devs: PlannedTeam = { id: teams.length + 2, orgId: o.id, name: 'Developers', permission: 'write', includesAllRepos: true, isOwners: false };
    teams.push(owners, devs);
    const add = (team: PlannedTeam, userId: number) => {
      if (!memberKeys.has(`${team.id}:${userId}`)) {
        memberKeys.add(`${team.id}:${userId}`);
        memberships.push({ teamId: team.id, orgId: o.id, userId, owners: team.isOwners });
      }
    };
    const nOwners = 1 + Math.floor(rTeams() * 3);
    for (let k = 0; k < nOwners; k++) add(owners, pickUser().id);
    const nDevs = Math.floor(rTeams() * 5);
    for (let k = 0; k < nDevs; k++) add(devs, pickUser().id);
    if (o.id === org.id) add(devs, roles.member.id);
  }

  // Repositories: names of 1–3 Zipf-drawn words; the `owner` role gets exactly `ownerRepos`, bench-org a few hundred,
  // the rest go to users (70%) and organizations (30%) with a heavy-tailed owner choice (a few own many).
  const rRepos = prng(seedOf('repos'));
  const word = zipfPicker(REPO_WORDS, 1.07, rRepos);
  const orgRepos = Math.min(Math.max(20, Math.round(sizes.repos * 0.003)), Math.floor(sizes.repos / 10));
  const rareEvery = Math.max(1, Math.floor(sizes.repos / Math.max(3, Math.round(sizes.repos / 10_000))));
  const namesByOwner = new Map<number, Set<string>>();
  const repos: PlannedRepoFull[] = [];
  const ownerPool = ordinaryUsers.filter((u) => u.id !== org.id);
  for (let i = 0; i < sizes.repos; i++) {
    let ownerId: number;
    if (i < sizes.ownerRepos) ownerId = roles.owner.id;
    else if (i < sizes.ownerRepos + orgRepos) ownerId = org.id;
    else if (rRepos() < 0.7) ownerId = ownerPool[Math.floor(Math.pow(rRepos(), 1.8) * ownerPool.length)]!.id;
    else ownerId = orgs[1 + Math.floor(Math.pow(rRepos(), 2) * (orgs.length - 1))]?.id ?? org.id;
    const parts = [word()];
    const extra = rRepos();
    const more = extra < 0.15 ? 2 : extra < 0.55 ? 1 : 0;
    for (let k = 0, tries = 0; k < more && tries < 20; tries++) {
      const w = word();
      if (!parts.includes(w)) {
        parts.push(w);
        k++;
      }
    }
    if (i % rareEvery === rareEvery - 1) parts.splice(Math.floor(rRepos() * (parts.length + 1)), 0, RARE_WORD);
    let base = rRepos() < 0.1 ? parts.map(capitalise).join('') : parts.join(rRepos() < 0.85 ? '-' : '_');
    if (rRepos() < 0.05) base += `-${Math.floor(rRepos() * 20) + 1}`;
    let set = namesByOwner.get(ownerId);
    if (!set) namesByOwner.set(ownerId, (set = new Set()));
    let name = base;
    for (let n = 2; set.has(name.toLowerCase()); n++) name = `${base}-${n}`;
    set.add(name.toLowerCase());
    const privateShare = ownerId === org.id ? Math.max(sizes.privateShare, 0.25) : sizes.privateShare;
    repos.push({
      id: i + 1,
      ownerId,
      name,
      lowerName: name.toLowerCase(),
      private: rRepos() < privateShare,
      description: `${capitalise(parts.join(' '))}${rRepos() < 0.5 ? ' for everyone' : ''}`,
      createdAt: stamp(i),
    });
  }

  const termCounts = {
    common: repos.filter((r) => r.lowerName.includes(TERMS.common)).length,
    rare: repos.filter((r) => r.lowerName.includes(TERMS.rare)).length,
    org: repos.filter((r) => r.ownerId === org.id && r.lowerName.includes(TERMS.org)).length,
    user: users.filter((u) => u.login.toLowerCase().includes(TERMS.user) || u.fullName.toLowerCase().includes(TERMS.user)).length,
  };
  return { sizes, accounts, users, orgs, roles, org, repos, teams, memberships, termCounts };
}

export { stamp as benchTimestamp };
