// The n-gram engine behind substring search (users and repositories): every searchable text stores its distinct
// 1..3-character grams in an indexed array field, and a query `q` is answered by one equality lookup on a single
// gram of `q` — `q` itself when it has at most 3 characters, else its rarest trigram — followed by a literal
// `includes(q)` check of those candidates only. `q` is never turned into a pattern: regex metacharacters, `%` and
// `_` are plain text and nothing can backtrack. How rare a trigram is only chooses the plan, never the result.

export const MAX_GRAM = 3;

/**
 * The distinct 1..3-grams of the lower-cased texts (≈3 per character), each as V8's one internalized copy (see
 * `internalized`): what a document stores in its gram field.
 */
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

/** The distinct trigrams of the lower-cased text: the grams a longer query may be looked up by. */
export function trigramsOf(text: string): string[] {
  const lower = text.toLowerCase();
  const out = new Set<string>();
  for (let i = 0; i + MAX_GRAM <= lower.length; i++) out.add(lower.slice(i, i + MAX_GRAM));
  return [...out];
}

/** Whether the (lower-cased) query is itself a stored gram, so its gram's posting is exactly its matches. */
export function isWholeGram(query: string): boolean {
  return query.length <= MAX_GRAM;
}

/** The grams a lower-cased query may be looked up by: the query itself when short, else each of its trigrams. */
export function lookupGrams(query: string): string[] {
  return isWholeGram(query) ? [query] : trigramsOf(query);
}

/** The gram with the fewest documents (ties: the first in the query); a gram `sizes` does not know counts as 0. */
export function rarestGram(grams: readonly string[], sizes: ReadonlyMap<string, number>): string {
  let best = grams[0]!;
  let bestN = sizes.get(best) ?? 0;
  for (let i = 1; i < grams.length; i++) {
    const n = sizes.get(grams[i]!) ?? 0;
    if (n < bestN) {
      best = grams[i]!;
      bestN = n;
    }
  }
  return best;
}

/**
 * The same text as V8's one internalized copy (what a property key is made into). A short query is answered by the
 * store walking documents in index order and testing `grams.includes(gram)` on each: two internalized strings that
 * are not the same object are unequal at once, where a request's own string is compared character by character
 * with every stored gram of its length (stored grams are internalized: JSON.parse does it for short values at load,
 * and `gramsOf` for new documents). On the benchmark's user search `q=mar` that test was a quarter of the request's
 * instructions.
 */
export function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}
