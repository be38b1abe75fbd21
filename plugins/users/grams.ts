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

/** The gram to look up for a query: the query itself when short, else its first trigram. */
export function lookupGram(query: string): string {
  return query.toLowerCase().slice(0, MAX_GRAM);
}
