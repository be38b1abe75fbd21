// Label routes: repository and organization labels (CRUD), and the labels of an issue (add, replace, remove, clear).
import { fail } from '../../core/errors.js';
import { pageHeaders } from '../../core/pagination.js';
import type { Reply } from '../../core/plugin.js';
import { nowRfc3339 } from '../../core/time.js';
import { ACCESS, type Account } from '../../schemas/services.js';
import type { LabelRecord } from '../../schemas/contracts/issues.js';
import { labelToApi } from './convert.js';
import { canWrite, changeContext, issueOf, repoOf, service, window, type Rc } from './handlers.js';
import { LABELS, normalizeColor } from './service.js';

type RepoPath = { owner: string; repo: string };
type IssuePath = RepoPath & { index: number };

interface LabelBody {
  name?: string;
  color?: string;
  description?: string;
  exclusive?: boolean;
  is_archived?: boolean;
}

function checkedColor(color: string): string {
  const normalized = normalizeColor(color);
  if (normalized === null) throw fail.validation('color', 'must be a hex color such as #e11d21 or #e1d');
  return normalized;
}

function byName(a: LabelRecord, b: LabelRecord): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id;
}

async function createLabel(rc: Rc, scope: { repoId: number; orgId: number }, body: LabelBody): Promise<LabelRecord> {
  const s = service(rc);
  const name = body.name!.trim();
  if (!name) throw fail.validation('name', 'must not be empty');
  return s.labels.insertOne({
    id: await s.ctx.store.nextId(LABELS),
    repoId: scope.repoId,
    orgId: scope.orgId,
    name,
    color: checkedColor(body.color!),
    description: body.description ?? '',
    exclusive: body.exclusive === true,
    isArchived: body.is_archived === true,
    createdAt: nowRfc3339(),
  });
}

async function editLabel(rc: Rc, label: LabelRecord, body: LabelBody): Promise<LabelRecord> {
  const set: Partial<LabelRecord> = {};
  if (body.name !== undefined) {
    const name = body.name.trim();
    if (!name) throw fail.validation('name', 'must not be empty');
    set.name = name;
  }
  if (body.color !== undefined) set.color = checkedColor(body.color);
  if (body.description !== undefined) set.description = body.description;
  if (body.exclusive !== undefined) set.exclusive = body.exclusive;
  if (body.is_archived !== undefined) set.isArchived = body.is_archived;
  if (Object.keys(set).length === 0) return label;
  const after = await service(rc).labels.findOneAndUpdate({ id: label.id }, { $set: set });
  if (!after) throw fail.notFound();
  return after;
}

// ---- repository labels ----

function repoLabelApi(rc: Rc, owner: Account, repoName: string, label: LabelRecord) {
  return labelToApi(label, rc.app.urls.api, owner.login, repoName);
}

/** GET /repos/{owner}/{repo}/labels: the repository's own labels, by name. */
export async function listRepoLabels(rc: Rc<RepoPath>): Promise<Reply> {
  const found = await repoOf(rc);
  const all = [...(await service(rc).labels.find({ repoId: found.repo.id }))].sort(byName);
  const win = window(rc);
  const page = all.slice(win.skip, win.skip + win.limit);
  return { status: 200, body: page.map((l) => repoLabelApi(rc, found.owner, found.repo.name, l)), headers: pageHeaders(rc, all.length, win) };
}

/** POST /repos/{owner}/{repo}/labels */
export async function createRepoLabel(rc: Rc<RepoPath, unknown, LabelBody>): Promise<Reply> {
  const found = await repoOf(rc, ACCESS.write);
  const label = await createLabel(rc, { repoId: found.repo.id, orgId: 0 }, rc.body);
  return { status: 201, body: repoLabelApi(rc, found.owner, found.repo.name, label) };
}

async function repoLabel(rc: Rc<RepoPath & { id: number }>, minimum: 1 | 2) {
  const found = await repoOf(rc, minimum);
  const label = await service(rc).labels.findOne({ id: rc.params.id });
  if (!label || label.repoId !== found.repo.id) throw fail.notFound();
  return { ...found, label };
}

/** GET /repos/{owner}/{repo}/labels/{id} */
export async function getRepoLabel(rc: Rc<RepoPath & { id: number }>): Promise<Reply> {
  const found = await repoLabel(rc, ACCESS.read);
  return { status: 200, body: repoLabelApi(rc, found.owner, found.repo.name, found.label) };
}

/** PATCH /repos/{owner}/{repo}/labels/{id} */
export async function editRepoLabel(rc: Rc<RepoPath & { id: number }, unknown, LabelBody>): Promise<Reply> {
  const found = await repoLabel(rc, ACCESS.write);
  const label = await editLabel(rc, found.label, rc.body);
  return { status: 200, body: repoLabelApi(rc, found.owner, found.repo.name, label) };
}

/** DELETE /repos/{owner}/{repo}/labels/{id}: taken off every issue too. */
export async function deleteRepoLabel(rc: Rc<RepoPath & { id: number }>): Promise<Reply> {
  const found = await repoLabel(rc, ACCESS.write);
  await service(rc).deleteLabel(found.label);
  return { status: 204 };
}

// ---- organization labels ----

async function orgOf(rc: Rc<{ org: string }>, manage: boolean): Promise<Account> {
  const s = service(rc);
  const org = await s.users.byName(rc.params.org);
  if (!org || org.type !== 'org') throw fail.notFound();
  if (manage) {
    const caller = rc.caller!;
    const owner = caller.isAdmin || (rc.app.services.has('orgs') && (await rc.app.services.get('orgs').isOwner(org.id, caller.id)));
    if (!owner) throw fail.forbidden('only owners of the organization may manage its labels');
  }
  return org;
}

function orgLabelApi(rc: Rc, org: Account, label: LabelRecord) {
  return labelToApi(label, rc.app.urls.api, org.login, null);
}

/** GET /orgs/{org}/labels */
export async function listOrgLabels(rc: Rc<{ org: string }>): Promise<Reply> {
  const org = await orgOf(rc, false);
  const all = [...(await service(rc).labels.find({ orgId: org.id }))].sort(byName);
  const win = window(rc);
  return { status: 200, body: all.slice(win.skip, win.skip + win.limit).map((l) => orgLabelApi(rc, org, l)), headers: pageHeaders(rc, all.length, win) };
}

/** POST /orgs/{org}/labels */
export async function createOrgLabel(rc: Rc<{ org: string }, unknown, LabelBody>): Promise<Reply> {
  const org = await orgOf(rc, true);
  return { status: 201, body: orgLabelApi(rc, org, await createLabel(rc, { repoId: 0, orgId: org.id }, rc.body)) };
}

async function orgLabel(rc: Rc<{ org: string; id: number }>, manage: boolean) {
  const org = await orgOf(rc, manage);
  const label = await service(rc).labels.findOne({ id: rc.params.id });
  if (!label || label.orgId !== org.id) throw fail.notFound();
  return { org, label };
}

/** GET /orgs/{org}/labels/{id} */
export async function getOrgLabel(rc: Rc<{ org: string; id: number }>): Promise<Reply> {
  const { org, label } = await orgLabel(rc, false);
  return { status: 200, body: orgLabelApi(rc, org, label) };
}

/** PATCH /orgs/{org}/labels/{id} */
export async function editOrgLabel(rc: Rc<{ org: string; id: number }, unknown, LabelBody>): Promise<Reply> {
  const { org, label } = await orgLabel(rc, true);
  return { status: 200, body: orgLabelApi(rc, org, await editLabel(rc, label, rc.body)) };
}

/** DELETE /orgs/{org}/labels/{id} */
export async function deleteOrgLabel(rc: Rc<{ org: string; id: number }>): Promise<Reply> {
  const { label } = await orgLabel(rc, true);
  await service(rc).deleteLabel(label);
  return { status: 204 };
}

// ---- an issue's labels ----

async function issueLabelsReply(rc: Rc, found: Awaited<ReturnType<typeof issueOf>>, labelIds: number[]): Promise<Reply> {
  const labels = labelIds.length ? await service(rc).labels.find({ id: { $in: labelIds } }, { sort: { id: 1 } }) : [];
  return { status: 200, body: labels.map((l) => labelToApi(l, rc.app.urls.api, found.owner.login, found.repo.name)) };
}

/** GET /repos/{owner}/{repo}/issues/{index}/labels */
export async function getIssueLabels(rc: Rc<IssuePath>): Promise<Reply> {
  const found = await issueOf(rc);
  return issueLabelsReply(rc, found, found.issue.labelIds);
}

async function writableIssue(rc: Rc<IssuePath>) {
  const found = await issueOf(rc);
  if (!canWrite(found)) throw fail.forbidden('only writers may change the labels of an issue');
  return found;
}

/** POST /repos/{owner}/{repo}/issues/{index}/labels: 200 with the issue's labels after. */
export async function addIssueLabels(rc: Rc<IssuePath, unknown, { labels?: Array<number | string> }>): Promise<Reply> {
  const found = await writableIssue(rc);
  const issue = await service(rc).addLabels(changeContext(rc, found), found.issue, rc.body.labels ?? []);
  return issueLabelsReply(rc, found, issue.labelIds);
}

/** PUT /repos/{owner}/{repo}/issues/{index}/labels */
export async function replaceIssueLabels(rc: Rc<IssuePath, unknown, { labels?: Array<number | string> }>): Promise<Reply> {
  const found = await writableIssue(rc);
  const issue = await service(rc).replaceLabels(changeContext(rc, found), found.issue, rc.body.labels ?? []);
  return issueLabelsReply(rc, found, issue.labelIds);
}

/** DELETE /repos/{owner}/{repo}/issues/{index}/labels */
export async function clearIssueLabels(rc: Rc<IssuePath>): Promise<Reply> {
  const found = await writableIssue(rc);
  await service(rc).clearLabels(changeContext(rc, found), found.issue);
  return { status: 204 };
}

/** DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}: 422 for a label that does not exist (Gitea). */
export async function removeIssueLabel(rc: Rc<IssuePath & { id: number }>): Promise<Reply> {
  const found = await writableIssue(rc);
  const s = service(rc);
  const label = await s.labels.findOne({ id: rc.params.id });
  if (!label) throw fail.validation('id', `label ${rc.params.id} does not exist`);
  await s.removeLabel(changeContext(rc, found), found.issue, label.id);
  return { status: 204 };
}
