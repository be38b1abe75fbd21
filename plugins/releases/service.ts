// Releases of a repository and their attachments: records, the tags releases are made from (through the git
// service's push rules, like any API ref change), attachment files, and the `release.changed` events.
import type { ReleasesService } from '../../schemas/contracts/releases.js';
import { AttachmentCounts } from './attachment-counts.js';
import { attachmentToApi } from './convert.js';
import { fail, ForgeError } from '../../core/errors.js';
import type { Caller, PluginContext } from '../../core/plugin.js';
import { isDuplicateKeyError, type Collection } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';
import { ZERO_SHA, type GitService } from '../../schemas/contracts/git.js';
import type { Account, RepoRecord, ReposService, UsersService } from '../../schemas/services.js';
import { releaseToApi, type ReleaseView } from './convert.js';
import { AttachmentFiles, type Received } from './files.js';
import { ATTACHMENTS, RELEASES, type AttachmentRecord, type ReleaseRecord } from './store.js';

export interface ReleaseSettings {
  attachments: { maxSize: number; allowedTypes: string[] };
}

export interface NewRelease {
  tag_name: string;
  target_commitish?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}

export type ReleaseEdit = Partial<NewRelease>;


export class Releases implements ReleasesService {
  readonly releases: Collection<ReleaseRecord>;
  readonly attachments: Collection<AttachmentRecord>;
  readonly files: AttachmentFiles;
  /** Which issues and comments hold attachments (`ofIssues` asks the store only about those). */
  private readonly counts = new AttachmentCounts();

  constructor(private readonly ctx: PluginContext<ReleaseSettings>) {
    this.releases = ctx.store.collection<ReleaseRecord>(RELEASES);
    this.attachments = ctx.store.collection<AttachmentRecord>(ATTACHMENTS);
    this.files = new AttachmentFiles(ctx.config.dataDir);
  }

  /** At start, before any request: the counts of the stored issue and comment attachments. */
  async loadAttachmentCounts(): Promise<void> {
    for (const row of await this.attachments.find({ issueId: { $gt: 0 } }, { projection: { issueId: 1, commentId: 1 } })) this.counts.move(row, 1);
  }

  get settings(): ReleaseSettings {
    return this.ctx.settings;
  }

  get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  get users(): UsersService {
    return this.ctx.services.get('users');
  }

  private get git(): GitService {
    return this.ctx.services.get('git');
  }

  // ---- reads ----

  byId(repoId: number, id: number): Promise<ReleaseRecord | null> {
    return this.releases.findOne({ id, repoId });
  }

  byTag(repoId: number, tag: string): Promise<ReleaseRecord | null> {
    return this.releases.findOne({ tagKey: `${repoId}:${tag}` });
  }

  async hasReleaseOnTag(repoId: number, tagName: string): Promise<boolean> {
    return (await this.releases.count({ tagKey: `${repoId}:${tagName}` })) > 0;
  }

  /**
   * A tag deleted by a push (or any ref change but this plugin's own): its release stays as a draft, as Gitea's
   * pushUpdateDeleteTags does — the notes and assets are kept, and publishing it again makes the tag anew.
   */
  async onTagDeleted(repo: RepoRecord, tagName: string): Promise<void> {
    await this.releases.updateOne({ tagKey: `${repo.id}:${tagName}`, isDraft: false }, { $set: { isDraft: true } });
  }

  async page(repoId: number, filter: { drafts: boolean | 'only' | 'none'; prerelease?: boolean }, page: { skip: number; limit: number }):
    Promise<{ rows: ReleaseRecord[]; total: number }> {
    const f: Record<string, unknown> = { repoId };
    if (filter.drafts === 'only') f.isDraft = true;
    else if (filter.drafts === 'none') f.isDraft = false;
    if (filter.prerelease !== undefined) f.isPrerelease = filter.prerelease;
    const { docs: rows, total } = await this.releases.findAndCount(f, { sort: { createdAt: -1, id: -1 }, skip: page.skip, limit: page.limit });
    return { rows, total };
  }

  latest(repoId: number): Promise<ReleaseRecord | null> {
    return this.releases.findOne({ repoId, isDraft: false, isPrerelease: false }, { sort: { createdAt: -1, id: -1 } });
  }

  attachmentsOf(releaseIds: number[]): Promise<AttachmentRecord[]> {
    if (releaseIds.length === 0) return Promise.resolve([]);
    return this.attachments.find({ releaseId: { $in: releaseIds } }, { sort: { id: 1 } });
  }

  attachment(releaseId: number, id: number): Promise<AttachmentRecord | null> {
    return this.attachments.findOne({ id, releaseId });
  }

  attachmentByUuid(uuid: string): Promise<AttachmentRecord | null> {
    return this.attachments.findOne({ uuid });
  }

  /** API objects for a viewer: publishers and assets filled in, in the given order. */
  async toApi(view: ReleaseView, rows: ReleaseRecord[], viewer: Caller | null): Promise<Record<string, unknown>[]> {
    const [assets, people] = await Promise.all([
      this.attachmentsOf(rows.map((r) => r.id)),
      this.users.byIds([...new Set(rows.map((r) => r.publisherId).filter((id): id is number => id !== null))]),
    ]);
    const byRelease = new Map<number, AttachmentRecord[]>();
    for (const a of assets) {
      const list = byRelease.get(a.releaseId) ?? [];
      list.push(a);
      byRelease.set(a.releaseId, list);
    }
    return rows.map((r) => {
      const publisher = r.publisherId === null ? null : people.get(r.publisherId) ?? null;
      return releaseToApi(view, r, publisher ? this.users.toApi(publisher, viewer) : null, byRelease.get(r.id) ?? []);
    });
  }

  // ---- tags ----

  private dir(repo: RepoRecord, owner: Account): string {
    return this.git.repoDir(repo, owner);
  }

  async tagSha(repo: RepoRecord, owner: Account, tag: string): Promise<string | null> {
    return this.git.reader(this.dir(repo, owner)).resolve(`refs/tags/${tag}`);
  }

  /** 422 unless git accepts `refs/tags/<tag>` as a ref name (git's own check-ref-format rules). */
  async checkTagName(repo: RepoRecord, owner: Account, tag: string): Promise<void> {
    if (tag.startsWith('-') || tag.startsWith('refs/')) throw fail.validation('tag_name', 'is not a valid tag name');
    try {
      await this.git.run(this.dir(repo, owner), ['check-ref-format', `refs/tags/${tag}`]);
    } catch {
      throw fail.validation('tag_name', 'is not a valid tag name');
    }
  }

  /** Creates `refs/tags/<tag>` at the commit `target` names (404 when it names none), through the push rules. */
  private async createTag(repo: RepoRecord, owner: Account, tag: string, target: string, pusherId: number): Promise<void> {
    const dir = this.dir(repo, owner);
    const sha = target ? await this.git.reader(dir).resolve(`${target}^{commit}`) : null;
    if (!sha) throw new ForgeError('NOT_FOUND', `target "${target}" not found`);
    const ref = `refs/tags/${tag}`;
    const reason = await this.git.checkPush({ repo, owner, pusherId, via: 'api', updates: [{ ref, oldSha: ZERO_SHA, newSha: sha }] });
    if (reason) throw fail.forbidden(reason);
    const before = await this.git.readRefs(repo, owner);
    try {
      await this.git.run(dir, ['update-ref', '-m', 'forgekit: release', ref, sha, ZERO_SHA]);
    } catch {
      throw fail.conflict(`tag ${tag} was created meanwhile`);
    }
    await this.git.afterPush((await this.repos.byId(repo.id)) ?? repo, owner, before, pusherId, 'api');
  }

  /** A published release needs its tag: made from the target when it does not exist yet. */
  private async ensureTag(repo: RepoRecord, owner: Account, tag: string, target: string, pusherId: number): Promise<void> {
    if (await this.tagSha(repo, owner, tag)) return;
    await this.createTag(repo, owner, tag, target, pusherId);
  }

  // ---- writes ----

  async create(repo: RepoRecord, owner: Account, caller: Caller, input: NewRelease): Promise<ReleaseRecord> {
    const tag = input.tag_name;
    await this.checkTagName(repo, owner, tag);
    if (await this.byTag(repo.id, tag)) throw fail.conflict(`a release with tag ${tag} already exists`);
    const target = input.target_commitish || repo.defaultBranch;
    const draft = input.draft === true;
    // A draft does not make its tag (Gitea): publishing it does.
    if (!draft) await this.ensureTag(repo, owner, tag, target, caller.id);
    const record: ReleaseRecord = {
      id: await this.ctx.store.nextId(RELEASES),
      repoId: repo.id,
      tagKey: `${repo.id}:${tag}`,
      tagName: tag,
      target,
      title: input.name ?? '',
      note: input.body ?? '',
      isDraft: draft,
      isPrerelease: input.prerelease === true,
      publisherId: caller.id,
      createdAt: nowRfc3339(),
    };
    try {
      await this.releases.insertOne(record);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.conflict(`a release with tag ${tag} already exists`);
      throw err;
    }
    const stored = (await this.releases.findOne({ id: record.id }))!;
    if (!draft) await this.emit('published', repo, owner, caller, stored);
    return stored;
  }

  async edit(repo: RepoRecord, owner: Account, caller: Caller, release: ReleaseRecord, input: ReleaseEdit): Promise<ReleaseRecord> {
    const set: Partial<ReleaseRecord> = {};
    const tag = input.tag_name !== undefined && input.tag_name !== '' ? input.tag_name : release.tagName;
    if (tag !== release.tagName) {
      await this.checkTagName(repo, owner, tag);
      if (await this.byTag(repo.id, tag)) throw fail.conflict(`a release with tag ${tag} already exists`);
      set.tagName = tag;
      set.tagKey = `${repo.id}:${tag}`;
    }
    if (input.target_commitish !== undefined && input.target_commitish !== '') set.target = input.target_commitish;
    if (input.name !== undefined) set.title = input.name;
    if (input.body !== undefined) set.note = input.body;
    if (input.prerelease !== undefined) set.isPrerelease = input.prerelease;
    if (input.draft !== undefined) set.isDraft = input.draft;
    const draft = set.isDraft ?? release.isDraft;
    const publishing = release.isDraft && !draft;
    if (!draft) await this.ensureTag(repo, owner, tag, set.target ?? release.target, caller.id);
    if (publishing) set.createdAt = nowRfc3339();
    if (Object.keys(set).length === 0) return release;
    let after: ReleaseRecord | null;
    try {
      after = await this.releases.findOneAndUpdate({ id: release.id }, { $set: set });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw fail.conflict(`a release with tag ${tag} already exists`);
      throw err;
    }
    if (!after) throw fail.notFound();
    if (!draft) await this.emit(publishing ? 'published' : 'updated', repo, owner, caller, after);
    return after;
  }

  /** Removes the release and its attachments (files included); the tag stays, as in Gitea. */
  async delete(repo: RepoRecord, owner: Account, caller: Caller, release: ReleaseRecord): Promise<void> {
    const gone = await this.releases.findOneAndDelete({ id: release.id });
    if (!gone) throw fail.notFound();
    const assets = await this.attachments.find({ releaseId: gone.id });
    for (const a of assets) await this.removeAttachment(a);
    if (!gone.isDraft) await this.emit('deleted', repo, owner, caller, gone, assets);
  }

  async addAttachment(repo: RepoRecord, release: ReleaseRecord, caller: Caller, received: Received): Promise<AttachmentRecord> {
    return this.attach(repo, { releaseId: release.id }, caller, received,
      async () => (await this.releases.findOne({ id: release.id }, { projection: { id: 1 } })) !== null);
  }

  /**
   * Records a received file as attached to `to`; `stillThere` is asked afterwards, and when what it was attached to
   * went meanwhile (deleted while the file came in) nothing stays behind and the answer is 404.
   */
  async attach(repo: RepoRecord, to: { releaseId?: number; issueId?: number; commentId?: number }, caller: Caller, received: Received,
    stillThere: () => Promise<boolean>): Promise<AttachmentRecord> {
    const record: AttachmentRecord = {
      id: await this.ctx.store.nextId(ATTACHMENTS),
      uuid: received.uuid,
      repoId: repo.id,
      releaseId: to.releaseId ?? 0,
      ...(to.issueId ? { issueId: to.issueId, commentId: to.commentId ?? 0 } : {}),
      uploaderId: caller.id,
      name: received.name,
      size: received.size,
      downloadCount: 0,
      createdAt: nowRfc3339(),
    };
    this.counts.move(record, 1);
    try {
      await this.attachments.insertOne(record);
    } catch (err) {
      this.counts.move(record, -1);
      await this.files.remove(received.uuid);
      throw err;
    }
    await this.repos.incrementCounter(repo.id, 'attachmentsSize', received.size);
    if (!(await stillThere())) {
      await this.removeAttachment(record);
      throw fail.notFound();
    }
    return record;
  }

  /** Attachments of issues (their own: commentId 0) and of comments, in upload order. */
  async ofIssues(issueIds: readonly number[], commentIds: readonly number[]): Promise<{ issues: AttachmentRecord[]; comments: AttachmentRecord[] }> {
    const holdingIssues = this.counts.issuesHolding(issueIds);
    const holdingComments = this.counts.commentsHolding(commentIds);
    const [issues, comments] = await Promise.all([
      holdingIssues.length ? this.attachments.find({ issueId: { $in: holdingIssues }, commentId: 0 }, { sort: { id: 1 } }) : Promise.resolve([]),
      holdingComments.length ? this.attachments.find({ commentId: { $in: holdingComments } }, { sort: { id: 1 } }) : Promise.resolve([]),
    ]);
    return { issues, comments };
  }

  /** An issue or comment went: its files go (and the repository's size drops by theirs). */
  async onIssueGone(issueId: number, commentId = 0): Promise<void> {
    const filter = commentId ? { commentId } : { issueId };
    for (const a of await this.attachments.find(filter)) await this.removeAttachment(a);
  }

  async renameAttachment(attachment: AttachmentRecord, name: string): Promise<AttachmentRecord> {
    return (await this.attachments.findOneAndUpdate({ id: attachment.id }, { $set: { name } })) ?? attachment;
  }

  async removeAttachment(attachment: AttachmentRecord): Promise<void> {
    const gone = await this.attachments.findOneAndDelete({ id: attachment.id });
    if (!gone) return;
    this.counts.move(gone, -1);
    await this.files.remove(gone.uuid);
    await this.repos.incrementCounter(gone.repoId, 'attachmentsSize', -gone.size);
  }

  async counted(attachment: AttachmentRecord): Promise<void> {
    await this.attachments.updateOne({ id: attachment.id }, { $inc: { downloadCount: 1 } });
  }

  // ---- lifecycle ----

  /** `repo.deleted`: its releases and attachment files go (the repository's size goes with its record). */
  async onRepoDeleted(repo: RepoRecord): Promise<void> {
    const assets = await this.attachments.find({ repoId: repo.id }, { projection: { uuid: 1, issueId: 1, commentId: 1 } });
    for (const a of assets) await this.files.remove(a.uuid);
    await this.attachments.deleteMany({ repoId: repo.id });
    for (const a of assets) this.counts.move(a, -1);
    await this.releases.deleteMany({ repoId: repo.id });
  }

  /** `account.deleted`: its releases stay, shown as published by Gitea's ghost. */
  async onAccountDeleted(account: Account): Promise<void> {
    await this.releases.updateMany({ publisherId: account.id }, { $set: { publisherId: null } });
    await this.attachments.updateMany({ uploaderId: account.id }, { $set: { uploaderId: null } });
  }

  private async emit(action: 'published' | 'updated' | 'deleted', repo: RepoRecord, owner: Account, caller: Caller, release: ReleaseRecord, assets?: AttachmentRecord[]): Promise<void> {
    if (!this.ctx.events.has('release.changed')) return;
    try {
      const view = this.viewOf(repo, owner);
      const api = (await this.toApi(view, [release], null))[0]!;
      // A deleted release's attachments are gone from the store: the payload lists what it had.
      if (assets) api.assets = assets.map((a) => view.attachment(a));
      await this.ctx.events.emit('release.changed', { action, repo, owner, senderId: caller.id, release: api });
    } catch (err) {
      this.ctx.log.error({ err, releaseId: release.id }, 'release.changed listener failed');
    }
  }

  viewOf(repo: RepoRecord, owner: Account): ReleaseView {
    const full = `${owner.login}/${repo.name}`;
    const api = `${this.ctx.urls.api}repos/${full}`;
    const root = this.ctx.urls.root;
    return {
      api,
      html: `${root}${full}`,
      attachment: (a) => attachmentToApi(root, a),
    };
  }
}
