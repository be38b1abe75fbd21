// `GET /api/healthz` (Gitea's shape) and Prometheus `/metrics`: off by default, token-protected, series per route
// template (never per raw URL), store timings, git processes and the mirror-sync queue.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { builtinPlugins } from '../../plugins/index.js';

/** git and every built-in plugin that needs it, directly or through another (new ones included as they land). */
function gitAndDependents(): string[] {
  const off = new Set(['git']);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of builtinPlugins) {
      if (!off.has(p.name) && (p.dependencies ?? []).some((d) => off.has(d))) {
        off.add(p.name);
        grew = true;
      }
    }
  }
  return [...off];
}

t.test('healthz', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const res = await f.request('GET', '/api/healthz', { root: true });
  t.equal(res.status, 200);
  t.match(res.json, { status: 'pass', description: 'forgekit', checks: { 'store:ping': [{ status: 'pass' }], 'git:version': [{ status: 'pass' }] } });
  t.match(res.json.checks['store:ping'][0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.equal((await f.request('GET', '/metrics', { root: true })).status, 404, 'metrics are off by default');
});

t.test('healthz fails when git cannot run', async (t) => {
  // Without the git plugins the server boots; the health check still runs the configured git binary.
  const f = await startForge({ disabledPlugins: gitAndDependents(), config: { plugins: { git: { gitBinary: '/nonexistent/git' } } } });
  t.teardown(() => f.close());
  const res = await f.request('GET', '/api/healthz', { root: true });
  t.equal(res.status, 500);
  t.match(res.json, { status: 'fail', checks: { 'store:ping': [{ status: 'pass' }], 'git:version': [{ status: 'fail', output: /git is not usable/ }] } });
});

t.test('metrics', async (t) => {
  const f = await startForge({ config: { plugins: { metrics: { enabled: true, token: 'scrape-secret' } } } });
  t.teardown(() => f.close());
  const alice = await f.createUser();
  for (const name of ['one', 'two']) await f.request('POST', '/user/repos', { token: alice.token, json: { name } });
  await f.request('GET', `/repos/${alice.username}/one`);
  await f.request('GET', `/repos/${alice.username}/two`);
  await f.request('GET', '/repos/nobody/nothing');
  await f.request('GET', '/no/such/path/secret-name');
  // A file read through the pooled git cat-file readers (contents → git service).
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'three', auto_init: true } })).status, 201);
  t.equal((await f.request('GET', `/repos/${alice.username}/three/contents/README.md`, { token: alice.token })).status, 200);

  const denied = await f.request('GET', '/metrics', { root: true });
  t.equal(denied.status, 401, 'the token is required');
  t.equal((await f.request('GET', '/metrics', { root: true, headers: { Authorization: 'Bearer wrong' } })).status, 401);
  const res = await f.request('GET', '/metrics', { root: true, headers: { Authorization: 'Bearer scrape-secret' } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = res.text;
  t.match(text, /forgekit_http_requests_total\{method="GET",route="\/api\/v1\/repos\/:owner\/:repo",status="200"\} 2\n/, 'one series per template and status');
  t.match(text, /forgekit_http_requests_total\{method="GET",route="\/api\/v1\/repos\/:owner\/:repo",status="404"\} 1\n/);
  t.match(text, /forgekit_http_requests_total\{method="POST",route="\/api\/v1\/user\/repos",status="201"\} 3\n/);
  t.match(text, /forgekit_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/repos\/:owner\/:repo"\} \d+/);
  t.notMatch(text, new RegExp(alice.username), 'never a raw URL');
  t.notMatch(text, /nobody|secret-name/);
  t.match(text, /forgekit_http_requests_total\{method="GET",route="unmatched",status="404"\} 1\n/, 'requests no route matched are counted too');
  t.match(text, /forgekit_store_operation_duration_seconds_count\{collection="repos",operation="insertOne"\} 3\n/, 'store timings');
  t.match(text, /forgekit_git_processes \d+\n/);
  t.match(text, /forgekit_queue_depth\{queue="mirror_sync"\} 0\n/);
  t.match(text, /forgekit_queue_depth\{queue="webhook_deliveries"\} 0\n/, 'webhook delivery backlog (webhooks service)');
  t.match(text, /forgekit_webhook_deliveries_in_flight 0\n/);
  t.match(text, /forgekit_webhook_deliveries_finished_total\{result="delivered"\} 0\n/);
  t.match(text, /forgekit_queue_depth\{queue="gate POST \/api\/v1\/markdown"\} 0\n/, 'requests waiting at a route\'s concurrency gate');
  t.match(text, /forgekit_git_cat_file_processes\{kind="processes"\} [1-9]\d*\n/, 'the pooled cat-file readers (git service)');
  t.match(text, /forgekit_git_cat_file_processes\{kind="repositories"\} 1\n/);
  t.match(text, /forgekit_process_cpu_seconds_total/, 'process defaults');
});
