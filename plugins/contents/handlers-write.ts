// Write operations: files (create/update/delete, several in one commit), branches (create/delete/rename), tags
// (create lightweight or annotated, delete) and branch protection rules. Every ref change goes through the git
// service's push guards and afterPush, like a push.
import { fail, ForgeError } from '../../core/errors.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import type { ContentsPluginService } from './index.js';
import '../../schemas/contracts/releases.js';
import { ZERO_SHA } from '../../schemas/contracts/git.js';
import { ACCESS } from '../../schemas/services.js';
import { contents as contentsApi, fileCommit } from './convert.js';
import { cleanPath, isValidRefName } from './git-read.js';
import { branchJson, contentsAt, svc } from './handlers.js';
import { toApi as protectionApi, type Protections } from './protection.js';
import type { Opened } from './service.js';
import { Writer, type CommitOptions, type FileOp } from './write.js';

type P = { owner: string; repo: string; '*'?: string; name?: string };
type Rc<B = any, Q = Record<string, unknown>> = RequestContext<P, Q, B>;

function protections(rc: Rc): Protections {
  return (rc.app.services.get('contents') as ContentsPluginService).protections;
}

function writer(rc: Rc): Writer {
  return (rc.app.services.get('contents') as ContentsPluginService).writer;
}

async function fileResult(rc: Rc, o: Opened, branch: string, commitSha: string, filePath: string | null): Promise<Record<string, unknown> | null> {
  if (filePath === null) return null;
  const body = await contentsAt(svc(rc), o, { sha: commitSha, name: branch }, filePath);
  return Array.isArray(body) ? null : body;
}

async function commitWrite(rc: Rc, opts: CommitOptions, ops: FileOp[]): Promise<{ o: Opened; branch: string; sha: string; commit: Record<string, unknown>; verification: unknown }> {
  const s = svc(rc);
  const o = await s.open(rc, ACCESS.write);
  const result = await writer(rc).change(o, rc.caller!, opts, ops);
  const fresh = s.openResolved((await rc.app.services.get('repos').byId(o.repo.id)) ?? o.repo, o.owner, o.mode);
  return { o: fresh, branch: result.branch, sha: result.commit.sha, commit: fileCommit(o.view, result.commit), verification: await s.verifier(result.commit) };
}

/** POST /repos/{owner}/{repo}/contents/{filepath} — 201 FileResponse. */
export async function createFile(rc: Rc<CommitOptions & { content: string }>): Promise<Reply> {
  const filePath = cleanPath(rc.params['*'] ?? '');
  const w = await commitWrite(rc, rc.body, [{ operation: 'create', path: filePath, content: rc.body.content }]);
  return { status: 201, body: { content: await fileResult(rc, w.o, w.branch, w.sha, filePath), commit: w.commit, verification: w.verification } };
}

/** PUT /repos/{owner}/{repo}/contents/{filepath} — 200 FileResponse; `sha` must be the file's current blob id. */
export async function updateFile(rc: Rc<CommitOptions & { content: string; sha: string; from_path?: string }>): Promise<Reply> {
  const filePath = cleanPath(rc.params['*'] ?? '');
  const w = await commitWrite(rc, rc.body, [{ operation: 'update', path: filePath, content: rc.body.content, sha: rc.body.sha, from_path: rc.body.from_path }]);
  return { status: 200, body: { content: await fileResult(rc, w.o, w.branch, w.sha, filePath), commit: w.commit, verification: w.verification } };
}

/** DELETE /repos/{owner}/{repo}/contents/{filepath} — 200 FileDeleteResponse. */
export async function deleteFile(rc: Rc<CommitOptions & { sha: string }>): Promise<Reply> {
  const filePath = cleanPath(rc.params['*'] ?? '');
  const w = await commitWrite(rc, rc.body, [{ operation: 'delete', path: filePath, sha: rc.body.sha }]);
  return { status: 200, body: { content: null, commit: w.commit, verification: w.verification } };
}

/** POST /repos/{owner}/{repo}/contents — several files in one commit, 201 FilesResponse. */
export async function changeFiles(rc: Rc<CommitOptions & { files: FileOp[] }>): Promise<Reply> {
  const w = await commitWrite(rc, rc.body, rc.body.files);
  const files = await Promise.all(rc.body.files.map((f) => (f.operation === 'delete' ? null : fileResult(rc, w.o, w.branch, w.sha, cleanPath(f.path)))));
  return { status: 201, body: { files, commit: w.commit, verification: w.verification } };
}

// ---- branches ----

async function moveRef(rc: Rc, o: Opened, ref: string, oldSha: string, newSha: string): Promise<void> {
  const git = svc(rc).git;
  const reason = await git.checkPush({ repo: o.repo, owner: o.owner, pusherId: rc.caller!.id, via: 'api', updates: [{ ref, oldSha, newSha }] });
  if (reason) throw fail.forbidden(reason);
  const before = await git.readRefs(o.repo, o.owner);
  try {
    if (newSha === ZERO_SHA) await git.run(o.rr.dir, ['update-ref', '-d', ref, oldSha]);
    else await git.run(o.rr.dir, ['update-ref', '-m', 'forgekit: API', ref, newSha, oldSha]);
  } catch {
    throw fail.conflict(`${ref} changed meanwhile`);
  }
  await git.afterPush(o.repo, o.owner, before, rc.caller!.id, 'api');
}

async function openForRefWrite(rc: Rc): Promise<Opened> {
  const o = await svc(rc).open(rc, ACCESS.write);
  Writer.checkWritable(o);
  return o;
}

/** POST /repos/{owner}/{repo}/branches — from `old_ref_name` (branch, tag or commit) or `old_branch_name`. */
export async function createBranch(rc: Rc<{ new_branch_name: string; old_branch_name?: string; old_ref_name?: string }>): Promise<Reply> {
  const o = await openForRefWrite(rc);
  const name = rc.body.new_branch_name;
  if (!isValidRefName(name) || name.startsWith('refs/')) throw fail.validation('new_branch_name', 'is not a valid branch name');
  const from = rc.body.old_ref_name || rc.body.old_branch_name || o.repo.defaultBranch;
  const source = isValidRefName(from) ? await o.rr.resolveCommit(from) : null;
  if (!source) throw new ForgeError('NOT_FOUND', `the old branch or ref ${from} does not exist`);
  if (await o.rr.reader.resolve(`refs/heads/${name}`)) throw fail.conflict(`branch ${name} already exists`);
  await moveRef(rc, o, `refs/heads/${name}`, ZERO_SHA, source.sha);
  const [body] = await branchJson(rc, o, [{ name, sha: source.sha }]);
  return { status: 201, body };
}

/** DELETE /repos/{owner}/{repo}/branches/{branch} — never the default branch, never a protected one. */
export async function deleteBranch(rc: Rc): Promise<Reply> {
  const o = await openForRefWrite(rc);
  const name = rc.params['*'] ?? '';
  if (!isValidRefName(name)) throw fail.notFound();
  const sha = await o.rr.reader.resolve(`refs/heads/${name}`);
  if (!sha) throw fail.notFound();
  if (name === o.repo.defaultBranch) throw fail.forbidden('the default branch cannot be deleted');
  const rule = protections(rc).forBranch(await protections(rc).list(o.repo.id), name);
  if (rule) throw fail.forbidden(`branch ${name} is protected`);
  await moveRef(rc, o, `refs/heads/${name}`, sha, ZERO_SHA);
  return { status: 204 };
}

/** PATCH /repos/{owner}/{repo}/branches/{branch} — rename (`name`); the default branch follows. */
export async function renameBranch(rc: Rc<{ name: string }>): Promise<Reply> {
  const o = await openForRefWrite(rc);
  const from = rc.params['*'] ?? '';
  const to = rc.body.name;
  if (!isValidRefName(from)) throw fail.notFound();
  if (!isValidRefName(to) || to.startsWith('refs/')) throw fail.validation('name', 'is not a valid branch name');
  const sha = await o.rr.reader.resolve(`refs/heads/${from}`);
  if (!sha) throw fail.notFound();
  if (from === to) return { status: 204 };
  if (await o.rr.reader.resolve(`refs/heads/${to}`)) throw fail.validation('name', `branch ${to} already exists`);
  const rules = await protections(rc).list(o.repo.id);
  if (protections(rc).forBranch(rules, from)) throw fail.forbidden(`branch ${from} is protected`);
  const git = svc(rc).git;
  const reason = await git.checkPush({
    repo: o.repo, owner: o.owner, pusherId: rc.caller!.id, via: 'api',
    updates: [{ ref: `refs/heads/${to}`, oldSha: ZERO_SHA, newSha: sha }],
  });
  if (reason) throw fail.forbidden(reason);
  const before = await git.readRefs(o.repo, o.owner);
  // Create the new name, move HEAD if it pointed at the old one, then remove the old one (both compare-and-swap).
  try {
    await git.run(o.rr.dir, ['update-ref', `refs/heads/${to}`, sha, ZERO_SHA]);
  } catch {
    throw fail.conflict(`branch ${to} appeared meanwhile`);
  }
  const isDefault = from === o.repo.defaultBranch;
  if (isDefault) {
    await git.run(o.rr.dir, ['symbolic-ref', 'HEAD', `refs/heads/${to}`]);
    await rc.app.services.get('repos').updateFields(o.repo.id, { defaultBranch: to });
  }
  try {
    await git.run(o.rr.dir, ['update-ref', '-d', `refs/heads/${from}`, sha]);
  } catch {
    rc.log.warn({ from, to }, 'the old branch moved during a rename; it is kept');
  }
  const repo = (await rc.app.services.get('repos').byId(o.repo.id)) ?? o.repo;
  await git.afterPush(repo, o.owner, before, rc.caller!.id, 'api');
  return { status: 204 };
}

// ---- tags ----

/** POST /repos/{owner}/{repo}/tags — annotated when `message` is given, else lightweight; `target` defaults to the default branch. */
export async function createTag(rc: Rc<{ tag_name: string; message?: string; target?: string }>): Promise<Reply> {
  const s = svc(rc);
  const o = await openForRefWrite(rc);
  const name = rc.body.tag_name;
  if (!isValidRefName(name) || name.startsWith('refs/')) throw fail.validation('tag_name', 'is not a valid tag name');
  const from = rc.body.target || o.repo.defaultBranch;
  const target = isValidRefName(from) ? await o.rr.resolveCommit(from) : null;
  if (!target) throw new ForgeError('NOT_FOUND', `target ${from} does not exist`);
  if (await o.rr.reader.resolve(`refs/tags/${name}`)) throw fail.conflict(`tag ${name} already exists`);
  let sha = target.sha;
  if (rc.body.message) {
    const account = await rc.app.services.get('users').byId(rc.caller!.id);
    if (!account) throw fail.unauthorized();
    const who = s.ctx.services.get('users').commitIdentity(account);
    const tagger = `${who.name} <${who.email}> ${Math.floor(Date.now() / 1000)} +0000`;
    let message = rc.body.message;
    if (!message.endsWith('\n')) message += '\n';
    // eslint-disable-next-line no-control-regex
    const object = `object ${target.sha}\ntype commit\ntag ${name}\ntagger ${tagger.replace(/[\x00\n]/g, '')}\n\n${message}`;
    sha = (await s.git.run(o.rr.dir, ['mktag'], { input: object })).stdout.trim();
  }
  await moveRef(rc, o, `refs/tags/${name}`, ZERO_SHA, sha);
  const obj = await o.rr.reader.read(sha);
  const commit = await o.rr.commit(target.sha);
  const { apiTag } = await import('./convert.js');
  const { parseTag } = await import('./git-read.js');
  const message = obj?.type === 'tag' && obj.data ? parseTag(sha, obj.data).message : commit!.message;
  return { status: 201, body: apiTag(o.view, name, sha, commit!, message) };
}

/** DELETE /repos/{owner}/{repo}/tags/{tag} */
export async function deleteTag(rc: Rc): Promise<Reply> {
  const o = await openForRefWrite(rc);
  const name = rc.params['*'] ?? '';
  if (!isValidRefName(name)) throw fail.notFound();
  const sha = await o.rr.reader.resolve(`refs/tags/${name}`);
  if (!sha) throw fail.notFound();
  // Gitea: the release goes first (DELETE /releases/tags/{tag} removes both); a push may still delete the tag.
  if (rc.app.services.has('releases') && await rc.app.services.get('releases').hasReleaseOnTag(o.repo.id, name)) {
    throw fail.conflict('a tag attached to a release cannot be deleted directly');
  }
  await moveRef(rc, o, `refs/tags/${name}`, sha, ZERO_SHA);
  return { status: 204 };
}

// ---- branch protection ----

async function openAdmin(rc: Rc): Promise<Opened> {
  return svc(rc).open(rc, ACCESS.admin);
}

/** GET /repos/{owner}/{repo}/branch_protections */
export async function listProtections(rc: Rc): Promise<Reply> {
  const o = await openAdmin(rc);
  return { status: 200, body: (await protections(rc).list(o.repo.id)).map(protectionApi) };
}

/** GET /repos/{owner}/{repo}/branch_protections/{name} */
export async function getProtection(rc: Rc): Promise<Reply> {
  const o = await openAdmin(rc);
  const rule = await protections(rc).get(o.repo.id, rc.params.name ?? '');
  if (!rule) throw fail.notFound();
  return { status: 200, body: protectionApi(rule) };
}

async function checkUsers(rc: Rc, body: Record<string, unknown>): Promise<void> {
  const users = rc.app.services.get('users');
  for (const field of ['push_whitelist_usernames', 'merge_whitelist_usernames', 'approvals_whitelist_username', 'force_push_allowlist_usernames']) {
    const names = body[field];
    if (!Array.isArray(names)) continue;
    for (const n of names as string[]) {
      if (!(await users.byName(n))) throw fail.validation(field, `user ${n} does not exist`);
    }
  }
}

/** POST /repos/{owner}/{repo}/branch_protections — 201; an existing rule name is a 403 as in Gitea. */
export async function createProtection(rc: Rc<Record<string, unknown>>): Promise<Reply> {
  const o = await openAdmin(rc);
  Writer.refuseArchived(o);
  await checkUsers(rc, rc.body);
  const rule = await protections(rc).create(o.repo.id, rc.body);
  return { status: 201, body: protectionApi(rule) };
}

/** PATCH /repos/{owner}/{repo}/branch_protections/{name} */
export async function editProtection(rc: Rc<Record<string, unknown>>): Promise<Reply> {
  const o = await openAdmin(rc);
  Writer.refuseArchived(o);
  await checkUsers(rc, rc.body);
  const rule = await protections(rc).edit(o.repo.id, rc.params.name ?? '', rc.body);
  if (!rule) throw fail.notFound();
  return { status: 200, body: protectionApi(rule) };
}

/** DELETE /repos/{owner}/{repo}/branch_protections/{name} — 204. */
export async function deleteProtection(rc: Rc): Promise<Reply> {
  const o = await openAdmin(rc);
  if (!(await protections(rc).remove(o.repo.id, rc.params.name ?? ''))) throw fail.notFound();
  return { status: 204 };
}

export { contentsApi };
