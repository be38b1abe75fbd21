// notifications plugin through HTTP: threads made from issue events for watchers, subscribers (posters, commenters),
// assignees and @mentions, never for the doer; one thread per issue made unread again by later events (pinned stays
// pinned); list filters (status, subject type, since/before), marking read per thread, per repository and all; the
// unread count; and a user who can no longer read a repository sees none of its threads, with exact counts.
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

t.test('notifications', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser();
  const bob = await f.createUser();
  const carol = await f.createUser();
  const dave = await f.createUser();
  const repo = await createRepo(f, alice, 'proj');
  const full = repo.full_name;
  t.equal((await f.request('PUT', `/repos/${full}/subscription`, { token: bob.token })).status, 200);
  const threads = async (u: TestUser, query = '') => {
    const res = await f.request('GET', `/notifications${query}`, { token: u.token });
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return { list: res.json as any[], total: Number(res.headers.get('x-total-count')) };
  };
  const unread = async (u: TestUser) => (await f.request('GET', '/notifications/new', { token: u.token })).json.new;

  t.test('anonymous callers get 401', async (t) => {
    t.equal((await f.request('GET', '/notifications')).status, 401);
    t.equal((await f.request('GET', '/notifications/new')).status, 401);
    t.equal((await f.request('PUT', '/notifications')).status, 401);
  });

  let issue: any;
  t.test('an opened issue notifies the repository\'s watchers, not the doer', async (t) => {
    issue = (await f.request('POST', `/repos/${full}/issues`, { token: bob.token, json: { title: 'Broken', body: 'it broke' } })).json;
    const a = await threads(alice);
    t.equal(a.total, 1);
    t.match(a.list[0], {
      unread: true, pinned: false, repository: { full_name: full },
      subject: { title: 'Broken', type: 'Issue', state: 'open', url: `${f.api}/repos/${full}/issues/${issue.number}`, html_url: issue.html_url, latest_comment_url: '' },
    });
    t.equal(a.list[0].url, `${f.api}/notifications/threads/${a.list[0].id}`);
    t.equal((await threads(bob)).total, 0, 'the doer hears nothing');
    t.equal((await threads(carol)).total, 0);
    t.equal(await unread(alice), 1);
  });

  t.test('a comment notifies the issue\'s subscribers and @mentioned users; one thread per issue', async (t) => {
    const c = (await f.request('POST', `/repos/${full}/issues/${issue.number}/comments`, { token: alice.token, json: { body: `thanks, @${carol.username} can you look?` } })).json;
    const b = await threads(bob);
    t.equal(b.total, 1, 'the poster is subscribed');
    t.equal(b.list[0].subject.latest_comment_url, `${f.api}/repos/${full}/issues/comments/${c.id}`);
    const cl = await threads(carol);
    t.equal(cl.total, 1, 'mentioned');
    t.equal((await threads(alice)).total, 1, 'still one thread, the doer\'s not refreshed to unread by her own comment');
  });

  t.test('read, pinned, unread again; filters', async (t) => {
    const id = (await threads(alice)).list[0].id;
    // 205 Reset Content, as Gitea (fetch drops a 205's body, as HTTP says a 205 has none: read the thread back).
    const marked = await f.request('PATCH', `/notifications/threads/${id}?to-status=read`, { token: alice.token });
    t.equal(marked.status, 205);
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: alice.token })).json.unread, false);
    t.equal(await unread(alice), 0);
    t.equal((await threads(alice)).total, 0, 'the default list is unread and pinned');
    t.equal((await threads(alice, '?all=true')).total, 1);
    t.equal((await threads(alice, '?status-types=read')).total, 1);
    t.equal((await threads(alice, '?status-types=read&status-types=unread')).total, 1);
    t.equal((await threads(alice, '?all=true&subject-type=pull')).total, 0);
    t.equal((await threads(alice, '?all=true&subject-type=issue&subject-type=pull')).total, 1);
    t.equal((await threads(alice, '?all=true&since=2999-01-01T00:00:00Z')).total, 0);
    t.equal((await threads(alice, '?all=true&before=2000-01-01T00:00:00Z')).total, 0);
    t.equal((await threads(alice, '?all=true&since=2000-01-01T00:00:00Z')).total, 1);
    t.equal((await f.request('GET', '/notifications?status-types=bogus', { token: alice.token })).status, 422);
    t.equal((await f.request('GET', '/notifications?since=yesterday', { token: alice.token })).status, 422);

    await f.request('POST', `/repos/${full}/issues/${issue.number}/comments`, { token: bob.token, json: { body: 'more' } });
    t.equal(await unread(alice), 1, 'a later event makes it unread again');
    t.equal((await threads(alice, '?all=true')).total, 1, 'still one thread');

    t.equal((await f.request('PATCH', `/notifications/threads/${id}?to-status=pinned`, { token: alice.token })).status, 205);
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: alice.token })).json.pinned, true);
    await f.request('POST', `/repos/${full}/issues/${issue.number}/comments`, { token: bob.token, json: { body: 'again' } });
    const pinned = (await threads(alice)).list[0];
    t.equal(pinned.pinned, true, 'pinned stays pinned');
    t.equal(pinned.unread, false);
    await f.request('PATCH', `/notifications/threads/${id}?to-status=unread`, { token: alice.token });
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: alice.token })).json.unread, true);
  });

  t.test('closing refreshes every thread\'s state; threads of others are 403, admins may read them', async (t) => {
    t.equal((await f.request('PATCH', `/repos/${full}/issues/${issue.number}`, { token: bob.token, json: { state: 'closed' } })).status, 201);
    t.equal((await threads(carol)).list[0].subject.state, 'closed', 'carol (mentioned, not notified of the close) sees the state');
    const id = (await threads(alice)).list[0].id;
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: alice.token })).status, 200);
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: bob.token })).status, 403);
    t.equal((await f.request('PATCH', `/notifications/threads/${id}`, { token: bob.token })).status, 403);
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: f.admin.token })).status, 200);
    t.equal((await f.request('GET', '/notifications/threads/999999', { token: alice.token })).status, 404);
  });

  t.test('assignees hear about their assignment', async (t) => {
    await f.request('PUT', `/repos/${full}/collaborators/${dave.username}`, { token: alice.token, json: { permission: 'write' } });
    const i2 = (await f.request('POST', `/repos/${full}/issues`, { token: alice.token, json: { title: 'Assigned' } })).json;
    t.equal((await f.request('PATCH', `/repos/${full}/issues/${i2.number}`, { token: alice.token, json: { assignees: [dave.username] } })).status, 201);
    t.same((await threads(dave)).list.map((x) => x.subject.title), ['Assigned']);
  });

  t.test('a submitted review notifies the pull request\'s watchers and participants', async (t) => {
    const base = await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'reviewed', auto_init: true } });
    t.equal(base.status, 201);
    const rfull = base.json.full_name;
    t.equal((await f.request('PUT', `/repos/${rfull}/collaborators/${dave.username}`, { token: alice.token, json: { permission: 'write' } })).status, 204);
    t.equal((await f.request('POST', `/repos/${rfull}/contents/change.txt`, {
      token: alice.token, json: { content: Buffer.from('change\n').toString('base64'), message: 'change', new_branch: 'change' },
    })).status, 201);
    const pr = await f.request('POST', `/repos/${rfull}/pulls`, { token: alice.token, json: { head: 'change', base: base.json.default_branch, title: 'Please review' } });
    t.equal(pr.status, 201);
    const before = (await threads(alice)).list.filter((x) => x.subject.title === 'Please review');
    t.same(before, [], 'opening her own pull request tells alice nothing');
    t.equal((await f.request('POST', `/repos/${rfull}/pulls/${pr.json.number}/reviews`, { token: dave.token, json: { event: 'APPROVED', body: 'lgtm' } })).status, 200);
    const after = (await threads(alice)).list.filter((x) => x.subject.title === 'Please review');
    t.equal(after.length, 1, 'the review reaches the poster');
    t.match(after[0], { unread: true, subject: { type: 'Pull', state: 'open', url: `${f.api}/repos/${rfull}/pulls/${pr.json.number}` } });
    t.same((await threads(dave)).list.filter((x) => x.subject.title === 'Please review'), [], 'not the reviewer');
  });

  t.test('marking all read, per repository and everywhere', async (t) => {
    const other = await createRepo(f, alice, 'other');
    await f.request('PUT', `/repos/${other.full_name}/subscription`, { token: bob.token });
    await f.request('POST', `/repos/${other.full_name}/issues`, { token: alice.token, json: { title: 'Elsewhere' } });
    const before = await unread(bob);
    t.ok(before >= 2);
    const repoList = await f.request('GET', `/repos/${other.full_name}/notifications`, { token: bob.token });
    t.same(repoList.json.map((x: any) => x.subject.title), ['Elsewhere']);
    const marked = await f.request('PUT', `/repos/${other.full_name}/notifications`, { token: bob.token });
    t.equal(marked.status, 205);
    t.equal(marked.headers.get('x-total-count'), '1');
    t.same((await f.request('GET', `/repos/${other.full_name}/notifications?all=true`, { token: bob.token })).json.map((x: any) => [x.subject.title, x.unread]), [['Elsewhere', false]]);
    t.equal(await unread(bob), before - 1);
    t.equal((await f.request('PUT', '/notifications?last_read_at=2000-01-01T00:00:00Z', { token: bob.token })).headers.get('x-total-count'), '0', 'nothing that old');
    const all = await f.request('PUT', '/notifications', { token: bob.token });
    t.equal(all.status, 205);
    t.equal(all.headers.get('x-total-count'), String(before - 1));
    t.equal(await unread(bob), 0);
    const back = await f.request('PUT', '/notifications?all=true&to-status=unread', { token: bob.token });
    t.equal(back.status, 205);
    t.equal(await unread(bob), before);
  });

  t.test('private repositories: only readers are notified, and a reader who loses access sees nothing', async (t) => {
    const secret = await createRepo(f, alice, 'secret', true);
    await f.request('PUT', `/repos/${secret.full_name}/collaborators/${dave.username}`, { token: alice.token, json: { permission: 'read' } });
    t.equal((await f.request('PUT', `/repos/${secret.full_name}/subscription`, { token: dave.token })).status, 200);
    const daveBefore = (await threads(dave, '?all=true')).total;
    await f.request('POST', `/repos/${secret.full_name}/issues`, { token: alice.token, json: { title: 'Hidden', body: `@${carol.username} look` } });
    t.equal((await threads(dave, '?all=true')).total, daveBefore + 1);
    t.notOk((await threads(carol, '?all=true')).list.some((x) => x.subject.title === 'Hidden'), 'a mention does not reach a non-reader');
    const id = (await threads(dave)).list.find((x) => x.subject.title === 'Hidden').id;
    const unreadBefore = await unread(dave);
    t.equal((await f.request('DELETE', `/repos/${secret.full_name}/collaborators/${dave.username}`, { token: alice.token })).status, 204);
    const after = await threads(dave, '?all=true');
    t.equal(after.total, daveBefore, 'exact count without the unreadable repository');
    t.notOk(after.list.some((x) => x.subject.title === 'Hidden'));
    t.equal(await unread(dave), unreadBefore - 1);
    t.equal((await f.request('GET', `/notifications/threads/${id}`, { token: dave.token })).status, 404);
    t.equal((await f.request('GET', `/repos/${secret.full_name}/notifications`, { token: dave.token })).status, 404);
    t.equal((await f.request('PUT', `/repos/${secret.full_name}/notifications`, { token: dave.token })).status, 404);
    await f.request('PUT', `/repos/${secret.full_name}/collaborators/${dave.username}`, { token: alice.token, json: { permission: 'read' } });
    t.equal((await threads(dave, '?all=true')).total, daveBefore + 1, 'visible again with access');
  });

  t.test('deleting a repository removes its threads', async (t) => {
    const before = await threads(bob, '?all=true');
    const inRepo = before.list.filter((x) => x.repository.full_name === full).length;
    t.equal(inRepo, 2);
    t.equal((await f.request('DELETE', `/repos/${full}`, { token: alice.token })).status, 204);
    t.equal((await threads(bob, '?all=true')).total, before.total - inRepo);
  });

  t.test('unsubscribing from an issue silences it, even for a watcher of the repository (Gitea\'s is_watching)', async (t) => {
    const qfull = (await createRepo(f, alice, 'quiet')).full_name;
    t.equal((await f.request('PUT', `/repos/${qfull}/subscription`, { token: bob.token })).status, 200);
    const quiet = (await f.request('POST', `/repos/${qfull}/issues`, { token: alice.token, json: { title: 'Quiet please' } })).json;
    const loud = (await f.request('POST', `/repos/${qfull}/issues`, { token: alice.token, json: { title: 'Loud' } })).json;
    const check = async () => (await f.request('GET', `/repos/${qfull}/issues/${quiet.number}/subscriptions/check`, { token: bob.token })).json.subscribed;
    t.equal(await check(), true, 'bob watches the repository: subscribed');
    t.equal((await f.request('DELETE', `/repos/${qfull}/issues/${quiet.number}/subscriptions/${bob.username}`, { token: bob.token })).status, 201, 'unsubscribed');
    t.equal((await f.request('DELETE', `/repos/${qfull}/issues/${quiet.number}/subscriptions/${bob.username}`, { token: bob.token })).status, 200, 'already');
    t.equal(await check(), false);
    t.notOk((await f.request('GET', `/repos/${qfull}/issues/${quiet.number}/subscriptions`)).json.some((u: any) => u.login === bob.username));
    t.equal((await f.request('PUT', '/notifications', { token: bob.token })).status, 205);
    await f.request('POST', `/repos/${qfull}/issues/${quiet.number}/comments`, { token: alice.token, json: { body: 'shh' } });
    await f.request('POST', `/repos/${qfull}/issues/${loud.number}/comments`, { token: alice.token, json: { body: 'HEY' } });
    const unreadTitles = (await threads(bob, '?status-types=unread')).list.map((x) => x.subject.title);
    t.ok(unreadTitles.includes('Loud'), 'the other issue still reaches the watcher');
    t.notOk(unreadTitles.includes('Quiet please'), 'the unsubscribed issue does not');
    // Commenting does not subscribe again (the explicit choice stands); subscribing again does.
    await f.request('POST', `/repos/${qfull}/issues/${quiet.number}/comments`, { token: bob.token, json: { body: 'fine' } });
    t.equal(await check(), false, 'a comment keeps the unsubscribe');
    t.equal((await f.request('PUT', `/repos/${qfull}/issues/${quiet.number}/subscriptions/${bob.username}`, { token: bob.token })).status, 201);
    t.equal(await check(), true);
    await f.request('POST', `/repos/${qfull}/issues/${quiet.number}/comments`, { token: alice.token, json: { body: 'back' } });
    t.ok((await threads(bob, '?status-types=unread')).list.some((x) => x.subject.title === 'Quiet please'), 'subscribed again: notified');
  });
});
