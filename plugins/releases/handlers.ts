// Release routes: list, get (by id, by tag, latest), create, edit, delete (by id, by tag); attachments: list, get,
// upload (streamed), rename, delete; and the download behind `browser_download_url`.
import { pipeline } from 'node:stream/promises';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext, ServiceRegistry, SignedInContext } from '../../core/plugin.js';
import { ACCESS, type AccessMode, type Account, type RepoRecord } from '../../schemas/services.js';
import { repos } from '../lib/request.js';
import { attachmentName, typeAllowed, UUID } from './files.js';
import type { NewRelease, ReleaseEdit, Releases } from './service.js';
import type { AttachmentRecord, ReleaseRecord } from './store.js';
import { issueAssetReadable } from './issue-assets.js';

type RepoParams = { owner: string; repo: string };
type IdParams = RepoParams & { id: number };
type AssetParams = IdParams & { attachment_id: number };
type TagParams = RepoParams & { '*': string };

export function svc(rc: { app: { services: ServiceRegistry } }): Releases {
  // The registry knows the contract (schemas/contracts/releases.ts); this plugin's handlers use the whole service.
  return rc.app.services.get('releases') as Releases;
}

interface Resolved {
  repo: RepoRecord;
  owner: Account;
  mode: AccessMode;
  canWrite: boolean;
}

async function open(rc: RequestContext<RepoParams>, minimum: AccessMode = ACCESS.read): Promise<Resolved> {
  const r = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, minimum, 'releases');
  if (minimum >= ACCESS.write) repos(rc).assertWritable(r.repo);
  return { ...r, canWrite: r.mode >= ACCESS.write };
}

/** A release of this repository the caller may see: drafts only for writers (404 otherwise). */
function visible(o: Resolved, release: ReleaseRecord | null): ReleaseRecord {
  if (!release || release.repoId !== o.repo.id || (release.isDraft && !o.canWrite)) throw fail.notFound();
  return release;
}

async function one(rc: RequestContext<RepoParams>, o: Resolved, release: ReleaseRecord, status = 200): Promise<Reply> {
  const s = svc(rc);
  return { status, body: (await s.toApi(s.viewOf(o.repo, o.owner), [release], rc.caller))[0] };
}

/** GET /repos/{owner}/{repo}/releases */
export async function list(rc: RequestContext<RepoParams, { draft?: boolean; 'pre-release'?: boolean; page?: number; limit?: number }>): Promise<Reply> {
  const o = await open(rc);
  const s = svc(rc);
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const asked = rc.query?.draft;
  // Drafts are for writers: a reader asking for drafts gets none.
  if (asked === true && !o.canWrite) return { status: 200, body: [], headers: pageHeaders(rc, 0, win) };
  const drafts = asked === true ? 'only' : asked === false || !o.canWrite ? 'none' : true;
  const { rows, total } = await s.page(o.repo.id, { drafts, prerelease: rc.query?.['pre-release'] }, win);
  return { status: 200, body: await s.toApi(s.viewOf(o.repo, o.owner), rows, rc.caller), headers: pageHeaders(rc, total, win) };
}

/** GET /repos/{owner}/{repo}/releases/{id} */
export async function get(rc: RequestContext<IdParams>): Promise<Reply> {
  const o = await open(rc);
  return one(rc, o, visible(o, await svc(rc).byId(o.repo.id, rc.params.id)));
}

/** GET /repos/{owner}/{repo}/releases/latest: the newest published release that is no pre-release. */
export async function latest(rc: RequestContext<RepoParams>): Promise<Reply> {
  const o = await open(rc);
  return one(rc, o, visible(o, await svc(rc).latest(o.repo.id)));
}

/** GET /repos/{owner}/{repo}/releases/tags/{tag} */
export async function getByTag(rc: RequestContext<TagParams>): Promise<Reply> {
  const o = await open(rc);
  return one(rc, o, visible(o, await svc(rc).byTag(o.repo.id, rc.params['*'])));
}

/** POST /repos/{owner}/{repo}/releases */
export async function create(rc: SignedInContext<RepoParams, unknown, NewRelease>): Promise<Reply> {
  const o = await open(rc, ACCESS.write);
  const release = await svc(rc).create(o.repo, o.owner, rc.caller, rc.body);
  return one(rc, o, release, 201);
}

/** PATCH /repos/{owner}/{repo}/releases/{id} */
export async function edit(rc: SignedInContext<IdParams, unknown, ReleaseEdit>): Promise<Reply> {
  const o = await open(rc, ACCESS.write);
  const release = visible(o, await svc(rc).byId(o.repo.id, rc.params.id));
  return one(rc, o, await svc(rc).edit(o.repo, o.owner, rc.caller, release, rc.body));
}

/** DELETE /repos/{owner}/{repo}/releases/{id} */
export async function remove(rc: SignedInContext<IdParams>): Promise<Reply> {
  const o = await open(rc, ACCESS.write);
  const release = visible(o, await svc(rc).byId(o.repo.id, rc.params.id));
  await svc(rc).delete(o.repo, o.owner, rc.caller, release);
  return { status: 204 };
}

/** DELETE /repos/{owner}/{repo}/releases/tags/{tag}: the release goes, the tag stays. */
export async function removeByTag(rc: SignedInContext<TagParams>): Promise<Reply> {
  const o = await open(rc, ACCESS.write);
  const release = visible(o, await svc(rc).byTag(o.repo.id, rc.params['*']));
  await svc(rc).delete(o.repo, o.owner, rc.caller, release);
  return { status: 204 };
}

// ---- attachments ----

async function releaseOf(rc: RequestContext<IdParams>, minimum: AccessMode = ACCESS.read): Promise<{ o: Resolved; release: ReleaseRecord }> {
  const o = await open(rc, minimum);
  return { o, release: visible(o, await svc(rc).byId(o.repo.id, rc.params.id)) };
}

async function assetOf(rc: RequestContext<AssetParams>, minimum: AccessMode = ACCESS.read): Promise<{ o: Resolved; asset: AttachmentRecord }> {
  const { o, release } = await releaseOf(rc, minimum);
  const asset = await svc(rc).attachment(release.id, rc.params.attachment_id);
  if (!asset) throw fail.notFound();
  return { o, asset };
}

/** GET /repos/{owner}/{repo}/releases/{id}/assets */
export async function listAssets(rc: RequestContext<IdParams>): Promise<Reply> {
  const { o, release } = await releaseOf(rc);
  const view = svc(rc).viewOf(o.repo, o.owner);
  return { status: 200, body: (await svc(rc).attachmentsOf([release.id])).map((a) => view.attachment(a)) };
}

/** GET /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id} */
export async function getAsset(rc: RequestContext<AssetParams>): Promise<Reply> {
  const { o, asset } = await assetOf(rc);
  return { status: 200, body: svc(rc).viewOf(o.repo, o.owner).attachment(asset) };
}

/**
 * POST /repos/{owner}/{repo}/releases/{id}/assets?name=: the `attachment` part of a multipart/form-data body (or a
 * raw body named by `name`), streamed to disk; 201 Attachment.
 */
export async function upload(rc: SignedInContext<IdParams, { name?: string }>): Promise<Reply> {
  let target: { o: Resolved; release: ReleaseRecord };
  try {
    target = await releaseOf(rc, ACCESS.write);
  } catch (err) {
    rc.req.resume(); // the client gets the answer once it has sent its body
    throw err;
  }
  const s = svc(rc);
  const received = await s.files.receive(rc.req, s.settings.attachments, rc.query?.name || undefined);
  const record = await s.addAttachment(target.o.repo, target.release, rc.caller, received);
  return { status: 201, body: s.viewOf(target.o.repo, target.o.owner).attachment(record) };
}

/** PATCH /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}: renames (201, as Gitea answers). */
export async function editAsset(rc: SignedInContext<AssetParams, unknown, { name?: string }>): Promise<Reply> {
  const { o, asset } = await assetOf(rc, ACCESS.write);
  const s = svc(rc);
  return { status: 201, body: s.viewOf(o.repo, o.owner).attachment(await renamed(s, asset, rc.body.name)) };
}

/** EditAttachmentOptions: a new name (checked like an upload's; Gitea checks extensions only), or none. */
export async function renamed(s: Releases, asset: AttachmentRecord, raw: string | undefined): Promise<AttachmentRecord> {
  if (raw === undefined || raw === '') return asset;
  const name = attachmentName(raw);
  if (!typeAllowed(name, '', s.settings.attachments.allowedTypes.filter((t) => t.trim().startsWith('.')))) {
    throw fail.validation('name', `this file type is not allowed (allowed: ${s.settings.attachments.allowedTypes.join(', ')})`);
  }
  return s.renameAttachment(asset, name);
}

/** DELETE /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id} */
export async function removeAsset(rc: SignedInContext<AssetParams>): Promise<Reply> {
  const { asset } = await assetOf(rc, ACCESS.write);
  await svc(rc).removeAttachment(asset);
  return { status: 204 };
}

/** A file name for Content-Disposition: an ASCII fallback plus the exact name (RFC 6266 / 5987). */
function disposition(name: string): string {
  // eslint-disable-next-line no-control-regex
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * GET /attachments/{uuid} (root): the file, streamed, as a download. The repository's readers only (404 otherwise,
 * drafts' files for writers only), never rendered by a browser (`attachment`, octet-stream, nosniff, sandbox CSP).
 */
export async function download(rc: RequestContext<{ uuid: string }>): Promise<Reply | void> {
  const s = svc(rc);
  const uuid = rc.params.uuid.toLowerCase();
  if (!UUID.test(uuid)) throw fail.notFound();
  const asset = await s.attachmentByUuid(uuid);
  if (!asset) throw fail.notFound();
  const stored = await repos(rc).byId(asset.repoId);
  const owner = stored ? await rc.app.services.get('users').byId(stored.ownerId) : null;
  if (!stored || !owner) throw fail.notFound();
  // The unit the file belongs to decides (Gitea's attachment download): releases, or the issue's issues/pulls unit.
  const { repo, unitMode } = await repos(rc).resolve(rc.caller, owner.login, stored.name, ACCESS.read);
  if (asset.releaseId) {
    // A draft's files are for writers only.
    const mode = unitMode('releases');
    const release = mode >= ACCESS.read ? await s.releases.findOne({ id: asset.releaseId }) : null;
    if (!release || (release.isDraft && mode < ACCESS.write)) throw fail.notFound();
  } else if (!(await issueAssetReadable(rc, repo, asset, unitMode))) {
    throw fail.notFound();
  }
  const size = await s.files.size(asset.uuid);
  if (size === null) throw fail.notFound();
  const etag = `"${asset.uuid}"`;
  const res = rc.res;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': disposition(asset.name),
    'Content-Security-Policy': "default-src 'none'; sandbox",
    // The bytes under a uuid never change, but who may read them can: revalidate every time.
    'Cache-Control': 'private, no-cache',
    ETag: etag,
  };
  if (rc.req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  headers['Accept-Ranges'] = 'bytes';
  const ifRange = rc.req.headers['if-range'];
  const range = byteRange(rc.req.headers.range, size, Array.isArray(ifRange) ? ifRange[0] : ifRange, etag);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` });
    res.end();
    return;
  }
  // HEAD: the headers a GET would send, no body, not counted as a download.
  const head = rc.req.method === 'HEAD';
  if (!head) await s.counted(asset);
  if (range) {
    res.writeHead(206, { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${size}`, 'Content-Length': range.end - range.start + 1 });
    if (head) res.end();
    else await pipeline(s.files.open(asset.uuid, range), res);
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Length': size });
  if (head) res.end();
  else await pipeline(s.files.open(asset.uuid), res);
}

/**
 * One `Range: bytes=…` of RFC 9110 (first-last, first-, -suffix) over a file of `size` bytes: the bytes to send, null
 * for the whole file (no range, several ranges, another unit, or an `If-Range` that no longer matches), or
 * 'unsatisfiable' (416).
 */
export function byteRange(header: string | undefined, size: number, ifRange: string | undefined, etag: string): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header || (ifRange !== undefined && ifRange !== etag)) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}
