// bench/hide-owners.ts: organizations owning public issues turned limited in a data dir; a forge started on it hides
// them (their repositories and issues) from anonymous callers, and the role organization keeps its visibility.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedStore } from '../../core/store/index.js';
import { hideOwners } from '../../bench/hide-owners.js';
import { jsonCaller, startForge } from '../helpers/forge.js';

t.test('organizations with public issues are made limited, bench-org kept, and a forge hides them', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-hide-owners-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let f = await startForge({ dataDir });
  const ok = jsonCaller(f, 201);
  const admin = f.admin.token;
  for (const org of ['bench-org', 'acme', 'bolt', 'quiet']) {
    await ok('POST', '/orgs', admin, { username: org });
    await ok('POST', `/org/${org}/repos`, admin, { name: 'app' });
    // `quiet` owns a public repository without issues: not taken.
    if (org !== 'quiet') await ok('POST', `/repos/${org}/app/issues`, admin, { title: `${org} issue` });
  }
  await f.close();

  const log = { info() {}, warn() {}, error() {}, debug() {} };
  const store = new EmbeddedStore({ dataDir, compactIntervalMs: 0, log });
  await store.open();
  const hidden = await hideOwners(store, 5, 'limited');
  await store.close();
  t.same(hidden.logins, ['acme', 'bolt'], 'the organizations owning public issues, bench-org left out');
  t.equal(hidden.publicIssues, 2, 'their public issues counted');

  f = await startForge({ dataDir });
  t.teardown(() => f.close());
  const repos = await f.request('GET', '/repos/search?q=app&limit=50');
  t.same(repos.json.data.map((r: any) => r.full_name).sort(), ['bench-org/app', 'quiet/app'], 'anonymous search: the limited ones hidden');
  const signed = await f.request('GET', '/repos/search?q=app&limit=50', { token: admin });
  t.equal(signed.json.data.length, 4, 'signed in: limited organizations are visible');
  const issues = await f.request('GET', '/repos/issues/search?state=open&limit=50');
  t.same(issues.json.map((i: any) => i.repository.full_name), ['bench-org/app'], 'anonymous issue search: theirs hidden');
  t.equal(issues.headers.get('x-total-count'), '1', 'and counted out');
});
