// Deploy keys of a repository (/repos/{owner}/{repo}/keys): a public key that reaches this one repository over
// SSH, read-only or read-write. Managing them needs admin access to the repository, as in Gitea.
import { fail } from '../../core/errors.js';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import { isDuplicateKeyError } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import type { DeployKeyRecord } from '../../schemas/contracts/deploy-keys.js';
import { ACCESS, type RepoRecord } from '../../schemas/services.js';
import { toApiDeployKey } from './convert.js';

export const COLLECTION = 'deploy_keys';

type RepoParams = { owner: string; repo: string };
type Rc<P = RepoParams, Q = Record<string, never>, B = unknown> = RequestContext<P, Q, B>;

function keys(rc: Rc<any, any, any>) {
  return rc.app.store.collection<DeployKeyRecord>(COLLECTION);
}

/** The repository, for a caller with admin access (404 to those who cannot read it, 403 to readers). */
async function adminRepo(rc: Rc<any, any, any>, withRepository = true): Promise<{ repo: RepoRecord; base: string; repository?: Record<string, unknown> }> {
  const repos = rc.app.services.get('repos');
  const { repo, owner } = await repos.resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  // Gitea embeds the repository for site admins and the repository's owner only.
  const embed = withRepository && rc.caller !== null && (rc.caller.isAdmin || rc.caller.id === repo.ownerId);
  const repository = embed ? (await repos.toApi([repo], rc.caller))[0] as Record<string, unknown> | undefined : undefined;
  return { repo, base: `${rc.app.urls.api}repos/${owner.login}/${repo.name}/`, repository };
}

/** GET /repos/{owner}/{repo}/keys — optionally one key (`key_id`) or one fingerprint. */
export async function list(rc: Rc<RepoParams, { page?: number; limit?: number; key_id?: number; fingerprint?: string }>): Promise<Reply> {
  const { repo, base, repository } = await adminRepo(rc);
  const filter: Record<string, unknown> = { repoId: repo.id };
  if (rc.query.key_id !== undefined) filter.keyId = rc.query.key_id;
  if (rc.query.fingerprint !== undefined) filter.fingerprint = rc.query.fingerprint;
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const { docs, total } = await keys(rc).findAndCount(filter, { sort: { id: 1 }, skip: win.skip, limit: win.limit });
  return { status: 200, body: docs.map((d) => toApiDeployKey(d, base, repository)), headers: pageHeaders(rc, total, win) };
}

/** GET /repos/{owner}/{repo}/keys/{id} */
export async function get(rc: Rc<RepoParams & { id: number }>): Promise<Reply> {
  const { repo, base, repository } = await adminRepo(rc);
  const doc = await keys(rc).findOne({ id: rc.params.id, repoId: repo.id });
  if (!doc) throw fail.notFound();
  return { status: 200, body: toApiDeployKey(doc, base, repository) };
}

/**
 * POST /repos/{owner}/{repo}/keys — a key already used by a user is refused (one fingerprint, one identity); the
 * same key may be deployed to several repositories and then shares its `key_id`.
 */
export async function create(rc: Rc<RepoParams, {}, { title: string; key: string; read_only?: boolean }>): Promise<Reply> {
  const { repo, base, repository } = await adminRepo(rc);
  const sshKeys = rc.app.services.get('ssh-keys');
  const title = rc.body.title.trim();
  if (title === '') throw fail.validation('title', 'must not be empty');
  const parsed = sshKeys.parse(rc.body.key);
  if (await sshKeys.userKeyByFingerprint(parsed.fingerprint)) throw fail.validation('key', 'this key is already in use by a user');
  const col = keys(rc);
  if (await col.findOne({ repoId: repo.id, fingerprint: parsed.fingerprint })) throw fail.validation('key', 'this key is already a deploy key of this repository');
  if (await col.findOne({ repoId: repo.id, title })) throw fail.validation('title', 'a deploy key with this title already exists');
  const id = await rc.app.store.nextId(COLLECTION);
  const sibling = await col.findOne({ fingerprint: parsed.fingerprint });
  const doc: DeployKeyRecord = {
    id,
    keyId: (sibling?.keyId as number | undefined) ?? id,
    repoId: repo.id,
    title,
    content: parsed.line,
    fingerprint: parsed.fingerprint,
    type: parsed.type,
    bits: parsed.bits,
    readOnly: rc.body.read_only ?? false,
    createdAt: nowRfc3339(),
  };
  try {
    await col.insertOne(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) {
      if (err.fields.includes('fingerprint')) throw fail.validation('key', 'this key is already a deploy key of this repository');
      throw fail.validation('title', 'a deploy key with this title already exists');
    }
    throw err;
  }
  return { status: 201, body: toApiDeployKey((await col.findOne({ id })) ?? doc, base, repository) };
}

/** DELETE /repos/{owner}/{repo}/keys/{id} */
export async function remove(rc: Rc<RepoParams & { id: number }>): Promise<Reply> {
  const { repo } = await adminRepo(rc, false);
  const removed = await keys(rc).deleteOne({ id: rc.params.id, repoId: repo.id });
  if (!removed) throw fail.notFound();
  return { status: 204 };
}
