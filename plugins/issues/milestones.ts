// Milestone routes: list, create, read, edit and delete, by id or by title, with exact open/closed issue counts.
import { fail } from '../../core/errors.js';
import { pageHeaders } from '../../core/pagination.js';
import type { Reply } from '../../core/plugin.js';
import type { Filter } from '../../core/store/port.js';
import { nowRfc3339, toRfc3339 } from '../../core/time.js';
import { ACCESS } from '../../schemas/services.js';
import type { MilestoneRecord } from '../../schemas/contracts/issues.js';
import { milestoneToApi } from './convert.js';
import { repoOf, service, window, type Rc } from './handlers.js';
import { MILESTONES } from './service.js';

type RepoPath = { owner: string; repo: string };
type MilestonePath = RepoPath & { id: string };

function dueOn(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw fail.validation('due_on', 'must be an RFC 3339 date-time');
  return toRfc3339(ms);
}

/** GET /repos/{owner}/{repo}/milestones: `state` (default open), `name` (substring, case-insensitive), paged. */
export async function listMilestones(rc: Rc<RepoPath, { state?: string; name?: string }>): Promise<Reply> {
  const found = await repoOf(rc);
  const query = rc.query ?? {};
  const filter: Filter = { repoId: found.repo.id };
  if (query.state !== 'all') filter.isClosed = query.state === 'closed';
  let all = await service(rc).milestones.find(filter, { sort: { id: 1 } });
  const name = query.name?.toLowerCase();
  if (name) all = all.filter((m) => m.lowerTitle.includes(name));
  const win = window(rc);
  return { status: 200, body: all.slice(win.skip, win.skip + win.limit).map(milestoneToApi), headers: pageHeaders(rc, all.length, win) };
}

interface MilestoneBody {
  title?: string;
  description?: string | null;
  due_on?: string | null;
  state?: 'open' | 'closed' | null;
}

/** POST /repos/{owner}/{repo}/milestones */
export async function createMilestone(rc: Rc<RepoPath, unknown, MilestoneBody>): Promise<Reply> {
  const found = await repoOf(rc, ACCESS.write);
  const s = service(rc);
  const b = rc.body;
  const title = b.title!.trim();
  if (!title) throw fail.validation('title', 'must not be empty');
  const now = nowRfc3339();
  const closed = b.state === 'closed';
  const milestone = await s.milestones.insertOne({
    id: await s.ctx.store.nextId(MILESTONES),
    repoId: found.repo.id,
    title,
    lowerTitle: title.toLowerCase(),
    description: b.description ?? '',
    isClosed: closed,
    numOpen: 0,
    numClosed: 0,
    deadline: dueOn(b.due_on),
    createdAt: now,
    updatedAt: now,
    closedAt: closed ? now : null,
  });
  return { status: 201, body: milestoneToApi(milestone) };
}

/** A milestone by id, or by title when the path segment is not a number (Gitea). */
async function milestoneOf(rc: Rc<MilestonePath>, minimum: 1 | 2): Promise<MilestoneRecord> {
  const found = await repoOf(rc, minimum);
  const s = service(rc);
  const ref = rc.params.id;
  const milestone = /^[0-9]{1,15}$/.test(ref)
    ? await s.milestones.findOne({ id: Number(ref), repoId: found.repo.id })
    : await s.milestones.findOne({ repoId: found.repo.id, lowerTitle: ref.toLowerCase() });
  if (!milestone) throw fail.notFound();
  return milestone;
}

/** GET /repos/{owner}/{repo}/milestones/{id} */
export async function getMilestone(rc: Rc<MilestonePath>): Promise<Reply> {
  return { status: 200, body: milestoneToApi(await milestoneOf(rc, ACCESS.read)) };
}

/** PATCH /repos/{owner}/{repo}/milestones/{id} */
export async function editMilestone(rc: Rc<MilestonePath, unknown, MilestoneBody>): Promise<Reply> {
  const milestone = await milestoneOf(rc, ACCESS.write);
  const b = rc.body;
  const set: Partial<MilestoneRecord> = {};
  if (b.title !== undefined) {
    const title = b.title.trim();
    if (!title) throw fail.validation('title', 'must not be empty');
    set.title = title;
    set.lowerTitle = title.toLowerCase();
  }
  if (b.description != null) set.description = b.description;
  if (b.due_on !== undefined) set.deadline = dueOn(b.due_on);
  if (b.state != null && (b.state === 'closed') !== milestone.isClosed) {
    set.isClosed = b.state === 'closed';
    set.closedAt = set.isClosed ? nowRfc3339() : null;
  }
  set.updatedAt = nowRfc3339();
  const after = await service(rc).milestones.findOneAndUpdate({ id: milestone.id }, { $set: set });
  if (!after) throw fail.notFound();
  return { status: 200, body: milestoneToApi(after) };
}

/** DELETE /repos/{owner}/{repo}/milestones/{id}: its issues lose the milestone. */
export async function deleteMilestone(rc: Rc<MilestonePath>): Promise<Reply> {
  const milestone = await milestoneOf(rc, ACCESS.write);
  await service(rc).deleteMilestone(milestone);
  return { status: 204 };
}
