// Bench cases for the issues plugin and its seeder: 200,000 issues (1,200 with --quick) with comments, labels and
// milestones, four large repositories (three public ones of the `owner` role, one private one of bench-org that the
// `member` role reads) holding most of them, the rest spread over other repositories. Cases: a large repository's
// open issues, page 5, with a label filter; `/repos/issues/search` for the signed-in member (plain, and with `q`);
// one issue's comments page. Documents are inserted straight through the store port in the shapes the plugin stores,
// counters set as the plugin keeps them.
import type { Doc, Store } from '../../core/store/port.js';
import { toRfc3339 } from '../../core/time.js';
import { REPOS } from '../../plugins/repos/service.js';
import { COLLECTIONS, COMMENTS, ISSUES, LABELS, MILESTONES, NUMBERS } from '../../plugins/issues/service.js';
import type { BenchCase, PlannedRepo, RecordedResponse, SeedContext } from '../case.js';
import { REPO_WORDS } from '../words.js';
import { header } from '../case.js';

const EPOCH = Date.UTC(2025, 0, 1);
const CHUNK = 2000;
/** The label every case filters on, and the label that marks the first large repository (found by `setup`). */
export const HOT_LABEL = 'kind/bug';
export const MARK_LABEL = 'bench/large-1';
/** A word put into about one issue in 400 (the `q` of the search case). */
export const ISSUE_TERM = 'frobnicate';
const LABEL_NAMES = [HOT_LABEL, 'kind/feature', 'kind/docs', 'prio/high', 'prio/low', 'good first issue', 'help wanted', 'wontfix'];
const HOT_COMMENTS = { full: 300, quick: 60 };

function sizes(quick: boolean) {
  return quick
    ? { total: 1_200, large: 200, comments: 500 }
    : { total: 200_000, large: 25_000, comments: 60_000 };
}

async function ids(store: Store, sequence: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 500) {
    const batch = await Promise.all(Array.from({ length: Math.min(500, n - i) }, () => store.nextId(sequence)));
    out.push(...batch.sort((a, b) => a - b));
  }
  return out;
}

async function insert(store: Store, name: string, docs: Doc[]): Promise<void> {
  const col = store.collection(name);
  for (let i = 0; i < docs.length; i += CHUNK) await col.insertMany(docs.slice(i, i + CHUNK));
}

function words(random: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(REPO_WORDS[Math.floor(Math.pow(random(), 1.5) * REPO_WORDS.length)]!);
  return out.join(' ');
}

export async function seedIssues(ctx: SeedContext): Promise<void> {
  const { store, random, quick } = ctx;
  for (const spec of COLLECTIONS) await store.ensureCollection(spec);
  const size = sizes(quick);
  const ownerId = ctx.fixture.accounts.owner.id;
  const orgId = ctx.fixture.org.id;
  const large: PlannedRepo[] = [
    ...ctx.repos.filter((r) => r.ownerId === ownerId && !r.private).slice(0, 3),
    ...ctx.repos.filter((r) => r.ownerId === orgId && r.private).slice(0, 1),
  ];
  if (large.length < 4) throw new Error('the dataset lacks the large repositories the issues bench needs');
  const largeIds = new Set(large.map((r) => r.id));
  const others = ctx.repos.filter((r) => !largeIds.has(r.id));
  const userIds = ctx.users.map((u) => u.id);
  const pickUser = () => userIds[Math.floor(random() * userIds.length)]!;

  // Labels and milestones of the large repositories (the first one also carries the marker label).
  const labelsByRepo = new Map<number, number[]>();
  let markId = 0;
  const milestonesByRepo = new Map<number, number[]>();
  const labelDocs: Doc[] = [];
  const milestoneDocs: Array<Doc & { id: number; numOpen: number; numClosed: number }> = [];
  const created = toRfc3339(EPOCH);
  for (const [i, repo] of large.entries()) {
    const names = i === 0 ? [...LABEL_NAMES, MARK_LABEL] : LABEL_NAMES;
    const labelIds = await ids(store, LABELS, names.length);
    labelsByRepo.set(repo.id, labelIds.slice(0, LABEL_NAMES.length));
    if (i === 0) markId = labelIds[names.length - 1]!;
    names.forEach((name, k) => labelDocs.push({
      id: labelIds[k]!, repoId: repo.id, orgId: 0, name, color: 'e11d21', description: '', exclusive: name.startsWith('prio/'), isArchived: false, createdAt: created,
    }));
    const msIds = await ids(store, MILESTONES, 4);
    milestonesByRepo.set(repo.id, msIds);
    msIds.forEach((id, k) => milestoneDocs.push({
      id, repoId: repo.id, title: `v${k + 1}.0`, lowerTitle: `v${k + 1}.0`, description: '', isClosed: false, numOpen: 0, numClosed: 0,
      deadline: null, createdAt: created, updatedAt: created, closedAt: null,
    }));
  }
  await insert(store, LABELS, labelDocs);

  // Issues: each large repository gets `size.large`, the rest go to other repositories, ~21 each.
  const perRepo: Array<{ repo: PlannedRepo; n: number }> = large.map((repo) => ({ repo, n: size.large }));
  let left = size.total - size.large * large.length;
  for (let k = 0; left > 0; k++) {
    const n = Math.min(left, 21);
    perRepo.push({ repo: others[k % others.length]!, n });
    left -= n;
  }
  const openCount = new Map<number, number>();
  const numberOf = new Map<number, number>();
  const msById = new Map(milestoneDocs.map((m) => [m.id, m]));
  const issueIds = await ids(store, ISSUES, size.total);
  const hotIssues: Array<{ id: number; repoId: number }> = [];
  let next = 0;
  // Every issue document is built in memory first: the comments below add their counts to it, so each
  // issue is written once (per-issue updates after the insert made seeding slow).
  const docs: Doc[] = [];
  // Interleave the repositories so ids (creation order) mix like a real site's.
  const queue = perRepo.map((p) => ({ ...p, done: 0 }));
  while (next < size.total) {
    for (const entry of queue) {
      if (entry.done >= entry.n || next >= size.total) continue;
      entry.done++;
      const repo = entry.repo;
      const id = issueIds[next++]!;
      const number = (numberOf.get(repo.id) ?? 0) + 1;
      numberOf.set(repo.id, number);
      const closed = random() < 0.3;
      if (!closed) openCount.set(repo.id, (openCount.get(repo.id) ?? 0) + 1);
      const repoLabels = labelsByRepo.get(repo.id);
      const labelIds: number[] = [];
      if (repoLabels) {
        if (random() < 0.25) labelIds.push(repoLabels[0]!);
        if (random() < 0.4) labelIds.push(repoLabels[1 + Math.floor(random() * (repoLabels.length - 1))]!);
      }
      if (repo.id === large[0]!.id && number === 1) labelIds.push(markId);
      const ms = milestonesByRepo.get(repo.id);
      const milestoneId = ms && random() < 0.5 ? ms[Math.floor(random() * ms.length)]! : 0;
      if (milestoneId) msById.get(milestoneId)![closed ? 'numClosed' : 'numOpen']++;
      const title = `${words(random, 3 + Math.floor(random() * 3))}`;
      const body = `${words(random, 8 + Math.floor(random() * 8))}${random() < 0.0025 ? ` ${ISSUE_TERM}` : ''}`;
      const at = toRfc3339(EPOCH + next * 60_000);
      docs.push({
        id, repoId: repo.id, repoOwnerId: repo.ownerId, repoPrivate: repo.private, number, isPull: false, posterId: pickUser(),
        title, body, ref: '', isClosed: closed, isLocked: false, pinOrder: 0, milestoneId,
        assigneeIds: random() < 0.2 ? [repo.ownerId] : [], labelIds: [...new Set(labelIds)].sort((a, b) => a - b), mentionIds: [],
        deadline: null, numComments: 0, createdAt: at, updatedAt: at, closedAt: closed ? at : null,
      });
      if (largeIds.has(repo.id) && number === 1) hotIssues.push({ id, repoId: repo.id });
    }
  }
  await insert(store, MILESTONES, milestoneDocs);
  await insert(store, NUMBERS, [...numberOf].map(([repoId, last]) => ({ repoId, last })));

  // Comments: the first issue of the first large repository gets a long thread, the rest are spread at random.
  const commentIds = await ids(store, COMMENTS, size.comments);
  const commentsOf = new Map<number, number>();
  const commentDocs: Doc[] = [];
  const hot = HOT_COMMENTS[quick ? 'quick' : 'full'];
  const hotIndex = issueIds.indexOf(hotIssues[0]!.id);
  for (let k = 0; k < size.comments; k++) {
    const index = k < hot ? hotIndex : Math.floor(random() * size.total);
    const issue = docs[index]!;
    const at = toRfc3339(EPOCH + (size.total + k) * 60_000);
    const body = words(random, 6 + Math.floor(random() * 20));
    commentDocs.push({ id: commentIds[k]!, issueId: issue.id, repoId: issue.repoId, posterId: pickUser(), body, createdAt: at, updatedAt: at });
    commentsOf.set(index, (commentsOf.get(index) ?? 0) + 1);
  }
  for (const [index, n] of commentsOf) docs[index]!.numComments = n;
  await insert(store, ISSUES, docs);
  await insert(store, COMMENTS, commentDocs);
  const repos = store.collection(REPOS);
  for (const [repoId, n] of numberOf) {
    await repos.updateOne({ id: repoId }, { $set: { numIssues: n, numOpenIssues: openCount.get(repoId) ?? 0 } });
  }
  ctx.log(`${size.total} issues (${large.length} repositories with ${size.large}), ${size.comments} comments, ${labelDocs.length} labels, ${milestoneDocs.length} milestones`);
}

function json(res: RecordedResponse): any {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The first large repository, found through its marker label. */
async function largeRepo(client: Parameters<NonNullable<BenchCase['setup']>>[0]): Promise<{ fullName: string; hotNumber: number }> {
  const res = await client.request('GET', `/repos/issues/search?labels=${encodeURIComponent(MARK_LABEL)}&limit=1&state=all`);
  const fullName = res.json?.[0]?.repository?.full_name as string | undefined;
  if (!fullName) throw new Error('no large repository found: was the issues seeder run?');
  return { fullName, hotNumber: 1 };
}

function issueListCheck(expectLabel: boolean) {
  return (res: RecordedResponse): string | null => {
    const list = json(res);
    if (!Array.isArray(list)) return 'not an array';
    if (list.length !== 20) return `expected a full page of 20, got ${list.length}`;
    if (list.some((i: any) => i.state !== 'open')) return 'a closed issue in an open list';
    if (expectLabel && list.some((i: any) => !i.labels.some((l: any) => l.name === HOT_LABEL))) return `an issue without ${HOT_LABEL}`;
    for (let k = 1; k < list.length; k++) if (list[k - 1].id < list[k].id) return 'not newest first';
    const total = Number(header(res, 'x-total-count'));
    if (!Number.isInteger(total) || total < 20) return `X-Total-Count is ${header(res, 'x-total-count')}`;
    return null;
  };
}

export const cases: BenchCase[] = [
  {
    name: 'issues-list-label-page5',
    group: 'list',
    plugins: ['issues'],
    path: '/',
    description: "a large repository's open issues with a label filter, page 5 of 20",
    setup: async (client) => {
      const { fullName } = await largeRepo(client);
      const base = `/repos/${fullName}/issues?state=open&labels=${encodeURIComponent(HOT_LABEL)}`;
      // Page 5 on the full dataset; the last full page on the small one (--quick has ~50 such issues per repository).
      const total = Number((await client.request('GET', `${base}&limit=1`)).headers.get('x-total-count'));
      const page = Math.max(1, Math.min(5, Math.floor(total / 20)));
      return { path: `${base}&page=${page}&limit=20` };
    },
    check: issueListCheck(true),
  },
  {
    name: 'issues-search-member',
    group: 'search',
    plugins: ['issues'],
    as: 'member',
    path: '/repos/issues/search?state=open&limit=20',
    description: 'open issues of every repository the signed-in member reads (private ones of bench-org included)',
    check: (res) => {
      const base = issueListCheck(false)(res);
      if (base) return base;
      return null;
    },
  },
  {
    name: 'issues-search-member-q',
    group: 'search',
    plugins: ['issues'],
    as: 'member',
    path: `/repos/issues/search?state=all&q=${ISSUE_TERM}&limit=20`,
    description: `issues whose body contains "${ISSUE_TERM}" (about 1 in 400), trigram index + literal check`,
    check: (res) => {
      const list = json(res);
      if (!Array.isArray(list) || list.length === 0) return 'no results';
      if (list.some((i: any) => !`${i.title}\n${i.body}`.toLowerCase().includes(ISSUE_TERM))) return `a result without "${ISSUE_TERM}"`;
      return null;
    },
  },
  {
    name: 'issues-comments-page',
    group: 'list',
    plugins: ['issues'],
    path: '/',
    description: "one issue's comments, a page of 30 of its long thread",
    setup: async (client) => {
      const { fullName, hotNumber } = await largeRepo(client);
      return { path: `/repos/${fullName}/issues/${hotNumber}/comments?page=2&limit=30` };
    },
    check: (res) => {
      const list = json(res);
      if (!Array.isArray(list) || list.length !== 30) return `expected 30 comments, got ${Array.isArray(list) ? list.length : 'no array'}`;
      for (let k = 1; k < list.length; k++) if (list[k - 1].id > list[k].id) return 'not oldest first';
      return null;
    },
  },
];
