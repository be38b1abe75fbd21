// The markup service: small documents render on the event loop, larger ones in the worker pool under a time limit.
import { availableParallelism } from 'node:os';
import { fail } from '../../core/errors.js';
import type { MarkupRenderer } from './render.js';
import type { RenderOptions } from './mode.js';
import { createRenderPool, RenderLimitError } from './pool.js';

/** The render settings (`plugins.markup.*`; defaults in the plugin's settings schema). */
export interface MarkupSettings {
  /**
   * Render workers; 0 renders every document on the event loop (no time limit). Unset: one per CPU this process may
   * run on, at most two (`renderWorkers`).
   */
  workers?: number;
  /** Time limit of one document in a worker. */
  timeoutMs: number;
  /** Documents up to this many characters render on the event loop (they cannot take long). */
  inlineMaxBytes: number;
  /**
   * Old-generation heap of one worker (MB): the memory a render may use (more is a 422), and the bound on what the
   * workers add to the process's memory under load (V8 lets a heap grow towards its limit before collecting).
   */
  workerHeapMb: number;
  /** A render worker idle this long stops; the next large document starts one again. 0: workers never stop. */
  workerIdleMs: number;
}

export interface MarkupService {
  /** Sanitised HTML; a document past the time or memory limit is a 422 naming `Text`. */
  render(text: string, options: RenderOptions): Promise<string>;
  close(): Promise<void>;
}

/**
 * Whether a document is cheap enough to render on the event loop. Bytes alone are not the cost: a small document
 * dense in delimiters (`[a](` ×1000 is 4 KB and took ~40 ms inline) makes the parsers try and backtrack link,
 * emphasis and HTML candidates. Prose and READMEs carry up to ~1 per 12 bytes (links, code); at most one per 8 bytes stays inline.
 */
export function rendersInline(text: string, inlineMaxBytes: number): boolean {
  if (text.length > inlineMaxBytes) return false;
  const budget = Math.max(16, inlineMaxBytes >> 3);
  let delimiters = 0;
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x5b: case 0x5d: case 0x28: case 0x29: // [ ] ( )
      case 0x2a: case 0x5f: case 0x60: case 0x7e: // * _ ` ~
      case 0x3c: case 0x3e: case 0x21: case 0x7c: // < > ! |
      case 0x5c: case 0x26: // \ &
        if (++delimiters > budget) return false;
    }
  }
  return true;
}

/** The most workers started without a setting. */
const MAX_DEFAULT_WORKERS = 2;

/**
 * The render workers to start: the setting, or one per CPU the process may run on (its affinity: `taskset`, a
 * cpuset), at most two. A worker costs 40–50 MiB of RSS while it renders (its own heap and isolate); more workers
 * than CPUs only time-share them, so a process held to one CPU gets one.
 */
export function renderWorkers(settings: Pick<MarkupSettings, 'workers'>, cpus = availableParallelism()): number {
  return settings.workers ?? Math.min(MAX_DEFAULT_WORKERS, cpus);
}

export function createMarkupService(rootUrl: string, settings: MarkupSettings): MarkupService {
  // Loaded with the first document rendered on the event loop (most boots render none).
  let inline: Promise<MarkupRenderer> | undefined;
  const inlineRenderer = () => (inline ??= import('./render.js').then((m) => m.createMarkupRenderer({ rootUrl })));
  const workers = renderWorkers(settings);
  const pool = workers > 0
    ? createRenderPool({ size: workers, rootUrl, timeoutMs: settings.timeoutMs, heapMb: settings.workerHeapMb, idleMs: settings.workerIdleMs })
    : null;
  return {
    async render(text, options) {
      if (!pool || rendersInline(text, settings.inlineMaxBytes)) return (await inlineRenderer()).render(text, options);
      try {
        return await pool.render(text, options);
      } catch (err) {
        if (err instanceof RenderLimitError) throw fail.validation('Text', err.message);
        throw err;
      }
    },
    async close() {
      await pool?.close();
    },
  };
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    /** This plugin's own service (its handlers reach it through the registry); no other plugin depends on it. */
    markup: MarkupService;
  }
}
