// Consistency checks over the stored data of the built-in plugins, with repairs: counters against rows, repository
// records against git directories, rows pointing at deleted accounts or repositories, and index integrity.
// `forgekit doctor` runs them on a stopped server; a startup consistency pass can reuse `checkConsistency`.
import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CollectionSpec, Doc, Store } from '../core/store/port.js';

export interface Problem {
  check: 'counter' | 'git' | 'orphan' | 'index' | 'halfmade' | 'owner';
  /** One line saying what is wrong, e.g. `users #3 numStars is 2, 1 row counts`. */
  message: string;
  /** What `--fix` does about it; absent when it cannot be repaired automatically. */
  repair?: string;
  /** Set once a repair was applied. */
  fixed?: boolean;
  /** @internal */
  apply?: () => Promise<void>;
}

export interface ConsistencyOptions {
  store: Store;
  /** The data directory (git repositories live under `<dataDir>/repositories`). */
  dataDir: string;
  /** The collections the enabled plugins declare (with their indexes). */
  collections: readonly CollectionSpec[];
  /** Apply the repairs. */
  fix?: boolean;
  /** Called after each step with how many of how many are done (progress display). */
  progress?: (done: number, total: number, step: string) => void;
}

export interface ConsistencyReport {
  problems: Problem[];
  /** What was looked at, per check. */
  checked: Record<string, number>;
}

/** Rows that point at other records: collection.field → collection the id must exist in. */
const REFERENCES: Array<[string, string, string, 'delete' | 'unset']> = [
  ['emails', 'uid', 'users', 'delete'],
  ['tokens', 'uid', 'users', 'delete'],
  ['public_keys', 'ownerId', 'users', 'delete'],
  ['gpg_keys', 'ownerId', 'users', 'delete'],
  ['user_badges', 'uid', 'users', 'delete'],
  ['follows', 'followerId', 'users', 'delete'],
  ['follows', 'followingId', 'users', 'delete'],
  ['stars', 'uid', 'users', 'delete'],
  ['stars', 'repoId', 'repos', 'delete'],
  ['watches', 'uid', 'users', 'delete'],
  ['watches', 'repoId', 'repos', 'delete'],
  ['collaborations', 'userId', 'users', 'delete'],
  ['collaborations', 'repoId', 'repos', 'delete'],
  ['teams', 'orgId', 'users', 'delete'],
  ['team_members', 'teamId', 'teams', 'delete'],
  ['team_members', 'userId', 'users', 'delete'],
  ['team_repos', 'teamId', 'teams', 'delete'],
  ['team_repos', 'repoId', 'repos', 'delete'],
  ['repos', 'ownerId', 'users', 'delete'],
  ['repos', 'forkId', 'repos', 'unset'],
  ['git_mirrors', 'repoId', 'repos', 'delete'],
];

/** Denormalised counters: collection.field = number of rows of `rows` whose `by` is the record's id. */
const COUNTERS: Array<[string, string, string, string]> = [
  ['users', 'numFollowers', 'follows', 'followingId'],
  ['users', 'numFollowing', 'follows', 'followerId'],
  ['users', 'numStars', 'stars', 'uid'],
  ['repos', 'numStars', 'stars', 'repoId'],
  ['repos', 'numWatches', 'watches', 'repoId'],
  ['repos', 'numForks', 'repos', 'forkId'],
];

function countBy(rows: readonly Doc[], field: string): Map<unknown, number> {
  const counts = new Map<unknown, number>();
  for (const row of rows) {
    const v = row[field];
    if (v !== null && v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return counts;
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** What every check works with: the collections read once (the server is stopped), and the report being built. */
interface Run {
  store: Store;
  known: Map<string, CollectionSpec>;
  problems: Problem[];
  checked: Record<string, number>;
  /** Every row of a collection the enabled plugins declare (none otherwise), read once. */
  all(name: string): Promise<Doc[]>;
  /** Drops the snapshots (after repairs). */
  forget(): void;
  step(name: string): void;
}

export async function checkConsistency(options: ConsistencyOptions): Promise<ConsistencyReport> {
  const { store, fix = false } = options;
  const known = new Map(options.collections.map((c) => [c.name, c]));
  const steps = REFERENCES.length + COUNTERS.length + 1 + options.collections.length;
  let done = 0;
  const docs = new Map<string, Doc[]>();
  const run: Run = {
    store,
    known,
    problems: [],
    checked: {},
    async all(name) {
      if (!known.has(name)) return [];
      let rows = docs.get(name);
      if (!rows) docs.set(name, (rows = await store.collection(name).find({})));
      return rows;
    },
    forget: () => docs.clear(),
    step: (name) => options.progress?.(++done, steps, name),
  };

  await checkReferences(run);
  // Orphans are repaired before counters are counted, so the counters come out right in one pass.
  if (fix) await applyAll(run);
  await checkCounters(run);
  await checkInterruptedCreates(run);
  await checkGitDirectories(run, options.dataDir);
  run.step('git');
  await checkIndexes(run, options.collections);
  if (fix) await applyAll(run);
  for (const problem of run.problems) delete problem.apply;
  return { problems: run.problems, checked: run.checked };
}

async function applyAll(run: Run): Promise<void> {
  for (const problem of run.problems) {
    if (!problem.apply || problem.fixed) continue;
    await problem.apply();
    problem.fixed = true;
  }
  run.forget();
}

/** Rows pointing at a record that does not exist. */
async function checkReferences({ store, known, problems, checked, all, step }: Run): Promise<void> {
  for (const [name, field, target, action] of REFERENCES) {
    if (known.has(name) && known.has(target)) {
      const ids = new Set((await all(target)).map((d) => d.id));
      for (const row of await all(name)) {
        const ref = row[field];
        if (ref === null || ref === undefined || ids.has(ref)) continue;
        const where = `${name} #${String(row.id ?? row._id ?? '?')}`;
        problems.push({
          check: 'orphan',
          message: `${where}: ${field} ${String(ref)} refers to a missing ${target} record`,
          repair: action === 'delete' ? `delete ${where}` : `set ${where} ${field} to null`,
          apply: async () => {
            const filter = row.id !== undefined ? { id: row.id } : { [field]: ref };
            if (action === 'delete') await store.collection(name).deleteOne(filter);
            else await store.collection(name).updateOne(filter, { $set: { [field]: null } });
          },
        });
      }
      checked.orphan = (checked.orphan ?? 0) + (await all(name)).length;
    }
    step('references');
  }
}

/** Denormalised counters against the rows they count. */
async function checkCounters({ store, known, problems, checked, all, step }: Run): Promise<void> {
  for (const [name, field, rowsName, by] of COUNTERS) {
    if (known.has(name) && known.has(rowsName)) {
      const counts = countBy(await all(rowsName), by);
      for (const record of await all(name)) {
        if (typeof record[field] !== 'number' && record[field] !== undefined) continue;
        const actual = counts.get(record.id) ?? 0;
        const stored = (record[field] as number | undefined) ?? 0;
        if (stored === actual) continue;
        problems.push({
          check: 'counter',
          message: `${name} #${String(record.id)}: ${field} is ${stored}, ${actual} ${rowsName} rows count`,
          repair: `set ${field} to ${actual}`,
          apply: async () => {
            await store.collection(name).updateOne({ id: record.id }, { $set: { [field]: actual } });
          },
        });
      }
      checked.counter = (checked.counter ?? 0) + (await all(name)).length;
    }
    step('counters');
  }
}

/**
 * Creates a crash interrupted (the repos and orgs plugins roll back / finish them when they start) and organizations
 * without any owner (nobody but a site admin could reach their private repositories).
 */
async function checkInterruptedCreates({ known, problems, all }: Run): Promise<void> {
  for (const repo of await all('repos')) {
    if (repo.creating !== true) continue;
    problems.push({ check: 'halfmade', message: `repos #${String(repo.id)} (${String(repo.name)}): a create was interrupted`, repair: 'rolled back when the server next starts' });
  }
  for (const intent of await all('org_intents')) {
    problems.push({ check: 'halfmade', message: `organization ${String(intent.lowerName)}: a create was interrupted`, repair: 'finished (Owners team) when the server next starts' });
  }
  if (!known.has('team_members')) return;
  const owned = new Set((await all('team_members')).filter((m) => m.owners === true).map((m) => m.orgId));
  const unfinished = new Set((await all('org_intents')).map((i) => i.lowerName));
  for (const org of await all('users')) {
    if (org.type === 'org' && !owned.has(org.id) && !unfinished.has(org.lowerName)) {
      problems.push({ check: 'owner', message: `organization ${String(org.login)} (#${String(org.id)}) has no owner` });
    }
  }
}

/** Repository records against git directories (only when the git plugin keeps repositories here). */
async function checkGitDirectories({ known, problems, checked, all }: Run, dataDir: string): Promise<void> {
  const root = path.join(dataDir, 'repositories');
  if (!known.has('repos') || !(await isDir(root))) return;
  const users = new Map((await all('users')).map((u) => [u.id, u]));
  const expected = new Map<string, Doc>();
  for (const repo of await all('repos')) {
    const owner = users.get(repo.ownerId);
    if (!owner) continue; // reported as an orphan
    expected.set(path.join(String(owner.lowerName), `${String(repo.lowerName)}.git`), repo);
  }
  const found = new Set<string>();
  for (const ownerDir of await readdir(root).catch(() => [] as string[])) {
    if (!(await isDir(path.join(root, ownerDir)))) continue;
    for (const entry of await readdir(path.join(root, ownerDir))) {
      if (entry.endsWith('.git') && (await isDir(path.join(root, ownerDir, entry)))) found.add(path.join(ownerDir, entry));
    }
  }
  for (const [rel, repo] of expected) {
    if (found.has(rel)) continue;
    problems.push({ check: 'git', message: `repos #${String(repo.id)} (${rel.replace(/\.git$/, '')}): its git directory ${path.join(root, rel)} is missing` });
  }
  for (const rel of found) {
    if (expected.has(rel)) continue;
    const lost = path.join(dataDir, 'lost+found', `${rel.replace(/[\\/]/g, '__')}-${Date.now()}`);
    problems.push({
      check: 'git',
      message: `git directory ${path.join(root, rel)} belongs to no repository record`,
      repair: `move it to ${lost}`,
      apply: async () => {
        await mkdir(path.dirname(lost), { recursive: true });
        await rename(path.join(root, rel), lost);
      },
    });
  }
  checked.git = expected.size + found.size;
}

/** Index integrity: unique keys are unique, and every record is found through each of its indexes. */
async function checkIndexes({ store, problems, checked, all, step }: Run, collections: readonly CollectionSpec[]): Promise<void> {
  for (const spec of collections) {
    const rows = await all(spec.name);
    const collection = store.collection(spec.name);
    for (const index of spec.indexes ?? []) {
      const fields = Object.keys(index.fields);
      const keyOf = (d: Doc) => JSON.stringify(fields.map((f) => d[f] ?? null));
      if (index.unique) {
        const seen = new Map<string, unknown>();
        for (const row of rows) {
          if (index.sparse && fields.some((f) => row[f] === undefined)) continue;
          const key = keyOf(row);
          if (seen.has(key)) {
            problems.push({ check: 'index', message: `${spec.name}: unique index (${fields.join(', ')}) holds ${key} twice (#${String(seen.get(key))} and #${String(row.id)})` });
          } else seen.set(key, row.id);
        }
      }
      for (const row of rows) {
        if (fields.some((f) => row[f] === undefined)) continue;
        const filter = Object.fromEntries(fields.map((f) => [f, row[f]]));
        const hits = await collection.find(filter, { projection: { id: 1 } });
        if (!hits.some((h) => h.id === row.id)) {
          problems.push({ check: 'index', message: `${spec.name} #${String(row.id)} is not found through its index (${fields.join(', ')})` });
        }
      }
    }
    checked.index = (checked.index ?? 0) + rows.length;
    step('indexes');
  }
}
