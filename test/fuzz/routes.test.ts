// Property-based fuzzing of every route (fast-check): requests generated from each route's own schemas (params,
// querystring, body) and mutated around them — wrong types, missing and extra fields, sizes, unicode, broken JSON,
// wrong media types, auth variants — against a real server. Every answer is below 500, every 4xx is a JSON
// `{message, url}`, nothing hangs or crashes, and afterwards the store's invariants hold (counters equal rows, no
// orphans). Seeded and reproducible: FORGEKIT_FUZZ_SEED=<seed> (printed) and FORGEKIT_FUZZ_RUNS=<runs per route>.
import t from 'tap';
import fc from 'fast-check';
import type { RouteInfo } from '../../core/plugin.js';
import { builtinPlugins } from '../../plugins/index.js';
import { checkConsistency } from '../../plugins/consistency.js';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

const SEED = Number(process.env.FORGEKIT_FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FORGEKIT_FUZZ_RUNS ?? 10);
/** A request that has not answered after this long is a hang (a generous bound that fails loudly, not a timing test). */
const HANG_MS = 120_000;

type Schema = Record<string, any>;
type Auth = 'none' | 'admin' | 'alice' | 'bob' | 'bad-token' | 'bad-basic' | 'query-token';

interface FuzzRequest {
  path: string;
  query: string;
  auth: Auth;
  body?: { type: string | null; data: string | Uint8Array };
}

/** Schemas by $id, for `$ref`s in request schemas. */
const registry = new Map<string, Schema>();
for (const plugin of builtinPlugins) for (const s of plugin.schemas ?? []) if (typeof (s as Schema).$id === 'string') registry.set((s as Schema).$id, s as Schema);

/** No generated string may be a URL with a scheme: migrations and webhooks must never reach past loopback. */
const unschemed = (s: string) => s.replace(/:\/\//g, ':/');

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '..', '.', '../../etc/passwd', '%00', 'a\u0000b', '\u202e', 'x'.repeat(300), '-rf', '@', '😀'.repeat(40)) },
  { weight: 1, arbitrary: fc.integer().map(String) },
).map(unschemed);

/** Occasionally a large value: the size limits must answer 4xx, never 5xx. */
const huge = fc.constantFrom('y'.repeat(70_000), '[a]('.repeat(3000));

function resolve(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 5; i++) s = registry.get(s.$ref);
  return s;
}

/** Values that satisfy (or nearly satisfy) a JSON schema. */
function valid(schemaIn: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length) return fc.oneof(...alternatives.map((a: Schema) => valid(a, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 40, 64);
      if (typeof schema.pattern === 'string') {
        try {
          return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= Math.max(max, min)).map(unschemed);
        } catch { /* a pattern fast-check cannot invert: plain strings */ }
      }
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
      if (schema.format === 'email') return fc.emailAddress();
      return fc.string({ minLength: Math.min(min, max), maxLength: Math.max(max, min) }).map(unschemed);
    }
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? Math.min(schema.maximum, min + 1_000_000) : Math.max(min, 0) + 1000;
      return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(schema.items, depth + 1), { minLength: Math.min(schema.minItems ?? 0, 3), maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object':
    default: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const keys = Object.keys(props);
      if (!keys.length) return type === 'object' ? fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) : fc.jsonValue({ maxDepth: 1 });
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const k of keys) model[k] = valid(props[k], depth + 1);
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k: string) => keys.includes(k)) });
    }
  }
}

/** Valid values, mutated: a field dropped, given a value of another type, or an extra one added; or any JSON at all. */
function mutated(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const base = valid(schema);
  return fc.oneof(
    { weight: 5, arbitrary: base },
    {
      weight: 3,
      arbitrary: fc.tuple(base, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('drop', 'retype', 'extra')).map(([v, n, other, how]) => {
        if (!v || typeof v !== 'object' || Array.isArray(v)) return other;
        const o = { ...(v as Record<string, unknown>) };
        const keys = Object.keys(o);
        const key = keys.length ? keys[n % keys.length]! : 'x';
        if (how === 'drop') delete o[key];
        else if (how === 'retype') o[key] = other;
        else o[`extra_${n % 7}`] = other;
        return o;
      }),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: huge },
  );
}

interface Fixture {
  users: Record<'admin' | 'alice' | 'bob', TestUser>;
  names: string[];
  repos: string[];
  shas: string[];
}

/** A path parameter: a name the fixture knows (so requests go deep), a number, or anything. */
function paramArb(name: string, fx: Fixture, schema: Schema | undefined): fc.Arbitrary<string> {
  const known: string[] =
    name === 'repo' ? fx.repos
      : ['owner', 'username', 'org', 'user', 'collaborator', 'target'].includes(name) ? fx.names
        : ['sha', 'ref'].includes(name) ? [...fx.shas, 'master', 'HEAD']
          : name === '*' ? ['master', 'README.md', 'master...master', 'refs/heads/master', 'a/../b', 'master.zip', 'master.tar.gz', '.editorconfig']
            : ['1', '2', '3', '0', '-1', '99999999999999999999'];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: valid(schema).map(String) },
    { weight: 2, arbitrary: text },
  );
}

function encodeParam(name: string, value: string): string {
  if (name === '*') return value.split('/').map(encodeURIComponent).join('/');
  return encodeURIComponent(value);
}

function requestArb(route: RouteInfo, fx: Fixture): fc.Arbitrary<FuzzRequest> {
  const schema = (route.def.schema ?? {}) as Schema;
  const names = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)|\*/g)].map((m) => m[1] ?? '*');
  const paramProps = (resolve(schema.params)?.properties ?? {}) as Record<string, Schema>;
  const params = fc.tuple(...names.map((n) => paramArb(n, fx, paramProps[n])));
  const queryProps = (resolve(schema.querystring)?.properties ?? {}) as Record<string, Schema>;
  const queryKeys = Object.keys(queryProps);
  const query = fc.tuple(
    fc.subarray(queryKeys),
    fc.array(fc.oneof(valid({ type: 'string' }), fc.integer().map(String), fc.constant('')), { minLength: queryKeys.length, maxLength: queryKeys.length }),
    fc.array(fc.oneof(...(queryKeys.length ? queryKeys.map((k) => valid(queryProps[k])) : [fc.constant('')])), { minLength: queryKeys.length, maxLength: queryKeys.length }),
    fc.boolean(),
    fc.option(fc.tuple(fc.string({ maxLength: 8 }), text)),
  ).map(([keys, wild, good, useWild, extra]) => {
    const q = new URLSearchParams();
    keys.forEach((k) => {
      const i = queryKeys.indexOf(k);
      q.append(k, String(useWild ? wild[i] : good[i]));
    });
    if (extra) q.append(extra[0], extra[1]);
    return q.toString();
  });
  const auth = fc.constantFrom<Auth>('none', 'admin', 'alice', 'alice', 'bob', 'bad-token', 'bad-basic', 'query-token');
  const kind = route.def.body ?? 'none';
  let body: fc.Arbitrary<FuzzRequest['body']>;
  if (kind === 'json') {
    body = fc.oneof(
      { weight: 8, arbitrary: mutated(schema.body).map((v) => ({ type: 'application/json', data: JSON.stringify(v) ?? 'null' })) },
      { weight: 1, arbitrary: text.map((s) => ({ type: 'application/json', data: `{"broken": ${s}` })) },
      { weight: 1, arbitrary: valid(schema.body).map((v) => ({ type: 'text/plain', data: JSON.stringify(v) ?? '' })) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
  } else if (kind === 'text') {
    body = fc.oneof(text, huge).map((s) => ({ type: 'text/plain', data: s }));
  } else if (kind === 'stream') {
    body = fc.oneof(
      fc.uint8Array({ maxLength: 256 }).map((b) => ({ type: route.path.endsWith('receive-pack') ? 'application/x-git-receive-pack-request' : 'application/x-git-upload-pack-request', data: b })),
      fc.constantFrom('0000', '0032want 0000000000000000000000000000000000000000\n00000009done\n', '00a0' + 'z'.repeat(10)).map((s) => ({ type: 'application/x-git-upload-pack-request', data: s })),
      fc.constant({ type: 'text/plain', data: 'x' }),
    );
  } else {
    // A body sent to a route that takes none is read and ignored.
    body = fc.option(text.map((s) => ({ type: 'application/json', data: s })), { freq: 6 }).map((b) => b ?? undefined);
  }
  return fc.record({ params, query, auth, body }).map(({ params: values, query: q, auth: a, body: b }) => {
    let i = 0;
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)|\*/g, (_m, n: string | undefined) => encodeParam(n ?? '*', values[i++]!));
    return { path, query: q, auth: a, body: b };
  });
}

async function send(f: TestForge, fx: Fixture, method: string, r: FuzzRequest): Promise<{ status: number; type: string; text: string }> {
  const headers: Record<string, string> = {};
  let query = r.query;
  const user = r.auth === 'admin' || r.auth === 'alice' || r.auth === 'bob' ? fx.users[r.auth] : undefined;
  if (user) headers.Authorization = `token ${user.token}`;
  else if (r.auth === 'bad-token') headers.Authorization = 'token 0123456789abcdef0123456789abcdef01234567';
  else if (r.auth === 'bad-basic') headers.Authorization = `Basic ${Buffer.from('alice:wrong-password').toString('base64')}`;
  else if (r.auth === 'query-token') query = `${query}${query ? '&' : ''}token=${fx.users.bob.token}`;
  if (r.body?.type) headers['Content-Type'] = r.body.type;
  const res = await fetch(`${f.url}${r.path}${query ? `?${query}` : ''}`, {
    method, headers, body: r.body && method !== 'GET' && method !== 'HEAD' ? (typeof r.body.data === 'string' ? r.body.data : Buffer.from(r.body.data)) as BodyInit : undefined, signal: AbortSignal.timeout(HANG_MS), redirect: 'manual',
  });
  const type = res.headers.get('content-type') ?? '';
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type, text: type.includes('json') || res.status >= 400 ? body.toString('utf8') : '' };
}

/** Why an answer is wrong, or null. */
function problem(method: string, res: { status: number; type: string; text: string }): string | null {
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 200)}`;
  if (res.status >= 400 && method !== 'HEAD') {
    if (!res.type.startsWith('application/json')) return `a ${res.status} that is not JSON (${res.type}): ${res.text.slice(0, 200)}`;
    let body: any;
    try { body = JSON.parse(res.text); } catch { return `a ${res.status} with a body that does not parse: ${res.text.slice(0, 200)}`; }
    if (!body || typeof body.message !== 'string' || typeof body.url !== 'string') return `a ${res.status} without {message, url}: ${res.text.slice(0, 200)}`;
  }
  return null;
}

async function makeFixture(f: TestForge): Promise<Fixture> {
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const ok = async (p: Promise<{ status: number; text: string }>, what: string) => {
    const res = await p;
    if (res.status >= 300) throw new Error(`fixture: ${what}: ${res.status} ${res.text}`);
  };
  await ok(f.request('POST', '/user/repos', { token: alice.token, json: { name: 'pub', auto_init: true } }), 'public repo');
  await ok(f.request('POST', '/user/repos', { token: alice.token, json: { name: 'priv', private: true, auto_init: true } }), 'private repo');
  await ok(f.request('POST', '/orgs', { token: alice.token, json: { username: 'fuzzorg' } }), 'org');
  await ok(f.request('POST', '/repos/alice/pub/issues', { token: bob.token, json: { title: 'an issue', body: 'text' } }), 'issue');
  await ok(f.request('PUT', '/user/starred/alice/pub', { token: bob.token }), 'star');
  const branch = await f.request('GET', '/repos/alice/pub/branches/master');
  return {
    users: { admin: f.admin, alice, bob },
    names: ['alice', 'bob', 'root', 'fuzzorg', 'nobody-here', 'ALICE'],
    repos: ['pub', 'priv', 'pub.git', 'none-such'],
    shas: [String(branch.json?.commit?.id ?? '0'.repeat(40))],
  };
}

t.test('every route, fuzzed from its schemas', async (t) => {
  t.setTimeout(1_800_000); // bounded by the number of runs; under a loaded machine it takes longer, never forever
  t.comment(`fast-check seed ${SEED}, ${RUNS} runs per route (FORGEKIT_FUZZ_SEED / FORGEKIT_FUZZ_RUNS to change)`);
  const f = await startForge();
  t.teardown(() => f.close());
  const fx = await makeFixture(f);
  const routes = [...f.forge.routes()].sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
  t.ok(routes.length > 100, `${routes.length} routes`);
  const statuses = new Map<number, number>();
  let requests = 0;
  let index = 0;
  for (const route of routes) {
    const seed = SEED + index++;
    const result = await fc.check(
      fc.asyncProperty(requestArb(route, fx), async (r) => {
        const res = await send(f, fx, route.method, r);
        requests++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const why = problem(route.method, res);
        if (why) throw new Error(why);
      }),
      { seed, numRuns: RUNS, endOnFailure: true },
    );
    if (result.failed) {
      t.fail(`${route.method} ${route.path} (seed ${seed}): ${String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance)}\n  request: ${fc.stringify(result.counterexample)}`);
    }
  }
  t.pass(`${requests} requests over ${routes.length} routes`);
  t.comment(`statuses: ${[...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ')}`);

  // Still serving, and the store consistent: counters equal rows, no orphans, no half-made records.
  t.equal((await f.request('GET', '/version')).status, 200, 'the server still answers');
  const report = await checkConsistency({ store: f.forge.store, dataDir: f.dataDir, collections: builtinPlugins.flatMap((p) => p.collections ?? []) });
  t.same(report.problems.map((p) => p.message), [], 'the store invariants hold');
});
