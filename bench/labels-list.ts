// In-process cost of a repository's issue list with and without a label filter (issue 20, "lists without cliffs"):
// the exact count and a page (first and last) of `{repoId, [isClosed], [labelIds]}` sorted newest first, on an
// embedded store holding a 100,000-issue collection shaped like the issues seeder's (25,000-issue repositories whose
// issues carry 0–2 of 8 labels, a quarter of the issues spread ~21 per repository), under the issues plugin's own indexes. It measures the
// store (CPU µs per call, median of rounds), not HTTP; each query's plan (index, documents examined) is printed too.
//
//   node dist/bench/labels-list.js [--issues 100000] [--rounds 7] [--calls 300] [--seed N]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddedStore } from '../core/store/embedded/index.js';
import type { Doc, Filter, FindOptions } from '../core/store/port.js';
import { COLLECTIONS, ISSUES } from '../plugins/issues/service.js';
import { prng } from './dataset.js';

const { values: args } = parseArgs({
  options: {
    issues: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '20261128' },
  },
});
const TOTAL = Number(args.issues);
const ROUNDS = Number(args.rounds);
const CALLS = Number(args.calls);
const LARGE_SIZE = 25_000;
/** Large repositories (the seeder's four at 200,000 issues): three at 100,000, a quarter of the issues left to small ones. */
const LARGE = Math.max(1, Math.floor((TOTAL * 0.75) / LARGE_SIZE));
const LABELS = 8;

function issues(seed: number): Doc[] {
  const random = prng(seed);
  const docs: Doc[] = [];
  const perRepo: Array<{ repoId: number; n: number; done: number; labels: number[] }> = [];
  for (let r = 0; r < LARGE; r++) perRepo.push({ repoId: r + 1, n: LARGE_SIZE, done: 0, labels: Array.from({ length: LABELS }, (_, k) => 1000 + r * LABELS + k) });
  let left = TOTAL - LARGE * LARGE_SIZE;
  for (let r = LARGE; left > 0; r++) {
    const n = Math.min(21, left);
    perRepo.push({ repoId: r + 1, n, done: 0, labels: [] });
    left -= n;
  }
  let id = 0;
  while (id < TOTAL) {
    for (const p of perRepo) {
      if (p.done >= p.n || id >= TOTAL) continue;
      p.done++;
      id++;
      const labelIds: number[] = [];
      if (p.labels.length) {
        if (random() < 0.25) labelIds.push(p.labels[0]!);
        if (random() < 0.4) labelIds.push(p.labels[1 + Math.floor(random() * (LABELS - 1))]!);
      }
      docs.push({
        id, repoId: p.repoId, number: p.done, isPull: false, isClosed: random() < 0.3, pinOrder: 0, milestoneId: 0, posterId: 1 + Math.floor(random() * 500),
        labelIds: [...new Set(labelIds)].sort((a, b) => a - b), assigneeIds: [], mentionIds: [], updatedAt: `2026-01-01T00:00:${String(id % 60).padStart(2, '0')}Z`,
      });
    }
  }
  return docs;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-bench-labels-'));
  const log = { info: () => {}, warn: () => {}, error: () => {} } as unknown as ConstructorParameters<typeof EmbeddedStore>[0]['log'];
  const store = new EmbeddedStore({ dataDir: dir, compactIntervalMs: 0, log });
  try {
    await store.open();
    const spec = COLLECTIONS.find((c) => c.name === ISSUES)!;
    await store.ensureCollection(spec);
    const col = store.collection(ISSUES);
    const docs = issues(Number(args.seed));
    for (let i = 0; i < docs.length; i += 5000) await col.insertMany(docs.slice(i, i + 5000));
    // The second label of the first large repository (as `kind/feature` in the seeder: ~1/17 of its issues).
    const label = 1001;
    const labelled = docs.filter((d) => d.repoId === 1 && (d.labelIds as number[]).includes(label));
    console.log(`${TOTAL} issues, repository 1: ${LARGE_SIZE} issues, ${labelled.length} with label ${label}, ${labelled.filter((d) => !d.isClosed).length} of them open`);
    const cases: Array<{ name: string; filter: Filter; last: boolean }> = [
      { name: 'state=all, label', filter: { repoId: 1, labelIds: label }, last: true },
      { name: 'state=all, label', filter: { repoId: 1, labelIds: label }, last: false },
      { name: 'state=open, label', filter: { repoId: 1, isClosed: false, labelIds: label }, last: true },
      { name: 'state=all, no label', filter: { repoId: 1 }, last: true },
      { name: 'state=open, no label', filter: { repoId: 1, isClosed: false }, last: true },
    ];
    const limit = 50;
    console.log('| query | total | count CPU µs | page CPU µs | page plan (index, examined) |');
    console.log('|---|--:|--:|--:|---|');
    for (const c of cases) {
      const total = await col.count(c.filter);
      const skip = c.last ? Math.max(0, Math.ceil(total / limit) - 1) * limit : 0;
      const options: FindOptions = { sort: { id: -1 }, skip, limit };
      const plan = await col.explain(c.filter, options);
      const counts: number[] = [];
      const pages: number[] = [];
      // CPU time of the process (the machine is shared: wall time would count the time others took).
      const cpu = (from: NodeJS.CpuUsage) => {
        const d = process.cpuUsage(from);
        return (d.user + d.system) / CALLS;
      };
      for (let r = 0; r < ROUNDS; r++) {
        let t0 = process.cpuUsage();
        for (let i = 0; i < CALLS; i++) await col.count(c.filter);
        counts.push(cpu(t0));
        t0 = process.cpuUsage();
        for (let i = 0; i < CALLS; i++) await col.find(c.filter, options);
        pages.push(cpu(t0));
      }
      const page = `${c.last ? 'last page' : 'page 1'} (skip ${skip})`;
      console.log(`| ${c.name}, ${page} | ${total} | ${median(counts).toFixed(1)} | ${median(pages).toFixed(1)} | ${plan.index}, ${plan.examined} |`);
    }
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
