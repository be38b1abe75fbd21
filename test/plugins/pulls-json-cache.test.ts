// Pull request lists are built from each pull request's own text kept while nothing it shows changed
// (plugins/pulls/pull-json.ts) around its repositories' kept JSON. A listed pull request must always equal
// `GET /pulls/{n}` rendered afresh, for every caller, after every change of the pull request or of anything it shows
// (title, poster, labels, review requests and reviewers, review comments, the merge and the merger, the head branch),
// and a page seen twice unchanged must not be serialised again.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { jsonCaller, startForge } from '../helpers/forge.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('pull request lists from kept texts', async (t) => {
  const held: { pulls?: any } = {};
  const probe = definePlugin({ name: 'pulls-probe', dependencies: ['pulls'], start(ctx) { held.pulls = ctx.services.get('pulls'); } });
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice', email: 'alice@example.com' });
  const bob = await f.createUser({ username: 'bob', email: 'bob@example.com' });
  const carol = await f.createUser({ username: 'carol', email: 'carol@example.com' });
  const call = jsonCaller(f);
  const base = '/repos/alice/prs';
  await call('POST', '/user/repos', alice.token, { name: 'prs', auto_init: true, readme: 'Default' }, 201);
  await call('PUT', `${base}/collaborators/bob`, alice.token, { permission: 'write' }, 204);
  await call('PUT', `${base}/collaborators/carol`, alice.token, { permission: 'write' }, 204);
  for (let i = 1; i <= 3; i++) {
    const who = i === 2 ? bob : alice;
    await call('POST', `${base}/contents/f${i}.txt`, who.token, { content: b64(`file ${i}\n`), branch: 'master', new_branch: `b${i}`, message: `add f${i}` }, 201);
    await call('POST', `${base}/pulls`, who.token, { head: `b${i}`, base: 'master', title: `change ${i}` }, 201);
  }
  const builds = () => held.pulls.render.cache.builds as number;

  /** The list as `token` sees it equals each pull request rendered afresh for the same caller. */
  const agrees = async (what: string, token?: string) => {
    // Background mergeability checks (after a push or a merge) settle first: the list and the GETs read one state.
    await held.pulls.queue.idle();
    const list = await call('GET', `${base}/pulls?state=all&limit=50`, token);
    t.equal(list.length, 3, `${what}: three pull requests`);
    for (const item of list) t.same(item, await call('GET', `${base}/pulls/${item.number}`, token), `${what}: #${item.number} as rendered afresh`);
    return list;
  };
  const pull = (list: any[], n: number) => list.find((p) => p.number === n);

  await agrees('anonymous');
  const afterFirst = builds();
  t.equal(afterFirst, 3, 'the first page built every pull request');
  await agrees('anonymous again');
  t.equal(builds(), afterFirst, 'an unchanged page is not serialised again');

  // Email views: a poster's address shows to the poster and site admins only.
  t.equal(pull(await agrees('admin', f.admin.token), 1).user.email, 'alice@example.com', 'an admin sees the address');
  t.not(pull(await agrees('bob', bob.token), 1).user.email, 'alice@example.com', 'another user does not');
  t.equal(pull(await agrees('bob again', bob.token), 2).user.email, 'bob@example.com', 'bob sees his own');
  t.not(pull(await agrees('anonymous after others'), 2).user.email, 'bob@example.com', 'the anonymous view stays without it');

  // Every change of something a pull request shows reaches the list.
  await call('PATCH', `${base}/pulls/3`, alice.token, { title: 'WIP: renamed' }, 201);
  const renamed = pull(await agrees('title edited'), 3);
  t.same([renamed.title, renamed.draft], ['WIP: renamed', true]);
  await call('PATCH', '/user/settings', bob.token, { full_name: 'Bob Builder' });
  t.equal(pull(await agrees('poster renamed'), 2).user.full_name, 'Bob Builder');
  const label = await call('POST', `${base}/labels`, alice.token, { name: 'bug', color: '#ee0701' }, 201);
  await call('POST', `${base}/issues/1/labels`, alice.token, { labels: [label.id] });
  t.same(pull(await agrees('label added'), 1).labels.map((l: any) => l.name), ['bug']);
  await call('PATCH', `${base}/labels/${label.id}`, alice.token, { color: '#00ff00' });
  t.equal(pull(await agrees('label recoloured'), 1).labels[0].color, '00ff00');

  await call('POST', `${base}/pulls/1/requested_reviewers`, alice.token, { reviewers: ['carol'] }, 201);
  t.same(pull(await agrees('review requested'), 1).requested_reviewers.map((u: any) => u.login), ['carol']);
  t.equal(pull(await agrees('the reviewer sees her address', carol.token), 1).requested_reviewers[0].email, 'carol@example.com');
  t.not(pull(await agrees('others do not', bob.token), 1).requested_reviewers[0].email, 'carol@example.com');
  await call('PATCH', '/user/settings', carol.token, { full_name: 'Carol Checker' });
  t.equal(pull(await agrees('reviewer renamed'), 1).requested_reviewers[0].full_name, 'Carol Checker');

  const review = await call('POST', `${base}/pulls/1/reviews`, carol.token, { event: 'COMMENT', body: 'a note', comments: [{ path: 'f1.txt', body: 'here', new_position: 1 }] }, 200);
  t.ok(review.id, 'a review with a comment');
  const reviewed = pull(await agrees('review comment added'), 1);
  t.equal(reviewed.review_comments, 1);
  // A second review, then deleting it: its comment goes and the count falls back.
  const second = await call('POST', `${base}/pulls/1/reviews`, carol.token, { event: 'PENDING', comments: [{ path: 'f1.txt', body: 'draft', new_position: 1 }] }, 200);
  const pending = pull(await agrees('pending review comment', carol.token), 1).review_comments;
  await call('DELETE', `${base}/pulls/1/reviews/${second.id}`, carol.token, undefined, 204);
  t.equal(pull(await agrees('review deleted', carol.token), 1).review_comments, 1, `the deleted review's comment is no longer counted (was ${pending})`);

  const file = await call('GET', `${base}/contents/f2.txt?ref=b2`, bob.token);
  await call('PUT', `${base}/contents/f2.txt`, bob.token, { content: b64('file 2, again\n'), sha: file.sha, branch: 'b2', message: 'more' }, 200);
  const pushed = pull(await agrees('head branch moved'), 2);
  t.equal(pushed.head.sha, (await call('GET', `${base}/branches/b2`, undefined)).commit.id, 'the new head');

  const merged = await f.request('POST', `${base}/pulls/2/merge`, { token: carol.token, json: { Do: 'merge' } });
  t.equal(merged.status, 200, merged.text);
  const afterMerge = pull(await agrees('merged'), 2);
  t.same([afterMerge.merged, afterMerge.merged_by.login, afterMerge.state], [true, 'carol', 'closed']);
  t.equal(pull(await agrees('the merger sees her address', carol.token), 2).merged_by.email, 'carol@example.com');
  await call('PATCH', '/user/settings', carol.token, { full_name: 'Carol Merger' });
  t.equal(pull(await agrees('merger renamed'), 2).merged_by.full_name, 'Carol Merger');

  const steady = builds();
  await agrees('unchanged once more');
  t.equal(builds(), steady, 'nothing changed: nothing serialised');
});

t.test('jsonCacheEntries 0 renders every page afresh', async (t) => {
  const held: { pulls?: any } = {};
  const probe = definePlugin({ name: 'pulls-probe', dependencies: ['pulls'], start(ctx) { held.pulls = ctx.services.get('pulls'); } });
  const f = await startForge({ extraPlugins: [probe], config: { plugins: { pulls: { jsonCacheEntries: 0 } } } });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const call = jsonCaller(f);
  await call('POST', '/user/repos', alice.token, { name: 'r', auto_init: true, readme: 'Default' }, 201);
  await call('POST', '/repos/alice/r/contents/a.txt', alice.token, { content: b64('a\n'), branch: 'master', new_branch: 'a', message: 'a' }, 201);
  await call('POST', '/repos/alice/r/pulls', alice.token, { head: 'a', base: 'master', title: 'one' }, 201);
  for (let i = 1; i <= 2; i++) {
    const list = await call('GET', '/repos/alice/r/pulls', undefined);
    t.same(list.map((p: any) => p.title), ['one']);
    t.same(list[0], await call('GET', '/repos/alice/r/pulls/1', undefined), 'same object');
    t.equal(held.pulls.render.cache.builds, i, `page ${i}: made again`);
    t.equal(held.pulls.render.cache.size, 0, 'nothing kept');
  }
});
