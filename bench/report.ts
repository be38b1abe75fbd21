// The result document (bench/results/<date>-<commit>.json), the stdout table and the generated part of RESULTS.md.
import type { MachineInfo, CommitInfo } from './machine.js';
import type { RatioSummary, TargetSummary } from './stats.js';
import type { Verdict } from './targets.js';
import type { DatasetSizes } from './case.js';
import type { SeedReport } from './seed.js';
import { FULL_SIZES, QUICK_SIZES } from './dataset.js';
import { families } from './families.js';
import type { BackgroundReport } from '../core/background.js';
import { workText } from './settled.js';

export const RESULT_SCHEMA = 'forgekit-bench/1';

export interface CaseResult {
  name: string;
  group: string;
  from: string;
  replaces?: string;
  method: string;
  path: string;
  as: string | null;
  description: string;
  status: 'ok' | 'failed' | 'skipped';
  reason?: string;
  recorded?: { status: number; bytes: number; headers: Array<[string, string]> };
  forgekit?: TargetSummary;
  bare?: TargetSummary;
  ratio?: RatioSummary;
  verdict?: Verdict;
  /** 1-minute load average before and after the case: other work on the machine shows here. */
  load?: [number, number];
  /** forgekit's RSS and peak RSS (since boot) right after this case. */
  serverMemory?: { rssBytes: number; maxRssBytes: number };
  /** Best of three sequential forgekit requests, ms. */
  serviceMs?: number;
  /** Length of each run: --duration, or longer for slow requests (every connection finishes a few per run). */
  runSec?: number;
  /** A stream case (mixed workload): its seed, length, distinct requests and how many items of each kind. */
  stream?: { seed: number; items: number; distinct: number; mix: Record<string, number> };
  /** Connections this case was loaded with, when the case sets its own (BenchCase.connections). */
  connections?: number;
}

export interface BenchResult {
  schema: typeof RESULT_SCHEMA;
  mode: 'full' | 'quick';
  startedAt: string;
  finishedAt: string;
  store: 'embedded' | 'mongodb';
  machine: MachineInfo;
  commit: CommitInfo;
  settings: {
    connections: number;
    durationSec: number;
    warmupSec: number;
    settleSec: number;
    rounds: number;
    order: string;
    logLevel: string;
    /** Node flags of the forgekit server (absent in runs before the option existed: none). */
    nodeFlags?: string[];
    pinning: { server: string; load: string } | null;
    filter: string[];
  };
  dataset: {
    sizes: DatasetSizes;
    accounts: number;
    termCounts: Record<string, number>;
    seed: SeedReport;
    dataDirBytes: number;
  };
  server: {
    /**
     * Spawn of the server process → listening (node start-up, module loading, store load, plugin start): the median
     * of `bootsMs` where there are several.
     */
    bootMs: number;
    /** Every boot in order: the first after seeding, then the restarts (absent in results made before restarts). */
    bootsMs?: number[];
    createForgeMs: number;
    rssAfterBootBytes: number;
    rssAtEndBytes: number;
    maxRssBytes: number;
    /** Stop request → exit after the cases (the store's close compacts what was written); absent before it was kept. */
    stopMs?: number;
    /**
     * The serving boot's background work (the issues' q index, built while requests are answered): listening → its
     * end, waited for before the first case. Absent in results made before it was waited for.
     */
    settled?: { afterListenMs: number; work: BackgroundReport[] };
    logBytes: number;
    logLines: number;
  };
  targets: {
    bootUnderMs: number;
    bootMet: boolean;
    rssUnderBytes: number;
    rssMet: boolean;
  };
  cases: CaseResult[];
  problems: string[];
}

const MiB = 1024 * 1024;

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

function fmtInt(n: number): string {
  return n.toLocaleString('en-US');
}

export function verdictText(c: CaseResult): string {
  if (c.status === 'skipped') return `skipped: ${c.reason}`;
  if (c.status === 'failed') return `FAILED: ${c.reason}`;
  const v = c.verdict;
  const notes = v?.notes?.length ? ` (${v.notes.join('; ')})` : '';
  if (!v || v.met === null) return `no target${notes}`;
  return (v.met ? 'met' : `MISSED (${v.misses.join('; ')})`) + notes;
}

function targetText(c: CaseResult): string {
  const t = c.verdict?.target;
  if (!t) return '';
  const parts: string[] = [];
  if (t.minRatio !== undefined) parts.push(`≥${t.minRatio}`);
  if (t.maxP99Ms !== undefined) parts.push(`p99<${t.maxP99Ms}ms`);
  return parts.join(' ');
}

/** The ratio the verdict used, marked when it was the CPU ratio. */
function judgedText(c: CaseResult): string {
  const v = c.verdict;
  if (!v || c.status !== 'ok') return '';
  return v.basis === 'cpu' ? `${v.judgedRatio.toFixed(3)} (cpu)` : v.judgedRatio.toFixed(3);
}

/** forgekit / bare server CPU per request. */
function cpuText(c: CaseResult): string {
  const f = c.forgekit?.cpuUsPerRequest;
  const b = c.bare?.cpuUsPerRequest;
  return f == null || b == null ? '' : `${f} / ${b}`;
}

/** Busy share of one core for forgekit / bare during their runs. */
function busyText(c: CaseResult): string {
  const f = c.forgekit?.cpuBusy;
  const b = c.bare?.cpuBusy;
  return f == null || b == null ? '' : `${Math.round(f * 100)}% / ${Math.round(b * 100)}%`;
}

/** A bare server under this share of its core did not reach the physical limit in that request's runs. */
const UNSATURATED_BUSY = 0.5;
/** More than this share of requests with an unsaturated bare server: the load generator, not the servers, set the pace. */
const STARVED_SHARE = 0.25;

/**
 * How many measured requests had the bare server under half its core, and whether that was most of the run. A server
 * that is not saturated spends more CPU per request (fewer replies share a write), forgekit more than the bare one,
 * so such a run's ratios cannot be compared with a run that reached the limit.
 */
export function loadCheck(result: Pick<BenchResult, 'cases'>): { unsaturated: number; measured: number; starved: boolean } {
  let unsaturated = 0;
  let measured = 0;
  for (const c of result.cases) {
    const busy = c.status === 'ok' ? c.bare?.cpuBusy : undefined;
    if (busy == null) continue;
    measured++;
    if (busy < UNSATURATED_BUSY) unsaturated++;
  }
  return { unsaturated, measured, starved: measured > 0 && unsaturated / measured > STARVED_SHARE };
}

/** The check as a sentence; `strong` marks a starved run's verdict in bold (markdown). */
function loadCheckText(result: BenchResult, strong: boolean): string {
  const { unsaturated, measured, starved } = loadCheck(result);
  const counted = `in ${unsaturated} of ${measured} requests the bare server was under ${UNSATURATED_BUSY * 100}% busy`;
  const bold = strong ? '**' : '';
  return starved
    ? `${bold}Load generator check: ${counted}.${bold} The load generator, not the servers, set the pace for much of this run; servers ` +
      'that are not saturated spend more CPU per request (forgekit more than the bare server), so its ratios and verdicts ' +
      'are not comparable with a run that reached the limit.'
    : `Load generator check: ${counted}.`;
}

/** One row per case for the terminal. */
export function textTable(result: BenchResult): string {
  const head = ['case', 'forgekit req/s', 'p50', 'p99', 'bare req/s', 'p50', 'p99', 'ratio', 'spread', 'cpu µs/req', 'cpu ratio', 'busy', 'judged', 'target', 'verdict'];
  const rows = result.cases.map((c) => c.status !== 'ok'
    ? [c.name, '', '', '', '', '', '', '', '', '', '', '', '', targetText(c), verdictText(c)]
    : [
      c.name,
      fmtInt(c.forgekit!.reqPerSec), `${c.forgekit!.p50Ms}ms`, `${c.forgekit!.p99Ms}ms`,
      fmtInt(c.bare!.reqPerSec), `${c.bare!.p50Ms}ms`, `${c.bare!.p99Ms}ms`,
      c.ratio!.ratio.toFixed(3), `${c.ratio!.min.toFixed(2)}–${c.ratio!.max.toFixed(2)}`,
      cpuText(c), c.ratio!.cpu === null ? '' : c.ratio!.cpu.toFixed(3), busyText(c), judgedText(c),
      targetText(c), verdictText(c),
    ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const numeric = new Set([1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12]);
  const line = (r: string[]) => r.map((cell, i) => pad(cell, widths[i]!, numeric.has(i))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** "7.20 s" or "7.20 s (median of 3 boots: 11.02 s the first after seeding, restarts 7.20 s, 6.98 s)". */
export function bootText(server: BenchResult['server']): string {
  const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const all = server.bootsMs ?? [];
  if (all.length < 2) return secs(server.bootMs);
  return `${secs(server.bootMs)} (median of ${all.length} boots: ${secs(all[0]!)} the first after seeding, restarts ${all.slice(1).map(secs).join(', ')})`;
}

/** `; background work (issues: q trigram index 3.0 s) ended 3.1 s after listening, before the first case`. */
function settledText(s: BenchResult['server']): string {
  if (s.settled === undefined) return '';
  return `; background work (${workText(s.settled.work) || 'none'}) ended ${(s.settled.afterListenMs / 1000).toFixed(1)} s after listening, before the first case`;
}

export function summaryText(result: BenchResult): string {
  const s = result.server;
  const seed = result.dataset.seed;
  return [
    `dataset: ${fmtInt(result.dataset.accounts)} accounts, ${fmtInt(result.dataset.sizes.repos)} repositories; seeded in ${(seed.ms / 1000).toFixed(1)} s; ${(result.dataset.dataDirBytes / MiB).toFixed(0)} MiB on disk`,
    `server (${result.store} store): boot ${bootText(s)} (target < ${result.targets.bootUnderMs / 1000} s: ${result.targets.bootMet ? 'met' : 'MISSED'}), ` +
      `RSS after boot ${(s.rssAfterBootBytes / MiB).toFixed(0)} MiB, at end ${(s.rssAtEndBytes / MiB).toFixed(0)} MiB, peak ${(s.maxRssBytes / MiB).toFixed(0)} MiB ` +
      `(target < ${result.targets.rssUnderBytes / MiB} MiB: ${result.targets.rssMet ? 'met' : 'MISSED'})` + settledText(s) +
      (s.stopMs !== undefined ? `; stopped in ${(s.stopMs / 1000).toFixed(2)} s` : ''),
    loadCheckText(result, false),
    `request log: ${fmtInt(s.logLines)} lines, ${(s.logBytes / MiB).toFixed(1)} MiB (logging at ${result.settings.logLevel})`,
    ...(result.settings.nodeFlags?.length ? [`both servers' node flags: ${result.settings.nodeFlags.join(' ')}`] : []),
  ].join('\n');
}

/** The generated part of RESULTS.md: machine, how it ran, dataset, server, the table. */
export function markdownReport(result: BenchResult): string {
  const m = result.machine;
  const st = result.settings;
  const s = result.server;
  const rows = result.cases.map((c) => {
    const req = `\`${c.method} ${c.path}\`${c.as ? ` as ${c.as}` : ''}`;
    if (c.status !== 'ok') return `| ${c.name} | ${req} | | | | | | | | | | | | | | ${targetText(c)} | ${verdictText(c)} |`;
    return `| ${c.name} | ${req} | ${fmtInt(c.forgekit!.reqPerSec)} | ${c.forgekit!.p50Ms} | ${c.forgekit!.p99Ms} | ` +
      `${fmtInt(c.bare!.reqPerSec)} | ${c.bare!.p50Ms} | ${c.bare!.p99Ms} | **${c.ratio!.ratio.toFixed(3)}** | ` +
      `${c.ratio!.min.toFixed(2)}–${c.ratio!.max.toFixed(2)} | ${c.forgekit!.cpuUsPerRequest ?? ''} | ${c.bare!.cpuUsPerRequest ?? ''} | ` +
      `${c.ratio!.cpu === null ? '' : c.ratio!.cpu.toFixed(3)} | ${busyText(c)} | ${judgedText(c)} | ${targetText(c)} | ${verdictText(c)} |`;
  });
  const seedSteps = result.dataset.seed.steps
    .map((x) => `${x.name} ${x.skipped ? `(skipped: ${x.skipped})` : `${fmtInt(x.docs)} docs ${(x.ms / 1000).toFixed(1)} s`}`)
    .join('; ');
  return [
    `Run of ${result.startedAt} on commit \`${result.commit.short}\`${result.commit.dirty ? ' (with uncommitted changes in the tree)' : ''}, ${result.store} store, ` +
      `file \`bench/results/${resultFileName(result)}\`.`,
    '',
    `- Machine: ${m.cpuModel}, ${m.cpus} cores, ${m.memoryGiB} GiB, ${m.platform} (kernel ${m.kernel}), Node ${m.node}; ` +
      `load average at start ${m.loadAtStart.join(' / ')}.`,
    `- Load: autocannon, ${st.connections} connections, pipelining 1, ${st.rounds} rounds of ${st.durationSec} s per server, ` +
      `interleaved ${st.order}, after ${st.warmupSec} s of warm-up each, ${st.settleSec} s pause after every run. ` +
      `The ratio is the median over the round pairs of forgekit req/s ÷ bare req/s (its per-pair range is shown); req/s and ` +
      `latencies are over all rounds. CPU µs/req is the measured server's own CPU time (user + system, /proc) per answered ` +
      `request; the CPU ratio is bare ÷ forgekit of it — the same question, asked of CPU time, which other load on the machine moves far less; ` +
      `"core busy" is that CPU time over the run's wall time (100% = the server was the bottleneck). A target is judged on ` +
      `the req/s ratio when the bare server kept its core at least 80% busy (the physical limit was reached), else on the CPU ratio ` +
      `(at saturation the two are the same number). ` +
      (st.pinning ? `Servers pinned to CPU ${st.pinning.server}, the load generator to CPU ${st.pinning.load} (taskset).` : 'No CPU pinning.'),
    `- ${loadCheckText(result, true)}`,
    `- forgekit logs every request (level \`${st.logLevel}\`, ${fmtInt(s.logLines)} lines written to a file during the run)` +
      (st.nodeFlags?.length ? `; both servers' node ran with \`${st.nodeFlags.join(' ')}\` (\`npm start\`'s flags, then the run's own).` : '.'),
    `- Dataset: ${fmtInt(result.dataset.accounts)} accounts (${fmtInt(result.dataset.sizes.users)} users, ${fmtInt(result.dataset.sizes.orgs)} orgs), ` +
      `${fmtInt(result.dataset.sizes.repos)} repositories (${Math.round(result.dataset.sizes.privateShare * 100)}% private), ` +
      `search terms matching ${Object.entries(result.dataset.termCounts).map(([k, v]) => `${k} ${fmtInt(v)}`).join(', ')}. ` +
      `Seeded through the store in ${(result.dataset.seed.ms / 1000).toFixed(1)} s (${seedSteps}); ${(result.dataset.dataDirBytes / MiB).toFixed(0)} MiB on disk.`,
    `- Server: boot ${bootText(s)} (process spawn → listening; createForge of the serving boot ${(s.createForgeMs / 1000).toFixed(2)} s) — ` +
      `target < ${result.targets.bootUnderMs / 1000} s ${result.targets.bootMet ? 'met' : '**missed**'}; RSS after boot ${(s.rssAfterBootBytes / MiB).toFixed(0)} MiB, ` +
      `peak ${(s.maxRssBytes / MiB).toFixed(0)} MiB — target < ${result.targets.rssUnderBytes / MiB} MiB ${result.targets.rssMet ? 'met' : '**missed**'}` + settledText(s) +
      (s.stopMs !== undefined ? `; stop (the store's close compacts what was written) ${(s.stopMs / 1000).toFixed(2)} s.` : '.'),
    '',
    '| case | request | forgekit req/s | p50 ms | p99 ms | bare req/s | p50 ms | p99 ms | ratio | ratio per round | forgekit CPU µs/req | bare CPU µs/req | CPU ratio | core busy forgekit / bare | judged on | target | verdict |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|',
    ...rows,
    ...familySection(result),
    ...(result.problems.length ? ['', 'Problems reported by the run:', ...result.problems.map((p) => `- ${p}`)] : []),
  ].join('\n');
}

/** The randomized families (issue 20): per family the median and worst request, judged against its target. */
function familySection(result: BenchResult): string[] {
  const table = families(result.cases.filter((c) => c.status === 'ok'));
  if (table.split('\n').length <= 2) return [];
  return ['', '**Per family** (randomized cases; ratios are forgekit ÷ bare req/s over all rounds, CPU ratios bare ÷ forgekit; the target column uses each case\'s judged ratio):', '', table];
}

export function resultFileName(result: Pick<BenchResult, 'startedAt' | 'commit' | 'mode'> & { settings?: { filter: string[] }; dataset?: { sizes: { repos: number } } }): string {
  const date = result.startedAt.slice(0, 10);
  // A growth run (`--repos`) names its size, so the runs of one commit at 10k, 100k and 1M keep their own files.
  const repos = result.dataset?.sizes.repos;
  const size = repos !== undefined && repos !== (result.mode === 'quick' ? QUICK_SIZES : FULL_SIZES).repos ? `-${repos}repos` : '';
  const filter = result.settings?.filter ?? [];
  // A run of some cases only never overwrites the file of a full run of the same commit.
  const only = filter.length ? `-only-${filter.join('+').replace(/[^A-Za-z0-9+_-]/g, '').slice(0, 60)}` : '';
  return `${date}-${result.commit.short}${result.mode === 'quick' ? '-quick' : ''}${size}${only}.json`;
}

export const MD_BEGIN = '<!-- bench:begin (generated by `npm run bench`; edit outside these markers) -->';
export const MD_END = '<!-- bench:end -->';

/** Replaces the generated section of RESULTS.md, keeping everything written by hand around it. */
export function spliceResults(existing: string | null, generated: string): string {
  const block = `${MD_BEGIN}\n${generated}\n${MD_END}`;
  if (existing && existing.includes(MD_BEGIN) && existing.includes(MD_END)) {
    const start = existing.indexOf(MD_BEGIN);
    const end = existing.indexOf(MD_END) + MD_END.length;
    return existing.slice(0, start) + block + existing.slice(end);
  }
  return `# forgekit benchmark results\n\n## Latest run\n\n${block}\n${existing ? `\n${existing}` : ''}`;
}

// `node dist/bench/report.js <result.json>` rewrites the generated block of RESULTS.md from a result file (a run made
// with --no-results-md, or an older file after the report changed).
if (process.argv[1]?.endsWith('report.js')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node dist/bench/report.js <result.json>');
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const md = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
  const result = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
  writeFileSync(md, spliceResults(readFileSync(md, 'utf8'), markdownReport(result)));
  console.log(`table of ${file} written to ${md}`);
}
