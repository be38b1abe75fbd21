// The benchmark harness's own logic: the dataset plan, case paths and merging, statistics, targets, the bare
// replay server and RESULTS.md splicing. The whole harness end to end is test/bench/quick.test.ts.
import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { fillPath, resolvePath, type BenchCase, type BenchFixture } from '../../bench/case.js';
import { planDataset, prng, QUICK_SIZES, RARE_WORD, ROLE_LOGINS, TERMS, tokenOf, zipfPicker } from '../../bench/dataset.js';
import { DEFAULT_CASES } from '../../bench/default-cases.js';
import { casesOf, mergeCases, seedersOf, shapeOf } from '../../bench/load-cases.js';
import { bootText, loadCheck, MD_BEGIN, MD_END, resultFileName, spliceResults, type BenchResult as Result } from '../../bench/report.js';
import { benchMongoUri, cpuMs, matchesFilter, parseOptions, prepareRequest, record } from '../../bench/run.js';
import { fixtureOf } from '../../bench/seed.js';
import { categoryOf, formatAllocations, formatSummary, moduleOf, summarise, summariseAllocations } from '../../bench/profile.js';
import { combine, median, percentile, ratioOf, runStats } from '../../bench/stats.js';
import { inferGroup, judge } from '../../bench/targets.js';
import { families } from '../../bench/families.js';

const plan = planDataset(QUICK_SIZES);
const fx: BenchFixture = fixtureOf(plan, '/api/v1', true);

t.test('the dataset plan', async (t) => {
  t.test('is deterministic: the same sizes give the same names, owners and visibility', async (t) => {
    const again = planDataset(QUICK_SIZES);
    t.same(again.repos.map((r) => [r.id, r.ownerId, r.name, r.private]), plan.repos.map((r) => [r.id, r.ownerId, r.name, r.private]));
    t.same(again.accounts.map((a) => a.login), plan.accounts.map((a) => a.login));
    t.same(again.memberships, plan.memberships);
  });

  t.test('has the requested sizes', async (t) => {
    t.equal(plan.users.length, QUICK_SIZES.users);
    t.equal(plan.orgs.length, QUICK_SIZES.orgs);
    t.equal(plan.accounts.length, QUICK_SIZES.users + QUICK_SIZES.orgs);
    t.equal(plan.repos.length, QUICK_SIZES.repos);
    t.equal(plan.repos.filter((r) => r.ownerId === plan.roles.owner.id).length, QUICK_SIZES.ownerRepos, 'the owner role owns exactly ownerRepos');
    const privateShare = plan.repos.filter((r) => r.private).length / plan.repos.length;
    t.ok(privateShare > 0.07 && privateShare < 0.14, `about 10% private (${privateShare})`);
  });

  t.test('ids are 1..n in order, like a fresh store hands them out', async (t) => {
    t.same(plan.accounts.map((a) => a.id), plan.accounts.map((_, i) => i + 1));
    t.same(plan.repos.map((r) => r.id), plan.repos.map((_, i) => i + 1));
    t.same(plan.teams.map((x) => x.id), plan.teams.map((_, i) => i + 1));
  });

  t.test('logins are unique case-insensitively and repository names unique per owner', async (t) => {
    t.equal(new Set(plan.accounts.map((a) => a.login.toLowerCase())).size, plan.accounts.length);
    t.equal(new Set(plan.repos.map((r) => `${r.ownerId}/${r.lowerName}`)).size, plan.repos.length);
    t.ok(plan.repos.every((r) => /^[A-Za-z0-9_.-]{1,100}$/.test(r.name)), 'every name is a valid repository name');
    t.ok(plan.accounts.every((a) => /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(a.login)), 'every login is a valid account name');
  });

  t.test('the roles exist with their fixed logins; the member is in a team of the bench org', async (t) => {
    for (const [role, login] of Object.entries(ROLE_LOGINS)) t.equal(plan.roles[role as keyof typeof ROLE_LOGINS].login, login);
    t.equal(plan.roles.admin.isAdmin, true);
    t.equal(plan.accounts.filter((a) => a.isAdmin).length, 1, 'only the admin role is a site admin');
    const team = plan.teams.find((x) => x.orgId === plan.org.id && plan.memberships.some((m) => m.teamId === x.id && m.userId === plan.roles.member.id));
    t.ok(team, 'member belongs to a team of the org');
    t.equal(team!.includesAllRepos, true);
    t.ok(plan.teams.filter((x) => x.isOwners).length === plan.orgs.length, 'every org has its Owners team');
    t.ok(plan.orgs.every((o) => plan.memberships.some((m) => m.orgId === o.id && m.owners)), 'every org has an owner');
  });

  t.test('organizations hidden from anonymous callers own repositories; users and bench-org are public', async (t) => {
    t.ok(plan.users.every((u) => u.visibility === 'public'), 'every user public');
    t.equal(plan.org.visibility, 'public', 'bench-org public');
    const limited = plan.orgs.filter((o) => o.visibility === 'limited');
    t.same(limited.map((o) => o.id - plan.users.length - 1), [7, 27], 'every 20th organization from the 7th is limited');
    t.same(plan.orgs.filter((o) => o.visibility === 'private').map((o) => o.id - plan.users.length - 1), [13], 'the 13th of every hundred is private');
    const owned = new Set(plan.repos.map((r) => r.ownerId));
    t.ok(limited.some((o) => owned.has(o.id)), 'a limited organization owns repositories');
    const full = planDataset({ ...QUICK_SIZES, orgs: 2_000, repos: 10_000 });
    const hidden = full.orgs.filter((o) => o.visibility !== 'public');
    t.equal(hidden.filter((o) => o.visibility === 'private').length, 20, '2,000 organizations: 20 private');
    t.equal(hidden.filter((o) => o.visibility === 'limited').length, 100, 'and 100 limited (every 20th from the 7th)');
    t.ok(full.repos.filter((r) => hidden.some((o) => o.id === r.ownerId)).length > 100, 'hidden organizations own more than a hundred repositories');
  });

  t.test('search terms: the common term is common, the rare one rare, the org term finds private org repositories', async (t) => {
    t.ok(plan.termCounts.common > plan.repos.length / 10, `common ${plan.termCounts.common}`);
    t.ok(plan.termCounts.rare >= 3 && plan.termCounts.rare <= 10, `rare ${plan.termCounts.rare}`);
    t.equal(TERMS.rare, RARE_WORD);
    const orgMatches = plan.repos.filter((r) => r.ownerId === plan.org.id && r.lowerName.includes(TERMS.org));
    t.equal(orgMatches.length, plan.termCounts.org);
    t.ok(orgMatches.some((r) => r.private), 'a private org repository matches the org term');
    t.ok(plan.termCounts.user >= 10, `user term matches a full page (${plan.termCounts.user})`);
  });

  t.test('tokens are 40 hex characters derived from the login', async (t) => {
    t.match(tokenOf('bench-owner'), /^[0-9a-f]{40}$/);
    t.equal(tokenOf('bench-owner'), fx.accounts.owner.token);
    t.not(tokenOf('bench-owner'), tokenOf('bench-keys'));
  });

  t.test('the PRNG and Zipf picker are deterministic and skewed', async (t) => {
    const a = prng(42);
    const b = prng(42);
    const xs = Array.from({ length: 5 }, () => a());
    t.same(xs, Array.from({ length: 5 }, () => b()));
    t.ok(xs.every((x) => x >= 0 && x < 1));
    const pick = zipfPicker(['head', 'mid', 'tail'], 1.5, prng(7));
    const counts = { head: 0, mid: 0, tail: 0 } as Record<string, number>;
    for (let i = 0; i < 3000; i++) counts[pick()]!++;
    t.ok(counts.head! > counts.mid! && counts.mid! > counts.tail!, JSON.stringify(counts));
  });
});

t.test('case paths', async (t) => {
  t.test('placeholders are filled from the fixture and URL-encoded', async (t) => {
    t.equal(fillPath('/users/{accounts.owner.login}/repos?page=3', fx), '/users/bench-owner/repos?page=3');
    t.equal(fillPath('/repos/search?uid={org.id}', fx), `/repos/search?uid=${plan.org.id}`);
    const odd = { ...fx, terms: { ...fx.terms, common: 'a b&c' } };
    t.equal(fillPath('/x?q={terms.common}', odd), '/x?q=a%20b%26c');
  });

  t.test('an unknown placeholder is an error naming it', async (t) => {
    t.throws(() => fillPath('/{username}.keys', fx), /unknown placeholder \{username\}/);
    t.throws(() => fillPath('/{accounts}', fx), /not a string or number/);
  });

  t.test('a path may be a function of the fixture', async (t) => {
    t.equal(resolvePath({ name: 'x', path: (f) => `/p?page=${f.quick ? 5 : 50}` }, fx), '/p?page=5');
  });

  t.test('every default case resolves against the fixture', async (t) => {
    for (const c of DEFAULT_CASES) t.doesNotThrow(() => resolvePath(c, fx), c.name);
    t.equal(new Set(DEFAULT_CASES.map((c) => c.name)).size, DEFAULT_CASES.length, 'names are unique');
  });
});

t.test('requests', async (t) => {
  t.test('a role signs with its token; a JSON body gets its content type', async (t) => {
    const req = prepareRequest({ name: 'x', method: 'POST', path: '/markdown', as: 'owner', body: { Text: '# hi', Mode: 'gfm' } }, fx);
    t.equal(req.path, '/api/v1/markdown');
    t.equal(req.headers.authorization, `token ${fx.accounts.owner.token}`);
    t.equal(req.headers['content-type'], 'application/json');
    t.same(JSON.parse(req.body!.toString()), { Text: '# hi', Mode: 'gfm' });
  });

  t.test('a string body that is not JSON is sent as text; anonymous sends no credentials', async (t) => {
    const req = prepareRequest({ name: 'x', method: 'POST', path: '/markdown/raw', body: '# raw' }, fx);
    t.equal(req.headers['content-type'], 'text/plain; charset=utf-8');
    t.equal(req.headers.authorization, undefined);
  });

  t.test('setup results: their token and path win, root paths skip the API prefix', async (t) => {
    const req = prepareRequest({ name: 'x', path: '/{username}.keys', root: true }, fx, { token: 'abc', path: '/alice.keys' });
    t.equal(req.path, '/alice.keys');
    t.equal(req.headers.authorization, 'token abc');
    t.equal(req.method, 'GET');
  });
});

t.test('case files', async (t) => {
  const mine: BenchCase = { name: 'repos-search-rare', path: '/repos/search?limit=10&q={terms.rare}' };
  t.test('every case-like export is found, seeders by name', async (t) => {
    const a: BenchCase = { name: 'a', path: '/a' };
    const b: BenchCase = { name: 'b', path: '/b' };
    const mod = { cases: [a], default: [a, b], other: { name: 'c', path: () => '/c' }, notACase: { name: 'd' }, seedStuff: async () => {}, helper: () => {} };
    t.same(casesOf(mod).map((c) => c.name), ['a', 'b', 'c']);
    t.equal(seedersOf(mod).length, 1);
  });

  t.test('the same request shape replaces the harness case, whatever the query order', async (t) => {
    t.equal(shapeOf(mine, fx), shapeOf(DEFAULT_CASES.find((c) => c.name === 'repos-search-rare')!, fx));
    const merged = mergeCases(DEFAULT_CASES, [{ from: 'bench/cases/repos.ts', cases: [{ ...mine, name: 'search-rare' }] }], fx);
    const hit = merged.find((m) => m.case.name === 'search-rare')!;
    t.equal(hit.from, 'bench/cases/repos.ts');
    t.equal(hit.replaces, 'repos-search-rare');
    t.notOk(merged.some((m) => m.case.name === 'repos-search-rare'));
    t.equal(merged.length, DEFAULT_CASES.length);
  });

  t.test('the same name replaces; a new name is added; a clash between files keeps both', async (t) => {
    const merged = mergeCases(DEFAULT_CASES, [
      { from: 'bench/cases/keys.ts', cases: [{ name: 'user-keys', path: '/user/keys', as: 'keys', group: 'list' }, { name: 'extra', path: '/extra' }] },
      { from: 'bench/cases/other.ts', cases: [{ name: 'extra', path: '/extra2' }] },
    ], fx);
    t.equal(merged.find((m) => m.case.name === 'user-keys')!.from, 'bench/cases/keys.ts');
    t.ok(merged.some((m) => m.case.name === 'extra'));
    t.ok(merged.some((m) => m.case.name === 'extra@other'));
  });
});

t.test('statistics', async (t) => {
  t.test('nearest-rank percentiles', async (t) => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    t.equal(percentile(sorted, 50), 5);
    t.equal(percentile(sorted, 99), 10);
    t.equal(percentile(sorted, 100), 10);
    t.equal(percentile(new Float64Array(0), 50), 0);
  });

  t.test('rounds combine over all responses; the ratio is forgekit over bare, per round too', async (t) => {
    const a1 = runStats(Float64Array.from([2, 2, 2, 2]), 1, 0, 0, 0);
    const a2 = runStats(Float64Array.from([4, 4]), 1, 0, 0, 0);
    const b1 = runStats(Float64Array.from([1, 1, 1, 1, 1, 1, 1, 1]), 1, 0, 0, 0);
    const b2 = runStats(Float64Array.from([1, 1, 1, 1]), 1, 0, 0, 0);
    const forge = combine([a1, a2], [Float64Array.from([2, 2, 2, 2]), Float64Array.from([4, 4])]);
    const bare = combine([b1, b2], [new Float64Array(8).fill(1), new Float64Array(4).fill(1)]);
    t.equal(forge.reqPerSec, 3);
    t.equal(forge.p50Ms, 2);
    t.equal(forge.p99Ms, 4);
    t.equal(bare.reqPerSec, 6);
    const r = ratioOf(forge, bare);
    t.equal(r.ratio, 0.5);
    t.equal(r.ofTotals, 0.5);
    t.same(r.perRound, [0.5, 0.5]);
    t.equal(r.min, 0.5);
  });

  t.test('the tracked ratio is the median of the round pairs: one disturbed pair is outvoted', async (t) => {
    const side = (rates: number[]) => combine(rates.map((n) => runStats(new Float64Array(n).fill(1), 1, 0, 0, 0)), rates.map((n) => new Float64Array(n).fill(1)));
    const r = ratioOf(side([50, 50, 10]), side([100, 100, 100]));
    t.equal(r.ratio, 0.5);
    t.same(r.perRound, [0.5, 0.5, 0.1]);
    t.equal(r.min, 0.1);
    t.equal(r.ofTotals, 0.37, 'req/s are whole numbers: 37 ÷ 100');
    t.equal(median([3, 1, 2, 10]), 2.5);
  });

  t.test('errors, timeouts and wrong statuses are counted', async (t) => {
    const s = combine([runStats(Float64Array.from([1]), 1, 2, 1, 3)], [Float64Array.from([1])]);
    t.equal(s.errors, 6);
  });
});

t.test('server CPU time is read from /proc and grows with work', { skip: process.platform !== 'linux' ? 'needs /proc (Linux)' : false }, async (t) => {
  const before = cpuMs(process.pid)!;
  t.type(before, 'number');
  const until = Date.now() + 120;
  let x = 0;
  while (Date.now() < until) x += Math.sqrt(x + 1);
  t.ok(x > 0);
  t.ok(cpuMs(process.pid)! > before, 'busy-looping 120 ms shows up in the process CPU time');
  t.equal(cpuMs(2 ** 22 + 12345), null, 'an unknown process has no CPU time');
  t.equal(cpuMs(undefined), null);
});

t.test('MongoDB: the benchmark seeds a _bench sibling of the configured database, never the database itself', async (t) => {
  t.equal(benchMongoUri(''), '');
  t.equal(benchMongoUri('mongodb://127.0.0.1:27017/forgekit'), 'mongodb://127.0.0.1:27017/forgekit_bench');
  t.equal(benchMongoUri('mongodb://u:p@h1,h2/prod?replicaSet=rs0'), 'mongodb://u:p@h1,h2/prod_bench?replicaSet=rs0');
  t.equal(benchMongoUri('mongodb://h'), 'mongodb://h/forgekit_bench');
  t.equal(benchMongoUri('mongodb+srv://c.example.net/?retryWrites=true'), 'mongodb+srv://c.example.net/forgekit_bench?retryWrites=true');
  t.equal(benchMongoUri('mongodb://h/forgekit_bench'), 'mongodb://h/forgekit_bench', 'already a bench database');
  t.throws(() => benchMongoUri('http://h/db'), /not a mongodb/);
});

t.test('CPU profiles are summed by function, module and cost centre', async (t) => {
  t.equal(moduleOf('file:///x/node_modules/@seald-io/nedb/lib/model.js'.replace('file://', '')), '@seald-io/nedb');
  t.equal(moduleOf('/x/node_modules/pino/lib/tools.js'), 'pino');
  t.equal(moduleOf('/work/main/dist/core/store/embedded/query.js'), 'forgekit core/store');
  t.equal(moduleOf('/work/main/dist/plugins/repos/service.js'), 'forgekit plugins/repos');
  t.equal(moduleOf('node:_http_server'), 'node:_http_server');
  t.equal(categoryOf('forgekit core/store'), 'store');
  t.equal(categoryOf('forgekit plugins/repos'), 'plugins');
  t.equal(categoryOf('forgekit core'), 'kernel');
  t.equal(categoryOf('pino'), 'logging');
  const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
  const profile = {
    nodes: [
      frame(1, '(root)', ''), frame(2, 'find', 'file:///p/dist/core/store/embedded/collection.js'),
      frame(3, 'writeString', ''), frame(4, 'anonymous1', ''), frame(5, '(garbage collector)', ''), frame(6, 'writev', ''),
    ],
    samples: [2, 2, 3, 4, 5, 6, 6, 2],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };
  const sum = summarise(profile);
  t.equal(sum.totalMs, 8);
  const cat = Object.fromEntries(sum.categories.map((c) => [c.category, c.ms]));
  t.same(cat, { store: 3, logging: 1, serialisation: 1, 'garbage collection': 1, 'node: HTTP, sockets, native': 2 });
  t.equal(sum.functions[0]!.name, 'find');
  t.equal(sum.functions[0]!.share, 37.5);
  t.match(formatSummary('x', sum), /self time by cost centre/);
});

t.test('allocation profiles (profile.js --alloc) are summed by function and module, per request', async (t) => {
  const node = (functionName: string, url: string, selfSize: number, children: unknown[] = []) => ({ callFrame: { functionName, url, lineNumber: 9 }, selfSize, children });
  // A function met twice in the tree (two callers) is one row; the root and frames that allocate nothing are no rows.
  const head = node('(root)', '', 0, [
    node('dispatch', 'file:///p/dist/core/http/dispatch.js', 3000, [node('find', 'file:///p/dist/core/store/embedded/collection.js', 4000)]),
    node('page', 'file:///p/dist/plugins/lib/repo-relations.js', 1000, [node('find', 'file:///p/dist/core/store/embedded/collection.js', 2000)]),
  ]);
  const sum = summariseAllocations(head as Parameters<typeof summariseAllocations>[0]);
  t.equal(sum.totalBytes, 10000);
  t.same(sum.functions.map((f) => [f.name, f.bytes, f.share]), [['find', 6000, 60], ['dispatch', 3000, 30], ['page', 1000, 10]]);
  t.equal(sum.functions[0]!.where, 'file:///p/dist/core/store/embedded/collection.js:10'.replace('file://', ''));
  t.same(sum.modules.map((m) => [m.module, m.bytes]), [['forgekit core/store', 6000], ['forgekit core/http', 3000], ['forgekit plugins/lib', 1000]]);
  const text = formatAllocations('case', sum, 4);
  t.match(text, /== case: 2500 bytes allocated per request \(4 requests\)/);
  t.match(text, /60%\s+1500 B  find/);
});

t.test('targets', async (t) => {
  const m = (o: Partial<Parameters<typeof judge>[1]>) => ({ ratio: 0.9, cpuRatio: null, bareBusy: 0.95, p99Ms: 1, bareP99Ms: 1, connections: 50, ...o });
  t.equal(judge('version', m({ ratio: 0.9, p99Ms: 50 })).met, true, 'version has no p99 target');
  t.same(judge('version', m({ ratio: 0.8 })).misses, ['ratio 0.8 < 0.85']);
  t.same(judge('search', m({ ratio: 0.6, p99Ms: 30, bareP99Ms: 5 })).misses, ['p99 30 ms ≥ 25 ms']);
  t.equal(judge('search', m({ ratio: 0.6, p99Ms: 30, connections: 10 })).met, true, 'p99 is judged at 50 connections only');
  const noisy = judge('list', m({ ratio: 0.6, p99Ms: 80, bareP99Ms: 40 }));
  t.equal(noisy.met, true, 'p99 not judged when the bare server itself missed the p99 target');
  t.match(noisy.notes[0], /bare server's own p99 was 40 ms/);
  t.equal(judge('list', m({ ratio: 0.4, p99Ms: 80, bareP99Ms: 40 })).met, false, 'the ratio is still judged');
  t.equal(judge('markup', m({ ratio: 0.1, p99Ms: 300 })).met, null, 'no target for markup');

  const unsaturated = judge('version', m({ ratio: 1.3, cpuRatio: 0.6, bareBusy: 0.2 }));
  t.equal(unsaturated.basis, 'cpu', 'a bare server far from a busy core: judged on CPU per request');
  t.equal(unsaturated.judgedRatio, 0.6);
  t.same(unsaturated.misses, ['CPU ratio 0.6 < 0.85']);
  t.match(unsaturated.notes[0], /bare server 20% busy/);
  const saturated = judge('version', m({ ratio: 0.9, cpuRatio: 0.6, bareBusy: 0.97 }));
  t.equal(saturated.basis, 'req/s', 'at the limit the req/s ratio is the answer');
  t.equal(saturated.met, true);
  t.equal(judge('version', m({ ratio: 0.9, cpuRatio: null, bareBusy: 0.2 })).basis, 'req/s', 'no CPU data: req/s');
  t.equal(inferGroup('GET', '/repos/search?q=x'), 'search');
  t.equal(inferGroup('GET', '/user/keys'), 'list');
  t.equal(inferGroup('POST', '/markdown'), 'markup');
  t.equal(inferGroup('GET', '/version'), 'version');
});

t.test('options', async (t) => {
  const quick = parseOptions(['--quick']);
  t.equal(quick.quick, true);
  t.equal(quick.resultsMd, false, 'quick runs never touch RESULTS.md');
  t.ok(quick.rounds >= 2);
  const full = parseOptions(['--case', 'search,keys', '--case', 'version']);
  t.same(full.filter, ['search', 'keys', 'version']);
  t.equal(full.connections, 50);
  t.ok(full.rounds >= 2);
  t.throws(() => parseOptions(['--rounds', '1']), /rounds must be a number ≥ 2/, 'fewer than two interleaved rounds is refused');
  t.throws(() => parseOptions(['--bogus']), /bogus/);
  t.equal(full.restarts, 2, 'a full run boots three times (judged on the median)');
  t.equal(quick.restarts, 0, 'a quick run boots once');
  t.equal(parseOptions(['--restarts', '0']).restarts, 0);
  t.throws(() => parseOptions(['--restarts=-1']), /restarts must be a number ≥ 0/);
});

t.test('boot: one boot as is; several as their median with every boot named', async (t) => {
  const base = { createForgeMs: 1, rssAfterBootBytes: 1, rssAtEndBytes: 1, maxRssBytes: 1, logBytes: 0, logLines: 0 };
  t.equal(bootText({ ...base, bootMs: 7234 }), '7.23 s', 'results made before restarts');
  t.equal(bootText({ ...base, bootMs: 7234, bootsMs: [7234] }), '7.23 s');
  t.equal(bootText({ ...base, bootMs: 7200, bootsMs: [11020, 7200, 6980] }),
    '7.20 s (median of 3 boots: 11.02 s the first after seeding, restarts 7.20 s, 6.98 s)');
});

t.test('--case: an exact case name runs that case only; other text matches names and groups', async (t) => {
  const names = new Set(['user-keys', 'users-keys-public', 'repos-search-rare']);
  t.equal(matchesFilter({ name: 'user-keys', path: '/' }, 'list', ['user-keys'], names), true);
  t.equal(matchesFilter({ name: 'user-keys-extra', path: '/' }, 'list', ['user-keys'], names), false);
  t.equal(matchesFilter({ name: 'repos-search-rare', path: '/' }, 'search', ['search'], names), true);
  t.equal(matchesFilter({ name: 'users-keys-public', path: '/' }, 'list', ['keys'], names), true);
  t.equal(matchesFilter({ name: 'version', path: '/' }, 'version', ['search'], names), false);
  t.equal(matchesFilter({ name: 'version', path: '/' }, 'version', [], names), true);
});

t.test('result file names: date, commit, quick, and the case filter of a partial run', async (t) => {
  const base = { startedAt: '2026-11-22T14:00:00.000Z', commit: { commit: 'a'.repeat(40), short: 'aaaaaaaaaa', dirty: false } };
  t.equal(resultFileName({ ...base, mode: 'full' }), '2026-11-22-aaaaaaaaaa.json');
  t.equal(resultFileName({ ...base, mode: 'quick' }), '2026-11-22-aaaaaaaaaa-quick.json');
  t.equal(resultFileName({ ...base, mode: 'full', settings: { filter: ['search', 'user-keys'] } }), '2026-11-22-aaaaaaaaaa-only-search+user-keys.json');
  t.equal(resultFileName({ ...base, mode: 'full', settings: { filter: ['../x'] } }), '2026-11-22-aaaaaaaaaa-only-x.json', 'no path characters');
});

t.test('RESULTS.md keeps what is written by hand around the generated table', async (t) => {
  const first = spliceResults(null, 'TABLE 1');
  t.match(first, MD_BEGIN);
  t.match(first, 'TABLE 1');
  const edited = `${first}\n## What limited it\nhand-written analysis\n`;
  const second = spliceResults(edited, 'TABLE 2');
  t.match(second, 'TABLE 2');
  t.notMatch(second, 'TABLE 1');
  t.match(second, 'hand-written analysis');
  t.equal(second.split(MD_END).length, 2, 'one generated block');
});

t.test('the bare server replays the recorded response exactly, after reading the request body', async (t) => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = fork(path.join(here, '..', '..', 'bench', 'server-bare.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  t.teardown(() => {
    child.kill();
  });
  const ready = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string })));
  const headers: Array<[string, string]> = [['X-Total-Count', '42'], ['Content-Type', 'application/json; charset=utf-8'], ['Content-Length', '9']];
  child.send({ type: 'set', status: 201, headers, body: Buffer.from('{"ok":1}\n').toString('base64') });
  await new Promise((resolve) => child.once('message', resolve));
  const body = Buffer.alloc(64 * 1024, 'x');
  const res = await record(ready.url, { method: 'POST', path: '/anything?q=1', headers: { 'content-type': 'text/plain' }, body });
  t.equal(res.status, 201);
  t.same(res.headers, headers, 'the same header names, case and values (transport headers aside)');
  t.equal(res.body.toString(), '{"ok":1}\n');
  const get = await record(ready.url, { method: 'GET', path: '/no-body', headers: {} });
  t.equal(get.status, 201, 'a request without a body is answered too');
  // Keep-alive works like on forgekit: two requests on one connection.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<unknown>();
  for (let i = 0; i < 2; i++) {
    await new Promise<void>((resolve, reject) => {
      http.get(`${ready.url}/x`, { agent }, (r) => {
        sockets.add(r.socket);
        r.resume();
        r.on('end', () => resolve());
      }).on('error', reject);
    });
  }
  agent.destroy();
  t.equal(sockets.size, 1, 'one connection served both requests');
});

t.test('families: one row per randomized family (list-rnd as list-<family>), other cases left out', async (t) => {
  const side = (reqPerSec: number, p99Ms: number) => ({ reqPerSec, p99Ms, cpuUsPerRequest: 100 });
  const c = (name: string, ratio: number) => ({ name, path: `/api/v1/${name}`, forgekit: side(ratio * 1000, 5), bare: side(1000, 1) });
  const table = families([
    c('search-rnd-q-anon-0', 0.5), c('search-rnd-q-anon-1', 0.3),
    c('users-rnd-member-0', 0.4),
    c('list-rnd-user-repos-0', 0.2), c('list-rnd-user-repos-1', 0.6), c('list-rnd-user-repos-2', 0.4),
    c('list-rnd-issues-list-0', 0.1),
    c('mixed-0', 0.3),
    c('version', 0.9),
  ]);
  const rows = table.split('\n').slice(2).map((line) => line.split('|').map((x) => x.trim()));
  t.same(rows.map((r) => r[1]), ['q-anon', 'users-rnd-member', 'list-user-repos', 'list-issues-list', 'mixed']);
  const userRepos = rows.find((r) => r[1] === 'list-user-repos')!;
  t.equal(userRepos[2], '3', 'three requests');
  t.equal(userRepos[3], '0.40', 'median ratio');
  t.equal(userRepos[4], '0.20', 'worst ratio');
  t.equal(userRepos[8], '`/list-rnd-user-repos-0`', 'the worst request named');
  t.equal(userRepos[9], 'MISSED (median 0.40; worst 0.20)', 'the family target judged on median and worst');
});

t.test('families: the target column uses the ratios the cases were judged on, and the worst p99', async (t) => {
  const side = (reqPerSec: number, p99Ms: number) => ({ reqPerSec, p99Ms, cpuUsPerRequest: null });
  // req/s ratios 0.2 (the bare server was not at its limit) but judged on CPU ratios 0.6 and 0.7: met.
  const judged = (name: string, judgedRatio: number, p99Ms = 5) => ({ name, path: `/${name}`, forgekit: side(200, p99Ms), bare: side(1000, 1), verdict: { judgedRatio } });
  const rows = families([judged('search-rnd-a-0', 0.6), judged('search-rnd-a-1', 0.7), judged('search-rnd-b-0', 0.6, 30)])
    .split('\n').slice(2).map((line) => line.split('|').map((x) => x.trim()));
  t.same(rows.map((r) => [r[1], r[9]]), [['a', 'met'], ['b', 'MISSED (p99 30.0 ms)']]);
  t.equal(rows[0]![5], '', 'no CPU ratio where none was measured');
});

t.test("families: a request whose bare server's own p99 reached the target is not judged on p99 (as its case is not)", async (t) => {
  const side = (reqPerSec: number, p99Ms: number) => ({ reqPerSec, p99Ms, cpuUsPerRequest: null });
  const c = (name: string, p99Ms: number, bareP99Ms: number) => ({ name, path: `/${name}`, forgekit: side(800, p99Ms), bare: side(1000, bareP99Ms), verdict: { judgedRatio: 0.8 } });
  const rows = families([
    // Family a: its stalled request (bare 40 ms) is left out, the other's 12 ms judged: met, with the note.
    c('search-rnd-a-0', 90, 40), c('search-rnd-a-1', 12, 8),
    // Family b: the stalled one left out, the judged one over the target: missed on it (not on the 90 ms).
    c('search-rnd-b-0', 90, 40), c('search-rnd-b-1', 30, 8),
    // Family c: every request stalled: p99 not judged at all.
    c('search-rnd-c-0', 90, 40),
  ]).split('\n').slice(2).map((line) => line.split('|').map((x) => x.trim()));
  const note = (n: number, of: number) => `(p99 not judged on ${n} of ${of} requests: the bare server's own p99 ≥ 25 ms, machine too busy)`;
  t.same(rows.map((r) => [r[1], r[7], r[9]]), [
    ['a', '90.0', `met ${note(1, 2)}`],
    ['b', '90.0', `MISSED (p99 30.0 ms) ${note(1, 2)}`],
    ['c', '90.0', `met ${note(1, 1)}`],
  ], 'the worst p99 column stays the raw worst; the verdict judges the rest');
});

t.test('the load generator check: a run where the bare server mostly stayed under half its core is flagged', async (t) => {
  const cases = (busy: Array<number | null>) => ({
    cases: busy.map((b, i) => (b === null
      ? { name: `c${i}`, status: 'failed' }
      : { name: `c${i}`, status: 'ok', bare: { cpuBusy: b } })) as unknown as Result['cases'],
  });
  t.same(loadCheck(cases([0.9, 0.4, 0.45, 0.95, null])), { unsaturated: 2, measured: 4, starved: true }, 'half unsaturated: starved');
  t.same(loadCheck(cases([0.9, 0.4, 0.8, 0.95])), { unsaturated: 1, measured: 4, starved: false }, 'a quarter: not yet');
  t.same(loadCheck(cases([0.5, 0.6])), { unsaturated: 0, measured: 2, starved: false }, 'exactly half busy counts as busy');
  t.same(loadCheck(cases([])), { unsaturated: 0, measured: 0, starved: false }, 'nothing measured: nothing flagged');
});
