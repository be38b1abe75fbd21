// Issue and comment attachments (Gitea's routers/api/v1/repo/issue_attachment.go, issue_comment_attachment.go),
// stored with the release assets: the same streamed upload, limits, files named by uuid, size counted in the
// repository, and the same download behind `browser_download_url`. The issues plugin is reached through its service
// only (an optional dependency): without it these routes answer 404, and it shows the files in `assets` through the
// source this plugin registers (IssuesService.setAssetSource).
import { fail } from '../../core/errors.js';
import type { Reply, RequestContext, SignedInContext } from '../../core/plugin.js';
import type { CommentRecord, IssueRecord, IssuesService } from '../../schemas/contracts/issues.js';
import '../../schemas/contracts/issues.js';
import { ACCESS, type AccessMode, type Account, type RepoRecord } from '../../schemas/services.js';
import { repos } from '../lib/request.js';
import { attachmentToApi } from './convert.js';
import { renamed, svc } from './handlers.js';
import type { AttachmentRecord } from './store.js';

type RepoParams = { owner: string; repo: string };
type IssueParams = RepoParams & { index: number };
type CommentParams = RepoParams & { id: number };
type Asset = { attachment_id: number };

interface Target {
  repo: RepoRecord;
  owner: Account;
  mode: AccessMode;
  issue: IssueRecord;
  /** The comment, for a comment's attachments. */
  comment: CommentRecord | null;
}

function issuesOf(rc: RequestContext<any, any, any>): IssuesService {
  if (!rc.app.services.has('issues')) throw fail.notFound();
  return rc.app.services.get('issues');
}

/** The repository (readable, issues on) and the issue or comment of the path; 404 for anything the caller cannot see. */
async function targetOf(rc: RequestContext<IssueParams | CommentParams, any, any>, kind: 'issue' | 'comment'): Promise<Target> {
  const issues = issuesOf(rc);
  const { repo, owner, unitMode } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo);
  if (repo.hasIssues === false) throw fail.notFound();
  // The issue's unit decides (a team's units_map): issues, or pulls for a pull request; unreadable is a 404.
  const withUnit = (issue: IssueRecord) => {
    const mode = unitMode(issue.isPull ? 'pulls' : 'issues');
    if (mode < ACCESS.read) throw fail.notFound();
    return mode;
  };
  if (kind === 'issue') {
    const issue = await issues.byNumber(repo.id, (rc.params as IssueParams).index);
    if (!issue) throw fail.notFound();
    return { repo, owner, mode: withUnit(issue), issue, comment: null };
  }
  const comment = await issues.commentById((rc.params as CommentParams).id);
  if (!comment || comment.repoId !== repo.id) throw fail.notFound();
  const issue = await issues.byId(comment.issueId);
  if (!issue) throw fail.notFound();
  return { repo, owner, mode: withUnit(issue), issue, comment };
}

/**
 * Gitea's canUserWriteIssueAttachment: the poster (of the issue; of the comment for a comment's files), a writer or
 * an admin — 403 otherwise; an archived repository is read-only (423).
 */
function assertMayWrite(rc: SignedInContext<any, any, any>, t: Target): void {
  repos(rc).assertWritable(t.repo);
  const poster = t.comment ? t.comment.posterId : t.issue.posterId;
  if (rc.caller.id !== poster && t.mode < ACCESS.write && !rc.caller.isAdmin) throw fail.forbidden('user should have permission to write issue');
}

/** The attachment of the path, which must belong to the issue itself or to the comment (404 otherwise). */
async function assetOf(rc: RequestContext<(IssueParams | CommentParams) & Asset, any, any>, t: Target): Promise<AttachmentRecord> {
  const asset = await svc(rc).attachments.findOne({ id: rc.params.attachment_id });
  const belongs = asset && asset.repoId === t.repo.id && asset.issueId === t.issue.id && (asset.commentId ?? 0) === (t.comment?.id ?? 0);
  if (!belongs) throw fail.notFound();
  return asset;
}

function list(kind: 'issue' | 'comment') {
  return async (rc: RequestContext<IssueParams | CommentParams>): Promise<Reply> => {
    const t = await targetOf(rc, kind);
    const { issues, comments } = await svc(rc).ofIssues(t.comment ? [] : [t.issue.id], t.comment ? [t.comment.id] : []);
    return { status: 200, body: (t.comment ? comments : issues).map((a) => attachmentToApi(rc.app.urls.root, a)) };
  };
}

function get(kind: 'issue' | 'comment') {
  return async (rc: RequestContext<(IssueParams | CommentParams) & Asset>): Promise<Reply> => {
    const t = await targetOf(rc, kind);
    return { status: 200, body: attachmentToApi(rc.app.urls.root, await assetOf(rc, t)) };
  };
}

/** POST …/assets?name=: the `attachment` part of a multipart/form-data body (or a raw body named by `name`); 201. */
function upload(kind: 'issue' | 'comment') {
  return async (rc: SignedInContext<IssueParams | CommentParams, { name?: string }>): Promise<Reply> => {
    let t: Target;
    try {
      t = await targetOf(rc, kind);
      assertMayWrite(rc, t);
    } catch (err) {
      rc.req.resume(); // the client gets the answer once it has sent its body
      throw err;
    }
    const s = svc(rc);
    const issues = issuesOf(rc);
    const received = await s.files.receive(rc.req, s.settings.attachments, rc.query?.name || undefined);
    const stillThere = async () => (t.comment ? (await issues.commentById(t.comment.id)) !== null : (await issues.byId(t.issue.id)) !== null);
    const record = await s.attach(t.repo, { issueId: t.issue.id, commentId: t.comment?.id ?? 0 }, rc.caller, received, stillThere);
    return { status: 201, body: attachmentToApi(rc.app.urls.root, record) };
  };
}

/** PATCH …/assets/{attachment_id}: renames; 201 as Gitea answers. */
function edit(kind: 'issue' | 'comment') {
  return async (rc: SignedInContext<(IssueParams | CommentParams) & Asset, unknown, { name?: string }>): Promise<Reply> => {
    const t = await targetOf(rc, kind);
    assertMayWrite(rc, t);
    const asset = await assetOf(rc, t);
    return { status: 201, body: attachmentToApi(rc.app.urls.root, await renamed(svc(rc), asset, rc.body.name)) };
  };
}

function remove(kind: 'issue' | 'comment') {
  return async (rc: SignedInContext<(IssueParams | CommentParams) & Asset>): Promise<Reply> => {
    const t = await targetOf(rc, kind);
    assertMayWrite(rc, t);
    await svc(rc).removeAttachment(await assetOf(rc, t));
    return { status: 204 };
  };
}

export const issueAssets = { list: list('issue'), get: get('issue'), upload: upload('issue'), edit: edit('issue'), remove: remove('issue') };
export const commentAssets = { list: list('comment'), get: get('comment'), upload: upload('comment'), edit: edit('comment'), remove: remove('comment') };

/** The download of an issue's or comment's file: the repository is readable (checked by the caller), issues are on, it still exists. */
export async function issueAssetReadable(rc: RequestContext<any>, repo: RepoRecord, asset: AttachmentRecord,
  unitMode: (unit: 'issues' | 'pulls') => AccessMode): Promise<boolean> {
  if (!asset.issueId || repo.hasIssues === false || !rc.app.services.has('issues')) return false;
  const issue = await rc.app.services.get('issues').byId(asset.issueId);
  return issue !== null && unitMode(issue.isPull ? 'pulls' : 'issues') >= ACCESS.read;
}
