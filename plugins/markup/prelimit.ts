// Input limits applied line by line before parsing, in every mode. Two of commonmark.js's block-parsing paths cost
// more than linear time on crafted lines: a run of list markers (`* * * * …`: at every marker the thematic-break
// pattern is retried on the rest of the line) and deep indentation (every open list item rescans the leading
// whitespace); markdown-it drops whatever nests past its maxNesting. Lines past these limits keep their text; only
// structure nested deeper than any real document is lost.

/** Container markers (`>`, `*`, `-`, `+`, `1.`, `1)`) honoured at the start of one line. */
export const MAX_LINE_MARKERS = 100;
/** Characters of whitespace honoured in one run within a line's leading container prefix. */
export const MAX_PREFIX_WHITESPACE = 128;

/** Lines shorter than this cannot pass either limit. */
const SHORTEST_AFFECTED = Math.min(MAX_LINE_MARKERS, MAX_PREFIX_WHITESPACE) + 1;

function isBlank(c: string | undefined): boolean {
  return c === undefined || c === ' ' || c === '\t';
}

/**
 * The position of the character to escape if a container marker starts at `i`, and where the marker ends;
 * null when `i` starts content.
 */
function marker(line: string, i: number): { escapeAt: number; end: number } | null {
  const c = line[i];
  if (c === '>') return { escapeAt: i, end: i + 1 };
  if ((c === '*' || c === '-' || c === '+') && isBlank(line[i + 1])) return { escapeAt: i, end: i + 1 };
  let j = i;
  while (j < line.length && j - i < 9 && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
  if (j > i && (line[j] === '.' || line[j] === ')') && isBlank(line[j + 1])) return { escapeAt: j, end: j + 1 };
  return null;
}

function limitLine(line: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  let markers = 0;
  for (;;) {
    const wsStart = i;
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
    if (i - wsStart > MAX_PREFIX_WHITESPACE) {
      out += line.slice(from, wsStart + MAX_PREFIX_WHITESPACE);
      from = i;
    }
    const m = marker(line, i);
    if (!m) break;
    if (++markers > MAX_LINE_MARKERS) {
      out += line.slice(from, m.escapeAt) + '\\';
      from = m.escapeAt;
      break;
    }
    i = m.end;
  }
  return from === 0 ? line : out + line.slice(from);
}

/** Applies the per-line limits; returns the text unchanged (same string) when no line needs it. */
export function limitBlockStructure(text: string): string {
  if (text.length < SHORTEST_AFFECTED) return text;
  let changed = false;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.length < SHORTEST_AFFECTED) continue;
    const limited = limitLine(line);
    if (limited !== line) {
      lines[n] = limited;
      changed = true;
    }
  }
  return changed ? lines.join('\n') : text;
}
