// Smoke test of the whole benchmark harness in quick mode (small dataset, short runs): it seeds, boots forgekit and
// the bare replay server, measures every case and writes well-formed results. It never asserts a timing.
// Runs are shortened below --quick's own (0.1 s per run, no warm-up or settling pause): this only has to prove every case
// works, and it is the suite's longest file.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { PACKAGE_ROOT } from '../../core/config.js';
import { QUICK_SIZES } from '../../bench/dataset.js';
import { DEFAULT_CASES } from '../../bench/default-cases.js';
import { RESULT_SCHEMA, type BenchResult } from '../../bench/report.js';
import { nodeCommand } from '../helpers/child-env.js';

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(...nodeCommand([path.join(PACKAGE_ROOT, 'dist', 'bench', 'run.js'), ...args]), {
      cwd: PACKAGE_ROOT,
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Seeding, two servers and ~60 cases take about a minute on a 2-core machine, two with another test file beside it,
// close to the suite's 180 s per-file limit: this file alone gets a longer one (a hang still fails it).
t.setTimeout(600_000);

t.test('npm run bench -- --quick runs every case and writes well-formed results', async (t) => {
  const out = await mkdtemp(path.join(os.tmpdir(), 'forgekit-bench-quick-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  const resultsMd = path.join(PACKAGE_ROOT, 'bench', 'RESULTS.md');
  const mdBefore = await stat(resultsMd).then((s) => s.mtimeMs, () => null);

  // One restart: the cases then run against the restarted server, and the boot is the median of the two.
  const { code, stdout, stderr } = await run(['--quick', '--duration', '0.1', '--warmup', '0', '--settle', '0', '--restarts', '1', '--out', out]);
  t.equal(code, 0, `the harness exits 0\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`);

  const files = await readdir(out);
  t.equal(files.length, 1, 'one result file');
  t.match(files[0], /^\d{4}-\d{2}-\d{2}-[0-9a-z]+-quick\.json$/, 'named <date>-<commit>-quick.json');
  const result = JSON.parse(await readFile(path.join(out, files[0]!), 'utf8')) as BenchResult;

  t.test('the document', async (t) => {
    t.equal(result.schema, RESULT_SCHEMA);
    t.equal(result.mode, 'quick');
    t.ok(['embedded', 'mongodb'].includes(result.store));
    t.ok(result.machine.cpus >= 1 && result.machine.node.startsWith('v'), 'machine described');
    t.match(result.commit.commit, /^([0-9a-f]{40}|unknown)$/);
    t.ok(result.settings.rounds >= 2, 'at least two interleaved rounds');
    t.equal(result.settings.logLevel, 'info', 'request logging on');
    t.same(result.dataset.sizes, QUICK_SIZES);
    t.equal(result.dataset.accounts, QUICK_SIZES.users + QUICK_SIZES.orgs);
  });

  t.test('seeding, boot and memory are reported', async (t) => {
    t.ok(result.dataset.seed.ms > 0);
    const docs = Object.fromEntries(result.dataset.seed.steps.map((s) => [s.name, s.docs]));
    t.equal(docs.accounts, QUICK_SIZES.users + QUICK_SIZES.orgs);
    t.equal(docs.repositories, QUICK_SIZES.repos, 'repositories (the search index is built in memory at start)');
    t.equal(docs['ssh keys'], QUICK_SIZES.sshKeys);
    t.ok(result.server.bootMs > 0 && result.server.createForgeMs > 0);
    t.equal(result.server.bootsMs?.length, 2, 'the first boot and one restart');
    t.equal(result.server.bootMs, Math.round((result.server.bootsMs![0]! + result.server.bootsMs![1]!) / 2), 'judged on their median');
    t.match(stdout, /forgekit restart 1 ready in \d+ ms/);
    t.match(stdout, /boot \d+\.\d\d s \(median of 2 boots: /, 'the summary names every boot');
    t.ok(result.server.rssAfterBootBytes > 10 * 1024 * 1024);
    t.ok(result.server.maxRssBytes >= result.server.rssAfterBootBytes * 0.5);
    t.ok(result.server.logLines > 0, 'forgekit wrote request log lines');
    // The cases ran after the serving boot's background work (the issues' q index) ended, and the run says so.
    const settled = result.server.settled;
    t.ok(settled && settled.afterListenMs >= 0, 'the serving boot settled before the first case');
    t.same(
      settled?.work.map((w) => [w.name, w.ok]).sort(),
      [['issues: q trigram index', true], ['store: indexes', true]],
      'its background work: the q index and the store\'s indexes, built',
    );
    // Well inside the server's 10 s shutdown timeout: a stop that waits it out had a request left in flight (git
    // transfers did, when a client went away at the run's end: plugins/lib/response-gone.ts endResponse).
    t.ok(typeof result.server.stopMs === 'number' && result.server.stopMs >= 0 && result.server.stopMs < 8_000, `the server stopped by itself, no request left in flight (${result.server.stopMs} ms)`);
    t.match(stdout, /; stopped in \d+\.\d\d s/, 'the summary says how long the stop took');
    t.type(result.targets.bootMet, 'boolean');
    t.type(result.targets.rssMet, 'boolean');
  });

  t.test('every case of the table ran (or says why not), against both servers', async (t) => {
    const byName = new Map(result.cases.map((c) => [c.name, c]));
    const replaced = new Set(result.cases.map((c) => c.replaces).filter(Boolean));
    for (const c of DEFAULT_CASES) t.ok(byName.has(c.name) || replaced.has(c.name), `case ${c.name} is in the results`);
    const failed = result.cases.filter((c) => c.status === 'failed');
    t.same(failed.map((c) => `${c.name}: ${c.reason}`), [], 'no case failed');
    for (const c of result.cases.filter((x) => x.status === 'skipped')) t.ok(c.reason && c.reason.length > 0, `${c.name} skipped with a reason`);
    const ok = result.cases.filter((c) => c.status === 'ok');
    t.ok(ok.some((c) => c.name === 'version'), 'GET /version measured');
    t.ok(ok.length >= 5, `${ok.length} cases measured`);
    for (const c of ok) {
      t.equal(c.recorded!.status, 200, `${c.name} recorded a 200`);
      for (const side of [c.forgekit!, c.bare!]) {
        t.equal(side.rounds.length, result.settings.rounds, `${c.name}: one run per round`);
        t.ok(side.requests > 0 && side.reqPerSec > 0, `${c.name}: requests answered`);
        t.ok(side.p50Ms >= 0 && side.p99Ms >= side.p50Ms, `${c.name}: p50 ≤ p99`);
        t.equal(side.errors, 0, `${c.name}: no errors`);
      }
      t.ok(Number.isFinite(c.ratio!.ratio) && c.ratio!.ratio > 0, `${c.name}: a ratio`);
      if (process.platform === 'linux') {
        t.ok(c.forgekit!.cpuUsPerRequest! > 0 && c.bare!.cpuUsPerRequest! > 0, `${c.name}: CPU per request on both servers`);
        t.ok(c.ratio!.cpu! > 0, `${c.name}: a CPU ratio`);
      }
      t.equal(c.ratio!.perRound.length, result.settings.rounds);
      t.ok(c.ratio!.min <= c.ratio!.ratio + 1e-9 || c.ratio!.max >= c.ratio!.ratio - 1e-9);
      t.ok(c.verdict, `${c.name}: judged against its target`);
    }
  });

  t.test('the randomized list families ran, one request each, their checks passed', async (t) => {
    const list = result.cases.filter((c) => c.name.startsWith('list-rnd-'));
    const keys = list.map((c) => c.name.replace(/^list-rnd-(.+)-\d+$/, '$1'));
    t.same(keys, ['user-repos', 'owner-repos-anon', 'owner-repos-signed', 'org-repos', 'starred', 'subscriptions', 'org-members', 'issues-list', 'issues-search']);
    for (const c of list) t.equal(c.status, 'ok', `${c.name}: ${c.reason ?? 'measured'}`);
    // A family whose every draw signs in: the result names the login, so a request can be replayed as its caller.
    for (const c of list.filter((x) => /^list-rnd-user-repos-/.test(x.name))) {
      t.match(c.as, /^[A-Za-z0-9][\w.-]*$/, `${c.name} records the login it was signed as (${c.as})`);
    }
  });

  t.test('the table is printed and RESULTS.md is left alone', async (t) => {
    t.match(stdout, /case\s+forgekit req\/s\s+p50\s+p99\s+bare req\/s/);
    t.match(stdout, /\nversion\s+[\d,]+/);
    t.match(stdout, /server \(\w+ store\): boot/);
    t.match(stdout, /Load generator check: in \d+ of \d+ requests the bare server was under 50% busy/);
    const mdAfter = await stat(resultsMd).then((s) => s.mtimeMs, () => null);
    t.equal(mdAfter, mdBefore);
  });
});

t.test('a case needing a seeder that --skip-seeder leaves out is skipped with the reason', async (t) => {
  const out = await mkdtemp(path.join(os.tmpdir(), 'forgekit-bench-skip-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  const { code, stdout, stderr } = await run(['--quick', '--case', 'list-rnd-issues', '--skip-seeder', 'issues', '--duration', '0.1', '--warmup', '0', '--out', out]);
  t.equal(code, 0, `the harness exits 0\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`);
  const files = await readdir(out);
  const result = JSON.parse(await readFile(path.join(out, files[0]!), 'utf8')) as BenchResult;
  t.same(result.cases.map((c) => c.name), ['list-rnd-issues-list-0', 'list-rnd-issues-search-0']);
  for (const c of result.cases) {
    t.equal(c.status, 'skipped');
    t.match(c.reason, /needs the seeder of bench\/cases\/issues\.ts/);
  }
  t.notOk(result.dataset.seed.steps.some((s) => s.name.includes('issues.ts')), 'the issues seeder did not run');
  t.ok(result.dataset.seed.steps.some((s) => s.name.includes('list-random.ts')), 'the case file\'s own seeder ran');
});
