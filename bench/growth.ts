// Growth report (issue 20): the same randomized cases run at several dataset sizes (`npm run bench -- --repos N`),
// one result file per size. For each size: boot time and RSS; for each case family: the forgekit server's CPU time
// per request (median and worst request of the family), the ratios to the bare server, the worst p99, and how the
// median cost grew against the run at 100,000 repositories (the target: at most 2× at 1M). The search families ask
// every size the same requests (terms drawn from the 100k plan's names: bench/cases/search-random.ts); the list
// families draw their callers and pages from each size's own data.
//   node dist/bench/growth.js bench/results/<10k>.json bench/results/<100k>.json bench/results/<1M>.json
import { readFileSync } from 'node:fs';
import { familyOf, type Case } from './families.js';

interface GrowthRun {
  file: string;
  repos: number;
  bootMs: number;
  rssAfterBootBytes: number;
  maxRssBytes: number;
  load: number[];
  cases: Case[];
}

interface Loaded {
  dataset: { sizes: { repos: number } };
  server: { bootMs: number; rssAfterBootBytes: number; maxRssBytes: number };
  cases: Array<Case & { load?: number[] }>;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
}

const mib = (b: number) => `${Math.round(b / 1024 / 1024)} MiB`;
const size = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

export function loadRun(file: string): GrowthRun {
  const r = JSON.parse(readFileSync(file, 'utf8')) as Loaded;
  const loads = r.cases.flatMap((c) => c.load ?? []);
  return {
    file, repos: r.dataset.sizes.repos, bootMs: r.server.bootMs, rssAfterBootBytes: r.server.rssAfterBootBytes,
    maxRssBytes: r.server.maxRssBytes, load: loads.length ? [Math.min(...loads), Math.max(...loads)] : [], cases: r.cases,
  };
}

export function growthReport(runs: GrowthRun[]): string {
  const sorted = [...runs].sort((a, b) => a.repos - b.repos);
  const out = ['| repositories | boot (s) | RSS after boot | max RSS | load average during cases |', '|--:|--:|--:|--:|---|'];
  for (const r of sorted) {
    out.push(`| ${size(r.repos)} | ${(r.bootMs / 1000).toFixed(1)} | ${mib(r.rssAfterBootBytes)} | ${mib(r.maxRssBytes)} | ${r.load.map((l) => l.toFixed(1)).join('–')} |`);
  }
  // Family → size → its cases.
  const byFamily = new Map<string, Map<number, Case[]>>();
  for (const r of sorted) {
    for (const c of r.cases) {
      const family = familyOf(c.name);
      if (!family || !c.forgekit || !c.bare) continue;
      const sizes = byFamily.get(family) ?? new Map<number, Case[]>();
      sizes.set(r.repos, [...(sizes.get(r.repos) ?? []), c]);
      byFamily.set(family, sizes);
    }
  }
  const base = sorted.find((r) => r.repos === 100_000) ?? sorted[0];
  out.push('', `| family | repositories | requests | median CPU µs/req | worst CPU µs/req | median ratio | worst ratio | worst p99 (ms) | median cost vs ${base ? size(base.repos) : '—'} |`,
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const [family, sizes] of byFamily) {
    const baseCases = base ? sizes.get(base.repos) : undefined;
    const baseCost = baseCases ? median(baseCases.map((c) => c.forgekit!.cpuUsPerRequest ?? NaN)) : NaN;
    for (const [repos, list] of sizes) {
      const cost = list.map((c) => c.forgekit!.cpuUsPerRequest ?? NaN);
      const ratio = list.map((c) => c.forgekit!.reqPerSec / c.bare!.reqPerSec);
      const growth = median(cost) / baseCost;
      out.push(`| ${family} | ${size(repos)} | ${list.length} | ${median(cost).toFixed(0)} | ${Math.max(...cost).toFixed(0)} | ${median(ratio).toFixed(2)} | ${Math.min(...ratio).toFixed(2)} | ${Math.max(...list.map((c) => c.forgekit!.p99Ms)).toFixed(1)} | ${Number.isFinite(growth) ? `${growth.toFixed(2)}×` : '—'} |`);
    }
  }
  return out.join('\n');
}

if (process.argv[1]?.endsWith('growth.js')) {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error('usage: node dist/bench/growth.js <result.json>...');
  console.log(growthReport(files.map(loadRun)));
}
