// Gitea's "special links" in gfm text: @mentions, [[wiki|links]], #N and owner/repo#N issues, bare commit SHAs,
// and short labels for pasted commit and issue URLs. Pure string work; the renderer decides where it applies.
import { isAbsoluteUrl } from './urls.js';

export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'link'; href: string; text: string }
  | { kind: 'image'; src: string; alt: string };

export interface SpecialLinkOptions {
  /** Public root URL with a trailing slash: mentions and owner/repo#N point under it. */
  rootUrl: string;
  /** Root URL joined with the render's Context, trailing slash. */
  prefix: string;
  /** Whether a Context (a repository) was given: bare #N and commit SHAs need one to point anywhere. */
  hasContext: boolean;
}

interface Match {
  start: number;
  end: number;
  segment: Segment;
}

// Every pattern starts only at a boundary (lookbehind), so a long run of word characters is scanned once, not once
// per position: linear time on 100k-character lines.
const MENTION = /(?<![\p{L}\p{N}_])@([0-9A-Za-z_][0-9A-Za-z_.-]*)/gu;
const SHORT_LINK = /\[\[([^[\]\n]{1,256})\]\]/g;
const CROSS_ISSUE = /(?<=^|[\s(])([0-9A-Za-z_.-]{1,255})\/([0-9A-Za-z_.-]{1,255})#([0-9]{1,18})(?![\p{L}\p{N}_])/gu;
const ISSUE = /(?<=^|[\s(])#([0-9]{1,18})(?![\p{L}\p{N}_])/gu;
const COMMIT = /(?<=^|[\s(])([0-9a-f]{40})(?![\p{L}\p{N}_])/gu;

const IMAGE_EXT = /\.(?:png|jpe?g|gif|webp|avif|svg|bmp|ico)(?:[?#].*)?$/i;

function encodePath(path: string): string {
  return path.split('/').map((part) => encodeURIComponent(part)).join('/');
}

/** A wiki page name as a URL path: spaces become dashes like the wiki's page names; `#section` is kept. */
function wikiTarget(link: string, image: boolean): string {
  const hash = link.indexOf('#');
  const page = hash >= 0 ? link.slice(0, hash) : link;
  const fragment = hash >= 0 ? '#' + encodeURIComponent(link.slice(hash + 1)) : '';
  return encodePath(image ? page : page.replace(/ /g, '-')) + fragment;
}

function looksLikeTarget(part: string): boolean {
  return IMAGE_EXT.test(part) || isAbsoluteUrl(part);
}

/** `[[Page]]`, `[[Text|Page]]` (GitHub order), `[[Page|Text]]` when the first part is obviously the target. */
function shortLink(inner: string, opts: SpecialLinkOptions): Segment | null {
  const parts = inner.split('|').map((p) => p.trim());
  if (parts.some((p) => p === '')) return null;
  let name = parts[0]!;
  let link = parts[parts.length - 1]!;
  if (parts.length >= 2 && looksLikeTarget(parts[0]!) && !looksLikeTarget(parts[1]!)) {
    link = parts[0]!;
    name = parts[1]!;
  }
  name = name.replace(/^alt=/i, '');
  const image = IMAGE_EXT.test(link);
  let href: string;
  if (isAbsoluteUrl(link)) {
    href = link;
  } else {
    const path = link.replace(/^(?:\.?\/)+/, '');
    href = opts.prefix + (image ? 'wiki/raw/' : 'wiki/') + wikiTarget(path, image);
  }
  if (image) return { kind: 'image', src: href, alt: parts.length === 1 ? '' : name };
  return { kind: 'link', href, text: name };
}

type Finder = (text: string, opts: SpecialLinkOptions) => Iterable<Match>;

function* mentions(text: string, opts: SpecialLinkOptions): Iterable<Match> {
  for (const m of text.matchAll(MENTION)) {
    const name = m[1]!.replace(/[.-]+$/, '');
    if (name === '') continue;
    yield { start: m.index, end: m.index + 1 + name.length, segment: { kind: 'link', href: opts.rootUrl + encodeURIComponent(name), text: '@' + name } };
  }
}

function* shortLinks(text: string, opts: SpecialLinkOptions): Iterable<Match> {
  for (const m of text.matchAll(SHORT_LINK)) {
    const segment = shortLink(m[1]!, opts);
    if (segment) yield { start: m.index, end: m.index + m[0].length, segment };
  }
}

function* crossIssues(text: string, opts: SpecialLinkOptions): Iterable<Match> {
  for (const m of text.matchAll(CROSS_ISSUE)) {
    const [whole, owner, repo, num] = m as unknown as [string, string, string, string];
    if (/^\.+$/.test(owner) || /^\.+$/.test(repo)) continue;
    const href = `${opts.rootUrl}${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/issues/${num}`;
    yield { start: m.index, end: m.index + whole.length, segment: { kind: 'link', href, text: whole } };
  }
}

function* issues(text: string, opts: SpecialLinkOptions): Iterable<Match> {
  if (!opts.hasContext) return;
  for (const m of text.matchAll(ISSUE)) {
    yield { start: m.index, end: m.index + m[0].length, segment: { kind: 'link', href: `${opts.prefix}issues/${m[1]}`, text: m[0] } };
  }
}

function* commits(text: string, opts: SpecialLinkOptions): Iterable<Match> {
  if (!opts.hasContext) return;
  for (const m of text.matchAll(COMMIT)) {
    const sha = m[1]!;
    if (/^[0-9]+$/.test(sha)) continue;
    yield { start: m.index, end: m.index + 40, segment: { kind: 'link', href: `${opts.prefix}commit/${sha}`, text: sha.slice(0, 10) } };
  }
}

const HEX40 = /[0-9a-f]{40}/;

/** In the reference server's order: an earlier kind wins where two overlap. Each with a cheap pre-check. */
const FINDERS: Array<[Finder, (text: string, opts: SpecialLinkOptions) => boolean]> = [
  [mentions, (text) => text.includes('@')],
  [shortLinks, (text) => text.includes('[[')],
  [crossIssues, (text) => text.includes('#')],
  [issues, (text, opts) => opts.hasContext && text.includes('#')],
  [commits, (text, opts) => opts.hasContext && text.length >= 40 && HEX40.test(text)],
];


/**
 * Splits a run of plain text into text and link/image segments. Returns null when nothing applies (the common
 * case), so callers can keep the original token.
 */
export function findSpecialLinks(text: string, opts: SpecialLinkOptions): Segment[] | null {
  const finders = FINDERS.filter(([, applies]) => applies(text, opts)).map(([finder]) => finder);
  if (finders.length === 0) return null;
  const taken = new Uint8Array(text.length);
  const accepted: Match[] = [];
  for (const finder of finders) {
    for (const match of finder(text, opts)) {
      if (taken[match.start] || taken[match.end - 1]) continue;
      // Matches of one pattern never overlap each other; a match overlapping an earlier kind is dropped whole.
      let free = true;
      for (let i = match.start; i < match.end; i++) if (taken[i]) { free = false; break; }
      if (!free) continue;
      taken.fill(1, match.start, match.end);
      accepted.push(match);
    }
  }
  if (accepted.length === 0) return null;
  accepted.sort((a, b) => a.start - b.start);
  const out: Segment[] = [];
  let pos = 0;
  for (const match of accepted) {
    if (match.start > pos) out.push({ kind: 'text', text: text.slice(pos, match.start) });
    out.push(match.segment);
    pos = match.end;
  }
  if (pos < text.length) out.push({ kind: 'text', text: text.slice(pos) });
  return out;
}

const COMMIT_URL = /^https?:\/\/[^\s/]+(?:\/[^\s/]+){2,4}\/commit\/([0-9a-f]{40})(?:[/?#]\S*)?$/i;
const ISSUE_URL = /^https?:\/\/[^\s/]+(?:\/[^\s/]+){2,4}\/(?:issues|pulls)\/([0-9]{1,18})(?:[/?#]\S*)?$/i;

/** The label for a pasted URL: a commit URL shows its 10-character SHA, an issue or pull URL shows `#N`. */
export function shortUrlLabel(url: string): string | null {
  if (url.length > 2048) return null;
  const commit = COMMIT_URL.exec(url);
  if (commit) return commit[1]!.slice(0, 10).toLowerCase();
  const issue = ISSUE_URL.exec(url);
  if (issue) return '#' + issue[1];
  return null;
}
