// Parsed git objects → Gitea's API shapes (Branch, Tag, Commit, ContentsResponse, …): the only place responses are shaped.
import type { ApiUser } from '../../schemas/services.js';
import type { FileChange, ParsedCommit, ParsedTag, Signature } from './git-read.js';

/** Where a repository's URLs point. */
export interface View {
  /** `<api>repos/<owner>/<repo>` */
  api: string;
  /** `<root><owner>/<repo>` */
  html: string;
}

export interface Verification {
  verified: boolean;
  reason: string;
  signature: string;
  payload: string;
  signer: { name: string; email: string; username: string } | null;
}

export function unsignedVerification(): Verification {
  return { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', payload: '', signer: null };
}

/** Path segments escaped for URLs (slashes kept). */
export function escapePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

export function commitUser(sig: Signature): { name: string; email: string; date: string } {
  return { name: sig.name, email: sig.email, date: sig.date };
}

export function commitMeta(view: View, sha: string, created: string): { url: string; sha: string; created: string } {
  return { url: `${view.api}/git/commits/${sha}`, sha, created };
}

export function payloadCommit(view: View, c: ParsedCommit, verification: Verification, users: Map<string, ApiUser>): Record<string, unknown> {
  return {
    id: c.sha,
    message: c.message,
    url: `${view.html}/commit/${c.sha}`,
    author: { name: c.author.name, email: c.author.email, username: users.get(c.author.email.toLowerCase())?.login ?? '' },
    committer: { name: c.committer.name, email: c.committer.email, username: users.get(c.committer.email.toLowerCase())?.login ?? '' },
    verification,
    timestamp: c.committer.date,
    added: null, removed: null, modified: null,
  };
}

export interface CommitExtras {
  files: FileChange[] | null;
  stat: boolean;
  verification: Verification;
  users: Map<string, ApiUser>;
}

export function apiCommit(view: View, c: ParsedCommit, x: CommitExtras): Record<string, unknown> {
  let stats: { total: number; additions: number; deletions: number } | null = null;
  if (x.stat && x.files) {
    const additions = x.files.reduce((n, f) => n + f.additions, 0);
    const deletions = x.files.reduce((n, f) => n + f.deletions, 0);
    stats = { total: additions + deletions, additions, deletions };
  }
  return {
    url: `${view.api}/git/commits/${c.sha}`,
    sha: c.sha,
    created: c.committer.date,
    html_url: `${view.html}/commit/${c.sha}`,
    commit: {
      url: `${view.api}/git/commits/${c.sha}`,
      author: commitUser(c.author),
      committer: commitUser(c.committer),
      message: c.message,
      tree: { url: `${view.api}/git/trees/${c.tree}`, sha: c.tree, created: c.committer.date },
      verification: x.verification,
    },
    author: x.users.get(c.author.email.toLowerCase()) ?? null,
    committer: x.users.get(c.committer.email.toLowerCase()) ?? null,
    parents: c.parents.map((p) => commitMeta(view, p, c.committer.date)),
    files: x.files ? x.files.map((f) => ({ filename: f.filename, status: f.status })) : null,
    stats,
  };
}

export function fileCommit(view: View, c: ParsedCommit): Record<string, unknown> {
  return {
    url: `${view.api}/git/commits/${c.sha}`,
    html_url: `${view.html}/commit/${c.sha}`,
    sha: c.sha,
    created: c.committer.date,
    author: commitUser(c.author),
    committer: commitUser(c.committer),
    message: c.message,
    parents: c.parents.map((p) => commitMeta(view, p, c.committer.date)),
    tree: { url: `${view.api}/git/trees/${c.tree}`, sha: c.tree, created: c.committer.date },
  };
}

export function apiTag(view: View, name: string, id: string, commit: ParsedCommit, message: string): Record<string, unknown> {
  return {
    name, message, id,
    commit: commitMeta(view, commit.sha, commit.committer.date),
    zipball_url: `${view.html}/archive/${escapePath(name)}.zip`,
    tarball_url: `${view.html}/archive/${escapePath(name)}.tar.gz`,
  };
}

export function annotatedTag(view: View, t: ParsedTag, verification: Verification): Record<string, unknown> {
  const tagger = t.tagger ?? { name: '', email: '', date: '', unix: 0 };
  return {
    tag: t.tag, sha: t.sha, url: `${view.api}/git/tags/${t.sha}`, message: t.message,
    tagger: commitUser(tagger),
    object: { type: t.type, url: `${view.api}/git/${t.type === 'tag' ? 'tags' : t.type === 'tree' ? 'trees' : t.type === 'blob' ? 'blobs' : 'commits'}/${t.object}`, sha: t.object },
    verification,
  };
}

export type EntryType = 'file' | 'dir' | 'symlink' | 'submodule';

export interface ContentsInput {
  path: string;
  name: string;
  sha: string;
  type: EntryType;
  size: number;
  lastCommitSha: string;
  /** The ref as the client named it (query `ref`, or the default branch). */
  ref: string;
  /** base64 content (files within the size limit), else null. */
  content: string | null;
  target: string | null;
  submoduleUrl: string | null;
}

export function contents(view: View, x: ContentsInput): Record<string, unknown> {
  const p = escapePath(x.path);
  const refQ = encodeURIComponent(x.ref);
  const self = `${view.api}/contents/${p}?ref=${refQ}`;
  const gitUrl = x.type === 'dir' ? `${view.api}/git/trees/${x.sha}` : `${view.api}/git/blobs/${x.sha}`;
  const html = `${view.html}/src/${x.type === 'dir' ? 'branch' : 'branch'}/${escapePath(x.ref)}/${p}`;
  return {
    name: x.name, path: x.path, sha: x.sha, last_commit_sha: x.lastCommitSha, type: x.type, size: x.size,
    encoding: x.content === null ? null : 'base64', content: x.content, target: x.target,
    url: self, html_url: html, git_url: gitUrl,
    download_url: x.type === 'file' || x.type === 'symlink' ? `${view.html}/raw/branch/${escapePath(x.ref)}/${p}` : null,
    submodule_git_url: x.submoduleUrl,
    _links: { self, git: gitUrl, html },
  };
}
