// Text helpers of the issues plugin: the trigram index behind `q`, and @mentions.

/** Grams are trigrams of the lower-cased text; a query shorter than this cannot use the index. */
export const GRAM = 3;

/** Distinct trigrams of the lower-cased title and body (the body as written, however long). */
export function gramsOf(title: string, body: string): string[] {
  const out = new Set<string>();
  for (const text of [title.toLowerCase(), body.toLowerCase()]) {
    for (let i = 0; i + GRAM <= text.length; i++) out.add(text.slice(i, i + GRAM));
  }
  return [...out];
}

/** Distinct trigrams of lower-cased texts (comment bodies). */
export function textGrams(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const raw of texts) {
    const text = raw.toLowerCase();
    for (let i = 0; i + GRAM <= text.length; i++) out.add(text.slice(i, i + GRAM));
  }
  return [...out];
}

/** Distinct trigrams of a lower-cased query (any of them narrows the candidates; the rarest narrows most). */
export function queryGrams(lowerQuery: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i + GRAM <= lowerQuery.length; i++) out.add(lowerQuery.slice(i, i + GRAM));
  return [...out];
}

/** Whether the issue's title or body contains the query as literal text, case-insensitively. */
export function matchesText(issue: { title: string; body: string }, lowerQuery: string): boolean {
  return issue.title.toLowerCase().includes(lowerQuery) || issue.body.toLowerCase().includes(lowerQuery);
}

// `@name` not preceded by a word character, a dot, a dash or a slash (emails, paths), as Gitea's mention pattern.
const MENTION = /(?:^|[^\w./-])@([A-Za-z0-9][A-Za-z0-9_.-]{0,38})/g;

/** The distinct lower-cased logins @mentioned in a text (at most 50, like a reasonable notification fan-out). */
export function mentionedNames(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(MENTION)) {
    out.add(m[1]!.replace(/[.-]+$/, '').toLowerCase());
    if (out.size >= 50) break;
  }
  return [...out].filter((n) => n.length > 0);
}
