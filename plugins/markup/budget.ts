// How many URL characters a render may emit beyond its own input: link reference definitions, Context prefixes and
// generated special links repeat text, and unchecked they turn one megabyte into gigabytes.

/** Every render may add this many URL characters (hrefs, image sources, titles) … */
export const URL_BUDGET_FLOOR = 1024 * 1024;
/** … plus this many per input character. */
export const URL_BUDGET_PER_CHAR = 4;

export function urlBudget(inputLength: number): number {
  return URL_BUDGET_FLOOR + URL_BUDGET_PER_CHAR * inputLength;
}

/**
 * Deepest element nesting the markdown engines may produce (markdown-it's own block limit is the same); deeper
 * elements are unwrapped, keeping their content. Raw HTML is capped separately (nesting.ts).
 */
export const MAX_MARKDOWN_DEPTH = 100;
