// Collects the cases: the issue's table (default-cases.ts) merged with whatever bench/cases/*.ts files export.
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import type { BenchCase, BenchFixture, BenchSeeder } from './case.js';
import { resolvePath } from './case.js';
import { CASES_FROM_FILES, DEFAULT_CASES } from './default-cases.js';

export interface LoadedCase {
  case: BenchCase;
  /** `harness` or the case file it came from. */
  from: string;
  /** The default case it replaced, if any. */
  replaces?: string;
}

export interface CaseFileProblem {
  file: string;
  message: string;
}

export interface LoadedCases {
  cases: LoadedCase[];
  seeders: Array<{ from: string; seed: BenchSeeder }>;
  problems: CaseFileProblem[];
  /** Cases of the issue's table whose case file does not exist yet. */
  missing: Array<{ name: string; file: string; what: string }>;
}

function looksLikeCase(v: unknown): v is BenchCase {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.name === 'string' && (typeof o.path === 'string' || typeof o.path === 'function');
}

/** Every case a module exports: `cases`, the default export, or any exported case object / array of them. */
export function casesOf(mod: Record<string, unknown>): BenchCase[] {
  const out: BenchCase[] = [];
  const seen = new Set<unknown>();
  const take = (v: unknown) => {
    if (seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const item of v) if (looksLikeCase(item) && !seen.has(item)) {
        seen.add(item);
        out.push(item);
      }
    } else if (looksLikeCase(v)) {
      out.push(v);
    }
  };
  take(mod.cases);
  take(mod.default);
  for (const [key, value] of Object.entries(mod)) if (key !== 'cases' && key !== 'default') take(value);
  return out;
}

export function seedersOf(mod: Record<string, unknown>): BenchSeeder[] {
  return Object.entries(mod)
    .filter(([key, value]) => typeof value === 'function' && /^seed/i.test(key))
    .map(([, value]) => value as BenchSeeder);
}

/** The request shape a case sends, for recognising a case file's version of a default case. */
export function shapeOf(c: BenchCase, fx: BenchFixture): string {
  let p: string;
  try {
    p = resolvePath(c, fx);
  } catch {
    p = typeof c.path === 'string' ? c.path : '<fn>';
  }
  const url = new URL(p, 'http://x');
  const params = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${c.method ?? 'GET'} ${url.pathname}?${new URLSearchParams(params).toString()} as:${c.as ?? '-'}`;
}

export function mergeCases(defaults: BenchCase[], fromFiles: Array<{ from: string; cases: BenchCase[] }>, fx: BenchFixture): LoadedCase[] {
  const merged: LoadedCase[] = defaults.map((c) => ({ case: c, from: 'harness' }));
  for (const { from, cases } of fromFiles) {
    for (const c of cases) {
      const shape = shapeOf(c, fx);
      const at = merged.findIndex((m) => m.case.name === c.name || (m.from === 'harness' && shapeOf(m.case, fx) === shape));
      if (at === -1) merged.push({ case: c, from });
      else if (merged[at]!.from === 'harness') merged[at] = { case: c, from, replaces: merged[at]!.case.name };
      else merged.push({ case: { ...c, name: `${c.name}@${path.basename(from, '.ts')}` }, from });
    }
  }
  return merged;
}

/** Imports every compiled bench/cases/*.js next to this module. A broken file is reported, never fatal. */
export async function loadCases(fx: BenchFixture, dir = fileURLToPath(new URL('./cases/', import.meta.url))): Promise<LoadedCases> {
  const problems: CaseFileProblem[] = [];
  const seeders: LoadedCases['seeders'] = [];
  const fromFiles: Array<{ from: string; cases: BenchCase[] }> = [];
  let files: string[] = [];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith('.js')).sort();
  } catch {
    files = [];
  }
  for (const file of files) {
    const from = `bench/cases/${file.replace(/\.js$/, '.ts')}`;
    try {
      const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as Record<string, unknown>;
      fromFiles.push({ from, cases: casesOf(mod) });
      for (const seed of seedersOf(mod)) seeders.push({ from, seed });
    } catch (err) {
      problems.push({ file: from, message: err instanceof Error ? err.message : String(err) });
    }
  }
  const cases = mergeCases(DEFAULT_CASES, fromFiles, fx);
  const names = new Set(cases.map((c) => c.case.name));
  const missing = CASES_FROM_FILES.filter((m) => !names.has(m.name));
  return { cases, seeders, problems, missing };
}
