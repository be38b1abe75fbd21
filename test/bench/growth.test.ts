// The growth report (bench/growth.ts) and the `--repos` option behind it: sizes, file names, per-family cost growth.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { FULL_SIZES, planDataset } from '../../bench/dataset.js';
import { growthReport, loadRun } from '../../bench/growth.js';
import { resultFileName } from '../../bench/report.js';
import { datasetSizes, parseOptions } from '../../bench/run.js';

t.test('--node-flag: node options of the forgekit server, checked', async (t) => {
  t.same(parseOptions([]).nodeFlags, [], 'none by default');
  t.same(parseOptions(['--node-flag=--max-semi-space-size=32', '--node-flag=--trace-gc']).nodeFlags, ['--max-semi-space-size=32', '--trace-gc']);
  t.throws(() => parseOptions(['--node-flag=dist/evil.js']), /--node-flag must be a node option/, 'a script is refused');
  t.throws(() => parseOptions(['--node-flag=--a b']), /--node-flag must be a node option/, 'one flag per option');
});

t.test('--repos changes the number of repositories only', async (t) => {
  t.equal(parseOptions([]).repos, null);
  t.equal(parseOptions(['--repos', '1000000']).repos, 1_000_000);
  t.throws(() => parseOptions(['--repos', '12']), /--repos must be a number ≥ 1000/);
  t.throws(() => parseOptions(['--repos', 'many']), /--repos/);
  t.same(datasetSizes({ quick: false, repos: null }), FULL_SIZES);
  const small = datasetSizes({ quick: false, repos: 10_000 });
  t.same(small, { ...FULL_SIZES, repos: 10_000, ownerRepos: 1_000 });
  t.equal(datasetSizes({ quick: false, repos: 5_000 }).ownerRepos, 500, 'the owner role keeps at most a tenth');
  const plan = planDataset({ ...small, repos: 2_000, ownerRepos: 200 });
  t.equal(plan.repos.length, 2_000);
  t.equal(plan.repos.filter((r) => r.ownerId === plan.roles.owner.id).length, 200);
  t.equal(plan.accounts.length, FULL_SIZES.users + FULL_SIZES.orgs, 'accounts as in the full dataset');
});

t.test('a growth run names its size in the result file', async (t) => {
  const base = { startedAt: '2026-11-25T13:00:00Z', commit: { short: 'abc1234' } as never, mode: 'full' as const, settings: { filter: ['search-rnd'] } };
  t.equal(resultFileName({ ...base, dataset: { sizes: { repos: 100_000 } } }), '2026-11-25-abc1234-only-search-rnd.json');
  t.equal(resultFileName({ ...base, dataset: { sizes: { repos: 1_000_000 } } }), '2026-11-25-abc1234-1000000repos-only-search-rnd.json');
});

t.test('the report gives boot, RSS and each family\'s cost growth against 100k', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'forgekit-growth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const side = (reqPerSec: number, cpuUsPerRequest: number, p99Ms: number) => ({ reqPerSec, cpuUsPerRequest, p99Ms });
  const run = (repos: number, costs: number[]) => {
    const file = path.join(dir, `${repos}.json`);
    writeFileSync(file, JSON.stringify({
      dataset: { sizes: { repos } },
      server: { bootMs: repos / 20, rssAfterBootBytes: repos * 4096, maxRssBytes: repos * 5000 },
      cases: [
        ...costs.map((c, k) => ({ name: `search-rnd-q-anon-${k}`, path: `/api/v1/repos/search?q=${k}`, forgekit: side(1e6 / c, c, c / 10), bare: side(10_000, 20, 2), load: [1.5, 2] })),
        { name: 'mixed-0', path: '(stream)', forgekit: side(3000, 200, 50), bare: side(12_000, 20, 5), load: [2.5] },
        { name: 'version', path: '/api/v1/version', forgekit: side(9000, 30, 3), bare: side(10_000, 20, 2) },
      ],
    }));
    return file;
  };
  const files = [run(1_000_000, [300, 400, 900]), run(10_000, [90, 100, 110]), run(100_000, [100, 200, 300])];
  const runs = files.map(loadRun);
  t.same(runs[0]!.load, [1.5, 2.5]);
  const text = growthReport(runs);
  const lines = text.split('\n');
  t.match(lines[2]!, /^\| 10k \| 0\.5 \| 39 MiB \| 48 MiB \| 1\.5–2\.5 \|$/, 'sizes in ascending order');
  t.match(lines[4]!, /^\| 1M \| 50\.0 \| 3906 MiB \|/);
  t.ok(lines.includes('| q-anon | 10k | 3 | 100 | 110 | 1.00 | 0.91 | 11.0 | 0.50× |'), text);
  t.ok(lines.includes('| q-anon | 100k | 3 | 200 | 300 | 0.50 | 0.33 | 30.0 | 1.00× |'), text);
  t.ok(lines.includes('| q-anon | 1M | 3 | 400 | 900 | 0.25 | 0.11 | 90.0 | 2.00× |'), text);
  t.ok(lines.includes('| mixed | 1M | 1 | 200 | 200 | 0.25 | 0.25 | 50.0 | 1.00× |'), text);
  t.notOk(text.includes('version'), 'hand-picked cases are not families');
});

t.test('a growth series asks every size the same randomized searches', async (t) => {
  const { cases, seedSearchRandom } = await import('../../bench/cases/search-random.js');
  const full = planDataset(FULL_SIZES);
  const paths = async (repos: number, names: string[]) => {
    const ctx = {
      quick: false, sizes: { ...FULL_SIZES, repos }, repos: names.map((lowerName, i) => ({ id: i + 1, lowerName })),
      fixture: { accounts: { owner: { id: full.roles.owner.id } } }, log: () => {},
    };
    await seedSearchRandom(ctx as never);
    return cases.map((c) => (typeof c.path === 'function' ? c.path({} as never) : c.path));
  };
  const atFull = await paths(FULL_SIZES.repos, full.repos.map((r) => r.lowerName));
  t.ok(atFull.length >= 40, 'every family drawn');
  const other = ['only-at-another-size', 'another-name'];
  t.same(await paths(1_000_000, other), atFull, '1M: the same requests as the full dataset');
  t.same(await paths(10_000, other), atFull, '10k: the same requests as the full dataset');
  const own = await paths(FULL_SIZES.repos, other);
  const termOf = (p: string) => decodeURIComponent(new URL(p, 'http://x').searchParams.get('q') ?? '');
  t.ok(own.every((p) => other.some((name) => name.includes(termOf(p)))), 'the full dataset draws its terms from its seeded names');
});
