// Substring search through an index: every account stores the 1-3 character grams of its login and full name,
// so a query is answered by an index lookup on one gram and a substring check of those candidates only.

const MAX_GRAM = 3;

export function gramsOf(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    const lower = text.toLowerCase();
    for (let n = 1; n <= MAX_GRAM; n++) {
      for (let i = 0; i + n <= lower.length; i++) out.add(lower.slice(i, i + n));
    }
  }
  return [...out];
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
