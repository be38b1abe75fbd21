// Per-unit team access (Gitea's team units / units_map), through HTTP: a team's access to code (contents, git data,
// pushes), issues, pulls and releases is its unit's, not its overall permission — a team with write on code but read
// on issues pushes files yet may not close others' issues; a team with only issues gets 403 on code and 404 on pulls;
// a team without the issues unit gets 404 on issue routes of a private repository, while a public repository still
// gives every signed-in user read on every unit.
import t from 'tap';
import { startForge, expectStatus } from '../helpers/forge.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('team units', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const owner = await f.createUser({ username: 'uowner' });
  const coder = await f.createUser({ username: 'ucoder' });
  const tracker = await f.createUser({ username: 'utracker' });
  const codeOnly = await f.createUser({ username: 'ucodeonly' });
  const reviewer = await f.createUser({ username: 'ureviewer' });
  const ok = expectStatus;
  await ok(f.request('POST', '/orgs', { token: owner.token, json: { username: 'uorg' } }), 201);
  await ok(f.request('POST', '/org/uorg/repos', { token: owner.token, json: { name: 'secret', private: true, auto_init: true } }), 201);
  await ok(f.request('POST', '/org/uorg/repos', { token: owner.token, json: { name: 'open', auto_init: true } }), 201);
  const teams = {
    coders: { units_map: { 'repo.code': 'write', 'repo.issues': 'read', 'repo.pulls': 'read', 'repo.releases': 'read' } },
    trackers: { units_map: { 'repo.code': 'none', 'repo.issues': 'write' } },
    codeonly: { permission: 'write', units: ['repo.code'] },
    reviewers: { units_map: { 'repo.code': 'read', 'repo.pulls': 'read' } },
  } as const;
  const members = { coders: coder, trackers: tracker, codeonly: codeOnly, reviewers: reviewer };
  for (const [name, body] of Object.entries(teams)) {
    const team = await ok(f.request('POST', '/orgs/uorg/teams', { token: owner.token, json: { name, permission: 'read', ...body } }), 201);
    await ok(f.request('PUT', `/teams/${team.json.id}/members/${members[name as keyof typeof members].username}`, { token: owner.token }), 204);
    for (const repo of ['secret', 'open']) await ok(f.request('PUT', `/teams/${team.json.id}/repos/uorg/${repo}`, { token: owner.token }), 204);
  }
  await ok(f.request('POST', '/repos/uorg/secret/issues', { token: owner.token, json: { title: 'owner issue' } }), 201);
  const R = '/repos/uorg/secret';

  t.test('code write, issues read', async (t) => {
    const coders = await f.request('GET', '/orgs/uorg/teams', { token: owner.token });
    t.match(coders.json.find((x: any) => x.name === 'coders'), { permission: 'read', units_map: { 'repo.code': 'write', 'repo.issues': 'read' } });
    const repo = await f.request('GET', R, { token: coder.token });
    t.equal(repo.status, 200);
    t.same(repo.json.permissions, { admin: false, push: true, pull: true }, "push and pull follow the code unit (Gitea's ToRepo)");
    const listed = await f.request('GET', '/repos/search?q=secret', { token: coder.token });
    t.same(listed.json.data.map((r: any) => r.permissions), [{ admin: false, push: true, pull: true }], 'in lists too');
    const file = await f.request('POST', `${R}/contents/new.txt`, { token: coder.token, json: { content: b64('hi\n'), message: 'add' } });
    t.equal(file.status, 201, 'the code unit at write: a file is committed');
    t.equal((await f.request('POST', `${R}/branches`, { token: coder.token, json: { new_branch_name: 'feature' } })).status, 201, 'and a branch made');
    t.equal((await f.request('GET', `${R}/issues`, { token: coder.token })).status, 200, 'issues readable');
    t.equal((await f.request('POST', `${R}/issues`, { token: coder.token, json: { title: 'mine' } })).status, 201, 'readers may open issues');
    t.equal((await f.request('PATCH', `${R}/issues/1`, { token: coder.token, json: { state: 'closed' } })).status, 403, "but not close others'");
    t.equal((await f.request('GET', `${R}/pulls`, { token: coder.token })).status, 200);
    t.equal((await f.request('GET', `${R}/releases`, { token: coder.token })).status, 200);
    t.equal((await f.request('POST', `${R}/releases`, { token: coder.token, json: { tag_name: 'v1' } })).status, 403, 'releases at read');
  });

  t.test('issues write, no code, no pulls', async (t) => {
    const repo = await f.request('GET', R, { token: tracker.token });
    t.equal(repo.status, 200, 'the repository is visible');
    t.same(repo.json.permissions, { admin: false, push: false, pull: false }, 'no code unit: no pull');
    t.equal((await f.request('PATCH', `${R}/issues/1`, { token: tracker.token, json: { state: 'closed' } })).status, 201, 'issues at write');
    t.equal((await f.request('GET', `${R}/contents`, { token: tracker.token })).status, 403, 'no code unit: 403 (reqRepoReader)');
    t.equal((await f.request('GET', `${R}/raw/README.md`, { token: tracker.token })).status, 403);
    t.equal((await f.request('POST', `${R}/contents/x.txt`, { token: tracker.token, json: { content: b64('x') } })).status, 403);
    t.equal((await f.request('GET', `${R}/pulls`, { token: tracker.token })).status, 404, 'no pulls unit: 404 (mustAllowPulls)');
    t.equal((await f.request('GET', `${R}/releases`, { token: tracker.token })).status, 403);
    const clone = await f.request('GET', '/uorg/secret.git/info/refs?service=git-upload-pack', { root: true, basic: ['utracker', tracker.password] });
    t.not(clone.status, 200, 'no clone without the code unit');
  });

  t.test('a units list without issues: 404 on issue routes', async (t) => {
    t.equal((await f.request('GET', `${R}/contents/new.txt`, { token: codeOnly.token })).status, 200);
    t.equal((await f.request('POST', `${R}/contents/other.txt`, { token: codeOnly.token, json: { content: b64('x') } })).status, 201, 'code at write');
    t.equal((await f.request('GET', `${R}/issues`, { token: codeOnly.token })).status, 404);
    t.equal((await f.request('GET', `${R}/issues/1`, { token: codeOnly.token })).status, 404);
    t.equal((await f.request('GET', `${R}/issues/1/assets`, { token: codeOnly.token })).status, 404, 'nor its attachments');
    t.equal((await f.request('GET', `${R}/issues/1/assets`, { token: tracker.token })).status, 200);
    t.equal((await f.request('POST', `${R}/issues`, { token: codeOnly.token, json: { title: 'no' } })).status, 404);
    t.equal((await f.request('GET', `${R}/pulls`, { token: codeOnly.token })).status, 404);
  });

  t.test('pulls without issues: the issue list shows pull requests only', async (t) => {
    const list = await f.request('GET', `${R}/issues?state=all`, { token: reviewer.token });
    t.equal(list.status, 200);
    t.same(list.json, [], "the owner's issue is not listed");
    t.equal((await f.request('GET', `${R}/issues?type=issues`, { token: reviewer.token })).status, 404);
    t.equal((await f.request('GET', `${R}/issues?type=pulls`, { token: reviewer.token })).status, 200);
    t.equal((await f.request('GET', `${R}/issues/1`, { token: reviewer.token })).status, 404);
    t.equal((await f.request('GET', `${R}/pulls`, { token: reviewer.token })).status, 200);
  });

  t.test('issue search leaves out what a unit hides', async (t) => {
    const titles = async (token: string) => {
      const res = await f.request('GET', '/repos/issues/search?q=owner&state=all&limit=50', { token });
      return { titles: res.json.map((i: any) => i.title), total: res.headers.get('x-total-count') };
    };
    t.same(await titles(codeOnly.token), { titles: [], total: '0' }, 'no issues unit: none of its issues');
    t.same(await titles(tracker.token), { titles: ['owner issue'], total: '1' });
    t.same(await titles(coder.token), { titles: ['owner issue'], total: '1' });
  });

  t.test("the repository's comment list shows the kinds the caller's units read (Gitea's ListRepoIssueComments)", async (t) => {
    const base = (await ok(f.request('GET', R, { token: owner.token }), 200)).json.default_branch;
    await ok(f.request('POST', `${R}/contents/unit-change.txt`, { token: owner.token, json: { content: Buffer.from('x\n').toString('base64'), new_branch: 'unit-change', branch: base } }), 201);
    const pull = (await ok(f.request('POST', `${R}/pulls`, { token: owner.token, json: { head: 'unit-change', base, title: 'a change' } }), 201)).json;
    await ok(f.request('POST', `${R}/issues/1/comments`, { token: owner.token, json: { body: 'on the issue' } }), 201);
    await ok(f.request('POST', `${R}/issues/${pull.number}/comments`, { token: owner.token, json: { body: 'on the pull request' } }), 201);
    const bodies = async (token: string) => {
      const res = await f.request('GET', `${R}/issues/comments`, { token });
      return res.status === 200 ? { bodies: res.json.map((c: any) => c.body), total: res.headers.get('x-total-count') } : res.status;
    };
    t.same(await bodies(coder.token), { bodies: ['on the issue', 'on the pull request'], total: '2' }, 'issues and pulls: both');
    t.same(await bodies(tracker.token), { bodies: ['on the issue'], total: '1' }, 'issues only: the issue comment');
    t.same(await bodies(reviewer.token), { bodies: ['on the pull request'], total: '1' }, 'pulls only: the pull request comment');
    t.equal(await bodies(codeOnly.token), 404, 'neither: 404');
  });

  t.test('attachment downloads follow the unit of what they are attached to', async (t) => {
    const upload = async (url: string, name: string) => {
      const boundary = `----units${Math.random().toString(16).slice(2)}`;
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        Buffer.from(`contents of ${name}`), Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const res = await fetch(`${f.api}${url}`, { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, Authorization: `token ${owner.token}` }, body: new Uint8Array(body) });
      if (res.status !== 201) throw new Error(`setup: upload ${res.status} ${await res.text()}`);
      return (await res.json()).browser_download_url as string;
    };
    const issueFile = await upload(`${R}/issues/1/assets`, 'issue.log');
    await ok(f.request('POST', `${R}/releases`, { token: owner.token, json: { tag_name: 'v1.0', name: 'one' } }), 201);
    const release = (await ok(f.request('GET', `${R}/releases/tags/v1.0`, { token: owner.token }), 200)).json;
    const releaseFile = await upload(`${R}/releases/${release.id}/assets`, 'app.bin');
    const status = async (url: string, token: string) => (await fetch(url, { headers: { Authorization: `token ${token}` } })).status;
    t.equal(await status(issueFile, tracker.token), 200, 'issues unit: the issue file');
    t.equal(await status(issueFile, reviewer.token), 404, 'no issues unit: not the issue file');
    t.equal(await status(releaseFile, coder.token), 200, 'releases unit: the release file');
    t.equal(await status(releaseFile, tracker.token), 404, 'no releases unit: not the release file');
    t.equal(await status(releaseFile, owner.token), 200, 'the owner: every file');
  });

  t.test('a public repository gives read on every unit to everyone', async (t) => {
    t.equal((await f.request('GET', '/repos/uorg/open/contents', { token: tracker.token })).status, 200);
    t.equal((await f.request('GET', '/repos/uorg/open/issues', { token: codeOnly.token })).status, 200);
    t.equal((await f.request('GET', '/repos/uorg/open/pulls', { token: tracker.token })).status, 200);
    t.equal((await f.request('POST', '/repos/uorg/open/contents/y.txt', { token: tracker.token, json: { content: b64('y') } })).status, 403, 'but no write');
  });

  t.test('owners and site admins reach every unit', async (t) => {
    t.equal((await f.request('GET', `${R}/contents`, { token: owner.token })).status, 200);
    t.equal((await f.request('GET', `${R}/pulls`, { token: f.admin.token })).status, 200);
  });
});
