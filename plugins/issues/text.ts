// Text helpers of the issues plugin: the literal check behind `q` (its trigram index is text-index.ts), and @mentions.

/** Grams are trigrams of the lower-cased text; a query shorter than this cannot use the index. */
export const GRAM = 3;

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
