// Glob patterns as Gitea compiles them (gobwas/glob without separators): `*` and `**` match any run of characters
// (slashes included), `?` one character, `[abc]` `[a-z]` `[!a-z]` a class, `{a,b}` alternatives (nestable), `\x` a
// literal. Used for webhook branch filters and branch protection's required status contexts.

export class GlobSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobSyntaxError';
  }
}

const MAX_PATTERN = 1024;

/** Compiles a pattern into an anchored RegExp; throws GlobSyntaxError for an unbalanced class or brace. */
export function compileGlob(pattern: string): RegExp {
  if (pattern.length > MAX_PATTERN) throw new GlobSyntaxError(`longer than ${MAX_PATTERN} characters`);
  let i = 0;
  let depth = 0;
  let out = '';
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (i + 1 >= pattern.length) throw new GlobSyntaxError('ends with an escape');
      out += escapeRe(pattern[i + 1]!);
      i += 2;
      continue;
    }
    if (c === '*') {
      while (pattern[i] === '*') i++;
      out += '[\\s\\S]*';
      continue;
    }
    if (c === '?') {
      out += '[\\s\\S]';
      i++;
      continue;
    }
    if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) throw new GlobSyntaxError('has an unclosed [');
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      if (body === '') throw new GlobSyntaxError('has an empty [ ] class');
      let cls = '';
      for (let k = 0; k < body.length; k++) {
        const ch = body[k]!;
        if (body[k + 1] === '-' && k + 2 < body.length) {
          const hi = body[k + 2]!;
          if (hi < ch) throw new GlobSyntaxError(`has a reversed range ${ch}-${hi}`);
          cls += `${escapeClass(ch)}-${escapeClass(hi)}`;
          k += 2;
        } else cls += escapeClass(ch);
      }
      out += negate ? `[^${cls}]` : `[${cls}]`;
      i = end + 1;
      continue;
    }
    if (c === '{') {
      depth++;
      out += '(?:';
      i++;
      continue;
    }
    if (c === ',' && depth > 0) {
      out += '|';
      i++;
      continue;
    }
    if (c === '}' && depth > 0) {
      depth--;
      out += ')';
      i++;
      continue;
    }
    out += escapeRe(c);
    i++;
  }
  if (depth !== 0) throw new GlobSyntaxError('has an unclosed {');
  return new RegExp(`^(?:${out})$`, 's');
}

/** Whether `text` matches `pattern`; a pattern that does not compile matches nothing. */
export function globMatch(pattern: string, text: string): boolean {
  try {
    return compileGlob(pattern).test(text);
  } catch {
    return false;
  }
}

function escapeRe(ch: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? `\\${ch}` : ch;
}

function escapeClass(ch: string): string {
  return /[\\\]^-]/.test(ch) ? `\\${ch}` : ch;
}
