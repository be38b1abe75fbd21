// The API-built dataset of issue 20's report (bench/cases/api-built.ts): its pieces (names, term choice, expected
// totals), the harness options it needs (`--repos 0`, explicit cases), and one quick run through the real harness in
// which every request's exact total is checked against the count computed from what was created. No timing asserted.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { PACKAGE_ROOT } from '../../core/config.js';
import { expectedTotal, repoNames, termWithShare } from '../../bench/cases/api-built.js';
import { datasetSizes, matchesFilter, parseOptions } from '../../bench/run.js';
import { familyOf } from '../../bench/families.js';
import type { BenchResult } from '../../bench/report.js';
import { nodeCommand } from '../helpers/child-env.js';

t.test('names: two or three words and a number, unique, the same for the same seed', async (t) => {
  const names = repoNames(2_000, 7);
  t.equal(new Set(names).size, 2_000, 'unique');
  t.ok(names.every((n) => /^[a-z0-9.+-]+-\d{1,3}$/.test(n) && n.split('-').length >= 3), 'words joined by dashes, then a number');
  t.same(repoNames(50, 7), names.slice(0, 50), 'deterministic');
  t.notSame(repoNames(50, 8), names.slice(0, 50));
});

t.test('the term closest to a share of the names', async (t) => {
  const names = ['alpha-1', 'alpine-2', 'beta-3', 'gamma-4', 'delta-5', 'alps-6', 'zeta-7', 'eta-8', 'theta-9', 'iota-10'];
  t.equal(termWithShare(names, 3, 0.3), 'alp', "'alp' is in 3 of 10");
  const share = (term: string) => names.filter((n) => n.includes(term)).length / names.length;
  const eta = termWithShare(names, 3, 0.4);
  t.equal(share(eta), 0.4, `'${eta}' is in 4 of 10 (beta, zeta, eta, theta)`);
  t.equal(termWithShare(names, 2, 1), 'a-', 'the most common when nothing reaches the share');
});

t.test('expected totals follow the callers’ visibility', async (t) => {
  const repos = [
    { name: 'web-app-1', owner: 0, private: false },
    { name: 'web-app-2', owner: 0, private: true },
    { name: 'web-kit-3', owner: 1, private: true },
    { name: 'web-kit-4', owner: 2, private: true },
    { name: 'go-cli-5', owner: 2, private: false },
  ];
  const built = { repos, owners: [], member: { token: '', org: 2 }, collaborator: { token: '', repos: new Set([2]) }, mixedBase: false, seconds: 0 };
  t.equal(expectedTotal(built, 'web', 'anon'), 1);
  t.equal(expectedTotal(built, 'web', 'owner'), 2, 'owner 0 sees its private one');
  t.equal(expectedTotal(built, 'web', 'member'), 2, 'the member sees org 2’s private one');
  t.equal(expectedTotal(built, 'web', 'collab'), 2, 'the collaborator sees repository 2');
  t.equal(expectedTotal(built, 'WEB', 'admin'), 4, 'case-insensitive; the admin sees all');
  t.equal(expectedTotal(built, '-', 'anon'), 2);
});

t.test('--repos 0 and explicit cases', async (t) => {
  t.equal(parseOptions(['--repos', '0']).repos, 0);
  t.equal(datasetSizes({ quick: false, repos: 0 }).repos, 0);
  t.equal(datasetSizes({ quick: false, repos: 0 }).ownerRepos, 0);
  const c = { name: 'api-rnd-anon-0', path: '/', explicit: true };
  t.equal(matchesFilter(c, 'search', []), false, 'not in a run of every case');
  t.equal(matchesFilter(c, 'search', ['search']), false, 'not through its group');
  t.equal(matchesFilter(c, 'search', ['api-rnd']), true, 'by its name');
  t.equal(matchesFilter({ name: 'repos-search-rare', path: '/' }, 'search', ['search']), true, 'others as before');
  t.equal(familyOf('api-rnd-collab-3'), 'api-collab');
  t.equal(familyOf('list-rnd-org-repos-1'), 'list-org-repos');
  t.equal(familyOf('api-built-q3-anon'), null, 'the report’s requests are single cases');
});

t.setTimeout(300_000);

t.test('a quick run builds the dataset through the API and checks every total', async (t) => {
  const out = await mkdtemp(path.join(os.tmpdir(), 'forgekit-bench-api-built-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  const args = ['--quick', '--repos', '0', '--case', 'api-built', '--case', 'api-rnd', '--duration', '0.1', '--warmup', '0.05', '--out', out];
  const child = spawn(...nodeCommand([path.join(PACKAGE_ROOT, 'dist', 'bench', 'run.js'), ...args]), { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0, `the harness exits 0\n${log.slice(-3000)}`);
  t.match(log, /api-built: 400 repositories by 8 owners created through the API/);
  const files = await readdir(out);
  t.equal(files.length, 1);
  t.match(files[0], /-quick-0repos-only-api-built\+api-rnd\.json$/);
  const result = JSON.parse(await readFile(path.join(out, files[0]!), 'utf8')) as BenchResult;
  t.equal(result.dataset.sizes.repos, 0, 'no seeded repositories');
  const names = result.cases.map((c) => c.name).sort();
  t.same(names, ['api-built-q3-anon', 'api-built-q3-owner', 'api-built-q5-anon', 'api-rnd-admin-0', 'api-rnd-anon-0', 'api-rnd-collab-0', 'api-rnd-member-0', 'api-rnd-owner-0']);
  for (const c of result.cases) t.equal(c.status, 'ok', `${c.name}: ${c.status}${c.reason ? ` (${c.reason})` : ''} — its check compares X-Total-Count and the page with the computed answer`);
  const q5 = result.cases.find((c) => c.name === 'api-built-q5-anon');
  t.equal(q5?.connections ?? result.settings.connections, 10, 'the report’s third request at 10 connections');
});
