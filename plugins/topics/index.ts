// Plugin `topics`: repository topics (Gitea's rules), stored on the repository record, counted per topic, searched.
import { definePlugin } from '../../core/plugin.js';
import { listQuery, nameParam, ownerRepoParams, paramsSchema } from '../../schemas/common.js';
import { REPO_DELETED, REPO_UPDATED } from '../../schemas/services.js';
import * as h from './handlers.js';
import { TOPIC_INDEXES, TOPIC_REPO_INDEXES, TOPIC_REPOS, TOPICS, Topics } from './service.js';

const TopicNameSchema = {
  $id: 'forgekit/TopicName', type: 'object', required: ['topics'],
  properties: { topics: { type: 'array', items: { type: 'string' } } },
};
const TopicResponseSchema = {
  $id: 'forgekit/TopicResponse', type: 'object', required: ['id', 'topic_name', 'repo_count', 'created', 'updated'],
  properties: {
    id: { type: 'integer' }, topic_name: { type: 'string' }, repo_count: { type: 'integer' },
    created: { type: 'string', format: 'date-time' }, updated: { type: 'string', format: 'date-time' },
  },
};
const TopicListSchema = {
  $id: 'forgekit/TopicListResponse', type: 'object', required: ['topics'],
  properties: { topics: { type: 'array', items: { $ref: 'forgekit/TopicResponse' } } },
};
// Path segments are checked by the handlers (Gitea's 422 wording), only bounded here.
const topicParams = paramsSchema({ owner: nameParam, repo: nameParam, topic: { type: 'string', minLength: 1, maxLength: 255 } });
const topicsBody = {
  type: 'object', additionalProperties: false,
  properties: { topics: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } } },
};

export default definePlugin<Topics>({
  name: 'topics',
  dependencies: ['users', 'repos'],
  collections: [{ name: TOPICS, indexes: TOPIC_INDEXES }, { name: TOPIC_REPOS, indexes: TOPIC_REPO_INDEXES }],
  schemas: [TopicNameSchema, TopicResponseSchema, TopicListSchema],
  start(ctx) {
    const service = new Topics(ctx);
    // Counts follow the records: a privacy change moves public counts, a deletion removes the repository's share.
    ctx.events.on(REPO_UPDATED, ({ repo, before }) => (before.private !== repo.private ? service.reconcile(repo.id) : undefined));
    ctx.events.on(REPO_DELETED, ({ repo }) => service.reconcile(repo.id));
    return service;
  },
  routes: [
    {
      method: 'GET', path: '/repos/:owner/:repo/topics', auth: 'optional', handler: h.list,
      operationId: 'repoListTopics', summary: 'Get list of topics that a repository has', scope: 'repository',
      schema: { params: ownerRepoParams, querystring: listQuery(), response: { 200: { $ref: 'forgekit/TopicName' } } },
    },
    {
      method: 'PUT', path: '/repos/:owner/:repo/topics', auth: 'user', body: 'json', handler: h.replace,
      operationId: 'repoUpdateTopics', summary: 'Replace list of topics for a repository', scope: 'repository',
      schema: { params: ownerRepoParams, body: topicsBody },
    },
    {
      method: 'PUT', path: '/repos/:owner/:repo/topics/:topic', auth: 'user', handler: h.add,
      operationId: 'repoAddTopic', summary: 'Add a topic to a repository', scope: 'repository',
      schema: { params: topicParams },
    },
    {
      method: 'DELETE', path: '/repos/:owner/:repo/topics/:topic', auth: 'user', handler: h.remove,
      operationId: 'repoDeleteTopic', summary: 'Delete a topic from a repository', scope: 'repository',
      schema: { params: topicParams },
    },
    {
      method: 'GET', path: '/topics/search', auth: 'optional', handler: h.search,
      operationId: 'topicSearch', summary: 'search topics via keyword', scope: 'repository',
      schema: { querystring: listQuery({ q: { type: 'string', maxLength: 255 } }), response: { 200: { $ref: 'forgekit/TopicListResponse' } } },
    },
  ],
});
