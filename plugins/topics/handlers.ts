// Topic routes: a repository's topics (list, replace, add, delete) and the keyword search over all topics.
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Reply, RequestContext, ServiceRegistry, SignedInContext } from '../../core/plugin.js';
import { toRfc3339 } from '../../core/time.js';
import { ACCESS } from '../../schemas/services.js';
import { repos } from '../lib/request.js';
import { sanitizeTopics, Topics, TOPICS_PER_REPO, validTopic, type TopicDoc } from './service.js';

type RepoParams = { owner: string; repo: string };
type TopicParams = RepoParams & { topic: string };

function topics(rc: { app: { services: ServiceRegistry } }): Topics {
  return rc.app.services.get('topics');
}

/** GET /repos/{owner}/{repo}/topics */
export async function list(rc: RequestContext<RepoParams, { page?: number; limit?: number }>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo);
  const all = Topics.of(repo);
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  return { status: 200, body: { topics: all.slice(win.skip, win.skip + win.limit) }, headers: pageHeaders(rc, all.length, win) };
}

/** PUT /repos/{owner}/{repo}/topics: replaces the set (repository admins). */
export async function replace(rc: SignedInContext<RepoParams, unknown, { topics?: string[] }>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  const { valid, invalid } = sanitizeTopics(rc.body.topics ?? []);
  if (valid.length > TOPICS_PER_REPO) throw fail.validation('topics', `exceeding maximum number of topics per repo (${TOPICS_PER_REPO})`);
  if (invalid.length > 0) {
    throw fail.validation('topics', `topic names are invalid: ${invalid.map((n) => JSON.stringify(n.slice(0, 64))).join(', ')} (lower-case letters, digits, '-' and '.', starting with a letter or digit, at most 35 characters)`);
  }
  await topics(rc).set(repo, valid);
  return { status: 204 };
}

function topicName(raw: string): string {
  const name = raw.trim().toLowerCase();
  if (!validTopic(name)) throw fail.validation('topic', 'topic name is invalid (lower-case letters, digits, \'-\' and \'.\', starting with a letter or digit, at most 35 characters)');
  return name;
}

/** PUT /repos/{owner}/{repo}/topics/{topic} */
export async function add(rc: SignedInContext<TopicParams>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  const name = topicName(rc.params.topic);
  const current = Topics.of(repo);
  if (current.includes(name)) return { status: 204 };
  if (current.length >= TOPICS_PER_REPO) throw fail.validation('topic', `exceeding maximum allowed topics per repo (${TOPICS_PER_REPO})`);
  await topics(rc).set(repo, [...current, name]);
  return { status: 204 };
}

/** DELETE /repos/{owner}/{repo}/topics/{topic}: 404 when the repository does not have it. */
export async function remove(rc: SignedInContext<TopicParams>): Promise<Reply> {
  const { repo } = await repos(rc).resolve(rc.caller, rc.params.owner, rc.params.repo, ACCESS.admin);
  const name = topicName(rc.params.topic);
  const current = Topics.of(repo);
  if (!current.includes(name)) throw fail.notFound();
  await topics(rc).set(repo, current.filter((t) => t !== name));
  return { status: 204 };
}

function toApi(doc: TopicDoc) {
  return { id: doc.id, topic_name: doc.name, repo_count: doc.repoCount, created: toRfc3339(Date.parse(doc.createdAt)), updated: toRfc3339(Date.parse(doc.updatedAt)) };
}

/** GET /topics/search: Gitea answers `{topics: [TopicResponse…]}` (its swagger's bare array is a documentation slip). */
export async function search(rc: RequestContext<unknown, { q?: string; page?: number; limit?: number }>): Promise<Reply> {
  const win = pageWindow(rc.query ?? {}, rc.app.config.pagination);
  const allRepos = repos(rc).readsAll(rc.caller);
  const { rows, total } = await topics(rc).search(rc.query?.q ?? '', allRepos, win);
  return { status: 200, body: { topics: rows.map(toApi) }, headers: pageHeaders(rc, total, win) };
}
