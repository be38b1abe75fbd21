// The generated API description: valid Swagger 2.0 (a real validator), Gitea's operationIds and paths, every served
// route described, a disabled plugin's routes absent, and the served bytes are the document.
import t from 'tap';
import SwaggerParser from '@apidevtools/swagger-parser';
import { builtinPlugins } from '../../plugins/index.js';
import { resolvePlugins } from '../../core/loader.js';
import { toSwaggerPath } from '../../plugins/api-docs/swagger.js';
import { startForge } from '../helpers/forge.js';
import { giteaOperations, routeKey } from '../helpers/gitea-ops.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of a document: both the API paths and the root-mounted ones. */
function operationsOf(doc: any): Array<{ method: string; path: string; root: boolean; op: any }> {
  const out: Array<{ method: string; path: string; root: boolean; op: any }> = [];
  for (const [root, paths] of [[false, doc.paths], [true, doc['x-root-paths']]] as const) {
    for (const [p, item] of Object.entries<any>(paths ?? {})) {
      for (const m of METHODS) if (item[m]) out.push({ method: m.toUpperCase(), path: p, root, op: item[m] });
    }
  }
  return out;
}

t.test('the served description', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const res = await f.request('GET', '/swagger.v1.json', { root: true });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  const doc = res.json;

  t.test('is valid Swagger 2.0 (swagger-parser: zero errors)', async (t) => {
    const api = await SwaggerParser.validate(structuredClone(doc));
    t.equal((api as any).swagger, '2.0');
    t.equal(doc.basePath, '/api/v1');
    t.equal(doc.info.version, (await f.request('GET', '/version')).json.version, 'the running version, not Gitea 1.1.1');
  });

  t.test('every served route is described, with its own operationId and summary', async (t) => {
    const described = new Map(operationsOf(doc).map((o) => [`${o.root ? 'root' : 'api'} ${o.method} ${o.path}`, o.op]));
    const ids = new Set<string>();
    let count = 0;
    for (const plugin of resolvePlugins(builtinPlugins, [])) {
      for (const def of plugin.routes ?? []) {
        count++;
        const where = `${plugin.name}: ${def.method} ${def.path}`;
        const op = described.get(`${def.mount === 'root' ? 'root' : 'api'} ${def.method} ${toSwaggerPath(def.path).path}`);
        if (!op) {
          t.fail(`${where} is missing from the API description`);
          continue;
        }
        t.ok(def.operationId, `${where} declares an operationId`);
        t.ok(def.summary, `${where} declares a summary`);
        t.equal(op.operationId, def.operationId, `${where}: operationId`);
        t.same(op.tags, [plugin.name], `${where}: tagged with its plugin`);
        t.notOk(ids.has(op.operationId), `${where}: operationId ${op.operationId} is unique`);
        ids.add(op.operationId);
      }
    }
    t.equal(described.size, count, 'nothing described that is not served');
  });

  t.test('operationIds, paths and methods equal Gitea\'s (gitea-js) for every shared operation', async (t) => {
    const gitea = giteaOperations();
    const byId = new Map(gitea.map((o) => [o.operationId, o]));
    const byRoute = new Map(gitea.map((o) => [routeKey(o.method, o.path), o]));
    let shared = 0;
    for (const { method, path, root, op } of operationsOf(doc)) {
      if (root) continue;
      const sameRoute = byRoute.get(routeKey(method, path));
      const sameId = byId.get(op.operationId);
      if (sameRoute) {
        shared++;
        t.equal(op.operationId, sameRoute.operationId, `${method} ${path} has Gitea's operationId`);
      }
      if (sameId) {
        t.equal(routeKey(method, path), routeKey(sameId.method, sameId.path), `${op.operationId} is at Gitea's method and path`);
      }
    }
    t.ok(shared >= 80, `${shared} operations shared with Gitea`);
  });

  t.test('parameters, bodies and responses come from the route schemas', async (t) => {
    const get = doc.paths['/repos/{owner}/{repo}'].get;
    t.same(get.parameters.map((p: any) => [p.name, p.in, p.required, p.type]), [['owner', 'path', true, 'string'], ['repo', 'path', true, 'string']]);
    t.same(get.responses['200'].schema, { $ref: '#/definitions/Repository' });
    t.same(get.responses['404'], { $ref: '#/responses/notFound' });
    t.ok(doc.definitions.Repository.properties.owner.$ref, 'nested $refs resolve into definitions');
    const create = doc.paths['/user/repos'].post;
    const body = create.parameters.find((p: any) => p.in === 'body');
    t.equal(body.required, true);
    t.ok(body.schema.properties.name, 'the body schema Ajv validates');
    t.ok(create.responses['422'] && create.responses['401'] && create.responses['415'], 'error responses');
    const search = doc.paths['/repos/search'].get.parameters.map((p: any) => p.name);
    t.ok(search.includes('q') && search.includes('limit') && search.includes('page'), 'query parameters');
    t.same(doc.paths['/version'].get.security, [], 'public routes need no credentials');
    t.same(doc.paths['/users/{username}/tokens'].post.security, [{ BasicAuth: [] }], 'token creation needs Basic auth');
    t.same(Object.keys(doc.securityDefinitions).sort(), ['AccessToken', 'AuthorizationHeaderToken', 'BasicAuth', 'BearerToken', 'Token']);
    t.same(doc.securityDefinitions.Token, { type: 'apiKey', in: 'query', name: 'token', description: doc.securityDefinitions.Token.description });
    t.ok(doc['x-root-paths']['/{owner}/{repo}/info/refs'].get, 'root-mounted routes are listed beside the API');
    t.ok(doc.tags.some((tag: any) => tag.name === 'repos'));
  });

});

t.test('a disabled plugin\'s routes vanish from the description', async (t) => {
  const f = await startForge({ disabledPlugins: ['stars', 'markup'] });
  t.teardown(() => f.close());
  const doc = (await f.request('GET', '/swagger.v1.json', { root: true })).json;
  t.notOk(doc.paths['/user/starred'], 'stars is gone');
  t.notOk(doc.paths['/markdown'], 'markup is gone');
  t.notOk(doc.tags.some((tag: any) => tag.name === 'stars'));
  t.ok(doc.paths['/repos/{owner}/{repo}'], 'the rest stays');
  await SwaggerParser.validate(structuredClone(doc));
});

t.test('the description is built from the kernel\'s compiled routes: an embedder\'s plugin and its schema appear', async (t) => {
  const extra = {
    name: 'extra',
    schemas: [{ $id: 'extra/Thing', type: 'object', properties: { n: { type: 'integer' } } }],
    routes: [{
      operationId: 'extraGetThing', summary: 'A thing', method: 'GET' as const, path: '/extra/thing', auth: 'public' as const,
      schema: { response: { 200: { $ref: 'extra/Thing' } } },
      handler: async () => ({ status: 200, body: { n: 1 } }),
    }],
  };
  const f = await startForge({ extraPlugins: [extra] });
  t.teardown(() => f.close());
  const doc = (await f.request('GET', '/swagger.v1.json', { root: true })).json;
  t.equal(doc.paths['/extra/thing']?.get?.operationId, 'extraGetThing');
  t.ok(Object.values<any>(doc.definitions).some((d) => d.properties?.n?.type === 'integer'), 'its $ref\'d schema is a definition');
  const described = operationsOf(doc).map((o) => `${o.method} ${o.root ? '' : doc.basePath}${o.path}`).sort();
  t.same(described, f.forge.routes().map((r) => `${r.method} ${toSwaggerPath(r.path).path}`).sort(), 'exactly the routes the kernel serves');
  await SwaggerParser.validate(structuredClone(doc));
});

t.test('OpenAPI 3.1 beside it: valid (swagger-parser), the same operations', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const swagger = (await f.request('GET', '/swagger.v1.json', { root: true })).json;
  const res = await f.request('GET', '/openapi.v1.json', { root: true });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  const doc = res.json;
  t.equal(doc.openapi, '3.1.0');
  await SwaggerParser.validate(structuredClone(doc));
  t.pass('zero validation errors');
  const ops = (d: any) => operationsOf(d).map((o) => `${o.root ? 'root' : 'api'} ${o.method} ${o.path} ${o.op.operationId}`).sort();
  t.same(ops(doc), ops(swagger), 'every operation, with its operationId');
  t.equal(doc.servers[0].url, '/api/v1');
  const create = doc.paths['/user/repos'].post;
  t.ok(create.requestBody.content['application/json'].schema, 'a JSON body is a requestBody');
  t.notOk((create.parameters ?? []).some((p: any) => p.in === 'body'), 'no body parameters');
  t.match(JSON.stringify(doc), /#\/components\/schemas\//);
  t.notMatch(JSON.stringify(doc), /#\/definitions\//, 'every $ref moved to components');
  t.same(doc.components.securitySchemes.BasicAuth, { type: 'http', scheme: 'basic', description: swagger.securityDefinitions.BasicAuth.description }, 'Basic auth as an http scheme');
});
