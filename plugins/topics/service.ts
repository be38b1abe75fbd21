// Topic names (Gitea's rules), per-topic repository counts, and the keyword search over them.
//
// A repository's topics live on its record (ReposService.setTopics: the API's `Repository.topics` and the
// `/repos/search` topic filter read them there). This plugin owns the counts: one document per topic name, and per
// repository the topics and visibility it last counted (`topic_repos`). `reconcile(repoId)` brings the counts in line
// with the record as it is now: it is the only writer of counts, runs one at a time per repository, and is
// idempotent, so concurrent PUTs, a privacy change and a deletion in any order leave the counts exact.
import { isDuplicateKeyError, type Collection, type IndexSpec } from '../../core/store/port.js';
import type { PluginContext } from '../../core/plugin.js';
import { nowRfc3339 } from '../../core/time.js';
import { gramsOf, lookupGrams } from '../lib/grams.js';
import type { RepoRecord, ReposService } from '../../schemas/services.js';

export const TOPICS = 'topics';
export const TOPIC_REPOS = 'topic_repos';

/** Gitea: `^[a-z0-9][-.a-z0-9]*$`, at most 35 characters, at most 25 per repository. */
export const TOPIC_PATTERN = /^[a-z0-9][-.a-z0-9]*$/;
export const TOPIC_MAX_LENGTH = 35;
export const TOPICS_PER_REPO = 25;

export interface TopicDoc {
  [key: string]: unknown;
  id: number;
  name: string;
  /** Repositories carrying the topic. */
  repoCount: number;
  /** Public repositories carrying it: what callers who do not read everything are shown. */
  publicCount: number;
  /** 1..3-grams of the name (substring search, plugins/lib/grams.ts). */
  grams: string[];
  createdAt: string;
  updatedAt: string;
}

/** What the counts currently include of one repository. */
interface CountedDoc {
  [key: string]: unknown;
  repoId: number;
  topics: string[];
  private: boolean;
}

export const TOPIC_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  { fields: { name: 1 }, unique: true },
  { fields: { grams: 1 } },
  // The search's order without a keyword: most used first, ties by name.
  { fields: { repoCount: -1, name: 1 } },
  { fields: { publicCount: -1, name: 1 } },
];
export const TOPIC_REPO_INDEXES: IndexSpec[] = [{ fields: { repoId: 1 }, unique: true }];

/** Gitea's ValidateTopic. */
export function validTopic(name: string): boolean {
  return name.length <= TOPIC_MAX_LENGTH && TOPIC_PATTERN.test(name);
}

/** Gitea's SanitizeAndValidateTopics: trimmed, lower-cased, empties and repeats dropped; the invalid ones apart. */
export function sanitizeTopics(input: readonly string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  const seen = new Set<string>();
  for (const raw of input) {
    const name = raw.trim().toLowerCase();
    if (name === '' || seen.has(name)) continue;
    if (validTopic(name)) {
      valid.push(name);
      seen.add(name);
    } else {
      invalid.push(name);
    }
  }
  return { valid, invalid };
}

// Only this plugin's handlers use the service: declared beside the class (no contract file).
declare module '../../core/plugin.js' { interface ForgeServices { topics: Topics } }

export class Topics {
  readonly topics: Collection<TopicDoc>;
  private readonly counted: Collection<CountedDoc>;
  /** Per repository, the tail of its reconcile chain (one at a time per repository). */
  private readonly chains = new Map<number, Promise<void>>();

  constructor(private readonly ctx: PluginContext) {
    this.topics = ctx.store.collection<TopicDoc>(TOPICS);
    this.counted = ctx.store.collection<CountedDoc>(TOPIC_REPOS);
  }

  private get repos(): ReposService {
    return this.ctx.services.get('repos');
  }

  /** The repository's topics, in name order. */
  static of(repo: RepoRecord): string[] {
    return Array.isArray(repo.topics) ? [...repo.topics].sort() : [];
  }

  /** Stores the repository's topics (name order) and brings the counts in line. */
  async set(repo: RepoRecord, topics: string[]): Promise<void> {
    await this.repos.setTopics(repo.id, [...topics].sort());
    await this.reconcile(repo.id);
  }

  /** Queues a reconcile of the repository behind any running one and waits for it. */
  reconcile(repoId: number): Promise<void> {
    const previous = this.chains.get(repoId) ?? Promise.resolve();
    const run = previous.then(() => this.reconcileNow(repoId));
    const tail = run.catch(() => undefined);
    this.chains.set(repoId, tail);
    void tail.then(() => {
      if (this.chains.get(repoId) === tail) this.chains.delete(repoId);
    });
    return run;
  }

  private async reconcileNow(repoId: number): Promise<void> {
    const repo = await this.repos.byId(repoId);
    const want = { topics: repo ? Topics.of(repo) : [], private: repo ? repo.private : false };
    const had = (await this.counted.findOne({ repoId })) ?? { repoId, topics: [], private: false };
    const wantSet = new Set(want.topics);
    const hadSet = new Set(had.topics);
    const now = nowRfc3339();
    for (const name of had.topics) {
      if (wantSet.has(name)) continue;
      await this.topics.updateOne({ name }, { $inc: { repoCount: -1, publicCount: had.private ? 0 : -1 }, $set: { updatedAt: now } });
    }
    for (const name of want.topics) {
      if (hadSet.has(name)) {
        // Kept: only a change of visibility moves the public count.
        if (had.private !== want.private) await this.topics.updateOne({ name }, { $inc: { publicCount: want.private ? -1 : 1 } });
        continue;
      }
      await this.ensureTopic(name, now);
      await this.topics.updateOne({ name }, { $inc: { repoCount: 1, publicCount: want.private ? 0 : 1 }, $set: { updatedAt: now } });
    }
    if (!repo) {
      await this.counted.deleteOne({ repoId });
    } else {
      await this.counted.updateOne({ repoId }, { $set: { topics: want.topics, private: want.private } }, { upsert: true });
    }
  }

  private async ensureTopic(name: string, now: string): Promise<void> {
    if (await this.topics.findOne({ name }, { projection: { id: 1 } })) return;
    try {
      await this.topics.insertOne({
        id: await this.ctx.store.nextId(TOPICS), name, repoCount: 0, publicCount: 0, grams: gramsOf(name), createdAt: now, updatedAt: now,
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // a concurrent first use inserted it
    }
  }

  /**
   * `GET /topics/search`: topics whose name contains `q` (case-insensitive; all when empty), most used first. Counts
   * are of public repositories unless the caller reads everything (a private repository's topic never shows to
   * others); topics no counted repository carries are left out.
   */
  async search(q: string, allRepos: boolean, page: { skip: number; limit: number }): Promise<{ rows: TopicDoc[]; total: number }> {
    const countField = allRepos ? 'repoCount' : 'publicCount';
    const query = q.trim().toLowerCase();
    if (query === '') {
      const filter = { [countField]: { $gt: 0 } };
      const { docs: rows, total } = await this.topics.findAndCount(filter, { sort: { [countField]: -1, name: 1 }, skip: page.skip, limit: page.limit });
      return { rows: rows.map((r) => withCount(r, countField)), total };
    }
    // One indexed gram of the query, then a literal substring check of those candidates (never a pattern).
    const gram = lookupGrams(query)[0]!;
    const candidates = await this.topics.find({ grams: gram, [countField]: { $gt: 0 } });
    const matches = candidates.filter((t) => t.name.includes(query))
      .sort((a, b) => (b[countField] as number) - (a[countField] as number) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { rows: matches.slice(page.skip, page.skip + page.limit).map((r) => withCount(r, countField)), total: matches.length };
  }
}

/** The document with `repoCount` as this caller is to see it. */
function withCount(doc: TopicDoc, field: 'repoCount' | 'publicCount'): TopicDoc {
  return field === 'repoCount' ? doc : { ...doc, repoCount: doc.publicCount };
}
