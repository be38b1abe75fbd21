// Render modes and options: apart from the renderer so the pool and the service load no markdown engine until a
// document is rendered (the engines and the sanitiser take ~180 ms to load, at every boot otherwise).

export type MarkupMode = 'markdown' | 'gfm' | 'comment';

export interface RenderOptions {
  /** `gfm`, `comment`, or anything else (`markdown`, empty, unknown) for plain CommonMark. */
  mode?: string;
  /** Repository path (`owner/repo`) or absolute http(s) URL that relative and special links resolve under. */
  context?: string;
  /** Relative links resolve under `<Context>/wiki/`, images under `<Context>/wiki/raw/`. */
  wiki?: boolean;
  /**
   * The CommonMark engine of mode `markdown`: commonmark.js (the default), or markdown-it's CommonMark preset, the
   * linear-time fallback the worker pool switches to when commonmark.js runs long on a hostile document.
   */
  engine?: 'commonmark' | 'markdown-it';
}

/** Mode names are matched case-insensitively; anything unknown is plain markdown, like the reference server. */
export function normalizeMode(mode: string | undefined): MarkupMode {
  const m = (mode ?? '').trim().toLowerCase();
  return m === 'gfm' || m === 'comment' ? m : 'markdown';
}

