// Archived repositories answer 423 Locked where Gitea's API has mustNotBeArchived (file writes, branch, tag and
// protection-rule changes, new issues, new and edited comments, mirror-sync); reads and the other writes stay open;
// a reader still gets 403 first (Gitea checks write access before the archive flag).
import t from 'tap';
import { startForge } from '../helpers/forge.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('archived repositories: 423 Locked as Gitea', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const as = { token: alice.token };
  const R = '/repos/alice/arch';
  t.equal((await f.request('POST', '/user/repos', { ...as, json: { name: 'arch', auto_init: true, default_branch: 'main' } })).status, 201);
  const file = await f.request('POST', `${R}/contents/a.txt`, { ...as, json: { content: b64('a\n') } });
  t.equal(file.status, 201);
  t.equal((await f.request('POST', `${R}/branches`, { ...as, json: { new_branch_name: 'keep' } })).status, 201);
  t.equal((await f.request('POST', `${R}/tags`, { ...as, json: { tag_name: 'v1' } })).status, 201);
  t.equal((await f.request('POST', `${R}/branch_protections`, { ...as, json: { rule_name: 'keep' } })).status, 201);
  const issue = await f.request('POST', `${R}/issues`, { ...as, json: { title: 'before' } });
  t.equal(issue.status, 201);
  const comment = await f.request('POST', `${R}/issues/1/comments`, { ...as, json: { body: 'c' } });
  t.equal(comment.status, 201);
  t.equal((await f.request('PATCH', R, { ...as, json: { archived: true } })).json.archived, true);

  const locked: Array<[string, string, unknown]> = [
    ['POST', `${R}/contents/b.txt`, { content: b64('b\n') }],
    ['PUT', `${R}/contents/a.txt`, { content: b64('a2\n'), sha: file.json.content.sha }],
    ['DELETE', `${R}/contents/a.txt`, { sha: file.json.content.sha }],
    ['POST', `${R}/contents`, { files: [{ operation: 'create', path: 'c.txt', content: b64('c') }] }],
    ['POST', `${R}/branches`, { new_branch_name: 'new' }],
    ['PATCH', `${R}/branches/keep`, { name: 'renamed' }],
    ['DELETE', `${R}/branches/keep`, undefined],
    ['POST', `${R}/tags`, { tag_name: 'v2' }],
    ['DELETE', `${R}/tags/v1`, undefined],
    ['POST', `${R}/branch_protections`, { rule_name: 'other' }],
    ['PATCH', `${R}/branch_protections/keep`, { required_approvals: 1 }],
    ['POST', `${R}/issues`, { title: 'after' }],
    ['POST', `${R}/issues/1/comments`, { body: 'more' }],
    ['PATCH', `${R}/issues/comments/${comment.json.id}`, { body: 'edited' }],
    ['PATCH', `${R}/issues/1/comments/${comment.json.id}`, { body: 'edited' }],
    ['POST', `${R}/mirror-sync`, undefined],
  ];
  for (const [method, path, json] of locked) {
    const r = await f.request(method, path, { ...as, json });
    t.equal(r.status, 423, `${method} ${path} is locked`);
    t.match(r.json, { message: /archived/, url: String }, 'a JSON error body');
  }
  // A reader is refused for want of write access first.
  t.equal((await f.request('POST', `${R}/contents/b.txt`, { token: bob.token, json: { content: b64('b') } })).status, 403);
  t.equal((await f.request('POST', `${R}/branches`, { token: bob.token, json: { new_branch_name: 'x' } })).status, 403);

  // Reads, and the writes Gitea leaves open, still work.
  t.equal((await f.request('GET', `${R}/contents/a.txt`)).status, 200);
  t.equal((await f.request('GET', `${R}/branches`)).json.length, 2);
  t.equal((await f.request('PATCH', `${R}/issues/1`, { ...as, json: { state: 'closed' } })).status, 201);
  t.equal((await f.request('DELETE', `${R}/branch_protections/keep`, as)).status, 204);

  // Unarchived, the same writes go through.
  t.equal((await f.request('PATCH', R, { ...as, json: { archived: false } })).json.archived, false);
  t.equal((await f.request('POST', `${R}/contents/b.txt`, { ...as, json: { content: b64('b\n') } })).status, 201);
  t.equal((await f.request('POST', `${R}/issues`, { ...as, json: { title: 'after' } })).status, 201);
});
