// Bench cases for the notifications plugin and their seeder: one user (the `member` role) with 100,000 notification
// threads over 400 public repositories, plus 2,000 threads — the newest — in private repositories that user cannot
// read (they must never show nor count), inserted through the store port as the plugin stores them (`hidden` kept on
// each thread and (user, repository) pair; the plugin's start repair checks every pair when it boots on this data).
import type { BenchCase, BenchFixture, RecordedResponse, SeedContext } from '../case.js';
import { NOTIFICATION_INDEXES, NOTIFICATION_REPO_INDEXES, NOTIFICATION_REPOS, NOTIFICATIONS } from '../../plugins/notifications/service.js';
import { header } from '../case.js';
import { ownerIds } from './relations.js';

const EPOCH = Date.UTC(2025, 0, 1);
const CHUNK = 1000;

/** Threads the member can see (full dataset / quick). */
const visibleCount = (fx: { quick: boolean }) => (fx.quick ? 5_000 : 100_000);
/** Every third visible thread is unread. */
const unreadCount = (fx: { quick: boolean }) => Math.ceil(visibleCount(fx) / 3);

export async function seedNotifications(ctx: SeedContext): Promise<void> {
  const user = ctx.fixture.accounts.member;
  const visible = visibleCount(ctx);
  // Public repositories the member reads: not of a private organization it is no member of (bench/dataset.ts).
  const privateOwners = await ownerIds(ctx.store, ['private']);
  const publicRepos = ctx.repos.filter((r) => !r.private && r.ownerId !== user.id && !privateOwners.has(r.ownerId)).slice(0, 400);
  const orgId = ctx.fixture.org.id;
  const hiddenRepos = ctx.repos.filter((r) => r.private && r.ownerId !== user.id && r.ownerId !== orgId).slice(0, 20);
  if (publicRepos.length === 0 || hiddenRepos.length === 0) throw new Error('notifications seeder: not enough repositories');
  await ctx.store.ensureCollection({ name: NOTIFICATIONS, indexes: NOTIFICATION_INDEXES });
  await ctx.store.ensureCollection({ name: NOTIFICATION_REPOS, indexes: NOTIFICATION_REPO_INDEXES });
  const rows = ctx.store.collection(NOTIFICATIONS);
  const total = visible + 2_000;
  for (let start = 0; start < total; start += CHUNK) {
    const n = Math.min(CHUNK, total - start);
    const ids = (await Promise.all(Array.from({ length: n }, () => ctx.store.nextId(NOTIFICATIONS)))).sort((a, b) => a - b);
    await rows.insertMany(ids.map((id, k) => {
      const i = start + k;
      const hidden = i >= visible;
      const repo = hidden ? hiddenRepos[i % hiddenRepos.length]! : publicRepos[i % publicRepos.length]!;
      const isPull = i % 2 === 1;
      const issueId = 1_000_000_000 + i;
      const at = new Date(EPOCH + i * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const subject = {
        title: `Thread ${i}`, url: `http://127.0.0.1/api/v1/repos/x/y/${isPull ? 'pulls' : 'issues'}/${i}`, html_url: `http://127.0.0.1/x/y/issues/${i}`,
        latest_comment_url: '', latest_comment_html_url: '', type: isPull ? 'Pull' : 'Issue', state: 'open',
      };
      return {
        id, userId: user.id, repoId: repo.id, issueId, key: `${user.id}:${issueId}`, status: i % 3 === 0 ? 'unread' : 'read', inbox: i % 3 === 0, hidden,
        subject, subjectType: subject.type, title: subject.title, state: 'open', updatedBy: 1, updatedAt: at, createdAt: at,
      };
    }));
  }
  const repoRows = ctx.store.collection(NOTIFICATION_REPOS);
  await repoRows.insertMany([...publicRepos, ...hiddenRepos].map((r) => ({ userId: user.id, repoId: r.id, ownerId: r.ownerId, hidden: r.private })));
  ctx.log(`${total} notifications of ${user.login} (${visible} readable, 2000 in private repositories it cannot read)`);
}

function threadPage(size: number, total: (fx: BenchFixture) => number) {
  return (res: RecordedResponse, fx: BenchFixture): string | null => {
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      return 'the body is not JSON';
    }
    if (!Array.isArray(body)) return 'the body is not a JSON array';
    if (body.length !== size) return `expected ${size} threads, got ${body.length}`;
    const count = header(res, 'x-total-count');
    return count === String(total(fx)) ? null : `X-Total-Count is ${count}, expected ${total(fx)}`;
  };
}

export const cases: BenchCase[] = [
  {
    name: 'notifications-all-page1',
    group: 'list',
    path: '/notifications?all=true',
    as: 'member',
    plugins: ['notifications'],
    check: threadPage(30, visibleCount),
    description: 'First page (30) of every thread of a user with 100,000 notifications (plus 2,000 in repositories it can no longer read, filtered out).',
  },
  {
    name: 'notifications-all-deep-page',
    group: 'list',
    path: (fx) => `/notifications?all=true&limit=50&page=${Math.floor(visibleCount(fx) / 100)}`,
    as: 'member',
    plugins: ['notifications'],
    check: threadPage(50, visibleCount),
    description: 'A page in the middle (page 1,000 at 50 per page) of 100,000 threads.',
  },
  {
    name: 'notifications-unread',
    group: 'list',
    path: '/notifications',
    as: 'member',
    plugins: ['notifications'],
    check: threadPage(30, unreadCount),
    description: 'The default inbox (unread and pinned) of that user: 33,334 unread threads.',
  },
  {
    name: 'notifications-new',
    group: 'list',
    path: '/notifications/new',
    as: 'member',
    plugins: ['notifications'],
    check: (res, fx) => (JSON.parse(res.body.toString('utf8')).new === unreadCount(fx) ? null : `expected new = ${unreadCount(fx)}`),
    description: 'The unread count of a user with 100,000 threads.',
  },
];

export default cases;
