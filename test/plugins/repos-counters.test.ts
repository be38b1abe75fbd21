// ReposService.incrementCounters: several counters of one repository in one store update (issues open and close move
// two), zero deltas left out, the search index's stars and forks kept in step.
import t from 'tap';
import type { ReposService } from '../../schemas/services.js';
import { jsonCaller, startForge } from '../helpers/forge.js';

t.test('a repository\'s counters moved together', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const call = jsonCaller(f);
  const alice = await f.createUser({ username: 'alice' });
  const a = await call('POST', '/user/repos', alice.token, { name: 'a' }, 201);
  const b = await call('POST', '/user/repos', alice.token, { name: 'b' }, 201);
  const repos = f.forge.service<ReposService>('repos');
  const updates = f.forge.store.collection('repos');
  const before = (await updates.findOne({ id: a.id }))!;

  await repos.incrementCounters(a.id, { numIssues: 3, numOpenIssues: 2, numStars: 4, numForks: 0 });
  const got = await call('GET', '/repos/alice/a', alice.token, undefined, 200);
  t.equal(got.open_issues_count, 2);
  t.equal(got.stars_count, 4);
  t.equal(got.forks_count, 0);
  const after = (await updates.findOne({ id: a.id }))!;
  t.equal(after.numIssues, 3, 'numIssues moved in the same update');
  t.not(after, before, 'a new stored version');

  // Nothing to move: no update at all (the stored version stays the same object on the embedded store).
  await repos.incrementCounters(a.id, { numIssues: 0 });
  if (!process.env.FORGEKIT_MONGODB_URI) t.equal(await updates.findOne({ id: a.id }), after, 'no write for zero deltas');

  // The search index saw the stars: sorted by stars, `a` comes before `b`.
  const search = await call('GET', '/repos/search?q=&sort=stars&order=desc&uid=' + alice.id, alice.token, undefined, 200);
  t.same(search.data.map((r: { name: string }) => r.name), ['a', 'b']);
  t.equal(b.stars_count, 0);

  // Back down, and the single-counter form still works.
  await repos.incrementCounters(a.id, { numIssues: -3, numOpenIssues: -2 });
  await repos.incrementCounter(a.id, 'numStars', -4);
  const back = await call('GET', '/repos/alice/a', alice.token, undefined, 200);
  t.equal(back.open_issues_count, 0);
  t.equal(back.stars_count, 0);
  const reordered = await call('GET', '/repos/search?q=&sort=stars&order=desc&uid=' + alice.id, alice.token, undefined, 200);
  t.same(reordered.data.map((r: { name: string }) => r.name), ['b', 'a'], 'ties by id, newest first, once the stars are gone');
});
