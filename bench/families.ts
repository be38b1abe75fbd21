// Per-family summary of randomized cases (bench/cases/search-random.ts, users-search-random.ts, list-random.ts, mixed.ts) from a result file: for each family the
// median and worst request's ratio (throughput and CPU) and the worst p99, as issue 20 asks.
//   node dist/bench/families.js bench/results/<file>.json
import { readFileSync } from 'node:fs';

export interface Side { reqPerSec: number; p99Ms: number; cpuUsPerRequest: number }
export interface Case { name: string; path: string; forgekit?: Side; bare?: Side; ratio?: number; cpuRatio?: number }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
}

/** The randomized family a case belongs to, or null for a hand-picked case. */
export function familyOf(name: string): string | null {
  // search-rnd-<family>-<k> (repository search: the family alone), users-rnd-<caller>-<k>, list-rnd-<family>-<k>
  // (as list-<family>), mixed-<k>.
  // api-rnd-<caller>-<k> (the API-built dataset, bench/cases/api-built.ts) as api-<caller>.
  const m = /^(search-rnd|users-rnd|list-rnd|api-rnd|mixed)-(?:(.+)-)?\d+$/.exec(name);
  if (!m) return null;
  if (m[1] === 'search-rnd') return m[2]!;
  if (m[1] === 'list-rnd' || m[1] === 'api-rnd') return `${m[1].slice(0, -4)}-${m[2]}`;
  return m[2] ? `${m[1]}-${m[2]}` : m[1]!;
}

export function families(cases: Case[]): string {
  const groups = new Map<string, Case[]>();
  for (const c of cases) {
    const family = familyOf(c.name);
    if (!family || !c.forgekit || !c.bare) continue;
    const list = groups.get(family) ?? [];
    list.push(c);
    groups.set(family, list);
  }
  const rows = ['| family | requests | median ratio | worst ratio | median CPU ratio | worst CPU ratio | worst p99 (ms) | worst request |', '|---|--:|--:|--:|--:|--:|--:|---|'];
  for (const [family, list] of groups) {
    const ratio = (c: Case) => c.forgekit!.reqPerSec / c.bare!.reqPerSec;
    const cpu = (c: Case) => c.bare!.cpuUsPerRequest / c.forgekit!.cpuUsPerRequest;
    const worst = list.reduce((a, b) => (ratio(b) < ratio(a) ? b : a));
    rows.push(`| ${family} | ${list.length} | ${median(list.map(ratio)).toFixed(2)} | ${ratio(worst).toFixed(2)} | ${median(list.map(cpu)).toFixed(2)} | ${Math.min(...list.map(cpu)).toFixed(2)} | ${Math.max(...list.map((c) => c.forgekit!.p99Ms)).toFixed(1)} | \`${worst.path.replace('/api/v1', '')}\` |`);
  }
  return rows.join('\n');
}

if (process.argv[1]?.endsWith('families.js')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node dist/bench/families.js <result.json>');
  console.log(families((JSON.parse(readFileSync(file, 'utf8')) as { cases: Case[] }).cases));
}
