// Turns organizations of a kept data dir limited (or private), so anonymous (or signed-in) callers have hidden owners
// that own public repositories and issues — as a site with limited organizations has. Data dirs seeded before the
// plan made every 20th organization limited and every 100th private (bench/dataset.ts `orgVisibility`) had no such
// owner; with this tool they get them, and a newer one gets more (with 100 such organizations on an old data dir,
// `/repos/search?q=app` anonymous was 313 req/s against 7,648 before the index counted from marks).
//
//   node dist/bench/run.js --keep-data …                      # prints "data kept in /tmp/forgekit-bench-XXXX"
//   cp -r /tmp/forgekit-bench-XXXX /tmp/hidden                 # a copy: this rewrites accounts
//   node dist/bench/hide-owners.js --data /tmp/hidden/data --orgs 100 [--visibility limited|private]
//   node dist/bench/profile.js --data /tmp/hidden/data --case version --path '/repos/search?q=app&limit=10'
//
// The organizations taken are those owning public issues (so the issue search meets them too), the role
// organization `bench-org` left out, by ascending id: the same ones for the same data dir.
import { parseArgs } from 'node:util';
import { EmbeddedStore } from '../core/store/index.js';
import type { Store } from '../core/store/port.js';
import { USERS } from '../plugins/users/service.js';
import { ISSUES } from '../plugins/issues/service.js';

/** Organizations that keep their visibility: the benchmark roles' own (`bench/seed.ts`). */
const KEPT = new Set(['bench-org']);

export interface HiddenOwners {
  logins: string[];
  /** Their public repositories' issues (what an issue search subtracts). */
  publicIssues: number;
}

/** Sets `visibility` on the first `count` organizations (by id) owning public issues; returns which. */
export async function hideOwners(store: Store, count: number, visibility: 'limited' | 'private'): Promise<HiddenOwners> {
  const users = store.collection<{ id: number; login: string; type: string; visibility?: string }>(USERS);
  const issues = store.collection<{ repoOwnerId: number; repoPrivate: boolean }>(ISSUES);
  const owners = new Set((await issues.find({ repoPrivate: false }, { projection: { repoOwnerId: 1 } })).map((i) => i.repoOwnerId));
  const orgs = (await users.find({ id: { $in: [...owners] }, type: 'org' }, { projection: { id: 1, login: 1 }, sort: { id: 1 } }))
    .filter((o) => !KEPT.has(o.login))
    .slice(0, count);
  let publicIssues = 0;
  for (const org of orgs) {
    await users.updateOne({ id: org.id }, { $set: { visibility } });
    publicIssues += await issues.count({ repoOwnerId: org.id, repoPrivate: false });
  }
  return { logins: orgs.map((o) => o.login), publicIssues };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      orgs: { type: 'string', default: '100' },
      visibility: { type: 'string', default: 'limited' },
    },
  });
  const count = Number(values.orgs);
  if (!values.data || !Number.isInteger(count) || count < 1 || (values.visibility !== 'limited' && values.visibility !== 'private')) {
    console.error('usage: node dist/bench/hide-owners.js --data <kept data dir>/data [--orgs 100] [--visibility limited|private]');
    process.exit(2);
  }
  const log = { info() {}, warn() {}, error() {}, debug() {} };
  const store = new EmbeddedStore({ dataDir: values.data, compactIntervalMs: 0, log });
  await store.open();
  try {
    const hidden = await hideOwners(store, count, values.visibility);
    console.log(`${hidden.logins.length} organizations made ${values.visibility} (${hidden.logins.slice(0, 5).join(', ')}…), holding ${hidden.publicIssues} public issues`);
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
