// Substring search through an index: every account stores the 1-3 character grams of its login and full name,
// so a query is answered by an index lookup on one gram and a substring check of those candidates only.

const MAX_GRAM = 3;

export function gramsOf(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    const lower = text.toLowerCase();
    for (let n = 1; n <= MAX_GRAM; n++) {
      for (let i = 0; i + n <= lower.length; i++) out.add(internalized(lower.slice(i, i + n)));
    }
  }
  return [...out];
}

/**
 * The same text as V8's one internalized copy (what a property key is made into). A short query is answered by the
 * store walking accounts in id order and testing `grams.includes(gram)` on each: two internalized strings that are
 * not the same object are unequal at once, where a request's own string is compared character by character with
 * every stored gram of its length (stored grams are internalized: JSON.parse does it for short values at load, and
 * `gramsOf` for new accounts). On the benchmark's `q=mar` that test was a quarter of the request's instructions.
 */
export function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}

/** Whether the query is itself a stored gram, so the gram index answers it exactly. */
export function isWholeGram(query: string): boolean {
  return query.length <= MAX_GRAM;
}

/** The distinct trigrams of a longer query: any one of them narrows the candidates; the rarest narrows most. */
export function queryTrigrams(query: string): string[] {
  const lower = query.toLowerCase();
  const out = new Set<string>();
  for (let i = 0; i + MAX_GRAM <= lower.length; i++) out.add(lower.slice(i, i + MAX_GRAM));
  return [...out];
}
