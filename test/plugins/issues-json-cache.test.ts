// Issue list pages are built from issue texts kept per stored version (plugins/issues/issue-json.ts). A kept text
// must always equal the issue as `GET /issues/{n}` renders it afresh, for every caller, after every change of the
// issue or of anything it shows (poster, assignees, labels, milestone), and a page seen twice
// unchanged must not be serialised again.
import t from 'tap';
import { startForge, jsonCaller } from '../helpers/forge.js';
import { issuesProbe } from '../helpers/issues-probe.js';

t.test('issue lists from kept texts', async (t) => {
  const { held, plugin: probe } = issuesProbe('issues-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice', email: 'alice@example.com' });
  const bob = await f.createUser({ username: 'bob', email: 'bob@example.com' });
  let repoPath = '/repos/alice/tracker';
  const call = jsonCaller(f);
  await call('POST', '/user/repos', alice.token, { name: 'tracker' }, 201);
  const bug = await call('POST', `${repoPath}/labels`, alice.token, { name: 'bug', color: '#ee0701' }, 201);
  const ms = await call('POST', `${repoPath}/milestones`, alice.token, { title: 'v1' }, 201);
  await call('PUT', `${repoPath}/collaborators/bob`, alice.token, { permission: 'write' }, 204);
  for (let i = 1; i <= 4; i++) {
    await call('POST', `${repoPath}/issues`, i % 2 ? alice.token : bob.token, {
      title: `issue ${i}`, body: `body ${i}`, labels: i <= 2 ? [bug.id] : [], milestone: i === 1 ? ms.id : undefined, assignees: i === 2 ? ['bob'] : undefined,
    }, 201);
  }
  const builds = () => held.issues.render.json.builds as number;

  /** The list as `token` sees it equals each issue rendered afresh for the same caller. */
  const agrees = async (what: string, token?: string) => {
    const list = await call('GET', `${repoPath}/issues?state=all&limit=50`, token);
    t.notOk(list.some((i: any) => i === null), `${what}: no hole`);
    t.equal(list.length, 4, `${what}: four issues`);
    for (const item of list) t.same(item, await call('GET', `${repoPath}/issues/${item.number}`, token), `${what}: #${item.number} as rendered afresh`);
    return list;
  };

  await agrees('anonymous');
  const afterFirst = builds();
  t.ok(afterFirst >= 4, 'the first page built every issue');
  await agrees('anonymous again');
  t.equal(builds(), afterFirst, 'an unchanged page is not serialised again');
  const search = await call('GET', '/repos/issues/search?state=all&limit=50', undefined);
  t.equal(search.length, 4, 'search shows them');
  t.equal(builds(), afterFirst, 'the search reuses the list\'s texts');

  // Email views: the poster's address shows to the poster and site admins only.
  const asAdmin = await agrees('admin', f.admin.token);
  t.equal(asAdmin.find((i: any) => i.number === 1).user.email, 'alice@example.com', 'an admin sees the address');
  const asBob = await agrees('bob', bob.token);
  t.not(asBob.find((i: any) => i.number === 1).user.email, 'alice@example.com', 'another user does not');
  t.equal(asBob.find((i: any) => i.number === 2).user.email, 'bob@example.com', 'bob sees his own');
  const anon = await agrees('anonymous after others');
  t.not(anon.find((i: any) => i.number === 2).user.email, 'bob@example.com', 'the anonymous view stays without it');

  // Every change of something an issue shows reaches the list.
  await call('PATCH', `${repoPath}/issues/3`, alice.token, { title: 'renamed issue' }, 201);
  t.equal((await agrees('issue edited')).find((i: any) => i.number === 3).title, 'renamed issue');
  await call('PATCH', '/user/settings', bob.token, { full_name: 'Bob Builder' });
  t.equal((await agrees('poster renamed')).find((i: any) => i.number === 2).user.full_name, 'Bob Builder');
  t.equal((await agrees('assignee renamed')).find((i: any) => i.number === 2).assignees[0].full_name, 'Bob Builder');
  await call('PATCH', `${repoPath}/labels/${bug.id}`, alice.token, { color: '#00ff00' });
  t.equal((await agrees('label recoloured')).find((i: any) => i.number === 1).labels[0].color, '00ff00');
  await call('PATCH', `${repoPath}/milestones/${ms.id}`, alice.token, { title: 'v1.0' });
  t.equal((await agrees('milestone renamed')).find((i: any) => i.number === 1).milestone.title, 'v1.0');
  await call('POST', `${repoPath}/issues/4/labels`, alice.token, { labels: [bug.id] });
  t.same((await agrees('label added')).find((i: any) => i.number === 4).labels.map((l: any) => l.name), ['bug']);

  // Comments: the per-issue page and the repository's page agree with each comment rendered afresh.
  const c1 = await call('POST', `${repoPath}/issues/1/comments`, bob.token, { body: 'first' }, 201);
  await call('POST', `${repoPath}/issues/1/comments`, alice.token, { body: 'second' }, 201);
  const commentsAgree = async (what: string, token?: string) => {
    const list = await call('GET', `${repoPath}/issues/1/comments`, token);
    const all = await call('GET', `${repoPath}/issues/comments`, token);
    t.equal(list.length, 2, `${what}: two comments`);
    t.same(all, list, `${what}: the repository's page shows the same`);
    for (const item of list) t.same(item, await call('GET', `${repoPath}/issues/comments/${item.id}`, token), `${what}: comment ${item.id} as rendered afresh`);
    return list;
  };
  await commentsAgree('comments, anonymous');
  const commentBuilds = () => held.issues.render.commentJson.builds as number;
  const before = commentBuilds();
  await commentsAgree('comments again');
  t.equal(commentBuilds(), before, 'unchanged comments are not serialised again');
  t.equal((await commentsAgree('comments, bob', bob.token))[0].user.email, 'bob@example.com', 'the poster sees his address');
  t.not((await commentsAgree('comments, alice', alice.token))[0].user.email, 'bob@example.com', 'others do not');
  await call('PATCH', `${repoPath}/issues/comments/${c1.id}`, bob.token, { body: 'edited' });
  t.equal((await commentsAgree('comment edited'))[0].body, 'edited');
  await call('PATCH', '/user/settings', bob.token, { full_name: 'Robert' });
  t.equal((await commentsAgree('commenter renamed'))[0].user.full_name, 'Robert');
});

t.test('jsonCacheEntries 0 renders every page afresh', async (t) => {
  const f = await startForge({ config: { plugins: { issues: { jsonCacheEntries: 0 } } } });
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'r' } })).status, 201);
  t.equal((await f.request('POST', '/repos/alice/r/issues', { token: alice.token, json: { title: 'one' } })).status, 201);
  const list = await f.request('GET', '/repos/alice/r/issues');
  t.equal(list.status, 200);
  t.same(list.json.map((i: any) => i.title), ['one']);
  t.same(list.json[0], (await f.request('GET', '/repos/alice/r/issues/1')).json, 'same object');
});
