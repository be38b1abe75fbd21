// Per-family summary of randomized cases (bench/cases/search-random.ts, users-search-random.ts, list-random.ts, mixed.ts) from a result file: for each family the
// median and worst request's ratio (throughput and CPU) and the worst p99, as issue 20 asks.
//   node dist/bench/families.js bench/results/<file>.json
import { readFileSync } from 'node:fs';
import { p99Judgeable } from './targets.js';

export interface Side { reqPerSec: number; p99Ms: number; cpuUsPerRequest: number | null }
/** A case of a result file; `verdict.judgedRatio` is the ratio its own target was judged on (req/s when the bare
 *  server reached its core's limit, else CPU), which the family target uses too. */
export interface Case { name: string; path: string; forgekit?: Side; bare?: Side; verdict?: { judgedRatio: number } }

/** Issue 20's target for every search and list family: median and worst judged ratio, worst p99. */
export const FAMILY_TARGET = { median: 0.5, worst: 0.3, p99Ms: 25 } as const;

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
  const rows = [
    '| family | requests | median ratio | worst ratio | median CPU ratio | worst CPU ratio | worst p99 (ms) | worst request | issue 20 target (median ≥ 0.50, worst ≥ 0.30, p99 < 25 ms; judged ratios) |',
    '|---|--:|--:|--:|--:|--:|--:|---|---|',
  ];
  for (const [family, list] of groups) {
    const ratio = (c: Case) => c.forgekit!.reqPerSec / c.bare!.reqPerSec;
    const cpus = list.flatMap((c) => (c.forgekit!.cpuUsPerRequest && c.bare!.cpuUsPerRequest ? [c.bare!.cpuUsPerRequest / c.forgekit!.cpuUsPerRequest] : []));
    const worst = list.reduce((a, b) => (ratio(b) < ratio(a) ? b : a));
    const worstP99 = Math.max(...list.map((c) => c.forgekit!.p99Ms));
    const cpuText = (x: number) => (cpus.length ? x.toFixed(2) : '');
    rows.push(`| ${family} | ${list.length} | ${median(list.map(ratio)).toFixed(2)} | ${ratio(worst).toFixed(2)} | ${cpuText(median(cpus))} | ${cpuText(Math.min(...cpus))} | ${worstP99.toFixed(1)} | \`${worst.path.replace('/api/v1', '')}\` | ${familyVerdict(list, ratio)} |`);
  }
  return rows.join('\n');
}

/**
 * met, or MISSED with each miss, on the ratios the cases were judged on (their req/s ratio where none was judged).
 * The p99 is judged as each case's own target judges it (bench/targets.ts): not on a request whose bare server's own
 * p99 reached the target (the machine stalled both servers then); the requests left out are named in the verdict.
 */
function familyVerdict(list: Case[], ratio: (c: Case) => number): string {
  const judged = list.map((c) => c.verdict?.judgedRatio ?? ratio(c));
  const misses: string[] = [];
  const med = median(judged);
  const worst = Math.min(...judged);
  if (med < FAMILY_TARGET.median) misses.push(`median ${med.toFixed(2)}`);
  if (worst < FAMILY_TARGET.worst) misses.push(`worst ${worst.toFixed(2)}`);
  const p99Judged = list.filter((c) => p99Judgeable(c.bare!.p99Ms, FAMILY_TARGET.p99Ms));
  const worstP99 = Math.max(...p99Judged.map((c) => c.forgekit!.p99Ms));
  if (p99Judged.length > 0 && worstP99 >= FAMILY_TARGET.p99Ms) misses.push(`p99 ${worstP99.toFixed(1)} ms`);
  const verdict = misses.length ? `MISSED (${misses.join('; ')})` : 'met';
  const unjudged = list.length - p99Judged.length;
  return unjudged === 0 ? verdict : `${verdict} (p99 not judged on ${unjudged} of ${list.length} requests: the bare server's own p99 ≥ ${FAMILY_TARGET.p99Ms} ms, machine too busy)`;
}

if (process.argv[1]?.endsWith('families.js')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node dist/bench/families.js <result.json>');
  console.log(families((JSON.parse(readFileSync(file, 'utf8')) as { cases: Case[] }).cases));
}
