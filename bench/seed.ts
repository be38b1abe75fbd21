// Seeds the planned dataset straight through the store port (never through HTTP, so 100k repositories take seconds),
// in the document shapes the plugins store. Capability case files may add their own seeders (bench/case.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT, resolvePluginSettings, type ForgeConfig } from '../core/config.js';
import type { Plugin } from '../core/plugin.js';
import type { Doc, Store } from '../core/store/port.js';
import { USERS } from '../plugins/users/service.js';
import { hashPassword } from '../plugins/users/password.js';
import { TOKENS, hashToken } from '../plugins/tokens/service.js';
import { TEAMS, TEAM_MEMBERS } from '../plugins/orgs/service.js';
import { REPOS } from '../plugins/repos/service.js';
import { ownerKeyOf } from '../plugins/repos/by-name.js';
import { trigramsOf } from '../plugins/lib/grams.js';
import { COLLECTION as SSH_KEYS } from '../plugins/ssh-keys/handlers.js';
import { parseSshPublicKey, type MinimumSizes } from '../plugins/ssh-keys/parse.js';
import sshKeysPlugin from '../plugins/ssh-keys/index.js';
import { COLLECTION as GPG_KEYS } from '../plugins/gpg-keys/handlers.js';
import { parseGpgPublicKey, type GpgKeyInfo } from '../plugins/gpg-keys/parse.js';
import { toRfc3339 } from '../core/time.js';
import type { BenchFixture, BenchRole, BenchSeeder, SeedContext } from './case.js';
import { benchTimestamp, PASSWORD, prng, seedOf, TERMS, tokenOf, type DatasetPlan } from './dataset.js';

export interface SeedStep {
  name: string;
  ms: number;
  docs: number;
  /** Why it did not run (its plugin is disabled, no seeder exists), when it did not. */
  skipped?: string;
}

export interface SeedReport {
  ms: number;
  steps: SeedStep[];
}

const CHUNK = 2_000;

async function insertChunked(store: Store, collection: string, docs: Doc[]): Promise<number> {
  const col = store.collection(collection);
  for (let i = 0; i < docs.length; i += CHUNK) await col.insertMany(docs.slice(i, i + CHUNK));
  return docs.length;
}

/** Takes `count` ids from a sequence and checks they are the planned 1..count (the store must start empty). */
async function takeIds(store: Store, sequence: string, count: number): Promise<void> {
  const BATCH = 500;
  for (let start = 1; start <= count; start += BATCH) {
    const n = Math.min(BATCH, count - start + 1);
    const ids = await Promise.all(Array.from({ length: n }, () => store.nextId(sequence)));
    ids.sort((a, b) => a - b);
    if (ids[0] !== start || ids[n - 1] !== start + n - 1) {
      throw new Error(`sequence "${sequence}" handed out ${ids[0]}…${ids[n - 1]} where ${start}… was planned: the store is not empty`);
    }
  }
}

export function fixtureOf(plan: DatasetPlan, apiPrefix: string, quick: boolean): BenchFixture {
  const accounts = Object.fromEntries(Object.entries(plan.roles).map(([role, a]) => [role, {
    id: a.id, login: a.login, email: a.email, token: tokenOf(a.login),
  }])) as BenchFixture['accounts'];
  return {
    apiPrefix,
    quick,
    sizes: plan.sizes,
    accounts,
    org: { id: plan.org.id, login: plan.org.login },
    terms: { ...TERMS },
    termCounts: { ...plan.termCounts },
  };
}

function accountDocs(plan: DatasetPlan, hash: { hash: string; salt: string }): Doc[] {
  return plan.accounts.map((a) => a.type === 'user'
    ? {
      id: a.id, login: a.login, lowerName: a.login.toLowerCase(), type: 'user', fullName: a.fullName,
      email: a.email, lowerEmail: a.email.toLowerCase(), isAdmin: a.isAdmin,
      passwordHash: hash.hash, passwordSalt: hash.salt, description: '', website: '', location: '',
      numFollowers: 0, numFollowing: 0, numStars: 0,
      createdAt: a.createdAt, updatedAt: a.createdAt,
    }
    : {
      id: a.id, login: a.login, lowerName: a.login.toLowerCase(), type: 'org', fullName: a.fullName, email: '',
      visibility: a.visibility, isAdmin: false, description: `The ${a.login} organization`, website: '', location: '',
      numFollowers: 0, numFollowing: 0, numStars: 0, createdAt: a.createdAt, updatedAt: a.createdAt,
    });
}

function repoDoc(r: DatasetPlan['repos'][number]): Doc {
  return {
    // As the repos plugin stores a repository: its `ownerKey` is the name lookup's index (plugins/repos/by-name.ts).
    id: r.id, ownerId: r.ownerId, name: r.name, lowerName: r.lowerName, ownerKey: ownerKeyOf(r.ownerId, r.lowerName), description: r.description, website: '',
    private: r.private, fork: false, forkId: null, mirror: false, empty: true, size: 0, defaultBranch: '',
    numStars: 0, numForks: 0, numWatches: 0, createdAt: r.createdAt, updatedAt: r.createdAt,
    mirrorUpdated: null, mirrorError: null,
  };
}

function gpgRow(info: GpgKeyInfo, id: number, ownerId: number, primaryKeyId: string, uidEmails: string[], content: string, addedAt: string): Doc {
  return {
    id, ownerId, keyId: info.keyId, primaryKeyId, fingerprint: info.fingerprint, publicKey: info.publicKey,
    canSign: info.canSign, canEncryptComms: info.canEncryptComms, canEncryptStorage: info.canEncryptStorage,
    canCertify: info.canCertify, createdAt: toRfc3339(info.createdAt),
    expiresAt: info.expiresAt ? toRfc3339(info.expiresAt) : null, uidEmails, content, addedAt,
  };
}

export function readSshFixture(count: number): string[] {
  const lines = readFileSync(path.join(PACKAGE_ROOT, 'bench/fixtures/ssh-keys.txt'), 'utf8').split('\n').filter((l) => l.trim());
  if (lines.length < count) throw new Error(`bench/fixtures/ssh-keys.txt has ${lines.length} keys, ${count} needed`);
  return lines.slice(0, count);
}

export function readGpgFixture(count: number): string[] {
  const text = readFileSync(path.join(PACKAGE_ROOT, 'bench/fixtures/gpg-keys.asc'), 'utf8');
  const blocks = text.match(/-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]*?-----END PGP PUBLIC KEY BLOCK-----/g) ?? [];
  if (blocks.length < count) throw new Error(`bench/fixtures/gpg-keys.asc has ${blocks.length} keys, ${count} needed`);
  return blocks.slice(0, count);
}

export interface SeedOptions {
  store: Store;
  plan: DatasetPlan;
  fixture: BenchFixture;
  config: ForgeConfig;
  /** Enabled plugins (after `disabledPlugins`). */
  plugins: Plugin<any>[];
  quick: boolean;
  /** Seeders exported by bench/cases/*.ts, by file name. */
  extraSeeders: Array<{ from: string; seed: BenchSeeder }>;
  log: (message: string) => void;
}

/** Declares every enabled plugin's collections (with indexes), then inserts the dataset. */
export async function seedDataset(o: SeedOptions): Promise<SeedReport> {
  const { store, plan } = o;
  const enabled = new Set(o.plugins.map((p) => p.name));
  const steps: SeedStep[] = [];
  const started = performance.now();
  const step = async (name: string, plugins: string[], run: () => Promise<number>) => {
    const missing = plugins.filter((p) => !enabled.has(p));
    if (missing.length) {
      steps.push({ name, ms: 0, docs: 0, skipped: `plugin ${missing.join(', ')} not enabled` });
      o.log(`seed ${name}: skipped (plugin ${missing.join(', ')} not enabled)`);
      return;
    }
    const t = performance.now();
    const docs = await run();
    const ms = Math.round(performance.now() - t);
    steps.push({ name, ms, docs });
    o.log(`seed ${name}: ${docs} documents in ${ms} ms`);
  };

  await step('collections', [], async () => {
    const specs = o.plugins.flatMap((p) => p.collections ?? []);
    if (store.kind === 'mongodb') {
      // A MongoDB database is not a fresh temp dir: empty what the plugins own, and the id sequences.
      for (const spec of specs) await store.drop(spec.name);
      await store.drop('counters');
    }
    for (const spec of specs) await store.ensureCollection(spec);
    if ((await store.collection(USERS).count({})) !== 0) throw new Error('the store is not empty: the benchmark seeds a fresh one');
    return 0;
  });

  await step('accounts', ['users'], async () => {
    const hash = await hashPassword(PASSWORD);
    await takeIds(store, USERS, plan.accounts.length);
    return insertChunked(store, USERS, accountDocs(plan, hash));
  });

  await step('tokens', ['tokens'], async () => {
    await takeIds(store, TOKENS, plan.users.length);
    const docs = plan.users.map((u, i) => {
      const token = tokenOf(u.login);
      return { id: i + 1, uid: u.id, name: 'bench', hash: hashToken(token), lastEight: token.slice(-8), createdAt: u.createdAt };
    });
    return insertChunked(store, TOKENS, docs);
  });

  await step('teams', ['orgs'], async () => {
    await takeIds(store, TEAMS, plan.teams.length);
    const teams = plan.teams.map((t) => ({
      id: t.id, orgId: t.orgId, name: t.name, lowerName: t.name.toLowerCase(), description: '', permission: t.permission,
      includesAllRepos: t.includesAllRepos, isOwners: t.isOwners, createdAt: benchTimestamp(t.id), updatedAt: benchTimestamp(t.id),
    }));
    const members = plan.memberships.map((m) => ({ ...m, createdAt: benchTimestamp(m.teamId) }));
    return (await insertChunked(store, TEAMS, teams)) + (await insertChunked(store, TEAM_MEMBERS, members));
  });

  await step('repositories', ['repos'], async () => {
    await takeIds(store, REPOS, plan.repos.length);
    // The search index is built in memory from these records when the server starts (plugins/repos/memory-index.ts).
    return insertChunked(store, REPOS, plan.repos.map(repoDoc));
  });

  await step('ssh keys', ['ssh-keys'], async () => {
    const owner = o.fixture.accounts.keys;
    const minimum = resolvePluginSettings('ssh-keys', sshKeysPlugin.settings, o.config).minimumSizes as MinimumSizes;
    const lines = readSshFixture(plan.sizes.sshKeys);
    await takeIds(store, SSH_KEYS, lines.length);
    const docs = lines.map((line, i) => {
      const parsed = parseSshPublicKey(line, minimum);
      return {
        id: i + 1, ownerId: owner.id, title: `bench key ${i + 1}`, content: parsed.line, fingerprint: parsed.fingerprint,
        type: parsed.type, bits: parsed.bits, createdAt: benchTimestamp(i),
      };
    });
    return insertChunked(store, SSH_KEYS, docs);
  });

  await step('gpg keys', ['gpg-keys'], async () => {
    const owner = o.fixture.accounts.keys;
    const docs: Doc[] = [];
    for (const [i, armored] of readGpgFixture(plan.sizes.gpgKeys).entries()) {
      const parsed = await parseGpgPublicKey(armored);
      const addedAt = benchTimestamp(i);
      const content = Buffer.from(parsed.binary).toString('base64');
      docs.push(gpgRow(parsed.primary, await store.nextId(GPG_KEYS), owner.id, '', parsed.emails, content, addedAt));
      for (const sub of parsed.subkeys) docs.push(gpgRow(sub, await store.nextId(GPG_KEYS), owner.id, parsed.primary.keyId, [], '', addedAt));
    }
    return insertChunked(store, GPG_KEYS, docs);
  });

  for (const { from, seed } of o.extraSeeders) {
    await step(`${from} (case file seeder)`, [], async () => {
      const ctx: SeedContext = {
        store,
        quick: o.quick,
        sizes: plan.sizes,
        fixture: o.fixture,
        users: plan.users.map((u) => ({ id: u.id, login: u.login })),
        repos: plan.repos.map((r) => ({ id: r.id, ownerId: r.ownerId, lowerName: r.lowerName, private: r.private })),
        random: prng(seedOf(`seeder:${from}`)),
        log: (m) => o.log(`  ${from}: ${m}`),
      };
      await seed(ctx);
      return 0;
    });
  }

  return { ms: Math.round(performance.now() - started), steps };
}

export type { BenchRole };
